"""`python -m bpe_course gradescope WORKSHEET -o autograder.zip`: an autograder for Gradescope.

Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/) asks for a zip
with two files at its root: `setup.sh`, which Gradescope runs once, as root,
when it builds the autograder's image (Ubuntu), and `run_autograder`, which it
runs for each submission in `/autograder`, with the student's files in
`/autograder/submission`, and which must write `/autograder/results/results.json`.
The zip's other files land in `/autograder/source`. This one holds:

- `setup.sh` (`SETUP`): installs bubblewrap and Python's venv module with
  apt-get, makes a virtual environment in `VENV`, installs the course from the
  wheel beside it (its dependencies from PyPI, within the ranges the course
  declares), then locks what a notebook must not read (`image`);
- `run_autograder` (`RUN`): runs `bpe_course.classroom.gradescope.run` with that
  environment's Python;
- the course as a wheel (`wheel`), built from this very source tree, so the
  image grades with exactly the checkers, hidden cases and references of the
  course that made the zip: nothing is fetched from the course's home (which
  may not be published yet, and moves on), and the commit it came from is
  recorded in `autograder.json`;
- `autograder.json` (`CONFIG`): the worksheet, the sandbox, the time limits and
  when hidden cases' details are shown.

`AUTOGRADER_ROOT` (default `/autograder`) and `AUTOGRADER_PYTHON` (default the
environment's Python) let a test run the same `run_autograder` on a folder
laid out as `/autograder`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..grading import bubblewrap
from ..worksheets import WORKSHEETS
from .results import SPEC, VISIBILITIES

VENV = "/opt/bpe-course"            # the environment setup.sh makes, in the image
CONFIG = "autograder.json"
SANDBOXES = ("bubblewrap", "container", "auto")
EXECUTABLE = 0o100755 << 16         # a zip entry's Unix mode: a regular file, rwxr-xr-x
FILE = 0o100644 << 16

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu).
# Written by `python -m bpe_course gradescope`; Gradescope's specification: {spec}
set -euo pipefail
SOURCE="${{AUTOGRADER_ROOT:-/autograder}}/source"
VENV={venv}
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends bubblewrap python3 python3-venv
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: the course needs Python 3.10 or later and this image has" \\
         "$(python3 --version 2>&1): choose an Ubuntu 22.04 (or later) base image" \\
         "in the autograder's settings" >&2
    exit 1
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --upgrade pip
"$VENV/bin/python" -m pip install "$SOURCE/{wheel}"
"$VENV/bin/python" -m bpe_course.classroom.gradescope.image "$SOURCE"
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission, as root, in /autograder: it grades the
# notebook in /autograder/submission with the course's grader and writes
# /autograder/results/results.json. Written by `python -m bpe_course gradescope`;
# Gradescope's specification: {spec}
# AUTOGRADER_ROOT and AUTOGRADER_PYTHON are for testing it outside Gradescope.
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-{venv}/bin/python}}"
cd "$ROOT" || exit 1
exec "$PYTHON" -m bpe_course.classroom.gradescope.run --root "$ROOT"
"""


def worksheet_name(text: str) -> str:
    """The worksheet WORKSHEET names: its name, its number, or a path to it.

    >>> worksheet_name("exercises/02_bpe_basics.ipynb"), worksheet_name("4")
    ('02_bpe_basics', '04_regex_tokenizer')
    """
    stem = Path(text).name.removesuffix(".ipynb")
    if stem in WORKSHEETS:
        return stem
    number = re.match(r"\d+", stem)
    for name in WORKSHEETS:
        if number and int(name[:2]) == int(number.group()):
            return name
    raise ValueError(f"no worksheet {text!r}: give one of {', '.join(WORKSHEETS)} "
                     f"(or its number)")


def source_tree() -> Path | None:
    """The source tree the course was imported from (a clone), or None for an installed
    package."""
    root = bubblewrap.package_dir().parent
    project = root / "pyproject.toml"
    if project.is_file() and 'name = "bpe-course"' in project.read_text(encoding="utf-8"):
        return root
    return None


