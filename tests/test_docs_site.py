"""The docs site, as a reader sees it: built by `tools/docs.py`, opened in headless Chromium, checked on the DOM.

Chromium is Debian's `chromium` package: the test installs it when it is missing and it can (root with apt-get),
and otherwise skips with the reason. Screenshots of a page at 1400, 1024 and 400 px are saved as
`_docs/screenshot-<width>.png`: look at them after a change to the site's layout.

What a reader does on a page (typing into the search box, measuring a block) is run by `probe`: a copy of the page
beside it, with a script that acts once the page has loaded and writes what it found into the DOM that Chromium dumps.
"""
import functools
import html as htmllib
import http.server
import inspect
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import tokenize
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT

SITE = ROOT / "_docs"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    "Path of a Chromium binary, installing Debian's package when possible."
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name): return shutil.which(name)
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], capture_output=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if shutil.which("chromium"): return shutil.which("chromium")
    pytest.skip("NO BROWSER CHECK: chromium is not installed and could not be installed "
                "(as root: apt-get install chromium)")


@pytest.fixture(scope="module")
def site():
    """Build the site from the notebooks `make nbtest` executed (`_exec/`, kept per notebook with a key of its sources),
    so that `make test` runs each notebook once; a notebook changed since is executed here. With TC_DOCS_BUILT=1 the
    tests read the site already in _docs/ (after `python tools/docs.py render`, while working on the site itself)."""
    if os.environ.get("TC_DOCS_BUILT") != "1":
        subprocess.run([sys.executable, str(ROOT / "tools" / "docs.py"), "build"], cwd=ROOT, check=True)
    return SITE


@pytest.fixture(scope="module")
def browser():
    return _chromium()


def _run_chromium(browser: str, *args: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        res = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args],
                             capture_output=True, text=True, timeout=120)
    return res.stdout


@functools.lru_cache(maxsize=None)
def dom(browser: str, page: Path) -> str:
    "The page's DOM after its scripts ran (KaTeX, search, sidebar)."
    return _run_chromium(browser, "--virtual-time-budget=5000", "--dump-dom", page.as_uri())


PROBE_RESULT = re.compile(r'<pre id="probe-result">(.*?)</pre>', re.S)


def probe(browser: str, page: Path, script: str, base_url: str | None = None, window: str = "1280,900", budget: int = 5000):
    """Open a copy of `page` (same folder, so its links and scripts resolve as the page's own) with `script` added,
    and return what the script passed to `report(value)`, as JSON; None when it never reported.
    The script runs after the page's load event; `base_url` serves the folder over http instead of file://."""
    copy = page.with_name(f"_probe_{page.name}")
    harness = ("<script>window.addEventListener('load', async () => {"
               "const report = (v) => { const p = document.createElement('pre'); p.id = 'probe-result';"
               "p.textContent = JSON.stringify(v); document.body.appendChild(p); };"
               f"{script}\n}});</script>")
    html = page.read_text(encoding="utf-8")
    assert "</body>" in html, page
    copy.write_text(html.replace("</body>", harness + "</body>"), encoding="utf-8")
    try:
        url = f"{base_url}/{copy.name}" if base_url else copy.as_uri()
        out = _run_chromium(browser, f"--window-size={window}", f"--virtual-time-budget={budget}", "--dump-dom", url)
    finally:
        copy.unlink()
    m = PROBE_RESULT.search(out)
    return json.loads(htmllib.unescape(m.group(1))) if m else None


