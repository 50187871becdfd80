"""Make every check cell of the worked worksheets import its checker itself.

In nbgrader the check cell is the grade, so it must not depend on a name an
earlier cell could rebind (`checks = ...`): each check cell becomes

    from bpe_course import checks
    checks.merge()

The checker finds the learner's `merge` by its name in the notebook: a check cell
whose function is missing (its cell not run, or stopped by a SyntaxError) then says
so in one line, where `checks.merge(merge)` would raise NameError in the check cell.

Only the check cells' sources change (outputs and every other cell stay as
they are). Re-run after merges, then regenerate the exercises:

    python tools/check_cells.py && python -m bpe_course exercises
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORT = "from bpe_course import checks"
CALL = re.compile(r"^checks\.(\w+)\(\w*\)$")


def check_source(source: str) -> str | None:
    """The new source of a check cell, or None if it is not a plain `checks.x(y)` or
    `checks.x()` cell."""
    lines = [line for line in source.strip().splitlines() if line.strip() != IMPORT]
    found = CALL.match(lines[0].strip()) if len(lines) == 1 else None
    if found is None:
        return None
    return f"{IMPORT}\nchecks.{found.group(1)}()"


def fix(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    changed = 0
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new = check_source(source)
        if new is None:
            print(f"{path.name}: check cell {meta.get('grade_id')} left as it is: {source!r}")
        elif new != source:
            cell["source"] = new.splitlines(keepends=True)
            changed += 1
    if changed:
        out = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        path.write_text(out, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    paths = [Path(p) for p in argv] or sorted((ROOT / "solutions").glob("*.ipynb"))
    for path in paths:
        print(f"{path.name}: {fix(path)} check cell(s) rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
