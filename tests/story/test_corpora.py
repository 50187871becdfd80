"""The course's corpora: the same bytes on every Python, hash-checked, packaged with a licence."""

import gzip
import hashlib
import sys
from importlib import resources

import pytest

from bpe_course import corpora

REQUIRED_SAMPLES = ["English", "German", "Russian", "Arabic", "Hindi", "Korean", "Japanese",
                    "Chinese", "Emoji", "Code"]

# Written out here, not read from corpora.MANIFEST, so that a changed corpus fails this test
# on every Python: each number the notebooks print depends on these bytes.
EXPECTED = {
    "prose": (466_273, "71f2ff5d99bdc1f9c48c5c2353ad138201c5ca1c377e0226857ef8fa89b8bcee"),
    "python_code": (7_999_999,
                    "aeaccbb4a562b977489e39023c2e21ac079c16ea1764ef2754e2aaed804e2244"),
}


def test_corpora_are_the_same_bytes_on_every_python():
    texts = {"prose": corpora.prose(), "python_code": corpora.python_code()}
    for name, (size, sha) in EXPECTED.items():
        data = texts[name].encode("utf-8")
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha), name
        assert corpora.MANIFEST[name]["sha256"] == sha
        assert corpora.MANIFEST[name]["licence"].startswith("PSF License")


def test_corpora_do_not_come_from_the_running_python(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydoc_data.topics", None)    # importing it would fail
    corpora._read.cache_clear()
    try:
        assert len(corpora.prose.__wrapped__().encode()) == EXPECTED["prose"][0]
    finally:
        corpora._read.cache_clear()


def test_a_damaged_corpus_is_refused(monkeypatch):
    monkeypatch.setitem(corpora.MANIFEST, "prose", {**corpora.MANIFEST["prose"], "sha256": "0" * 64})
    corpora._read.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="damaged"):
            corpora._read("prose")
    finally:
        corpora._read.cache_clear()


def test_packaged_files_are_small_and_licensed():
    data = resources.files("bpe_course") / "data"
    sizes = sum(len((data / e["file"]).read_bytes()) for e in corpora.MANIFEST.values())
    assert sizes < 3_000_000
    assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in (data / "LICENSE-PSF.txt").read_text()
    assert gzip.decompress((data / "prose.txt.gz").read_bytes()).decode() == corpora.prose()


def test_python_code_is_cut_at_the_requested_size_on_a_line():
    code = corpora.python_code(100_000)
    assert 99_000 < len(code.encode()) <= 100_000
    assert code.endswith("\n")
    assert "def " in code and "import " in code
    assert corpora.python_code(100_000) == code          # deterministic
    assert corpora.python_code(0) == ""
    assert corpora.python_code(10**9) == corpora.python_code()
    assert corpora.python_code(2_000_000).startswith(code)
    with pytest.raises(ValueError):
        corpora.python_code(-1)


def test_samples_cover_the_promised_languages():
    assert all(corpora.SAMPLES.get(lang) for lang in REQUIRED_SAMPLES)


def test_load_text_reads_utf8_and_rejects_other_bytes(tmp_path):
    (tmp_path / "ok.txt").write_text("Once upon a time ✨", encoding="utf-8")
    assert corpora.load_text(tmp_path / "ok.txt") == "Once upon a time ✨"
    assert corpora.load_text(tmp_path / "ok.txt", max_bytes=19) == "Once upon a time "
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9")
    with pytest.raises(ValueError, match="not UTF-8"):
        corpora.load_text(tmp_path / "bad.txt")
    with pytest.raises(FileNotFoundError):
        corpora.load_text(tmp_path / "missing.txt")
