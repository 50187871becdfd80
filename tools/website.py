"""Build the course's website from the stored notebooks: `make site`.

    python tools/website.py [OUT]          # default OUT: _site/ (then: python -m http.server -d _site)

The site is Sphinx with myst-nb (the engine of Jupyter Book 1) and the book theme. This tool
stages its sources in build/site-src/ and runs Sphinx there, offline, with warnings as
errors (a link that leads nowhere fails the build):

- the chapters, in the order and with the titles of `CHAPTERS`
  (bpe_course/classroom/authoring/course.py), each followed in the navigation by the worksheet
  of its number (exercises/, the learners' versions; solutions/ is never published);
- a page per worksheet on how it is graded, written from its `Worksheet` record;
- the README as the home page, its FAQ as a page of its own, exercises/README.md and docs/*.md;
- on every notebook's page, an *Open in Colab* badge for the course's home (`course.REPO`,
  `course.BRANCH`) and a link to download the notebook as stored (served beside its page).

Links between the course's files become links between pages; a link to a file the site does
not publish (solutions/, the package's code, CONTRIBUTING.md) goes to the file on GitHub, at
the course's home. Nothing is hard-coded: a new chapter in `CHAPTERS`, a new worksheet in
exercises/ or a new page in docs/ appears by itself.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "tools" / "site"                 # conf.py and _static/, copied into the stage
STAGE = ROOT / "build" / "site-src"
OUT = ROOT / "_site"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
# A Markdown link or image: [text](target "title"); the target has no spaces or parentheses.
LINK = re.compile(r"(?P<head>!?\[(?:[^\[\]]|\[[^\]]*\])*\])\((?P<target>[^()\s]+)(?P<title>\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")


@dataclass
class Page:
    source: str          # path in the repository ("notebooks/01_unicode_and_bytes.ipynb")
    docname: str         # path in the site, without suffix ("notebooks/01_unicode_and_bytes")
    title: str           # in the navigation


def course():
    sys.path.insert(0, str(ROOT))
    from bpe_course.classroom.authoring import course as module
    return module


def notebook_title(path: Path) -> str:
    """The first heading of a notebook's first markdown cell, without the `#`."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise ValueError(f"{path.relative_to(ROOT)}: no '# title' in its first markdown cell")


def plan(root: Path = ROOT) -> dict[str, list[Page]]:
    """The site's pages by section of the navigation, in the syllabus' order."""
    c = course()
    chapters = []
    for number, slug, title, _ in c.CHAPTERS:
        path = root / "notebooks" / f"{number}_{slug}.ipynb"
        if not path.is_file():
            raise ValueError(f"CHAPTERS names chapter {number} ({title}), but "
                             f"notebooks/{path.name} does not exist")
        chapters.append(Page(path.relative_to(root).as_posix(), f"notebooks/{path.stem}",
                             f"{number} · {title}"))
    listed = {p.source for p in chapters}
    unlisted = sorted(p.relative_to(root).as_posix() for p in (root / "notebooks").glob("*.ipynb")
                      if p.relative_to(root).as_posix() not in listed)
    if unlisted:
        raise ValueError(f"{', '.join(unlisted)}: not in CHAPTERS "
                         "(bpe_course/classroom/authoring/course.py), so not in the site")
    worksheets = []
    for path in sorted((root / "exercises").glob("[0-9][0-9]_*.ipynb")):
        worksheets.append(Page(path.relative_to(root).as_posix(), f"exercises/{path.stem}",
                               f"Worksheet {notebook_title(path)}"))
    # The syllabus: each chapter, then the worksheets that follow it (a worksheet follows the
    # chapter of its number, or the last chapter before that number).
    course_pages = []
    for k, chapter in enumerate(chapters):
        number = chapter.docname.split("/")[1][:2]
        following = chapters[k + 1].docname.split("/")[1][:2] if k + 1 < len(chapters) else "99"
        course_pages.append(chapter)
        course_pages += [w for w in worksheets if number <= w.docname.split("/")[1][:2] < following
                         or (k == 0 and w.docname.split("/")[1][:2] < number)]
    grading = [Page("exercises/README.md", "exercises/README", "Worksheets and grading")]
    grading += [Page(w.source, f"grading/{Path(w.source).stem}",
                     f"How worksheet {Path(w.source).stem[:2]} is graded") for w in worksheets]
    more = [Page("README.md#faq", "faq", "FAQ")]
    more += [Page(p.relative_to(root).as_posix(), f"docs/{p.stem}", markdown_title(p))
             for p in sorted((root / "docs").glob("*.md"))]
    return {"The course": course_pages, "Grading": grading, "More": more}


