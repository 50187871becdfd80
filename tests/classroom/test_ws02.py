"""Worksheet 02, BPE basics: its solution passes, each mistake is caught.

Each wrong version changes one thing of the worksheet's solution, the way learners
do, and its test asserts both that the check fails and that the message points at
that mistake, not at another one. A mistake that is wrong on real text must also keep
less than half of the exercise's points when the grader scores it (`kept`, on a few
seeds of hidden cases). Checks run with the course's own code off limits, as in a
worksheet; the few wrong answers built from the course's own right one lift that lock
(`unlocked`).
"""

import pytest

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "02_bpe_basics"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_get_stats_that_skips_overlaps_is_caught(fails_with):
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for i in range(0, len(ids) - 1, 2):         # steps by 2: misses overlapping pairs
            counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
        return counts
    fails_with(checks.get_stats(get_stats), "get_stats([1, 2, 3, 1, 2])", "overlap")


def test_get_stats_that_ignores_counts_is_caught(fails_with):
    def get_stats(ids, counts=None):
        out = {}
        for pair in zip(ids, ids[1:]):
            out[pair] = out.get(pair, 0) + 1
        return out
    fails_with(checks.get_stats(get_stats), "{(1, 2): 5}", "add to it")


def test_merge_that_mishandles_overlapping_runs_is_caught(fails_with):
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(idx)
                i += 1                                # forgets to skip the second id
            else:
                out.append(ids[i])
                i += 1
        return out
    fails_with(checks.merge(merge), "merge([1, 2], (1, 2), 256)", "expected: [256]",
               "skip past both ids of a match")


def test_merge_that_merges_runs_twice_is_caught_on_the_overlapping_case(fails_with):
    def merge(ids, pair, idx):              # replaces both overlapping occurrences
        out = list(ids)
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                out[i], out[i + 1] = idx, None
        return [x for x in out if x is not None]
    fails_with(checks.merge(merge), "merge([1, 1, 1], (1, 1), 256)", "expected: [256, 1]",
               "skip past both")


def test_merge_that_drops_a_pair_at_the_end_is_caught(fails_with):
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids) - 1:
            if (ids[i], ids[i + 1]) == pair:
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    fails_with(checks.merge(merge), "merge([1], (1, 2), 256)", "expected: [1]", "got:      []")


def test_merge_that_changes_its_input_is_caught(fails_with):
    def merge(ids, pair, idx):
        i = 0
        while i < len(ids) - 1:
            if (ids[i], ids[i + 1]) == pair:
                ids[i:i + 2] = [idx]
            i += 1
        return ids
    fails_with(checks.merge(merge), "leave `ids` as it was")


def test_encoder_applying_merges_in_the_wrong_order_is_caught(ns, fails_with):
    class Wrong(ns["BasicTokenizer"]):
        def encode(self, text):                  # applies the *latest* merge first
            ids = list(text.encode("utf-8"))
            for pair, idx in sorted(self.merges.items(), key=lambda m: -m[1]):
                ids = ns["merge"](ids, pair, idx)
            return ids
    fails_with(checks.basic_tokenizer(Wrong), "tok.encode('aaabdaaabac')",
               "expected: [258, 100, 258, 97, 99]", "lowest id")


def test_tokenizer_decoder_without_errors_replace_is_caught(ns, fails_with):
    class Wrong(ns["BasicTokenizer"]):
        def decode(self, ids):
            return b"".join(self.vocab[i] for i in ids).decode("utf-8")
    fails_with(checks.basic_tokenizer(Wrong), "tok.decode([128])", "UnicodeDecodeError",
               "errors='replace'")


def test_training_without_the_tie_break_is_caught(ns, fails_with):
    base = ns["BasicTokenizer"]
    get_stats, merge = ns["get_stats"], ns["merge"]

    class Wrong(base):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            for idx in range(256, vocab_size):
                stats = get_stats(ids)
                if not stats:
                    break
                pair = max(stats, key=stats.get)   # ties: whichever came first
                ids = merge(ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    message = fails_with(checks.basic_tokenizer(Wrong), "tok.train('abcd', 257)", "best_pair")
    assert "first different merge, id 256" in message and "b'c' + b'd'" in message


def test_training_that_does_not_stop_when_pairs_run_out_is_caught(ns, fails_with):
    best_pair = ns["best_pair"]

    class Wrong(ns["BasicTokenizer"]):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            for idx in range(256, vocab_size):
                stats = ns["get_stats"](ids)
                pair = best_pair(stats, self.vocab)      # fails on an empty dict
                ids = ns["merge"](ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    fails_with(checks.basic_tokenizer(Wrong), "tok.train('a', 300)", "ValueError",
               "stop early")


def test_get_stats_with_counts_or_new_dict_is_caught(fails_with):
    def get_stats(ids, counts=None):
        counts = counts or {}                       # an empty dict passed in is dropped
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    fails_with(checks.get_stats(get_stats), "(result is counts, counts)",
               "expected: (True, {(1, 2): 1})", "`counts = counts or {}`")


def test_a_course_function_raising_inside_the_learners_code_names_both(ns, fails_with):
    class BasicTokenizer(ns["BasicTokenizer"]):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            for idx in range(256, vocab_size):
                stats = ns["get_stats"](ids)
                if not stats:
                    break
                pair = ns["best_pair"](stats, self.vocab)   # vocab never gets the new ids
                ids = ns["merge"](ids, pair, idx)
                self.merges[pair] = idx
    message = fails_with(checks.basic_tokenizer(BasicTokenizer), "KeyError: 256",
                         "of your code: pair = ns[\"best_pair\"](stats, self.vocab)",
                         "the course's bpe_course.pairs.best_pair")
    assert "pairs.py" not in message


def test_encode_bytes_joining_the_leftmost_pair_is_caught(fails_with):
    def encode_bytes(text, merges):
        parts = [bytes([b]) for b in text.encode()]
        joined = True
        while joined:
            joined = False
            for i in range(len(parts) - 1):
                if (parts[i], parts[i + 1]) in merges:
                    parts[i:i + 2] = [parts[i] + parts[i + 1]]
                    joined = True
                    break
        return parts
    fails_with(checks.encode_bytes(encode_bytes), "encode_bytes('abc', M1)",
               "not the leftmost pair")


def test_encode_bytes_ranking_joined_bytes_is_caught(fails_with):
    def encode_bytes(text, merges):
        rank = {a + b: i for i, (a, b) in enumerate(merges)}
        parts = [bytes([b]) for b in text.encode()]
        while len(parts) > 1:
            i = min(range(len(parts) - 1), key=lambda k: rank.get(parts[k] + parts[k + 1], 1e9))
            if parts[i] + parts[i + 1] not in rank:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return parts
    fails_with(checks.encode_bytes(encode_bytes), "encode_bytes('abc', M6)",
               "not left + right")


def test_encode_bytes_going_through_the_merges_once_is_caught(fails_with):
    def encode_bytes(text, merges):
        parts = [bytes([b]) for b in text.encode()]
        for a, b in merges:
            out, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == (a, b):
                    out.append(a + b)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        return parts
    fails_with(checks.encode_bytes(encode_bytes), "encode_bytes('abc', M7)",
               "Going through `merges` once")


@pytest.mark.usefixtures("unlocked")

def test_encode_bytes_from_characters_is_caught(fails_with):
    from bpe_course.classroom.checking.references import encode_bytes as right

    def encode_bytes(text, merges):
        return right(text, merges) if text.isascii() else [c.encode() for c in text]
    fails_with(checks.encode_bytes(encode_bytes), "encode_bytes('café', M5)",
               "Start from the UTF-8 bytes")
