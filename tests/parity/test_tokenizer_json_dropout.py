"""A BPE `tokenizer.json` with `dropout`: `load_tokenizer_json` draws each segmentation as
often as Hugging Face `tokenizers` does.

Random draws cannot be equal id for id, so the distributions are compared: N encodings of
the same text on each side, and every segmentation's frequency within a binomial tolerance
(5 standard deviations of the difference of two frequencies). The files are trained by the
library itself (a GPT-2-style byte-level BPE, a BPE with a continuing-subword prefix and an
end-of-word suffix, a Llama-style BPE with byte fallback, a BPE with `ignore_merges`), and
two are written by hand to show the library's loop apart from the paper's (see
`bpe_course.pipeline.models.BPE.merge_all`).
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import corpora, load_tokenizer_json
from bpe_course.dropout import NO_MERGE, merge_with_dropout

tokenizers = pytest.importorskip("tokenizers")
from hf_models import byte_fallback_bpe  # noqa: E402
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402,E501

N = 2500
TEXT = corpora.prose()[:60_000].splitlines()


def byte_level() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=600, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok


def affixes() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##",
                               end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    # "##" dropped, then "</w>" as a space: the text back, however the word was cut
    tok.decoder = decoders.Sequence([decoders.Replace("##", ""), decoders.BPEDecoder()])
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=700, special_tokens=["[UNK]"], continuing_subword_prefix="##",
        end_of_word_suffix="</w>", show_progress=False))
    return tok


def byte_fallback() -> Tokenizer:
    return byte_fallback_bpe(TEXT, ["<unk>"])


def ignore_merges() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=500, special_tokens=["<unk>"], show_progress=False))
    # a word of the vocabulary that the merges cannot make: whole only by ignore_merges
    data = json.loads(tok.to_str())
    data["model"]["vocab"]["thaton"] = len(data["model"]["vocab"])
    return Tokenizer.from_str(json.dumps(data))


def second_chance() -> Tokenizer:
    """Merges "a b", "b a", "b ab": in "abab", merging "a b" at the left leaves a stale
    "b a" entry in the library's heap, which gives a skipped "a b" at the right a second
    draw. (The paper's loop has no such entry: there, "ab a b" is 0.9 * 0.1 at p = 0.1; in
    the library 0.9 * 0.1 * (0.1 + 0.9 * 0.1).)"""
    vocab = {"a": 0, "b": 1, "ab": 2, "ba": 3, "bab": 4}
    return Tokenizer(models.BPE(vocab, [("a", "b"), ("b", "a"), ("b", "ab")]))


def repeated() -> Tokenizer:
    """One letter, merged in twos and fours: "aaaa" has overlapping "a a" entries."""
    vocab = {"a": 0, "aa": 1, "aaaa": 2}
    return Tokenizer(models.BPE(vocab, [("a", "a"), ("aa", "aa")]))


BUILDERS = {"byte_level": byte_level, "affixes": affixes, "byte_fallback": byte_fallback,
            "ignore_merges": ignore_merges, "second_chance": second_chance,
            "repeated": repeated}


@pytest.fixture(scope="module")
def paths(tmp_path_factory) -> dict:
    """name -> the path of a tokenizer.json without dropout, written by `tokenizers`."""
    tmp = tmp_path_factory.mktemp("dropout_json")
    out = {}
    for name, build in BUILDERS.items():
        out[name] = tmp / f"{name}.json"
        build().save(str(out[name]))
    return out


def with_dropout(path, dropout, tmp_path):
    """The same file with `dropout` set: (the library's Tokenizer, the course's Pipeline)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["dropout"] = dropout
    changed = tmp_path / f"{path.stem}_{dropout}.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    return Tokenizer.from_file(str(changed)), load_tokenizer_json(changed)


def worst_gap(ours: Counter, theirs: Counter) -> float:
    """The largest gap between two frequencies of a segmentation, in standard deviations
    of the difference of two binomial frequencies over N draws each."""
    worst = 0.0
    for segmentation in set(ours) | set(theirs):
        a, b = ours[segmentation] / N, theirs[segmentation] / N
        p = (a + b) / 2
        spread = math.sqrt(p * (1 - p) * 2 / N)
        worst = max(worst, abs(a - b) / spread if spread else 0.0)
    return worst


def library_draws(ref, text: str) -> Counter:
    return Counter(tuple(ref.encode(text).ids) for _ in range(N))


def our_draws(ours, text: str, seed: int = 1) -> Counter:
    rng = random.Random(seed)
    return Counter(tuple(ours.encode(text, rng=rng)) for _ in range(N))


