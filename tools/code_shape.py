"""Measures of the library's shape, computed the same way on any nbdev project (STYLE.md's table):

    python tools/code_shape.py [NBS_DIR]

- exported-cell lines (median / p90 / max), counting code lines without the `#| export` directive and blank lines;
  cells that hold only a generated table (a single assignment of a string or collection literal) are listed apart;
- things defined per exported cell (top-level def / class / assignment of a public name);
- test cells per exported cell (code cells that are neither exported nor hidden);
- function lines (median / max) and the most parameters of one function (self/cls not counted);
- `raise` lines as a share of code lines;
- public functions and classes with a docstring.
"""
from __future__ import annotations

import ast
import json
import statistics
import sys
from pathlib import Path


def cells(nbs: Path):
    for nb in sorted(nbs.glob("*.ipynb")):
        for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if c["cell_type"] == "code": yield nb.name, "".join(c["source"])


def directives(src: str) -> set[str]:
    return {l.split()[1] for l in src.splitlines() if l.startswith("#|") and len(l.split()) > 1}


def code_lines(src: str) -> list[str]:
    return [l for l in src.splitlines() if l.strip() and not l.startswith("#|")]


def is_generated_table(tree: ast.Module) -> bool:
    "One top-level assignment whose value is a literal (string, tuple, dict, list)."
    body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    return len(body) == 1 and isinstance(body[0], ast.Assign) and isinstance(body[0].value, (ast.Constant, ast.Tuple, ast.Dict, ast.List))


def main(nbs: Path):
    exported, tests, tables, defined, funcs, params, raises, code, doc = [], 0, [], [], [], [], 0, 0, [0, 0]
    for name, src in cells(nbs):
        d = directives(src)
        if "export" not in d and "exports" not in d:
            if "hide" not in d and "default_exp" not in d and src.strip(): tests += 1
            continue
        lines = code_lines(src)
        try: tree = ast.parse("\n".join(lines))
        except SyntaxError: continue
        if all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body): continue  # the imports cell
        if is_generated_table(tree): tables.append((name, len(lines))); continue
        exported.append(len(lines))
        code += len(lines)
        raises += sum(1 for l in lines if l.lstrip().startswith("raise ") or " raise " in l)
        n_def = 0
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): n_def += 1
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and not t.id.startswith("_") for t in node.targets): n_def += 1
        defined.append(max(n_def, 1))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                funcs.append(node.end_lineno - node.lineno + 1)
                a = node.args
                names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
                params.append((len(names), node.name))
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_") and node in tree.body:
                doc[1] += 1; doc[0] += ast.get_docstring(node) is not None
    q = statistics.quantiles(exported, n=10)
    print(f"exported cells: {len(exported)} (+ {len(tables)} generated tables)")
    print(f"exported-cell lines, median / p90 / max: {statistics.median(exported):g} / {q[-1]:.0f} / {max(exported)}")
    print(f"cells over 40 lines: {sum(n > 40 for n in exported)}")
    print(f"things defined per exported cell: {statistics.mean(defined):.2f}; cells defining 3+: {sum(n >= 3 for n in defined)}")
    print(f"test cells per exported cell: {tests / len(exported):.2f}")
    print(f"function lines, median / max: {statistics.median(funcs):g} / {max(funcs)}")
    print(f"most parameters of one function: {max(params)[0]} ({max(params)[1]})")
    print(f"raise lines / code lines: {raises} / {code} = {100 * raises / code:.1f}%")
    print(f"public top-level functions and classes with a docstring: {doc[0]} / {doc[1]} = {100 * doc[0] / doc[1]:.0f}%")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "nbs")
