"""Worksheet 06, GPT-4 from tiktoken's ranks: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import re

import pytest

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS
from bpe_course.classroom.worksheets import CHECKERS

from .corpus import Corpus

WORKSHEET = "06_gpt4_tokenizer"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines, its recover_merges remembered for the
    big tables of ranks (`recovered`). The solution's own GPT4Tokenizer calls the remembered
    one too: the same merges, each encoding's recovered once in this module rather than at
    every build; `recover_merges` itself is checked as the solution wrote it."""
    given = solution(WORKSHEET)
    names = dict(given)
    right, seen = names["recover_merges"], {}

    def recovered(ranks):
        if len(ranks) < 50_000:
            return right(ranks)
        if id(ranks) not in seen:
            seen[id(ranks)] = (ranks, right(ranks))
        return dict(seen[id(ranks)][1])
    names["recovered"] = recovered
    given["recover_merges"] = recovered          # the name the solution's class looks up
    yield names
    given["recover_merges"] = right


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


def recoverer(below=lambda rank, max_rank: rank < max_rank, pair=lambda ranks, l, r: (
        ranks[l], ranks[r]), tokens=lambda ranks: ranks.items()):
    """A learner's recover_merges: how they bound the ranks, name the parts, pick tokens."""
    def recover_merges(ranks):
        def bpe(token, max_rank):
            parts = [bytes([b]) for b in token]
            while len(parts) > 1:
                best = None
                for i in range(len(parts) - 1):
                    rank = ranks.get(parts[i] + parts[i + 1])
                    if rank is not None and below(rank, max_rank) and (
                            best is None or rank < best[0]):
                        best = (rank, i)
                if best is None:
                    break
                i = best[1]
                parts[i:i + 2] = [parts[i] + parts[i + 1]]
            return parts
        merges = {}
        for token, rank in list(tokens(ranks)):
            if len(token) > 1:
                left, right = bpe(token, rank)
                merges[pair(ranks, left, right)] = rank
        return merges
    return recover_merges


@wrong("recover_merges", "*below*")
def recover_merges_by_the_longest_known_prefix(ns):
    def recover_merges(ranks):
        merges = {}
        for token, rank in ranks.items():
            if len(token) > 1:
                cut = max(i for i in range(1, len(token)) if token[:i] in ranks)
                merges[ranks[token[:cut]], ranks[token[cut:]]] = rank
        return merges
    return recover_merges


@wrong("recover_merges", [KINDS["exception"], "strictly below its own"])
def recover_merges_with_less_or_equal(ns):
    return recoverer(below=lambda rank, max_rank: rank <= max_rank)


@wrong("recover_merges", "byte values, not their ranks")
def recover_merges_with_byte_values(ns):
    return recoverer(pair=lambda ranks, l, r: tuple(p[0] if len(p) == 1 else ranks[p]
                                                    for p in (l, r)))


@wrong("recover_merges", KINDS["bytes_for_ids"])
def recover_merges_keyed_by_bytes(ns):
    return recoverer(pair=lambda ranks, l, r: (l, r))


@wrong("recover_merges", "left and right are swapped")
def recover_merges_right_then_left(ns):
    return recoverer(pair=lambda ranks, l, r: (ranks[r], ranks[l]))


@wrong("recover_merges", "only the tokens of two bytes")
def recover_merges_of_two_byte_tokens_only(ns):
    return recoverer(tokens=lambda ranks: [(t, r) for t, r in ranks.items() if len(t) == 2])


@wrong("recover_merges", [KINDS["mutated"], "line 9 of your code: del ranks[token]"],
       breaks="contract")
def recover_merges_deleting_what_it_has_done(ns, cell):
    return cell("def recover_merges(ranks):\n"
                "    merges = {}\n"
                "    for token, rank in sorted(ranks.items(), key=lambda tr: -tr[1]):\n"
                "        if len(token) > 1:\n"
                "            cut = min(range(1, len(token)), key=lambda i: max(\n"
                "                ranks.get(token[:i], 1 << 30), ranks.get(token[i:], 1 << 30)))\n"
                "            merges[ranks[token[:cut]], ranks[token[cut:]]] = rank\n"
                "        if len(token) > 2:\n"
                "            del ranks[token]\n"
                "    return merges\n")["recover_merges"]


@wrong("recover_merges", [KINDS["hangs"], "never search through all the tokens"],
       fixtures=["monkeypatch_time_limit"])         # meets the timed case's limit
def recover_merges_searching_every_token(ns):
    bpe_of = recoverer()

    def recover_merges(ranks):
        merges = {}
        for (left, right), rank in bpe_of(ranks).items():
            left_rank = [r for t, r in ranks.items() if r == left][0]     # a scan of every
            right_rank = [r for t, r in ranks.items() if r == right][0]   # token, each time
            merges[left_rank, right_rank] = rank
        return merges
    return recover_merges


@wrong("recover_merges", KINDS["type"])
def recover_merges_as_a_list(ns):
    right = ns["recover_merges"]

    def recover_merges(ranks):
        return sorted(right(ranks).items(), key=lambda item: item[1])
    return recover_merges


