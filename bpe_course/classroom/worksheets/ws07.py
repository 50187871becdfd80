"""Worksheet 07, fast training: `count_pretokens` and `train_bpe`."""

from __future__ import annotations

from .common import (
    CONTRACT,
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    REAL,
    REF,
    STATE,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    code,
    course_ref,
    escaped,
    prose,
)

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
    shape = ("A special token is any string in special_tokens, whatever it looks like; "
             "'<|x|>' is ordinary text when it is not in the list.")
    text, doc = prose(0, 5000)
    groups = [
        Group([Case("count_pretokens('')", "Empty text: {}."),
               Case("count_pretokens('hello')", count, breaks=WRONG),
               Case("count_pretokens('the cat the dog the')", count, breaks=WRONG),
               Case("count_pretokens('a<|endoftext|>a', ['<|endoftext|>'])", cut, breaks=WRONG),
               Case("count_pretokens('hi <|endoftext|> hi', ['<|endoftext|>'])", cut,
                    breaks=WRONG),
               Case("count_pretokens('a[SEP]b <|x|>', ['[SEP]'])", shape, breaks=WRONG),
               Case("count_pretokens('<|endoftext|> <|endoftext|>\\n\\n', ['<|endoftext|>'])",
                    "Whitespace between special tokens is text too: its pre-tokens count.",
                    breaks=WRONG),
               Case("count_pretokens(\"don't STOP 1234\", pattern=GPT2_SPLIT_PATTERN)",
                    "Use the pattern you are given.", breaks=WRONG, when=RE_NOT_REGEX),
               Case("tokens = ['<|a|>', '<|a|><|a|>']\n"
                    "result = count_pretokens('x<|a|><|a|>y', tokens)\n(result, tokens)",
                    "Leave the list of special tokens as it was: sort a copy (sorted(...)).",
                    breaks=CONTRACT, probe="unchanged:1"),
               Case("count_pretokens(TEXT)", count, breaks=WRONG, weight=5)],
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case("count_pretokens('<|a|><|a|>x<|b|>', ['<|a|>', '<|b|>'])", cut,
                    breaks=WRONG)], hidden=True),
    ]
    for group in groups:
        for case in group.cases:
            case.when = {**RE_NOT_REGEX, **case.when}
    return groups


RE_NOT_REGEX = {key: "The split patterns use \\p{L} and \\p{N}, which the standard `re` "
                "module does not know: use the `regex` module (regex.findall)."
                for key in ("raised:error", "raised:PatternError")}


def _counted(text, tokens=(), pattern=GPT4_SPLIT_PATTERN, cut=True, keep_tokens=False):
    import regex

    from ...special import split_special
    counts: dict = {}
    pieces = split_special(text, tokens) if cut else [text]
    for piece in pieces:
        if piece in tokens:
            if keep_tokens:
                counts[piece] = counts.get(piece, 0) + 1
            continue
        for chunk in regex.findall(pattern, piece):
            counts[chunk] = counts.get(chunk, 0) + 1
    return counts


def recognize_pretokens(inputs: dict, expected, got):
    """Special tokens not cut out or counted, the pattern ignored, whitespace splitting."""
    args = inputs.get("args") or []
    if not args or not isinstance(args[0], str) or not isinstance(got, dict):
        return None
    text = args[0]
    tokens = list(args[1]) if len(args) > 1 and isinstance(args[1], (list, tuple)) else []
    if tokens and got == _counted(text, tokens, cut=False):
        return ("not_cut", "the special tokens were split and counted as ordinary text: cut "
                "the text at them first, and count only the pieces between them.")
    if tokens and got == _counted(text, tokens, keep_tokens=True):
        return ("tokens_counted", "the special tokens themselves are counted as pre-tokens: "
                "cut the text at them, then leave them out.")
    if got == _counted(text, tokens) and got != expected:
        return ("pattern", "the pattern argument was ignored: split with the pattern you "
                "are given (GPT-4's is only the default).")
    words: dict = {}
    for word in text.split():
        words[word] = words.get(word, 0) + 1
    if got == words:
        return ("whitespace", "it splits on whitespace (str.split), not with the pattern: "
                "regex.findall(pattern, piece) gives the pre-tokens, leading spaces kept.")
    return None


