"""Vocab entries that no merge makes and that are not special (`Tokenizer.unreachable_tokens`):
CS336's tokenizer contract, GPT-2's own `vocab.json` + `merges.txt` as they are, and every
place a vocabulary is rebuilt or saved keeping them."""

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bpe_course import (
    GPT2_SPLIT_PATTERN,
    RegexTokenizer,
    corpora,
    get_encoding,
    load,
    load_vocab_merges,
    save_tokenizer_json,
    save_vocab_merges,
    to_tiktoken,
)
from bpe_course.corpora import HARD_STRINGS
from bpe_course.files.huggingface import load_regex_tokenizer_json
from bpe_course.files.tiktoken_files import save_tiktoken
from bpe_course.openai import gpt2_files
from bpe_course.openai.byte_map import str_to_token
from bpe_course.training.trainer import train_into

EOT = "<|endoftext|>"
SAMPLES = HARD_STRINGS + list(corpora.SAMPLES.values()) + ["don't\n   \nWE'LL", "a<|endo"]


# -- GPT-2's own files, read as CS336 reads them ------------------------------------

@pytest.fixture(scope="module")
def gpt2_files_on_disk(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt2")
    (folder / "vocab.json").write_bytes(gpt2_files.encoder_json())
    (folder / "merges.txt").write_bytes(gpt2_files.vocab_bpe())
    return folder / "vocab.json", folder / "merges.txt"


@pytest.fixture(scope="module")
def gpt2(gpt2_files_on_disk):
    """GPT-2's files turned into `vocab` and `merges` as in CS336, and loaded with nothing
    declared special."""
    vocab_file, merges_file = gpt2_files_on_disk
    vocab = {i: str_to_token(t) for t, i in json.loads(vocab_file.read_text()).items()}
    lines = merges_file.read_text(encoding="utf-8").splitlines()[1:]
    merges = [tuple(map(str_to_token, line.split(" "))) for line in lines]
    assert vocab[50256] == EOT.encode()                     # in the file, not a merge's
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, pattern=GPT2_SPLIT_PATTERN)
    return get_encoding("r50k_base"), tok


def test_gpt2s_own_files_load_as_they_are(gpt2):
    enc, tok = gpt2
    assert tok.special_tokens == {} and tok.unreachable_tokens == {50256: EOT.encode()}
    assert tok.decode([50256]) == EOT and tok.decode([464, 50256]) == "The" + EOT
    # Not special, so it is ordinary text, never id 50256 (CS336 without special tokens).
    assert tok.encode(f"hi{EOT}") == enc.encode_ordinary(f"hi{EOT}")
    assert 50256 not in tok.encode(EOT * 3)


@settings(max_examples=80, deadline=None)
@given(text=st.lists(st.one_of(st.text(max_size=30), st.sampled_from(SAMPLES)),
                     max_size=6).map("".join))
def test_gpt2s_own_files_encode_as_r50k_base(gpt2, text):
    assume(EOT not in text)
    enc, tok = gpt2
    assert tok.encode(text) == enc.encode(text)


def test_declared_special_it_follows_allowed_special_as_in_tiktoken(gpt2_files_on_disk, gpt2):
    enc, _ = gpt2
    tok = load_vocab_merges(*gpt2_files_on_disk, special_tokens=[EOT])
    assert tok.special_tokens == {EOT: 50256} and tok.unreachable_tokens == {}
    with pytest.raises(ValueError, match="special token"):
        tok.encode(f"a{EOT}")                   # tiktoken's default: refuse
    text = f"a{EOT}b {EOT}"                     # CS336's behaviour: allowed_special="all"
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    # Without special_tokens, load_vocab_merges still takes the unmade token as special.
    assert load_vocab_merges(*gpt2_files_on_disk).special_tokens == {EOT: 50256}
    assert load_vocab_merges(*gpt2_files_on_disk, special_tokens=[]).unreachable_tokens == \
        {50256: EOT.encode()}


# -- a small vocabulary with unreachable entries -------------------------------------

BYTES = {b: bytes([b]) for b in range(256)}


@pytest.fixture
def small():
    """Merges make "lo" and "llo"; "hello", "<|eot|>" and a broken byte pair are unreachable."""
    # Ids without gaps: `tokenizers` gives an added token that its model's vocab lacks
    # the id len(vocab), whatever tokenizer.json says.
    vocab = BYTES | {256: b"lo", 257: b"llo", 258: b"hello", 259: EOT.encode(),
                     260: b"\xe2\x82"}
    return RegexTokenizer.from_vocab_merges(vocab, [(b"l", b"o"), (b"l", b"lo")], ["<|x|>"])


def test_unreachable_entries_decode_and_are_never_encoded(small):
    assert small.unreachable_tokens == {258: b"hello", 259: EOT.encode(), 260: b"\xe2\x82"}
    assert small.special_tokens == {"<|x|>": 261}
    assert small.decode([258, 32, 259]) == "hello " + EOT
    assert small.decode_bytes([260]) == b"\xe2\x82"
    assert small.encode("hello" + EOT + "\u20ac") == \
        [104, 101, 257] + list(EOT.encode()) + list("\u20ac".encode())


