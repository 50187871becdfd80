"""The worksheets' rules read from the learner's source: what each answer calls, found outside.

An exercise asks the learner to write something the course already has
(`merge`, a trainer, UTF-8 "by hand"). Whether an answer calls the course's
version, or `str.encode`, is read here from the notebook's source, by the
trusted grader (never inside the learner's process, where any lock can be
undone) and, for a friendly warning, by the check cells (`checks`). Nothing
here runs the learner's code.

`breaches(cells, worksheet)` parses each code cell (IPython's magics turned
into Python first, as a kernel does), resolves names through imports and
aliases (`import bpe_course as b; b.training.trainer.learn_merges`, `from
bpe_course.pairs import merge as m`, `f = m`, attribute chains, re-exports
such as `bpe_course.merge`, old module names, see `moved_modules`), and finds,
for each exercise, the code its answer is made of (*its scope*): the
definition of its function or class, every definition of the notebook it
uses, and every statement at cell level that binds a name it uses (the last
such binding in the notebook's order). Then three rules:

- *write it yourself* ("course"): the scope uses course code that the
  exercise does not name as a helper (`Checker.helpers`, the always-allowed
  `worksheets.common.ALWAYS`, the base classes it may inherit from), or that
  the exercise forbids (the worksheet record's "forbidden"). A statement at cell level may
  also use any helper another exercise of the worksheet names (`ENCODINGS =
  {n: get_encoding(n) ...}` in worksheet 09);
- *by hand* ("by_hand"): the scope uses what the exercise forbids besides
  course code (see `worksheets.ws01.BY_HAND_UTF8` for UTF-8 by hand): an attribute named
  "encode", `bytes(...)` or `bytearray(...)` given an encoding, a module such
  as `codecs`;
- *nothing hidden* ("hidden"): code that hides what it calls, which no reader
  can check: `exec`, `eval`, `compile`, `__import__`, `globals()`, `vars()`,
  `getattr`/`setattr` with a computed name, `importlib`, `sys.modules`,
  attributes such as `__wrapped__`, `__globals__` or `__dict__`, a magic such as
  `%run`, or an import of a module that is neither Python's, the course's nor
  an installed package's (one the notebook wrote). Inside the scope it breaks
  that exercise's rule; at cell level, where it could define or change
  anything, every exercise's.

Each breach is one line naming the call and where it is ("cell 5, line 3").
What a breach costs is the cap of its kind in `worksheets.common.BREAKS`.

>>> from bpe_course.classroom.worksheets import WORKSHEETS
>>> found = breaches([(3, "from bpe_course import merge as m\\n"),
...                   (4, "def merge(ids, pair, idx):\\n    return m(ids, pair, idx)\\n")],
...                  WORKSHEETS["02_bpe_basics"])
>>> found["merge"][0].text()
"cell 5, line 2: calls the course's bpe_course.pairs.merge, which this exercise asks you to write yourself"
>>> found["get_stats"]
[]
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass

from ..grading.moved_modules import MOVED, current_name

COURSE = "bpe_course"
# Builtins and modules whose use hides what the code calls.
HIDING_CALLS = {"exec", "eval", "compile", "__import__", "globals", "locals", "vars",
                "breakpoint", "get_ipython"}
# (gc's collect, disable and freeze, which a fast trainer may use, hide nothing.)
HIDING_NAMES = ("importlib", "runpy", "pkgutil", "imp", "zipimport", "ctypes", "marshal",
                "pickle", "_pickle", "dill", "cloudpickle", "gc.get_objects", "gc.get_referrers",
                "gc.get_referents", "inspect", "code", "codeop",
                "builtins", "__builtins__", "sys.modules", "sys._getframe", "sys.meta_path",
                "sys.path_hooks", "sys.settrace", "sys.setprofile", "types.FunctionType",
                "types.CodeType", "types.LambdaType", "types.ModuleType", "types.MethodType",
                "operator.attrgetter", "operator.methodcaller")
# What asks and runs nothing, though its module can hide calls (the setup cell asks
# `find_spec("bpe_course")` before installing the course in Colab).
ASKING = ("importlib.util.find_spec", "importlib.metadata")
HIDING_ATTRIBUTES = {"__dict__", "__globals__", "__code__", "__closure__", "__wrapped__",
                     "__subclasses__", "__getattribute__", "__builtins__", "__loader__",
                     "__spec__", "__func__", "__self__", "__reduce__", "__reduce_ex__",
                     "__mro__", "__bases__", "__base__", "__defaults__", "__kwdefaults__",
                     "__import__", "f_globals", "f_locals", "f_back", "f_builtins",
                     "gi_frame", "cr_frame", "tb_frame", "co_code", "co_consts"}
ATTRIBUTE_CALLS = {"getattr": 1, "setattr": 1, "delattr": 1, "hasattr": 1}
# Magics whose code is in plain sight (parsed with the cell), and magics that run none.
CODE_MAGICS = {"time", "timeit", "prun", "capture"}
PLAIN_MAGICS = {"pip", "conda", "matplotlib", "config", "load_ext", "reload_ext",
                "autoreload", "precision", "who", "whos", "env", "cd", "pwd", "ls", "pinfo",
                "pinfo2", "psearch", "history", "magic", "lsmagic", "xmode", "notebook"}


KINDS = {"course": "calls the course's {name}, which this exercise asks you to write yourself",
         "by_hand": "not by hand: it uses {name}, which does what this exercise asks you to "
                    "do yourself",
         "hidden": "{name} hides what the code calls, so the worksheet's rules cannot be "
                   "checked: call functions by name"}


@dataclass(frozen=True)
class Breach:
    kind: str             # "course", "by_hand" or "hidden" (see `CAPS`)
    name: str             # what was called, as the message names it
    cell: int             # the notebook's cell, counted from 1 (markdown cells too)
    lineno: int           # the line in that cell, from 1

    def text(self, cells: str = "cell {}") -> str:
        """One line: where (`cells` names the cell: "cell 5", or "In [5]" in a kernel's
        history) and what."""
        return (f"{cells.format(self.cell)}, line {self.lineno}: "
                + KINDS[self.kind].format(name=self.name))


# What each kind of breach breaks, as a key of `worksheets.common.BREAKS` (the cap table),
# and its name on the page of the class's mistakes.
CAPS = {"course": "course", "hidden": "hidden", "by_hand": "contract"}
MISTAKES = {"course": "the course's own code called instead of writing it",
            "hidden": "code that hides what it calls (exec, a computed getattr, ...)",
            "by_hand": "not by hand: Python's encoder used"}


# -- reading cells ---------------------------------------------------------------------------

_TRANSFORMING = threading.Lock()


@functools.lru_cache(maxsize=1)
def _transformer():
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return None
    return TransformerManager()


# IPython finds magics by tokenizing the cell, and Python 3.12 before 3.12.4 gives every
# token its own copy of its line (CPython gh-119118): a line of n characters and n tokens
# costs n*n bytes. A grader on such a Python reading `x = ----...1` (200,000 signs) grew
# past 20 GB. So a cell whose lines could cost more than this is read line by line instead.
TOKENIZE_BUDGET = 2 * 10**8


def _cheap_to_tokenize(source: str) -> bool:
    """Whether tokenizing `source` stays within `TOKENIZE_BUDGET` bytes on any Python."""
    return sum(len(line) ** 2 for line in source.splitlines()) <= TOKENIZE_BUDGET


def python_source(source: str) -> str:
    """A cell as the kernel runs it: IPython's magics and shell escapes turned into calls
    (`%timeit f()` -> `get_ipython().run_line_magic('timeit', 'f()')`). Line numbers stay.
    A cell too costly to tokenize (see `TOKENIZE_BUDGET`) is read line by line
    (`_line_by_line`)."""
    manager = _transformer()
    if manager is not None and _cheap_to_tokenize(source):
        try:
            with _TRANSFORMING:                 # one transformer, shared by the grader's threads
                return manager.transform_cell(source)
        except Exception:
            pass
    return _line_by_line(source)


def _line_by_line(source: str) -> str:
    """IPython's escapes found without tokenizing: a line that starts with `%name` or `!`
    becomes the call IPython makes of it (so `%time merge = ...` still binds `merge` where
    the rules see it), a `%%` line `pass` (the cell's body stays as Python)."""
    lines = []
    for line in source.splitlines():
        body = line.lstrip()
        indent = line[:len(line) - len(body)]
        if body.startswith("%%"):
            lines.append(indent + "pass")
        elif body.startswith("%"):
            name, _, rest = body[1:].partition(" ")
            lines.append(f"{indent}get_ipython().run_line_magic({name!r}, {rest.strip()!r})")
        elif body.startswith("!"):
            lines.append(f"{indent}get_ipython().system({body[1:]!r})")
        else:
            lines.append(line)
    return "\n".join(lines)


@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> ast.Module | None:
    """A cell's statements, the code of a %%time, %timeit or %%capture at its top level
    read in its place (what it defines is defined there)."""
    try:
        tree = ast.parse(python_source(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = []
    for statement in tree.body:
        inner = _magic_code(statement)
        body += inner if inner is not None else [statement]
    tree.body = body
    return tree


def _magic_code(statement) -> list[ast.stmt] | None:
    """The statements of `get_ipython().run_cell_magic('time', '', body)` (or of a line
    magic whose argument is code), placed at the lines they have in the cell; else None."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("run_cell_magic", "run_line_magic")
            and isinstance(call.func.value, ast.Call)
            and isinstance(call.func.value.func, ast.Name)
            and call.func.value.func.id == "get_ipython"
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)
            and call.args and call.args[0].value in CODE_MAGICS):
        return None
    cell = call.func.attr == "run_cell_magic"
    text = call.args[-1].value if cell else _strip_options(call.args[1].value)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if hasattr(node, "lineno"):
            node.lineno = node.lineno + statement.lineno if cell else statement.lineno
            node.end_lineno = node.lineno
    return tree.body


# -- what a name means -----------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def canonical(name: str) -> tuple[str, bool]:
    """(a course name as defined, whether it is code): `bpe_course.merge` ->
    (`bpe_course.pairs.merge`, True), an old module name -> today's; a string, number or
    table such as `bpe_course.GPT4_SPLIT_PATTERN` is data, not code (False). A name the
    course does not have stays as it is, as code."""
    name = current_name(name)
    if not is_course(name):
        return name, True
    parts = name.split(".")
    obj, found = None, 0
    for k in range(len(parts), 0, -1):                 # the longest importable module
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except Exception:
            continue
        found = k
        break
    if obj is None:
        return name, True
    where = obj.__name__
    for k in range(found, len(parts)):
        try:
            obj = getattr(obj, parts[k])
        except Exception:
            return ".".join([where, *parts[k:]]), True
        if isinstance(obj, type(sys)):
            where = obj.__name__
        elif isinstance(getattr(obj, "__module__", None), str) and isinstance(
                getattr(obj, "__qualname__", None), str):
            where = f"{obj.__module__}.{obj.__qualname__}"
        else:
            where = f"{where}.{parts[k]}"
    code = isinstance(obj, type(sys)) or callable(obj) or isinstance(
        obj, (property, staticmethod, classmethod))
    return where, code


@functools.lru_cache(maxsize=None)
def known_module(top: str) -> bool:
    """Is `top` a module of Python's, of the course's environment, or the course? (Never
    the notebook's own folder: a module the notebook wrote is code no one has read.)"""
    if top in sys.builtin_module_names or top in getattr(sys, "stdlib_module_names", ()):
        return True
    if top == COURSE or top in MOVED:
        return True
    here = os.getcwd()
    path = [p for p in sys.path if p and os.path.abspath(p) != here]
    try:
        return importlib.machinery.PathFinder.find_spec(top, path) is not None
    except (ImportError, ValueError):
        return False


def matches(name: str, entries) -> bool:
    return any(name == e or name.startswith(e + ".") for e in entries)


def is_course(name: str) -> bool:
    return name == COURSE or name.startswith(COURSE + ".")


# -- one unit of code: a top-level statement of a cell ---------------------------------------

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _walk_outside_definitions(node):
    """Every node of a statement, not entering the bodies of the functions, classes and
    lambdas inside it (their names are their own)."""
    stack = [node]
    while stack:
        sub = stack.pop()
        yield sub
        if sub is not node and isinstance(sub, (*DEFINITIONS, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(sub))


def _dotted(expr) -> str | None:
    """The expression a.b.c as "a.b.c" (a name and attributes), getattr(a, "b") as "a.b";
    else None."""
    parts = []
    while True:
        if isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
              and expr.func.id == "getattr" and len(expr.args) == 2
              and isinstance(expr.args[1], ast.Constant) and isinstance(expr.args[1].value, str)):
            parts.append(expr.args[1].value)
            expr = expr.args[0]
        elif isinstance(expr, ast.Name):
            parts.append(expr.id)
            return ".".join(reversed(parts))
        else:
            return None


def _names_and_aliases(statements) -> tuple[set[str], dict[str, tuple[str, bool]]]:
    """(names bound, {name: (dotted name, absolute?)}) by `statements`, not looking inside
    the functions and classes they define. An import binds an absolute name (`import a.b
    as c`: c -> a.b); `x = a.b` binds x to a.b read in the namespace where it runs."""
    names: set[str] = set()
    aliases: dict[str, tuple[str, bool]] = {}
    for statement in statements:
        for sub in _walk_outside_definitions(statement):
            if isinstance(sub, ast.Import):
                for a in sub.names:
                    name = a.asname or a.name.split(".")[0]
                    aliases[name] = (a.name if a.asname else name, True)
            elif isinstance(sub, ast.ImportFrom):
                for a in sub.names:
                    if a.name != "*" and sub.level == 0 and sub.module:
                        aliases[a.asname or a.name] = (f"{sub.module}.{a.name}", True)
                    elif a.name != "*":
                        names.add(a.asname or a.name)
            elif isinstance(sub, DEFINITIONS):
                names.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                names.add(sub.id)
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(
                    sub.targets[0], ast.Name) and _dotted(sub.value):
                aliases[sub.targets[0].id] = (_dotted(sub.value), False)
    for name in aliases:
        names.discard(name)
    return names, aliases


class Unit:
    """A top-level statement of a cell: the names it binds, and the aliases among them."""

    def __init__(self, cell: int, order: int, node: ast.stmt):
        self.cell, self.order, self.node = cell, order, node
        self.is_definition = isinstance(node, DEFINITIONS)
        if self.is_definition:
            self.names, self.aliases = {node.name}, {}
        else:
            self.names, self.aliases = _names_and_aliases([node])
        self.binds = self.names | set(self.aliases)

    @property
    def position(self) -> tuple[int, int]:
        return self.cell, self.order


@dataclass(frozen=True)
class Use:
    # "name", "assigned" or "membership" (a dotted name read, assigned to, or asked
    # `in`), "attribute", "call_encoding" (bytes(x, encoding)), "hidden"
    kind: str
    name: str
    line: int


# -- what a piece of code uses ----------------------------------------------------------------

class _Uses(ast.NodeVisitor):
    """What one statement uses: names (global ones kept apart, to be resolved in the
    notebook), attributes, builtins called with an encoding, constructs that hide what they
    call. Function bodies keep their own names (parameters, what they assign or import)."""

    def __init__(self):
        self.uses: list[Use] = []
        self.loaded: list[tuple[str, str, int, str]] = []    # (kind, name, line, attributes)
        self.scopes: list[tuple[set[str], dict[str, tuple[str, bool]]]] = []
        self.bases: list[list[str]] = []          # the classes being defined: their bases

    def _function(self, node, args, body):
        for sub in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.visit(sub)
        names, aliases = _names_and_aliases(body)
        names |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        names |= {a.arg for a in (args.vararg, args.kwarg) if a}
        self.scopes.append((names, aliases))
        for statement in body:
            self.visit(statement)
        self.scopes.pop()

    def visit_FunctionDef(self, node):
        for sub in [*node.decorator_list, *([node.returns] if node.returns else [])]:
            self.visit(sub)
        self._function(node, node.args, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._function(node, node.args, [ast.Expr(node.body)])

    def _comprehension(self, node, parts):
        names = {sub.id for g in node.generators for sub in ast.walk(g.target)
                 if isinstance(sub, ast.Name)}
        self.visit(node.generators[0].iter)            # evaluated outside, as Python does
        self.scopes.append((names, {}))
        for g in node.generators:
            for sub in [*([g.iter] if g is not node.generators[0] else []), *g.ifs]:
                self.visit(sub)
        for part in parts:
            self.visit(part)
        self.scopes.pop()

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_ClassDef(self, node):
        for sub in [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]:
            self.visit(sub)
        self.bases.append([d for d in map(_dotted, node.bases) if d])
        for statement in node.body:
            self.visit(statement)
        self.bases.pop()

    def _attributes(self, attributes: str, line: int) -> None:
        for attr in filter(None, attributes.split(".")):
            self.uses.append(Use("attribute", attr, line))
            if attr in HIDING_ATTRIBUTES:
                self.uses.append(Use("hidden", f"the attribute {attr}", line))

    def _load(self, dotted: str, line: int, kind: str = "name", depth: int = 0) -> None:
        head, _, rest = dotted.partition(".")
        for names, aliases in reversed(self.scopes):
            if head in aliases and depth < 10:
                target, absolute = aliases[head]
                full = target + ("." + rest if rest else "")
                if absolute:
                    self.uses.append(Use(kind, full, line))
                    self._attributes(rest, line)
                else:
                    self._load(full, line, kind, depth + 1)
                return
            if head in names:
                self._attributes(rest, line)
                return
        self.loaded.append((kind, head, line, rest))
        self._attributes(rest, line)

    def visit_Compare(self, node):
        """`"google.colab" in sys.modules` only asks; it calls nothing."""
        self.visit(node.left)
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and _dotted(right) is not None:
                self._load(_dotted(right), node.lineno, "membership")
            else:
                self.visit(right)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self._load(node.id, node.lineno)
            if node.id in ATTRIBUTE_CALLS:         # getattr passed on, to be called unseen
                self.uses.append(Use("hidden", f"{node.id} passed as a value", node.lineno))

    def visit_Attribute(self, node):
        dotted = _dotted(node)
        value = node.value
        if (dotted is None and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "super"):
            # super().m, super(C, self).m: the method m of the bases (of C's bases)
            first = _dotted(value.args[0]) if value.args else None
            for base in ([first] if first else self.bases[-1] if self.bases else []):
                self._load(f"{base}.{node.attr}", node.lineno)
        if dotted is None:
            self._attributes(node.attr, node.lineno)
            self.visit(node.value)
        elif isinstance(node.ctx, ast.Load):
            self._load(dotted, node.lineno)
        else:                                  # x.y = ... or del x.y: x is read
            self._load(dotted, node.lineno, "assigned")

    def visit_Call(self, node):
        func, line = node.func, node.lineno
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name) and func.value.func.id == "get_ipython"):
            self._magic(node, func.attr, line)
            return
        if isinstance(func, ast.Name) and func.id in ATTRIBUTE_CALLS and len(node.args) >= 2:
            name = node.args[ATTRIBUTE_CALLS[func.id]]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.uses.append(Use("hidden", f"{func.id}() with a computed name", line))
            elif func.id == "getattr" and _dotted(node) is not None:
                self._load(_dotted(node), line)
                for sub in node.args[2:]:
                    self.visit(sub)
                return
            else:
                self._attributes(name.value, line)
            for sub in [*node.args, *(k.value for k in node.keywords)]:
                self.visit(sub)
            return
        if isinstance(func, ast.Name) and func.id in ("bytes", "bytearray") and (
                len(node.args) >= 2 or any(k.arg in ("encoding", "errors")
                                           for k in node.keywords)):
            self.uses.append(Use("call_encoding", func.id, line))
        self.generic_visit(node)

    def _magic(self, node, method: str, line: int) -> None:
        """`get_ipython().run_line_magic(name, line)` and friends, as IPython writes magics."""
        args = node.args
        name = args[0].value if args and isinstance(args[0], ast.Constant) else None
        if method in ("system", "getoutput"):            # !shell: no Python of its own
            return
        if method in ("run_line_magic", "run_cell_magic") and isinstance(name, str):
            if name in PLAIN_MAGICS:
                return
            texts = [a.value for a in args[1:]
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name in CODE_MAGICS and len(texts) == len(args) - 1:
                for text in texts:
                    code = _parse(text) or _parse(_strip_options(text))
                    for statement in (code.body if code is not None else []):
                        for sub in ast.walk(statement):
                            if hasattr(sub, "lineno"):
                                sub.lineno = line
                        self.visit(statement)
                return
            self.uses.append(Use("hidden", f"the magic %{name}", line))
            return
        self.uses.append(Use("hidden", f"get_ipython().{method}", line))


def _strip_options(text: str) -> str:
    """`-n 10 -r 3 f(x)` -> `f(x)`: a %timeit line without its options."""
    words = text.split()
    while words and words[0].startswith("-"):
        takes = words[0] in ("-n", "-r", "-p", "-o", "-T", "-D") and len(words) > 1
        words = words[2:] if takes else words[1:]
    return " ".join(words)


class _Final:
    """Where a function's names are looked up: after the notebook's last cell."""
    is_definition = True


FINAL = _Final()


# -- the notebook ------------------------------------------------------------------------------

class Notebook:
    """The notebook's code, statement by statement, and what each statement's names mean."""

    def __init__(self, cells: list[tuple[int, str]]):
        self.units: list[Unit] = []
        for cell, source in cells:
            tree = _parse(source)
            for order, node in enumerate(tree.body if tree is not None else []):
                self.units.append(Unit(cell, order, node))
        self.by_name: dict[str, list[Unit]] = {}
        for unit in self.units:
            for name in unit.binds:
                self.by_name.setdefault(name, []).append(unit)
        self._uses: dict[int, _Uses] = {}

    def binding(self, name: str, before: tuple[int, int] | None = None) -> Unit | None:
        """The statement that binds `name` last (before `before`, when given)."""
        found = None
        for unit in self.by_name.get(name, ()):
            if before is None or unit.position < before:
                found = unit
        return found

    def uses(self, unit: Unit) -> _Uses:
        if id(unit) not in self._uses:
            visitor = _Uses()
            visitor.visit(unit.node)
            self._uses[id(unit)] = visitor
        return self._uses[id(unit)]

    def resolve(self, unit: Unit, name: str, rest: str) -> tuple[str | None, list[Unit]]:
        """(the dotted name a global `name.rest` loaded in `unit` means, or None for the
        notebook's own object; the statements binding it on the way). Names in functions
        mean their last binding; at cell level, the binding in force there."""
        before = None if unit.is_definition else unit.position
        binders: list[Unit] = []
        for _ in range(20):
            binder = self.binding(name, before)
            if binder is None:
                if hasattr(builtins, name):
                    return "builtins." + ".".join(filter(None, [name, rest])), binders
                return None, binders
            binders.append(binder)
            if name not in binder.aliases:
                return None, binders
            target, absolute = binder.aliases[name]
            full = ".".join(filter(None, [target, rest]))
            if absolute:
                return full, binders
            name, _, rest = full.partition(".")
            before = binder.position if not binder.is_definition else None
        return None, binders

    def scope(self, target: str) -> list[Unit]:
        """The statements an exercise's answer is made of (see the module's docstring)."""
        start = self.binding(target)
        scope: list[Unit] = []
        todo = [start] if start is not None else []
        while todo:
            unit = todo.pop()
            if unit in scope:
                continue
            scope.append(unit)
            for kind, name, line, rest in self.uses(unit).loaded:
                todo += [b for b in self.resolve(unit, name, rest)[1] if b not in scope]
        return sorted(scope, key=lambda u: u.position)

    def resolved(self, unit: Unit) -> list[Use]:
        """Every use in `unit`, its global names resolved to dotted names where they can be."""
        visitor = self.uses(unit)
        out = list(visitor.uses)
        for kind, name, line, rest in visitor.loaded:
            dotted, _ = self.resolve(unit, name, rest)
            if dotted is not None:
                out.append(Use(kind, dotted, line))
        return out

    def imports(self) -> list[tuple[Unit, str, int]]:
        """(statement, module, line) for every absolute import anywhere in the notebook."""
        found = []
        for unit in self.units:
            for sub in ast.walk(unit.node):
                if isinstance(sub, ast.Import):
                    found += [(unit, a.name, sub.lineno) for a in sub.names]
                elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module:
                    found.append((unit, sub.module, sub.lineno))
        return found


# -- the rules -----------------------------------------------------------------------------

def _hides(use: Use) -> str | None:
    if use.kind == "hidden":
        return use.name
    if use.kind == "name":
        name = use.name
        if name.startswith("builtins."):
            short = name[len("builtins."):].split(".")[0]
            return f"{short}()" if short in HIDING_CALLS else None
        if matches(name, HIDING_NAMES) and not matches(name, ASKING):
            return name
    if use.kind == "assigned" and is_course(use.name):
        return f"an assignment to the course's {use.name}"
    return None


def _by_hand(use: Use, forbidden) -> str | None:
    for entry in forbidden:
        if is_course(entry):
            continue
        if entry.startswith(".") and use.kind == "attribute" and use.name == entry[1:]:
            return f"{entry}()"
        if entry.endswith("(str, encoding)") and use.kind == "call_encoding" \
                and use.name == entry.split("(")[0]:
            return f"{use.name}(..., encoding)"
        if use.kind == "name" and "(" not in entry and not entry.startswith(".") \
                and matches(use.name, [entry]):
            return use.name
    return None


def breaches(cells: list[tuple[int, str]], worksheet) -> dict[str, list[Breach]]:
    """For each exercise of `worksheet` (a `Worksheet`), the rules its answer breaks, read
    from `cells`, the notebook's code cells as (index in the notebook from 0, source)."""
    from ..worksheets import CHECKERS
    notebook = Notebook(cells)
    everywhere = [current_name(h) for c in worksheet.checkers for h in c.helpers]
    # Hiding at cell level could define or change anything: every exercise's concern.
    loose: list[Breach] = []
    for unit in notebook.units:
        if unit.is_definition:
            continue
        for use in notebook.resolved(unit):
            hidden = _hides(use)
            if hidden:
                loose.append(Breach("hidden", hidden, unit.cell + 1, use.line))
    for unit, module, line in notebook.imports():
        top = module.split(".")[0]
        if not known_module(top):
            loose.append(Breach("hidden", f"import {module} (a module the grader cannot "
                                          f"read)", unit.cell + 1, line))
    found: dict[str, list[Breach]] = {}
    for exercise in worksheet.points:
        checker = CHECKERS[exercise]
        allowed, denied = (list(map(current_name, names)) for names in checker.course_rules())
        out = []
        bound = notebook.binding(checker.target)
        meaning = notebook.resolve(FINAL, checker.target, "")[0] if bound else None
        if meaning and is_course(meaning) and not bound.is_definition:
            # the answer's own name bound to course code: `from bpe_course.pairs import merge`
            name = canonical(meaning)[0]
            if not matches(name, allowed) or matches(name, denied):
                out.append(Breach("course", name, bound.cell + 1, bound.node.lineno))
        for unit in notebook.scope(checker.target):
            level_allowed = allowed if unit.is_definition else [*allowed, *everywhere]
            for use in notebook.resolved(unit):
                where = (unit.cell + 1, use.line)
                hidden = _hides(use)
                if hidden and unit.is_definition:
                    out.append(Breach("hidden", hidden, *where))
                    continue
                by_hand = _by_hand(use, checker.forbidden)
                if by_hand:
                    out.append(Breach("by_hand", by_hand, *where))
                    continue
                if use.kind == "name" and is_course(use.name):
                    name, code = canonical(use.name)
                    if not code or name == COURSE or matches(use.name, ("bpe_course.checks",)):
                        continue                  # data, the package, the check cells' checks
                    if not matches(name, level_allowed) or matches(name, denied):
                        out.append(Breach("course", name, *where))
        out += loose
        found[exercise] = sorted(set(out), key=lambda b: (b.cell, b.lineno, b.kind, b.name))
    return found


def cap(found: list[Breach]) -> tuple[float, str] | None:
    """(the most the exercise keeps, the first breach's line), or None without breaches."""
    from ..worksheets.common import BREAKS
    if not found:
        return None
    worst = min(found, key=lambda b: (BREAKS[CAPS[b.kind]][0], b.cell, b.lineno))
    return BREAKS[CAPS[worst.kind]][0], worst.text()


def enforce(result: dict, found: list[Breach]) -> dict:
    """An exercise's result (`grading.scoring.score_exercise`'s) with the rules its answer
    breaks applied: its score capped by the worst breach's kind (`CAPS`), and its message
    led by that breach, one line naming the call and where it is."""
    from ..worksheets.common import BREAKS
    limit = cap(found)
    if limit is None or result.get("message", "").startswith("⏳"):   # not attempted: moot
        return result
    most, line = limit
    points = result["max_score"]
    score = min(result["score"], round(points * most, 2))
    worst = min(found, key=lambda b: (BREAKS[CAPS[b.kind]][0], b.cell, b.lineno))
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    message = (f"❌ {result['id']}: {line}{more}\npoints: {score:g} of {points:g}, at most "
               f"{most:.0%} since the answer {BREAKS[CAPS[worst.kind]][1]}")
    # The kind of mistake for the class's page (`grading.class_mistakes`), first.
    mistake = {"kind": f"rule_{worst.kind}", "label": MISTAKES[worst.kind], "cases": 0,
               "says": line, "hint": ""}
    earlier = result.get("mistakes") if isinstance(result.get("mistakes"), list) else []
    return dict(result, score=score, message=message + "\n" + result.get("message", ""),
                mistakes=[mistake, *earlier])


def missing_course_modules(cells: list[tuple[int, str]]) -> list[str]:
    """The course modules the notebook imports that this release has under no name, old or
    new (a worksheet from a release that had them)."""
    missing = []
    for unit, module, line in Notebook(cells).imports():
        name = current_name(module)
        if is_course(name) and name not in missing:
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                missing.append(module)
    return missing


def _course_name(value) -> str | None:
    """The dotted name of a course module, function or class, or None."""
    if isinstance(value, type(sys)):
        name = value.__name__
    else:
        module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
        if not (isinstance(module, str) and isinstance(qualname, str)) or "<" in qualname:
            return None
        name = f"{module}.{qualname}"
    return name if is_course(name) else None


def runtime_aliases(target) -> str:
    """Statements binding, as in the notebook, the course objects `target`'s code reaches
    by a global or enclosing name at run time (`kept = bpe_course.merge` in an earlier
    cell): for a check cell, which may not see the cell that bound them."""
    import inspect
    import types
    functions = [target]
    if isinstance(target, type):
        functions = [getattr(v, "__func__", v) for v in vars(target).values()]
        functions += [part for v in vars(target).values() if isinstance(v, property)
                      for part in (v.fget, v.fset, v.fdel)]
    lines = []
    for function in functions:
        if not isinstance(function, types.FunctionType):
            continue
        try:
            reached = inspect.getclosurevars(function)
        except (TypeError, ValueError):
            continue
        for name, value in {**reached.globals, **reached.nonlocals}.items():
            dotted = _course_name(value)
            if dotted and name.isidentifier():
                lines.append(f"{name} = {dotted}")
    return "import bpe_course\n" + "\n".join(lines) if lines else ""


def in_kernel(exercise: str, target) -> tuple[list[Breach], str]:
    """For a check cell: the rules `target` (the learner's answer to `exercise`) breaks,
    and how to name where ("In [5]", or "the source of merge"). Read from the cells the
    kernel ran (IPython's history), else from `target`'s own source; in both, the course
    objects its code reaches by name at run time count (`runtime_aliases`). What the
    checker cannot read (a class defined where no source is kept) goes unchecked here; the
    grader reads the notebook itself."""
    import inspect

    from ..worksheets import WORKSHEETS
    sheet = next((w for w in WORKSHEETS.values() if exercise in w.points), None)
    if sheet is None:
        return [], "cell {}"
    shell = getattr(builtins, "get_ipython", lambda: None)()
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    cells: list[tuple[int, str]] = []
    if isinstance(history, list) and len(history) > 1:
        cells = [(k - 1, source) for k, source in enumerate(history)
                 if k and isinstance(source, str)]
        where = "In [{}]"
    else:
        try:
            cells = [(0, inspect.cleandoc("\n" + inspect.getsource(target)))]
        except (OSError, TypeError):
            return [], "cell {}"
        where = f"the source of {getattr(target, '__name__', exercise)}"
    aliases = runtime_aliases(target)
    last = max((index for index, _ in cells), default=0) + 1
    if aliases:
        cells.append((last, aliases))
    found = breaches(cells, sheet).get(exercise, [])
    return [b for b in found if b.cell != last + 1], where      # none in the aliases
