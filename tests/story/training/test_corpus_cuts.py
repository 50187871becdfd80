"""Where a corpus may be cut: at a special token when there are some, else at a line break
that no pre-token spans."""

from bpe_course import GPT4_SPLIT_PATTERN
from bpe_course.training.corpus_cuts import cut_points

EOT = "<|endoftext|>"


def test_cuts_fall_on_special_tokens_when_there_are_some():
    text = ("word " * 30 + EOT) * 20
    cuts = cut_points(text, 100, [EOT], GPT4_SPLIT_PATTERN)
    assert len(cuts) > 5
    assert all(text.startswith(EOT, c) for c in cuts[1:-1])


def test_cuts_fall_on_line_breaks_otherwise():
    text = "def f():\n    return 1\n\n" * 50
    cuts = cut_points(text, 100, [], GPT4_SPLIT_PATTERN)
    assert len(cuts) > 5 and all(text[c - 1] == "\n" != text[c] for c in cuts[1:-1])
