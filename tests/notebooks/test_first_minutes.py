"""A learner's first minutes: a plain install runs every chapter, `make lab` installs what a
learner needs and no more, and opening and saving a notebook leaves it as it was."""

import ast
import importlib.metadata as md
import re
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from bpe_course.classroom.authoring.course import KERNELSPEC, setup_source

ROOT = Path(__file__).resolve().parents[2]
RUN = sorted(p for folder in ("notebooks", "solutions") for p in (ROOT / folder).glob("*.ipynb"))
ALL = RUN + sorted((ROOT / "exercises").glob("*.ipynb"))


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


def name_of(requirement: str) -> str:
    return re.split(r"[ ;<>=!~\[(@]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def installed_by_plain_install() -> set[str]:
    """Distributions that `pip install bpe-course` brings: its requirements, and theirs."""
    seen, todo = set(), ["bpe-course"]
    while todo:
        dist = todo.pop()
        if dist in seen:
            continue
        seen.add(dist)
        try:
            requires = md.requires(dist) or []
        except md.PackageNotFoundError:
            continue
        todo += [name_of(r) for r in requires if "extra ==" not in r]
    return seen


def required_imports(nb) -> set[str]:
    """Top-level modules a notebook imports outside `try: ... except ImportError`."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(TransformerManager().transform_cell(cell.source))
        optional = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try)
                    for n in ast.walk(t) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def top_level_providers() -> dict[str, list[str]]:
    """Top-level module -> the distributions that install it. `md.packages_distributions()`
    on Python 3.10 reads only `top_level.txt`, which wheels built by meson-python (numpy,
    matplotlib) do not have, so the modules are also read off each distribution's files."""
    found: dict[str, list[str]] = {}
    for dist in md.distributions():
        tops = set((dist.read_text("top_level.txt") or "").split())
        tops |= {f.parts[0] if len(f.parts) > 1 else f.name.split(".")[0]
                 for f in dist.files or [] if f.suffix in (".py", ".so", ".pyd")
                 and not f.parts[0].endswith((".dist-info", ".egg-info", ".data"))}
        for top in tops:
            found.setdefault(top, []).append(dist.metadata["Name"])
    return found


@pytest.mark.parametrize("path", RUN, ids=ids(RUN))
def test_a_plain_install_brings_every_import_of_the_notebook(path):
    # the peers of the "bench" extra are timed where installed and skipped where not (07)
    peers = {name_of(r) for r in md.requires("bpe-course") if 'extra == "bench"' in r}
    plain = installed_by_plain_install()
    providers = top_level_providers()
    missing = [module for module in sorted(required_imports(nbformat.read(path, as_version=4)))
               if module not in sys.stdlib_module_names and module not in {"bpe_course", *peers}
               and not {name_of(d) for d in providers.get(module, [])} & plain]
    assert not missing, f"{missing}: only an extra installs them; make them dependencies"


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_opening_and_saving_a_notebook_changes_no_byte(path):
    """What Jupyter's server writes on save (nbformat, as stored) equals the file, and the
    stored kernelspec is the one the lab's kernel has, so JupyterLab finds nothing to set."""
    stored = path.read_text(encoding="utf-8")
    nb = nbformat.reads(stored, as_version=nbformat.NO_CONVERT)
    saved = nbformat.writes(nb, version=nbformat.NO_CONVERT)
    assert (saved if saved.endswith("\n") else saved + "\n") == stored
    assert (nb.nbformat, nb.nbformat_minor) == (nbformat.current_nbformat,
                                                nbformat.current_nbformat_minor)
    assert nb.metadata["kernelspec"] == KERNELSPEC
    assert "version" not in nb.metadata.get("language_info", {})


def test_make_lab_registers_the_kernel_the_notebooks_store():
    assert "$(BIN)/python tools/learner-lab/kernel.py install" in (ROOT / "Makefile").read_text()
    kernel = (ROOT / "tools" / "learner-lab" / "kernel.py").read_text()
    names = re.search(r'^NAME, DISPLAY_NAME = "(.*)", "(.*)"', kernel, re.M).groups()
    assert names == (KERNELSPEC["name"], KERNELSPEC["display_name"])


def test_make_lab_installs_the_learn_extra_and_make_test_the_dev_extra():
    makefile = (ROOT / "Makefile").read_text()
    venv_recipe = makefile.split("$(BIN)/activate: pyproject.toml")[1].split("\n\n")[0]
    assert 'pip install --quiet -e ".[learn]"' in venv_recipe
    assert re.search(r"^lab: venv$", makefile, re.M)
    assert re.search(r"^test: dev lint$", makefile, re.M) and re.search(r"^lint: dev$", makefile, re.M)
    assert "environment.yml" and "-e .[learn]" in (ROOT / "environment.yml").read_text()
    extras = md.metadata("bpe-course").get_all("Provides-Extra")
    assert {"learn", "dev"} <= set(extras)
    learn = [name_of(r) for r in md.requires("bpe-course") if 'extra == "learn"' in r]
    assert {"jupyterlab", "ipykernel"} <= set(learn)


def test_the_colab_setup_cell_says_no_restart_is_needed():
    assert 'print("bpe-course installed; no restart needed.")' in setup_source()
    # and only in Colab, right after the install, which happens only where the course is not
    # installed yet (a second chapter in the same runtime skips it and says so)
    lines = setup_source().splitlines()
    install = next(k for k, line in enumerate(lines) if line.startswith("    %pip install"))
    assert lines[install - 1] == 'if "google.colab" in sys.modules and find_spec("bpe_course") is None:'
    assert lines[install + 1] == '    print("bpe-course installed; no restart needed.")'
    assert lines[install + 2:] == ['elif "google.colab" in sys.modules:',
                                   '    print("bpe-course is already installed in this runtime.")']
