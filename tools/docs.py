"""Build the documentation site and README.md without Quarto.

    python tools/docs.py build    # execute notebooks -> process them with nbdev -> render with smalldocs -> _docs/
    python tools/docs.py execute  # only execute, every notebook (`make nbtest`): the notebooks' tests, outputs into `_exec/`
    python tools/docs.py execute --cached  # only the notebooks changed since their last execution
    python tools/docs.py render   # process and render again from `_exec/` without executing (work on the site)
    python tools/docs.py readme   # README.md from nbs/index.ipynb (its saved outputs; nothing is executed)

Quarto cannot be installed on our machines, and `nbdev_docs`, `nbdev_readme` and `nbdev_proc_nbs` all call it. This
script does what they do with the pieces of nbdev that do not need it:

1. **execute** every notebook (outputs cleared first) into `_exec/`, with the same rules as `nbdev_test`: cells whose
   test flag is not active keep the outputs saved in the notebook. Results are cached per notebook, keyed on the
   notebook, the library's sources and the active flags, so a second build only re-runs what changed;
2. **process** the executed notebooks with nbdev's own processors (`show_doc`, `#| hide`, `#| echo: false`, ...)
   into `_proc/`, naming each page after its `output-file` (`00_core.ipynb` -> `core.ipynb`), because smalldocs
   ignores `output-file` and nbdev's doc links point at `core.html`. Step 1 processes each notebook right after
   executing it, in the same process (`_exec/pages/`), so a build after `make nbtest` only copies the pages;
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
PAGES = EXEC / "pages"  # each executed notebook processed into its page, beside it (the docs build copies it to _proc/)
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


def execute_notebook(src: str, dest: str, skip: list[str]) -> tuple[float, float]:
    "Run `src` top to bottom in a fresh IPython shell and write it, with outputs, to `dest`. Returns (wall, CPU) seconds."
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    import matplotlib_inline.backend_inline as inline
    inline._fetch_figure_metadata = _with_titles(inline._fetch_figure_metadata)
    src, skip, start, cpu = Path(src), set(skip), time.time(), time.process_time()
    os.environ["IN_TEST"] = "1"  # as nbdev_test sets it: a notebook's own `nbdev_export()` call does nothing
    nb = read_nb(src)
    for cell in nb.cells:
        if _runs(cell, skip): cell.outputs, cell.execution_count = [], None
    shell = CaptureShell(src)
    with working_directory(src.parent):
        try: shell.run_all(nb, exc_stop=True, preproc=lambda c: not _runs(c, skip))
        except Exception: raise RuntimeError(shell.prettytb(fname=src)) from None
    write_nb(nb, dest)
    return time.time() - start, time.process_time() - cpu  # CPU time of this process (its torch threads included)


def _with_titles(fetch):
    "matplotlib_inline's figure metadata plus `alt`: the figure's titles, which the docs make the image's alt text."
    def metadata(fig):
        md = fetch(fig) or {}
        titles = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) else []
        titles += [ax.get_title() for ax in fig.axes if ax.get_title()]
        if titles: md["alt"] = "; ".join(dict.fromkeys(titles))
        return md or None
    return metadata


def _library(h) -> None:
    "Feed every library source and settings.ini into the hash `h`."
    for f in sorted((ROOT / "transformer_components").rglob("*.py")) + [ROOT / "settings.ini"]:
        h.update(f.name.encode()); h.update(f.read_bytes())


def _fingerprint(nb: Path, flags: set[str]) -> str:
    "Cache key for an executed notebook: its bytes, every library source, settings.ini and the active flags."
    h = hashlib.sha256(nb.read_bytes())
    _library(h)
    h.update(" ".join(sorted(flags)).encode())
    return h.hexdigest()


def _page_key(executed: Path, names: dict[str, str]) -> str:
    "Cache key for a processed page: the executed notebook, the library, this script and every notebook's page name."
    h = hashlib.sha256(executed.read_bytes())
    _library(h)
    h.update(Path(__file__).read_bytes()); h.update(json.dumps(names, sort_keys=True).encode())
    return h.hexdigest()


def page_names() -> dict[str, str]:
    "Notebook stem -> the name of its page (`00_core` -> `core`), for every notebook of the site."
    return {nb.stem: page_name(nb) for nb in notebooks()}


def execute_and_process(src: str, dest: str, skip: list[str], page: str, names: dict[str, str]) -> tuple[float, float, float]:
    """Execute a notebook into `dest`, then process the executed copy into the page `page`, in the same process: nbdev's
    processing re-runs the exported cells and `show_doc`, and here torch and the library are imported already.
    Returns (wall, CPU) seconds of the execution and the seconds of the processing."""
    secs, cpu = execute_notebook(src, dest, skip)
    start = time.time()
    os.environ.pop("IN_TEST", None)  # processing runs as in a process of its own
    process_notebook(dest, page, names)
    Path(f"{page}.key").write_text(_page_key(Path(dest), names))
    return secs, cpu, time.time() - start


def _code_length(nb: Path) -> int:
    "Characters of code in a notebook."
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    return sum(len("".join(c["source"])) for c in cells if c["cell_type"] == "code")


def _one_thread_per_worker(workers: int) -> None:
    """Workers run side by side (beside install-check in `make test`): one torch thread each (the workers, and the server
    they are forked from, inherit the environment: call this before making the pool), unless OMP_NUM_THREADS is set.
    With torch's default of a thread per core, the threads of two busy processes spin waiting for each other
    (42_training beside 43_sentiment_tutorial on a busy machine: 19 s of CPU with one thread each, 189 s with two)."""
    if workers > 1: os.environ.setdefault("OMP_NUM_THREADS", "1")


# what the workers import whatever their notebook: IPython, nbdev's tools, and torch (most notebooks use it; 2.5 s of CPU)
PRELOAD = ["docs", "execnb.nbio", "execnb.shell", "matplotlib_inline.backend_inline", "nbdev.processors", "nbdev.showdoc", "torch"]


def _fresh_processes(workers: int) -> ProcessPoolExecutor:
    """A pool that runs each task in a process of its own (IPython replaces `__main__` in its process, and notebooks must
    not share state), forked from a server that imported PRELOAD once: a notebook starts with those modules loaded, as it
    would after its own imports, instead of paying for them again (a spawned worker spent about 1.3 s of CPU on the tools
    and 2.5 s on torch, for each of 36 notebooks). The library itself is not preloaded: each notebook imports it fresh.
    Importing PRELOAD starts no thread, so forking after it is safe."""
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, max_tasks_per_child=1)


def execute_all(workers: int = 2, fresh: bool = False) -> list[Path]:
    """Execute the notebooks that changed since the last build (`fresh`: every notebook) into `_exec/`; return the
    executed paths. `make nbtest` runs it fresh as the notebooks' test (each notebook once, by `nbdev_test`'s rules; a
    failing assert stops it with the notebook, the cell and the traceback), and the docs build then finds them cached."""
    skip, force = test_flags()
    active = skip - force
    EXEC.mkdir(exist_ok=True); PAGES.mkdir(exist_ok=True)
    names = page_names()
    todo, out = [], []
    for nb in notebooks():
        dest, keyf = EXEC / nb.name, EXEC / f"{nb.name}.key"
        key = _fingerprint(nb, force)
        out.append(dest)
        if not fresh and dest.exists() and keyf.exists() and keyf.read_text() == key: print(f"  cached   {nb.name}")
        else: todo.append((nb, dest, keyf, key))
    if todo:
        _one_thread_per_worker(workers)
        # the longest first, so that the last one to finish is a short one (07a_pipeline alone is most of the time);
        # a notebook's length of code is a fair guess at its running time
        todo.sort(key=lambda t: -_code_length(t[0]))
        with _fresh_processes(workers) as pool:
            futs = [(t, pool.submit(_worker.execute_and_process, str(t[0]), str(t[1]), sorted(active),
                                    str(PAGES / f"{names[t[0].stem]}.ipynb"), names)) for t in todo]
            failed, times = [], []
            for (nb, dest, keyf, key), fut in futs:
                try: secs, cpu, proc = fut.result()
                except Exception as e: failed.append((nb, e)); keyf.unlink(missing_ok=True); continue
                keyf.write_text(key)
                times.append((secs, cpu, nb.name, proc))
                print(f"  executed {nb.name} in {secs:.1f} s ({cpu:.1f} s CPU), its page processed in {proc:.1f} s", flush=True)
            if len(times) > 1:
                print("  slowest: " + ", ".join(f"{n} {s:.0f} s" for s, _, n, _ in sorted(times, reverse=True)[:5])
                      + f"; {sum(t[0] for t in times):.0f} s ({sum(t[1] for t in times):.0f} s CPU) in all, on {workers} workers;"
                      f" pages processed in {sum(t[3] for t in times):.0f} s")
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
    """Point links at notebooks (`00_core.ipynb`) to their page names (`core.ipynb`). Only link targets change: a file
    name in prose or in a code span (`nbdev_test --path nbs/00_core.ipynb`) is a file name and stays as written."""
    page = lambda m: f"{names.get(m.group(1), m.group(1))}.ipynb"
    target = lambda m: re.sub(r"\b(\d\d[\w.-]*?)\.ipynb\b", page, m.group(0))
    return re.sub(r"\]\([^)\s]*\)|href=\"[^\"]*\"", target, text)


def site_url() -> str:
    "Where the site is published (`doc_host` + `doc_baseurl`), with a final `/`."
    cfg = config()
    return f"{cfg.doc_host}{cfg.doc_baseurl}".rstrip("/") + "/"


KEPT_DUNDERS = {"__init__", "__call__"}  # the only `__x__` methods with a place in the API pages


def _hidden(name: str) -> bool:
    "Whether the API pages leave out `name` (dotted): private names and dunder methods (`__reduce__`, `__repr__`...)."
    last = name.rsplit(".", 1)[-1]
    return last.startswith("_") and last not in KEPT_DUNDERS


API_LINK = re.compile(r"\[(`[^`\]]+`)\]\(([^)\s]+)\)")


def _local_links(text: str, site: str) -> str:
    """nbdev's links from a backticked name to its entry, `[`x`](https://…/page.html#x)`, made relative so that a site
    opened from disk stays on disk; a link to a name the pages leave out (`_unit`) becomes the plain code span."""
    def fix(m):
        label, url = m.groups()
        if not url.startswith(site): return m.group(0)
        url = url[len(site):]
        return label if _hidden(url.partition("#")[2]) else f"[{label}]({url})"
    return API_LINK.sub(fix, text)


PROGRESS = re.compile(r"^.*\d+%\|.*$\n?", re.M)  # a tqdm progress bar: `Writing model shards: 100%|###| 1/1 [...]`


def _drop_progress(cell) -> None:
    "Remove progress bars (tqdm, written to stderr) from a cell's outputs: a page shows results, not their progress."
    outs = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream" and o.get("name") == "stderr":
            text = PROGRESS.sub("", re.sub(r"[^\n]*\r(?!\n)", "", "".join(o.get("text", ""))))
            if not text.strip(): continue
            o["text"] = text
        outs.append(o)
    cell["outputs"] = outs


def _only_test_helpers(cell) -> bool:
    "A code cell that only defines `test_*` helpers (such as `test_same`): tooling for the tests, not for the reader."
    import ast
    if cell.cell_type != "code" or cell.source.lstrip().startswith("#|"): return False
    try: body = ast.parse(cell.source).body
    except SyntaxError: return False
    return bool(body) and all(isinstance(n, ast.FunctionDef) and n.name.startswith("test_") for n in body)


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


def _memoise_findsource() -> None:
    """Make `inspect.findsource` remember its answer per object. For a class it parses the class's whole module each
    time, and the parameter tables ask for a class's source several times: that parsing was most of the processing."""
    import inspect
    if getattr(inspect.findsource, "memoised", False): return
    find, seen = inspect.findsource, {}
    def findsource(obj):
        try: key = (obj, inspect.getsourcefile(obj))
        except TypeError: return find(obj)  # no source file (a builtin): let inspect raise its own error
        try: hash(key)
        except TypeError: return find(obj)
        if key not in seen: seen[key] = find(obj)
        return seen[key]
    findsource.memoised = True
    inspect.findsource = findsource


