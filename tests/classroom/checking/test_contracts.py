"""What the classroom's code says about itself is true.

A function typed `-> None` returns nothing (a caller that uses what it returns
reads a contract that the annotation denies), and a name a docstring cites in
backticks exists, so that a move or a rename cannot leave a docstring pointing
at code that is gone. Module docstrings are read in full; a function's or a
class's docstring may name its parameters and the learner's code, so there
only dotted names (`source_rules.breaches`) are looked up.
"""

import ast
import builtins
import dataclasses
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import bpe_course

PACKAGE = Path(bpe_course.__file__).resolve().parent
CLASSROOM = PACKAGE / "classroom"
SOURCES = sorted(CLASSROOM.rglob("*.py"))
IDS = [p.relative_to(PACKAGE.parent).as_posix() for p in SOURCES]
CITED = re.compile(r"`([A-Za-z_][\w.]*)`")
FILES = ("json", "py", "ipynb", "model", "csv", "txt", "md", "cell")
# Words in backticks that are not Python names, and what they are instead.
NOT_NAMES = {"bwrap": "bubblewrap's program", "error": "a key of the grader's report",
             "grade_id": "nbgrader's cell metadata",
             # Gradescope's autograder (classroom/gradescope/): its script and test variables,
             # the fields of its results.json, and the course's command-line words
             "run_autograder": "Gradescope's script", "AUTOGRADER_ROOT": "an environment variable",
             "AUTOGRADER_PYTHON": "an environment variable", "score": "a results.json field",
             "max_score": "a results.json field", "status": "a results.json field",
             "output": "a results.json field", "visibility": "a results.json field",
             "output_format": "a results.json field", "extra_data": "a results.json field",
             "after_published": "a results.json visibility",
             "hidden_details": "the autograder.json setting of --hidden-details",
             "grade": "the grade command", "auto": "a value of --sandbox",
             "wheel": "the built package file",
             "mistakes": "a key of the grader's report", "says": "a key of the grader's report",
             "word_ids": "transformers' method (worksheet 14's subject)"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict:
    found = {"bpe_course": bpe_course}
    for info in pkgutil.walk_packages(bpe_course.__path__, "bpe_course."):
        if not info.name.endswith("__main__"):            # running it would start the CLI
            found[info.name] = importlib.import_module(info.name)
    return found


def classroom_names() -> dict:
    """Every name defined in the classroom, and the fields of its records (as None)."""
    names = {}
    for name, module in MODULES.items():
        if name.startswith("bpe_course.classroom"):
            for key, value in vars(module).items():
                names.setdefault(key, value)
                if dataclasses.is_dataclass(value) and isinstance(value, type):
                    names.update({f.name: None for f in dataclasses.fields(value)})
    return names


MODULES = modules()
EVERYWHERE = classroom_names()


def a_module(parts: list[str]):
    """(module, the parts left) for the longest leading parts naming a module: in full, by
    the end of its name (`runner`, `checking.runner`) or an importable one (`os`)."""
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        for full, module in MODULES.items():
            if full == name or full.endswith("." + name):
                return module, parts[k:]
        if k == 1 and importlib.util.find_spec(name) is not None:
            return importlib.import_module(name), parts[1:]
        if (CLASSROOM / "grading" / name).is_dir():           # a folder without __init__
            return None, parts[k:]
    return None, None


def exists(word: str, scopes: list[dict]) -> bool:
    parts = word.split(".")
    if re.fullmatch(r"__\w+__", word) or word in NOT_NAMES or (len(parts) > 1 and
                                                                parts[-1] in FILES):
        return True
    obj, rest = a_module(parts)
    if rest is None:
        scope = next((s for s in scopes if parts[0] in s), None)
        if scope is None:
            return False
        obj, rest = scope[parts[0]], parts[1:]
    for part in rest:
        if obj is None:            # a parameter or a field: what it holds is not known here
            return True
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def citations(path: Path):
    """(cited word, where, scopes to look it up in) for every backticked name in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if "sandbox_shims" in path.parts:      # never imported outside the sandbox
        module = {n.name: None for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                                    ast.ClassDef))}
    else:
        module = vars(importlib.import_module(module_name(path)))
    # the package loads its public names on first use: ask for each of them
    public = {**{name: getattr(bpe_course, name) for name in bpe_course.__all__}, **vars(bpe_course)}
    common = [module, EVERYWHERE, public, vars(builtins)]
    for word in CITED.findall(ast.get_docstring(tree, clean=False) or ""):
        yield word, "the module's docstring", common
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local = {}
            if isinstance(node, ast.ClassDef) and isinstance(module.get(node.name), type):
                cls = module[node.name]
                local = {**{k: None for k in getattr(cls, "__annotations__", {})}, **vars(cls)}
            elif not isinstance(node, ast.ClassDef):
                args = node.args
                local = {a.arg: None for a in [*args.posonlyargs, *args.args,
                                               *args.kwonlyargs, args.vararg, args.kwarg] if a}
            for word in CITED.findall(ast.get_docstring(node, clean=False) or ""):
                if "." in word:
                    yield word, f"{node.name}'s docstring", [local, *common]


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_docstrings_cite_names_that_exist(path):
    missing = [f"`{word}` in {where}" for word, where, scopes in citations(path)
               if not exists(word, scopes)]
    assert not missing, f"{path.name} cites names that do not exist: {missing}"


def values_returned(function: ast.FunctionDef) -> list[int]:
    """The lines where `function` itself (not a function or class inside it) returns a value."""
    lines, todo = [], list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            lines.append(node.lineno)
        todo.extend(ast.iter_child_nodes(node))
    return lines


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_a_function_typed_to_return_none_returns_nothing(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    wrong = [f"{node.name} (line {line})" for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and isinstance(node.returns, ast.Constant) and node.returns.value is None
             for line in values_returned(node)]
    assert not wrong, f"{path.name}: typed `-> None`, but returns a value: {wrong}"
