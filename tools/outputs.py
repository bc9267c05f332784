"""Check that every notebook's saved outputs are what its code prints now.

    python tools/outputs.py                 # compare nbs/*.ipynb with the copies `tools/docs.py execute` ran into _exec/
    python tools/outputs.py --update index  # copy the fresh outputs of nbs/index.ipynb into it (then run nbdev_clean)

`make test` runs this right after executing the notebooks (`make nbtest`). The README is made from the saved outputs
of `index.ipynb` and the docs pages show what the code prints, so a saved output that the code no longer prints (a
reworded error message, a changed count) is a stale claim; nothing else would notice it.

What is compared, per code cell (matched by cell id): the printed text, that is the `stdout` stream and the plain-text
result of the cell's last expression, and the text of an error. Figures, HTML and `stderr` (warnings, progress bars)
are not compared. A cell saved without printed output makes no claim and is not compared, except in `STRICT`
notebooks (`index.ipynb`, whose saved outputs are the README's), where it must be saved with what it prints. A cell
that `make test` does not run (its flag is not active) keeps its saved outputs, so it is not checked. Cells whose
printed text changes from run to run (timings, throughput) are listed in `VARIES` with the reason; the list is
checked too, so an entry whose cell is gone fails and is removed.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS, EXEC = ROOT / "nbs", ROOT / "_exec"

STRICT = {"index.ipynb"}  # every cell saved with what it prints: README.md is made from these outputs
# notebook -> {cell id: why its printed text differs between two runs of the same code}
VARIES: dict[str, dict[str, str]] = {}


def printed(cell: dict) -> str:
    "The text a cell printed: stdout, plain-text results and errors, in order; trailing spaces and blank tails dropped."
    parts = []
    for o in cell.get("outputs", []):
        kind = o.get("output_type")
        if kind == "stream" and o.get("name") == "stdout": parts.append("".join(o.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = o.get("data", {})
            if "text/plain" in data and not ({"image/png", "text/html", "text/markdown"} & data.keys()):
                parts.append("".join(data["text/plain"]) + "\n")
        elif kind == "error": parts.append(f"{o.get('ename')}: {o.get('evalue')}\n")
    text = "".join(parts)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def code_cells(path: Path) -> dict[str, dict]:
    "Code cells of a notebook by id."
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return {c["id"]: c for c in cells if c["cell_type"] == "code" and c.get("id")}


def differences(name: str) -> list[str]:
    "Each cell of notebook `name` whose saved printed text differs from the executed copy's, as a short diff."
    saved, fresh = code_cells(NBS / name), code_cells(EXEC / name)
    out, varies = [], VARIES.get(name, {})
    for cid in varies:
        if cid not in saved: out.append(f"{name}: VARIES lists cell {cid}, which the notebook no longer has")
    for cid, cell in saved.items():
        if cid in varies or cid not in fresh: continue
        old, new = printed(cell), printed(fresh[cid])
        if old == new or (not old and name not in STRICT): continue
        diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "saved", "printed now", n=0, lineterm=""))
        first = "".join(cell["source"]).splitlines()[:1]
        shown = diff[2:12] + ([f"... ({len(diff) - 12} more diff lines)"] if len(diff) > 12 else [])
        out.append(f"{name}, cell {cid} ({first[0][:60] if first else ''!r}):\n    " + "\n    ".join(shown))
    return out


def update(name: str) -> None:
    "Copy the executed outputs of every code cell into the saved notebook (run `nbdev_clean` afterwards)."
    path = NBS / name
    nb = json.loads(path.read_text(encoding="utf-8"))
    fresh = code_cells(EXEC / name)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and cell.get("id") in fresh:
            cell["outputs"] = fresh[cell["id"]].get("outputs", [])
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"  updated the outputs of {path.relative_to(ROOT)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", nargs="+", metavar="NOTEBOOK", help="copy the fresh outputs into these notebooks "
                    "(names as in nbs/, with or without .ipynb)")
    args = ap.parse_args()
    names = sorted(p.name for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    sys.path.insert(0, str(ROOT / "tools"))
    import docs
    _, force = docs.test_flags()
    key = lambda n: EXEC / f"{n}.key"  # written by `docs.py execute` for the notebook and library it ran
    stale = [n for n in names if not key(n).exists() or key(n).read_text() != docs._fingerprint(NBS / n, force)]
    if stale: sys.exit(f"outputs: _exec/ holds no run of the current {', '.join(stale)}: run `python tools/docs.py execute` first")
    if args.update:
        for n in args.update: update(n if n.endswith(".ipynb") else f"{n}.ipynb")
        return
    problems = [d for n in names for d in differences(n)]
    claims = sum(1 for n in names for c in code_cells(NBS / n).values() if printed(c) and c["id"] not in VARIES.get(n, {}))
    if problems:
        print(f"FAILED: {len(problems)} saved outputs differ from what the code prints now (the README and the docs "
              "show the saved ones):\n" + "\n".join(problems) +
              "\nRe-run the notebook and save it, or `python tools/outputs.py --update NAME` then `nbdev_clean`.",
              file=sys.stderr)
        sys.exit(1)
    print(f"ok: the {claims} saved printed outputs of {len(names)} notebooks (every cell of {', '.join(sorted(STRICT))}) "
          "are what their code prints now")


if __name__ == "__main__":
    main()
