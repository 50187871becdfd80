"""Colab, as Colab runs it: every chapter and worksheet, installed by its own setup cell.

A learner who clicks a notebook's *Open in Colab* badge gets a fresh runtime that already has
some packages (Python 3.12, tiktoken, regex, matplotlib, numpy, ipywidgets 7, tqdm,
transformers, and Colab's old IPython and ipykernel) and none of the course's others. The
notebook's first code cell installs the course with
`%pip install "bpe-course @ git+https://github.com/..."`, and every later cell must then run,
in the same kernel, with no restart. This test builds that:

1. a fresh virtual environment made with Python 3.12, with Colab's preinstalled packages at the
   versions Colab's runtime shipped in 2025 (`COLAB_PREINSTALLED`) and nothing of the course;
2. a package `google.colab` in it, imported when the kernel starts (an IPython startup file),
   so that `"google.colab" in sys.modules` holds from the first cell, as in Colab;
3. a clone of this repository's committed HEAD, with the course's branch pointing at HEAD;
4. every chapter (`notebooks/`) and worksheet (`exercises/`) of that commit, each alone in its
   own folder as Colab's /content, its setup cell exactly as written except that the
   repository's URL is the clone's `git+file://` URL;
5. each run in a kernel of that environment: chapters with nbval (their stored outputs must
   come back, sanitized as the suite sanitizes them), worksheets with nbclient (they must run to
   their end with no error, every check cell saying "not attempted yet", as in
   tests/classroom/authoring/test_exercises.py).

The first chapter runs alone: its setup cell is the one that installs the course (and its
dependencies from PyPI) into the fresh environment; the test then checks that the course was
installed from the clone, and that pip changed none of Colab's preinstalled packages (Colab
would ask for a restart). The other notebooks then run in two kernels at a time; their setup
cells run too, find the course installed and skip the install. A dependency that only an extra brings, or a
data file missing from the package, fails here.

What is tested is the commit, not the working tree: Colab installs from GitHub, which has
only commits. With uncommitted changes the test still tests HEAD, and warns.

It runs in the suite's run on Python 3.12, Colab's (in CI: tox's py312), and is skipped on the
other Pythons (once per CI is enough), without git, and when the package index cannot be
reached. See CONTRIBUTING.md for what it does not simulate.
"""

from __future__ import annotations

import glob
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import nbformat
import pytest

from bpe_course.classroom.authoring.course import BRANCH, REPO, SETUP_MARK
from bpe_course.classroom.worksheets import WORKSHEETS as POINTS

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

# What a Colab runtime has before the setup cell runs. Colab pins its Jupyter pieces (its
# `google-colab` package requires ipython==7.34.0 and ipykernel==6.17.1, as pip's conflict
# messages in public bug reports show), ships ipywidgets 7.7 with the classic notebook 6.5, and
# had numpy 2.0.2 on Python 3.12 in 2025; matplotlib, regex, tiktoken and tqdm are pinned near
# Colab's 2025 versions (not checked against a live runtime). Update these when Colab moves.
COLAB_PYTHON = "3.12"
COLAB_PREINSTALLED = [
    "ipython==7.34.0", "ipykernel==6.17.1", "ipywidgets==7.7.1", "notebook==6.5.7",
    "numpy==2.0.2", "matplotlib==3.10.0", "regex==2024.11.6", "tiktoken==0.9.0",
    "tqdm==4.67.1",
    # Colab preinstalls transformers (with its tokenizers and huggingface-hub), which only the
    # course's "learn" extra brings elsewhere: chapter 14 needs it. 4.57.1 is near Colab's late
    # 2025 version (not checked against a live runtime); the chapter's outputs are the same
    # under 5.x.
    "transformers==4.57.1",
    # and protobuf, which chapter 15's SentencePiece model needs in transformers. The
    # sentencepiece the setup cell installs (0.2.3) is generated for protobuf 7 and refuses an
    # older runtime ("mismatched Protobuf Gencode/Runtime major versions"), so this is a 7.x.
    # Not checked against a live runtime: a Colab with protobuf 5 and sentencepiece 0.2.0
    # loads chapter 15's model, but chapter 12 then counts 52 of 53 texts equal to
    # sentencepiece (0.2.0 differs on one of them; the course follows 0.2.1 and later).
    "protobuf==7.36.2",
]
KERNEL = "bpe-colab"
STREAMS = 2                    # kernels at a time after the first chapter (a 2-core machine)
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WORKSHEETS = sorted((ROOT / "exercises").glob("*.ipynb"))
NOT_REACHED = re.compile(r"NewConnectionError|Failed to establish a new connection|"
                         r"Temporary failure in name resolution|Network is unreachable|"
                         r"Max retries exceeded|ConnectTimeoutError|ProxyError")

