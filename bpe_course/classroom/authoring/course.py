"""Facts about the course itself, kept in one place: where it lives, how notebooks start.

Every notebook's Colab badge and setup cell are generated from these
(`tools/notebooks.py headers`, and the exercise generator), and a test checks
that all notebooks agree with them.
"""

REPO = "bpe-course/bpe-course"           # GitHub owner/name
BRANCH = "main"
SETUP_MARK = "# Setup: in Colab, install the course package; elsewhere, nothing to do."


def badge(relpath: str) -> str:
    """Markdown for an Open-in-Colab badge of the notebook at `relpath` in the repository."""
    url = f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/{relpath}"
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url})"


def setup_source() -> str:
    """The first code cell of every notebook: installs the package in Colab only."""
    return "\n".join([
        SETUP_MARK,
        "import sys",
        "",
        'if "google.colab" in sys.modules:',
        f'    %pip install --quiet "bpe-course @ git+https://github.com/{REPO}@{BRANCH}"',
    ])
