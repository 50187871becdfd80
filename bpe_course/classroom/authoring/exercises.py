"""Write the learners' worksheets (`exercises/`) from the solutions (`solutions/`).

The solutions are the one source. In them, each answer sits between
`### BEGIN SOLUTION` and `### END SOLUTION` inside a cell marked as an
nbgrader solution cell; the generator does what `nbgrader generate_assignment`
does to such cells (a test runs the real nbgrader to prove it):

- each region becomes `# YOUR CODE HERE` and `raise NotImplementedError()`,
  indented like its BEGIN line (in markdown: `YOUR ANSWER HERE`);
- outputs and execution counts are cleared;

and two things nbgrader does not: the Colab badge points at the exercise, and
the notebook's metadata records the course release it came from
(`release_metadata`), so that the grader can tell a worksheet of an earlier
release (see `grading.moved_modules`).

    python -m bpe_course exercises            # (re)write exercises/
    python -m bpe_course exercises --check    # exit 1 if exercises/ is stale

Before writing, every solution is checked (`problems`): regions must be
marked, closed and inside solution cells, and each exercise of the
worksheet's record (`worksheets.WORKSHEETS`) must have its check cell with
the right points.

>>> print(clear_solutions("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION"))
def f():
    # YOUR CODE HERE
    raise NotImplementedError()
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

from ..worksheets import WORKSHEETS
from .course import badge

BEGIN, END = "BEGIN SOLUTION", "END SOLUTION"
CODE_STUB = ["# YOUR CODE HERE", "raise NotImplementedError()"]
TEXT_STUB = ["YOUR ANSWER HERE"]
GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


def clear_solutions(source: str, cell_type: str = "code") -> str:
    """Replace each solution region of `source` by the stub, as nbgrader's ClearSolutions does."""
    stub = CODE_STUB if cell_type == "code" else TEXT_STUB
    out, inside = [], False
    for line in source.split("\n"):
        if BEGIN in line:
            if inside:
                raise ValueError("a solution region begins inside another one")
            inside = True
            indent = re.match(r"\s*", line).group(0)
            out += [indent + s for s in stub]
        elif END in line:
            if not inside:
                raise ValueError("END SOLUTION without BEGIN SOLUTION")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError("BEGIN SOLUTION without END SOLUTION")
    return "\n".join(out)


def nbgrader_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def problems(nb, name: str) -> list[str]:
    """Everything wrong with a solution worksheet, as sentences (empty: fine)."""
    found = []
    ids = []
    for number, cell in enumerate(nb.cells, 1):
        meta = nbgrader_meta(cell)
        marked = BEGIN in cell.source or END in cell.source
        if "HIDDEN TESTS" in cell.source:
            found.append(f"cell {number}: hidden test regions are not supported")
        if marked and not meta.get("solution"):
            found.append(f"cell {number}: a solution region in a cell that is not marked as "
                         f"an nbgrader solution cell")
        if meta.get("solution") and not marked:
            found.append(f"cell {number}: a solution cell with no ### BEGIN SOLUTION / "
                         f"### END SOLUTION region: mark what the exercise hides")
        if marked:
            try:
                clear_solutions(cell.source, cell.cell_type)
            except ValueError as e:
                found.append(f"cell {number}: {e}")
        if meta:
            ids.append(meta.get("grade_id", ""))
            if not GRADE_ID.match(meta.get("grade_id", "")):
                found.append(f"cell {number}: grade_id {meta.get('grade_id')!r} must be "
                             f"letters, digits, '_' or '-'")
    for grade_id in sorted({i for i in ids if ids.count(i) > 1}):
        found.append(f"grade_id {grade_id!r} is used by more than one cell")
    if name not in WORKSHEETS:
        return found + [f"{name} is not a worksheet of worksheets.WORKSHEETS"]
    checks = {nbgrader_meta(c).get("grade_id"): c for c in nb.cells if nbgrader_meta(c).get("grade")}
    for exercise, points in WORKSHEETS[name].points.items():
        cell = checks.pop(exercise, None)
        # The check cell imports its checker itself: rebinding `checks` earlier cannot defeat
        # it in nbgrader; the checker finds the learner's object by name, so a missing one is
        # a one-line verdict, not a NameError (tools/check_cells.py writes this form).
        want = f"from bpe_course import checks\nchecks.{exercise}()"
        if cell is None:
            found.append(f"exercise {exercise!r} has no check cell (grade_id {exercise!r})")
        elif cell.source != want or nbgrader_meta(cell).get("points") != points:
            found.append(f"the check cell of {exercise!r} should be `{want}` with {points} "
                         f"point(s) and locked")
    found += [f"check cell {grade_id!r} is not an exercise of {name}" for grade_id in checks]
    return found


