"""Install the package as a user does and use every command from outside the repository.

    python tools/install_check.py            # what `make install-check` (part of `make test`) runs

1. `python -m build` makes the sdist, then the wheel *from the sdist* (so a file missing from the sdist fails here);
2. a fresh venv gets `torch==2.13.0` first (pip would otherwise resolve `torch>=2.2` to a multi-GB CUDA build): when the
   development venv holds that version, its files and its dependencies' are hard-linked in (the files pip would unpack,
   without writing 800 MB again), else pip installs it; then the wheel with no extras: pip picks today's newest numpy,
   matplotlib and fastcore, not our development pins;
3. no development-only package may be present (nbdev, hypothesis, the peers), so a runtime import that needs one
   fails here; every module is imported, every console script answers `--help` and `--version` and does one real
   job on small inputs written on the spot, and one bad input gets a one-line error (no traceback);
4. `pip install <repo>` (the README's other way in), reusing the venv's dependencies, must install the very files the
   wheel installed (same paths, same sha256, same entry points), so that everything step 3 showed holds for it too; it
   is imported from outside the repository and its commands answer `--version`.

Everything runs in a temporary folder, so the repository's own sources can never be imported by mistake. The
report ends with what the plain install cost: seconds and megabytes of the venv beside torch.
"""
from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TORCH_PIN = os.environ.get("TORCH_PIN", "torch==2.13.0")
DEV_ONLY = ["nbdev", "execnb", "hypothesis", "pytest", "tokenizers", "jieba", "transformers", "safetensors", "smalldocs"]


def settings() -> configparser.SectionProxy:
    cfg = configparser.ConfigParser(delimiters=["="])
    cfg.read(ROOT / "settings.ini", encoding="utf-8")
    return cfg["DEFAULT"]


def scripts() -> list[str]:
    return [line.split("=")[0].strip() for line in settings()["console_scripts"].splitlines() if line.strip()]


def run(cmd, *, cwd, env=None, stdin: str | None = None, ok=(0,), timeout=600) -> subprocess.CompletedProcess:
    "Run `cmd`; fail loudly (with its output) when the exit status is not in `ok`."
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    if r.returncode not in ok:
        sys.exit(f"install-check: FAILED: {' '.join(map(str, cmd))} exited {r.returncode} (expected {ok})\n"
                 f"--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}")
    return r


def one_line_error(r: subprocess.CompletedProcess, prog: str, *, contains: str = ""):
    "A user error: exit 1, one line `prog: error: ...` on stderr, no traceback."
    lines = r.stderr.strip().splitlines()
    if r.returncode != 1 or len(lines) != 1 or not lines[0].startswith(f"{prog}: error: ") or contains not in lines[0]:
        sys.exit(f"install-check: FAILED: {prog} on bad input gave exit {r.returncode} and stderr:\n{r.stderr[-2000:]}")


def write_inputs(d: Path) -> dict[str, Path]:
    "Small inputs for one real call of every command."
    words = ["good", "great", "fine", "lovely", "bad", "awful", "poor", "dull"]
    rows = []
    for i in range(160):
        picks = [words[(i * 7 + k * 3) % 8] for k in range(3)]
        rows.append((f"the {' '.join(picks)} film", int(sum(w in words[:4] for w in picks) >= 2)))
    (d / "toy.tsv").write_text("sentence\tlabel\n" + "".join(f"{t}\t{y}\n" for t, y in rows), encoding="utf-8")
    (d / "corpus.txt").write_text("\n".join(t for t, _ in rows) * 3 + "\n", encoding="utf-8")
    (d / "zh_dict.txt").write_text("北京 100\n大学 80\n北京大学 40\n学习 60\n我们 90\n在 200\n", encoding="utf-8")
    return {"tsv": d / "toy.tsv", "corpus": d / "corpus.txt", "zh_dict": d / "zh_dict.txt"}


