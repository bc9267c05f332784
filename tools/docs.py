"""Build the documentation site and README.md without Quarto.

    python tools/docs.py build    # execute notebooks -> process them with nbdev -> render with smalldocs -> _docs/
    python tools/docs.py readme   # README.md from nbs/index.ipynb (its saved outputs; nothing is executed)

Quarto cannot be installed on our machines, and `nbdev_docs`, `nbdev_readme` and `nbdev_proc_nbs` all call it. This
script does what they do with the pieces of nbdev that do not need it:

1. **execute** every notebook (outputs cleared first) into `_exec/`, with the same rules as `nbdev_test`: cells whose
   test flag is not active keep the outputs saved in the notebook. Results are cached per notebook, keyed on the
   notebook, the library's sources and the active flags, so a second build only re-runs what changed;
2. **process** the executed notebooks with nbdev's own processors (`show_doc`, `#| hide`, `#| echo: false`, ...)
   into `_proc/`, naming each page after its `output-file` (`00_core.ipynb` -> `core.ipynb`), because smalldocs
   ignores `output-file` and nbdev's doc links point at `core.html`;
3. **render** `_proc/` with smalldocs into `_docs/`, then serve KaTeX from the site itself (smalldocs loads it from
   a CDN, which leaves raw `\\(...\\)` on an offline machine) and give search its index as a script, so that it
   works on pages opened from disk (`file://`), where browsers refuse smalldocs' fetch of `search.json`.

Step 2 also renders show_doc blocks as nbdev 2.3 did: a signature without comments, then a table of the parameters
(type, default, and the docment as details) instead of nbdev 2.4's docments as comments that run off to the right.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS, EXEC, PROC, CACHE = ROOT / "nbs", ROOT / "_exec", ROOT / "_proc", ROOT / ".cache"
KATEX_VERSION = "0.16.11"  # the version smalldocs asks the CDN for
KATEX_CDN = f"https://cdn.jsdelivr.net/npm/katex@{KATEX_VERSION}/dist"
SECTIONS = {  # sidebar sections by the first digit of a notebook's number, in the order data flows
    "0": "Text → tokens → ids",
    "1": "Embeddings and positions",
    "2": "Masks and attention",
    "3": "Analysis and plots",
    "4": "Encoder classifier",
    "5": "Tutorials",
    "9": "Development",
}


def config():
    "settings.ini as a dict (nbdev's own reader, so interpolation matches nbdev's)."
    from nbdev.config import get_config
    return get_config(path=ROOT)


def notebooks() -> list[Path]:
    "The notebooks of the site, index first, then in numbered (data-flow) order."
    nbs = sorted(p for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    return sorted(nbs, key=lambda p: (p.stem != "index", p.name))


def test_flags() -> tuple[set[str], set[str]]:
    "(flags that skip cells, flags forced on): `shared_data` is forced on where the shared data exists."
    skip = set(config().get("tst_flags", "").split())
    sys.path.insert(0, str(ROOT))
    from transformer_components.core import find_shared_data
    force = {"shared_data"} if find_shared_data(ROOT) else set()
    return skip, force


# ---------------------------------------------------------------------------------------------------- execute
def _runs(cell, skip: set[str]) -> bool:
    "Whether a code cell runs, by `nbdev_test`'s rules (export calls and `eval: false` never run)."
    from nbdev.process import extract_directives
    if cell.cell_type != "code": return False
    if "nbdev_export" + "(" in cell.source: return False
    direc = extract_directives(cell, remove=False) or {}
    if direc.get("eval:", [""])[0].lower() == "false": return False
    return not (skip & direc.keys())


def execute_notebook(src: str, dest: str, skip: list[str]) -> float:
    "Run `src` top to bottom in a fresh IPython shell and write it, with outputs, to `dest`. Returns seconds."
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    src, skip, start = Path(src), set(skip), time.time()
    nb = read_nb(src)
    for cell in nb.cells:
        if _runs(cell, skip): cell.outputs, cell.execution_count = [], None
    shell = CaptureShell(src)
    with working_directory(src.parent):
        try: shell.run_all(nb, exc_stop=True, preproc=lambda c: not _runs(c, skip))
        except Exception: raise RuntimeError(shell.prettytb(fname=src)) from None
    write_nb(nb, dest)
    return time.time() - start


def _fingerprint(nb: Path, flags: set[str]) -> str:
    "Cache key for an executed notebook: its bytes, every library source, settings.ini and the active flags."
    h = hashlib.sha256(nb.read_bytes())
    for f in sorted((ROOT / "transformer_components").rglob("*.py")) + [ROOT / "settings.ini"]:
        h.update(f.name.encode()); h.update(f.read_bytes())
    h.update(" ".join(sorted(flags)).encode())
    return h.hexdigest()


def execute_all(workers: int = 2) -> list[Path]:
    "Execute the notebooks that changed since the last build into `_exec/`; return the executed paths."
    skip, force = test_flags()
    active = skip - force
    EXEC.mkdir(exist_ok=True)
    todo, out = [], []
    for nb in notebooks():
        dest, keyf = EXEC / nb.name, EXEC / f"{nb.name}.key"
        key = _fingerprint(nb, force)
        out.append(dest)
        if dest.exists() and keyf.exists() and keyf.read_text() == key: print(f"  cached   {nb.name}")
        else: todo.append((nb, dest, keyf, key))
    if todo:
        # a fresh process per notebook: IPython replaces `__main__` in its process, and notebooks must not share state
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
            futs = [(t, pool.submit(_worker.execute_notebook, str(t[0]), str(t[1]), sorted(active))) for t in todo]
            failed = []
            for (nb, dest, keyf, key), fut in futs:
                try: secs = fut.result()
                except Exception as e: failed.append((nb, e)); continue
                keyf.write_text(key)
                print(f"  executed {nb.name} in {secs:.1f} s")
            for nb, e in failed: print(f"\n{e}", file=sys.stderr)
            if failed: sys.exit(f"docs: {len(failed)} notebook(s) failed to execute: {', '.join(n.name for n, _ in failed)}")
    for stale in set(EXEC.glob("*.ipynb")) - set(out): stale.unlink()
    return out


# ---------------------------------------------------------------------------------------------------- process
def page_name(nb: Path) -> str:
    "The page a notebook becomes: its `output-file` stem (`00_core.ipynb` -> `core`), as nbdev's doc links expect."
    from execnb.nbio import read_nb
    from nbdev.frontmatter import FrontmatterProc
    from nbdev.process import NBProcessor
    proc = NBProcessor(nb=read_nb(nb), procs=FrontmatterProc, process=True)
    out = (getattr(proc.nb, "frontmatter_", {}) or {}).get("output-file")
    return Path(out).stem if out else nb.stem


def _relink(text: str, names: dict[str, str]) -> str:
    "Point links at notebooks (`00_core.ipynb`) to their page names (`core.ipynb`)."
    return re.sub(r"\b(\d\d[\w.-]*?)\.ipynb\b", lambda m: f"{names.get(m.group(1), m.group(1))}.ipynb", text)


def _needs_doc_eval(cell) -> bool | None:
    """Stricter version of nbdev's `_do_eval`: re-run only exported cells, pure-import cells and `show_doc` calls.
    nbdev also re-runs any cell that merely *contains* an import (even inside a `try` or a function), without the
    rest of the notebook's state, which breaks test cells that import a reference package next to their code."""
    import ast
    from nbdev import processors as P
    if P.cell_lang(cell) != "python" or cell.cell_type != "code" or not cell.source: return None
    if "nbdev_export" + "()" in cell.source: return None
    if cell.directives_.get("eval:", [""])[0].lower() == "false": return None
    if cell.directives_.keys() & {"export", "exports", "exporti", "exec_doc"}: return True
    trees = cell.parsed_()
    if not trees: return None
    body = list(trees)  # `parsed_` gives the top-level statements
    if body and all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in body): return True
    return bool(P._show_docs(trees)) or None


