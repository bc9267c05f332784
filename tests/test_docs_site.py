"""The docs site, as a reader sees it: built by `tools/docs.py`, opened in headless Chromium, checked on the DOM.

Chromium is Debian's `chromium` package: the test installs it when it is missing and it can (root with apt-get),
and otherwise skips with the reason. A screenshot of the index page is saved as `_docs/screenshot.png`.
"""
import html as htmllib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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
    "Build the site (notebook execution is cached, so this is quick after `make docs`)."
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


def dom(browser: str, page: Path) -> str:
    "The page's DOM after its scripts ran (KaTeX, search, sidebar)."
    return _run_chromium(browser, "--virtual-time-budget=5000", "--dump-dom", page.as_uri())


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
    assert "defdefault_device()->torch.device:" in text
    assert "defcheck_token_ids(name:str," in text


def test_figures_are_images(site, browser):
    "Every matplotlib figure a notebook produced is an <img> on its page, with image data that decodes."
    checked = 0
    for executed, name in _pages():
        nb = json.loads(executed.read_text(encoding="utf-8"))
        n_figs = sum(1 for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        if not n_figs: continue
        imgs = [i for i in parse(dom(browser, site / f"{name}.html")).imgs if i.get("src", "").startswith("data:image/png")
                or (site / i.get("src", "#")).exists()]
        assert len(imgs) >= n_figs, f"{name}: {n_figs} figures in the notebook, {len(imgs)} images on the page"
        checked += 1
    if not checked: pytest.skip("no notebook draws a figure yet")


def test_screenshot_for_humans(site, browser):
    shot = site / "screenshot.png"
    shot.unlink(missing_ok=True)
    _run_chromium(browser, "--window-size=1280,900", f"--screenshot={shot}", (site / "index.html").as_uri())
    assert shot.exists() and shot.stat().st_size > 10_000
