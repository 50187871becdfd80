"""Move the course's home: one command rewrites every place that names it.

    python tools/home.py OWNER/NAME [BRANCH]       # or: make home REPO=owner/name BRANCH=main

The home is the GitHub repository (and branch) that the Colab badges open and the Colab
setup cells install from. It is set once, in `bpe_course/classroom/authoring/course.py`
(`REPO`, `BRANCH`); this tool writes the new one there, then rewrites what is generated from
it (every notebook's badge and setup cell, `tools/notebooks.py headers`; the worksheets in
exercises/) and the places that name it in prose: the README and the other Markdown pages,
pyproject.toml's URLs, and the website's workflow (.github/workflows/pages.yml: it publishes
only from the home, on its branch). `tests/test_home.py` checks that they agree.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE = Path("bpe_course/classroom/authoring/course.py")
TEXTS = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "pyproject.toml", "exercises/README.md",
         "docs/*.md"]
WORKFLOW = Path(".github/workflows/pages.yml")
REPO_FORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+")
BRANCH_FORM = re.compile(r"[A-Za-z0-9._/-]+")


def current(root: Path) -> tuple[str, str]:
    text = (root / COURSE).read_text(encoding="utf-8")
    return (re.search(r'^REPO = "([^"]+)"', text, re.M).group(1),
            re.search(r'^BRANCH = "([^"]+)"', text, re.M).group(1))


def rewrite_text(text: str, old: tuple[str, str], new: tuple[str, str]) -> str:
    (old_repo, old_branch), (repo, branch) = old, new
    for before, after in [
        (f"colab.research.google.com/github/{old_repo}/blob/{old_branch}/",
         f"colab.research.google.com/github/{repo}/blob/{branch}/"),
        (f"github.com/{old_repo}/blob/{old_branch}/", f"github.com/{repo}/blob/{branch}/"),
        (f"github.com/{old_repo}/tree/{old_branch}", f"github.com/{repo}/tree/{branch}"),
        (f"git+https://github.com/{old_repo}@{old_branch}", f"git+https://github.com/{repo}@{branch}"),
        (f"github.com/{old_repo}", f"github.com/{repo}"),
        # the website on GitHub Pages: https://owner.github.io/name/
        ("{}.github.io/{}".format(*old_repo.split("/")), "{}.github.io/{}".format(*repo.split("/"))),
    ]:
        text = text.replace(before, after)
    return text


def rewrite_workflow(text: str, repo: str, branch: str) -> str:
    """The website's workflow runs only in the home's repository, on a push to its branch."""
    text = re.sub(r"github\.repository == '[^']*'", f"github.repository == '{repo}'", text)
    return re.sub(r"(\n  push:\n    branches: )\[[^\]]*\]", rf"\g<1>[{branch}]", text)


def move_home(root: Path, repo: str, branch: str) -> list[str]:
    """Make `repo`@`branch` the course's home in the tree at `root`; return what changed."""
    if not REPO_FORM.fullmatch(repo):
        raise ValueError(f"REPO={repo!r}: give the GitHub repository as owner/name")
    if not BRANCH_FORM.fullmatch(branch):
        raise ValueError(f"BRANCH={branch!r}: not a branch name")
    old = current(root)
    changed = []
    course = root / COURSE
    text = course.read_text(encoding="utf-8")
    text = re.sub(r'^REPO = "[^"]+"', f'REPO = "{repo}"', text, count=1, flags=re.M)
    text = re.sub(r'^BRANCH = "[^"]+"', f'BRANCH = "{branch}"', text, count=1, flags=re.M)
    if text != course.read_text(encoding="utf-8"):
        course.write_text(text, encoding="utf-8")
        changed.append(str(COURSE))
    for pattern in TEXTS:
        for path in sorted(root.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            new_text = rewrite_text(text, old, (repo, branch))
            if new_text != text:
                path.write_text(new_text, encoding="utf-8")
                changed.append(path.relative_to(root).as_posix())
    workflow = root / WORKFLOW
    if workflow.is_file():
        text = workflow.read_text(encoding="utf-8")
        new_text = rewrite_workflow(text, repo, branch)
        if new_text != text:
            workflow.write_text(new_text, encoding="utf-8")
            changed.append(WORKFLOW.as_posix())
    # The notebooks and worksheets are generated from course.py: regenerate them with the new
    # one, in a fresh interpreter that imports the package from this tree.
    for args in ([str(root / "tools" / "notebooks.py"), "headers"],
                 ["-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from bpe_course.classroom.authoring.exercises import cli_exercises; "
                        "sys.exit(cli_exercises(['--root', sys.argv[1]]))", str(root)]):
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=root)
        if done.returncode != 0:
            raise RuntimeError(done.stdout + done.stderr)
        changed += [line for line in done.stdout.splitlines() if "up to date" not in line]
    return changed


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    try:
        changed = move_home(ROOT, argv[0], argv[1] if len(argv) == 2 else "main")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for line in changed:
        print(line)
    print(f"the course's home is now github.com/{argv[0]}, branch "
          f"{argv[1] if len(argv) == 2 else 'main'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
