"""What the class got wrong: the grader's report names each exercise's kinds of mistake, and
its HTML page counts, per exercise, how many learners made each, in a real browser too.

A small class hands in worksheet 02 with known mistakes and is graded once, as instructors
run the grader (`python -m bpe_course grade`, in a subprocess, in the sandbox):

- alice: the worked solution (full points);
- bob: a `merge` that does not skip past a match, a `get_stats` that steps by two;
- carol: the same `merge` as bob, a `BasicTokenizer` not attempted;
- a learner whose folder is named `<script>alert(1)<` (the path holds
  `<script>alert(1)</script>`): a `merge` that returns None;
- dave: a notebook that is not valid JSON (it does not run), named
  `02 <img src=x onerror=alert(3)>.ipynb`.

    python -m pytest tests/classroom/grading/test_class_mistakes.py
    python -m pytest -m browser tests/classroom/grading/test_class_mistakes.py   # Chromium only
"""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
from pathlib import Path
from unittest import mock

import nbformat
import pytest
from chromium import ARTEFACTS, BROWSER_MARKS, CHROMIUM, FLAGS, sync_playwright
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.classroom.checking.verdicts import KINDS
from bpe_course.classroom.grading import bubblewrap, class_mistakes
from bpe_course.classroom.grading.report import printable
from bpe_course.classroom.worksheets import WORKSHEETS

SANDBOX = [] if bubblewrap.available()[0] else ["--no-sandbox"]     # the tests' own notebooks
ROOT = Path(__file__).resolve().parents[3]
SHEET = "02_bpe_basics"
HOSTILE = "<script>alert(1)<"                  # a learner's folder: no "/" fits in one name
HOSTILE_PATH = HOSTILE + "/script><img src=x onerror=alert(2)>"
BROKEN = "02 <img src=x onerror=alert(3)>.ipynb"             # dave's notebook

MERGE_NO_SKIP = '''def merge(ids, pair, idx):
    out = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
        else:
            out.append(ids[i])
        i += 1
    return out
'''
MERGE_IN_PLACE = '''def merge(ids, pair, idx):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i:i + 2] = [idx]
        i += 1
'''
STATS_BY_TWO = '''def get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for i in range(0, len(ids) - 1, 2):
        counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
    return counts
'''