def process_notebook(src: str, dest: str, names: dict[str, str]) -> None:
    "Run nbdev's doc processors (show_doc, hide, echo, front matter...) over an executed notebook."
    from execnb.nbio import read_nb, write_nb
    from nbdev import processors, showdoc
    from nbdev.processors import FilterDefaults
    processors._do_eval = _needs_doc_eval
    _memoise_findsource()
    # what `renderer = ...` in settings.ini would do, for the site only: show_doc looks this name up at each call
    showdoc.BasicMarkdownRenderer = param_table_renderer()
    os.chdir(ROOT)  # nbdev finds settings.ini from the working directory
    nb = read_nb(src)
    for cell in nb.cells:
        if _only_test_helpers(cell): cell.source = "#| hide\n" + cell.source
    FilterDefaults()(nb)
    site = site_url()
    nb.cells = [c for c in nb.cells if not any(HIDDEN_DOC in "".join(o.get("data", {}).get("text/markdown", ""))
                                               for o in c.get("outputs", []))]
    prose = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _local_links(_relink(cell.source, names), site)
            prose = cell.source
        for o in cell.get("outputs", []):
            md = o.get("data", {}).get("text/markdown")
            if md: o["data"]["text/markdown"] = _local_links("".join(md), site)
        if cell.cell_type == "code":
            _drop_progress(cell)
            figures(cell, prose)
        # the file already carries the page's name; smalldocs would warn that it does not read `output-file`
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            cell.source = re.sub(r"(?m)^output-file:.*\n", "", cell.source)
    write_nb(nb, dest)