def markdown_title(path: Path) -> str:
    match = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.M)
    if not match:
        raise ValueError(f"{path}: no '# title' line")
    return match.group(1).strip()


# -- links --------------------------------------------------------------------------------------

def github_url(path: str, root: Path = ROOT) -> str:
    """The file or folder `path` (repository-relative, maybe with #anchor) at the home."""
    c = course()
    bare, _, anchor = path.partition("#")
    kind = "tree" if (root / bare).is_dir() or not bare else "blob"
    url = f"https://github.com/{c.REPO}/{kind}/{c.BRANCH}/{bare.rstrip('/')}".rstrip("/")
    return url + (f"#{anchor}" if anchor else "")


def rewrite_links(text: str, source: str, site_sources: dict[str, str], root: Path = ROOT) -> str:
    """Rewrite the relative links of Markdown `text`, read from repository path `source`
    and staged at `site_sources[source]`, so they work in the site: a link to a published
    file becomes a link to its staged source (Sphinx turns it into the page's address), a
    link to anything else in the repository a link to it on GitHub. Fenced code is kept."""
    here = Path(source).parent
    staged_here = Path(site_sources[source]).parent

    def one(match: re.Match) -> str:
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            return match[0]
        bare, hash_, anchor = target.partition("#")
        repo_path = normalise((here / bare).as_posix())
        if repo_path in site_sources:
            new = relpath(site_sources[repo_path], staged_here) + hash_ + anchor
        elif (root / repo_path).exists():
            new = github_url(repo_path + hash_ + anchor, root)
        else:
            raise ValueError(f"{source}: the link to {target} leads to no file "
                             f"({repo_path} does not exist)")
        return f"{match['head']}({new}{match['title'] or ''})"

    # the site serves its own copy of Colab's badge
    text = text.replace(f"]({COLAB_BADGE})",
                        f"]({relpath('_static/colab-badge.svg', staged_here)})")
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        out.append(line if fenced else LINK.sub(one, line))
    return "\n".join(out)


def normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise ValueError(f"{path}: a link out of the repository")
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) + ("/" if path.endswith("/") and parts else "")


def relpath(target: str, start: Path) -> str:
    import os
    return Path(os.path.relpath(target, start.as_posix() or ".")).as_posix()


def page_links(source: str, at: str, graded: bool) -> str:
    """The line under a page's title for the notebook `source` (repository path), on the
    page whose site path is `at`: Open in Colab (at the course's home), download the stored
    notebook (served beside its own page), and for a worksheet's page how it is graded."""
    c = course()
    up = "../" * at.count("/")
    colab = f"https://colab.research.google.com/github/{c.REPO}/blob/{c.BRANCH}/{source}"
    parts = [f'<a class="bpe-colab" href="{colab}"><img src="{up}_static/colab-badge.svg" '
             f'alt="Open In Colab" width="117" height="20"></a>',
             f'<a class="bpe-download" href="{up}{source}" download>Download the notebook</a>']
    if graded:
        parts.append(f'<a class="bpe-grading" href="{up}grading/{Path(source).stem}.html">'
                     'How this worksheet is graded</a>')
    return '<p class="bpe-page-links">' + " · ".join(parts) + "</p>"


def stage_notebook(page: Page, site_sources: dict[str, str], graded: bool,
                   into: Path) -> None:
    nb = json.loads((ROOT / page.source).read_text(encoding="utf-8"))
    first = True
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        if first:
            # the repository's badge (an image from Colab's site) gives way to the site's line
            lines = [line for line in text.split("\n")
                     if COLAB_BADGE not in line]
            title = next((k for k, line in enumerate(lines) if line.startswith("# ")), None)
            if title is None:
                raise ValueError(f"{page.source}: its first markdown cell has no '# title'")
            lines[title + 1:title + 1] = ["", page_links(page.source, page.docname, graded), ""]
            text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
            first = False
        cell["source"] = rewrite_links(text, page.source, site_sources)
    target = into / (page.docname + ".ipynb")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(nb, ensure_ascii=False, indent=1), encoding="utf-8")
    download = into / "_files" / Path(page.docname).parent / Path(page.source).name
    download.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / page.source, download)


