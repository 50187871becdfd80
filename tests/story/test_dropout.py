"""BPE-dropout (`bpe_course.dropout`): plain BPE at p = 0, bytes at p = 1, always decodable,
and the segmentations of a word drawn with the probabilities of the paper's algorithm."""

import itertools
import math
import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import BasicTokenizer, RegexTokenizer, corpora, train_bpe
from bpe_course.dropout import NO_MERGE, encode_chunks_with_dropout, merge_with_dropout


@pytest.fixture(scope="module")
def regex_tok():
    _, merges = train_bpe(corpora.prose()[:50_000], 256 + 300, ["<|endoftext|>"])
    return RegexTokenizer.from_merges(merges, ["<|endoftext|>"])


@pytest.fixture(scope="module")
def basic_tok():
    tok = BasicTokenizer()
    tok.train(corpora.prose()[:3_000], 256 + 60)
    return tok


texts = st.text(max_size=60)
probabilities = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=150, deadline=None)
@given(text=texts, p=probabilities, seed=st.integers(0, 2**32))
def test_decode_undoes_encode_with_any_dropout(regex_tok, basic_tok, text, p, seed):
    text = text.encode("utf-8", "replace").decode("utf-8")      # no lone surrogates
    # "all": a text that holds "<|endoftext|>" encodes it as the special token, not an error
    assert regex_tok.decode(regex_tok.encode(text, "all", dropout=p,
                                             rng=random.Random(seed))) == text
    assert basic_tok.decode(basic_tok.encode(text, dropout=p, rng=random.Random(seed))) == text


@settings(max_examples=150, deadline=None)
@given(text=texts, seed=st.integers(0, 2**32))
def test_dropout_zero_is_plain_bpe(regex_tok, basic_tok, text, seed):
    assert regex_tok.encode(text, "all", dropout=0.0, rng=random.Random(seed)) == \
        regex_tok.encode(text, "all")
    assert basic_tok.encode(text, dropout=0, rng=random.Random(seed)) == basic_tok.encode(text)
    # the slow loop of the dropout path, with nothing dropped, is plain BPE too
    data = text.encode("utf-8", "replace")
    rng = random.Random(seed)
    assert encode_chunks_with_dropout(regex_tok, [data], 0.0, rng) == regex_tok.encode_chunk(data)


@given(text=texts)
def test_dropout_one_gives_the_bytes(regex_tok, text):
    data = text.encode("utf-8", "replace")
    ids = regex_tok.encode(data.decode("utf-8"), dropout=1.0, rng=random.Random(0))
    assert ids == list(data)


def test_the_same_rng_state_gives_the_same_ids(regex_tok):
    text = corpora.prose()[:2_000]
    first = regex_tok.encode(text, dropout=0.2, rng=random.Random(7))
    assert first == regex_tok.encode(text, dropout=0.2, rng=random.Random(7))
    assert first != regex_tok.encode(text, dropout=0.2, rng=random.Random(8))
    assert len(first) > len(regex_tok.encode(text))


def test_special_tokens_are_never_dropped(regex_tok):
    ids = regex_tok.encode("hello<|endoftext|>world", allowed_special="all", dropout=1.0,
                           rng=random.Random(0))
    assert ids == list(b"hello") + [regex_tok.special_tokens["<|endoftext|>"]] + list(b"world")


def test_a_vocabulary_whose_ids_are_not_ranks():
    vocab = {0: b"<|eot|>", **{1 + b: bytes([b]) for b in range(256)}, 300: b"lo", 299: b"llo"}
    tok = RegexTokenizer.from_vocab_merges(vocab, [(b"l", b"o"), (b"l", b"lo")], ["<|eot|>"])
    assert tok.encode("llo", dropout=0.0) == [299]
    assert tok.encode("llo", dropout=1.0) == [109, 109, 112]
    seen = {tuple(tok.encode("llo", dropout=0.5, rng=random.Random(s))) for s in range(100)}
    assert seen == {(299,), (109, 300), (109, 109, 112)}


def test_bad_dropout_is_refused(regex_tok):
    with pytest.raises(ValueError, match="probability"):
        regex_tok.encode("hi", dropout=1.5)
    with pytest.raises(TypeError, match="number"):
        regex_tok.encode("hi", dropout="0.1")
    with pytest.raises(TypeError, match="rng"):
        regex_tok.encode("hi", dropout=0.1, rng=42)


def exact_distribution(ids: tuple, merged_id, p: float) -> dict[tuple, float]:
    """The probability of every segmentation under the paper's Algorithm 1, by enumerating
    every subset of surviving merges at every step (fine for a short word)."""

    @lru_cache(maxsize=None)
    def outcomes(state: tuple) -> tuple:
        result: Counter = Counter()
        occurrences = [(merged_id(a, b), i) for i, (a, b) in enumerate(zip(state, state[1:]))
                       if merged_id(a, b) != NO_MERGE]
        for kept in itertools.product((False, True), repeat=len(occurrences)):
            prob = math.prod((1 - p) if k else p for k in kept)
            survivors = [occ for occ, k in zip(occurrences, kept) if k]
            if not survivors:
                result[state] += prob
                continue
            rank, i = min(survivors)
            for final, q in outcomes(state[:i] + (rank,) + state[i + 2:]):
                result[final] += prob * q
        return tuple(result.items())

    return dict(outcomes(tuple(ids)))


def test_the_segmentations_of_a_word_follow_the_paper_and_change_with_p(regex_tok):
    word = " lower".encode()
    plain = tuple(regex_tok.encode_chunk(word))
    shares = {}
    for p in (0.0, 0.1, 0.3, 0.6):
        exact = exact_distribution(tuple(word), regex_tok._merged_id, p)
        assert math.isclose(sum(exact.values()), 1.0)
        rng, n = random.Random(1234), 4000
        drawn = Counter(tuple(merge_with_dropout(list(word), regex_tok._merged_id, p, rng))
                        for _ in range(n))
        assert set(drawn) <= set(exact)
        for segmentation, prob in exact.items():     # every share within 5 standard errors
            sigma = math.sqrt(prob * (1 - prob) / n)
            assert abs(drawn[segmentation] / n - prob) <= 5 * sigma + 1e-9, (p, segmentation)
        mean_length = sum(len(s) * k for s, k in drawn.items()) / n
        shares[p] = (drawn[plain] / n, mean_length)
    # p = 0: always the plain segmentation; as p grows, it is drawn less, tokens get shorter
    assert shares[0.0] == (1.0, len(plain))
    assert shares[0.0][0] > shares[0.1][0] > shares[0.3][0] > shares[0.6][0]
    assert shares[0.0][1] < shares[0.1][1] < shares[0.3][1] < shares[0.6][1]