def check_install(bin_dir: Path, work: Path, label: str):
    "Everything a user does after installing, run from `work` (outside the repository)."
    py, env = bin_dir / "python", {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None); env.pop("TC_DATA", None)
    env.setdefault("OMP_NUM_THREADS", "1")  # `make test` runs this beside the notebooks: torch's threads would spin on busy cores
    t0 = time.monotonic()
    where = run([py, "-c", "import transformer_components, os; print(os.path.dirname(transformer_components.__file__))"], cwd=work, env=env)
    if str(ROOT) in where.stdout: sys.exit(f"install-check: FAILED: the package was imported from the repository ({where.stdout.strip()})")
    present = run([py, "-c", "import importlib.util as u, json, sys; print(json.dumps([m for m in sys.argv[1:] if u.find_spec(m)]))",
                   *DEV_ONLY], cwd=work, env=env)
    if json.loads(present.stdout): sys.exit(f"install-check: FAILED: development-only packages in a plain install: {present.stdout}")
    run([py, "-c", "import pkgutil, importlib, transformer_components as tc\n"
         "for m in pkgutil.iter_modules(tc.__path__): importlib.import_module(f'transformer_components.{m.name}')"], cwd=work, env=env)
    for s in scripts():
        h = run([bin_dir / s, "--help"], cwd=work, env=env)
        if "usage:" not in h.stdout: sys.exit(f"install-check: FAILED: {s} --help printed no usage:\n{h.stdout}")
        run([bin_dir / s, "--version"], cwd=work, env=env)
    inp = write_inputs(work)
    # tokenizers
    run([bin_dir / "tc-train-tokenizer", inp["corpus"], "--model", "wordpiece", "--vocab-size", "60", "--out", work / "wp.json"], cwd=work, env=env)
    run([bin_dir / "tc-train-tokenizer", inp["corpus"], "--vocab-size", "300", "--out", work / "bpe.json"], cwd=work, env=env)
    for tok in ("wp.json", "bpe.json"):
        r = run([bin_dir / "tc-tokenize", "--tokenizer", work / tok], cwd=work, env=env, stdin="a lovely film\n\nbad\n")
        rows = [json.loads(l) for l in r.stdout.splitlines()]
        if len(rows) != 3 or not rows[0]["ids"]: sys.exit(f"install-check: FAILED: tc-tokenize --tokenizer {tok} gave {r.stdout!r}")
    one_line_error(run([bin_dir / "tc-tokenize", "--tokenizer", work / "missing.json"], cwd=work, env=env, stdin="", ok=(1,)), "tc-tokenize")
    # Chinese segmentation: with a dictionary, and without one in a plain install (jieba's dictionary is the [zh] extra)
    r = run([bin_dir / "tc-segment", "--dict", inp["zh_dict"]], cwd=work, env=env, stdin="我们在北京大学学习\n")
    if r.stdout.split() != ["我们", "在", "北京大学", "学习"]: sys.exit(f"install-check: FAILED: tc-segment gave {r.stdout!r}")
    one_line_error(run([bin_dir / "tc-segment"], cwd=work, env=env, stdin="北京\n", ok=(1,)), "tc-segment",
                   contains="transformer_components[zh]")
    (work / "segmented.txt").write_text("我们 在 北京大学 学习\n北京 的 大学\n我们 学习\n", encoding="utf-8")
    run([bin_dir / "tc-train-segmenter", work / "segmented.txt", "--out", work / "zh.model"], cwd=work, env=env)
    r = run([bin_dir / "tc-segment", "--model", work / "zh.model"], cwd=work, env=env, stdin="我们在北京大学学习\n")
    if "".join(r.stdout.split()) != "我们在北京大学学习": sys.exit(f"install-check: FAILED: tc-segment --model gave {r.stdout!r}")
    # the classifier: train, evaluate, predict
    run([bin_dir / "tc-train", "--train", inp["tsv"], "--out", work / "run", "--vocab-size", "60", "--embedding-dim", "16", "--num-heads", "2",
         "--num-layers", "1", "--epochs", "1", "--batch-size", "16"], cwd=work, env=env)
    r = run([bin_dir / "tc-eval", "--model", work / "run", "--data", inp["tsv"]], cwd=work, env=env)
    if json.loads(r.stdout.splitlines()[-1])["n"] != 160: sys.exit(f"install-check: FAILED: tc-eval gave {r.stdout!r}")
    r = run([bin_dir / "tc-predict", "--model", work / "run", "a lovely great film"], cwd=work, env=env)
    if not r.stdout.strip(): sys.exit("install-check: FAILED: tc-predict printed nothing")
    one_line_error(run([bin_dir / "tc-eval", "--model", work / "run", "--data", work / "missing.tsv"], cwd=work, env=env, ok=(1,)),
                   "tc-eval")
    print(f"install-check: {label}: {len(scripts())} commands (--help, --version, a real call, a bad input) and every module "
          f"import OK from {work} ({time.monotonic() - t0:.0f} s)")


INSTALLED_FILES = ("import importlib.metadata as m, json\n"
                   "d = m.distribution('transformer_components')\n"
                   "skip = ('RECORD', 'INSTALLER', 'REQUESTED', 'direct_url.json')  # how it was installed, not what\n"
                   "print(json.dumps({str(f): f.hash.value if f.hash else d.read_text(f.name) for f in d.files\n"
                   "                  if f.name not in skip and '__pycache__' not in f.parts}, sort_keys=True))")


def installed_files(py: Path, work: Path) -> dict[str, str]:
    "Path -> sha256 of every file the installed package put in place (its entry points read as text), as pip recorded it."
    return json.loads(run([py, "-c", INSTALLED_FILES], cwd=work).stdout)