def test_ids_not_in_merge_order_and_unreachable_entries(small):
    vocab = {5000 - i: t for i, t in small.vocab.items()}   # every id reversed
    merges = [(b"l", b"o"), (b"l", b"lo")]
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, ["<|x|>"])
    assert not tok.ids_are_ranks and set(tok.unreachable_tokens) == {4742, 4741, 4740}
    assert tok.encode("hello") == [5000 - i for i in small.encode("hello")]
    assert tok.decode([4742]) == "hello"


def test_registering_an_unreachable_id_is_refused_unless_it_is_that_token(small):
    with pytest.raises(ValueError, match="cannot give '<|pad|>' the id 259"):
        small.register_special_tokens({"<|pad|>": 259})
    small.register_special_tokens({EOT: 259})               # the same text: it becomes special
    assert small.special_tokens[EOT] == 259 and 259 not in small.unreachable_tokens
    assert small.encode(EOT, allowed_special="all") == [259]
    assert small.vocab[259] == EOT.encode() and small.vocab[258] == b"hello"


def test_the_model_file_keeps_them(small, tmp_path):
    small.save(tmp_path / "small")
    text = (tmp_path / "small.model").read_text(encoding="utf-8")
    assert text.endswith("unreachable_tokens 3\n258 68656c6c6f\n259 "
                         f"{EOT.encode().hex()}\n260 e282\n")
    assert "[hello] 258 unreachable" in (tmp_path / "small.vocab").read_text(encoding="utf-8")
    back = load(tmp_path / "small.model")
    assert back.vocab == small.vocab and back.unreachable_tokens == small.unreachable_tokens
    assert back.special_tokens == small.special_tokens
    for sample in SAMPLES:
        assert back.encode(sample, allowed_special="all") == \
            small.encode(sample, allowed_special="all")


def test_a_model_file_without_them_is_written_as_before(tmp_path):
    tok = RegexTokenizer.from_vocab_merges(BYTES | {256: b"lo"}, [(b"l", b"o")])
    tok.save(tmp_path / "plain")
    assert "unreachable" not in (tmp_path / "plain.model").read_text(encoding="utf-8")
    assert load(tmp_path / "plain.model").unreachable_tokens == {}


@pytest.mark.parametrize("section, message", [
    ("unreachable_tokens 1\n300 zz", "expected 'id hex-of-bytes'"),
    ("unreachable_tokens 1\n256 6869", "repeats an id"),         # a merge's id
    ("unreachable_tokens 1\n261 6869", "repeats an id"),         # the special token's id
    ("unreachable_tokens 1\n300 ", "is empty"),
    ("unreachable_tokens 1\n300 6c6c6f", "a merge's result"),    # b"llo"
    ("unreachable_tokens 2\n300 6869", "file ends early"),
    ("unreachable_tokens 1\n300 6869\n7", "unexpected text"),
])
def test_a_bad_unreachable_section_is_refused_with_its_line(small, tmp_path, section, message):
    small.unreachable_tokens = {}
    small.save(tmp_path / "bad")
    path = tmp_path / "bad.model"
    path.write_text(path.read_text(encoding="utf-8") + section + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        load(path)
    assert ", line " in str(error.value)


def test_tokenizer_json_keeps_them_and_tokenizers_agrees(small, tmp_path):
    save_tokenizer_json(small, tmp_path / "tokenizer.json")
    back = load_regex_tokenizer_json(tmp_path / "tokenizer.json")
    assert back.unreachable_tokens == small.unreachable_tokens
    assert back.special_tokens == small.special_tokens and back.vocab == small.vocab
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for sample in SAMPLES + ["hello<|x|>" + EOT]:
        assert hf.encode(sample).ids == small.encode(sample, allowed_special="all"), sample


def test_vocab_and_merges_keep_them_when_told_which_are_special(small, tmp_path):
    files = save_vocab_merges(small, tmp_path)
    back = load_vocab_merges(*files, pattern=small.pattern,
                             special_tokens=list(small.special_tokens))
    assert back.vocab == small.vocab and back.unreachable_tokens == small.unreachable_tokens


def test_tiktoken_has_no_place_for_them(small, gpt2, tmp_path):
    with pytest.raises(ValueError, match="register them first"):
        to_tiktoken(small)
    with pytest.raises(ValueError, match="no merge makes"):
        save_tiktoken(small, tmp_path / "small.tiktoken")
    enc, tok = gpt2
    gpt2_special = RegexTokenizer.from_vocab_merges(
        tok.vocab, [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in tok.merge_items()],
        pattern=GPT2_SPLIT_PATTERN)
    gpt2_special.register_special_tokens({EOT: 50256})      # as the error message says
    exported = to_tiktoken(gpt2_special)
    assert exported.encode(f"a{EOT}", allowed_special="all") == \
        enc.encode(f"a{EOT}", allowed_special="all")


def test_new_merges_forget_them_and_first_merges_keeps_them(small):
    assert small.first_merges(257).unreachable_tokens == small.unreachable_tokens
    assert small.first_merges(257).decode([258]) == "hello"
    retrained = RegexTokenizer.from_vocab_merges(small.vocab, [(b"l", b"o"), (b"l", b"lo")])
    retrained.train("abab abab", 260)
    assert retrained.unreachable_tokens == {} and b"hello" not in retrained.vocab.values()
    train_into(small, "abab abab", 260)
    assert small.unreachable_tokens == {} and b"hello" not in small.vocab.values()