class Links(HTMLParser):
    "Collects hrefs inside the sidebar, img tags, and text inside code blocks."
    def __init__(self):
        super().__init__()
        self.depth, self.sidebar, self.imgs = 0, [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.depth: self.depth += 1
        elif a.get("id") == "quarto-sidebar" or "sidebar" in (a.get("class") or "").split(): self.depth = 1
        if tag == "a" and self.depth and a.get("href"): self.sidebar.append(a["href"])
        if tag == "img": self.imgs.append(a)
    def handle_endtag(self, tag):
        if self.depth: self.depth -= 1


def parse(html: str) -> Links:
    p = Links(); p.feed(html); return p


def _pages():
    "(executed notebook, page name) for every notebook, as the docs build names them."
    sys.path.insert(0, str(ROOT / "tools"))
    import docs
    return [(docs.EXEC / nb.name, docs.page_name(nb)) for nb in docs.notebooks()]


def test_every_notebook_has_a_page_and_sidebar_links_resolve(site, browser):
    pages = _pages()
    for _, name in pages: assert (site / f"{name}.html").exists(), f"no page for {name}"
    links = parse(dom(browser, site / "index.html")).sidebar
    local = {l.split("#")[0] for l in links if not re.match(r"^[a-z]+:", l) and l.split("#")[0]}
    assert local, "the sidebar has no links"
    for link in local: assert (site / link).resolve().exists(), f"sidebar link {link} does not resolve"
    assert {f"{name}.html" for _, name in pages} <= {Path(l).name for l in local}, "a notebook is missing from the sidebar"


def test_index_links_and_anchors_resolve(site, browser):
    "Every local link on the index page (the contents and the figure list) reaches an existing page and anchor."
    html = dom(browser, site / "index.html")
    links = set(re.findall(r'<a[^>]+href="([^"]+)"', html))
    local = sorted(l for l in links if not re.match(r"^[a-z]+:", l) and not l.startswith("#") and ".html" in l)
    assert len(local) > 10, local
    for link in local:
        page, _, anchor = link.partition("#")
        assert (site / page).exists(), f"index links to missing page {page}"
        if anchor:
            ids = set(re.findall(r'id="([^"]+)"', (site / page).read_text(encoding="utf-8")))
            assert anchor in ids, f"index links to {link}, but {page} has no element with id {anchor!r}"


def test_math_is_typeset_offline(site, browser):
    html = dom(browser, site / "index.html")
    assert 'class="katex"' in html, "KaTeX did not typeset the index page's formula"
    assert "\\(" not in re.sub(r"<annotation.*?</annotation>", "", html, flags=re.S), "raw \\( left in the page"
    assert "cdn.jsdelivr" not in html


def test_show_doc_signatures_appear(site, browser):
    html = dom(browser, site / "core.html")
    assert re.search(r"<h3[^>]*>\s*default_device", html), "show_doc heading missing"
    text = re.sub(r"\s+", "", htmllib.unescape(re.sub(r"<[^>]+>", "", html)))  # signatures are split into highlighting spans
    assert "defdefault_device()->torch.device" in text
    assert "defcheck_token_ids(name:str," in text


def _text(html: str) -> str:
    "The text of an HTML fragment, as a reader sees it (tags dropped, entities decoded, spaces collapsed)."
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", "", html)).split())


def _source_docments(fn) -> dict[str, str]:
    "The `# comment` after each parameter in `fn`'s own source, read with the tokenizer (independently of fastcore)."
    toks = list(tokenize.generate_tokens(io.StringIO(textwrap.dedent(inspect.getsource(fn))).readline))
    comments = {t.start[0]: t.string.lstrip("#").strip() for t in toks if t.type == tokenize.COMMENT}
    params, found, depth = set(inspect.signature(fn).parameters), {}, 0
    start = next(i for i, t in enumerate(toks) if t.type == tokenize.NAME and t.string == "def")
    for t in toks[start:]:
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        elif t.type == tokenize.OP and t.string in ")]}": depth -= 1
        elif t.type == tokenize.OP and t.string == ":" and depth == 0: break  # the end of the def line
        elif t.type == tokenize.NAME and depth == 1 and t.string in params and t.start[0] in comments:
            found.setdefault(t.string, comments[t.start[0]])
    return found


def _show_doc_block(html: str, anchor: str) -> str:
    "The HTML of one show_doc block: from its heading to the next rule or heading."
    m = re.search(rf'<h3[^>]*id="{re.escape(anchor)}".*?(?=<hr|<h[23][ >]|$)', html, re.S)
    assert m, f"no show_doc heading with id {anchor!r}"
    return m.group(0)


def test_show_doc_parameter_table(site, browser):
    "show_doc puts the docments in nbdev's table: a row per parameter with its type, default and comment."
    from transformer_components.core import atomic_write
    block = _show_doc_block(dom(browser, site / "core.html"), "atomic_write")
    table = re.search(r"<table.*?</table>", block, re.S)
    assert table, "atomic_write has docments but its show_doc block has no table"
    header = [_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table.group(0), re.S)]
    assert header[1:] == ["Type", "Default", "Details"], header
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)[1:]:
        cells = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        rows[cells[0]] = cells[1:]
    sig, said = inspect.signature(atomic_write), _source_docments(atomic_write)
    assert said and set(rows) == set(sig.parameters), (rows, list(sig.parameters))
    for name, p in sig.parameters.items():
        anno = p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation)
        default = "" if p.default is p.empty else repr(p.default)
        assert rows[name] == [anno, default, said[name].replace("`", "")], (name, rows[name])


def _signatures(html: str) -> list[str]:
    "The text of every show_doc signature on a page."
    return [htmllib.unescape(re.sub(r"<[^>]+>", "", m))
            for m in re.findall(r'<pre class="[^"]*show-doc-signature[^"]*"[^>]*>(.*?)</pre>', html, re.S)]


def test_show_doc_signatures_have_no_comments(site):
    "Docments live in the table, so no signature carries a `# comment` (read with the tokenizer: `#` in strings is fine)."
    total = 0
    for _, name in _pages():
        for sig in _signatures((site / f"{name}.html").read_text(encoding="utf-8")):
            total += 1
            toks = tokenize.generate_tokens(io.StringIO(sig + "\n").readline)
            comments = [t.string for t in toks if t.type == tokenize.COMMENT]
            assert not comments, f"{name}.html: signature with comments: {sig!r}"
    assert total > 20, f"only {total} show_doc signatures on the whole site"