# ---------------------------------------------------------------------------------------------------- figures
# matplotlib's figures arrive as retina PNGs (twice the size they are shown at) of up to 3,000 px, with no alt text.
# Each becomes an <img> with alt text (the figure's titles, recorded when the notebook ran, else the last sentence of
# the prose before it), its display width from the notebook, and 256 colours: 30-35% of the bytes, no visible change.

def plain_math(text: str) -> str:
    "LaTeX commands as plain characters (`m\\theta_i` -> `mθ_i`, `\\beta_{fast}` -> `β_fast`), for text without KaTeX."
    def cmd(m):
        name = m.group(1)
        return SYMBOLS.get(name, name if name in WORDS or len(name) > 1 else m.group(0))  # `\\n` in code stays
    # \0 keeps `\cdot\text{x}` from becoming one command `\cdotx`; it goes once the commands are replaced
    text = re.sub(r"\\(?:text|math[a-z]{2,4}|operatorname|textbf|textit|texttt|boldsymbol)\s*\{([^{}]*)\}", "\0\\1", text)
    text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", "√(\\1)", text)
    text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", "(\\1)/(\\2)", text)
    text = re.sub(r"\\([A-Za-z]+)(?![A-Za-z])", cmd, text).replace("\0", "")
    text = re.sub(r"\\[,;:! ]", " ", text).replace(r"\{", "{").replace(r"\}", "}")
    text = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", text)  # x_{2i} -> x_2i
    return re.sub(r"\\[()\[\]]", "", text)