def merge_words_groups() -> list[Group]:
    new = ("Return the new words: each word is a tuple of tokens (bytes), and `pair` becomes "
           "one token, left + right, wherever it occurs, scanning left to right.")
    run = ("Overlapping run: in (b'a', b'a', b'a') the pair (b'a', b'a') merges once, "
           "leaving (b'aa', b'a'), as merge did in worksheet 02.")
    minus = ("Update `stats` in place: take away each changed word's old pairs (times its "
             "count) and add its new pairs (times its count).")
    zero = ("Delete a pair from `stats` when its count falls to 0: the merged pair itself, "
            "and any pair that only occurred around it.")
    untouched = ("Words without the pair are in the result too, unchanged, with their counts "
                 "(and their pairs stay in `stats`): only the words that contain the pair "
                 "change.")
    twice = ("A pair can occur twice in one word: (b'h', b'a', b'h', b'a') holds (b'h', b'a') "
             "twice, so its count goes down by 2 × the word's count.")
    collide = ("Two words can become the same tuple: (b'a', b'b', b'c') merged at (b'a', b'b') "
               "is (b'ab', b'c'), which may already be a word; then their counts add up.")
    hug = {(b"h", b"u", b"g"): 10, (b"p", b"u", b"g"): 5, (b"h", b"u", b"g", b"s"): 5}
    step = "words = dict(WORDS)\nstats = stats_of(words)\nnew = merge_words(words, stats, {pair!r})\n"
    return [
        Group([Case(step.format(pair=(b"u", b"g")) + "new", new, breaks=WRONG),
               Case(step.format(pair=(b"u", b"g")) + "(stats.get((b'h', b'ug')), "
                    "stats.get((b'ug', b's')))", minus, breaks=WRONG),
               Case(step.format(pair=(b"u", b"g")) + "sorted(stats.items())", zero,
                    breaks=CONTRACT),
               Case(step.format(pair=(b"x", b"y")) + "(new, sorted(stats.items()))", untouched,
                    breaks=WRONG),
               Case(step.format(pair=(b"g", b"s")) + "new", untouched, breaks=WRONG),
               Case(step.format(pair=(b"g", b"s")) + "sorted(stats.items())", minus,
                    breaks=WRONG),
               Case(step.format(pair=(b"u", b"g")) + "(new, words)", "Leave `words` as it "
                    "was: build a new dict.", breaks=CONTRACT, probe="unchanged:0"),
               Case("words = dict(WORDS)\nstats = stats_of(words)\n"
                    "new = merge_words(words, stats, (b'x', b'y'))\n(new is not words, new)",
                    "Return a new dict, even when no word holds the pair: the trainer keeps "
                    "merging the result.", breaks=STATE, probe="new:0"),
               Case("words = dict(WORDS)\nstats = stats_of(words)\n"
                    "stats[(b'o', b'k')] = 7      # counted in words this call is not given\n"
                    "new = merge_words(words, stats, (b'u', b'g'))\nsorted(stats.items())",
                    OTHERS, breaks=CONTRACT)],
              setup=STATS_OF, env={"WORDS": hug},
              env_doc={"WORDS": "{(b'h', b'u', b'g'): 10, (b'p', b'u', b'g'): 5, "
                                "(b'h', b'u', b'g', b's'): 5}"}),
        Group([Case(step.format(pair=(b"h", b"a")) + "new", twice, breaks=WRONG),
               Case(step.format(pair=(b"h", b"a")) + "sorted(stats.items())", twice,
                    breaks=WRONG),
               Case(step.format(pair=(b"a", b"a")) + "new", run, breaks=WRONG),
               Case(step.format(pair=(b"a", b"a")) + "sorted(stats.items())", run,
                    breaks=WRONG)],
              setup=STATS_OF, env={"WORDS": {(b"a", b"a", b"a"): 3, (b"h", b"a", b"h", b"a"): 2,
                                             (b"a",): 7}},
              env_doc={"WORDS": "{(b'a', b'a', b'a'): 3, (b'h', b'a', b'h', b'a'): 2, "
                                "(b'a',): 7}"}),
        Group([Case(step.format(pair=(b"a", b"b")) + "new", collide),
               Case(step.format(pair=(b"a", b"b")) + "sorted(stats.items())", collide)],
              setup=STATS_OF, env={"WORDS": {(b"a", b"b", b"c"): 2, (b"ab", b"c"): 3,
                                             (b"x", b"y"): 1}},
              env_doc={"WORDS": "{(b'a', b'b', b'c'): 2, (b'ab', b'c'): 3, (b'x', b'y'): 1}"}),
        Group([Case("words = {tuple(bytes([b]) for b in w.encode()): n for w, n in "
                    "count_pretokens(TEXT).items()}\nstats = stats_of(words)\n"
                    "for pair in [(b'e', b' '), (b't', b'h'), (b' ', b'th'), (b'th', b'e'), "
                    "(b' ', b't')]:\n"
                    "    words = merge_words(words, stats, pair)\n"
                    "(stats == stats_of(words), len(words), max(stats.values()))",
                    minus + " " + zero, weight=5, breaks=WRONG)],
              setup=STATS_OF + "\nfrom bpe_course.pretokenize import count_pretokens",
              env={"TEXT": SAMPLES_TEXT()}, env_doc={"TEXT": "'\\n'.join(bpe_course.corpora.SAMPLES.values())"}),
    ]