def grading_page(name: str, title: str) -> str:
    """Markdown for "How worksheet NN is graded", read from the worksheet's `Worksheet`
    record: its exercises and points, the cases each shows and hides, what a failed case
    breaks and what the exercise then keeps, time limits, the course code it may use."""
    sys.path.insert(0, str(ROOT))
    from bpe_course.classroom.grading.scoring import RULE, VISIBLE_SHARE
    from bpe_course.classroom.worksheets import WORKSHEETS, groups_for
    from bpe_course.classroom.worksheets.common import ALWAYS, BREAKS
    if name not in WORKSHEETS:
        raise ValueError(f"exercises/{name}.ipynb has no Worksheet record "
                         "(bpe_course/classroom/worksheets/)")
    sheet = WORKSHEETS[name]
    worksheet = f"../exercises/{name}.ipynb"
    total = sum(sheet.points.values())
    lines = [f"# How worksheet {name[:2]} is graded", "",
             page_links(f"exercises/{name}.ipynb", f"grading/{name}", graded=False), "",
             f"Worksheet [{title}]({worksheet}) has {len(sheet.checkers)} exercises worth "
             f"{total} points. Its check cells run the cases the worksheet shows; an "
             "instructor's grader (`python -m bpe_course grade`, see "
             "[Worksheets and grading](../exercises/README.md#for-instructors-grading)) runs "
             "those and hidden ones, some fixed and some drawn afresh for each run, on the "
             "learner's code in a sandbox, and compares every answer with the course's own.",
             "", f"**The rule**: {RULE[0].upper() + RULE[1:]} The cases the worksheet shows "
             f"count for {VISIBLE_SHARE:.0%} of an exercise, the hidden ones for "
             f"{1 - VISIBLE_SHARE:.0%}.", "",
             "| exercise | you write | points | cases shown | hidden, fixed | hidden, drawn "
             "each run |", "|---|---|---|---|---|---|"]
    details = []
    for checker in sheet.checkers:
        groups = checker.groups()
        drawn = groups_for(checker, 0)[len(groups):]
        shown = [c for g in groups if not g.hidden for c in g.cases]
        fixed = [c for g in groups if g.hidden for c in g.cases]
        n_drawn = sum(len(g.cases) for g in drawn)
        what = f"{'class' if checker.kind == 'class' else 'function'} `{checker.target}`"
        lines.append(f"| `{checker.name}` | {what} | {sheet.points[checker.name]} | {len(shown)} "
                     f"| {len(fixed)} | {f'about {n_drawn}' if n_drawn else 'none'} |")
        details += ["", f"## `{checker.name}`", "",
                    f"{sheet.points[checker.name]} point{'s' if sheet.points[checker.name] != 1 else ''} "
                    f"for the {what}. What a failed case shows, and the most the exercise "
                    "then keeps:", "",
                    "| a failed case shows that the answer ... | cases shown | hidden, fixed "
                    "| keeps at most |", "|---|---|---|---|"]
        for kind, (most, words) in BREAKS.items():
            a = sum(c.breaks == kind for c in shown)
            b = sum(c.breaks == kind for c in fixed)
            if a or b:
                keep = "its share of cases" if most >= 1 else f"{most:.0%}"
                details.append(f"| {words} | {a} | {b} | {keep} |")
        limits = sorted({g.time_limit for g in groups if g.time_limit})
        if limits:
            details += ["", "Cases with a time limit of their own: "
                        + ", ".join(f"{t:g} s" for t in limits) + " (any other case: 30 s)."]
        helpers = [h for h in checker.helpers if h not in ALWAYS] + list(checker.allowed_bases)
        details += ["", "Course code the answer may use while it is checked: "
                    + (", ".join(f"`{h}`" for h in helpers) if helpers else "none beyond")
                    + (" and " if helpers else " ") + "what every exercise may use (the "
                    "corpora, the split patterns, the pictures, the input checks)."]
        if checker.forbidden:
            details += ["", "Off limits even there: "
                        + ", ".join(f"`{f}`" for f in checker.forbidden) + "."]
    return "\n".join(lines + details) + "\n"


def split_faq(readme: str) -> tuple[str, str]:
    """(README without its FAQ section, the FAQ section)."""
    match = re.search(r"^## FAQ\n.*?(?=^## )", readme, re.M | re.S)
    if not match:
        raise ValueError("README.md has no '## FAQ' section")
    faq = match[0]
    home = readme[:match.start()] + ("## FAQ\n\nQuestions learners ask, each answered in its "
                                     "chapter: [the FAQ](FAQ.md).\n\n") + readme[match.end():]
    return home, faq


