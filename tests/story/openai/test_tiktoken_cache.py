"""Plain tiktoken.get_encoding works offline: tiktoken's cache filled from the course's files.

`import bpe_course` writes nothing (tests/story/test_import.py); the course's tiktoken
plugin fills the cache on tiktoken's first look for encodings, and `offline_tiktoken()`
does it on request.
"""

import hashlib
import os
import subprocess
import sys

import pytest
import tiktoken
import tiktoken.registry

import bpe_course
from bpe_course.openai import tiktoken_cache
from bpe_course.openai.encodings import ENCODINGS

URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "tiktoken-cache"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def fresh_registry(monkeypatch):
    # tiktoken keeps built encodings in a dict; empty it so they are read from the cache again.
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})


def test_cache_folder_follows_tiktokens_rules(monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    assert tiktoken_cache.cache_dir().endswith("data-gym-cache")
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", "/a")
    assert tiktoken_cache.cache_dir() == "/a"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/b")
    assert tiktoken_cache.cache_dir() == "/b"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert tiktoken_cache.cache_dir() is None
    assert set(tiktoken_cache.seed().values()) == {"no cache"}
    assert tiktoken_cache.cache_path(URL, "/b") == \
        "/b/" + hashlib.sha1(URL.encode()).hexdigest()


def test_seeded_cache_serves_every_encoding_offline(cache, no_network, fresh_registry):
    report = tiktoken_cache.seed()
    assert set(report.values()) == {"written"} and len(report) == 6
    for url, (sha256, _) in tiktoken_cache.FILES.items():
        data = (cache / hashlib.sha1(url.encode()).hexdigest()).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha256
    assert not [p for p in os.listdir(cache) if p.endswith(".tmp")]
    assert sorted(tiktoken.list_encoding_names()) == sorted(ENCODINGS)
    for name in ENCODINGS:
        enc = tiktoken.get_encoding(name)
        assert enc.decode(enc.encode("offline works")) == "offline works"
    assert tiktoken.get_encoding("gpt2").encode("hello world") == [31373, 995]
    assert set(tiktoken_cache.seed().values()) == {"present"}


def test_without_the_seed_tiktoken_would_need_the_network(cache, no_network, fresh_registry):
    with pytest.raises(OSError, match="network"):
        tiktoken.get_encoding("cl100k_base")


def test_existing_files_are_never_replaced(cache):
    cache.mkdir()
    path = cache / hashlib.sha1(URL.encode()).hexdigest()
    path.write_bytes(b"someone else's file")
    assert tiktoken_cache.seed()[URL] == "present"
    assert path.read_bytes() == b"someone else's file"


def test_a_file_with_the_wrong_hash_is_never_written(cache, monkeypatch):
    url = next(iter(tiktoken_cache.FILES))
    monkeypatch.setitem(tiktoken_cache.FILES, url, ("0" * 64, lambda: b"wrong"))
    assert tiktoken_cache.seed()[url].startswith("refused")
    assert not (cache / hashlib.sha1(url.encode()).hexdigest()).exists()
    assert not [p for p in os.listdir(cache) if p.endswith(".tmp")]


def test_an_unwritable_folder_is_left_alone(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(blocker / "cache"))
    assert all(v.startswith("not writable") for v in tiktoken_cache.seed().values())


OFFLINE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": "", "no_proxy": ""}      # any download fails at once


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE, **env}
    env.pop("DATA_GYM_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def cached(folder) -> bool:
    return (folder / hashlib.sha1(URL.encode()).hexdigest()).exists()


def test_tiktoken_finds_the_course_plugin():
    import pkgutil

    import tiktoken_ext
    names = [m.name for m in pkgutil.iter_modules(tiktoken_ext.__path__)]
    assert "bpe_course_offline" in names and "openai_public" in names


def test_plain_tiktoken_works_offline_without_importing_the_course(tmp_path):
    folder = tmp_path / "cache"
    done = run_python("import sys, tiktoken; enc = tiktoken.get_encoding('cl100k_base'); "
                      "print(enc.encode('hello world'), 'bpe_course' in sys.modules)",
                      TIKTOKEN_CACHE_DIR=str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[15339,", "1917]", "True"]   # the plugin loaded the course
    assert cached(folder)


def test_importing_the_course_leaves_the_cache_alone_until_tiktoken_needs_it(tmp_path):
    folder = tmp_path / "cache"
    done = run_python(f"import bpe_course, os; print(os.path.exists({str(folder)!r}))",
                      TIKTOKEN_CACHE_DIR=str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False" and not folder.exists()


def test_the_plugin_can_be_turned_off(tmp_path):
    folder = tmp_path / "cache"
    done = run_python("import tiktoken; tiktoken.list_encoding_names()",
                      TIKTOKEN_CACHE_DIR=str(folder), BPE_COURSE_SEED_TIKTOKEN="0")
    assert done.returncode == 0, done.stderr
    assert not cached(folder)


def test_an_unwritable_cache_is_a_warning_that_names_the_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    folder = blocker / "cache"
    done = run_python("import tiktoken; print(len(tiktoken.list_encoding_names()) > 0)",
                      TIKTOKEN_CACHE_DIR=str(folder))
    assert done.returncode == 0, done.stderr       # tiktoken itself keeps working
    assert done.stdout.strip() == "True"
    assert "RuntimeWarning" in done.stderr and str(folder) in done.stderr
    assert "not writable" in done.stderr


def test_offline_tiktoken_says_what_went_wrong(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(OSError, match="could not fill tiktoken's cache in .*cl100k_base"):
        bpe_course.offline_tiktoken()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    with pytest.raises(OSError, match="turned off"):
        bpe_course.offline_tiktoken()


def test_offline_tiktoken_fills_the_cache(cache):
    report = bpe_course.offline_tiktoken()
    assert set(report.values()) == {"written"} and cached(cache)
    assert set(bpe_course.offline_tiktoken().values()) == {"present"}