OTHERS = ("Change only the counts of the pairs in the words that hold the merged pair: "
          "`stats` may count pairs of more words than these (a trainer's other shards, say), "
          "and those counts stay as they are.")


def _stats_of(words: dict) -> dict:
    stats: dict = {}
    for word, n in words.items():
        for pair in zip(word, word[1:]):
            stats[pair] = stats.get(pair, 0) + n
    return stats


def _merge_words_as(words: dict, stats: dict, pair: tuple, mistake: str):
    """`merge_words` as a learner gets it wrong: `mistake` names how."""
    target = dict(stats) if mistake == "copy" else stats
    new: dict = {}
    if mistake == "recount":                # the right words, and every count made again
        new = _merge_words_as(words, dict(stats), pair, "")
        stats.clear()
        stats.update(_stats_of(new))
        return new
    for word, count in words.items():
        if pair not in zip(word, word[1:]):
            if mistake != "left_out":
                new[word] = (0 if mistake == "collide" else new.get(word, 0)) + count
            continue
        old = list(zip(word, word[1:]))
        for p in (set(old) if mistake == "once" else old):
            target[p] -= count
            if target[p] == 0 and mistake != "zeros":
                del target[p]
        out, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and (word[i], word[i + 1]) == pair:
                out.append(pair[0] + pair[1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        for p in (set(zip(out, out[1:])) if mistake == "once" else zip(out, out[1:])):
            target[p] = target.get(p, 0) + count
        key = tuple(out)
        new[key] = (0 if mistake == "collide" else new.get(key, 0)) + count
    return new


MERGE_WORDS_MISTAKES = {
    "copy": "`stats` did not change: update the dict you are given, in place (stats[p] -= "
            "..., stats[p] = stats.get(p, 0) + ...), not a copy or a new dict.",
    "zeros": "pairs whose count fell to 0 are still in `stats`: delete them (del stats[p]).",
    "once": "a pair that occurs twice in a word was counted once (a set of pairs): subtract "
            "and add over zip(word, word[1:]), every occurrence.",
    "left_out": "the words without the pair are missing from the result: they belong to it "
                "too, unchanged, with their counts.",
    "collide": "two words became the same tuple and one count replaced the other: when a "
               "merged word is already in the result, add the counts.",
    "recount": "`stats` was counted again from all the new words, not updated: a count "
               "that no word here holds was lost. Only the words that hold the pair change, "
               "so only their pairs change in `stats` (take away the old ones, add the new "
               "ones): a recount is what this exercise replaces.",
}


def recognize_merge_words(inputs: dict, expected, got):
    """Which of the learners' mistakes gives what came back: the case's last line is
    evaluated on each mistake, modelled (`_merge_words_as`)."""
    args, last = inputs.get("args") or [], inputs.get("last")
    if len(args) != 3 or not isinstance(args[0], dict) or not isinstance(args[2], tuple) or \
            not last:
        return None
    fits = []
    for mistake, words_of_it in MERGE_WORDS_MISTAKES.items():
        words = dict(args[0])
        stats = _stats_of(words)
        new = _merge_words_as(words, stats, args[2], mistake)
        try:
            value = eval(last, {"__builtins__": {"sorted": sorted, "len": len, "max": max}},
                         {"stats": stats, "new": new, "words": words, "stats_of": _stats_of})
        except Exception:                   # a line this model cannot answer
            continue
        if value == got and value != expected:
            fits.append(words_of_it)
    if not fits:
        return None
    return "merge_words", " Or: ".join(fits)


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
        Group([Case("merges", same, breaks=WRONG), Case("len(vocab)", size, breaks=WRONG),
               Case("sorted(vocab.values())", size, breaks=WRONG)],
              setup=f"{train}('hello hello world!!! hello', 260)"),
        Group([Case("merges", "Every pair occurs once here: ties go to the greatest "
                    "(left bytes, right bytes).", breaks=WRONG)], setup=f"{train}('abcd', 257)"),
        Group([Case("merges", "With special tokens there are fewer merges: vocab_size - 256 - "
                    "len(special_tokens). Special tokens are cut out of the text before "
                    "counting, and no pre-token spans them.", breaks=WRONG),
               Case("len(vocab)", size, breaks=WRONG),
               Case("sorted(vocab.values())", size, breaks=WRONG)],
              setup=f"{train}('low lower<|endoftext|>lowest low<|endoftext|>', 262, {eot!r})"),
        Group([Case("merges", "Only 2 merges exist here ('ab', then ' ab'): stop when no pair "
                    "is left."),
               Case("[(i, vocab[i]) for i in sorted(vocab)[256:]]", run_out, breaks=WRONG),
               Case("len(vocab)", run_out, breaks=WRONG)],
              setup=f"{train}('ab ab', 300, {eot!r})"),
        Group([Case("tokens = ['<|pad|>', '<|endoftext|>', '<|a|>']\n"
                    "vocab, merges = train_bpe('a<|a|>b ab<|pad|>', 262, tokens)\n"
                    "(merges, tokens)", "Leave the list of special tokens as it was: sort a "
                    "copy if you need one sorted.", breaks=CONTRACT, probe="unchanged:2")]),
        Group([Case("merges", same, weight=10, breaks=WRONG),
               Case("len(vocab)", size, breaks=WRONG)],
              setup=f"{train}(TEXT, 400)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("merges", same, breaks=WRONG)],
              setup=f"{train}(TEXT[:5000], 300, pattern=GPT2_SPLIT_PATTERN)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case(f"fast = seconds(lambda: train_bpe(TEXT, {SPEED_VOCAB}), repeat=3)\n"
                    f"slow = naive_seconds(TEXT, {SPEED_VOCAB})\n"
                    "round(slow / fast, 1)", FAST_HINT, expected=10, judge="at_least",
                    breaks="slow")],
              env={"TEXT": speed},
              env_doc={"TEXT": speed_doc}, time_limit=120),
        Group([Case("merges", same, breaks=WRONG, weight=REAL),
               Case("sorted(vocab.values())", size, breaks=WRONG)],
              setup=f"{train}(CODE, 350, ['<|endoftext|>', '<|pad|>'])",
              env={"CODE": src}, env_doc={"CODE": src_doc}, hidden=True, time_limit=120),
    ]


