"""A release, kept working: `python -m build` makes an sdist and a wheel from it, `twine check`
accepts both, and the wheel, installed into a clean virtual environment, runs from a folder
outside the repository with every file it ships: the command line, the three encodings,
Mistral 7B's SentencePiece model and the corpora, each checked by its sha256.

All offline. The build runs without isolation (the `dev` extra brings setuptools>=77 and
`build`). The clean environment (`python -m venv`, no system site-packages) gets the wheel
from the build folder with `pip install --no-index`; its dependencies cannot be downloaded
offline, so the environment sees the test's own site-packages *after* its own, through a
`.pth` file, and checks that each dependency the wheel declares is found. Those are the dependencies only: the course there is an editable install, whose
import hook lives in a `.pth` file of that folder, which Python processes only for its own
site folders, so the one `bpe_course` the clean environment can import is the wheel's (the
test checks the path). The wheel is built from the sdist, so a file missing from either fails.
"""

import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

import bpe_course

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

CHECKS = textwrap.dedent(r"""
    import hashlib, sys
    import bpe_course
    from bpe_course import corpora, get_encoding
    from bpe_course.sentencepiece.tokenizer import mistral_model_bytes
    from bpe_course import SentencePieceBPE

    assert bpe_course.__file__.startswith(sys.prefix), bpe_course.__file__
    import importlib.metadata as md, re
    for requirement in md.requires("bpe-course"):
        if "extra ==" not in requirement:
            md.version(re.split(r"[ ;<>=!~\[]", requirement, maxsplit=1)[0])
    print("version", bpe_course.__version__)
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        enc = get_encoding(name)
        assert enc.decode(enc.encode("hello world")) == "hello world"
        print(name, enc.n_vocab)
    assert len(mistral_model_bytes()) == 493443
    from importlib import resources
    from bpe_course import load_tokenizer_json
    bert = load_tokenizer_json(resources.files("bpe_course") / "data" / "minilm_tokenizer.json.gz")
    assert bert.decode(bert.encode("Hello, world!")) == "hello, world!"
    sp = SentencePieceBPE.mistral()
    assert sp.decode(sp.encode("Hello, world!")) == "Hello, world!"
    print("prose", len(corpora.prose()), "code", len(corpora.python_code()))
    print("ok")
""")


def run(*args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT)
    return out


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(dist):
    sdist, = dist.glob("bpe_course-*.tar.gz")
    wheel, = dist.glob("bpe_course-*-py3-none-any.whl")
    assert bpe_course.__version__ in wheel.name
    assert "PASSED" in run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    names = set(zipfile.ZipFile(wheel).namelist())
    source = {p.relative_to(ROOT).as_posix() for folder in ("bpe_course", "tiktoken_ext")
              for p in (ROOT / folder).rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert source - names == set()          # every module and data file, new folders too
    assert wheel.stat().st_size < 3_300_000         # the README states it (3.1 MB); keep it small


def test_the_wheel_installed_in_a_clean_venv_runs_everything_it_ships(dist, tmp_path):
    wheel, = dist.glob("bpe_course-*.whl")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    purelib = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
                   .strip())
    outer = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (purelib / "zz_outer_dependencies.pth").write_text("\n".join(sorted(outer)) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # --ignore-installed: the test's own editable bpe-course is visible through the .pth file,
    # and pip would take it for this one; --no-deps: the dependencies are there, and CHECKS
    # finds each one that the wheel's metadata requires
    run(python, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", dist,
        "--ignore-installed", "--no-deps", "bpe-course", env=env)
    away = tmp_path / "elsewhere"
    away.mkdir()
    help_text = run(python, "-m", "bpe_course", "--help", cwd=away, env=env)
    assert "python -m bpe_course" in help_text
    from bpe_course.cli import COMMANDS
    for command in COMMANDS:                # each command of the wheel starts and explains itself
        assert "usage:" in run(python, "-m", "bpe_course", command, "--help", cwd=away, env=env)
    out = run(python, "-c", CHECKS, cwd=away, env=env)
    assert out.endswith("ok\n") and f"version {bpe_course.__version__}" in out, out
