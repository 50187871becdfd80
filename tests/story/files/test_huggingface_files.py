"""Any byte-level BPE in and out: vocab + merges with their own ids
(`RegexTokenizer.from_vocab_merges`), and Hugging Face's files (`files.huggingface`).

GPT-2's byte map, which these files use, is tested in `test_byte_map`."""

import functools
import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    corpora,
    get_encoding,
    load,
    load_tokenizer_json,
    load_vocab_merges,
    save_tokenizer_json,
    save_vocab_merges,
    to_tiktoken,
    train_bpe,
)
from bpe_course.corpora import HARD_STRINGS
from bpe_course.files.huggingface import load_regex_tokenizer_json, tokenizer_json
from bpe_course.openai.byte_map import token_to_str
from bpe_course.openai.tokenizer import recover_merges
from bpe_course.training.trainer import train_into

EOT, FIM = "<|endoftext|>", "<|fim_prefix|>"
TEXT = corpora.prose()[:40_000] + "".join(corpora.SAMPLES.values()) + EOT + "".join(HARD_STRINGS)
SAMPLES = HARD_STRINGS + list(corpora.SAMPLES.values()) + [
    f"a{EOT}b{FIM}{EOT}{EOT}", "don't\n" + " " * 40 + "\nWE'LL", "\r\n\r\n  \t\n"]
PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN, "gpt4o": GPT4O_SPLIT_PATTERN}
# Hypothesis text: every kind of character, with the course's hard cases mixed in.
texts = st.lists(st.one_of(st.text(max_size=30), st.sampled_from(SAMPLES)), max_size=6).map("".join)


@pytest.fixture(scope="module", params=list(PATTERNS))
def trained(request):
    tok = RegexTokenizer(PATTERNS[request.param])
    train_into(tok, TEXT, 600, [EOT, FIM])
    return tok


def ids(tok, text):
    return tok.encode(text, allowed_special="all")


def shuffled(tok, seed=0):
    """The same tokenizer with every id replaced by a random other one."""
    new = list(tok.vocab)
    random.Random(seed).shuffle(new)
    new_id = dict(zip(tok.vocab, new))
    vocab = {new_id[i]: t for i, t in tok.vocab.items() if i not in tok.inverse_special_tokens}
    merges = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in tok.merge_items()]
    vocab.update({new_id[i]: t.encode() for t, i in tok.special_tokens.items()})
    return RegexTokenizer.from_vocab_merges(vocab, merges, list(tok.special_tokens),
                                            tok.pattern), new_id


# -- from_vocab_merges -------------------------------------------------------------

def test_train_bpes_result_turns_into_the_same_tokenizer():
    vocab, merges = train_bpe(TEXT, 500, [EOT])
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, [EOT])
    assert tok.vocab == vocab and tok.ids_are_ranks
    same = RegexTokenizer.from_merges(merges, [EOT])
    assert tok.merges == same.merges and tok.special_tokens == same.special_tokens
    for text in SAMPLES:
        assert ids(tok, text) == ids(same, text)


def test_any_ids_give_that_vocabularys_ids(trained):
    tok, new_id = shuffled(trained)
    assert not tok.ids_are_ranks
    for text in SAMPLES:
        expected = [new_id[i] for i in ids(trained, text)]
        assert ids(tok, text) == expected
        assert tok.decode(expected) == trained.decode(ids(trained, text))


@functools.lru_cache(maxsize=None)
def small_and_shuffled(seed):
    base = RegexTokenizer()
    train_into(base, TEXT[:10_000], 400, [EOT])
    return (base, *shuffled(base, seed))


@settings(max_examples=60, deadline=None)
@given(text=texts, seed=st.integers(0, 3))
def test_any_ids_on_hypothesis_text(text, seed):
    base, tok, new_id = small_and_shuffled(seed)
    assert ids(tok, text) == [new_id[i] for i in ids(base, text)]


def test_cs336_layout_special_token_first_bytes_after_it():
    vocab, merges = train_bpe(TEXT, 400)
    cs336 = {0: EOT.encode(), **{i + 1: t for i, t in vocab.items()}}
    tok = RegexTokenizer.from_vocab_merges(cs336, merges, [EOT])
    plain = RegexTokenizer.from_merges(merges, [EOT])
    assert tok.ids_are_ranks and tok.special_tokens == {EOT: 0}
    for text in SAMPLES:
        assert ids(tok, text) == [0 if i == plain.special_tokens[EOT] else i + 1
                                  for i in ids(plain, text)]


