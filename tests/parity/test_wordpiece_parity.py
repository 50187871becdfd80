"""WordPiece equals Hugging Face `tokenizers` (BertNormalizer + BertPreTokenizer + WordPiece):
the same ids and the same offsets, character spans of the original text.

The model is trained by `tokenizers`' own WordPiece trainer on the prose
(`wordpiece_tokenizer`); the normalizer and the pre-tokenizer are also checked alone, with
each of the normalizer's switches.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import WordPiece, corpora
from bpe_course.wordpiece.normalizer import normalize
from bpe_course.wordpiece.pretokenizer import pretokenize

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import normalizers, pre_tokenizers  # noqa: E402

EXTRA = ["", " ", "\t\n", "Hello, World!", "héllo HÉLLO", "ﬁne Ａ ①", "中文字 and 日本語",
         "가나다 abc", "e\u0301\u0301x", "a\x00b\ufffdc\x01d\u200be", "ΣΑΣ ς", "İstanbul",
         "don't U.S.A. $5^2 a+b", "\u166d\U00011938\ue000", "😀👍🏽 x", "a" * 101, "a" * 100,
         "x" * 99 + "é", "word\u3000word\xa0word\u2009word", "\x1c\x1d\x1e\x1f", "\u0085x"]
FIXED = list(corpora.HARD_STRINGS) + list(corpora.SAMPLES.values()) + EXTRA


@pytest.fixture(scope="module")
def pair(wordpiece_tokenizer):
    """(the tokenizers Tokenizer, ours from the same vocabulary)."""
    return wordpiece_tokenizer, WordPiece(wordpiece_tokenizer.get_vocab())


def assert_same(ref, ours, text: str) -> None:
    encoding = ref.encode(text)
    mine = ours.encode_with_offsets(text)
    assert [i for i, _ in mine] == encoding.ids, text
    assert [span for _, span in mine] == encoding.offsets, text
    assert ours.encode(text) == encoding.ids
    assert ours.decode(encoding.ids) == ref.decode(encoding.ids, skip_special_tokens=False), text


def test_ids_offsets_and_decoding_equal_tokenizers_on_fixed_strings(pair):
    ref, ours = pair
    for text in FIXED:
        assert_same(ref, ours, text)


def test_the_fixed_strings_reach_unk_and_continuation_pieces(pair):
    ref, ours = pair
    tokens = [t for text in FIXED for t in ref.encode(text).tokens]
    assert "[UNK]" in tokens and any(t.startswith("##") for t in tokens)


def test_a_long_word_is_one_unk(pair):
    _, ours = pair
    assert ours.encode_with_offsets("a" * 101) == [(ours.vocab["[UNK]"], (0, 101))]


def test_the_whole_prose_encodes_equal_to_tokenizers(pair):
    ref, ours = pair
    text = corpora.prose()[:100_000]
    encoding = ref.encode(text)
    mine = ours.encode_with_offsets(text)
    assert [i for i, _ in mine] == encoding.ids
    assert [span for _, span in mine] == encoding.offsets


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_ids_and_offsets_equal_tokenizers_on_text_in_many_scripts(pair, many_scripts, data):
    ref, ours = pair
    assert_same(ref, ours, data.draw(many_scripts))


SWITCHES = [dict(), dict(lowercase=False), dict(strip_accents=True, lowercase=False),
            dict(strip_accents=False), dict(clean_text=False),
            dict(handle_chinese_chars=False)]


@pytest.mark.parametrize("options", SWITCHES, ids=lambda o: ",".join(o) or "default")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_normalizer_equals_bert_normalizer_with_each_switch(many_scripts, options, data):
    text = data.draw(many_scripts)
    assert normalize(text, **options)[0] == normalizers.BertNormalizer(**options).normalize_str(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_the_pretokenizer_equals_bert_pretokenizer(text):
    theirs = pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)
    assert [(w, (s, e)) for w, s, e in pretokenize(text)] == theirs


def test_a_vocab_file_loads_like_tokenizers_reads_it(pair, tmp_path):
    ref, _ = pair
    vocab = ref.get_vocab()
    path = tmp_path / "vocab.txt"
    path.write_text("".join(p + "\n" for p, _ in sorted(vocab.items(), key=lambda kv: kv[1])),
                    encoding="utf-8")
    ours = WordPiece.from_vocab_file(path)
    theirs = tokenizers.Tokenizer(tokenizers.models.WordPiece.from_file(str(path), unk_token="[UNK]"))
    theirs.normalizer = normalizers.BertNormalizer()
    theirs.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    for text in FIXED[:20]:
        assert ours.encode(text) == theirs.encode(text).ids
