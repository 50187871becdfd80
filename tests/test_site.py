"""The course's website (`make site`, tools/website.py): it builds with no network, has a page
for every chapter, worksheet and grading rule in the syllabus' order, every link and image in
it resolves, and every page opens in headless Chromium with no console error, no broken image
and nothing fetched from elsewhere; its search finds a chapter by a word.

    python -m pytest tests/test_site.py          # screenshots: build/browser/site/

The site is built once per CI run, by `make test`: inside tox (`TOX_ENV_NAME` set) this file
is skipped, as the build would only repeat itself on every Python. The build needs the `site`
extra (`pip install -e ".[site]"`, which `make test` installs); the browser half needs
Chromium and Playwright, as tests/notebooks/test_browser.py does (tests/chromium.py).
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import importlib.util
import json
import os
import re
import socket
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest
from chromium import ARTEFACTS, BROWSER_MARKS, CHROMIUM, FLAGS, sync_playwright

from bpe_course.classroom.authoring.course import BRANCH, CHAPTERS, REPO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import website  # noqa: E402

SHOTS = ARTEFACTS / "site"

pytestmark = [
    # Sphinx's notices to the theme and to myst-parser of APIs it will change (their business)
    pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications"),
    pytest.mark.skipif("TOX_ENV_NAME" in os.environ,
                       reason="the website is built and checked once per CI run, by `make test`, "
                              "not again in each tox environment"),
    pytest.mark.skipif(importlib.util.find_spec("myst_nb") is None,
                       reason="building the website needs the site extra "
                              "(pip install -e '.[site]'; make test installs it)"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built by tools/website.py as `make site` builds it, with every attempt to
    open a connection refused: the build must need no network."""
    import requests
    tmp = tmp_path_factory.mktemp("site")

    def refuse(*args, **kwargs):
        raise OSError("network access while building the site")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket, "create_connection", refuse)
        patch.setattr(requests, "get", refuse)
        built = website.build(tmp / "site", into=tmp / "src")
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "build.txt").write_text(f"{len(built['pages'])} pages in "
                                     f"{built['seconds']:.1f} s\n", encoding="utf-8")
    return built


