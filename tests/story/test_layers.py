"""The package reads as the course: layers that only import downwards, and one map.

The story is in layers, lowest first (`LAYERS`): the core chapters' flat
modules, in the order each builds on the last, then one folder per later part
of the course, then what sits around the story. A module may import modules of
its own layer (the core: only those above it) and of lower layers, never of a
higher one. The classroom (`bpe_course.classroom`) sits on top of everything
and nothing in the story imports it. Imports inside functions count too: a
lazy import is still a dependency.

Module length is a smell, never a rule: modules over `LONG` lines are reported
as a warning in the test summary, for a reader to look at, not to split.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bpe_course"
LONG = 400

# The story, lowest layer first. The core is ordered: each module may import only those
# before it. A folder is a layer whose modules may import each other (but not in a cycle).
CORE = ["_safe_path", "text", "pairs", "save_load", "dropout", "base", "basic", "patterns",
        "special", "pretokenize", "streaming", "regex_tokenizer"]
LAYERS = [
    ("core", [f"bpe_course.{m}" for m in CORE]),
    ("openai", "bpe_course.openai"),
    ("training", "bpe_course.training"),
    ("files", "bpe_course.files"),
    ("sentencepiece", "bpe_course.sentencepiece"),
    ("wordpiece", "bpe_course.wordpiece"),
    ("pipeline", "bpe_course.pipeline"),
    ("chat", "bpe_course.chat"),
    ("around the story", ["bpe_course.corpora", "bpe_course.viz", "bpe_course.explorer",
                          "bpe_course.cli", "bpe_course.__main__", "bpe_course"]),
    ("lab", "bpe_course.lab"),
    ("classroom", "bpe_course.classroom"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every bpe_course module that `path` imports, anywhere in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bpe_course")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("bpe_course"):
                continue
            folder = ROOT / target.replace(".", "/")
            for alias in node.names:           # `from . import runner` imports a module
                if (folder / f"{alias.name}.py").exists() or (folder / alias.name).is_dir():
                    found.add(f"{target}.{alias.name}")
                else:
                    found.add(target)
    found.discard(name)
    return found


# The sandbox's stand-ins for tiktoken are not part of the package's import graph: they
# are what `import tiktoken` finds inside the grader's sandbox.
MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "sandbox_shims" not in p.parts}
GRAPH = {name: imported_modules(path) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    """The index in LAYERS of a module (a folder's modules belong to the folder's layer)."""
    for i, (_, members) in enumerate(LAYERS):
        if isinstance(members, str):
            if module == members or module.startswith(members + "."):
                return i
        elif module in members:
            return i
    raise LookupError(module)


def test_every_module_has_a_layer():
    unplaced = []
    for name in MODULES:
        try:
            layer_of(name)
        except LookupError:
            unplaced.append(name)
    assert unplaced == [], "give each new module its place in LAYERS (and in the package map)"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_a_higher_layer(name):
    mine = layer_of(name)
    higher = sorted(m for m in GRAPH[name] if m != "bpe_course" and layer_of(m) > mine)
    if name == "bpe_course":    # its __getattr__: `from bpe_course import checks`, on demand
        higher = [m for m in higher if not m.startswith("bpe_course.classroom.")]
    assert higher == [], f"{name} ({LAYERS[mine][0]}) imports {higher}, from a higher layer"


@pytest.mark.parametrize("name", [f"bpe_course.{m}" for m in CORE])
def test_a_core_module_imports_only_core_modules_before_it(name):
    core = [f"bpe_course.{m}" for m in CORE]
    later = sorted(m for m in GRAPH[name] if m in core[core.index(name):])
    assert later == [], f"{name} imports {later}, which come after it in the core"


def test_only_the_top_imports_the_package_root():
    # `from bpe_course import X` inside the package would load every module; only the
    # classroom, on top of the story, may do that.
    offenders = [n for n, deps in GRAPH.items()
                 if "bpe_course" in deps and not n.startswith("bpe_course.classroom")]
    assert offenders == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, str] = {}

    def visit(node, stack):
        state[node] = "open"
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, stack + [dep])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_there_are_no_import_cycles():
    graph = {n: {d for d in deps if d in GRAPH and d != "bpe_course"} for n, deps in GRAPH.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_layer_rule_sees_an_upward_import(tmp_path):
    assert layer_of("bpe_course.openai.tokenizer") < layer_of("bpe_course.training.trainer")
    assert layer_of("bpe_course.classroom.anything") == len(LAYERS) - 1


def test_every_module_is_on_its_package_map():
    """The map lives in the docstrings: the package's names its core modules and its
    folders, and each folder's names its own modules."""
    import importlib
    missing = []
    for name in MODULES:
        if name == "bpe_course" or name.endswith("__main__") or ".classroom" in name:
            continue
        parent, _, leaf = name.rpartition(".")
        if leaf.startswith("_"):
            continue
        doc = importlib.import_module(parent).__doc__ or ""
        if f"`{leaf}`" not in doc and f"`{leaf}/`" not in doc:
            missing.append(name)
    assert missing == [], f"name these in their package's docstring: {missing}"


@pytest.mark.parametrize("folder", ["openai", "training", "files", "sentencepiece", "wordpiece",
                                    "pipeline", "chat"])
def test_each_part_says_what_it_teaches_and_which_chapters_use_it(folder):
    import importlib
    doc = importlib.import_module(f"bpe_course.{folder}").__doc__ or ""
    assert doc.strip() and "chapter" in doc.lower()
    assert f"`{folder}/`" in (importlib.import_module("bpe_course").__doc__ or "")


def test_long_modules_are_reported_not_refused():
    long = {n: MODULES[n].read_text(encoding="utf-8").count("\n") for n in MODULES}
    long = {n: lines for n, lines in long.items() if lines > LONG}
    if long:
        warnings.warn(f"modules over {LONG} lines, worth a look (one idea each?): "
                      + ", ".join(f"{n} ({k})" for n, k in sorted(long.items())), UserWarning)


def test_importing_the_package_loads_no_classroom_module():
    code = ("import sys, bpe_course; "
            "print(sorted(m for m in sys.modules if m.startswith('bpe_course.classroom')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == "[]"


def test_worksheets_import_the_checkers_from_the_package():
    import importlib

    from bpe_course import checks
    assert checks.__name__.startswith("bpe_course.classroom.")
    assert checks is importlib.import_module(checks.__name__)