def recognize_trainer(inputs: dict, expected, got):
    """Merges one too many (vocab_size without the special tokens), special tokens merged
    as text, or the ids of special tokens at the end of vocab_size."""
    if isinstance(expected, list) and isinstance(got, list) and expected and all(
            isinstance(m, tuple) and len(m) == 2 for m in expected):
        if len(got) > len(expected) and got[:len(expected)] == expected:
            return ("more_merges", f"{len(got) - len(expected)} merge(s) too many: vocab_size "
                    f"counts the 256 bytes, the merges and the special tokens, so there are "
                    f"vocab_size - 256 - len(special_tokens) merges.")
        if all(isinstance(x, bytes) for m in expected for x in m) and any(
                isinstance(m, tuple) and len(m) == 2 and all(isinstance(x, bytes) for x in m)
                and (b"<|" in m[0] + m[1] or b"|>" in m[0] + m[1]) for m in got):
            return ("special_merged", "a merge joins bytes of a special token: special "
                    "tokens are cut out of the text before counting, and never merged.")
    if isinstance(expected, list) and isinstance(got, list) and expected and all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int)
            for item in expected + got):
        want = {t: i for i, t in expected}
        have = {t: i for i, t in got}
        if set(want) == set(have) and want != have:
            return ("special_ids", "the tokens are right but some ids are not: the special "
                    "tokens take the ids right after the last merge, in the order given.")
    return None


