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
TEXT_MODULES = ["core", "tokenizer", "word_tokenizer", "chinese", "bpe", "wordpiece", "unigram", "parts", "normalizers", "pre_tokenizers",
                "models", "processors", "decoders", "pipeline", "tokenizer_loading", "tokenizer_cli", "sentiment_data"]


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


# ---------------------------------------------------------------------------------------------------- make nbtest
# `make test` runs each notebook once, through tools/docs.py (the executed copies feed the outputs check and the docs
# site); these check that it keeps nbdev_test's rules.
def _execute(src: Path, dest: Path, skip: list[str]) -> subprocess.CompletedProcess:
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'tools')!r}); import docs\n"
            f"docs.execute_notebook({str(src)!r}, {str(dest)!r}, {skip!r})")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)


def test_notebook_execution_fails_on_a_failing_assert(tmp_path):
    _notebook(tmp_path / "good.ipynb", "x = 1 + 1", "print(x)")
    ok = _execute(tmp_path / "good.ipynb", tmp_path / "out.ipynb", [])
    assert ok.returncode == 0, ok.stderr
    cells = json.loads((tmp_path / "out.ipynb").read_text(encoding="utf-8"))["cells"]
    assert cells[1]["outputs"][0]["text"] in ("2\n", ["2\n"]), cells[1]["outputs"]  # the outputs are kept
    _notebook(tmp_path / "bad.ipynb", "x = 1 + 1", "assert x == 3, 'arithmetic is broken'")
    bad = _execute(tmp_path / "bad.ipynb", tmp_path / "out2.ipynb", [])
    assert bad.returncode != 0 and "arithmetic is broken" in bad.stderr and "bad.ipynb" in bad.stderr
    assert not (tmp_path / "out2.ipynb").exists()


def test_notebook_execution_skips_flagged_cells(tmp_path):
    "A cell flagged with an inactive flag does not run and keeps its saved output, as under nbdev_test."
    _notebook(tmp_path / "flagged.ipynb", "#| shared_data\nassert False, 'flagged cell ran'", "print('ran')")
    skipped = _execute(tmp_path / "flagged.ipynb", tmp_path / "out.ipynb", ["shared_data"])
    assert skipped.returncode == 0, skipped.stderr
    forced = _execute(tmp_path / "flagged.ipynb", tmp_path / "out2.ipynb", [])
    assert forced.returncode != 0 and "flagged cell ran" in forced.stderr


def _with_output(path: Path, source: str, text: str | None) -> None:
    "A notebook of one code cell (id `c0`) whose saved stdout is `text` (None: no output)."
    _notebook(path, source)
    nb = json.loads(path.read_text(encoding="utf-8"))
    if text is not None: nb["cells"][0]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": [text]}]
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_outputs_check_finds_a_stale_output(tmp_path, monkeypatch):
    "tools/outputs.py reports a saved output the code no longer prints, and (in index.ipynb) a printed one never saved."
    sys.path.insert(0, str(ROOT / "tools"))
    import outputs
    (tmp_path / "nbs").mkdir(); (tmp_path / "_exec").mkdir()
    monkeypatch.setattr(outputs, "NBS", tmp_path / "nbs"); monkeypatch.setattr(outputs, "EXEC", tmp_path / "_exec")
    for name, saved, fresh in [("same", "ids holds id 50\n", "ids holds id 50\n"), ("stale", "ids holds id 50\n", "token_ids holds id 50\n"),
                               ("unsaved", None, "torch.Size([2, 4, 16])\n")]:
        _with_output(tmp_path / "nbs" / f"{name}.ipynb", "print(e)", saved)
        _with_output(tmp_path / "_exec" / f"{name}.ipynb", "print(e)", fresh)
    assert outputs.differences("same.ipynb") == []
    stale = outputs.differences("stale.ipynb")
    assert len(stale) == 1 and "-ids holds id 50" in stale[0] and "+token_ids holds id 50" in stale[0], stale
    assert outputs.differences("unsaved.ipynb") == []  # a cell saved without output claims nothing...
    monkeypatch.setattr(outputs, "STRICT", {"unsaved.ipynb"})
    assert len(outputs.differences("unsaved.ipynb")) == 1  # ...except in the README's notebook
    monkeypatch.setitem(outputs.VARIES, "stale.ipynb", {"c0": "a test of VARIES"})
    assert outputs.differences("stale.ipynb") == []
    monkeypatch.setitem(outputs.VARIES, "same.ipynb", {"gone": "a cell the notebook lost"})
    assert "no longer has" in outputs.differences("same.ipynb")[0]


# ---------------------------------------------------------------------------------------------------- README
def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_lists_every_command():
    "Every console script the package installs is named in the README's list of commands."
    import configparser
    cfg = configparser.ConfigParser(delimiters=["="]); cfg.read(ROOT / "settings.ini", encoding="utf-8")
    commands = [line.split("=")[0].strip() for line in cfg["DEFAULT"]["console_scripts"].split("\n") if line.strip()]
    assert len(commands) >= 7, commands
    listed = re.search(r"gives every command: (.*?)\(each has `--help`\)", _readme(), re.S)
    assert listed, "the README no longer has its list of commands"
    missing = [c for c in commands if f"`{c}`" not in listed.group(1)]
    assert not missing, f"the README's list of commands omits {missing}"


def test_readme_links_are_not_nested():
    "No link inside a link's text (`[[`x`](…#x)](…)`), which GitHub shows as literal brackets."
    nested = re.findall(r"\[[^\]\n]*\[[^\]\n]*\]\([^)\s]*\)[^\]\n]*\]\(", _readme())
    assert not nested, nested[:3]


def test_help_speaks_the_shell_users_language(env):
    "Every command's --help gives values and options, not Python: no `None`, no Markdown backticks, no module constant."
    import configparser, importlib
    cfg = configparser.ConfigParser(delimiters=["="]); cfg.read(ROOT / "settings.ini", encoding="utf-8")
    commands = [line.split("=")[0].strip() for line in cfg["DEFAULT"]["console_scripts"].split("\n") if line.strip()]
    constants = {n for m in _modules() for n in getattr(importlib.import_module(m), "__all__", []) if n.isupper() and "_" in n}
    assert "POSITION_SCHEMES" in constants
    for name in commands:
        res = subprocess.run([script(name), "--help"], capture_output=True, text=True, env={**env, "COLUMNS": "1000"})
        assert res.returncode == 0, res.stderr
        python = [w for w in ["`", "None", "switch off"] if w in res.stdout]
        python += sorted(c for c in constants if re.search(rf"\b{c}\b", res.stdout))
        assert not python, f"{name} --help shows {python}"
