"""Saving and loading: the plain-text model file and the readable vocab file (`save_load`),
`load` into the right class (`files.course_files`) and the export to tiktoken
(`files.tiktoken_files`)."""

import pytest
import tiktoken
import tiktoken.load
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    GPT2_SPLIT_PATTERN,
    BasicTokenizer,
    GPT4Tokenizer,
    RegexTokenizer,
    corpora,
    load,
    save_tiktoken,
    to_tiktoken,
)
from bpe_course.corpora import HARD_STRINGS
from bpe_course.save_load import MAGIC

TEXT = corpora.prose()[:15_000]


@pytest.fixture(scope="module")
def trained():
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(TEXT, 300)
    tok.register_special_tokens({"<|endoftext|>": 300, "<|x|>\n\"quoted\"": 301})
    return tok


def same_state(a, b):
    return (a.merges == b.merges and a.pattern == b.pattern and a.vocab == b.vocab
            and a.special_tokens == b.special_tokens and a.byte_ids == b.byte_ids)


def test_save_and_load_restore_everything(trained, tmp_path):
    trained.save(tmp_path / "m")
    back = RegexTokenizer().load(tmp_path / "m.model")
    assert same_state(back, trained)
    assert back.pattern == GPT2_SPLIT_PATTERN            # not the default GPT-4 pattern
    text = "Hello <|endoftext|> world's 12345"
    assert back.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


def test_load_picks_the_right_class(trained, tmp_path):
    basic = BasicTokenizer()
    basic.train(TEXT[:3000], 280)
    basic.save(tmp_path / "b")
    trained.save(tmp_path / "r")
    assert type(load(tmp_path / "b.model")) is BasicTokenizer
    assert type(load(tmp_path / "r.model")) is RegexTokenizer
    with pytest.raises(ValueError, match="BasicTokenizer"):
        RegexTokenizer().load(tmp_path / "b.model")
    with pytest.raises(ValueError, match="RegexTokenizer"):
        BasicTokenizer().load(tmp_path / "r.model")


def test_vocab_file_shows_each_merge(trained, tmp_path):
    trained.save(tmp_path / "m")
    lines = (tmp_path / "m.vocab").read_text(encoding="utf-8").splitlines()
    (a, b), idx = min(trained.merges.items(), key=lambda kv: kv[1])
    left, right = trained.vocab[a].decode(), trained.vocab[b].decode()
    assert f"[{left}][{right}] -> [{left}{right}] 256" in lines
    assert any(line.endswith("300 special") for line in lines)


def test_model_file_is_plain_text_with_a_version_line(trained, tmp_path):
    trained.save(tmp_path / "m")
    text = (tmp_path / "m.model").read_text(encoding="utf-8")
    assert text.splitlines()[0] == MAGIC
    assert b"\x80" not in (tmp_path / "m.model").read_bytes()     # not a pickle


def corrupt(tmp_path, trained, edit):
    trained.save(tmp_path / "m")
    path = tmp_path / "m.model"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda ls: ["bpe-course tokenizer v9"] + ls[1:], "line 1: unsupported version"),
    (lambda ls: ["minbpe v1"] + ls[1:], "line 1: not a bpe-course model"),
    (lambda ls: ls[:-5], "file ends early"),                               # truncated
    (lambda ls: ls[:2] + ["special_tokens x"] + ls[3:], "line 3: expected integers"),
    (lambda ls: ls[:-1] + ["1 2"], "expected 3 integers"),
    (lambda ls: ls[:-1] + ["1 99999 400"], "not defined before"),
    (lambda ls: ls + ["junk"], "unexpected text after"),
    (lambda ls: ls[:1] + ["pattern [1]"] + ls[2:], "line 2: the pattern must be"),
    (lambda ls: [], "line 1: not a bpe-course model"),
])
def test_malformed_model_files_give_the_line(tmp_path, trained, edit, message):
    path = corrupt(tmp_path, trained, edit)
    with pytest.raises(ValueError, match=message):
        RegexTokenizer().load(path)


def test_loading_a_failed_file_leaves_the_tokenizer_unchanged(tmp_path, trained):
    path = corrupt(tmp_path, trained, lambda ls: ls[:-3])
    tok = RegexTokenizer()
    tok.train("hello hello", 258)
    before = dict(tok.merges)
    with pytest.raises(ValueError):
        tok.load(path)
    assert tok.merges == before


def test_loading_binary_or_missing_files_is_a_clear_error(tmp_path):
    (tmp_path / "x.model").write_bytes(b"\x80\x04\x95 pickle")
    with pytest.raises(ValueError, match="not"):
        RegexTokenizer().load(tmp_path / "x.model")
    with pytest.raises(FileNotFoundError):
        RegexTokenizer().load(tmp_path / "missing.model")


def test_export_to_tiktoken_gives_the_same_ids(trained):
    enc = to_tiktoken(trained)
    for text in HARD_STRINGS + [TEXT[:5000]]:
        assert enc.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


def test_export_of_a_basic_tokenizer(tmp_path):
    tok = BasicTokenizer()
    tok.train(TEXT[:5000], 300)
    enc = to_tiktoken(tok)
    for text in ["hello world", TEXT[:2000], "ünïcödé"]:
        assert enc.encode(text) == tok.encode(text)


def test_tiktoken_rank_file_roundtrip(trained, tmp_path):
    save_tiktoken(trained, tmp_path / "m.tiktoken")
    ranks = tiktoken.load.load_tiktoken_bpe(str(tmp_path / "m.tiktoken"))
    enc = tiktoken.Encoding("m", pat_str=trained.pattern, mergeable_ranks=ranks, special_tokens={})
    assert enc.encode_ordinary(TEXT[:3000]) == trained.encode_ordinary(TEXT[:3000])


def test_gpt4_tokenizer_saves_for_inspection(tmp_path):
    tok = GPT4Tokenizer()
    tok.save(tmp_path / "cl100k")
    vocab = (tmp_path / "cl100k.vocab").read_text(encoding="utf-8")
    assert "[h][ello] -> [hello] 15339" in vocab.splitlines()
    back = RegexTokenizer().load(tmp_path / "cl100k.model")
    assert back.byte_ids == tok.byte_ids and back.vocab == tok.vocab
    assert back.encode("hello world") == [15339, 1917]


@settings(max_examples=15, deadline=None)
@given(st.text(max_size=300), st.integers(256, 330))
def test_property_trained_tokenizers_survive_save_and_load(tmp_path_factory, text, size):
    tok = RegexTokenizer()
    tok.train(text, size)
    path = tmp_path_factory.mktemp("p") / "t"
    tok.save(path)
    assert same_state(RegexTokenizer().load(str(path) + ".model"), tok)
