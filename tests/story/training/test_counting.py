"""Counting the pre-tokens of a corpus in chunks, in worker processes: the same counts as
`regex.findall` over the whole text with `Counter`, which is the reference here."""

import os
import subprocess
import sys
from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, corpora
from bpe_course.pretokenize import count_pretokens
from bpe_course.special import split_special
from bpe_course.training import counting
from bpe_course.training.corpus_cuts import file_cut_points
from bpe_course.training.counting import count_corpus, run_tasks

EOT = "<|endoftext|>"
PATTERNS = [GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, GPT2_SPLIT_PATTERN]
TRICKY = list("ab \n\n\t/'s9.é\r") + ["\n  ", " \n", "\xa0", "\u2028", EOT, "<|a|>", "<|a|><|a|>"]


def reference_counts(text, pattern=GPT4_SPLIT_PATTERN, specials=()):
    """The pre-tokens of the pieces between special tokens, counted the slow, obvious way."""
    return Counter(c for p in split_special(text, specials) if p not in specials
                   for c in regex.findall(pattern, p))


@settings(max_examples=60, deadline=None)
@given(text=st.lists(st.sampled_from(TRICKY), max_size=40).map("".join), chunk=st.integers(1, 12),
       pattern=st.sampled_from(PATTERNS), use_special=st.booleans())
def test_chunking_gives_the_same_counts_as_one_chunk(text, chunk, pattern, use_special):
    specials = [EOT, "<|a|>", "<|a|><|a|>"] if use_special else []
    expected = reference_counts(text, pattern, specials)
    assert count_pretokens(text, pattern, specials) == expected
    assert count_corpus(text + "\n\n", pattern, specials, 1, chunk) == \
        reference_counts(text + "\n\n", pattern, specials)


# Lines as in code: an indentation of spaces and tabs, then what may follow one.
INDENTED = st.lists(st.tuples(st.text(" \t", max_size=6),
                              st.lists(st.sampled_from(TRICKY + ["x", "7", "#", "/"]),
                                       max_size=4).map("".join)),
                    max_size=12).map(lambda lines: "".join(f"\n{i}{rest}" for i, rest in lines))


@settings(max_examples=200, deadline=None)
@given(text=INDENTED, pattern=st.sampled_from(PATTERNS))
def test_indentation_cut_off_the_lines_is_counted_exactly(text, pattern):
    # Twice, so that the repeated lines are counted as pieces, weighted.
    assert count_pretokens(text + text, pattern) == reference_counts(text + text, pattern)


@settings(max_examples=30, deadline=None)
@given(text=st.lists(st.sampled_from(TRICKY), max_size=40).map("".join), chunk=st.integers(1, 12),
       pattern=st.sampled_from(PATTERNS))
def test_chunking_a_file_gives_the_same_counts_as_one_chunk(tmp_path_factory, text, chunk,
                                                            pattern):
    path = tmp_path_factory.mktemp("corpus") / "c.txt"
    path.write_bytes(text.encode("utf-8"))
    specials = [EOT, "<|a|>", "<|a|><|a|>"]
    cuts = file_cut_points(path, chunk, specials, pattern)
    assert cuts[0] == 0 and cuts[-1] == len(text.encode()) and cuts == sorted(set(cuts))
    assert len(cuts) > 1 or not text
    assert count_corpus(path, pattern, specials, 1, chunk) == reference_counts(text, pattern,
                                                                               specials)


def test_a_worker_that_dies_is_a_clear_error():
    with pytest.raises(RuntimeError, match="worker process died"):
        run_tasks(os._exit, [(3,), (3,), (3,)], num_workers=2)


def test_workers_started_by_spawn_count_the_same(monkeypatch):
    """'spawn' is what macOS and Windows use: workers must be importable functions."""
    monkeypatch.setattr(counting, "start_method", lambda: "spawn")
    text = corpora.prose()[:20_000]
    assert count_corpus(text, GPT4_SPLIT_PATTERN, [EOT], 2, 5000) == reference_counts(text)


def test_counting_a_large_text_with_two_workers_is_exact():
    text = corpora.python_code(400_000)
    counts = count_corpus(text, GPT4_SPLIT_PATTERN, [], 2, 50_000)
    assert counts == reference_counts(text)


@pytest.mark.skipif(sys.platform != "linux", reason="fork is used on Linux only")
def test_a_thread_unknown_to_threading_rules_out_fork():
    # pytest-xdist and C libraries start threads that threading.active_count() misses.
    code = ("import _thread, threading, time\nfrom bpe_course.training.counting import start_method\n"
            "before = start_method()\n_thread.start_new_thread(time.sleep, (5,))\n"
            "time.sleep(0.2)\nprint(before, threading.active_count(), start_method())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split() == ["fork", "1", "spawn"], done


@pytest.mark.parametrize("running, idle", [(1, 4), (3, 2), (5, 1), (40, 1)])
def test_workers_go_to_the_cores_no_other_process_keeps_busy(monkeypatch, tmp_path, running,
                                                              idle):
    loadavg = tmp_path / "loadavg"
    loadavg.write_text(f"3.10 2.90 2.50 {running}/412 12345\n")
    real_open = open
    monkeypatch.setattr(counting, "cores", lambda: 4)
    monkeypatch.setattr(counting, "open", lambda path, *a, **k: real_open(
        loadavg if path == "/proc/loadavg" else path, *a, **k), raising=False)
    assert counting.idle_cores() == idle       # this process is one of those running