def release(root: Path | None = None) -> str:
    """The course's release: pyproject.toml's version (the one version number), else the
    installed package's."""
    from ... import __version__
    pyproject = (root or default_root()) / "pyproject.toml"
    if pyproject.is_file():
        found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"),
                          re.MULTILINE)
        if found:
            return found.group(1)
    return __version__


def release_metadata(name: str, root: Path | None = None) -> dict:
    """What a worksheet's notebook metadata records under "bpe_course": the worksheet and
    the course release it was generated from."""
    return {"worksheet": name, "release": release(root)}


def make_exercise(nb, relpath: str, root: Path | None = None):
    """The exercise version of a solution worksheet (`relpath`: where it will live)."""
    nb = copy.deepcopy(nb)
    nb.metadata["bpe_course"] = release_metadata(Path(relpath).stem, root)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("solution"):
            cell.source = clear_solutions(cell.source, cell.cell_type)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    solution_badge = badge(relpath.replace("exercises/", "solutions/", 1))
    first.source = first.source.replace(solution_badge, badge(relpath))
    return nb


def text_of(nb) -> str:
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def generate(root: Path, check: bool = False) -> list[str]:
    """Write (or with `check`, compare) every exercise; return what changed or is wrong.

    Raises ValueError listing the problems if a solution worksheet is malformed.
    """
    solutions = sorted((root / "solutions").glob("*.ipynb"))
    if not solutions:
        raise ValueError(f"no solution worksheets in {root / 'solutions'}")
    notebooks = {path: nbformat.read(path, as_version=4) for path in solutions}
    errors = [f"solutions/{path.name}: {p}" for path, nb in notebooks.items()
              for p in problems(nb, path.stem)]
    if errors:
        raise ValueError("\n".join(errors))
    changed = []
    for path, nb in notebooks.items():
        relpath = f"exercises/{path.name}"
        target = root / relpath
        text = text_of(make_exercise(nb, relpath, root))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            changed.append(f"{relpath} {'is stale' if check else 'written'}")
            if not check:
                target.parent.mkdir(exist_ok=True)
                target.write_text(text, encoding="utf-8")
    wanted = {path.name for path in solutions}
    for orphan in sorted((root / "exercises").glob("[0-9][0-9]_*.ipynb")):
        if orphan.name not in wanted:
            changed.append(f"exercises/{orphan.name} has no solution "
                           f"{'(stale)' if check else '(deleted)'}")
            if not check:
                orphan.unlink()
    return changed


def default_root() -> Path:
    """The repository, when the package is imported from a source checkout (its `solutions/`
    beside the `bpe_course` package); else the working folder."""
    import bpe_course
    repository = Path(bpe_course.__file__).resolve().parent.parent
    return repository if (repository / "solutions").is_dir() else Path.cwd()


def cli_exercises(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_course exercises",
                                     description="Regenerate exercises/ from solutions/.")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if exercises/ is stale")
    parser.add_argument("--root", type=Path, default=None,
                        help="the folder holding solutions/ and exercises/ "
                             "(default: the repository)")
    args = parser.parse_args(argv)
    try:
        changed = generate(args.root or default_root(), check=args.check)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for line in changed:
        print(line)
    if args.check and changed:
        print("run `python -m bpe_course exercises` to regenerate", file=sys.stderr)
        return 1
    if not changed:
        print("exercises/ is up to date")
    return 0