# per file: a word or two, in the shape its pre-tokenizer gives them
TEXTS = {"byte_level": ["tokenization", " that", " there is"],
         "affixes": ["instances", "Hello world"],
         "byte_fallback": [" assignment", " naïve €"],
         "ignore_merges": ["thaton", "the"],
         "second_chance": ["abab"],
         "repeated": ["aaaa", "aaaaa"]}


@pytest.mark.parametrize("dropout", [0.1, 0.3, 0.7])
@pytest.mark.parametrize("name", list(TEXTS))
def test_each_segmentation_is_drawn_as_often_as_the_library_draws_it(paths, tmp_path, name,
                                                                       dropout):
    ref, ours = with_dropout(paths[name], dropout, tmp_path)
    for text in TEXTS[name]:
        theirs = library_draws(ref, text)
        mine = our_draws(ours, text)
        assert worst_gap(mine, theirs) <= 5, (text, mine.most_common(5),
                                              theirs.most_common(5))
        assert len(mine) > 1                    # it did sample


def paper_segmentation(model, word: str, dropout: float, rng) -> tuple[int, ...]:
    """`word` through the paper's Algorithm 1 (`bpe_course.dropout.merge_with_dropout`) with
    the model's merges. That function knows a token by the rank of the merge that makes it,
    so each token is written as that rank (a starting symbol as BIG + its id) and back."""
    BIG = 10**9
    made_by = {rank: made for rank, made in model.merges.values()}
    rank_of = {made: rank for rank, made in made_by.items()}

    def id_of(key):
        return made_by[key] if key < BIG else key - BIG

    def merged(a, b):
        return model.merges.get((id_of(a), id_of(b)), (NO_MERGE,))[0]

    start = [rank_of.get(i, BIG + i) for i, _, _ in model.symbols(word)]
    return tuple(id_of(k) for k in merge_with_dropout(start, merged, dropout, rng))


@pytest.mark.parametrize("name, word, dropout", [
    ("second_chance", "abab", 0.1),         # "ab a b": 1.7% in the library, 9% in the paper
    ("byte_level", "Ġthat", 0.1),          # whole: about 96% in the library, 79% in the paper
    ("byte_level", "Ġthere", 0.3),
    ("affixes", "instances", 0.3),
])
def test_the_papers_loop_draws_other_frequencies(paths, tmp_path, name, word, dropout):
    """The library's loop is not the paper's Algorithm 1: the course's implementation of
    the paper (`bpe_course.dropout`) fails the comparison that the pipeline passes."""
    ref, ours = with_dropout(paths[name], dropout, tmp_path)
    theirs = Counter(tuple(t.id for t in ref.model.tokenize(word)) for _ in range(N))
    rng = random.Random(2)
    mine = Counter(tuple(i for i, _, _ in ours.model.tokenize(word, rng=rng))
                   for _ in range(N))
    paper = Counter(paper_segmentation(ours.model, word, ours.model.dropout, rng)
                    for _ in range(N))
    assert worst_gap(mine, theirs) <= 5
    assert worst_gap(paper, theirs) > 5, (paper.most_common(5), theirs.most_common(5))


def test_a_stale_entry_gives_a_skipped_merge_a_second_draw(paths, tmp_path):
    """`second_chance`'s "abab" at p = 0.1: "ab a b" has probability 0.9 * 0.1 in the
    paper's loop and 0.9 * 0.1 * (0.1 + 0.9 * 0.1) in the library's (BPE.merge_all)."""
    ref, ours = with_dropout(paths["second_chance"], 0.1, tmp_path)
    rng = random.Random(4)
    draws = {"library": Counter(tuple(t.value for t in ref.model.tokenize("abab"))
                                for _ in range(N)),
             "course": Counter(tuple(t for _, t, _ in ours.model.tokenize("abab", rng=rng))
                               for _ in range(N)),
             "paper": Counter(tuple(ours.model.id_to_token(i) for i in paper_segmentation(
                 ours.model, "abab", 0.1, rng)) for _ in range(N))}
    expected = {"library": 0.9 * 0.1 * (0.1 + 0.9 * 0.1), "course": 0.9 * 0.1 * 0.19,
                "paper": 0.9 * 0.1}
    for side, p in expected.items():
        assert abs(draws[side][("ab", "a", "b")] / N - p) <= 5 * math.sqrt(p * (1 - p) / N), \
            (side, draws[side])


