"""Shared pytest fixtures: the repository root and the shared data (skipped cleanly where absent)."""
import os
import sys
from pathlib import Path

import pytest

# `make test` runs two pytest processes at once on 2 cores: one torch thread per process and per command it starts
# (the toy models gain nothing from a second), unless OMP_NUM_THREADS is set. With torch's default of a thread per
# core, the threads of busy processes spin waiting for each other (tc-train on a toy set, on a busy machine: 5 s of CPU
# with one thread, 27 s with two).
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the venv's bin/, where nbdev's and our console scripts live


def pytest_configure(config):
    config.addinivalue_line("markers", "training_cli: a test of tests/test_training_cli.py (make test runs them apart)")
    config.addinivalue_line("markers", "beside: a tc-train test that make test runs with the other tests, to balance the two processes")
    config.addinivalue_line("markers", "apart: a test of another file that make test runs with the training_cli tests, to balance the two processes")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    "The shared data folder, or a skip that says where it was looked for."
    from transformer_components.core import DATA_ENV, find_shared_data
    found = find_shared_data(ROOT)
    if found is None:
        pytest.skip(f"shared data not found (../shared/data beside the clone, or ${DATA_ENV})")
    return found


def script(name: str) -> str:
    "Full path of a console script installed in the running environment."
    path = BIN / name
    if not path.exists(): pytest.fail(f"console script {name} is not installed in {BIN}; run `make setup`")
    return str(path)


@pytest.fixture(scope="session")
def env() -> dict:
    "Environment for subprocesses: this venv first on PATH."
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    return e