OVERFLOW = """const pres = [...document.querySelectorAll('pre.show-doc-signature')];
report({count: pres.length, wide: pres.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 80))});"""


def test_show_doc_signatures_do_not_scroll(site, browser):
    "Signatures wrap: none is wider than its box at 1280 px, on core.html and on the page with the longest line."
    sigs = {name: _signatures((site / f"{name}.html").read_text(encoding="utf-8")) for _, name in _pages()}
    widest = max((len(line), name) for name, ss in sigs.items() for s in ss for line in s.splitlines())[1]
    for name in sorted({"core", widest}):
        got = probe(browser, site / f"{name}.html", OVERFLOW)
        assert got and got["count"] == len(sigs[name]), f"{name}.html: {len(sigs[name])} signatures, measured {got}"
        assert not got["wide"], f"{name}.html: signatures with a horizontal scroll bar at 1280 px: {got['wide']}"


def test_previous_next_links_follow_the_sidebar(site, browser):
    "Each page ends with links to the pages before and after it in the sidebar, and they resolve."
    order = [Path(l.split("#")[0]).stem for l in parse(dom(browser, site / "index.html")).sidebar
             if not re.match(r"^[a-z]+:", l) and l.split("#")[0]]
    assert order == [name for _, name in _pages()] + ["api"], "the sidebar is not in notebook (data-flow) order, API index last"
    for i, name in enumerate(order):
        nav = re.search(r'<nav class="page-navigation">(.*?)</nav>', (site / f"{name}.html").read_text(encoding="utf-8"), re.S)
        assert nav, f"{name}.html has no previous/next links"
        want = {"previous": order[i - 1] if i > 0 else None, "next": order[i + 1] if i + 1 < len(order) else None}
        for side, page in want.items():
            div = re.search(rf'<div class="nav-page nav-page-{side}">(.*?)</div>', nav.group(1), re.S)
            href = re.search(r'href="([^"]+)"', div.group(1)) if div else None
            got = href.group(1) if href else None
            assert got == (f"{page}.html" if page else None), f"{name}.html: {side} link is {got}, expected {page}"
            if got: assert (site / got).exists(), f"{name}.html: {side} link {got} does not resolve"


def test_figures_are_images(phone_figures):
    "Every matplotlib figure a notebook produced is an <img> on its page, with image data that the browser decoded."
    checked = 0
    for executed, name in _pages():
        nb = json.loads(executed.read_text(encoding="utf-8"))
        n_figs = sum(1 for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        if not n_figs: continue
        assert name in phone_figures, f"{name}: {n_figs} figures in the notebook, no PNG image on the page"
        got = phone_figures[name]
        assert len(got["figs"]) >= n_figs, f"{name}: {n_figs} figures in the notebook, {len(got['figs'])} images on the page"
        assert got["decoded"] >= len(got["figs"]), f"{name}: {len(got['figs'])} images, {got['decoded']} decoded"
        checked += 1
    assert checked >= 5, f"only {checked} notebooks draw a figure"


def _word_on_one_page() -> tuple[str, str]:
    """A word of a notebook's prose that occurs nowhere in any other notebook (sources and outputs), and its page.
    The longest such word, so that the fuzzy search has the fewest near misses elsewhere."""
    texts = {name: nb.read_text(encoding="utf-8").lower() for nb, name in _pages()}
    candidates = []
    for nb, name in _pages():
        prose = " ".join("".join(c["source"]) for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
                         if c["cell_type"] == "markdown").lower()
        prose = re.sub(r"\]\([^)]*\)|https?://\S+", " ", prose)  # link targets are not text on the page
        for word in set(re.findall(r"(?<![\\\w])[a-z]{8,}\b", prose)):  # no LaTeX commands
            if not any(word in text for other, text in texts.items() if other != name):
                candidates.append((-len(word), word, name))
    assert candidates, "no word occurs in only one notebook"
    _, word, name = min(candidates)
    return word, name


SEARCH = """const input = document.querySelector('.smalldocs-search input');
input.value = %s;
input.dispatchEvent(new Event('input', {bubbles: true}));
const results = document.querySelector('.smalldocs-search-results');
for (let i = 0; i < 100 && !results.querySelector('.search-result, .search-none'); i++) await new Promise(r => setTimeout(r, 50));
report({hrefs: [...results.querySelectorAll('a.search-result')].map(a => a.getAttribute('href')),
        none: !!results.querySelector('.search-none')});"""


@pytest.fixture(scope="module")
def http_site(site):
    "The site served over http on a free local port, for the same checks as from disk."
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw): super().__init__(*a, directory=str(site), **kw)
        def log_message(self, *a): pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown(); server.server_close()