SYMBOLS = {**{g: chr(c) for g, c in zip(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi "
    "psi omega".split(), range(0x3B1, 0x3CA)) if g != "omicron"},
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Omega": "Ω",
    "varepsilon": "ε", "varphi": "φ", "cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~", "in": "∈", "infty": "∞", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "mapsto": "↦", "ldots": "…", "cdots": "⋯", "dots": "…", "sum": "Σ", "prod": "∏", "pm": "±",
    "odot": "⊙", "oplus": "⊕", "otimes": "⊗", "partial": "∂", "nabla": "∇", "top": "ᵀ", "lfloor": "⌊",
    "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "langle": "⟨", "rangle": "⟩", "quad": " ", "qquad": " ",
    "left": "", "right": "", "big": "", "Big": "", "mid": "|", "lVert": "‖", "rVert": "‖", "|": "‖"}
WORDS = {"log", "ln", "exp", "sin", "cos", "tan", "max", "min", "arg", "argmax", "argmin", "softmax", "det", "dim"}


def _sentence(markdown: str) -> str:
    "The last sentence of a Markdown cell, as plain text."
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)  # links and images: their text
    text = re.sub(r"^#+\s*|[*`]|<[^>]+>|\$", "", text, flags=re.M)
    text = " ".join(plain_math(text).split())
    sentences = [s for s in re.split(r"(?<=[.!?:])\s+", text) if len(s) > 3]
    return sentences[-1] if sentences else ""


