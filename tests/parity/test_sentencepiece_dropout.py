"""SentencePieceBPE's sampling (BPE-dropout, `enable_sampling=True, alpha=p`) draws the
segmentations of a word as often as the `sentencepiece` library does."""

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.sentencepiece.tokenizer import mistral_model_bytes

N = 3000


@pytest.mark.parametrize("word, alpha", [("tokenization", 0.1), ("tokenization", 0.4),
                                         (" unbelievable", 0.2)])
def test_the_segmentations_are_drawn_as_often_as_the_library_draws_them(mistral, spm, word,
                                                                        alpha):
    library = spm.SentencePieceProcessor(model_proto=mistral_model_bytes())
    spm.set_random_generator_seed(1)
    theirs = Counter(tuple(library.encode(word, enable_sampling=True, alpha=alpha))
                     for _ in range(N))
    rng = random.Random(1)
    ours = Counter(tuple(mistral.encode(word, enable_sampling=True, alpha=alpha, rng=rng))
                   for _ in range(N))
    for segmentation in set(ours) | set(theirs):
        a, b = ours[segmentation] / N, theirs[segmentation] / N
        p = (a + b) / 2
        assert abs(a - b) <= 5 * math.sqrt(p * (1 - p) * 2 / N) + 1e-9, segmentation
    if alpha <= 0.2:                  # a little dropout: mostly the usual segmentation
        assert ours.most_common(1)[0][0] == tuple(mistral.encode(word))


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=40), alpha=st.floats(0, 1), seed=st.integers(0, 2**32))
def test_sampling_changes_the_pieces_never_the_text(mistral, text, alpha, seed):
    text = text.encode("utf-8", "replace").decode("utf-8")
    ids = mistral.encode(text, enable_sampling=True, alpha=alpha, rng=random.Random(seed))
    assert mistral.decode(ids) == mistral.decode(mistral.encode(text))
    if alpha == 0:
        assert ids == mistral.encode(text)


def test_alpha_one_leaves_the_characters(mistral, spm):
    library = spm.SentencePieceProcessor(model_proto=mistral_model_bytes())
    for text in ("Hello world", " 鬱 42"):
        assert (mistral.encode(text, out_type=str, enable_sampling=True, alpha=1.0)
                == library.encode(text, out_type=str, enable_sampling=True, alpha=1.0))