def naive_timings() -> list[tuple[str, int]]:
    """The speed case's input: the grader's driver times the course's naive trainer on it
    before any of the learner's code runs."""
    return [(prose(*SPEED_TEXT)[0], SPEED_VOCAB)]


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _count_pretokens_hidden(rng):
    from .common import random_prose, random_texts, unchanged
    from .ws05 import _special_text
    tokens = ["<|endoftext|>", "<|pad|>", "[SEP]"]
    cases = [Case(f"count_pretokens({escaped(_special_text(rng, tokens + ['<|q|>']))}, "
                  f"{tokens!r})", "Cut at the special tokens, then count the pre-tokens.",
                  breaks=WRONG) for _ in range(20)]
    cases += [Case(f"count_pretokens({escaped(t)}, pattern=GPT2_SPLIT_PATTERN)", "Use the "
                   "pattern you are given.", breaks=WRONG)
              for t in random_texts(rng.randrange(2**31), 10)]
    cases += [Case(f"count_pretokens({escaped(random_prose(rng, 500)[0])})", "Count each "
                   "pre-token.", breaks=WRONG) for _ in range(5)]
    cases.append(unchanged("count_pretokens", ("a<|pad|>b", ["<|pad|>"]), 1,
                           "Leave the list of special tokens as it was.",
                           params=("text", "special_tokens")))
    return [Group(cases, env={"GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN})]


def _merge_words_hidden(rng):
    """Words from a page of prose, merged step by step with the pairs a trainer would pick:
    the stats must equal a recount after every step, and the words the merged ones."""
    from ..checking.references import count_pretokens, merge_words
    from .common import random_prose
    text, doc = random_prose(rng, rng.randrange(1500, 3000))
    words = {tuple(bytes([b]) for b in w.encode()): n for w, n in count_pretokens(text).items()}
    stats = _stats_of(words)
    pairs = []
    for _ in range(rng.randrange(8, 15)):
        pair = max(stats, key=lambda p: (stats[p], p))
        pairs.append(pair)
        words = merge_words(words, stats, pair)
    hint = ("After every merge, `stats` must equal the pair counts of the new words, and the "
            "words must be the old ones with the pair joined.")
    loop = ("words = {tuple(bytes([b]) for b in w.encode()): n for w, n in "
            "count_pretokens(TEXT).items()}\nstats = stats_of(words)\n"
            f"for pair in {pairs!r}:\n    words = merge_words(words, stats, pair)\n")
    others = ("words = {tuple(bytes([b]) for b in w.encode()): n for w, n in "
              "count_pretokens(TEXT).items()}\nstats = stats_of(words)\n"
              "stats[(b'<', b'|')] = 3      # counted in words these calls are not given\n"
              f"for pair in {pairs[:4]!r}:\n    words = merge_words(words, stats, pair)\n"
              "sorted(stats.items())[:40] + [stats.get((b'<', b'|'))]")
    return [Group([Case(others, OTHERS, breaks=CONTRACT, weight=5),
                   Case(loop + "stats == stats_of(words)", hint, breaks=WRONG, weight=REAL),
                   Case(loop + "sorted(words.items())", hint, breaks=WRONG, weight=REAL),
                   Case(loop + "sorted(stats.items())[:40]", hint, breaks=WRONG, weight=5)],
                  setup=STATS_OF + "\nfrom bpe_course.pretokenize import count_pretokens",
                  env={"TEXT": text}, env_doc={"TEXT": doc})]


def _train_bpe_hidden(rng):
    from .common import random_prose
    groups = []
    for special in ([], ["<|endoftext|>"]):
        text, doc = random_prose(rng, rng.randrange(2000, 5000))
        if special:
            text = text.replace(". ", ". <|endoftext|>")
            doc = f"{doc}.replace('. ', '. <|endoftext|>')"
        size = rng.randrange(280, 340)
        groups.append(Group([Case("merges", FAST_HINT, breaks=WRONG, weight=REAL),
                             Case("sorted(vocab.values())", FAST_HINT, breaks=WRONG, weight=5)],
                            setup=f"vocab, merges = train_bpe(TEXT, {size}, {special!r})",
                            env={"TEXT": text}, env_doc={"TEXT": doc}))
    return groups


WORKSHEET = Worksheet(
    "07_fast_training",
    points={"count_pretokens": 1, "merge_words": 2, "train_bpe": 4},
    checkers=[
        Checker("count_pretokens", "count_pretokens", "function",
                course_ref(REF + "count_pretokens"), count_pretokens_groups,
                recognize=recognize_pretokens),
        Checker("merge_words", "merge_words", "function", course_ref(REF + "merge_words"),
                merge_words_groups, recognize=recognize_merge_words),
        Checker("train_bpe", "train_bpe", "function", course_ref(REF + "naive_train_bpe"),
                train_bpe_groups, recognize=recognize_trainer),
    ],
    helpers={"count_pretokens": ("bpe_course.special",),
             "train_bpe": ("bpe_course.special",),
             # a case builds its input words with the course's count_pretokens
             "merge_words": ("bpe_course.pretokenize", "bpe_course.special")},
    # pretokenize's count_pretokens stays: merge_words's cases build their words with it.
    answers=("bpe_course.training.trainer", "bpe_course.training.counting.count_corpus"),
    hidden={"count_pretokens": _count_pretokens_hidden, "merge_words": _merge_words_hidden,
            "train_bpe": _train_bpe_hidden},
    naive_timings=naive_timings,
)
