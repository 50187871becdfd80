"""The package's two layers stay apart, and the story reads top to bottom.

The tokenizer story is the modules of `bpe_course` itself, in the order of
`STORY` (chapter order): a module may import only modules above it. The
classroom (`bpe_course.classroom`) may import the story, never the reverse.
Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "bpe_course"

# The story, lowest first; keep it in step with the package docstring and the README.
STORY = ["_safe_path", "text", "pairs", "model_file", "base", "basic", "patterns", "special", "pretokenize",
         "streaming", "vocab_ids", "regex_tokenizer", "files", "byte_map", "hf_files", "encodings",
         "tiktoken_api", "gpt4", "gpt2", "tiktoken_cache", "corpus_cuts", "chunks", "train_fast",
         "corpora", "viz", "explorer", "spm_model", "spm_decode", "sentencepiece_bpe", "codepoint_bpe",
         "id_files", "cli_errors", "cli", "__main__"]
MAX_LINES = 250


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
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
            folder = PACKAGE.parent / target.replace(".", "/")
            for alias in node.names:           # `from . import runner` imports a module
                if (folder / f"{alias.name}.py").exists() or (folder / alias.name).is_dir():
                    found.add(f"{target}.{alias.name}")
                else:
                    found.add(target)
    found.discard(name)
    return found


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: imported_modules(path) for name, path in MODULES.items()}


def test_every_story_module_has_its_place_in_the_order():
    story = {n.split(".", 1)[1] for n in MODULES if n.count(".") == 1 and ".classroom" not in n}
    assert story - set(STORY) == set(), "add new story modules to STORY (and the docstrings)"
    assert set(STORY) - story == set()


@pytest.mark.parametrize("name", STORY)
def test_a_story_module_imports_only_modules_above_it(name):
    allowed = {f"bpe_course.{m}" for m in STORY[:STORY.index(name)]} | {"bpe_course"}
    imports = GRAPH[f"bpe_course.{name}"]
    assert not {m for m in imports if m.startswith("bpe_course.classroom")}, \
        f"{name} imports the classroom"
    assert imports <= allowed, f"{name} imports {sorted(imports - allowed)}, which come after it"


def test_no_module_imports_the_package_root_except_through_it():
    # `from bpe_course import X` inside the package would load every module: only the
    # classroom, which sits on top of the story, and doctests may do that.
    offenders = [n for n, deps in GRAPH.items()
                 if "bpe_course" in deps and not n.startswith("bpe_course.classroom")]
    assert offenders == []


def test_there_are_no_import_cycles():
    graph = {n: {d for d in deps if d in GRAPH and d != "bpe_course"} for n, deps in GRAPH.items()}
    state: dict[str, str] = {}

    def visit(node, stack):
        state[node] = "open"
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                cycle = stack[stack.index(dep):] + [dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, stack + [dep])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_importing_the_package_loads_no_classroom_module():
    code = ("import sys, bpe_course; "
            "print(sorted(m for m in sys.modules if m.startswith('bpe_course.classroom')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent).stdout.strip()
    assert out == "[]"


def test_worksheets_import_the_checkers_from_the_package():
    from bpe_course import checks
    from bpe_course.classroom import checks as classroom_checks
    assert checks is classroom_checks


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_short(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines; split it by idea"