def test_special_tokens_are_appended_after_the_largest_id_when_missing():
    vocab = {b: bytes([b]) for b in range(256)} | {1000: b"ab"}
    tok = RegexTokenizer.from_vocab_merges(vocab, [(b"a", b"b")], ["<|a|>", "<|a|><|b|>", "ab"])
    # "ab" is made by a merge, so the special token "ab" needs an id of its own.
    assert tok.special_tokens == {"<|a|>": 1001, "<|a|><|b|>": 1002, "ab": 1003}
    # Overlapping special tokens: the longest wins.
    assert ids(tok, "<|a|><|b|><|a|>ab") == [1002, 1001, 1003]
    assert tok.encode("ab<|a|>", allowed_special="none") == [1000] + list(b"<|a|>")


def test_a_vocabulary_with_shuffled_ids_saves_and_loads(trained, tmp_path):
    tok, _ = shuffled(trained)
    tok.save(tmp_path / "shuffled")
    back = load(tmp_path / "shuffled.model")
    assert back.vocab == tok.vocab and not back.ids_are_ranks
    for text in SAMPLES:
        assert ids(back, text) == ids(tok, text)
    with pytest.raises(ValueError, match="not in merge order"):
        to_tiktoken(tok)


BYTES = {b: bytes([b]) for b in range(256)}


@pytest.mark.parametrize("vocab, merges, specials, message", [
    ({b: bytes([b]) for b in range(255)}, [], None, "lacks 1 of the 256 single bytes"),
    (BYTES | {300: b"a"}, [], None, "are both"),
    (BYTES | {300: b"abc"}, [(b"ab", b"c")], None, "no earlier merge made"),
    (BYTES, [(b"a", b"b")], None, "which vocab lacks"),
    (BYTES | {300: b"ab"}, [(b"a", b"b"), (b"a", b"b")], None, "a second time"),
    (BYTES | {300: b"ab"}, [(b"a", b"b", b"c")], None, "must be a pair"),
    (BYTES | {-1: b"ab"}, [], None, "non-negative"),
    (BYTES | {300: "ab"}, [], None, "non-empty bytes"),
    (BYTES, [], ["<|x|>", "<|x|>"], "distinct"),
])
def test_inconsistent_input_is_refused_clearly(vocab, merges, specials, message):
    with pytest.raises(ValueError, match=message):
        RegexTokenizer.from_vocab_merges(vocab, merges, specials)


def test_special_tokens_must_be_a_list_not_one_string():
    with pytest.raises(TypeError, match=r"\['<\|x\|>'\]"):
        RegexTokenizer.from_vocab_merges(BYTES, [], "<|x|>")


# -- Hugging Face's files ----------------------------------------------------------

def test_vocab_and_merges_round_trip(trained, tmp_path):
    vocab_file, merges_file = save_vocab_merges(trained, tmp_path)
    assert merges_file.read_text(encoding="utf-8").startswith("#version: 0.2\n")
    back = load_vocab_merges(vocab_file, merges_file, pattern=trained.pattern)
    assert back.vocab == trained.vocab and back.special_tokens == trained.special_tokens
    for text in SAMPLES:
        assert ids(back, text) == ids(trained, text)


def test_tokenizer_json_round_trip(trained, tmp_path):
    save_tokenizer_json(trained, tmp_path / "tokenizer.json")
    back = load_regex_tokenizer_json(tmp_path / "tokenizer.json")
    assert back.pattern == trained.pattern and back.vocab == trained.vocab
    pipeline = load_tokenizer_json(tmp_path / "tokenizer.json")     # the whole pipeline
    for text in SAMPLES:
        assert ids(back, text) == ids(trained, text) == pipeline.encode(text)


def test_shuffled_ids_round_trip_through_both_formats(trained, tmp_path):
    tok, _ = shuffled(trained, seed=1)
    save_tokenizer_json(tok, tmp_path / "tokenizer.json")
    from_json = load_regex_tokenizer_json(tmp_path / "tokenizer.json")
    from_pair = load_vocab_merges(*save_vocab_merges(tok, tmp_path), pattern=tok.pattern)
    for text in SAMPLES:
        assert ids(from_json, text) == ids(from_pair, text) == ids(tok, text)


def hf_tokenizer(path):
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(path))


