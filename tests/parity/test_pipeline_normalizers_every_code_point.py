"""The pipeline's normalizers equal `tokenizers`' on every code point (slow, ~25 s).

Each code point is normalized on its own, between separators, in one long string on both
sides. Lowercase, StripAccents, Nmt and SentencePiece's compiled rules (`Precompiled`) see
every code point; Unicode's four forms and BertNormalizer see every code point that any
normal form, lowercasing or the course's Unicode tables could change (the others, ASCII
letters and most of CJK among them, pass through every step untouched, and checking them
too takes a minute more: it was run, and they agreed).

Offsets through these normalizers are checked on Hypothesis text in
`test_tokenizer_json_parity.py`.
"""

from __future__ import annotations

import unicodedata

import pytest

from bpe_course import corpora
from bpe_course.pipeline import normalizers as ours
from bpe_course.pipeline.normalized import NormalizedString

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import normalizers as theirs  # noqa: E402

pytestmark = pytest.mark.slow

SEPARATOR = "\u01c2"          # "ǂ", a letter no normalizer changes and none produces
EVERY = [c for c in range(0x110000) if c != 0x1C2 and not 0xD800 <= c <= 0xDFFF]


def may_change(code: int) -> bool:
    char = chr(code)
    return (code > 0x7F and (unicodedata.category(char) in ("Mn", "Mc", "Me", "Cc", "Cf", "Co",
                                                            "Zs", "Zl", "Zp")
                             or unicodedata.combining(char)
                             or any(unicodedata.normalize(f, char) != char
                                    for f in ("NFD", "NFKD"))
                             or char.lower() != char or 0x1100 <= code <= 0x11FF
                             or 0xAC00 <= code <= 0xD7A3)) or chr(code) in "\t\n\r "


CHANGEABLE = [c for c in EVERY if may_change(c)]


def assert_same_on(codes: list[int], mine, reference) -> None:
    text = "".join(SEPARATOR + chr(c) for c in codes)
    s = NormalizedString(text)
    mine(s)
    got = s.normalized.split(SEPARATOR)[1:]
    expected = reference.normalize_str(text).split(SEPARATOR)[1:]
    wrong = [(hex(c), g, e) for c, g, e in zip(codes, got, expected) if g != e]
    assert wrong == [], f"{len(wrong)} code points differ, the first: {wrong[:5]}"
    assert got == expected      # (a rule may write a "ǂ" itself: then the pieces shift)


@pytest.mark.parametrize("name", ["Lowercase", "StripAccents", "Nmt"])
def test_on_every_code_point(name):
    assert_same_on(EVERY, getattr(ours, name)(), getattr(theirs, name)())


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_unicode_forms_on_every_code_point_they_may_change(form):
    assert_same_on(CHANGEABLE, ours.Unicode(form), getattr(theirs, form)())


def test_bert_normalizer_on_every_code_point_it_may_change():
    assert_same_on(CHANGEABLE, ours.BertNormalizer(), theirs.BertNormalizer())


def test_precompiled_rules_on_every_code_point(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    from bpe_course.sentencepiece.model_proto import read_model
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpora.prose()[:60_000].splitlines()),
        model_prefix=str(tmp_path / "nmt_nfkc"), vocab_size=300, num_threads=1, minloglevel=2)
    blob = read_model((tmp_path / "nmt_nfkc.model").read_bytes()).normalizer[
        "precompiled_charsmap"]
    assert_same_on(EVERY, ours.Precompiled(blob), theirs.Precompiled(blob))