def toctree(caption: str, pages: list[Page]) -> str:
    entries = "\n".join(f"{p.title} <{p.docname}>" for p in pages)
    return f"\n```{{toctree}}\n:hidden:\n:caption: {caption}\n\n{entries}\n```\n"


def stage(into: Path = STAGE, root: Path = ROOT) -> dict[str, list[Page]]:
    """Write the site's sources into `into` (emptied first)."""
    sections = plan(root)
    if into.exists():
        shutil.rmtree(into)
    shutil.copytree(CONF, into, ignore=shutil.ignore_patterns("__pycache__"))
    # repository path -> staged source path, for every file the site publishes
    site_sources = {"README.md": "index.md", "exercises/README.md": "exercises/README.md"}
    for pages in sections.values():
        for p in pages:
            if p.source.endswith(".ipynb") and p.docname.startswith(("notebooks/", "exercises/")):
                site_sources[p.source] = p.docname + ".ipynb"
            elif p.source.startswith("docs/"):
                site_sources[p.source] = p.docname + ".md"
    worksheets = {p.source for p in sections["The course"] if p.source.startswith("exercises/")}
    for page in sections["The course"]:
        stage_notebook(page, site_sources, graded=page.source in worksheets, into=into)
    readme = (root / "README.md").read_text(encoding="utf-8")
    home, faq = split_faq(readme)
    faq = faq.replace("## FAQ", "# FAQ", 1)
    site_sources["FAQ.md"] = "faq.md"        # the home's link to it (split_faq)
    (into / "faq.md").write_text(rewrite_links(faq, "README.md", {**site_sources,
                                  "README.md": "faq.md"}), encoding="utf-8")
    home = rewrite_links(home, "README.md", site_sources)
    for caption, pages in sections.items():
        home += toctree(caption, pages)
    (into / "index.md").write_text(home, encoding="utf-8")
    for page in sections["More"][1:]:
        text = (root / page.source).read_text(encoding="utf-8")
        (into / (page.docname + ".md")).parent.mkdir(parents=True, exist_ok=True)
        (into / (page.docname + ".md")).write_text(rewrite_links(text, page.source, site_sources),
                                                   encoding="utf-8")
    text = (root / "exercises" / "README.md").read_text(encoding="utf-8")
    (into / "exercises" / "README.md").write_text(
        rewrite_links(text, "exercises/README.md", site_sources), encoding="utf-8")
    for page in sections["Grading"][1:]:
        worksheet = "exercises/" + Path(page.docname).name + ".ipynb"
        text = grading_page(Path(page.docname).name, notebook_title(root / worksheet))
        source = f"grading/{Path(page.docname).name}.md"
        (into / source).parent.mkdir(parents=True, exist_ok=True)
        (into / source).write_text(
            rewrite_links(text, source, {**site_sources, source: source}), encoding="utf-8")
    return sections


def build(out: Path = OUT, into: Path = STAGE, quiet: bool = True) -> dict:
    """Stage the sources in `into` and build the site into `out` (emptied first); return
    the pages built, the sections of the navigation and how long it took."""
    from sphinx.cmd.build import build_main
    start = time.monotonic()
    if out.exists():
        if any(out.iterdir()) and not (out / ".buildinfo").is_file():
            raise SystemExit(f"{out} is not empty and holds no site built before: "
                             "give a new or empty folder")
        shutil.rmtree(out)
    sections = stage(into)
    # Sphinx writes into the stage first: myst-nb keeps the outputs it extracts in a folder
    # beside the output folder (jupyter_execute/), which must not land beside `out`.
    html = into / "_build" / "html"
    args = ["-b", "html", "-W", "--keep-going", "-n", "-j", "auto", str(into), str(html),
            "-d", str(into / "_build" / "doctrees")]
    if quiet:
        args.insert(0, "-q")
    code = build_main(args)
    if code:
        raise SystemExit(f"the site did not build (sphinx-build exited {code})")
    shutil.move(html, out)
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html")
                   if "_static" not in p.relative_to(out).parts)
    return {"out": out, "pages": pages, "sections": sections,
            "seconds": time.monotonic() - start}


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    out = Path(argv[0]).resolve() if argv else OUT
    done = build(out, quiet=True)
    print(f"{len(done['pages'])} pages in {out} ({done['seconds']:.0f} s); "
          f"preview: python -m http.server -d {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