# Run by nbval's pytest in the simulated runtime's folder: keeps what each setup cell printed.
CONFTEST = '''
import json, os
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    cell = getattr(item, "cell", None)
    if call.when == "call" and cell is not None and cell.source.startswith({mark!r}):
        with open(os.environ["BPE_SETUP_OUTPUTS"], "a", encoding="utf-8") as out:
            out.write(json.dumps([item.fspath.basename, item.test_outputs or []]) + "\\n")
'''

# The first cell of a fresh kernel: what is imported already, by module and by distribution.
KERNEL_PROBE = """\
import sys
modules = list(sys.modules)
import importlib.metadata, json
dists = importlib.metadata.packages_distributions()
print(json.dumps({"google.colab": "google.colab" in modules, "distributions": sorted(
    {d.lower().replace("_", "-") for m in modules for d in dists.get(m.split(".")[0], [])})}))
"""

# Executes a worksheet with nbclient in the simulated runtime's kernel and saves it.
WORKSHEET_RUNNER = '''
import os, sys
import nbformat
from nbclient import NotebookClient
src, kernel, dest = sys.argv[1:]
nb = nbformat.read(src, as_version=4)
NotebookClient(nb, timeout=600, kernel_name=kernel, allow_errors=True,
               resources={"metadata": {"path": os.path.dirname(src)}}).execute()
nbformat.write(nb, dest)
'''


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)


def checked(*args, **kwargs) -> str:
    done = run(*args, **kwargs)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


def find_colab_python() -> str | None:
    """Python 3.12 that runs: on PATH as python3.12 (pyenv's shim there may refuse to run
    an unselected version), or among pyenv's versions."""
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python{COLAB_PYTHON}"), *sorted(
        glob.glob(f"{pyenv_root}/versions/{COLAB_PYTHON}.*/bin/python{COLAB_PYTHON}"),
        reverse=True)]
    for python in filter(None, candidates):
        done = run(python, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])")
        if done.returncode == 0 and done.stdout.strip() == COLAB_PYTHON:
            return python
    return None


def clean_environ() -> dict[str, str]:
    """This process's environment without what would let the kernel see another Python's
    packages (PYTHONPATH puts a working tree's bpe_course first) or another Jupyter's setup."""
    drop = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "IPYTHONDIR",
            "JUPYTER_PATH", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
            "MPLBACKEND", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID"}
    return {k: v for k, v in os.environ.items() if k not in drop}


