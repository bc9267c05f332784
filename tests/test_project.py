"""Project-level guarantees that no single notebook can check: nbdev_test fails on a failing assert, importing
the package stays light, and no module hard-codes a device."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, script


def _notebook(path: Path, *sources: str) -> None:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": src} for i, src in enumerate(sources)]
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "python3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


def _mini_project(tmp_path: Path) -> Path:
    "A copy of our settings.ini with an empty nbs/ folder: an nbdev project nbdev_test can run in."
    shutil.copy(ROOT / "settings.ini", tmp_path / "settings.ini")
    (tmp_path / "nbs").mkdir()
    return tmp_path


def test_nbdev_test_fails_on_a_failing_assert(tmp_path):
    proj = _mini_project(tmp_path)
    _notebook(proj / "nbs" / "good.ipynb", "x = 1 + 1", "assert x == 2")
    ok = subprocess.run([script("nbdev_test"), "--path", "nbs/good.ipynb"], cwd=proj, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    _notebook(proj / "nbs" / "bad.ipynb", "x = 1 + 1", "assert x == 3, 'arithmetic is broken'")
    bad = subprocess.run([script("nbdev_test"), "--path", "nbs"], cwd=proj, capture_output=True, text=True)
    assert bad.returncode != 0
    assert "bad.ipynb" in bad.stderr and "arithmetic is broken" in bad.stderr


def test_flagged_cells_skip_unless_forced(tmp_path):
    "Cells flagged `shared_data` are skipped by default and run with --flags shared_data (as `make test` does)."
    proj = _mini_project(tmp_path)
    _notebook(proj / "nbs" / "flagged.ipynb", "#| shared_data\nassert False, 'flagged cell ran'")
    skipped = subprocess.run([script("nbdev_test"), "--path", "nbs"], cwd=proj, capture_output=True, text=True)
    assert skipped.returncode == 0, skipped.stderr
    forced = subprocess.run([script("nbdev_test"), "--path", "nbs", "--flags", "shared_data"], cwd=proj,
                            capture_output=True, text=True)
    assert forced.returncode != 0 and "flagged cell ran" in forced.stderr


def _modules() -> list[str]:
    pkg = ROOT / "transformer_components"
    return sorted(f"transformer_components.{p.stem}" for p in pkg.glob("*.py") if not p.stem.startswith("_"))


def test_import_stays_light():
    "Importing the package or any of its modules never imports matplotlib (plots import it when called)."
    code = ("import sys, importlib\n"
            f"for m in {['transformer_components'] + _modules()!r}: importlib.import_module(m)\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'pandas', 'IPython'))\n"
            "print(heavy[:5])\n"
            "assert not heavy, heavy")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# The text side of the library: tokenizers, the segmenter, the data readers and their command lines. None of them
# touches a tensor, so none may pay for torch's import (about a second at every `tc-tokenize --help`).
TEXT_MODULES = ["core", "tokenizer", "word_tokenizer", "chinese", "bpe", "wordpiece", "tokenizer_loading", "tokenizer_cli", "sentiment_data"]


@pytest.mark.parametrize("module", TEXT_MODULES)
def test_text_modules_import_no_torch(module):
    "Each text-side module, imported alone in a fresh process, imports neither torch, numpy nor matplotlib."
    code = (f"import sys, transformer_components.{module}\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'numpy', 'matplotlib'})\n"
            "assert not heavy, heavy")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_no_module_hard_codes_a_device():
    "Only core.default_device names accelerator devices; every other module follows its inputs' device."
    pattern = re.compile(r"""(device\(|\.to\(|device\s*=)\s*["'](cuda|mps)|\.(cuda|mps)\(""")
    offenders = []
    for path in (ROOT / "transformer_components").glob("*.py"):
        if path.name in ("core.py", "_modidx.py"): continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line): offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert not offenders, "hard-coded devices:\n" + "\n".join(offenders)


def test_modules_compile_without_warnings():
    "No invalid escape sequences (LaTeX in docstrings needs raw strings): a SyntaxError from Python 3.12 on."
    import warnings
    for path in sorted((ROOT / "transformer_components").glob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
