"""get_encoding works offline, with data checked against tiktoken's sha256."""

import hashlib

import pytest

from bpe_course import get_encoding
from bpe_course.openai import encodings


def test_get_encoding_needs_no_network(no_network):
    encodings.load_ranks.cache_clear()
    encodings.get_encoding.cache_clear()
    for name in encodings.ENCODINGS:
        enc = get_encoding(name)
        assert enc.name == name
        assert enc.decode(enc.encode("offline works")) == "offline works"


def test_packaged_files_match_tiktokens_published_hashes():
    assert set(encodings.RANK_FILE.values()) == set(encodings.SHA256)
    for file in encodings.SHA256:
        data = encodings._read_packaged(file)
        assert hashlib.sha256(data).hexdigest() == encodings.SHA256[file]


@pytest.mark.parametrize("name", ["cl100k_base", "gpt2"])
def test_a_tampered_file_is_rejected(monkeypatch, name):
    monkeypatch.setattr(encodings, "_read_packaged", lambda file: b"YQ== 0\n")
    encodings.load_ranks.cache_clear()
    encodings.rank_file.cache_clear()
    try:
        with pytest.raises(ValueError, match="sha256"):
            encodings.load_ranks(name)
    finally:
        monkeypatch.undo()
        encodings.load_ranks.cache_clear()
        encodings.rank_file.cache_clear()


def test_malformed_rank_lines_name_the_line():
    with pytest.raises(ValueError, match="line 2"):
        encodings.parse_ranks(b"YQ== 0\nnot-base64!! x\n")


def test_unknown_encoding_name():
    with pytest.raises(ValueError, match="unknown encoding"):
        get_encoding("p51k_base")


def test_sizes_of_the_real_encodings():
    assert get_encoding("r50k_base").n_vocab == get_encoding("gpt2").n_vocab == 50257
    assert get_encoding("p50k_base").n_vocab == 50281
    assert get_encoding("p50k_edit").n_vocab == 50284
    assert get_encoding("cl100k_base").n_vocab == 100277
    assert get_encoding("o200k_base").n_vocab == 200019
    assert get_encoding("o200k_harmony").n_vocab == 201088
