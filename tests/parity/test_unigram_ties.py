"""Unigram ties broken as each library breaks them: `tokenizers`' and `sentencepiece`'s.

When two segmentations of a text have exactly the same score, the best path is not the
answer by itself: which one a library returns depends on the order in which its Viterbi
pass finds them (both keep the path found first at a position and replace it only by a
strictly better one, scanning start positions left to right and pieces shortest first).
Runs of one repeated character are where real models meet this most (`-----------`
under pieces `-`, `--`, `----`, ...), so every test here is built to tie: scores are
small multiples of 1/2, whose sums are exact in floating point, so many segmentations of
a text score exactly alike, and the texts are runs and short strings over two or three
characters.

The models are drawn at random: a vocabulary of strings over the alphabet (every single
character included, so that no text needs `<unk>`, plus a case with one left out), each
with a score from a handful of values.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.pipeline.models import Unigram
from bpe_course.sentencepiece.model_proto import CONTROL, NORMAL, UNKNOWN, write_model
from bpe_course.sentencepiece.unigram import SentencePieceUnigram

tokenizers = pytest.importorskip("tokenizers")

SCORES = [-0.5, -1.0, -1.5, -2.0, -2.5, -3.0, -4.0]     # sums of these are exact: ties


@st.composite
def tied_models(draw, alphabet: str = "-ab", longest: int = 5):
    """A vocabulary over `alphabet` (its single characters always in) with tying scores."""
    candidates = ["".join(p) for n in range(2, longest + 1)
                  for p in itertools.product(alphabet, repeat=n)]
    pieces = list(alphabet) + draw(st.lists(st.sampled_from(candidates), unique=True,
                                            min_size=1, max_size=12))
    scores = draw(st.lists(st.sampled_from(SCORES), min_size=len(pieces), max_size=len(pieces)))
    return list(zip(pieces, scores))


def texts(alphabet: str = "-ab"):
    """Runs of one character (the common case in real text) and short mixed strings."""
    runs = st.builds(lambda c, n: c * n, st.sampled_from(alphabet), st.integers(1, 40))
    return st.one_of(runs, st.text(alphabet, min_size=1, max_size=24))


def library_pieces(vocab: list[tuple[str, float]], text: str) -> list[str]:
    model = tokenizers.models.Unigram([("<unk>", 0.0), *vocab], unk_id=0, byte_fallback=False)
    return tokenizers.Tokenizer(model).encode(text).tokens


def course_pieces(vocab: list[tuple[str, float]], text: str) -> list[str]:
    return Unigram([("<unk>", 0.0), *vocab], unk_id=0).segment(text)


# -- tokenizers ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, 24))
def test_a_run_of_dashes_splits_as_tokenizers_splits_it(n):
    vocab = [("-", -1.0), ("--", -2.0), ("----", -4.0), ("--------", -8.0), ("---", -3.0)]
    assert course_pieces(vocab, "-" * n) == library_pieces(vocab, "-" * n)


@settings(max_examples=300, deadline=None)
@given(tied_models(), st.lists(texts(), min_size=1, max_size=6))
def test_equal_score_segmentations_come_out_as_tokenizers_gives_them(vocab, samples):
    for text in samples:
        assert course_pieces(vocab, text) == library_pieces(vocab, text), (vocab, text)


@settings(max_examples=100, deadline=None)
@given(tied_models(alphabet="-ab"), st.lists(texts(alphabet="-abc"), min_size=1, max_size=4))
def test_ties_around_unknown_characters_come_out_as_tokenizers_gives_them(vocab, samples):
    for text in samples:                # "c" is in no piece: <unk> competes on the path
        assert course_pieces(vocab, text) == library_pieces(vocab, text), (vocab, text)


# -- sentencepiece --------------------------------------------------------------------------

def spm_model(vocab: list[tuple[str, float]]) -> bytes:
    """A Unigram `.model` with these pieces, no normalization and no dummy prefix, so that
    the text reaches the Viterbi pass as it is written."""
    pieces = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL),
              *[(piece, score, NORMAL) for piece, score in vocab]]
    return write_model(pieces, {"model_type": 1},
                       {"name": "identity", "add_dummy_prefix": False,
                        "remove_extra_whitespaces": False})


@settings(max_examples=200, deadline=None)
@given(tied_models(), st.lists(texts(), min_size=1, max_size=6))
def test_equal_score_segmentations_come_out_as_sentencepiece_gives_them(vocab, samples):
    spm = pytest.importorskip("sentencepiece")
    data = spm_model(vocab)
    ref, ours = spm.SentencePieceProcessor(model_proto=data), SentencePieceUnigram.from_bytes(data)
    for text in samples:
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), (vocab, text)
        assert ours.nbest_encode(text, 3) == ref.nbest_encode(text, nbest_size=3), (vocab, text)


@pytest.mark.parametrize("n", range(1, 24))
def test_a_run_of_dashes_splits_as_sentencepiece_splits_it(n):
    spm = pytest.importorskip("sentencepiece")
    data = spm_model([("-", -1.0), ("--", -2.0), ("----", -4.0), ("--------", -8.0),
                      ("---", -3.0)])
    ref, ours = spm.SentencePieceProcessor(model_proto=data), SentencePieceUnigram.from_bytes(data)
    assert ours.encode("-" * n, out_type=str) == ref.encode("-" * n, out_type=str)
