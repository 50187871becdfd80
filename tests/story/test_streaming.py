"""encode_iterable: the ids of the whole text for every chunking, in bounded memory."""

import functools
import itertools
import random
import tracemalloc

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    RegexTokenizer,
    corpora,
    streaming,
)
from bpe_course.corpora import HARD_STRINGS
from bpe_course.pretokenize import RULES
from bpe_course.streaming import last_safe_cut
from bpe_course.training.trainer import train_into

EOT = "<|endoftext|>"
SPECIALS = [EOT, "<|end|>", EOT + EOT, "<|fim_prefix|>"]
PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN, "gpt4o": GPT4O_SPLIT_PATTERN,
            "other": r"\w+|\s+|[^\w\s]+"}          # a pattern with no known safe cuts
# The course's test strings, and seams that change a pre-token far back.
STRINGS = HARD_STRINGS + list(corpora.SAMPLES.values()) + [
    "don't", "ab's", "WE'LL", "\n" + " " * 99 + "\n", "x\n  \n\ny", "a  b\t\tc\r\n",
    EOT, EOT + EOT, "<|end", "|>", "<|fim_prefix|>x<|end|>", "one two\nthree four"]
MODES = ["all", "none", {EOT}]


@functools.lru_cache(maxsize=None)
def tokenizer(name: str) -> RegexTokenizer:
    tok = RegexTokenizer(PATTERNS[name])
    train_into(tok, corpora.prose()[:30_000] + "".join(STRINGS), 500, SPECIALS)
    return tok


def chunked(text: str, cuts) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def same_as_encode(tok, parts, mode) -> bool:
    text = "".join(parts)
    try:
        expected = tok.encode(text, allowed_special=mode)
    except ValueError:
        with pytest.raises(ValueError, match="special token"):
            list(tok.encode_iterable(parts, allowed_special=mode))
        return True
    return list(tok.encode_iterable(parts, allowed_special=mode)) == expected


@pytest.mark.parametrize("name", list(PATTERNS))
def test_every_character_boundary_is_a_seam(name, monkeypatch):
    monkeypatch.setattr(streaming, "BLOCK", 1)      # each character handled on its own
    tok = tokenizer(name)
    for text in STRINGS + ["".join(STRINGS[-14:])]:
        for mode in MODES:
            assert same_as_encode(tok, [text], mode), (text, mode)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), name=st.sampled_from(list(PATTERNS)), mode=st.sampled_from(MODES),
       block=st.sampled_from([1, 2, 3, 5, 8, 13, 64, 2048]),
       pieces=st.lists(st.one_of(st.sampled_from(STRINGS), st.text(max_size=12)), max_size=6))
def test_random_chunkings_of_the_course_strings(data, name, mode, block, pieces):
    text = "".join(pieces)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    streaming.BLOCK = block
    try:
        assert same_as_encode(tokenizer(name), chunked(text, cuts), mode)
    finally:
        streaming.BLOCK = 2048


# Text made of what the split patterns care about: letters of both cases, apostrophes,
# digits, spaces, tabs, newlines, punctuation, a mark, a non-ASCII letter.
pieces_text = st.text(alphabet=st.sampled_from("aZ'stvx 1\t\n\r.!/é\u0301 "), max_size=40)


@settings(max_examples=300, deadline=None)
@given(text=pieces_text, name=st.sampled_from(["gpt2", "gpt4", "gpt4o"]))
def test_safe_cuts_split_like_the_whole_text(text, name):
    pattern = regex.compile(PATTERNS[name])
    cut = last_safe_cut(text, 0, len(text), PATTERNS[name])
    while cut > 0:
        assert pattern.findall(text[:cut]) + pattern.findall(text[cut:]) == pattern.findall(text)
        cut = last_safe_cut(text, 0, cut - 1, PATTERNS[name]) if cut > 1 else 0


def test_the_cuts_found_are_the_ones_expected():
    text = "one two\nthree  four\n  five's"
    assert last_safe_cut(text, 0, len(text), GPT4_SPLIT_PATTERN) == len("one two\nthree  four\n")
    assert last_safe_cut(text, 0, len(text), GPT2_SPLIT_PATTERN) == len("one two")
    assert last_safe_cut(text, 0, 9, GPT4_SPLIT_PATTERN) == 8
    assert last_safe_cut(text, 0, 8, GPT4_SPLIT_PATTERN) == 3     # nothing after `end` is seen
    assert last_safe_cut(text, 0, len(text), PATTERNS["other"]) == 0
    assert set(RULES) == {GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN}