@pytest.mark.parametrize("scheme", ["file", "http"])
def test_search_finds_a_page(site, browser, http_site, scheme):
    "Typing a word into the search box lists the one page with that word, on a page opened from disk or over http."
    word, want = _word_on_one_page()
    got = probe(browser, site / "index.html", SEARCH % json.dumps(word), base_url=http_site if scheme == "http" else None)
    assert got is not None, "the search probe did not run"
    assert not got["none"], f"search for {word!r} says 'No results' ({scheme})"
    pages = [os.path.normpath(h.split("#")[0]) for h in got["hrefs"]]
    assert f"{want}.html" in pages, f"search for {word!r} ({scheme}) lists {pages}, not {want}.html"
    for p in pages: assert (site / p).exists(), f"search result {p} does not exist"


# ---------------------------------------------------------------------------------------------------- as a reader
# Headless Chromium's window is at least 500 px wide, so a phone's 400 px is an <iframe> of that width (served over
# http, so that the probe may read inside it). Layout checks measure a few pages that hold the most code and maths.
LAYOUT_PAGES = ["index", "bpe", "wordpiece", "rope", "positional_encoding"]
LAYOUT = """const m = document.querySelector('main.content');
const pres = [...m.querySelectorAll('pre')].filter(p => p.offsetParent);
const toc = [...document.querySelectorAll('#TOC a, #TOC-body a')].filter(a => a.offsetParent);
report({column: m.getBoundingClientRect().width, pres: pres.length,
        scroll: pres.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 60)),
        pan: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        toc_cut: toc.filter(a => a.scrollWidth > a.clientWidth + 1).map(a => a.textContent)});"""
IN_IFRAME = """const f = document.createElement('iframe'); f.style.cssText = 'width: %dpx; height: 900px; border: 0';
f.src = location.href.replace('/_probe_', '/'); document.body.prepend(f);
await new Promise(r => f.onload = r); await new Promise(r => setTimeout(r, 1000));
{ const document = f.contentDocument, window = f.contentWindow; %s }"""


# One Chromium for many pages: each page in turn in an <iframe> of the width measured (its media queries see that width,
# as a window's would), the script run inside it and its report kept under the page's name. Starting Chromium took
# most of these tests' time when each page had one of its own.
IN_FRAMES = """const out = {};
for (const name of %s) {
  const f = document.createElement('iframe'); f.style.cssText = 'width: %dpx; height: 900px; border: 0';
  f.src = name + '.html'; document.body.prepend(f);
  await new Promise(r => f.onload = r); await new Promise(r => setTimeout(r, 1000));
  out[name] = await new Promise(async (report) => { const document = f.contentDocument, window = f.contentWindow; %s
    report(null); });
  f.remove();
}
report(out);"""


def probe_pages(browser, site, http_site, names: list[str], script: str, width: int) -> dict:
    "What `script` reports (by `report(value)`) on each page in `names` at a window width of `width` px: name -> value."
    got = probe(browser, site / "index.html", IN_FRAMES % (json.dumps(names), width, script), base_url=http_site,
                window=f"{max(width + 50, 600)},900", budget=5000 + 2000 * len(names))
    assert got and set(got) == set(names), f"the probe of {names} at {width} px did not run: {got}"
    return got


def layouts(browser, site, http_site, width: int) -> dict:
    "What LAYOUT reports for each of LAYOUT_PAGES at a window width."
    return probe_pages(browser, site, http_site, LAYOUT_PAGES, LAYOUT, width)


@pytest.mark.parametrize("width", [1400, 1024])
def test_room_to_read(site, browser, http_site, width):
    "The text column keeps >= 700 px from 1024 px up; at 1400 px at most 10% of code blocks scroll; contents entries wrap."
    pres, scrolling = 0, []
    measured = layouts(browser, site, http_site, width)
    for name in LAYOUT_PAGES:
        got = measured[name]
        assert got, f"{name}.html: the layout probe did not run"
        assert got["column"] >= 700, f"{name}.html: text column {got['column']:.0f} px at a {width} px window"
        assert not got["toc_cut"], f"{name}.html: contents entries cut at {width} px: {got['toc_cut']}"
        assert got["pan"] <= 0, f"{name}.html pans sideways by {got['pan']} px at {width} px"
        pres += got["pres"]; scrolling += got["scroll"]
    if width == 1400: assert len(scrolling) <= 0.1 * pres, f"{len(scrolling)} of {pres} code blocks scroll: {scrolling[:5]}"


def test_no_sideways_pan_on_a_phone(site, browser, http_site):
    "At 400 px no page pans sideways: wide formulas and code scroll in their own boxes."
    measured = layouts(browser, site, http_site, 400)
    for name in LAYOUT_PAGES:
        got = measured[name]
        assert got and got["column"] < 400, f"{name}.html: the 400 px probe did not run in its iframe: {got}"
        assert got["pan"] <= 0, f"{name}.html pans sideways by {got['pan']} px at 400 px"


