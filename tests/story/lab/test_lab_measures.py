"""What the lab measures: training in two steps equals train_bpe; memory; bits per byte."""

import math

import pytest

from bpe_course import RegexTokenizer, get_encoding, to_tiktoken, train_bpe
from bpe_course.lab.corpus import EOT, course_slice
from bpe_course.lab.measures import (
    PeakMemory,
    bytes_per_token,
    count_shards,
    heaps_law,
    learn_vocab,
    unigram_bits_per_byte,
)


@pytest.fixture(scope="module")
def slice_corpus(tmp_path_factory):
    return course_slice(tmp_path_factory.mktemp("slice"))


@pytest.fixture(scope="module")
def counted(slice_corpus):
    return count_shards(slice_corpus.shards("train"), [EOT], num_workers=1, progress=False)


def test_counting_shards_then_learning_equals_train_bpe_on_the_whole_text(slice_corpus, counted):
    text = "".join(p.read_text(encoding="utf-8") for p in slice_corpus.shards("train"))
    counts, _ = counted
    assert learn_vocab(counts, 1_500, [EOT]) == train_bpe(text, 1_500, [EOT], num_workers=1)


def test_a_smaller_vocabulary_is_the_start_of_a_larger_one(counted):
    counts, _ = counted
    _, small = learn_vocab(counts, 600, [EOT])
    vocab, large = learn_vocab(counts, 2_000, [EOT])
    assert large[:len(small)] == small and len(large) == 2_000 - 257
    assert vocab[1_999] == EOT.encode()


def test_growth_is_recorded_after_each_shard(slice_corpus, counted):
    counts, growth = counted
    sizes = [p.stat().st_size for p in slice_corpus.shards("train")]
    assert [n for n, _ in growth] == [sum(sizes[:k + 1]) for k in range(len(sizes))]
    assert [v for _, v in growth] == sorted(v for _, v in growth)
    assert growth[-1][1] == len(counts)


def test_counting_in_worker_processes_gives_the_same_counts(slice_corpus, counted):
    two, _ = count_shards(slice_corpus.shards("train")[:2], [EOT], num_workers=2,
                          progress=False)
    one, _ = count_shards(slice_corpus.shards("train")[:2], [EOT], num_workers=1,
                          progress=False)
    assert two == one


def test_heaps_law_recovers_a_power_law_and_needs_two_points():
    K, beta = heaps_law([(n, 3 * n ** 0.7) for n in (10**3, 10**5, 10**7)])
    assert math.isclose(K, 3) and math.isclose(beta, 0.7)
    with pytest.raises(ValueError, match="two sizes"):
        heaps_law([(100, 10)])


def test_unigram_bits_per_byte_by_hand():
    # fitted on "aab": p(a) = (2+1)/(3+3), p(b) = (1+1)/6, p(c) = (0+1)/6 over 3 tokens
    fit, test = ["aab"], ["abc"]
    expected = -(math.log2(3 / 6) + math.log2(2 / 6) + math.log2(1 / 6)) / 3
    assert math.isclose(unigram_bits_per_byte(list, fit, test, 3), expected)


def test_bytes_per_token_and_bits_per_byte_of_raw_bytes():
    docs = ["héllo wörld"]
    as_bytes = lambda d: list(d.encode("utf-8"))       # noqa: E731
    assert bytes_per_token(as_bytes, docs) == 1.0
    assert unigram_bits_per_byte(as_bytes, docs, docs, 256) < 8


def test_a_trained_vocabulary_compresses_held_out_text_better_than_bytes(slice_corpus, counted):
    counts, _ = counted
    vocab, merges = learn_vocab(counts, 2_000, [EOT])
    enc = to_tiktoken(RegexTokenizer.from_vocab_merges(vocab, merges, special_tokens=[EOT]))
    heldout = list(slice_corpus.documents("heldout"))
    fit = slice_corpus.sample("train", 500_000)
    ours = unigram_bits_per_byte(enc.encode_ordinary, fit, heldout, 2_000)
    raw = unigram_bits_per_byte(lambda d: list(d.encode()), fit, heldout, 256)
    gpt4 = get_encoding("cl100k_base")
    assert ours < raw and bytes_per_token(enc.encode_ordinary, heldout) > 2
    assert bytes_per_token(gpt4.encode_ordinary, heldout) > bytes_per_token(
        enc.encode_ordinary, heldout)


def test_peak_memory_sees_a_large_allocation():
    with PeakMemory() as mem:
        block = bytearray(50_000_000)
        del block
    assert mem.python >= 50_000_000 and mem.rss > 0 and mem.seconds >= 0
    with PeakMemory(trace=False) as plain:
        pass
    assert plain.python is None and "tracemalloc" in repr(plain)