def test_a_special_token_cut_in_two_is_one_token(monkeypatch):
    monkeypatch.setattr(streaming, "BLOCK", 1)
    tok = tokenizer("gpt4")
    eot = tok.special_tokens[EOT]
    assert list(tok.encode_iterable(["a<|endof", "text|>b"], "all")) == \
        tok.encode("a", "all") + [eot] + tok.encode("b", "all")
    # The longest special token wins even when its second half comes later.
    assert list(tok.encode_iterable([EOT, EOT, "<|end|>"], "all")) == \
        [tok.special_tokens[EOT + EOT], tok.special_tokens["<|end|>"]]


def test_a_disallowed_special_token_raises_with_its_position_in_the_whole_text(monkeypatch):
    monkeypatch.setattr(streaming, "BLOCK", 1)
    tok = tokenizer("gpt4")
    stream = tok.encode_iterable(["hello wor", "ld <|endof", "text|> again"])
    with pytest.raises(ValueError, match=r"'<\|endoftext\|>' at position 12"):
        list(stream)
    with pytest.raises(ValueError, match="<|end|>"):
        list(tok.encode_iterable(["x <|en", "d|>"], allowed_special={EOT}))


def test_disallowed_special_means_what_it_means_in_encode(monkeypatch):
    monkeypatch.setattr(streaming, "BLOCK", 1)
    tok = tokenizer("gpt4")
    parts = ["a <|end", "oftext|> b <|en", "d|>"]
    for disallowed in [(), {"<|end|>"}, "all"]:
        assert same_as_encode_with(tok, parts, "none_raise", disallowed)
        assert same_as_encode_with(tok, parts, {EOT}, disallowed)


def same_as_encode_with(tok, parts, allowed, disallowed) -> bool:
    text = "".join(parts)
    try:
        expected = tok.encode(text, allowed, disallowed)
    except ValueError:
        with pytest.raises(ValueError, match="special token"):
            list(tok.encode_iterable(parts, allowed, disallowed))
        return True
    return list(tok.encode_iterable(parts, allowed, disallowed)) == expected


def test_ids_come_lazily_from_an_endless_stream():
    tok = tokenizer("gpt4")
    endless = itertools.repeat("hello world, ")
    first = list(itertools.islice(tok.encode_iterable(endless), 10_000))
    assert first[:6] == tok.encode("hello world, hello world, ")[:6] and len(first) == 10_000


def test_pieces_must_be_text():
    tok = tokenizer("gpt4")
    with pytest.raises(TypeError, match="decode bytes first"):
        list(tok.encode_iterable([b"bytes"]))


def generated_stream(total_chars: int, seed: int = 0, on_char=None):
    """Lines of the prose corpus in a random order, with a special token now and then.

    `on_char = (n, f)` calls `f()` once `n` characters have been produced."""
    lines = corpora.prose().splitlines(keepends=True)
    rng = random.Random(seed)
    produced = 0
    while produced < total_chars:
        line = EOT if rng.random() < 0.01 else rng.choice(lines)
        produced += len(line)
        if on_char and produced >= on_char[0]:
            on_char[1]()
            on_char = None
        yield line


def test_a_20_mb_stream_encodes_in_bounded_memory():
    """20 MB of text go through `encode_iterable`; tracemalloc watches the last megabyte.

    Tracing every allocation makes encoding about ten times slower, so only
    the end of the stream is traced: an encoder that kept its input, or
    anything growing with it, would grow by at least that megabyte there.
    (The peak over a whole stream is measured in the issue's closing note.)
    """
    tok = tokenizer("gpt4")
    for _ in tok.encode_iterable(generated_stream(2_000_000, seed=1), "all"):
        pass                                # the chunk cache fills up before we measure
    baseline = []
    start = lambda: (tracemalloc.start(), baseline.append(tracemalloc.get_traced_memory()[0]))
    try:
        stream = generated_stream(20_000_000, on_char=(19_000_000, start))
        count = sum(1 for _ in tok.encode_iterable(stream, "all"))
        peak = tracemalloc.get_traced_memory()[1] - baseline[0]
    finally:
        tracemalloc.stop()
    assert count > 4_000_000                # 20 MB of text were encoded ...
    assert peak < 500_000, f"peak {peak:,} bytes above the baseline"   # ... in a few blocks
