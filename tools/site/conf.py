"""Sphinx's settings for the course's website (`make site`, tools/website.py).

tools/website.py copies this folder into the staged sources (build/site-src/) beside the
notebooks, worksheets and pages it prepares, and runs Sphinx there. The notebooks are read
with myst-nb, with their stored outputs (never executed); everything a page needs is served
from the site itself (no fonts, scripts or images from elsewhere), and math becomes MathML
at build time, which browsers draw without any script.
"""

from __future__ import annotations

from docutils import nodes

from bpe_course.classroom.authoring.course import BRANCH, REPO

project = "bpe-course"
author = "the bpe-course authors"
copyright = "the bpe-course authors, MIT licence"
html_title = "bpe-course: build a GPT tokenizer, byte by byte"

extensions = ["myst_nb"]
exclude_patterns = ["_files", "_build", "**.ipynb_checkpoints"]
# Stored outputs only: the site shows what the repository stores, and nbval keeps it true.
nb_execution_mode = "off"
nb_merge_streams = True
# GitHub's anchors (README's FAQ links to "#why-not-pickle-a-tokenizer"), and $math$ as GitHub
# and Jupyter read it.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]
myst_dmath_double_inline = True

html_theme = "sphinx_book_theme"
html_theme_options = {
    "repository_url": f"https://github.com/{REPO}",
    "repository_branch": BRANCH,
    "use_repository_button": True,
    "use_download_button": False,     # each notebook page links its own stored .ipynb
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
# Light or dark as the reader's system is (the theme logs an error when this is unset).
html_context = {"default_mode": "auto"}
html_static_path = ["_static"]
html_css_files = ["site.css"]
# The notebooks as stored in the repository, beside their pages: "Download the notebook".
html_extra_path = ["_files"]
html_copy_source = False
html_use_index = False            # no index entries: the search page finds words
html_show_sourcelink = False
html_last_updated_fmt = None
html_math_renderer = "mathml"
# A code block that is an abridged example (JSON with "...") is shown unhighlighted, not an error.
suppress_warnings = ["misc.highlighting_failure"]


def visit_math(self, node):
    from latex2mathml.converter import convert
    self.body.append(convert(node.astext()))
    raise nodes.SkipNode


def visit_displaymath(self, node):
    from latex2mathml.converter import convert
    self.body.append(f'<div class="math-block">{convert(node.astext(), display="block")}</div>')
    raise nodes.SkipNode


def setup(app):
    # Math as MathML, written at build time: nothing to fetch when a page is read.
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