@pytest.mark.parametrize("name", list(TEXTS))
def test_dropout_one_leaves_the_characters_or_bytes(paths, tmp_path, name):
    ref, ours = with_dropout(paths[name], 1.0, tmp_path)
    for text in TEXTS[name] + list(corpora.HARD_STRINGS)[:8] + ["", "x y", "€€ 鬱 \x00"]:
        expected = ref.encode(text)
        got = ours.encode_with_offsets(text)
        assert (got.ids, got.tokens, got.offsets) == (expected.ids, expected.tokens,
                                                      expected.offsets), text
        # nothing merged: each token is one starting symbol of its word
        assert all(t in ("[UNK]", "<unk>") or len(t.removeprefix("##").removesuffix("</w>"))
                   <= 1 or t.startswith("<0x") for t in got.tokens), got.tokens


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="#"),
                   max_size=30)
       | st.lists(st.sampled_from(corpora.prose()[:3000].split()), max_size=6).map(" ".join),
       dropout=st.floats(0, 1), seed=st.integers(0, 2**32))
@pytest.mark.parametrize("name", ["byte_level", "affixes", "byte_fallback"])
def test_dropout_changes_the_pieces_never_the_decoded_text(paths, tmp_path, name, text,
                                                             dropout, seed):
    ref, plain = with_dropout(paths[name], None, tmp_path)
    _, ours = with_dropout(paths[name], dropout, tmp_path)
    ids = ours.encode(text, rng=random.Random(seed))
    assert ours.decode(ids) == plain.decode(plain.encode(text)) == ref.decode(ids)
    if dropout == 0:
        assert ids == plain.encode(text) == ref.encode(text).ids


def test_the_same_generator_gives_the_same_tokens_and_no_generator_fresh_ones(paths,
                                                                              tmp_path):
    _, ours = with_dropout(paths["byte_level"], 0.5, tmp_path)
    text = "tokenization is the first step"
    assert ours.encode(text, rng=random.Random(7)) == ours.encode(text, rng=random.Random(7))
    assert len({tuple(ours.encode(text)) for _ in range(50)}) > 1


def test_ignore_merges_is_bypassed_by_dropout_as_in_the_library(paths, tmp_path):
    """"thaton" is in the vocabulary, but no merge makes it: with a dropout the library
    goes past `ignore_merges` and never returns it whole, even at 0.01."""
    ref, ours = with_dropout(paths["ignore_merges"], 0.01, tmp_path)
    whole = [ours.model.token_to_id("thaton")]
    assert all(ref.encode("thaton").ids != whole for _ in range(200))
    assert all(ours.encode("thaton") != whole for _ in range(200))
    for dropout in (None, 0.0):
        ref, ours = with_dropout(paths["ignore_merges"], dropout, tmp_path)
        assert ours.encode("thaton") == ref.encode("thaton").ids == whole


def test_the_dropout_attribute_reads_and_switches_as_the_librarys(paths, tmp_path):
    ref, ours = with_dropout(paths["byte_level"], 0.1, tmp_path)
    assert ours.model.dropout == ref.model.dropout == 0.10000000149011612   # a 32-bit float
    text = "tokenization is the first step"
    ref.model.dropout = None
    ours.model.dropout = None
    assert ours.model.dropout is ref.model.dropout is None
    assert all(ours.encode(text) == ref.encode(text).ids for _ in range(20))
    ours.model.dropout = 1.0
    assert ours.encode(text) == [ours.model.token_to_id(c) for c in text.replace(" ", "Ġ")]
    for bad, error in [(1.5, ValueError), (-0.1, ValueError), ("0.5", TypeError)]:
        with pytest.raises(error, match="dropout"):
            ours.model.dropout = bad


@pytest.mark.parametrize("dropout", [1.5, -0.1, True, "0.5", [0.1]])
def test_a_dropout_out_of_range_in_the_file_is_refused(paths, tmp_path, dropout):
    path = tmp_path / "bad.json"
    data = json.loads(paths["repeated"].read_text(encoding="utf-8"))
    data["model"]["dropout"] = dropout
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(Exception):               # the library refuses it too
        Tokenizer.from_file(str(path))
    with pytest.raises(ValueError, match=r"bad\.json: the BPE dropout must be a number"):
        load_tokenizer_json(path)


def test_a_dropout_read_as_a_32_bit_float(paths, tmp_path):
    """1.00000001 is 1.0 in 32 bits: the library takes it, and so does the course."""
    ref, ours = with_dropout(paths["repeated"], 1.00000001, tmp_path)
    assert ours.model.dropout == ref.model.dropout == 1.0
    assert ours.encode("aaaa") == ref.encode("aaaa").ids == [0, 0, 0, 0]
