"""After `import bpe_course`, plain tiktoken.get_encoding works offline (tiktoken's cache seeded)."""

import hashlib
import os
import socket
import subprocess
import sys

import pytest
import tiktoken
import tiktoken.registry

from bpe_course import tiktoken_cache
from bpe_course.openai.encodings import ENCODINGS

URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "tiktoken-cache"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access in a test")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    import requests
    monkeypatch.setattr(requests, "get", refuse)


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


def test_import_never_fails_when_the_cache_is_unwritable(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(blocker / "cache")}
    subprocess.run([sys.executable, "-c", "import bpe_course"], env=env, check=True)


def test_import_seeds_the_cache_unless_turned_off(tmp_path):
    for setting, expected in [("0", False), ("1", True)]:
        folder = tmp_path / f"cache{setting}"
        env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(folder),
               "BPE_COURSE_SEED_TIKTOKEN": setting}
        subprocess.run([sys.executable, "-c", "import bpe_course"], env=env, check=True)
        assert (folder / hashlib.sha1(URL.encode()).hexdigest()).exists() == expected
