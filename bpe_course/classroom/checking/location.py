r"""Locating the mistake in the learner's own source: "line N of your code: ...".

A diagnosis is more useful with the line that made the mistake. `source_of` finds the
learner's source (the notebook cell or file a function or class was defined in, through
`linecache`, where IPython keeps every cell), and `locate` reads it, without running it,
for the line that shows a kind of mistake: where an argument is changed ("mutated"), a
dict or list in a class body or a default argument ("shared"), a function without a
return of a value ("none").

>>> source = "def merge(ids, pair, idx):\n    ids.append(idx)\n    return ids\n"
>>> locate(source, "merge", "mutated", "0")
'line 2 of your code: ids.append(idx)'
"""

from __future__ import annotations

import ast
import inspect
import linecache

from ..worksheets import Case
from .diagnosis import Diagnosis

MUTATORS = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear",
            "update", "setdefault", "popitem", "add", "discard", "__setitem__",
            "__delitem__"}
MAX_SOURCE = 500_000          # characters of a learner's source read, at most


def source_of(target) -> tuple[str, int]:
    """The learner's source around `target` (the cell or file it was defined in) and the
    line where it starts there, or ("", 0)."""
    functions = []
    if inspect.isfunction(target):
        functions = [target]
    elif isinstance(target, type):
        functions = [v for v in vars(target).values() if inspect.isfunction(v)]
    for function in functions:
        code = function.__code__
        lines = linecache.getlines(code.co_filename)
        if lines:
            return "".join(lines), code.co_firstlineno
    return "", 0


def _parse(source: str):
    if not source or len(source) > MAX_SOURCE:
        return None
    try:
        return ast.parse("\n".join(line if not line.lstrip().startswith(("%", "!")) else ""
                                   for line in source.splitlines()))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _definition(tree, target: str, line: int):
    """The def or class named `target`: the one holding `line` if given, else the last."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == target:
            end = getattr(node, "end_lineno", node.lineno)
            if line and node.lineno <= line <= end:
                return node
            found = found or node if line else node
    if line:                     # a method's line: the class around it
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.lineno <= line <= getattr(
                    node, "end_lineno", node.lineno) and node.name == target:
                return node
    return found


def _quote(lines: list[str], number: int) -> str:
    return f"line {number} of your code: {lines[number - 1].strip()}"


def locate(sources, target: str, kind: str, name: str = "", line: int = 0) -> str:
    """The learner's line that shows a mistake of `kind`, as "line N of your code: ...",
    from their source (one text, or a list of cells): for "mutated", where `name` (a
    parameter, or its position as digits) is changed; for "shared", a dict or list in the class body or as a default
    argument; for "none", a function without a `return` of a value. "" if not found."""
    texts = [sources] if isinstance(sources, str) else list(sources or ())
    for source in reversed(texts):
        tree = _parse(source)
        if tree is None:
            continue
        node = _definition(tree, target, line)
        if node is None:
            continue
        lines = source.splitlines()
        found = _find(node, kind, name)
        if found:
            return _quote(lines, found)
    return ""


def _mutable(node) -> bool:
    return isinstance(node, (ast.Dict, ast.List, ast.Set)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id in ("dict", "list", "set", "defaultdict", "Counter"))


def _find(node, kind: str, name: str) -> int:
    if kind == "shared":
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None \
                        and _mutable(item.value):
                    return item.lineno
        for item in ast.walk(node):
            if isinstance(item, ast.FunctionDef):
                if any(_mutable(d) for d in item.args.defaults + item.args.kw_defaults if d):
                    return item.lineno
        return 0
    if kind == "mutated" and name.isdigit():       # the learner's name for argument K
        params = [a.arg for a in node.args.args if a.arg != "self"] \
            if isinstance(node, ast.FunctionDef) else []
        return _find(node, kind, params[int(name)]) if int(name) < len(params) else 0
    if kind == "mutated" and name:
        for item in ast.walk(node):
            targets = []
            if isinstance(item, (ast.Assign, ast.Delete)):
                targets = item.targets
            elif isinstance(item, ast.AugAssign):
                targets = [item.target]
                if isinstance(item.target, ast.Name) and item.target.id == name:
                    return item.lineno
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                        t.value.id == name:
                    return item.lineno
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and \
                    item.func.attr in MUTATORS and isinstance(item.func.value, ast.Name) and \
                    item.func.value.id == name:
                return item.lineno
        return 0
    if kind == "none" and isinstance(node, ast.FunctionDef):
        returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
        return 0 if returns else node.lineno
    return 0


def where_in(diagnosis: Diagnosis, case: Case, target: str, sources, line: int) -> str:
    """The learner's line for a diagnosis that can have one (an input changed, state shared,
    no `return`), or ""."""
    if not sources or diagnosis.kind not in ("mutated", "shared", "none"):
        return ""
    index = ""
    if diagnosis.kind == "mutated" and case.probe.startswith("unchanged:"):
        index = case.probe.split(":")[1]
    return locate(sources, target, diagnosis.kind, index, line)

