"""Worksheet 07, fast training: `count_pretokens` and `train_bpe`."""

from __future__ import annotations

from .common import (GPT2_SPLIT_PATTERN, REF, Case, Checker, Group, Worksheet, code, course_ref,
                     prose)

FAST_HINT = ("Count each distinct pre-token once, with how often it occurs; keep the pair "
             "counts from one merge to the next and, after a merge, update only the "
             "pre-tokens that contain the merged pair (an index from pair to pre-tokens "
             "finds them).")
SPEED_TEXT = (0, 50_000)
SPEED_VOCAB = 356


def count_pretokens_groups() -> list[Group]:
    cut = ("Cut the text at the special tokens first (split_special from worksheet 05, or "
           "bpe_course.special.split_special); the tokens themselves are never counted.")
    count = ("Split with the pattern (regex.findall) and count how often each pre-token "
             "(a str) occurs: {' the': 2, ...}.")
    text, doc = prose(0, 5000)
    return [
        Group([Case("count_pretokens('')", "Empty text: {}."),
               Case("count_pretokens('hello')", count),
               Case("count_pretokens('the cat the dog the')", count),
               Case("count_pretokens('a<|endoftext|>a', ['<|endoftext|>'])", cut),
               Case("count_pretokens('hi <|endoftext|> hi', ['<|endoftext|>'])", cut),
               Case("count_pretokens(\"don't STOP 1234\", pattern=GPT2_SPLIT_PATTERN)",
                    "Use the pattern you are given."),
               Case("count_pretokens(TEXT)", count)],
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case("count_pretokens('<|a|><|a|>x<|b|>', ['<|a|>', '<|b|>'])", cut)],
              hidden=True),
    ]


def merge_words_groups() -> list[Group]:
    new = ("Return the new words: each word is a tuple of tokens (bytes), and `pair` becomes "
           "one token, left + right, wherever it occurs, scanning left to right.")
    run = ("Overlapping run: in (b'a', b'a', b'a') the pair (b'a', b'a') merges once, "
           "leaving (b'aa', b'a'), as merge did in worksheet 02.")
    minus = ("Update `stats` in place: take away each changed word's old pairs (times its "
             "count) and add its new pairs (times its count).")
    zero = ("Delete a pair from `stats` when its count falls to 0: the merged pair itself, "
            "and any pair that only occurred around it.")
    untouched = ("Words without the pair keep their pairs: touch only the words that contain "
                 "it (and never count them twice).")
    twice = ("A pair can occur twice in one word: (b'h', b'a', b'h', b'a') holds (b'h', b'a') "
             "twice, so its count goes down by 2 × the word's count.")
    hug = {(b"h", b"u", b"g"): 10, (b"p", b"u", b"g"): 5, (b"h", b"u", b"g", b"s"): 5}
    step = "words = dict(WORDS)\nstats = stats_of(words)\nnew = merge_words(words, stats, {pair!r})\n"
    return [
        Group([Case(step.format(pair=(b"u", b"g")) + "new", new),
               Case(step.format(pair=(b"u", b"g")) + "(stats.get((b'h', b'ug')), "
                    "stats.get((b'ug', b's')))", minus),
               Case(step.format(pair=(b"u", b"g")) + "sorted(stats.items())", zero),
               Case(step.format(pair=(b"x", b"y")) + "(new, sorted(stats.items()))", untouched),
               Case(step.format(pair=(b"g", b"s")) + "sorted(stats.items())", minus)],
              setup=STATS_OF, env={"WORDS": hug},
              env_doc={"WORDS": "{(b'h', b'u', b'g'): 10, (b'p', b'u', b'g'): 5, "
                                "(b'h', b'u', b'g', b's'): 5}"}),
        Group([Case(step.format(pair=(b"h", b"a")) + "new", twice),
               Case(step.format(pair=(b"h", b"a")) + "sorted(stats.items())", twice),
               Case(step.format(pair=(b"a", b"a")) + "new", run),
               Case(step.format(pair=(b"a", b"a")) + "sorted(stats.items())", run)],
              setup=STATS_OF, env={"WORDS": {(b"a", b"a", b"a"): 3, (b"h", b"a", b"h", b"a"): 2,
                                             (b"a",): 7}},
              env_doc={"WORDS": "{(b'a', b'a', b'a'): 3, (b'h', b'a', b'h', b'a'): 2, "
                                "(b'a',): 7}"}),
        Group([Case("words = {tuple(bytes([b]) for b in w.encode()): n for w, n in "
                    "count_pretokens(TEXT).items()}\nstats = stats_of(words)\n"
                    "for pair in [(b'e', b' '), (b't', b'h'), (b' ', b'th'), (b'th', b'e'), "
                    "(b' ', b't')]:\n"
                    "    words = merge_words(words, stats, pair)\n"
                    "(stats == stats_of(words), len(words), max(stats.values()))",
                    minus + " " + zero, weight=5)],
              setup=STATS_OF + "\nfrom bpe_course.pretokenize import count_pretokens",
              env={"TEXT": SAMPLES_TEXT()}, env_doc={"TEXT": "'\\n'.join(bpe_course.corpora.SAMPLES.values())"}),
    ]


STATS_OF = ("def stats_of(words):\n"
            "    stats = {}\n"
            "    for word, n in words.items():\n"
            "        for pair in zip(word, word[1:]):\n"
            "            stats[pair] = stats.get(pair, 0) + n\n"
            "    return stats")


def SAMPLES_TEXT() -> str:
    from ...corpora import SAMPLES
    return "\n".join(SAMPLES.values())


