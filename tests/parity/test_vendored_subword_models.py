"""The real subword models the package ships equal their libraries.

- all-MiniLM-L6-v2's `tokenizer.json` (BERT's uncased WordPiece, with its template,
  truncation to 128 and padding to 128), read by `minilm_tokenizer()`, equals `tokenizers`
  reading the same file: ids, tokens, offsets and decoding, with and without the file's
  truncation and padding.
- SentencePiece's own test model (a 1,000-piece Unigram with `nfkc`), read by
  `SentencePieceUnigram.botchan()`, equals the `sentencepiece` library: ids, pieces,
  decoding and the n best.

- The model's folder as `transformers` loads it (chapter 14): that `tokenizer.json` with its
  `tokenizer_config.json`, read by `AutoTokenizer`, gives the course pipeline's ids and
  offsets (skipped without `transformers`).

The files are checked against their sha256 on every load (`bpe_course/data/README.md`).
"""

from __future__ import annotations

import gzip
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import SentencePieceUnigram, corpora, load_sentencepiece
from bpe_course.pipeline import minilm_tokenizer
from bpe_course.pipeline.tokenizer_json import minilm_tokenizer_json
from bpe_course.sentencepiece.unigram import botchan_model_bytes

tokenizers = pytest.importorskip("tokenizers")

EXTRA = ["", " ", "   ", "Hello, World!", "HÉLLO héllo naïve", "ﬁne ﬂow Ａ１２３ ①",
         "中文字 and 日本語", "don't U.S.A. $5^2", "Where was Botchan born? In Tokyo.",
         "x" * 120, "a\x00b\ufffdc", "[CLS] [SEP] [MASK] [PAD] [UNK]", "word " * 200,
         "1 12 123 1234 12345", "▁▁ x▁", "\u3000full\u3000width\u3000space"]
FIXED = list(corpora.HARD_STRINGS) + list(corpora.SAMPLES.values()) + EXTRA


# -- the WordPiece tokenizer.json --------------------------------------------------------

@pytest.fixture(scope="module")
def bert():
    """(the library's tokenizer, ours), each read from the same packaged file."""
    return tokenizers.Tokenizer.from_str(minilm_tokenizer_json()), minilm_tokenizer()


@pytest.fixture(scope="module")
def bert_plain():
    """The same, with truncation and padding turned off on both sides."""
    ref, ours = tokenizers.Tokenizer.from_str(minilm_tokenizer_json()), minilm_tokenizer()
    ref.no_truncation()
    ref.no_padding()
    ours.no_truncation()
    ours.no_padding()
    return ref, ours


def assert_same_encoding(ref, ours, text: str) -> None:
    expected = ref.encode(text)
    got = ours.encode_with_offsets(text)
    assert got.ids == expected.ids, text
    assert got.tokens == expected.tokens, text
    assert got.offsets == expected.offsets, text
    assert ours.decode(got.ids) == ref.decode(expected.ids), text
    assert ours.decode(got.ids, skip_special_tokens=False) == ref.decode(
        expected.ids, skip_special_tokens=False), text


def test_the_file_is_bert_uncased_with_truncation_and_padding_to_128(bert):
    ref, ours = bert
    assert ref.get_vocab_size() == 30_522
    assert ours.truncation.max_length == 128 and ours.padding.length == 128
    assert len(ours.encode("hello")) == 128 and len(ours.encode("word " * 500)) == 128


@pytest.mark.parametrize("which", ["as_shipped", "plain"])
def test_ids_tokens_offsets_and_decoding_equal_tokenizers_on_fixed_strings(
        bert, bert_plain, which):
    ref, ours = bert if which == "as_shipped" else bert_plain
    for text in FIXED:
        assert_same_encoding(ref, ours, text)


def test_the_fixed_strings_reach_unk_continuations_and_truncation(bert_plain):
    ref, _ = bert_plain
    ids = [i for text in FIXED for i in ref.encode(text).ids]
    assert ref.token_to_id("[UNK]") in ids
    assert any(ref.id_to_token(i).startswith("##") for i in ids)
    assert any(len(ref.encode(text).ids) > 128 for text in FIXED)


def test_the_prose_encodes_equal_to_tokenizers(bert_plain):
    ref, ours = bert_plain
    lines = corpora.prose()[:100_000].splitlines()
    assert [ours.encode_with_offsets(line).offsets for line in lines] == [
        e.offsets for e in ref.encode_batch(lines)]
    assert [ours.encode(line) for line in lines] == [e.ids for e in ref.encode_batch(lines)]


@pytest.mark.parametrize("which", ["as_shipped", "plain"])
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_equal_to_tokenizers_on_text_in_many_scripts(bert, bert_plain, many_scripts, which,
                                                      data):
    ref, ours = bert if which == "as_shipped" else bert_plain
    assert_same_encoding(ref, ours, data.draw(many_scripts))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.integers(0, 30_521), max_size=20))