def process_notebook(src: str, dest: str, names: dict[str, str]) -> None:
    "Run nbdev's doc processors (show_doc, hide, echo, front matter...) over an executed notebook."
    from execnb.nbio import read_nb, write_nb
    from nbdev import processors, showdoc
    from nbdev.processors import FilterDefaults
    processors._do_eval = _needs_doc_eval
    # what `renderer = ...` in settings.ini would do, for the site only: show_doc looks this name up at each call
    showdoc.BasicMarkdownRenderer = param_table_renderer()
    os.chdir(ROOT)  # nbdev finds settings.ini from the working directory
    nb = read_nb(src)
    FilterDefaults()(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown": cell.source = _relink(cell.source, names)
        # the file already carries the page's name; smalldocs would warn that it does not read `output-file`
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            cell.source = re.sub(r"(?m)^output-file:.*\n", "", cell.source)
    write_nb(nb, dest)


def process_all(executed: list[Path], workers: int = 2) -> list[tuple[Path, str]]:
    "Process the executed notebooks into `_proc/`; return (source notebook, page name) in sidebar order."
    if PROC.exists(): shutil.rmtree(PROC)
    PROC.mkdir()
    pages = [(nb, page_name(NBS / nb.name)) for nb in executed]
    names = {nb.stem: name for nb, name in pages}
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        list(pool.map(_worker.process_notebook, [str(nb) for nb, _ in pages], [str(PROC / f"{n}.ipynb") for _, n in pages],
                      [names] * len(pages)))
    for asset in NBS.iterdir():  # styles, images and the site config travel with the pages
        if asset.is_file() and asset.suffix not in (".ipynb",) and asset.name != "sidebar.yml":
            shutil.copy2(asset, PROC / asset.name)
    cfg = config()
    (PROC / "nbdev.yml").write_text(
        "project:\n  output-dir: ../_docs\n\nwebsite:\n"
        f'  title: "{cfg.title}"\n  site-url: "{cfg.doc_host}{cfg.doc_baseurl}"\n'
        f'  description: "{cfg.description}"\n  repo-branch: {cfg.branch}\n  repo-url: "{cfg.git_url}"\n',
        encoding="utf-8")
    (PROC / "sidebar.yml").write_text(sidebar_yaml(pages), encoding="utf-8")
    return pages


def sidebar_yaml(pages: list[tuple[Path, str]]) -> str:
    "The sidebar: the index, then one section per decade of notebook numbers."
    lines = ["website:", "  sidebar:", "    contents:"]
    current = None
    for nb, name in pages:
        digit = nb.name[0] if nb.name[:2].isdigit() else None
        if digit is None:
            lines.append(f"      - {name}.ipynb"); current = None; continue
        section = SECTIONS.get(digit, "More")
        if section != current:
            lines += [f'      - section: "{section}"', "        contents:"]
            current = section
        lines.append(f"          - {name}.ipynb")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------- show_doc
# nbdev 2.4's show_doc prints the signature as code with each docment as a `# comment` after its parameter, so long
# comments run off behind a scroll bar. nbdev 2.3 and earlier put the docments in a table (fastcore's `DocmentTbl`:
# name, **Type**, **Default**, **Details**); this renderer brings that table back, under a signature without comments.
# `DocmentTbl` itself is not used: it does not escape the `|` of `str | Path`, which splits the table's row; it shows
# the default `''` as an empty cell (as if there were none) and `'w'` as `w`; and it writes the type of the default
# for unannotated parameters (`file=None` becomes "NoneType").
SIGNATURE_WIDTH = 68  # longer signatures get one parameter per line; 70 characters fill the page at 1280 px
STARS = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}