def commit(root: Path) -> str | None:
    """The git commit of the source tree, with "+changes" when files differ from it."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no", "--", "bpe_course", "pyproject.toml"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def build_wheel(root: Path, out: Path) -> Path:
    """A wheel of the course built from the source tree `root`, in `out`. The build runs on
    a copy of what the wheel is made of, so the tree gets no build folders; without
    network when setuptools is installed here, else pip fetches it from PyPI."""
    with tempfile.TemporaryDirectory(prefix="bpe-wheel-") as work:
        copy = Path(work) / "src"
        copy.mkdir()
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        for name in ["pyproject.toml", "README.md", "LICENSE", "NOTICE"]:
            shutil.copy2(root / name, copy / name)
        for name in ["bpe_course", "tiktoken_ext"]:
            shutil.copytree(root / name, copy / name, ignore=ignore)
        try:
            import setuptools  # noqa: F401
            isolation = ["--no-build-isolation"]
        except ImportError:
            isolation = []
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation,
                               "--wheel-dir", str(out), str(copy)],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError("building the course's wheel failed:\n"
                               + (done.stdout + done.stderr)[-2000:])
    wheels = sorted(out.glob("bpe_course-*.whl"))
    if not wheels:
        raise RuntimeError("building the course's wheel made no wheel")
    return wheels[-1]


def make_zip(target: Path, worksheet: str, wheel: Path, config: dict) -> None:
    """Write the autograder's zip: setup.sh and run_autograder at its root, executable."""
    files = {"setup.sh": (SETUP.format(spec=SPEC, venv=VENV, wheel=wheel.name), EXECUTABLE),
             "run_autograder": (RUN.format(spec=SPEC, venv=VENV), EXECUTABLE),
             CONFIG: (json.dumps(dict(config, worksheet=worksheet, wheel=wheel.name),
                                 indent=2) + "\n", FILE)}
    temporary = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (text, mode) in files.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = mode
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
        info = zipfile.ZipInfo(wheel.name, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = FILE
        archive.writestr(info, wheel.read_bytes(), compress_type=zipfile.ZIP_STORED)
    os.replace(temporary, target)


def parse(argv: list[str]):
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course gradescope",
        description="Write an autograder for Gradescope (setup.sh and run_autograder, per "
                    f"Gradescope's specification, {SPEC}) that grades a submitted "
                    "worksheet with the course's grader, one test per exercise.")
    parser.add_argument("worksheet", metavar="WORKSHEET",
                        help="the worksheet the assignment is: its name (02_bpe_basics), "
                             "number (02) or path (exercises/02_bpe_basics.ipynb)")
    parser.add_argument("-o", "--output", default="autograder.zip", metavar="ZIP",
                        help="where to write the zip (default: autograder.zip)")
    parser.add_argument("--sandbox", choices=SANDBOXES, default="bubblewrap",
                        help="bubblewrap (default: the autograder refuses to grade where "
                             "bubblewrap cannot create its namespaces), container (the "
                             "container Gradescope throws away after each submission is the "
                             "sandbox), auto (bubblewrap where it works, else the container)")
    parser.add_argument("--hidden-details", choices=VISIBILITIES, default="after_published",
                        help="when students see the hidden case an exercise failed (its "
                             "code and answers; the verdict and hint are always shown): "
                             "Gradescope's visibility, default after_published")
    parser.add_argument("--wheel", metavar="WHEEL",
                        help="the course's wheel to install (default: built from this "
                             "source tree)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per notebook, grading included (default: 300)")
    parser.add_argument("--cell-timeout", type=float, default=60,
                        help="seconds per cell of the notebook (default: 60)")
    parser.add_argument("--case-timeout", type=float, default=30,
                        help="seconds per hidden case (default: 30)")
    return parser.parse_args(argv)


def cli_gradescope(argv: list[str]) -> int:
    options = parse(argv)
    try:
        name = worksheet_name(options.worksheet)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    target = Path(options.output)
    if not target.parent.is_dir():
        print(f"error: -o {target}: the folder {target.parent} does not exist", file=sys.stderr)
        return 2
    root = source_tree()
    if options.wheel is None and root is None:
        print("error: the course here is an installed package, not a source tree: give "
              "its wheel with --wheel (python -m build makes one in a clone)", file=sys.stderr)
        return 2
    if options.wheel is not None and not Path(options.wheel).is_file():
        print(f"error: --wheel {options.wheel}: no such file", file=sys.stderr)
        return 2
    from ... import __version__
    config = {"sandbox": options.sandbox, "hidden_details": options.hidden_details,
              "timeout": options.timeout, "cell_timeout": options.cell_timeout,
              "case_timeout": options.case_timeout, "version": __version__,
              "commit": commit(root) if root is not None and options.wheel is None else None}
    with tempfile.TemporaryDirectory(prefix="bpe-gradescope-") as out:
        try:
            wheel = Path(options.wheel) if options.wheel else build_wheel(root, Path(out))
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        make_zip(target, name, wheel, config)
    points = sum(WORKSHEETS[name].points.values())
    print(f"wrote {target}: an autograder for worksheet {name} ({points} points, "
          f"{len(WORKSHEETS[name].points)} exercises), course {__version__}"
          + (f" at commit {config['commit']}" if config["commit"] else "")
          + f", sandbox: {options.sandbox}. Upload it as a Gradescope programming "
            f"assignment's autograder (docs/gradescope.md).")
    return 0