def test_screenshots_for_humans(site, browser, http_site):
    "Screenshots of a page with maths, code and a long contents at 1400, 1024 and 400 px: `_docs/screenshot-*.png`."
    frame = site / "_frame400.html"
    frame.write_text('<body style="margin:0"><iframe src="rope.html" style="width:400px;height:1000px;border:0">'
                     "</iframe></body>", encoding="utf-8")
    try:
        for width in (1400, 1024, 400):
            shot = site / f"screenshot-{width}.png"
            shot.unlink(missing_ok=True)
            url = f"{http_site}/{frame.name}" if width < 500 else (site / "rope.html").as_uri()
            _run_chromium(browser, f"--window-size={max(width, 500)},1000", "--hide-scrollbars",
                          "--virtual-time-budget=3000", f"--screenshot={shot}", url)
            assert shot.exists() and shot.stat().st_size > 10_000, shot
    finally:
        frame.unlink()


# ---------------------------------------------------------------------------------------------------- API pages
DOCMENTED_RECORDS = {"encoder": ["EncoderConfig"], "training": ["TrainConfig", "LoopState"], "rope": ["RopeScaling"],
                     "analysis": ["TfIdf"], "embeddings": ["PretrainedVectors"], "sentiment_data": ["SentimentData"],
                     "added_tokens": ["AddedToken"]}


@pytest.mark.parametrize("page", sorted(DOCMENTED_RECORDS))
def test_dataclasses_and_namedtuples_have_parameter_tables(site, page):
    "The records a reader fills in (dataclasses, NamedTuples) show a row per field with its comment, as functions do."
    import importlib
    html = (site / f"{page}.html").read_text(encoding="utf-8")
    for name in DOCMENTED_RECORDS[page]:
        cls = getattr(importlib.import_module(f"transformer_components.{page}"), name)
        said = _source_fields(cls)
        assert said, f"{name} has no field comments to check"
        table = re.search(r"<table.*?</table>", _show_doc_block(html, name.lower()), re.S)
        assert table, f"{page}.html: {name} has docments but no parameter table"
        rows = {}
        for tr in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)[1:]:
            cells = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            rows[cells[0]] = cells[-1]
        assert set(rows) == set(inspect.signature(cls).parameters), (name, sorted(rows))
        plain = lambda t: t.replace("`", "").translate(str.maketrans("‘’“”", "''\"\""))  # the site typesets quotes
        for field, comment in said.items(): assert plain(rows[field]) == plain(comment), (name, field, rows[field])


def _source_fields(cls) -> dict[str, str]:
    "The `field: type = default  # comment` lines of a class's source (read independently of fastcore): field -> comment."
    params = inspect.signature(cls).parameters
    found = re.findall(r"(?m)^\s+(\w+)\s*:[^#\n]*#\s*(.*?)\s*$", inspect.getsource(cls))
    return {f: c for f, c in found if f in params}


def test_links_stay_in_the_site(site):
    """Every local href and src resolves in _docs/ (page and anchor); API links are relative (none goes to the published
    site, so a local build stays local); none names a private name. Other http(s) links are the prose's references."""
    sys.path.insert(0, str(ROOT / "tools"))
    import docs
    assert not docs.check_links(site), docs.check_links(site)[:10]
    published = docs.site_url()
    for page in sorted(site.glob("*.html")):
        hrefs = re.findall(r'\shref="([^"]+)"', page.read_text(encoding="utf-8"))
        assert not [h for h in hrefs if h.startswith(published)], f"{page.name} links to the published site, not locally"
        private = [h for h in hrefs if re.search(r"#_[a-z]|\._[a-z]", h) and not h.startswith("http")]
        assert not private, f"{page.name} links to private names: {private}"


def _hidden_methods() -> set[str]:
    "Dotted names of the library's dunder methods that the API pages leave out (`Tokenizer.__reduce__`...)."
    from transformer_components._modidx import d
    return {k.split(".", 2)[2] for syms in d["syms"].values() for k in syms
            if re.search(r"\.__\w+__$", k) and not k.endswith(("__init__", "__call__"))}