def test_the_tokenizers_library_loads_ours_and_agrees(trained, tmp_path):
    save_tokenizer_json(trained, tmp_path / "tokenizer.json")
    hf = hf_tokenizer(tmp_path / "tokenizer.json")
    for text in SAMPLES:
        assert hf.encode(text).ids == ids(trained, text), text
        assert hf.decode(ids(trained, text), skip_special_tokens=False) == \
            trained.decode(ids(trained, text))
    # ... and what it saves, we read back.
    hf.save(str(tmp_path / "resaved.json"))
    back = load_regex_tokenizer_json(tmp_path / "resaved.json")
    assert all(ids(back, text) == ids(trained, text) for text in SAMPLES)


def test_the_tokenizers_library_keeps_special_tokens_at_any_id(trained, tmp_path):
    """`tokenizers` gives an added token the model's id for its text, or the next id after the
    model's largest: so special tokens at 0 (CS336) or between ordinary ids need their place
    in the model's vocabulary, or the library moves them (it once gave one a merge's id)."""
    tok, _ = shuffled(trained, seed=3)
    cs336 = {0: EOT.encode(), **{i + 1: t for i, t in trained.vocab.items()
                                 if i not in trained.inverse_special_tokens}}
    merges = [(trained.vocab[a], trained.vocab[b]) for (a, b), _ in trained.merge_items()]
    first = RegexTokenizer.from_vocab_merges(cs336, merges, [EOT, FIM], trained.pattern)
    assert first.special_tokens[EOT] == 0
    for n, tok in enumerate([tok, first]):
        save_tokenizer_json(tok, tmp_path / f"{n}.json")
        hf = hf_tokenizer(tmp_path / f"{n}.json")
        assert {t: hf.token_to_id(t) for t in tok.special_tokens} == tok.special_tokens
        for text in SAMPLES:
            assert hf.encode(text).ids == ids(tok, text), text
        assert load_tokenizer_json(tmp_path / f"{n}.json").encode(SAMPLES[-3]) == \
            ids(tok, SAMPLES[-3])


def test_a_special_token_spelled_as_an_ordinary_token_cannot_go_into_tokenizer_json(tmp_path):
    vocab = {b: bytes([b]) for b in range(256)} | {256: b"ab"}
    tok = RegexTokenizer.from_vocab_merges(vocab, [(b"a", b"b")], ["ab"], GPT2_SPLIT_PATTERN)
    with pytest.raises(ValueError, match="'ab' has the same text as ordinary token 256"):
        save_tokenizer_json(tok, tmp_path / "t.json")


@settings(max_examples=40, deadline=None)
@given(text=texts)
def test_the_tokenizers_library_agrees_on_hypothesis_text(text, tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "hypothesis-tokenizer.json"
    if not path.exists():
        tok = RegexTokenizer(GPT4O_SPLIT_PATTERN)
        train_into(tok, TEXT, 600, [EOT, FIM])
        save_tokenizer_json(tok, path)
    hf = hf_tokenizer(path)
    ours = load_regex_tokenizer_json(path)
    assert hf.encode(text).ids == ids(ours, text)


def test_gpt2_style_byte_level_files_from_the_tokenizers_library(trained, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    if trained.pattern != GPT2_SPLIT_PATTERN:
        pytest.skip("GPT-2's ByteLevel regex only")
    vocab = {token_to_str(t): i for i, t in trained.vocab.items()}
    merges = [(token_to_str(trained.vocab[a]), token_to_str(trained.vocab[b]))
              for (a, b), _ in trained.merge_items()]
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    hf.add_special_tokens([EOT, FIM])
    hf.save(str(tmp_path / "gpt2-style.json"))
    ours = load_regex_tokenizer_json(tmp_path / "gpt2-style.json")
    assert ours.pattern == GPT2_SPLIT_PATTERN
    for text in SAMPLES:
        assert ours.encode(text, allowed_special="all") == hf.encode(text).ids, text


def mutate(trained, tmp_path, change):
    data = json.loads(json.dumps(tokenizer_json(trained)))
    change(data)
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, named", [
    (lambda d: d.update(normalizer={"type": "NFC"}), "normalizer"),
    (lambda d: d.update(pre_tokenizer={"type": "Metaspace", "replacement": "▁"}), "pre_tokenizer"),
    (lambda d: d.update(pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True}),
     "add_prefix_space"),
    (lambda d: d["model"].update(type="Unigram"), "model type 'Unigram'"),
    (lambda d: d["model"].update(type="WordPiece"), "model type 'WordPiece'"),
    (lambda d: d["model"].update(ignore_merges=True), "'ignore_merges'"),
    (lambda d: d["model"].update(dropout=0.1), "'dropout'"),
    (lambda d: d["model"].update(continuing_subword_prefix="##"), "continuing_subword_prefix"),
    (lambda d: d.update(post_processor={"type": "TemplateProcessing"}), "post_processor"),
    (lambda d: d.update(decoder={"type": "Metaspace"}), "decoder"),
    (lambda d: d.update(truncation={"max_length": 5}), "truncation"),
    (lambda d: d["added_tokens"][0].update(lstrip=True), "lstrip"),
    (lambda d: d["model"]["vocab"].update({"a b": 5000}), "byte map"),
])
def test_unsupported_tokenizer_json_is_refused_naming_what(trained, tmp_path, change, named):
    path = mutate(trained, tmp_path, change)
    with pytest.raises(ValueError, match="unsupported|byte map") as error:
        load_regex_tokenizer_json(path)
    assert named in str(error.value)
    assert str(error.value).startswith(f"{path}: ")          # the file's own name


