"""Run a command and fail if it changed any file under the given paths.

    python tools/unchanged.py PATH [PATH ...] --what "message" -- COMMAND [ARGS ...]

Used by `make test` to check that `nbdev_clean`, `nbdev_export` and the README generator are no-ops, without
needing git (a user's uncommitted work is compared with itself, not with the last commit).
"""
import argparse
import hashlib
import subprocess
import sys
from pathlib import Path


def snapshot(paths):
    "Map every file under `paths` to the sha256 of its bytes."
    files = {}
    for p in map(Path, paths):
        for f in ([p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())):
            if "__pycache__" in f.parts or ".ipynb_checkpoints" in f.parts: continue
            files[str(f)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return files


def main():
    argv = sys.argv[1:]
    if "--" not in argv: sys.exit("usage: unchanged.py PATH... --what MSG -- COMMAND...")
    i = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--what", default="files changed")
    args, cmd = ap.parse_args(argv[:i]), argv[i + 1:]
    before = snapshot(args.paths)
    subprocess.run(cmd, check=True)
    after = snapshot(args.paths)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if changed:
        print(f"FAILED: {args.what}. `{' '.join(cmd)}` changed:", *changed, sep="\n  ", file=sys.stderr)
        sys.exit(1)
    print(f"ok: `{' '.join(Path(c).name if n == 0 else c for n, c in enumerate(cmd))}` changed nothing in {', '.join(args.paths)}")


if __name__ == "__main__":
    main()
