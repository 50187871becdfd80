"""The course's home is one setting (course.REPO, course.BRANCH): every place that names it
agrees, and `make home` (tools/home.py) moves all of them at once."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_course.classroom.authoring.course import BRANCH, REPO, badge

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import home  # noqa: E402

PAGES = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "exercises/README.md",
         *[p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")]]


def homes_named(text: str) -> set[tuple[str, str]]:
    """The (repository, branch) of every Colab link and git+https install in `text`."""
    found = set(re.findall(r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/blob/"
                           r"([\w.-]+)/", text))
    found |= set(re.findall(r"git\+https://github\.com/([\w.-]+/[\w.-]+?)@([\w.-]+)", text))
    return found


def test_every_page_and_the_package_metadata_name_one_home():
    for page in PAGES:
        assert homes_named((ROOT / page).read_text(encoding="utf-8")) <= {(REPO, BRANCH)}, page
    assert badge("notebooks/01_unicode_and_bytes.ipynb") in (ROOT / "README.md").read_text()
    urls = (ROOT / "pyproject.toml").read_text().split("[project.urls]")[1].split("\n[")[0]
    named = re.findall(r'= "https://github\.com/([\w.-]+/[\w.-]+?)(?:/|")', urls)
    assert named and set(named) == {REPO}
    assert "make home REPO=" in (ROOT / "README.md").read_text()
    # the website's workflow publishes from the home only, on its branch
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert re.findall(r"github\.repository == '([^']*)'", workflow) == [REPO, REPO]
    assert re.findall(r"\n  push:\n    branches: \[([^\]]*)\]", workflow) == [BRANCH]
    owner, name = REPO.split("/")
    assert f"https://{owner}.github.io/{name}/" in (ROOT / "README.md").read_text()


def test_make_home_rewrites_every_badge_setup_cell_page_and_url(tmp_path, copy_tree):
    copy = tmp_path / "course"
    for folder in ("bpe_course", "tiktoken_ext", "tools", "notebooks", "solutions",
                   "exercises", "docs"):
        copy_tree(ROOT / folder, copy / folder)
    for file in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "pyproject.toml", "Makefile",
                 ".github/workflows/pages.yml"):
        (copy / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / file, copy / file)
    old = REPO
    changed = home.move_home(copy, "acme-school/tokens", "spring-2027")
    assert "bpe_course/classroom/authoring/course.py" in changed
    assert "pyproject.toml" in changed and "README.md" in changed
    assert ".github/workflows/pages.yml" in changed
    workflow = (copy / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert "github.repository == 'acme-school/tokens'" in workflow
    assert "branches: [spring-2027]" in workflow and old not in workflow
    readme = (copy / "README.md").read_text()
    assert "https://acme-school.github.io/tokens/" in readme
    assert "In this copy it is\n<https://github.com/acme-school/tokens/tree/spring-2027>" in readme
    assert home.current(copy) == ("acme-school/tokens", "spring-2027")
    for path in copy.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".toml", ".py", ".ipynb", ".yml"):
            text = path.read_text(encoding="utf-8")
            assert f"github.com/{old}" not in text and f"github/{old}/" not in text, path
    # the notebooks' own check, run on the copy, finds every badge and setup cell in step
    check = subprocess.run([sys.executable, str(copy / "tools" / "notebooks.py"), "check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    worksheet = (copy / "exercises" / "02_bpe_basics.ipynb").read_text(encoding="utf-8")
    assert ("colab.research.google.com/github/acme-school/tokens/blob/spring-2027/"
            "exercises/02_bpe_basics.ipynb") in worksheet
    assert "git+https://github.com/acme-school/tokens@spring-2027" in worksheet


def test_make_home_refuses_what_is_not_owner_slash_name(tmp_path):
    with pytest.raises(ValueError, match="owner/name"):
        home.move_home(tmp_path, "https://github.com/acme/tokens", "main")
