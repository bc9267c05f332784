# transformer_components: the two commands in the README do all the set-up on a fresh clone.
#   make docs   execute every notebook and build the docs site into _docs/
#   make test   check the notebooks are clean and the library in sync, run every notebook once (and check its saved
#               outputs), then pytest
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
TORCH_PIN ?= torch==2.13.0
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.transformer_components-installed

# Cells flagged `shared_data` need ../shared/data (or $TC_DATA); run them only where it exists.
DATA_DIR := $(if $(TC_DATA),$(TC_DATA),../shared/data)
TEST_FLAGS := $(if $(wildcard $(DATA_DIR)),shared_data,)
NBDEV_WORKERS ?= 2

.PHONY: help setup export docs test check-clean check-export check-readme check-outputs nbtest pytest pytest-apart pytest-rest install-check readme bench clean serve

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

$(STAMP): setup.py settings.ini
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@# torch first, pinned, so that pip never resolves `torch>=2.2` to the multi-GB CUDA build
	@$(PY) -c 'import torch' 2>/dev/null || $(PY) -m pip install --quiet --no-compile $(TORCH_PIN)
	@# pip writes the bytecode of what it installs on one core (about 60 s for torch and the dev extra); compileall writes
	@# the same files instead: torch's on the other core while pip installs the rest, then the rest on every core. Like
	@# pip, it skips the few files that do not compile (torch's tests written for a newer Python), hence `|| true`: a
	@# module without bytecode imports more slowly, not wrongly
	$(PY) -m compileall -qq $(VENV)/lib/python3*/site-packages/*/ & \
	  $(PY) -m pip install --quiet --no-compile --upgrade-strategy only-if-needed -e '.[dev]'; wait
	@$(PY) -m compileall -qq -j 0 $(VENV)/lib || true
	@touch $@

setup: $(STAMP) ## create .venv and install the project with its dev extra (once; again when settings.ini changes)

export: setup ## regenerate transformer_components/ from the notebooks
	$(BIN)/nbdev_export

readme: setup ## regenerate README.md from nbs/index.ipynb
	$(PY) tools/docs.py readme

docs: export ## execute every notebook and build the docs site into _docs/ (open _docs/index.html)
	$(PY) tools/docs.py build

check-clean: setup ## fail if nbdev_clean would change a notebook
	$(PY) tools/unchanged.py nbs --what "notebooks are not clean; commit the result of nbdev_clean" -- $(BIN)/nbdev_clean

check-export: setup ## fail if nbdev_export would change the library
	$(PY) tools/unchanged.py transformer_components --what "the library is out of sync with nbs/; commit the result of nbdev_export" -- $(BIN)/nbdev_export

check-readme: setup ## fail if README.md is out of date with nbs/index.ipynb
	$(PY) tools/unchanged.py README.md --what "README.md is out of date; run make readme" -- $(PY) tools/docs.py readme

# The notebooks' tests run once per `make test`: tools/docs.py executes each notebook by nbdev_test's rules (a fresh
# shell each, flagged cells skipped) and keeps the executed copy in _exec/, where the outputs check and the docs site
# (pytest) find it instead of executing the notebook again; the same process then renders its page's API entries
# (_exec/pages/), so the docs build in pytest only copies the pages. One notebook while working: nbdev_test --path nbs/NN_x.ipynb
nbtest: setup ## run the notebooks' tests (cells flagged shared_data only where the data exists), keeping their outputs
	@echo "notebook tests: flags '$(TEST_FLAGS)' (shared data at $(DATA_DIR): $(if $(TEST_FLAGS),found,absent - flagged cells skipped))"
	DOCS_WORKERS=$(NBDEV_WORKERS) $(PY) tools/docs.py execute

check-outputs: nbtest ## fail if a notebook's saved outputs differ from what its code prints now (the README shows them)
	$(PY) tools/outputs.py

pytest: setup ## run tests/ (CLI end to end, the docs site in a browser, ...)
	$(BIN)/pytest -ra tests

# `make test` runs tests/ as two pytest processes at once, most of the training commands' tests (subprocesses that
# mostly keep one core busy, or wait) and tests/test_bpe.py (marked `apart`, to even the two out) beside all the others:
# the two marker expressions are each other's complement, so together they run every test once, in about the time of
# the longer half.
PYTEST_APART := (training_cli and not beside) or apart
pytest-apart: setup
	$(BIN)/pytest -ra tests -m "$(PYTEST_APART)"
pytest-rest: setup
	$(BIN)/pytest -ra tests -m "not ($(PYTEST_APART))"

install-check: setup ## build sdist + wheel, install the wheel (no extras) into a fresh venv, use every command from outside
	$(PY) tools/install_check.py

# install-check (mostly pip and the disk) runs beside the notebooks (mostly CPU), so that on 2 cores their times overlap
# instead of adding up (their lines interleave); either failing fails `make test` before pytest starts.
test: check-clean check-export check-readme ## all checks; pytest's summary line closes the run
	@$(MAKE) --no-print-directory -j2 install-check check-outputs
	@echo "pytest: the tests of tests/test_training_cli.py (most) and tests/test_bpe.py, and the others at once (each report is shown whole when its run ends)"
	@$(MAKE) --no-print-directory -j2 --output-sync=target pytest-apart pytest-rest

bench: export ## run every benchmark against its peers (ratios measured in one run); names the scripts that failed
	@failed=""; for f in benchmarks/[!_]*.py; do echo "== $$f"; $(PY) $$f $(BENCH_ARGS) || failed="$$failed $$f"; done; \
	if [ -n "$$failed" ]; then echo "make bench: failed:$$failed" >&2; exit 1; fi; echo "make bench: every script ran to the end"

clean: ## remove build outputs (keeps .venv)
	rm -rf _docs _proc _exec .pytest_cache

DOCS_PORT ?= 8000
serve: ## serve the built site at http://127.0.0.1:$(DOCS_PORT) (after make docs; opening _docs/index.html works too)
	@test -f _docs/index.html || { echo "no _docs/index.html: run make docs first" >&2; exit 1; }
	$(PYTHON) -m http.server --bind 127.0.0.1 --directory _docs $(DOCS_PORT)
