"""Reproducing a failing case: the code a learner pastes into a fresh cell to see it fail.

A case names its group's inputs (TEXT, MERGES, ...) and may use a helper of the
checker (`text_file`, `seconds`, `naive_seconds`) or a temporary folder (TMP).
`reproduction` writes them all out before the case itself: the imports, each named input
as the group documents how to make it (its *env_doc*) or as its value when that is
short, and the group's setup. So the failing case shown in a message runs as pasted.

>>> from bpe_course.classroom.worksheets import Case, Group
>>> reproduction(Group([], env={"IDS": [1, 2]}), Case("merge(IDS, (1, 2), 256)"))
['IDS = [1, 2]', 'merge(IDS, (1, 2), 256)']
"""

from __future__ import annotations

import importlib.util
import re

from ..worksheets import Case, Group
from ..worksheets.common import escaped
from .judgement import an

HELPERS = {"text_file": "from bpe_course.classroom.checking.runner import text_file",
           "seconds": "from bpe_course.classroom.checking.runner import seconds",
           "naive_seconds": "from bpe_course.classroom.checking.checks import naive_seconds"}


def _uses(name: str, code: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", code) is not None


def _imports(expression: str) -> list[str]:
    """`import` lines that make the dotted course names in `expression` usable."""
    lines = []
    for dotted in re.findall(r"\bbpe_course(?:\.\w+)+", expression):
        parts = dotted.split(".")
        module = "bpe_course"
        for k in range(len(parts), 1, -1):
            name = ".".join(parts[:k])
            try:
                if importlib.util.find_spec(name) is not None:
                    module = name
                    break
            except (ImportError, ValueError, AttributeError):
                continue
        line = f"import {module}"
        if line not in lines:
            lines.append(line)
    if re.search(r"\bregex\.", expression) and "import regex" not in lines:
        lines.append("import regex")
    return lines


def reproduction(group: Group, case: Case) -> list[str]:
    """The case as code that runs when pasted into a fresh cell of its worksheet: the
    imports and named inputs it needs, its group's setup, then the case itself."""
    body = (group.setup + "\n" + case.code) if group.setup else case.code
    imports, inputs = [], []
    for name in (n for n in HELPERS if _uses(n, body)):
        imports.append(HELPERS[name])
    if _uses("TMP", body):
        imports.append("import tempfile")
        inputs.append("TMP = tempfile.mkdtemp()")
    for name, value in group.env.items():
        if not _uses(name, body):
            continue
        doc = group.env_doc.get(name)
        if doc is None:
            text = escaped(value)
            doc = text if len(text) <= 400 else None
        if doc is None:
            inputs.append(f"# {name}: {an(type(value).__name__)} of {len(value)} items, "
                          f"too long to show")
            continue
        imports += [line for line in _imports(doc) if line not in imports]
        inputs.append(f"{name} = {doc}")
    if any(line.startswith("import bpe_course.") for line in imports):
        imports = [line for line in imports if line != "import bpe_course"]
    return imports + inputs + body.splitlines()