def same_install(bin_dir: Path, work: Path, wheel_files: dict[str, str]):
    "A second install holds exactly the wheel's files, is imported from outside the repository, and its commands run."
    files = installed_files(bin_dir / "python", work)
    if files != wheel_files:
        diff = sorted(set(files.items()) ^ set(wheel_files.items()))
        sys.exit(f"install-check: FAILED: `pip install <repo>` installs other files than the wheel: {diff[:10]}")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None)
    where = run([bin_dir / "python", "-c", "import transformer_components, os; print(transformer_components.__file__)"], cwd=work, env=env)
    if str(ROOT) in where.stdout: sys.exit(f"install-check: FAILED: the package was imported from the repository ({where.stdout.strip()})")
    for s in scripts(): run([bin_dir / s, "--version"], cwd=work, env=env)
    print(f"install-check: pip install <repo>: the same {len(files)} files as the wheel (sha256 each), imported from {work}, "
          f"{len(scripts())} commands answer --version")


def _requirements(dist) -> list[str]:
    "Names of the distributions `dist` needs (no extras, markers of this platform)."
    from packaging.requirements import Requirement
    reqs = [Requirement(r) for r in dist.requires or []]
    return [r.name for r in reqs if not r.marker or r.marker.evaluate({"extra": ""})]


def link_torch(site: Path) -> str | None:
    """Hard-link torch and everything it needs from the running (development) venv into the venv whose site-packages is
    `site`, as pip would have installed them (files and `.dist-info` alike, so pip sees them installed); None when the
    running venv has no torch matching `TORCH_PIN`, or another Python (then pip installs it). Commands (`torchrun`) are
    left out: their first line names the other venv's python, and nothing here runs them."""
    import importlib.metadata as metadata
    from importlib.util import cache_from_source
    name, _, version = TORCH_PIN.partition("==")
    if site.parent.name != f"python{sys.version_info[0]}.{sys.version_info[1]}": return None
    dists, todo = {}, [name]
    try:
        while todo:
            dist = metadata.distribution(todo.pop())
            if dist.name.lower() not in dists: dists[dist.name.lower()] = dist; todo += _requirements(dist)
    except metadata.PackageNotFoundError: return None
    torch = dists[name]
    if not version or torch.version.split("+")[0] != version: return None
    files = {(d, Path(f)) for d in dists.values() for f in d.files or [] if f.parts[0] != ".."}
    # the compiled `__pycache__` files come too: without them every import compiles torch again (`make setup` has them
    # written by compileall, not pip, so that the record does not list them)
    files |= {(d, Path(cache_from_source(f))) for d, f in files if f.suffix == ".py" and Path(d.locate_file(cache_from_source(f))).is_file()}
    for dist, f in files:
        src, dest = Path(dist.locate_file(f)), site / f
        dest.parent.mkdir(parents=True, exist_ok=True)
        try: os.link(src, dest)
        except OSError: shutil.copy2(src, dest)  # another file system
    return f"{torch.version} and {len(dists) - 1} dependencies ({len(files)} files) linked from {Path(torch.locate_file('')).parents[2]}"


def du_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def main():
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tc-install-check-") as tmp:
        tmp = Path(tmp)
        run([sys.executable, "-m", "build", "--outdir", tmp / "dist", ROOT], cwd=tmp)
        sdist, wheel = next((tmp / "dist").glob("*.tar.gz")), next((tmp / "dist").glob("*.whl"))
        print(f"install-check: built {sdist.name} and {wheel.name} (the wheel from the sdist)")
        base = shutil.which("python3") or sys.executable
        run([base, "-m", "venv", tmp / "venv"], cwd=tmp)
        bin_dir = tmp / "venv" / "bin"
        site = Path(run([bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp).stdout.strip())
        linked = link_torch(site)
        if linked: print(f"install-check: torch {linked}")
        else: run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", TORCH_PIN], cwd=tmp)
        torch_mb = du_mb(tmp / "venv")
        t0 = time.monotonic()
        run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel], cwd=tmp)
        seconds, extra_mb = time.monotonic() - t0, du_mb(tmp / "venv") - torch_mb
        run([bin_dir / "python", "-m", "pip", "check"], cwd=tmp)
        versions = run([bin_dir / "python", "-c", "import importlib.metadata as m; print(', '.join(f'{p} {m.version(p)}' for p in "
                        "('fastcore', 'numpy', 'matplotlib', 'torch')))"], cwd=tmp).stdout.strip()
        print(f"install-check: plain install of the wheel: {seconds:.0f} s, {extra_mb:.0f} MB beside torch ({torch_mb:.0f} MB "
              f"with pip itself); picked {versions}")
        (tmp / "work-wheel").mkdir()
        check_install(bin_dir, tmp / "work-wheel", "wheel")
        wheel_files = installed_files(bin_dir / "python", tmp / "work-wheel")
        run([bin_dir / "python", "-m", "pip", "uninstall", "--quiet", "-y", "transformer_components"], cwd=tmp)
        run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", ROOT], cwd=tmp)
        (tmp / "work-source").mkdir()
        same_install(bin_dir, tmp / "work-source", wheel_files)
    print(f"install-check: passed in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