def train_bpe_groups() -> list[Group]:
    same = ("The merges must be exactly the naive trainer's: same counts (inside pre-tokens "
            "only), same tie-break (highest count, then greatest (left bytes, right bytes)). "
            + FAST_HINT)
    size = ("vocab_size counts the 256 bytes, the merges and the special tokens; vocab maps "
            "every id to its bytes.")
    run_out = ("When the text runs out of pairs before vocab_size, the special tokens take "
               "the ids right after the last merge (here 258), not the last ids of vocab_size "
               "(299): the ids stay contiguous and len(vocab) is smaller than vocab_size.")
    text, doc = prose(0, 20000)
    speed, speed_doc = prose(*SPEED_TEXT)
    src, src_doc = code(30000)
    eot = ["<|endoftext|>"]
    train = "vocab, merges = train_bpe"
    return [
        Group([Case("merges", "No text, no pairs, no merges: []."),
               Case("len(vocab)", size)], setup=f"{train}('', 300)"),
        Group([Case("merges", same), Case("len(vocab)", size),
               Case("sorted(vocab.values())", size)],
              setup=f"{train}('hello hello world!!! hello', 260)"),
        Group([Case("merges", "Every pair occurs once here: ties go to the greatest "
                    "(left bytes, right bytes).")], setup=f"{train}('abcd', 257)"),
        Group([Case("merges", "With special tokens there are fewer merges: vocab_size - 256 - "
                    "len(special_tokens). Special tokens are cut out of the text before "
                    "counting, and no pre-token spans them."),
               Case("len(vocab)", size), Case("sorted(vocab.values())", size)],
              setup=f"{train}('low lower<|endoftext|>lowest low<|endoftext|>', 262, {eot!r})"),
        Group([Case("merges", "Only 2 merges exist here ('ab', then ' ab'): stop when no pair "
                    "is left."),
               Case("[(i, vocab[i]) for i in sorted(vocab)[256:]]", run_out),
               Case("len(vocab)", run_out)],
              setup=f"{train}('ab ab', 300, {eot!r})"),
        Group([Case("merges", same, weight=10), Case("len(vocab)", size)],
              setup=f"{train}(TEXT, 400)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("merges", same)], setup=f"{train}(TEXT[:5000], 300, "
                                             "pattern=GPT2_SPLIT_PATTERN)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case(f"fast = seconds(lambda: train_bpe(TEXT, {SPEED_VOCAB}), repeat=3)\n"
                    f"slow = naive_seconds(TEXT, {SPEED_VOCAB})\n"
                    "round(slow / fast, 1)", FAST_HINT, expected=10, judge="at_least")],
              env={"TEXT": speed},
              env_doc={"TEXT": speed_doc}, time_limit=120),
        Group([Case("merges", same), Case("sorted(vocab.values())", size)],
              setup=f"{train}(CODE, 350, ['<|endoftext|>', '<|pad|>'])",
              env={"CODE": src}, env_doc={"CODE": src_doc}, hidden=True, time_limit=120),
    ]


def naive_timings() -> list[tuple[str, int]]:
    """The speed case's input: the grader's driver times the course's naive trainer on it
    before any of the learner's code runs."""
    return [(prose(*SPEED_TEXT)[0], SPEED_VOCAB)]


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _count_pretokens_hidden(rng):
    from .common import random_prose, random_texts, unchanged
    from .ws05 import _special_text
    tokens = ["<|endoftext|>", "<|pad|>"]
    cases = [Case(f"count_pretokens({_special_text(rng, tokens)!r}, {tokens!r})",
                  "Cut at the special tokens, then count the pre-tokens.") for _ in range(20)]
    cases += [Case(f"count_pretokens({t!r}, pattern=GPT2_SPLIT_PATTERN)", "Use the pattern "
                   "you are given.") for t in random_texts(rng.randrange(2**31), 10)]
    cases += [Case(f"count_pretokens({random_prose(rng, 500)[0]!r})", "Count each pre-token.")
              for _ in range(5)]
    cases.append(unchanged("count_pretokens", ("a<|pad|>b", ["<|pad|>"]), 1,
                           "Leave the list of special tokens as it was."))
    return [Group(cases, env={"GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN})]


def _train_bpe_hidden(rng):
    from .common import random_prose
    groups = []
    for special in ([], ["<|endoftext|>"]):
        text, doc = random_prose(rng, rng.randrange(2000, 5000))
        if special:
            text = text.replace(". ", ". <|endoftext|>")
        size = rng.randrange(280, 340)
        groups.append(Group([Case("merges", FAST_HINT), Case("sorted(vocab.values())", FAST_HINT)],
                            setup=f"vocab, merges = train_bpe(TEXT, {size}, {special!r})",
                            env={"TEXT": text}, env_doc={"TEXT": doc}))
    return groups


WORKSHEET = Worksheet(
    "07_fast_training",
    points={"count_pretokens": 1, "merge_words": 2, "train_bpe": 4},
    checkers=[
        Checker("count_pretokens", "count_pretokens", "function",
                course_ref(REF + "count_pretokens"), count_pretokens_groups),
        Checker("merge_words", "merge_words", "function", course_ref(REF + "merge_words"),
                merge_words_groups),
        Checker("train_bpe", "train_bpe", "function", course_ref(REF + "naive_train_bpe"),
                train_bpe_groups),
    ],
    helpers={"count_pretokens": ("bpe_course.special",),
             "train_bpe": ("bpe_course.special",),
             # a case builds its input words with the course's count_pretokens
             "merge_words": ("bpe_course.pretokenize", "bpe_course.special")},
    hidden={"count_pretokens": _count_pretokens_hidden, "train_bpe": _train_bpe_hidden},
    naive_timings=naive_timings,
)