class Page(html.parser.HTMLParser):
    """The ids, links (a, link), sources (img, script) and images of one HTML page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []       # (tag, address)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in ("href", "src"):
            if attrs.get(name) is not None and tag in ("a", "link", "img", "script", "source"):
                self.links.append((tag, attrs[name]))


@functools.cache
def parsed(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def html_pages(out: Path) -> list[Path]:
    """Every page (the theme's template fragments in _static/ are none)."""
    return sorted(p for p in out.rglob("*.html") if "_static" not in p.relative_to(out).parts)


def chapter_pages() -> list[str]:
    return [f"notebooks/{number}_{slug}.html" for number, slug, _, _ in CHAPTERS]


def worksheet_pages() -> list[str]:
    return [f"exercises/{p.stem}.html" for p in sorted((ROOT / "exercises").glob("[0-9]*.ipynb"))]


def test_the_site_has_a_page_for_every_chapter_worksheet_grading_rule_and_doc(site):
    out = site["out"]
    expected = {"index.html", "faq.html", "exercises/README.html", *chapter_pages(),
                *worksheet_pages(),
                *[p.replace("exercises/", "grading/") for p in worksheet_pages()],
                *[f"docs/{p.stem}.html" for p in (ROOT / "docs").glob("*.md")]}
    assert expected <= set(site["pages"]), sorted(expected - set(site["pages"]))
    assert not (out / "solutions").exists()
    # every chapter and worksheet can be downloaded as stored, beside its page
    for page in [*chapter_pages(), *worksheet_pages()]:
        stored = ROOT / page.replace(".html", ".ipynb")
        assert (out / page.replace(".html", ".ipynb")).read_bytes() == stored.read_bytes()


def test_every_chapter_shows_its_stored_outputs_and_plots(site):
    for page in [*chapter_pages(), *worksheet_pages()]:
        nb = json.loads((ROOT / page.replace(".html", ".ipynb")).read_text(encoding="utf-8"))
        outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
        plots = sum("image/png" in o.get("data", {}) for o in outputs)
        text = (site["out"] / page).read_text(encoding="utf-8")
        shown = len(re.findall(r'<img [^>]*src="\.\./_images/', text))
        assert shown >= plots, f"{page}: {shown} images, {plots} plots stored"
        assert text.count('class="cell_output') >= sum(
            1 for c in nb["cells"] if c["cell_type"] == "code" and c["outputs"]), page


def test_the_navigation_follows_the_syllabus(site):
    nav = (site["out"] / "index.html").read_text(encoding="utf-8")
    nav = nav[nav.index('class="bd-links bd-docs-nav"'):]
    order = re.findall(r'class="toctree-l1[^"]*"><a class="reference internal" href="([^"]+)"',
                       nav)
    chapters = [p for p in order if p.startswith("notebooks/")]
    assert chapters == chapter_pages()
    # each worksheet comes after the chapter of its number, before the next chapter
    for sheet in worksheet_pages():
        number = Path(sheet).stem[:2]
        before = [c for c in chapter_pages() if Path(c).stem[:2] <= number]
        assert order.index(sheet) > order.index(before[-1]), sheet
        after = [c for c in chapter_pages() if Path(c).stem[:2] > number]
        if after:
            assert order.index(sheet) < order.index(after[0]), sheet
    assert "faq.html" in order and "exercises/README.html" in order
    assert [p for p in order if p.startswith("grading/")] == [
        p.replace("exercises/", "grading/") for p in worksheet_pages()]


def test_every_link_and_image_resolves_and_nothing_comes_from_elsewhere(site):
    out = site["out"]
    broken, external_assets, malformed = [], [], []
    for path in html_pages(out):
        page = parsed(path)
        here = path.relative_to(out).as_posix()
        for tag, address in page.links:
            url = urllib.parse.urlsplit(address)
            if url.scheme:
                if tag != "a":
                    external_assets.append(f"{here}: <{tag}> {address}")
                elif url.scheme not in ("http", "https", "mailto") or (
                        url.scheme != "mailto" and not re.fullmatch(r"[\w.-]+\.[a-z]+", url.netloc)):
                    malformed.append(f"{here}: {address}")
                continue
            if address.startswith("//"):
                external_assets.append(f"{here}: {address}")
                continue
            target = (path.parent / urllib.parse.unquote(url.path)).resolve() if url.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or out.resolve() not in target.parents:
                broken.append(f"{here}: <{tag}> {address}")
            elif url.fragment and target.suffix == ".html" and url.fragment not in parsed(target).ids:
                broken.append(f"{here}: {address} (no such anchor)")
    assert broken == [], "\n".join(broken)
    assert external_assets == [], "a page loads something from elsewhere"
    assert malformed == []


def test_colab_badges_and_download_links_name_the_course_home(site):
    for page in [*chapter_pages(), *worksheet_pages()]:
        text = (site["out"] / page).read_text(encoding="utf-8")
        source = page.replace(".html", ".ipynb")
        colab = f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/{source}"
        assert f'href="{colab}"' in text, page
        assert f'href="../{source}" download' in text, page
        assert "colab.research.google.com/assets" not in text, page   # the badge is local
    for sheet in worksheet_pages():
        text = (site["out"] / sheet).read_text(encoding="utf-8")
        assert f'href="../grading/{Path(sheet).name}"' in text, sheet
        grading = (site["out"] / sheet.replace("exercises/", "grading/")).read_text("utf-8")
        source = sheet.replace(".html", ".ipynb")
        assert f'href="https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/{source}"' \
            in grading and f'href="../{source}" download' in grading, sheet


def test_each_grading_page_follows_its_worksheet_record(site):
    from bpe_course.classroom.worksheets import WORKSHEETS
    for sheet in worksheet_pages():
        record = WORKSHEETS[Path(sheet).stem]
        text = (site["out"] / sheet.replace("exercises/", "grading/")).read_text(encoding="utf-8")
        assert f"worth {sum(record.points.values())} points" in text, sheet
        for checker in record.checkers:
            assert f'id="{checker.name.replace("_", "-")}"' in text, (sheet, checker.name)


# -- in the browser -------------------------------------------------------------------------------

def in_chromium(test):
    """Mark `test` as a browser test, skipped (with the reason) without Chromium or Playwright."""
    for mark in BROWSER_MARKS:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def server(site):
    """The built site on a local port (as GitHub Pages serves it: plain files)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=str(site["out"]))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(server, tmp_path_factory):
    """Chromium on the site, with every request that is not for the site refused and noted,
    as on a machine with no network."""
    for old in SHOTS.glob("*.png"):
        old.unlink()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            headless=True, args=FLAGS, viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        elsewhere: list[str] = []

        def route(r):
            if r.request.url.startswith(server + "/"):
                r.continue_()
            else:
                elsewhere.append(r.request.url)
                r.abort()
        context.route("**/*", route)
        page = context.pages[0] if context.pages else context.new_page()
        yield page, elsewhere
        context.close()


@in_chromium
def test_every_page_opens_without_a_console_error_or_a_broken_image(site, server, browser):
    page, elsewhere = browser
    problems: list[str] = []
    current = [""]
    page.on("console", lambda m: m.type == "error" and problems.append(
        f"{current[0]}: console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"{current[0]}: script error: {e}"))
    page.on("requestfailed", lambda r: problems.append(
        f"{current[0]}: request failed: {r.url} ({r.failure})"))
    for name in site["pages"]:
        current[0] = name
        response = page.goto(f"{server}/{name}", wait_until="load")
        assert response.ok, (name, response.status)      # "load": images are in by now
        broken = page.evaluate("() => Array.from(document.images)"
                               ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        problems += [f"{name}: broken image {src}" for src in broken]
        page.screenshot(path=SHOTS / (name.replace("/", "--").replace(".html", ".png")))
    assert problems == []
    assert elsewhere == [], "pages asked for something from elsewhere"


@in_chromium
def test_searching_for_a_word_finds_its_chapter(site, server, browser):
    page, elsewhere = browser
    number, slug, title, _ = next(c for c in CHAPTERS if c[1] == "sentencepiece")
    page.goto(f"{server}/index.html", wait_until="load")
    page.locator("button.search-button__button").first.click()
    box = page.locator("input[name='q']:visible").first
    box.fill("SentencePiece")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search\.html\?q=SentencePiece"))
    results = page.locator("#search-results ul.search li a")
    results.first.wait_for()
    page.wait_for_function("() => !document.querySelector('#search-results .search-summary')"
                           " || document.querySelector('#search-results .search-summary')"
                           ".textContent.trim() !== ''")
    hrefs = [urllib.parse.urlsplit(h).path for h in
             results.evaluate_all("links => links.map(a => a.href)")]
    page.screenshot(path=SHOTS / "search-SentencePiece.png")
    assert f"/notebooks/{number}_{slug}.html" in hrefs, hrefs
    assert elsewhere == []


def test_make_test_installs_the_site_extra_and_make_site_builds_into_site():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    dev_recipe = makefile.split("$(VENV)/.dev: $(BIN)/activate")[1].split("\n\n")[0]
    assert 'pip install --quiet -e ".[learn,dev,site]"' in dev_recipe
    assert re.search(r"^site: dev\n\t\$\(BIN\)/python tools/website\.py _site$", makefile, re.M)
    site_extra = re.search(r"^site = \[\n(.*?)^\]", (ROOT / "pyproject.toml").read_text(),
                           re.M | re.S)[1]
    assert set(re.findall(r'^    "([\w-]+)', site_extra, re.M)) == {
        "sphinx", "myst-nb", "sphinx-book-theme", "latex2mathml"}
    assert '".[dev,site]"' in (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert "/_site/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_links_to_published_files_stay_in_the_site_and_others_go_to_the_home():
    sources = {"notebooks/02_naive_bpe.ipynb": "notebooks/02_naive_bpe.ipynb",
               "notebooks/03_encode_decode.ipynb": "notebooks/03_encode_decode.ipynb",
               "exercises/README.md": "exercises/README.md", "README.md": "index.md"}
    text = ("See [03](03_encode_decode.ipynb#why-not), [the worksheets](../exercises/README.md), "
            "[home](../README.md), [solutions](../solutions/), "
            "[the code](../bpe_course/pairs.py), [web](https://example.org/a), [here](#top)\n"
            "```\n[not a link](../nowhere.md)\n```\n"
            "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://c.example/x)")
    out = website.rewrite_links(text, "notebooks/02_naive_bpe.ipynb", sources)
    home = f"https://github.com/{REPO}"
    assert "[03](03_encode_decode.ipynb#why-not)" in out
    assert "[the worksheets](../exercises/README.md)" in out and "[home](../index.md)" in out
    assert f"[solutions]({home}/tree/{BRANCH}/solutions)" in out
    assert f"[the code]({home}/blob/{BRANCH}/bpe_course/pairs.py)" in out
    assert "(https://example.org/a)" in out and "(#top)" in out
    assert "[not a link](../nowhere.md)" in out                      # code is left alone
    assert "](../_static/colab-badge.svg)" in out
    with pytest.raises(ValueError, match="leads to no file"):
        website.rewrite_links("[gone](../nowhere.md)", "notebooks/02_naive_bpe.ipynb", sources)