def test_api_pages_without_noise(site):
    "No entry for pickling or other dunder methods, no test helper, no progress bar; file names in code spans as written."
    hidden = _hidden_methods()
    assert {"Tokenizer.__reduce__", "Encoding.__repr__"} <= hidden
    as_shown = {h.replace("__", "") for h in hidden} | hidden  # Markdown reads `__x__` as bold x
    for page in sorted(site.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        heads = {_text(h) for h in re.findall(r"<h[2-4][^>]*>(.*?)</h[2-4]>", html, re.S)}
        assert not heads & as_shown, f"{page.name}: entries for {sorted(heads & as_shown)}"
        assert not re.search(r"def test_same\b", _text(html)), f"{page.name} shows the test helper test_same"
        stderr = re.findall(r'<div class="cell-output cell-output-stderr">(.*?)</div>', html, re.S)
        assert not [s for s in stderr if re.search(r"\d+%\|", s)], f"{page.name}: a progress bar is on the page"
    for nb, name in _pages():  # `nbdev_test --path nbs/55_tutorial_length_extrapolation.ipynb` keeps its file name
        src = "".join("".join(c["source"]) for c in json.loads(nb.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown")
        page_text = _text((site / f"{name}.html").read_text(encoding="utf-8"))
        for path in set(re.findall(r"`[^`]*?(nbs/\d\d_\w+\.ipynb)[^`]*`", src)):
            assert path in page_text, f"{name}.html: the code span's {path} was rewritten"


def test_site_basics(site):
    "GitHub link in the navbar, a favicon, the version in the footer, an API index of every public name."
    import importlib
    sys.path.insert(0, str(ROOT / "tools"))
    import docs
    cfg = docs.config()
    index = (site / "index.html").read_text(encoding="utf-8")
    navbar = re.search(r"<nav class=\"navbar.*?</nav>", index, re.S).group(0)
    assert f'href="{cfg.git_url}"' in navbar, "no GitHub link in the navbar"
    icon = re.search(r'<link rel="icon" href="([^"]+)"', index)
    assert icon and (site / icon.group(1)).exists(), "no favicon"
    footer = re.search(r"<footer.*?</footer>", index, re.S)
    assert footer and cfg.version in _text(footer.group(0)), "the version is not in the footer"
    api = (site / "api.html").read_text(encoding="utf-8")
    links = dict((_text(t), h) for h, t in re.findall(r'<a href="([^"]+)"[^>]*>(<code>.*?</code>)</a>', api))
    from transformer_components._modidx import d
    for mod in d["syms"]:
        for name in getattr(importlib.import_module(mod), "__all__", []):
            assert name in links, f"the API index does not list {mod}.{name}"
            assert (site / links[name].split("#")[0]).exists(), (name, links[name])
            if f"{mod}.{name}" in d["syms"][mod]: assert "#" in links[name], f"{name} links to its page, not its entry"


# ---------------------------------------------------------------------------------------------------- search
RANKED = """const input = document.querySelector('.smalldocs-search input');
const out = {};
for (const q of %s) {
  input.value = q; input.dispatchEvent(new Event('input', {bubbles: true}));
  await new Promise(r => setTimeout(r, 400));
  const res = document.querySelector('.smalldocs-search-results');
  out[q] = [...res.querySelectorAll('a.search-result')].map(a => ({href: a.getAttribute('href'),
             text: a.querySelector('.search-result-text').textContent}));
}
report(out);"""


def test_search_ranks_exact_words_first(site, browser):
    "Each query's first result is on a page that holds the word; > 20 results reachable; snippets carry no LaTeX."
    queries = ["YaRN", "pad_sequences", "ALiBi", "林行止", "token"]
    got = probe(browser, site / "index.html", RANKED % json.dumps(queries))
    assert got, "the search probe did not run"
    for q in queries[:4]:
        assert got[q], f"no result for {q!r}"
        first = got[q][0]["href"].split("#")[0]
        assert q.lower() in _text((site / first).read_text(encoding="utf-8")).lower(), f"{q!r}: first result {first} lacks it"
    assert len(got["token"]) > 20, f"only {len(got['token'])} results for 'token'"
    snippets = [r["text"] for rs in got.values() for r in rs]
    latex = [t for t in snippets if re.search(r"\\[a-zA-Z]{2,}|\\[()]", t)]  # `\\theta`, not the `\\t` of code
    assert not latex, f"raw LaTeX in search snippets: {latex[:3]}"


CONTENTS = """const toc = document.querySelector('#TOC').cloneNode(true);
toc.querySelectorAll('.katex-mathml').forEach(e => e.remove());
report({text: toc.textContent, katex: toc.querySelectorAll('.katex').length});"""


def test_contents_entries_typeset_their_maths(site, browser):
    "An entry of the contents with maths (\"Merging in O(n log n)\") shows it typeset, not as raw LaTeX; one folded copy."
    assert (site / "bpe.html").read_text(encoding="utf-8").count('<details class="toc-fold">') == 1
    got = probe(browser, site / "bpe.html", CONTENTS)
    assert got and got["katex"] > 0, f"no typeset maths in bpe.html's contents: {got}"
    assert "\\" not in got["text"], re.findall(r".{20}\\.{20}", got["text"])


# ---------------------------------------------------------------------------------------------------- figures
FIGURES = """const imgs = [...document.querySelectorAll('main img')].filter(i => i.src.startsWith('data:image/png'));
report(imgs.map(i => ({alt: i.alt, shown: i.getBoundingClientRect().width, width: +i.getAttribute('width')})));"""


def test_figures_readable_with_alt_text(site, browser):
    """Every figure has alt text; at 1400 px each is shown at >= 65% of the size it was drawn at, so 10-point labels
    keep >= 9 px (the 4-panel figures were shown at 45%); a page of figures stays under 600 KB."""
    for page in sorted(site.glob("*.html")):
        assert page.stat().st_size < 600_000, f"{page.name}: {page.stat().st_size // 1000} KB"
        html = page.read_text(encoding="utf-8")
        for img in re.findall(r"<img [^>]*>", html):
            alt = re.search(r'\salt="([^"]*)"', img)
            assert alt and len(alt.group(1)) > 3, f"{page.name}: an image without alt text"
    for name in ("analysis", "tutorial_positions_and_word_vectors"):
        figs = probe(browser, site / f"{name}.html", FIGURES, window="1400,900")
        assert figs, name
        small = [f for f in figs if f["width"] and f["shown"] < 0.65 * f["width"]]
        assert not small, f"{name}.html: figures shrunk below 65%: {small}"


# ---------------------------------------------------------------------------------------------------- a newcomer's view
def test_no_page_shows_a_temporary_path(site):
    "No page shows a path in a temporary folder of the build (`/tmp/tmpab12cd34/cli.model`): readers cannot use it."
    temp = re.compile(re.escape(tempfile.gettempdir()) + r"/|\btmp[a-z0-9_]{8}\b")
    shown = {}
    for page in sorted(site.glob("*.html")):
        text = _text(re.sub(r"<script.*?</script>|<img [^>]*>", " ", page.read_text(encoding="utf-8"), flags=re.S))
        hits = [text[max(0, m.start() - 40):m.end() + 30] for m in temp.finditer(text)]
        if hits: shown[page.name] = hits[:2]
    assert not shown, shown


def test_home_page_contents_table_is_rendered(site, browser):
    "The home page's contents table shows links, not Markdown: no `](` and no `[name]` left in its text."
    html = dom(browser, site / "index.html")
    main = re.search(r"<main.*?</main>", html, re.S).group(0)
    tables = re.findall(r"<table.*?</table>", main, re.S)
    assert len(tables) >= 2, "the home page lost its contents tables"
    for table in tables:
        text = _text(re.sub(r"<code>.*?</code>", " ", table, flags=re.S))
        assert "](" not in text and not re.search(r"\[\w+\]", text), re.findall(r".{30}\]\(.{30}", text)[:3]
    assert 'href="pipeline.html#pipelinetokenizer"' in main, "the contents no longer link PipelineTokenizer to its entry"


ANCHOR = """const heads = [...document.querySelectorAll('main section.level2[id], main h2[id]')];
if (heads.length < 3) { report({missing: heads.length}); return; }
const target = heads[2];  // a heading well down the page, reached as a link to `page.html#its-id` reaches it
target.scrollIntoView({behavior: 'instant'});
await new Promise(r => setTimeout(r, 300));
const bars = [...document.querySelectorAll('body *')].filter(e => ['sticky', 'fixed'].includes(getComputedStyle(e).position)
  && e.getClientRects().length && e.getBoundingClientRect().top < 150 && e.getBoundingClientRect().height < 300);
report({top: target.getBoundingClientRect().top, covered: Math.max(0, ...bars.map(e => e.getBoundingClientRect().bottom)),
        bars: bars.map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().bottom)).slice(0, 6)});"""


@pytest.mark.parametrize("width", [1280, 400])
def test_anchors_land_below_the_sticky_bars(site, browser, http_site, width):
    "A heading scrolled to (a contents entry, a link with #anchor) is not hidden under the sticky navbar or title bar."
    script = ANCHOR
    if width >= 500: got = probe(browser, site / "bpe.html", script, window=f"{width},900")
    else: got = probe(browser, site / "bpe.html", IN_IFRAME % (width, script), base_url=http_site, window="600,900")
    assert got and "missing" not in got, f"bpe.html has fewer than 3 sections with an id: {got}"
    assert got["covered"] > 0, f"no sticky bar found at {width} px: {got}"
    assert got["top"] < got["covered"] + 200, f"the probe did not scroll to the heading: {got}"
    assert got["top"] >= got["covered"], f"at {width} px the heading is at {got['top']:.0f} px, under bars to {got['covered']:.0f} px: {got['bars']}"


LAND = """const out = {};
for (const width of [1280, 400]) {
  const f = document.createElement('iframe'); f.style.cssText = `width: ${width}px; height: 900px; border: 0`;
  f.src = '%s'; document.body.prepend(f);
  await new Promise(r => f.onload = r); await new Promise(r => setTimeout(r, 1000));
  const document_ = f.contentDocument, target = document_.getElementById('%s');
  const bars = [...document_.querySelectorAll('body *')].filter(e => ['sticky', 'fixed'].includes(f.contentWindow.getComputedStyle(e).position)
    && e.getClientRects().length && e.getBoundingClientRect().top < 150 && e.getBoundingClientRect().height < 300);
  out[width] = {top: target.getBoundingClientRect().top, covered: Math.max(0, ...bars.map(e => e.getBoundingClientRect().bottom))};
  f.remove();
}
report(out);"""


def test_a_link_to_an_anchor_lands_below_the_sticky_bars(site, browser, http_site):
    "Opening `bpe.html#<section>` (a link from another page) shows that heading at the top, under no bar, at 1280 and 400 px."
    sections = re.findall(r'<section id="([^"]+)" class="level2', (site / "bpe.html").read_text(encoding="utf-8"))
    assert len(sections) >= 3, sections
    target = sections[2]  # well down the page, below maths and code that are typeset after the browser first scrolls
    got = probe(browser, site / "index.html", LAND % (f"bpe.html#{target}", target), base_url=http_site, window="1330,900",
                budget=10000)
    assert got, "the landing probe did not run"
    for width, at in got.items():
        assert at["covered"] > 0, f"no sticky bar found at {width} px: {at}"
        assert at["covered"] <= at["top"] < at["covered"] + 100, f"at {width} px bpe.html#{target} shows the heading at {at['top']:.0f} px (bars to {at['covered']:.0f} px)"


def test_api_index_has_its_own_contents(site):
    "The API index's 'On this page' lists its modules (it was empty)."
    html = (site / "api.html").read_text(encoding="utf-8")
    toc = re.search(r'<nav id="TOC"[^>]*>(.*?)</nav>', html, re.S)
    assert toc, "api.html has no contents"
    entries = re.findall(r'href="#([^"]+)"', toc.group(1))
    from transformer_components._modidx import d
    assert len(entries) >= len(d["syms"]) // 2, f"api.html's contents: {entries}"


SUBJECTS = """const input = document.querySelector('.smalldocs-search input');
input.value = 'token'; input.dispatchEvent(new Event('input', {bubbles: true}));  // loads the index (search.js)
for (let i = 0; i < 100 && !window.smalldocsSearchIndex; i++) await new Promise(r => setTimeout(r, 50));
const out = {};
for (const q of %s) out[q] = window.rankSearch(window.smalldocsSearchIndex, q, null).slice(0, 3).map(e => ({href: e.href}));
report(out);"""


def test_search_for_a_subject_lists_its_page_first(site, browser):
    """Searching a notebook's title (its subject), or 'Unigram', gives that notebook's page as the first result (the
    ranking the search box uses, called for each title once the page has loaded the index)."""
    titles = {name: re.search(r"<title>(.*?)(?: – .*)?</title>", (site / f"{name}.html").read_text(encoding="utf-8")).group(1)
              for _, name in _pages() if name != "index"}
    queries = {htmllib.unescape(t): name for name, t in titles.items()} | {"Unigram": "unigram"}
    got = probe(browser, site / "index.html", SUBJECTS % json.dumps(list(queries)))
    assert got, "the search probe did not run"
    wrong = {q: (got[q][0]["href"] if got[q] else None) for q, name in queries.items()
             if not got[q] or got[q][0]["href"].split("#")[0] != f"{name}.html"}
    assert not wrong, f"searches whose first result is not the page about it: {wrong}"


PHONE_FIGURES = """const imgs = [...document.querySelectorAll('main img')].filter(i => i.src.startsWith('data:image/png'));
report({figs: imgs.map(i => ({shown: i.getBoundingClientRect().width, width: +i.getAttribute('width') || i.naturalWidth})),
        decoded: [...document.querySelectorAll('img')].filter(i => i.complete && i.naturalWidth > 0).length,
        pan: document.documentElement.scrollWidth - document.documentElement.clientWidth});"""


@pytest.fixture(scope="module")
def phone_figures(site, browser, http_site) -> dict:
    "PHONE_FIGURES's report on every page with a figure, at 400 px: page name -> {figs, pan}."
    names = [name for _, name in _pages() if '<img src="data:image/png' in (site / f"{name}.html").read_text(encoding="utf-8")]
    assert "tutorial_length_extrapolation" in names, names
    return probe_pages(browser, site, http_site, names, PHONE_FIGURES, 400)


def test_figures_legible_on_a_phone(phone_figures):
    "At 400 px every figure is shown at >= 65% of the size it was drawn at (a wide one scrolls in its own box); no pan."
    failures = []
    for name, got in phone_figures.items():
        assert got and got["figs"], f"{name}.html: no figure measured at 400 px: {got}"
        small = [f for f in got["figs"] if f["shown"] < 0.65 * f["width"] - 1]
        if small: failures.append(f"{name}.html: figures shown below 65% of their size at 400 px: {small}")
        if got["pan"] > 0: failures.append(f"{name}.html pans sideways by {got['pan']} px at 400 px")
    assert not failures, failures