def gpt4(ns, *, pattern=None, special=None, byte_ids=None, late_byte_ids=False,
         super_last=False, encoding_ranks=None):
    """A learner's GPT4Tokenizer, with the choices they made in __init__."""
    base, patterns, specials = ns["RegexTokenizer"], ns["SPLIT_PATTERNS"], ns["SPECIAL_TOKENS"]
    load_ranks, recover = ns["load_ranks"], ns["recovered"]

    class GPT4Tokenizer(base):
        def __init__(self, encoding="cl100k_base"):
            ranks = load_ranks(encoding_ranks or encoding)
            if super_last:
                self.merges = recover(ranks)
            base.__init__(self, patterns[pattern or encoding])
            if not super_last:
                self.merges = recover(ranks)
            shuffle = (byte_ids(ranks) if byte_ids else
                       [ranks[bytes([b])] for b in range(256)])
            if not late_byte_ids:
                self.byte_ids = shuffle
                self.vocab = self._build_vocab()
            self.register_special_tokens(specials[special or encoding])
            if late_byte_ids:                      # encoding reads it; the vocab never did
                self.byte_ids = shuffle
    return GPT4Tokenizer


@wrong("gpt4_tokenizer", "shuffled order")
def tokenizer_ignoring_the_byte_shuffle(ns):
    return gpt4(ns, byte_ids=lambda ranks: list(range(256)))


@wrong("gpt4_tokenizer", "register_special_tokens")
def tokenizer_without_special_tokens(ns):
    base = gpt4(ns)

    class GPT4Tokenizer(base):
        def register_special_tokens(self, special_tokens):
            pass                                     # "tiktoken's tokens are ordinary text"
    GPT4Tokenizer.__init__ = base.__init__
    return GPT4Tokenizer


@wrong("gpt4_tokenizer", ["its own pattern", "SPLIT_PATTERNS[encoding]"])
def tokenizer_with_cl100ks_pattern_for_o200k(ns):
    return gpt4(ns, pattern="cl100k_base")


@wrong("gpt4_tokenizer", [KINDS["course_error"], "SPECIAL_TOKENS[encoding]"])
def tokenizer_with_cl100ks_special_tokens_for_o200k(ns):
    return gpt4(ns, special="cl100k_base")


@wrong("gpt4_tokenizer", ["no merge applied", "super().__init__(SPLIT_PATTERNS[encoding]) first"])
def tokenizer_setting_merges_before_super_init(ns):
    return gpt4(ns, super_last=True)


@wrong("gpt4_tokenizer", KINDS["round_trip"], breaks="decode")
def tokenizer_setting_the_byte_ids_last(ns):
    return gpt4(ns, late_byte_ids=True)


@wrong("gpt4_tokenizer", [KINDS["exception"], "ranks[bytes([b])], not ranks[b]"])
def tokenizer_looking_up_byte_ranks_by_int(ns):
    return gpt4(ns, byte_ids=lambda ranks: [ranks[b] for b in range(256)])


@wrong("gpt4_tokenizer", "shuffled order")
def tokenizer_with_the_byte_shuffle_inverted(ns):
    return gpt4(ns, byte_ids=lambda ranks: sorted(range(256), key=lambda b: ranks[bytes([b])]))


@wrong("gpt4_tokenizer", ["its own pattern", "SPLIT_PATTERNS[encoding]"])
def tokenizer_always_loading_cl100k(ns):
    return gpt4(ns, encoding_ranks="cl100k_base")


@wrong("gpt4_tokenizer", [KINDS["exception"], "UnicodeDecodeError"], breaks="decode")
def tokenizer_decoding_strictly(ns):
    base = gpt4(ns)

    class GPT4Tokenizer(base):
        def decode(self, ids):
            return b"".join(self.vocab[i] for i in ids).decode("utf-8")
    GPT4Tokenizer.__init__ = base.__init__
    return GPT4Tokenizer


@wrong("gpt4_tokenizer", [KINDS["round_trip"], "unknown token id"], breaks="decode")
def tokenizer_whose_vocab_is_the_ranks_alone(ns):
    base = gpt4(ns)

    class GPT4Tokenizer(base):
        def __init__(self, encoding="cl100k_base"):
            base.__init__(self, encoding)
            self.vocab = {i: t for t, i in ns["load_ranks"](encoding).items()}
    return GPT4Tokenizer


@pytest.fixture
def monkeypatch_time_limit(monkeypatch):
    """The timed case's limit cut to a second: a slow answer meets it in the test as it would
    meet 60 s in a worksheet (the answer needs far more than a second on all the ranks)."""
    checker = CHECKERS["recover_merges"]
    timed = [g for g in checker.groups() if g.time_limit and not g.hidden]
    assert timed and "ALL = dict(load_ranks('cl100k_base'))" in timed[0].setup
    monkeypatch.setattr(timed[0], "time_limit", 1)


globals().update(wrong.tests(every_seed=["gpt4_tokenizer"]))


# -- messages in detail ---------------------------------------------------------------------------

def test_recover_merges_differences_are_shown_through_the_ranks_bytes(ns, fails_with):
    right = ns["recover_merges"]

    def recover_merges(ranks):
        merges = right(ranks)
        if len(ranks) > 100:                        # one merge wrong on real ranks
            (pair, rank), = [(p, r) for p, r in merges.items() if r == 300]
            merges[pair[1], pair[0]] = merges.pop(pair)
        return merges
    message = fails_with(checks.recover_merges(recover_merges), "first different merge, id 300")
    line = next(l for l in message.splitlines() if l.strip().startswith("expected ("))
    assert re.search(r"-> b'.*'$", line) and "unknown" not in line
    assert "\\xdc" not in message                   # not the raw ids read as bytes


def test_a_timed_out_case_says_where_it_was_not_who_is_to_blame(ns, monkeypatch_time_limit):
    verdict = checks.recover_merges(recover_merges_searching_every_token(ns))
    assert "took too long" in verdict.message and KINDS["hangs"] in verdict.message
    assert "When it was stopped it was running line" in " ".join(verdict.message.split())