@pytest.mark.parametrize("change, named", [
    (lambda d: d.update(added_tokens=[1]), "added_tokens[0] needs a 'content' string"),
    (lambda d: d["added_tokens"][1].pop("id"), "added_tokens[1] needs a 'content' string and "
                                               "an int 'id'"),
    (lambda d: d["model"].update(merges=3), "the merges must be a JSON list"),
    (lambda d: d.pop("model"), "not a tokenizer.json (no 'model')"),
])
def test_a_malformed_tokenizer_json_is_a_value_error_naming_the_file(trained, tmp_path,
                                                                      change, named):
    path = mutate(trained, tmp_path, change)
    with pytest.raises(ValueError) as error:
        load_regex_tokenizer_json(str(path))
    assert str(error.value).startswith(f"{path}: {named}"), str(error.value)


def test_a_unigram_file_from_the_tokenizers_library_is_refused(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer(tokenizers.models.Unigram([("a", -1.0), ("b", -2.0)], 0))
    hf.save(str(tmp_path / "unigram.json"))
    with pytest.raises(ValueError, match="Unigram"):
        load_regex_tokenizer_json(tmp_path / "unigram.json")


def test_files_that_are_not_json_or_missing(tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a JSON file"):
        load_regex_tokenizer_json(tmp_path / "bad.json")
    monkeypatch.chdir(tmp_path)                 # the name as given, not "tokenizer.json"
    with pytest.raises(ValueError, match=r"^\./bad\.json is not a JSON file"):
        load_regex_tokenizer_json("./bad.json")
    with pytest.raises(FileNotFoundError):
        load_vocab_merges(tmp_path / "vocab.json", tmp_path / "merges.txt")


def test_a_basic_tokenizer_has_no_pattern_for_tokenizer_json(tmp_path):
    basic = BasicTokenizer()
    basic.train("hello hello", 260)
    with pytest.raises(ValueError, match="split pattern"):
        save_tokenizer_json(basic, tmp_path / "t.json")


# -- GPT-2's own vocabulary ----------------------------------------------------------

# sha256 of OpenAI's GPT-2 files, as tiktoken checks them (tiktoken_ext/openai_public.py).
VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"


@pytest.fixture(scope="module")
def gpt2():
    enc = get_encoding("r50k_base")       # shipped with the package: no skip
    ranks = enc._mergeable_ranks
    vocab = {rank: token for token, rank in ranks.items()}
    merges = [(vocab[a], vocab[b]) for (a, b), _ in
              sorted(recover_merges(ranks).items(), key=lambda item: item[1])]
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, [EOT], GPT2_SPLIT_PATTERN)
    return enc, tok


def test_gpt2s_files_rebuilt_from_r50k_base_are_openais(gpt2, tmp_path):
    enc, tok = gpt2
    assert tok.special_tokens == {EOT: 50256}
    vocab_file, merges_file = save_vocab_merges(tok, tmp_path)
    assert hashlib.sha256(merges_file.read_bytes()).hexdigest() == VOCAB_BPE_SHA256
    assert hashlib.sha256(vocab_file.read_bytes()).hexdigest() == ENCODER_JSON_SHA256
    back = load_vocab_merges(vocab_file, merges_file)
    for text in SAMPLES:
        assert back.encode(text, allowed_special="all") == \
            enc.encode(text, allowed_special="all"), text


@settings(max_examples=60, deadline=None)
@given(text=texts)
def test_gpt2s_vocab_and_merges_give_tiktokens_ids(gpt2, text):
    enc, tok = gpt2
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