def _annotation(a) -> str:
    "An annotation as written in the source (a string under `from __future__ import annotations`, or a `ForwardRef`)."
    a = getattr(a, "__forward_arg__", a)
    return a if isinstance(a, str) else inspect.formatannotation(a)


def _default(d) -> str:
    "A default as code: repr, or the name of a class or function (not `<class 'argparse.HelpFormatter'>`)."
    return d.__qualname__ if inspect.isclass(d) or inspect.isroutine(d) else repr(d)


def _signature(sym) -> inspect.Signature | None:
    "The signature a caller sees (no `self`), or None where Python cannot read one (a builtin constructor)."
    try: sig = inspect.signature(sym)
    except (TypeError, ValueError): return None
    return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "self"])


def _returns(sym, sig: inspect.Signature) -> str | None:
    "The return annotation as text; None for a class (its `__init__` returns None) or when there is none."
    if inspect.isclass(sym) or sig.return_annotation is sig.empty: return None
    return _annotation(sig.return_annotation)


def signature_text(sym) -> str:
    "`def name(a: int, b: str = 'x') -> T` (or `class Name(...)`), one parameter per line when it is long."
    P = inspect.Parameter
    name = getattr(sym, "__name__", type(sym).__name__)
    if inspect.isclass(sym): kw = "class"
    else: kw = "async def" if inspect.iscoroutinefunction(sym) else "def"
    sig = _signature(sym)
    if sig is None:  # an exception with the builtin constructor: its bases say more than `*args, **kwargs`
        bases = ", ".join(b.__name__ for b in getattr(sym, "__bases__", ()) if b is not object)
        return f"{kw} {name}({bases})" if inspect.isclass(sym) else f"{kw} {name}(...)"
    params, parts = list(sig.parameters.values()), []
    for i, p in enumerate(params):
        if p.kind is P.KEYWORD_ONLY and (i == 0 or params[i - 1].kind not in (P.KEYWORD_ONLY, P.VAR_POSITIONAL)):
            parts.append("*")
        text = STARS.get(p.kind, "") + p.name
        if p.annotation is not p.empty: text += f": {_annotation(p.annotation)}"
        if p.default is not p.empty: text += (" = " if p.annotation is not p.empty else "=") + _default(p.default)
        parts.append(text)
        if p.kind is P.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not P.POSITIONAL_ONLY):
            parts.append("/")
    ret = _returns(sym, sig)
    ret = f" -> {ret}" if ret else ""
    line = f"{kw} {name}({', '.join(parts)}){ret}"
    if len(line) <= SIGNATURE_WIDTH: return line
    return f"{kw} {name}(\n" + "".join(f"    {p},\n" for p in parts) + f"){ret}"