class Colab:
    """A simulated Colab runtime in `folder`, and the committed course it will install."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.timings: dict[str, float] = {}
        self.python = folder / "venv" / "bin" / "python"
        self.env = clean_environ() | {"JUPYTER_PATH": str(folder / "jupyter"),
                                      "JUPYTER_RUNTIME_DIR": str(folder / "runtime")}

    # -- the commit, as GitHub would serve it ----------------------------------------------
    def clone_head(self):
        self.head = checked("git", "-C", ROOT, "rev-parse", "HEAD").strip()
        if checked("git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no").strip():
            warnings.warn(f"uncommitted changes are not tested: the Colab test installs and runs "
                          f"the committed HEAD ({self.head[:10]}), as Colab would get it")
        self.repo = self.folder / "bpe-course"
        checked("git", "clone", "--quiet", "--no-checkout", ROOT, self.repo)
        # the setup cell asks for the course's branch: make it this commit
        checked("git", "-C", self.repo, "update-ref", f"refs/heads/{BRANCH}", self.head)
        checked("git", "-C", self.repo, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
        checked("git", "-C", self.repo, "reset", "--quiet", "--hard", self.head)
        # "localhost": old pip (and packaging) refuse a VCS URL without a host
        self.url = f"git+file://localhost{self.repo.as_posix()}"

    # -- the runtime -------------------------------------------------------------------------
    def make_runtime(self, python: str):
        start = time.monotonic()
        checked(python, "-m", "venv", self.folder / "venv")
        self.timings["venv"] = time.monotonic() - start
        start = time.monotonic()
        done = run(self.python, "-m", "pip", "install", "--quiet", *COLAB_PREINSTALLED,
                   env=self.env)
        if done.returncode != 0:
            if NOT_REACHED.search(done.stdout + done.stderr):
                cannot_run("the Colab test needs the package index (PyPI) to build a Colab-like "
                            "runtime, and could not reach it: " + done.stderr.strip()[-300:])
            raise AssertionError(f"installing Colab's preinstalled packages failed:\n"
                                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        self.timings["preinstall"] = time.monotonic() - start
        self.preinstalled = self.installed()
        assert "bpe-course" not in self.preinstalled
        site = checked(self.python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                       env=self.env).strip()
        colab = Path(site) / "google" / "colab"          # `google` stays a namespace package
        colab.mkdir(parents=True)
        (colab / "__init__.py").write_text(
            '"""Stands in for Colab\'s own `google.colab`: the course only asks whether it is '
            'imported."""\n')
        ipython = self.folder / "ipython"
        startup = ipython / "profile_default" / "startup"
        startup.mkdir(parents=True)
        # Colab's kernel imports google.colab before the first cell; so does this one
        (startup / "00-google-colab.py").write_text('__import__("google.colab")\n')
        spec = self.folder / "jupyter" / "kernels" / KERNEL
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(self.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (simulated Colab)", "language": "python",
            "env": {"IPYTHONDIR": str(ipython)}}, indent=1))

    def kernel_start(self) -> dict:
        """What a fresh kernel of the runtime has imported when its first cell runs: whether
        google.colab is among them, and the distributions that they come from."""
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(KERNEL_PROBE)])
        probe = self.folder / "probe.ipynb"
        nbformat.write(nb, probe)
        checked(sys.executable, "-c", WORKSHEET_RUNNER, probe, KERNEL, probe,
                cwd=self.folder, env=self.env)
        outputs = nbformat.read(probe, as_version=4).cells[0].outputs
        assert [o.output_type for o in outputs] == ["stream"], outputs
        return json.loads(outputs[0].text)

    def installed(self) -> dict[str, str]:
        listed = json.loads(checked(self.python, "-m", "pip", "list", "--format=json",
                                    env=self.env))
        return {p["name"].lower().replace("_", "-"): p["version"] for p in listed}

    # -- the notebooks of that commit, as Colab opens them ------------------------------------
    def content(self, relpath: str) -> Path | None:
        """The committed notebook alone in its own folder, its setup cell pointed at the
        clone (and, in chapters, its output left unchecked: the stored one was made outside
        Colab). None if the notebook is not in the commit."""
        source = self.repo / relpath
        if not source.exists():
            return None
        nb = nbformat.read(source, as_version=4)
        setup = next(c for c in nb.cells if c.cell_type == "code")
        github = f"git+https://github.com/{REPO}@{BRANCH}"
        assert setup.source.startswith(SETUP_MARK) and setup.source.count(github) == 1, \
            f"{relpath}: its first code cell is not the setup cell"
        setup.source = setup.source.replace(github, f"{self.url}@{BRANCH}")
        if relpath.startswith("notebooks/"):
            tags = setup.metadata.setdefault("tags", [])
            tags.append("nbval-ignore-output")
        folder = self.folder / "content" / relpath.replace("/", "-").removesuffix(".ipynb")
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / source.name)
        return folder / source.name

    def run_chapter(self, path: Path) -> dict:
        """nbval on one chapter, as the suite runs it but in the simulated Colab kernel."""
        start = time.monotonic()
        done = run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "--rootdir", self.folder, "-c", self.folder / "pytest.ini",
                   "--nbval", "--nbval-kernel-name", KERNEL,
                   "--nbval-sanitize-with", self.repo / "tests" / "nbval_sanitize.cfg",
                   path, cwd=self.folder, env=self.env | {"BPE_SETUP_OUTPUTS": str(path) + ".setup"})
        setup = Path(str(path) + ".setup")
        outputs = json.loads(setup.read_text())[1] if setup.exists() else None
        return {"ok": done.returncode == 0, "log": done.stdout[-6000:] + done.stderr[-2000:],
                "setup": outputs, "seconds": time.monotonic() - start}

    def run_worksheet(self, path: Path) -> dict:
        start = time.monotonic()
        dest = path.with_suffix(".executed.ipynb")
        done = run(sys.executable, "-c", WORKSHEET_RUNNER, path, KERNEL, dest,
                   cwd=self.folder, env=self.env)
        nb = nbformat.read(dest, as_version=4) if done.returncode == 0 else None
        setup = (next(c for c in nb.cells if c.cell_type == "code").outputs if nb else None)
        return {"ok": done.returncode == 0, "log": done.stdout[-3000:] + done.stderr[-3000:],
                "setup": setup, "nb": nb, "seconds": time.monotonic() - start}

    def run_all(self, paths: list[str]) -> dict[str, dict]:
        """The first notebook alone (its setup cell installs the course), then the others
        STREAMS at a time."""
        (self.folder / "pytest.ini").write_text("[pytest]\naddopts =\n")
        (self.folder / "conftest.py").write_text(CONFTEST.format(mark=SETUP_MARK))
        jobs = [(relpath, self.content(relpath)) for relpath in paths]
        results = {relpath: None for relpath, path in jobs if path is None}
        jobs = [(relpath, path) for relpath, path in jobs if path is not None]

        def one(relpath, path):
            runner = self.run_chapter if relpath.startswith("notebooks/") else self.run_worksheet
            results[relpath] = runner(path)

        start = time.monotonic()
        one(*jobs[0])
        self.first = jobs[0][0]
        self.timings["first notebook (installs the course)"] = time.monotonic() - start
        self.after_install = self.installed()

        start = time.monotonic()
        todo = queue.Queue()
        for job in jobs[1:]:
            todo.put(job)

        def stream():
            while True:
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    return
                one(*job)
        threads = [threading.Thread(target=stream) for _ in range(STREAMS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.timings[f"the other {len(jobs) - 1} notebooks, {STREAMS} at a time"] = \
            time.monotonic() - start
        return results


def cannot_run(reason: str):
    """Skip, or fail where this test stands in for nbval on the chapters (tox's py312: the
    suite does not run them otherwise, see tests/conftest.py)."""
    if os.environ.get("BPE_NOTEBOOKS_IN_COLAB") == "1":
        pytest.fail(f"{reason} (BPE_NOTEBOOKS_IN_COLAB is set, so nothing else runs the chapters)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    if "%d.%d" % sys.version_info[:2] != COLAB_PYTHON:
        cannot_run(f"the Colab test runs once, in the suite's run on Python {COLAB_PYTHON} "
                    f"(Colab's): `make test-all ENVS=py{COLAB_PYTHON.replace('.', '')}`")
    python = find_colab_python()
    if python is None:
        cannot_run(f"the Colab test needs Python {COLAB_PYTHON} (python{COLAB_PYTHON} on PATH, "
                    "or a pyenv version), as Colab runs it")
    if shutil.which("git") is None or run("git", "-C", ROOT, "rev-parse", "HEAD").returncode:
        cannot_run("the Colab test installs the course from a git clone of this repository's "
                    "HEAD: it needs git and a git checkout")
    runtime = Colab(tmp_path_factory.mktemp("colab"))
    start = time.monotonic()
    runtime.clone_head()
    runtime.make_runtime(python)
    runtime.at_start = runtime.kernel_start()
    runtime.results = runtime.run_all([rel(p) for p in CHAPTERS + WORKSHEETS])
    runtime.timings["total"] = time.monotonic() - start
    print("\nColab test timings (s):", {k: round(v) for k, v in runtime.timings.items()},
          {k: round(r["seconds"]) for k, r in runtime.results.items() if r})
    return runtime


def result_of(colab, path: Path) -> dict:
    result = colab.results[rel(path)]
    if result is None:
        pytest.skip(f"{rel(path)} is not committed: the Colab test runs the committed HEAD")
    return result


# What the setup cell prints: the first notebook installs the course; every other one, in the
# same runtime, finds it installed and skips the install.
INSTALLED = {True: "bpe-course installed; no restart needed.",
             False: "bpe-course is already installed in this runtime."}


def setup_printed(outputs) -> str:
    return "".join(o.get("text", "") for o in outputs or [] if o.get("output_type") == "stream")


def test_the_setup_cell_installs_the_course_in_a_fresh_colab_runtime(colab):
    first = colab.results[colab.first]
    printed = setup_printed(first["setup"])
    assert "bpe-course installed; no restart needed." in printed, first["log"]
    assert not re.search(r"^ERROR", printed, re.M), printed
    # the course came from the clone of HEAD, through pip, into the runtime itself
    direct_url = json.loads(checked(colab.python, "-c", (
        "import importlib.metadata as md, sys, bpe_course\n"
        "assert bpe_course.__file__.startswith(sys.prefix), bpe_course.__file__\n"
        "print(md.distribution('bpe-course').read_text('direct_url.json'))"),
        cwd=colab.folder / "content", env=colab.env))
    assert direct_url["url"] == colab.url.removeprefix("git+")
    assert direct_url["vcs_info"]["vcs"] == "git"
    assert direct_url["vcs_info"]["commit_id"] == colab.head


def test_the_kernel_sees_google_colab_from_its_first_cell(colab):
    assert colab.at_start["google.colab"]


def test_the_setup_cell_replaces_nothing_the_kernel_has_imported(colab):
    """Colab asks for a restart when pip replaces a package that the runtime has imported
    already; the setup cell runs first, so only what the kernel imports to start counts."""
    changed = {name: (version, colab.after_install.get(name))
               for name, version in colab.preinstalled.items()
               if colab.after_install.get(name) != version}
    restart = {name: change for name, change in changed.items()
               if name in colab.at_start["distributions"]}
    assert not restart, f"the setup cell replaced packages the kernel had imported: {restart}"
    # (pip may upgrade a preinstalled package that no cell has imported yet, such as tiktoken)
    print(f"\nColab's packages the setup cell upgraded (before, after): {changed}")


@pytest.mark.parametrize("path", CHAPTERS, ids=[rel(p) for p in CHAPTERS])
def test_a_chapter_runs_in_colab_with_its_stored_outputs(colab, path):
    result = result_of(colab, path)
    assert result["ok"], result["log"]
    assert INSTALLED[rel(path) == colab.first] in setup_printed(result["setup"])


@pytest.mark.parametrize("path", WORKSHEETS, ids=[rel(p) for p in WORKSHEETS])
def test_a_worksheet_runs_in_colab_to_its_end(colab, path):
    result = result_of(colab, path)
    assert result["ok"], result["log"]
    assert INSTALLED[False] in setup_printed(result["setup"])
    nb = result["nb"]
    errors = [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    # As tests/classroom/authoring/test_exercises.py asks of a worksheet run elsewhere (which, in this
    # environment, it leaves to this test): one check cell per exercise, each saying on stderr
    # alone that its exercise is not attempted yet, and no check passed.
    checks = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(checks) == len(POINTS[path.stem].points)
    for cell in checks:
        assert cell.outputs and {o.get("name") for o in cell.outputs} == {"stderr"}, cell.outputs
        assert "not attempted yet" in "".join(o.get("text", "") for o in cell.outputs), cell.outputs
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not any("\u2705" in o.get("text", "") for o in outputs)