def learner(**answers):
    """The worked solution of worksheet 02 with some answer cells replaced (None: the
    exercise's blank cell, not attempted)."""
    solved = nbformat.read(ROOT / "solutions" / f"{SHEET}.ipynb", as_version=4)
    blank = nbformat.read(ROOT / "exercises" / f"{SHEET}.ipynb", as_version=4)
    for grade_id, source in answers.items():
        index = next(i for i, c in enumerate(solved.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
        if source is None:
            solved.cells[index] = next(c for c in blank.cells if c.metadata.get(
                "nbgrader", {}).get("grade_id") == grade_id)
        else:
            solved.cells[index].source = source
    return solved


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, graded once: (report, page's text, page's path, the class's folder)."""
    root = tmp_path_factory.mktemp("class")
    subs = root / "submissions"
    notebooks = {
        "alice": learner(),
        "bob": learner(merge_code=MERGE_NO_SKIP, get_stats_code=STATS_BY_TWO),
        "carol": learner(merge_code=MERGE_NO_SKIP, BasicTokenizer_code=None),
        HOSTILE_PATH: learner(merge_code=MERGE_IN_PLACE),
    }
    for folder, nb in notebooks.items():
        (subs / folder).mkdir(parents=True)
        nbformat.write(nb, subs / folder / f"{SHEET}.ipynb")
    (subs / "dave").mkdir()
    (subs / "dave" / BROKEN).write_text('{"cells": [', encoding="utf-8")
    report = root / "report.json"
    done = subprocess.run([sys.executable, "-m", "bpe_course", "grade", str(subs), "--json",
                           str(report), "--seed", "7", *SANDBOX],
                          capture_output=True, text=True, timeout=600, cwd=root)
    assert done.returncode == 0, done.stderr
    page = root / "report.html"
    assert f"and {page}" in done.stdout
    return (json.loads(report.read_text(encoding="utf-8")), page.read_text(encoding="utf-8"),
            page, root)


def exercise(data: dict, student: str, name: str) -> dict:
    nb = next(n for n in data["notebooks"] if n["student"] == student)
    return next(e for e in nb["exercises"] if e["id"] == name)


def kinds_of(data: dict, student: str, name: str) -> list[str]:
    return [m["kind"] for m in exercise(data, student, name)["mistakes"]]


# -- the JSON report ------------------------------------------------------------------------------

def test_each_exercise_gains_its_kinds_of_mistake_and_keeps_its_fields(graded):
    data = graded[0]
    for nb in data["notebooks"]:
        for e in nb["exercises"]:
            assert {"id", "score", "max_score", "message"} <= set(e)      # added, not renamed
            for m in e["mistakes"]:
                assert set(m) == {"kind", "label", "cases", "says", "hint"}
                assert re.fullmatch(r"[a-z][a-z0-9_]*", m["kind"]) and m["label"]
    assert all(exercise(data, "alice", e)["mistakes"] == [] for e in WORKSHEETS[SHEET].points)


def test_the_kind_the_message_names_comes_first(graded):
    data = graded[0]
    merge = exercise(data, "bob", "merge")
    assert merge["mistakes"][0]["kind"] == "no_skip"
    assert merge["mistakes"][0]["label"] == "it does not skip past a match"
    assert "does not skip past a match" in " ".join(merge["message"].split())
    assert merge["mistakes"][0]["cases"] >= 3
    assert kinds_of(data, "bob", "get_stats")[0] == "overlap"
    assert kinds_of(data, HOSTILE, "merge")[0] == "none"
    assert exercise(data, HOSTILE, "merge")["mistakes"][0]["label"] == KINDS["none"]
    assert kinds_of(data, "carol", "basic_tokenizer") == ["not_attempted"]
    assert kinds_of(data, "dave", "merge") == ["not_graded"]


def test_the_report_counts_each_learner_once_per_kind(graded):
    data = graded[0]
    (sheet,) = data["class_mistakes"]
    assert (sheet["worksheet"], sheet["learners"]) == (SHEET, 5)
    exercises = {e["id"]: e for e in sheet["exercises"]}
    merge = {k["kind"]: k for k in exercises["merge"]["kinds"]}
    assert (merge["no_skip"]["learners"], merge["no_skip"]["share"]) == (2, 0.4)
    assert sorted(merge["no_skip"]["students"]) == ["bob", "carol"]
    assert merge["none"]["students"] == [HOSTILE]
    assert merge["not_graded"]["students"] == ["dave"] and not merge["not_graded"]["mistake"]
    assert [k["kind"] for k in exercises["merge"]["kinds"]][0] == "no_skip"   # most learners
    assert exercises["merge"]["first"] == {"no_skip": 2, "passed": 1, "none": 1, "not_graded": 1}
    assert exercises["merge"]["full_marks"] == 1 and exercises["merge"]["learners"] == 5
    assert {k["kind"]: k["learners"] for k in exercises["get_stats"]["kinds"]}["overlap"] == 1
    assert exercises["basic_tokenizer"]["first"].get("not_attempted") == 1
    means = [e["mean_score"] / e["max_score"] for e in sheet["exercises"]]
    assert means == sorted(means)                               # the worst exercise first


# -- the page ---------------------------------------------------------------------------------------

class Page(html.parser.HTMLParser):
    """The tags, the text and the table rows of a page, as a browser's parser reads them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table, self._row, self._cell = None, None, False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "table":
            self._table = attrs.get("id") or f"table{len(self.rows)}"
            self.rows[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
            self.rows[self._table].append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")
            self._cell = True

    def handle_endtag(self, tag):
        self._cell = self._cell and tag not in ("td", "th")

    def handle_data(self, data):
        self.text.append(data)
        if self._cell:
            self._row[-1] += data


def test_the_page_counts_what_the_json_counts_and_shows_learner_strings_as_text(graded):
    data, text, page, root = graded
    parsed = Page(text)
    assert not [t for t, a in parsed.tags if t == "script" or any(k.startswith("on") for k in a)]
    assert [a["src"][:26] for t, a in parsed.tags if t == "img"] == ["data:image/svg+xml;base64,"]
    ids = {a["id"] for t, a in parsed.tags if "id" in a}
    links = [a["href"] for t, a in parsed.tags if t == "a"]
    assert links and all(link[:1] == "#" and link[1:] in ids for link in links)
    top = parsed.rows["top"]
    assert top[1][:5] == [SHEET, "merge", "it does not skip past a match", "2", "40%"]
    words = " ".join(parsed.text)
    assert "2 of 5" in words and HOSTILE in words and BROKEN in words
    assert "&lt;script&gt;alert(1)&lt;" in text and "<script>alert" not in text
    assert "<img src=x" not in text
    failed = parsed.rows["failures"]
    assert [r[0] for r in failed[1:]] == ["dave"] and "invalid JSON" in failed[1][3]
    assert parsed.rows["reasons"][1][1] == "1"


def test_the_page_survives_any_string_a_learner_controls():
    evil = "</td></table><script>alert(1)</script>\u202eevil\x1b[2J\udcff\"'&"
    data = {"notebooks": [{"path": f"x/{evil}.ipynb", "student": evil, "worksheet": SHEET,
                           "score": 0, "max_score": 1, "error": evil, "exercises": [
                               {"id": "merge", "score": 0, "max_score": 2, "message": evil,
                                "mistakes": [{"kind": "none", "label": evil, "cases": 1,
                                              "says": evil, "hint": evil}]}]}],
            "students": [{"student": evil, "worksheets": {SHEET: {"path": f"x/{evil}.ipynb"}}}],
            "seed": evil, "sandbox": evil}
    text = class_mistakes.page(data)
    text.encode("utf-8")                              # no lone surrogate reaches the file
    parsed = Page(text)
    assert [t for t, _ in parsed.tags].count("script") == 0
    assert "\u202e" not in text and "\x1b" not in text and "\\u202eevil" in text
    assert len(parsed.rows["failures"]) == 2


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_any_learner_string_is_shown_as_the_text_the_terminal_shows(name, message):
    data = {"notebooks": [{"path": f"{name}/02.ipynb", "student": name, "worksheet": SHEET,
                           "score": 0, "max_score": 2, "error": message or "x", "exercises": [
                               {"id": "merge", "score": 0, "max_score": 2, "message": message,
                                "mistakes": [{"kind": "none", "label": "returned None",
                                              "cases": 1, "says": message, "hint": ""}]}]}],
            "students": [{"student": name, "worksheets": {SHEET: {"path": f"{name}/02.ipynb"}}}]}
    with mock.patch.object(class_mistakes, "plot", lambda sheet: "data:,"):   # (drawn above)
        text = class_mistakes.page(data)
    text.encode("utf-8")
    parsed = Page(text)
    assert {t for t, _ in parsed.tags} <= ALLOWED_TAGS
    assert not [a for _, attrs in parsed.tags for a in attrs if a.startswith("on")]
    shown = "".join(parsed.text)
    assert printable(f"{name}/02.ipynb") in shown and printable(message or "x") in shown


ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table",
                "thead", "tbody", "tr", "th", "td", "code", "a", "section", "img", "br", "div",
                "span", "details", "summary"}


def test_a_report_from_an_earlier_grader_is_counted_as_unrecorded():
    data = {"notebooks": [{"path": "a/02.ipynb", "student": "a", "worksheet": SHEET,
                           "score": 1, "max_score": 6, "error": None, "exercises": [
                               {"id": "merge", "score": 0, "max_score": 2, "message": "❌"},
                               {"id": "get_stats", "score": 1, "max_score": 1,
                                "message": "✅"}]}],
            "students": [{"student": "a", "worksheets": {SHEET: {"path": "a/02.ipynb"}}}]}
    (sheet,) = class_mistakes.tally(data)
    exercises = {e["id"]: e for e in sheet["exercises"]}
    assert exercises["merge"]["first"] == {"unrecorded": 1}
    assert exercises["get_stats"]["first"] == {"passed": 1}


# -- in a real browser --------------------------------------------------------------------------

def in_chromium(test):
    """Mark `test` as a browser test, skipped (with the reason) without Chromium or Playwright."""
    for mark in BROWSER_MARKS:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield browser
        browser.close()


@in_chromium
def test_the_page_opens_in_chromium_with_its_rows_and_plot_and_runs_no_learner_string(
        graded, chromium):
    data, text, page_path, root = graded
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    problems, dialogs, elsewhere = [], [], []
    page.on("console", lambda m: m.type in ("error", "warning") and problems.append(m.text))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
               else (elsewhere.append(r.request.url), r.abort()))
    page.goto(page_path.as_uri(), wait_until="load")
    images = page.evaluate("() => Array.from(document.images).map(i => "
                           "[i.complete, i.naturalWidth, i.getBoundingClientRect().width])")
    assert len(images) == 1 and images[0][0] and images[0][1] > 0 and images[0][2] > 0
    merge = page.locator("#ex-02_bpe_basics-merge + table tbody tr")
    # no_skip, none and not graded, each a row (a learner's other failing cases may add the
    # kinds diagnosed there, each counted once per learner)
    kinds = [merge.nth(k).locator("td").nth(0).inner_text() for k in range(merge.count())]
    for words in ("it does not skip past a match", "returned None", "not graded"):
        assert any(kind.startswith(words) for kind in kinds), kinds
    first = merge.nth(0).locator("td")
    assert first.nth(0).inner_text().startswith("it does not skip past a match")
    assert first.nth(1).inner_text() == "2 of 5"
    assert page.locator("#failures tbody tr").count() == 1
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    body = page.locator("body").inner_text()
    assert HOSTILE in body and BROKEN in body     # shown as text, whole
    assert page.locator("script").count() == 0 and page.locator("img").count() == 1
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTEFACTS / "class-mistakes.png", full_page=True)
    page.close()
    assert (problems, dialogs, elsewhere) == ([], [], [])