def figure_alt(titles: str | None, prose: str) -> str:
    "Alt text for a figure: its titles (recorded when the notebook ran), else the last sentence of the prose before it."
    alt = plain_math((titles or "").replace("$", "")).strip() or _sentence(prose).rstrip(":") or "Figure"
    return alt if len(alt) <= 300 else alt[:299] + "…"


def small_png(b64: str) -> str:
    "A PNG re-encoded with 256 colours (on white, as the page shows it) when that is smaller; base64 in, base64 out."
    import base64, io
    from PIL import Image
    raw = base64.b64decode(b64)
    im = Image.open(io.BytesIO(raw))
    rgb = Image.new("RGB", im.size, "white")
    rgb.paste(im, mask=im.getchannel("A") if im.mode in ("RGBA", "LA") else None)
    out = io.BytesIO()
    rgb.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    return base64.b64encode(out.getvalue()).decode() if out.tell() < len(raw) else b64


# A figure is shown at >= 65% of the size it was drawn at (10-point labels keep >= 9 px), on a phone too: one wider than
# a 400 px phone's text column at that scale scrolls sideways in its own box (styles.css: .figure-scroll).
LEGIBLE, PHONE_COLUMN = 0.65, 340


def _png_width(b64: str) -> int:
    "The width in pixels of a base64 PNG (from its header)."
    import base64
    return int.from_bytes(base64.b64decode(b64[:32])[16:20], "big")


def figures(cell, prose: str) -> None:
    "Turn each PNG output of a cell into an <img> with alt text, display width and fewer bytes."
    import html
    for o in cell.get("outputs", []):
        data = o.get("data", {})
        if "image/png" not in data: continue
        b64 = "".join(data["image/png"]).replace("\n", "")
        width = (o.get("metadata", {}).get("image/png") or {}).get("width")
        size = f' width="{width}"' if width else ""
        alt = html.escape(figure_alt(o.get("metadata", {}).get("alt"), prose), quote=True)
        img = f'<img src="data:image/png;base64,{small_png(b64)}"{size} alt="{alt}" class="img-fluid figure-img"'
        drawn = int(width) if width else _png_width(b64)  # CSS pixels: a retina figure's metadata says half its pixels
        if drawn * LEGIBLE > PHONE_COLUMN:  # shrunk to a phone's column its labels would be unreadable
            img = f'<div class="figure-scroll">{img} style="min-width: {round(drawn * LEGIBLE)}px"></div>'
        else: img += ">"
        o["data"] = {"text/html": img,
                     "text/plain": data.get("text/plain", "")}


def process_all(executed: list[Path], workers: int = 2) -> list[tuple[Path, str]]:
    """Process the executed notebooks into `_proc/`; return (source notebook, page name) in sidebar order. A page that
    `execute` processed from the same executed notebook, library and script (its key matches) is taken as it is."""
    if PROC.exists(): shutil.rmtree(PROC)
    PROC.mkdir(); PAGES.mkdir(parents=True, exist_ok=True)
    names = page_names()
    pages = [(nb, names[nb.stem]) for nb in executed]
    def current(name, nb):
        key = PAGES / f"{name}.ipynb.key"
        return (PAGES / f"{name}.ipynb").exists() and key.exists() and key.read_text() == _page_key(nb, names)
    todo = [(nb, name) for nb, name in pages if not current(name, nb)]
    if todo: print(f"  processing {len(todo)} of {len(pages)} pages (the others were processed when executed)")
    _one_thread_per_worker(workers)
    with _fresh_processes(workers) as pool:
        list(pool.map(_worker.process_notebook, [str(nb) for nb, _ in todo], [str(PAGES / f"{n}.ipynb") for _, n in todo],
                      [names] * len(todo)))
    for nb, name in todo: (PAGES / f"{name}.ipynb.key").write_text(_page_key(nb, names))
    for _, name in pages: shutil.copy2(PAGES / f"{name}.ipynb", PROC / f"{name}.ipynb")
    for asset in NBS.iterdir():  # styles, images and the site config travel with the pages
        if asset.is_file() and asset.suffix not in (".ipynb",) and asset.name != "sidebar.yml":
            shutil.copy2(asset, PROC / asset.name)
    cfg = config()
    # the navbar links to the repository; the footer says which version the pages document
    (PROC / "nbdev.yml").write_text(
        "project:\n  output-dir: ../_docs\n\nwebsite:\n"
        f'  title: "{cfg.title}"\n  site-url: "{cfg.doc_host}{cfg.doc_baseurl}"\n'
        f'  description: "{cfg.description}"\n  repo-branch: {cfg.branch}\n  repo-url: "{cfg.git_url}"\n'
        f"  favicon: favicon.svg\n"
        f'  navbar:\n    tools:\n      - icon: github\n        href: "{cfg.git_url}"\n        aria-label: "GitHub repository"\n'
        f'  page-footer:\n    center: "{cfg.lib_name} {cfg.version} · [source on GitHub]({cfg.git_url}) · [API index]({API_PAGE}.html)"\n',
        encoding="utf-8")
    (PROC / f"{API_PAGE}.qmd").write_text(api_index(), encoding="utf-8")
    (PROC / "sidebar.yml").write_text(sidebar_yaml(pages), encoding="utf-8")
    return pages