def test_decode_equals_tokenizers_on_random_ids(bert_plain, ids):
    ref, ours = bert_plain
    assert ours.decode(ids) == ref.decode(ids)


# -- the Unigram .model ------------------------------------------------------------------

@pytest.fixture(scope="module")
def unigram(spm):
    return spm.SentencePieceProcessor(model_proto=botchan_model_bytes()), \
        SentencePieceUnigram.botchan()


def assert_same_pieces(ref, ours, text: str) -> None:
    ids = ref.encode(text)
    assert ours.encode(text) == ids, text
    assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
    assert ours.decode(ids) == ref.decode(ids), text
    assert ours.nbest_encode(text, 4) == ref.nbest_encode(text, nbest_size=4), text


def test_the_model_is_a_thousand_piece_unigram_with_nfkc(unigram):
    ref, ours = unigram
    assert ref.vocab_size() == len(ours.pieces) == 1_000
    assert ours.model.trainer["model_type"] == 1 and ours.model.normalizer["name"] == "nfkc"
    assert type(load_sentencepiece(botchan_model_bytes())) is SentencePieceUnigram


def test_ids_pieces_decoding_and_nbest_equal_sentencepiece_on_fixed_strings(unigram):
    ref, ours = unigram
    for text in FIXED:
        assert_same_pieces(ref, ours, text)
    assert any(ref.unk_id() in ref.encode(text) for text in FIXED)


def test_the_prose_encodes_equal_to_sentencepiece(unigram):
    ref, ours = unigram
    lines = corpora.prose()[:100_000].splitlines()
    assert [ours.encode(line) for line in lines] == [ref.encode(line) for line in lines]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_equal_to_sentencepiece_on_text_in_many_scripts(unigram, many_scripts, data):
    ref, ours = unigram
    assert_same_pieces(ref, ours, data.draw(many_scripts))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.integers(0, 999), max_size=20))
def test_unigram_decode_equals_sentencepiece_on_random_ids(unigram, ids):
    ref, ours = unigram
    assert ours.decode(ids) == ref.decode(ids)


# -- the files themselves ----------------------------------------------------------------

@pytest.mark.parametrize("name, reader", [
    ("minilm_tokenizer.json.gz", minilm_tokenizer_json),
    ("sentencepiece_test_model.model.gz", botchan_model_bytes)])
def test_a_damaged_file_is_refused_naming_it(monkeypatch, name, reader):
    data = gzip.decompress((resources.files("bpe_course") / "data" / name).read_bytes())
    damaged = gzip.compress(data[:-1] + bytes([data[-1] ^ 1]))

    class Damaged:
        def __truediv__(self, part):
            return self

        def read_bytes(self):
            return damaged
    monkeypatch.setattr(resources, "files", lambda package: Damaged())
    with pytest.raises(ValueError, match=f"bpe_course/data/{name} .*reinstall"):
        reader()


def test_a_damaged_tokenizer_config_is_refused_naming_it(monkeypatch):
    from bpe_course.pipeline.tokenizer_json import MINILM_CONFIG, minilm_tokenizer_config_json
    data = (resources.files("bpe_course") / "data" / MINILM_CONFIG).read_bytes()
    damaged = data.replace(b"512", b"513")

    class Damaged:
        def __truediv__(self, part):
            return self

        def read_bytes(self):
            return damaged
    monkeypatch.setattr(resources, "files", lambda package: Damaged())
    with pytest.raises(ValueError, match=f"bpe_course/data/{MINILM_CONFIG} .*reinstall"):
        minilm_tokenizer_config_json()


# -- the model's folder, as transformers loads it (chapter 14) ----------------------------------

def test_transformers_on_the_model_folder_equals_the_course_pipeline(tmp_path):
    # AutoTokenizer reads tokenizer.json and tokenizer_config.json; on single texts its ids and
    # offsets are the course's, and the config gives the model's limit and special tokens.
    transformers = pytest.importorskip("transformers")
    from bpe_course.pipeline.tokenizer_json import minilm_tokenizer_config_json
    (tmp_path / "tokenizer.json").write_text(minilm_tokenizer_json(), encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text(minilm_tokenizer_config_json(),
                                                    encoding="utf-8")
    tok = transformers.AutoTokenizer.from_pretrained(tmp_path)
    ours = minilm_tokenizer()
    ours.no_padding()
    ours.no_truncation()
    for text in FIXED:
        enc = tok(text, return_offsets_mapping=True, verbose=False)
        mine = ours.encode_with_offsets(text)
        assert enc["input_ids"] == mine.ids, text
        assert [tuple(o) for o in enc["offset_mapping"]] == mine.offsets, text
    assert (tok.model_max_length, tok.cls_token, tok.sep_token, tok.pad_token) == (
        512, "[CLS]", "[SEP]", "[PAD]")