def _code_span(s: str) -> str:
    "Markdown code for `s`, with a fence of backticks longer than any run inside it."
    fence = "`" * (max((len(r) for r in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _table_cell(s: str) -> str:
    "Text that stays in one cell of a Markdown table (GFM reads `\\|` as a pipe, in code spans too)."
    return s.replace("|", r"\|").replace("\n", "<br>")


def param_table(sym) -> str:
    "nbdev's parameter table: a row per parameter (and the return), columns Type, Default and Details; empty columns go."
    from fastcore.docments import docments
    sig = _signature(sym)
    if not sig or not sig.parameters: return ""
    try: dm = docments(sym, full=True)
    except (OSError, TypeError, ValueError): return ""  # no source to read the comments from
    said = lambda n: (dm.get(n) or {}).get("docment") or ""
    if not any(said(n) for n in [*sig.parameters, "return"]): return ""  # no docments: nbdev shows no table either
    rows = [[_code_span(STARS.get(p.kind, "") + p.name),
             _code_span(_annotation(p.annotation)) if p.annotation is not p.empty else "",
             _code_span(_default(p.default)) if p.default is not p.empty else "",
             said(p.name)] for p in sig.parameters.values()]
    ret = _returns(sym, sig)
    if not inspect.isclass(sym) and (ret or said("return")):
        rows.append(["**Returns**", _code_span(ret) if ret else "", "", said("return")])
    keep = [0] + [c for c in (1, 2) if any(r[c] for r in rows)] + [3]
    header = ["", "**Type**", "**Default**", "**Details**"]
    lines = ["| " + " | ".join(header[c] for c in keep) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(_table_cell(r[c]) for c in keep) + " |" for r in rows]
    return "\n".join(lines)


def show_doc_markdown(r) -> str:
    "The Markdown of one show_doc block: rule, source link and heading as nbdev writes them, signature, docstring, table."
    from nbdev.doclinks import NbdevLookup
    md = "---\n\n"
    src = NbdevLookup().code(r.fn)
    if src: md += f'[source]({src}){{target="_blank" style="float:right; font-size:smaller"}}\n\n'
    md += f"{'#' * r.title_level} {r.nm}\n\n```{{.python .show-doc-signature}}\n{signature_text(r.sym)}\n```\n"
    if r.docs: md += "\n" + re.sub(r"^(\s*)(.+)", r"\1*\2*", r.docs, count=1) + "\n"  # first line in italics, as nbdev
    table = param_table(r.sym)
    return md + (f"\n{table}\n" if table else "")


def param_table_renderer():
    "nbdev's show_doc renderer with `show_doc_markdown` for functions and classes (anything else as nbdev shows it)."
    from nbdev.showdoc import BasicMarkdownRenderer

    class ParamTableRenderer(BasicMarkdownRenderer):
        def _repr_markdown_(self):
            if inspect.isroutine(self.sym) or inspect.isclass(self.sym): return show_doc_markdown(self)
            return super()._repr_markdown_()
    return ParamTableRenderer


# ---------------------------------------------------------------------------------------------------- render
def katex_dist() -> Path:
    "KaTeX's `dist/` folder, unpacked from the npm registry's tarball once and kept in `.cache/`."
    target = CACHE / f"katex-{KATEX_VERSION}"
    if (target / "katex.min.js").exists(): return target
    CACHE.mkdir(exist_ok=True)
    tgz = CACHE / f"katex-{KATEX_VERSION}.tgz"
    if not tgz.exists():
        if not shutil.which("npm"): sys.exit("docs: npm is needed once to fetch KaTeX (apt-get install npm)")
        subprocess.run(["npm", "pack", f"katex@{KATEX_VERSION}", "--silent", "--pack-destination", str(CACHE)],
                       check=True, stdout=subprocess.DEVNULL)
    tmp = CACHE / "katex-unpack"
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(tgz) as tar: tar.extractall(tmp, filter="data")
    shutil.rmtree(target, ignore_errors=True)
    shutil.move(tmp / "package" / "dist", target)
    shutil.rmtree(tmp)
    return target


def bundle_katex(site: Path) -> int:
    "Copy KaTeX into `site_libs/katex` and point every page at it instead of the CDN. Returns pages changed."
    shutil.copytree(katex_dist(), site / "site_libs" / "katex", dirs_exist_ok=True)
    changed = 0
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if KATEX_CDN not in html: continue
        up = "../" * (len(page.relative_to(site).parts) - 1)
        page.write_text(html.replace(KATEX_CDN, f"{up}site_libs/katex"), encoding="utf-8")
        changed += 1
    leftover = [p.name for p in site.rglob("*.html") if "cdn.jsdelivr.net" in p.read_text(encoding="utf-8")]
    if leftover: sys.exit(f"docs: pages still load scripts from a CDN: {leftover}")
    return changed


# smalldocs' search reads the index with fetch(), which browsers refuse for file:// pages, so the search box of a site
# opened from disk says "No results". A <script> may load a local file, so the index also goes out as `search.js`
# (one global) and the search code reads it through a script tag on first use, over http as from disk.
SEARCH_FETCH = 'const r = await fetch(offset + "search.json");\n      index = await r.json();'
SEARCH_SCRIPT = """index = window.smalldocsSearchIndex || await new Promise((resolve, reject) => {
        const s = document.createElement("script");  // search.js: the index as a script, which file:// pages may load
        s.src = offset + "search.js";
        s.onload = () => resolve(window.smalldocsSearchIndex || []);
        s.onerror = reject;
        document.head.appendChild(s);
      });"""


def search_from_disk(site: Path) -> int:
    "Write `search.js` beside `search.json` and make smalldocs' search read it. Returns the number of index entries."
    entries = json.loads((site / "search.json").read_text(encoding="utf-8"))
    # U+2028/2029 end a line in JavaScript older than ES2019; escaped they are plain characters in a string
    data = json.dumps(entries, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    (site / "search.js").write_text(f"window.smalldocsSearchIndex = {data};\n", encoding="utf-8")
    js = site / "site_libs" / "smalldocs.js"
    code = js.read_text(encoding="utf-8")
    if code.count(SEARCH_FETCH) != 1:
        sys.exit(f"docs: {js.relative_to(ROOT)} no longer loads search.json as tools/docs.py expects "
                 "(a new smalldocs?); update SEARCH_FETCH so that search works from file://")
    js.write_text(code.replace(SEARCH_FETCH, SEARCH_SCRIPT), encoding="utf-8")
    return len(entries)


def render(pages: list[tuple[Path, str]]) -> Path:
    "Render `_proc/` with smalldocs into the doc folder and make it work offline."
    site = ROOT / config().doc_path.name
    if site.exists(): shutil.rmtree(site)
    subprocess.run([str(Path(sys.executable).with_name("smalldocs")), "render", "--quiet", str(PROC)], check=True)
    missing = [f"{name}.html" for _, name in pages if not (site / f"{name}.html").exists()]
    if missing: sys.exit(f"docs: smalldocs wrote no page for {missing}")
    n = bundle_katex(site)
    entries = search_from_disk(site)
    print(f"  rendered {len(pages)} pages into {site.relative_to(ROOT)}/ (KaTeX bundled into {n} pages with math; "
          f"{entries} search entries in search.js)")
    return site


# ---------------------------------------------------------------------------------------------------- readme
def _output_text(out) -> str | None:
    "Plain text of a saved output, for README code blocks (images and HTML are left to the docs site)."
    if out.get("output_type") == "stream": return "".join(out.get("text", ""))
    data = out.get("data", {})
    if "text/markdown" in data: return None
    text = data.get("text/plain")
    return "".join(text) if isinstance(text, list) else text


def readme_markdown() -> str:
    "README.md: nbs/index.ipynb processed as for the site (saved outputs, nothing executed), as GitHub markdown."
    from execnb.nbio import read_nb
    from nbdev.processors import FilterDefaults
    cfg = config()
    os.chdir(ROOT)
    nb = read_nb(NBS / cfg.get("readme_nb", "index.ipynb"))
    FilterDefaults()(nb)
    names = {p.stem: page_name(p) for p in notebooks()}
    site = f"{cfg.doc_host}{cfg.doc_baseurl}".rstrip("/")
    parts = ["<!-- WARNING: THIS FILE WAS AUTOGENERATED FROM nbs/index.ipynb BY `make readme`! DO NOT EDIT! -->"]
    for cell in nb.cells:
        src = cell.source
        if cell.cell_type == "raw" and src.startswith("---"):
            fm = __import__("yaml").safe_load(src.strip().strip("-")) or {}
            parts.append(f"# {fm.get('title', cfg.title)}")
            if fm.get("description"): parts.append(f"> {fm['description']}")
        elif cell.cell_type == "markdown":
            if src.startswith("<!-- WARNING"): continue
            parts.append(re.sub(r"\]\((\d\d[\w.-]*?)\.ipynb(#[^)]*)?\)",
                                lambda m: f"]({site}/{names.get(m.group(1), m.group(1))}.html{m.group(2) or ''})", src))
        elif cell.cell_type == "code":
            code = "\n".join(l for l in src.splitlines() if not l.startswith("#|")).strip()
            if code: parts.append(f"```python\n{code}\n```")
            for out in cell.get("outputs", []):
                text = _output_text(out)
                if text: parts.append(f"```\n{text.rstrip()}\n```")
    return "\n\n".join(parts).rstrip() + "\n"


def write_readme() -> None:
    "Write README.md only when its content changes (so the file's mtime means something)."
    text, dest = readme_markdown(), ROOT / "README.md"
    if not dest.exists() or dest.read_text(encoding="utf-8") != text:
        dest.write_text(text, encoding="utf-8")
        print("  wrote README.md")


# ---------------------------------------------------------------------------------------------------- main
def build(workers: int = 2) -> Path:
    start = time.time()
    print("docs: executing notebooks")
    executed = execute_all(workers)
    print("docs: processing notebooks with nbdev")
    pages = process_all(executed, workers)
    print("docs: rendering with smalldocs")
    site = render(pages)
    write_readme()
    print(f"docs: done in {time.time() - start:.0f} s; open {site.relative_to(ROOT)}/index.html")
    return site


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    import docs as _worker  # workers must find their functions in an importable module, not in `__main__`
    cmd = sys.argv[1] if len(sys.argv) > 1 else "build"
    if cmd == "build": build(int(os.environ.get("DOCS_WORKERS", "2")))
    elif cmd == "readme": write_readme()
    else: sys.exit(f"usage: {sys.argv[0]} build|readme")