API_PAGE = "api"


def api_index() -> str:
    """The API index page: every public name of the library (module `__all__`, and the public methods of its classes),
    one line each, linked to its entry, as nbdev's `llms.txt` lists them."""
    import importlib
    cfg = config()
    syms = importlib.import_module(f"{cfg.lib_name}._modidx").d["syms"]
    # the names with an entry of their own: the headings of the show_doc blocks in the processed pages
    shown = set()
    for nb in PROC.glob("*.ipynb"):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for o in cell.get("outputs", []):
                md = "".join(o.get("data", {}).get("text/markdown", ""))
                shown |= {h.lower() for h in re.findall(r"(?m)^#{2,4} (\S+)\s*$", md)}
    lines = ["---", "title: API index", f'description: "Every public name of {cfg.lib_name} {cfg.version}, one line each, '
             'linked to its entry."', "---", ""]
    for mod, entries in syms.items():
        m = importlib.import_module(mod)
        public = getattr(m, "__all__", [])
        pages = [entries[f"{mod}.{n}"][0].partition("#")[0] for n in public if f"{mod}.{n}" in entries]
        if not pages: continue
        lines += [f"## [`{mod}`]({pages[0]})", ""]
        for name in public:
            if f"{mod}.{name}" not in entries:  # a constant: no entry of its own, so the line links to its page
                lines.append(f"- [`{name}`]({pages[0]}): `{type(getattr(m, name)).__name__}` constant"); continue
            lines.append(_api_line(m, name, entries[f"{mod}.{name}"][0]))
            for key, (url, _) in entries.items():
                meth = key[len(f"{mod}.{name}."):]
                if key.startswith(f"{mod}.{name}.") and "." not in meth and not _hidden(meth) and url.partition("#")[2] in shown:
                    lines.append("    " + _api_line(m, f"{name}.{meth}", url))
        lines.append("")
    return "\n".join(lines)


def _api_line(module, name: str, url: str) -> str:
    "`- [`name`](page.html#anchor): the first line of its docstring`."
    obj = module
    for part in name.split("."): obj = getattr(obj, part, None)
    doc = (inspect.getdoc(obj) or "").strip().split("\n")[0] if obj is not None else ""
    if doc.startswith(name.split(".")[-1] + "("): doc = ""  # a dataclass's generated docstring is its signature
    return f"- [`{name}`]({url})" + (f": {doc}" if doc else "")


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
    lines.append(f"      - {API_PAGE}.qmd")
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


def _library_twin(sym):
    """The library's own object for a class or function a notebook defines. When nbdev re-runs a notebook's cells to
    document them, a class lives in `__main__`, where `inspect` finds no source file: docments then sees no comments,
    and the parameter tables of dataclasses and NamedTuples (`EncoderConfig`, `AddedToken`...) went missing."""
    import importlib
    qual = getattr(sym, "__qualname__", None)
    if not qual: return None
    lib = importlib.import_module(f"{config().lib_name}._modidx")
    for mod, syms in lib.d["syms"].items():
        if f"{mod}.{qual}" not in syms: continue
        obj = importlib.import_module(mod)
        for part in qual.split("."): obj = getattr(obj, part, None)
        return obj
    return None


def param_table(sym) -> str:
    "nbdev's parameter table: a row per parameter (and the return), columns Type, Default and Details; empty columns go."
    from fastcore.docments import docments
    sig = _signature(sym)
    if not sig or not sig.parameters: return ""
    said = lambda n: (dm.get(n) or {}).get("docment") or ""
    for source in (sym, _library_twin(sym)):
        try: dm = docments(source, full=True)
        except (OSError, TypeError, ValueError): dm = {}  # no source to read the comments from
        if any(said(n) for n in [*sig.parameters, "return"]): break
    else: return ""  # no docments: nbdev shows no table either
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


HIDDEN_DOC = "<!-- show_doc of a name the API pages leave out -->"


def param_table_renderer():
    "nbdev's show_doc renderer with `show_doc_markdown` for functions and classes (anything else as nbdev shows it)."
    from nbdev.showdoc import BasicMarkdownRenderer

    class ParamTableRenderer(BasicMarkdownRenderer):
        def _repr_markdown_(self):
            if _hidden(self.nm): return HIDDEN_DOC  # process_notebook drops the cell
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


# smalldocs ranks search results with Fuse's fuzzy match alone, so "YaRN" lists "learning-rate" sections (fuzzy
# "learn") before the section on YaRN, and it stops at 20 results. `search_rank.js` (in nbs/) ranks whole-word matches
# first, then substrings, then fuzzy matches, and returns them all; the results list scrolls.
SEARCH_HITS = """const limit = parseInt(box.dataset.limit, 10) || 20;
      const hits = fuse ? fuse.search(q, { limit }).map((h) => h.item)
        : index.filter((e) => (e.title + " " + e.section + " " + e.text).toLowerCase().includes(q.toLowerCase())).slice(0, limit);"""
SEARCH_RANKED = "const hits = window.rankSearch(index, q, fuse);  // tools/docs.py: search_rank.js"


def search_from_disk(site: Path) -> int:
    """Write `search.js` beside `search.json` and make smalldocs' search read it and rank with `search_rank.js`.
    The index's text loses its LaTeX (`m\\theta_i` -> `mθ_i`), which the snippets under each result would show raw.
    Returns the number of index entries."""
    entries = json.loads((site / "search.json").read_text(encoding="utf-8"))
    for e in entries:
        for k in ("title", "section", "text"): e[k] = plain_math(e.get(k) or "")
    (site / "search.json").write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    # U+2028/2029 end a line in JavaScript older than ES2019; escaped they are plain characters in a string
    data = json.dumps(entries, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    (site / "search.js").write_text(f"window.smalldocsSearchIndex = {data};\n", encoding="utf-8")
    js = site / "site_libs" / "smalldocs.js"
    code = js.read_text(encoding="utf-8")
    for old, what in ((SEARCH_FETCH, "loads search.json"), (SEARCH_HITS, "ranks search results")):
        if code.count(old) != 1:
            sys.exit(f"docs: {js.relative_to(ROOT)} no longer {what} as tools/docs.py expects (a new smalldocs?); "
                     "update SEARCH_FETCH / SEARCH_HITS so that search works from file:// and ranks exact words first")
    code = code.replace(SEARCH_FETCH, SEARCH_SCRIPT).replace(SEARCH_HITS, SEARCH_RANKED)
    ours = [NBS / "search_rank.js", NBS / "anchors.js"]  # our additions to smalldocs' script: ranking, landing on anchors
    js.write_text("\n".join([code] + [f.read_text(encoding="utf-8") for f in ours]), encoding="utf-8")
    for f in ours: (site / f.name).unlink(missing_ok=True)  # copied as site files; they live in smalldocs.js
    return len(entries)


# ---------------------------------------------------------------------------------------------------- pages
def _heading_math(html: str) -> dict[str, str]:
    "Heading id -> its text with the maths kept as `\\(...\\)`, for the headings that hold maths."
    import html as H
    out = {}
    for m in re.finditer(r'<h[1-6][^>]*?(?:data-anchor-id|id)="([^"]+)"[^>]*>(.*?)</h[1-6]>', html, re.S):
        if 'class="math' in m.group(2):
            out.setdefault(m.group(1), " ".join(H.unescape(re.sub(r"<[^>]+>", "", m.group(2))).split()))
    return out


def polish_page(html: str) -> str:
    """What smalldocs' pages lack: contents entries keep their maths for KaTeX (smalldocs strips the `\\(...\\)`,
    which left "O(n \\log n)" in the contents), and the copy of the contents at the top of the text is folded
    (styles.css shows it only where the margin has no room for the contents)."""
    import html as H
    math = _heading_math(html)
    def entry(m):
        return m.group(1) + H.escape(math[m.group(2)], quote=False) + "</a>" if m.group(2) in math else m.group(0)
    def toc(m): return re.sub(r'(<a [^>]*?href="#([^"]+)"[^>]*>)(?:(?!</a>).)*</a>', entry, m.group(0), flags=re.S)
    if math: html = re.sub(r'<nav id="TOC(?:-body)?"[^>]*>.*?</nav>', toc, html, flags=re.S)
    if 'class="toc-fold"' in html: return html
    return re.sub(r'(<nav id="TOC-body"[^>]*>.*?</nav>)',
                  r'<details class="toc-fold"><summary>On this page</summary>\1</details>', html, count=1, flags=re.S)


def check_links(site: Path) -> list[str]:
    "Every local link (`href`/`src` to a file of the site, and its `#anchor`) that does not resolve, as `page: link`."
    ids, bad = {}, []
    def anchors(page: Path) -> set[str]:
        if page not in ids: ids[page] = set(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))
        return ids[page]
    for page in sorted(site.glob("*.html")):
        for link in re.findall(r'\s(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8")):
            if re.match(r"^(?:[a-z]+:|//)", link): continue  # https:, mailto:, data: ... (external, or inline)
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            if not target.exists(): bad.append(f"{page.name}: {link}")
            elif anchor and target.suffix == ".html" and anchor not in anchors(target): bad.append(f"{page.name}: {link}")
    return bad


def render(pages: list[tuple[Path, str]]) -> Path:
    "Render `_proc/` with smalldocs into the doc folder and make it work offline."
    site = ROOT / config().doc_path.name
    if site.exists(): shutil.rmtree(site)
    subprocess.run([str(Path(sys.executable).with_name("smalldocs")), "render", "--quiet", str(PROC)], check=True)
    missing = [f"{name}.html" for _, name in pages if not (site / f"{name}.html").exists()]
    if missing: sys.exit(f"docs: smalldocs wrote no page for {missing}")
    n = bundle_katex(site)
    entries = search_from_disk(site)
    for page in site.glob("*.html"): page.write_text(polish_page(page.read_text(encoding="utf-8")), encoding="utf-8")
    bad = check_links(site)  # tests/test_docs_site.py fails on these; the build still finishes, to show them
    if bad: print(f"docs: WARNING: {len(bad)} local links do not resolve:\n  " + "\n  ".join(bad[:30]), file=sys.stderr)
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


def rerender(workers: int = 2) -> Path:
    """Process and render again from the notebooks already in `_exec/`, executing nothing (for work on the site
    itself); a notebook never executed shows the outputs saved in `nbs/`."""
    executed = []
    for nb in notebooks():
        dest = EXEC / nb.name
        if not dest.exists():
            print(f"  no executed copy of {nb.name}: its saved outputs are shown")
            EXEC.mkdir(exist_ok=True); shutil.copy2(nb, dest)
        executed.append(dest)
    pages = process_all(executed, workers)
    return render(pages)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    import docs as _worker  # workers must find their functions in an importable module, not in `__main__`
    cmd = sys.argv[1] if len(sys.argv) > 1 else "build"
    if cmd == "build": build(int(os.environ.get("DOCS_WORKERS", "2")))
    elif cmd == "execute": execute_all(int(os.environ.get("DOCS_WORKERS", "2")), fresh="--cached" not in sys.argv)
    elif cmd == "render": rerender(int(os.environ.get("DOCS_WORKERS", "2")))
    elif cmd == "readme": write_readme()
    else: sys.exit(f"usage: {sys.argv[0]} build|execute|render|readme")
