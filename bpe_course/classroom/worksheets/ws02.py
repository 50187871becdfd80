"""Worksheet 02, BPE basics: `get_stats`, `merge` and a `BasicTokenizer`."""

from __future__ import annotations

from .common import (REF, Case, Checker, Group, Worksheet, code, course_ref, prose,
                     random_texts)


def get_stats_groups() -> list[Group]:
    overlap = ("Adjacent pairs overlap: in 1, 1, 1 the pair (1, 1) occurs twice, at positions "
               "0 and 1. zip(ids, ids[1:]) walks over every adjacent pair.")
    counts = ("When a `counts` dict is passed, add to it and return that same dict: "
              "RegexTokenizer passes one dict for all its chunks.")
    text, doc = prose(0, 3000)
    return [
        Group([Case("get_stats([])", "An empty list has no pairs: return an empty dict."),
               Case("get_stats([1])", "One id has no neighbour: no pairs, an empty dict."),
               Case("get_stats([1, 2])", "Count each adjacent pair: {(1, 2): 1}."),
               Case("get_stats([1, 2, 3, 1, 2])", overlap),
               Case("get_stats([1, 1, 1])", overlap),
               Case("get_stats([7, 7, 7, 7])", overlap),
               Case("get_stats([1, 2], {(1, 2): 5})", counts),
               Case("counts = {(9, 9): 1}\nget_stats([1, 2, 3], counts)\ncounts", counts),
               Case("counts = {}\nresult = get_stats([1, 2], counts)\n(result is counts, counts)",
                    "An empty dict passed as `counts` must be filled and returned too: "
                    "`counts = counts or {}` swaps an empty dict for a new one (an empty dict "
                    "is false), so the caller's dict stays empty. Test `if counts is None`."),
               Case("get_stats(list(b'aaabdaaabac'))", overlap)]),
        Group([Case("get_stats(IDS)", overlap),
               Case("counts = get_stats(IDS[:100])\nget_stats(IDS[100:], counts)", counts)],
              env={"IDS": list(text.encode("utf-8"))},
              env_doc={"IDS": f"list({doc}.encode('utf-8'))"}, hidden=True),
    ]


def merge_groups() -> list[Group]:
    skip = ("Overlapping run: after merging a pair, skip past both of its ids, so in "
            "1, 1, 1 only the first two merge and the last 1 stays: [256, 1].")
    end = ("A pair at the very end: check pairs up to the last two ids (i < len(ids) - 1), "
           "skip past both ids of a match (i += 2, so [1, 2] gives [256], not [256, 2]), "
           "and still keep the last id when it is not part of a match.")
    return [
        Group([Case("merge([], (1, 2), 256)", "Nothing to merge in an empty list: return []."),
               Case("merge([1], (1, 2), 256)", "A single id has no pair: return [1]. "
                    "Careful with ids[i + 1] at the last position."),
               Case("merge([1, 2], (1, 2), 256)", end),
               Case("merge([5, 6, 7], (6, 7), 300)", end),
               Case("merge([6, 7, 5], (6, 7), 300)", "A pair at the very start."),
               Case("merge([1, 2, 3], (2, 1), 256)", "Only the pair in that order merges: "
                    "(2, 1) is not (1, 2)."),
               Case("merge([1, 1, 1], (1, 1), 256)", skip),
               Case("merge([1, 1, 1, 1], (1, 1), 256)", skip),
               Case("merge([1, 1, 1, 1, 1], (1, 1), 256)", skip),
               Case("merge([3, 1, 2, 1, 2, 1], (1, 2), 9)", "Replace every occurrence, not "
                    "just the first."),
               Case("ids = [1, 2, 3]\nresult = merge(ids, (1, 2), 256)\n(result, ids)",
                    "Return a new list and leave `ids` as it was: callers keep using it."),
               Case("merge(list(b'aaabdaaabac'), (97, 97), 256)", skip)]),
        Group([Case("merge([7] * 11 + [8, 7, 7], (7, 7), 300)", skip),
               Case("merge([1, 2] * 50, (2, 1), 9)", end),
               Case("merge([0, 0], (0, 0), 0)", "Ids are just ints: even 0 works.")],
              hidden=True),
    ]


def encode_bytes_groups() -> list[Group]:
    rank = ("Join the pair with the lowest rank (its position in `merges`) first, wherever it "
            "is, not the leftmost pair that has a merge: here (b'b', b'c') comes first, so "
            "'abc' becomes [b'a', b'bc'].")
    again = ("Repeat until no adjacent pair is in `merges`: a joined token can join again "
             "(b'a' + b'b', then b'ab' + b'c').")
    pairs = ("A merge is a pair of tokens, not the bytes they make: b'ab' + b'c' is in the list "
             "but b'a' + b'bc' is not, although both make b'abc'. Look up the pair "
             "(left, right), not left + right.")
    keep = "Bytes that no merge touches stay single bytes; empty text gives []."
    utf8 = ("Start from the UTF-8 bytes (bytes([b]) for b in text.encode('utf-8')): 'é' is "
            "b'\\xc3' + b'\\xa9' before any merge.")
    m1 = [(b"b", b"c"), (b"a", b"b")]
    m2 = [(b"a", b"b"), (b"ab", b"c")]
    m3 = [(b"b", b"c"), (b"a", b"bc"), (b"a", b"b"), (b"ab", b"c")]
    m6 = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")]
    m7 = [(b"ab", b"c"), (b"a", b"b")]
    m4 = [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
    m5 = [(b"c", b"a"), (b"ca", b"f"), (b"\xc3", b"\xa9"), (b"caf", b"\xc3\xa9")]
    later = ("Going through `merges` once, in order, misses a pair whose part is made by a "
             "later merge: (b'ab', b'c') can only apply after (b'a', b'b'). After every join, "
             "look again for the lowest-ranked pair.")
    return [
        Group([Case("encode_bytes('', [])", keep), Case("encode_bytes('xyz', M1)", keep),
               Case("encode_bytes('abc', M1)", rank), Case("encode_bytes('abc', M2)", again),
               Case("encode_bytes('abcabc', M2)", again), Case("encode_bytes('xabc', M3)", again),
               Case("encode_bytes('abc', M6)", pairs), Case("encode_bytes('abc', M7)", later),
               Case("encode_bytes('aaabdaaabac', M4)", again),
               Case("encode_bytes('café', M5)", utf8)],
              env={"M1": m1, "M2": m2, "M3": m3, "M4": m4, "M5": m5, "M6": m6, "M7": m7}),
        Group([Case("encode_bytes('bcab abc', M3)", rank), Case("encode_bytes('aaaaaaab', M4)",
                                                                 again)],
              env={"M3": m3, "M4": m4}, hidden=True),
    ]


MERGES_HINT = ("Training repeats: count pairs with get_stats, pick the pair with "
               "best_pair(stats, self.vocab) (ties: greater bytes win), merge it everywhere "
               "with the next id, record self.merges[pair] = idx and "
               "self.vocab[idx] = vocab[a] + vocab[b].")
ORDER_HINT = ("When several merges could apply, the one learned first (lowest id) goes "
              "first: pick the pair with the lowest merge id each time, until no pair in "
              "the text has a merge.")
DECODE_HINT = ("decode joins the bytes of every id (self.vocab) and decodes them with "
               "errors='replace': a lone byte like 128 is not valid UTF-8 and must become "
               "'\ufffd' instead of raising.")


def tokenizer_groups(cls: str, pattern_arg: str = "") -> list[Group]:
    """Cases shared by the BasicTokenizer and RegexTokenizer checkers."""
    make = f"tok = {cls}({pattern_arg})"
    text, doc = prose(0, 2000)
    more, more_doc = prose(20000, 24000)
    src, src_doc = code(3000)
    samples = ["The interpreter reads it.", "안녕 👋 naïve", "", " ", "\n\n", "🙂" * 3]
    return [
        Group([Case("tok.merges", MERGES_HINT + " Store merges as {(left, right): new_id}."),
               Case("tok.encode('aaabdaaabac')", ORDER_HINT),
               Case("tok.decode([258, 100, 258, 97, 99])", DECODE_HINT),
               Case("tok.encode('')", "Empty text encodes to []."),
               Case("tok.decode([])", "No ids decode to ''."),
               Case("tok.vocab[258]", "Keep self.vocab up to date: vocab[idx] = "
                    "vocab[a] + vocab[b] for every merge.")],
              setup=f"{make}\ntok.train('aaabdaaabac', 259)"),
        Group([Case("tok.merges", "Every pair occurs once here, so this is all about ties: "
                    "use best_pair(stats, self.vocab), which picks the greatest "
                    "(bytes of left, bytes of right), not max(stats, key=stats.get).")],
              setup=f"{make}\ntok.train('abcd', 257)"),
        Group([Case("tok.merges", "With fewer than two bytes there is no pair to count: "
                    "stop early (break when get_stats returns an empty dict).")],
              setup=f"{make}\ntok.train('a', 300)"),
        Group([Case("tok.merges", MERGES_HINT), Case("tok.encode('abc')", ORDER_HINT),
               Case("tok.encode('bcab')", ORDER_HINT)],
              setup=f"{make}\ntok.train('ababab bcbc', 258)"),
        Group([Case("tok.decode([128])", DECODE_HINT), Case("tok.decode([104, 228, 189])",
                                                           DECODE_HINT)],
              setup=f"{make}\ntok.train('aaabdaaabac', 259)"),
        Group([Case("tok.merges", MERGES_HINT, weight=20),
               Case("tok.encode(TEXT)", ORDER_HINT, weight=20)]
              + [Case(f"tok.encode({s!r})", ORDER_HINT) for s in samples]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT) for s in samples],
              setup=f"{make}\ntok.train(TEXT, 300)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("tok.merges", MERGES_HINT, weight=20),
               Case("tok.encode(TEXT)", ORDER_HINT, weight=20),
               Case("tok.encode(CODE)", ORDER_HINT, weight=5)]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT)
                 for s in random_texts(3, 10)],
              setup=f"{make}\ntok.train(TEXT, 330)", env={"TEXT": more, "CODE": src},
              env_doc={"TEXT": more_doc, "CODE": src_doc}, hidden=True),
    ]


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _get_stats_hidden(rng):
    from .common import random_ids, unchanged
    overlap = "Count every adjacent pair, overlapping ones too."
    cases = [Case(f"get_stats({random_ids(rng)!r})", overlap) for _ in range(40)]
    cases += [Case(f"counts = {{(1, 2): 3}}\nget_stats({random_ids(rng)!r}, counts)\ncounts",
                   "Add to the counts you are given.") for _ in range(5)]
    cases += [unchanged("get_stats", (random_ids(rng),), 0, "Leave `ids` as it was.")
              for _ in range(3)]
    return [Group(cases)]


def _merge_hidden(rng):
    from .common import random_ids, unchanged
    cases = []
    for k in range(45):
        ids = random_ids(rng, size=rng.choice([6, 40])) + random_ids(rng, size=3) + [1, 2]
        at = rng.randrange(len(ids) - 1)
        pair = (ids[at], ids[at + 1])           # a pair that occurs (the worksheet shows one
                                                # that does not)
        cases.append(Case(f"merge({ids!r}, {pair!r}, {rng.randrange(256, 1000)})",
                          "Replace every occurrence, left to right, skipping past each match."))
    for _ in range(5):
        # At least 10 ids: never one of the short lists the worksheet shows.
        ids = [rng.randrange(6) for _ in range(rng.randrange(8, 31))] + [1, 1]
        cases.append(unchanged("merge", (ids, (1, 1), 256), 0,
                               "Return a new list and leave `ids` as it was: callers keep "
                               "using it."))
    return [Group(cases)]


def _tokenizer_hidden(cls: str):
    def draw(rng):
        from .common import random_prose, random_texts
        groups = []
        for _ in range(2):
            text, doc = random_prose(rng, rng.randrange(800, 2500))
            size = rng.randrange(262, 330)
            samples = random_texts(rng.randrange(2**31), 12)
            groups.append(Group(
                [Case("tok.merges", MERGES_HINT), Case("tok.encode(TEXT)", ORDER_HINT)]
                + [Case(f"tok.encode({s!r})", ORDER_HINT) for s in samples]
                + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT) for s in samples],
                setup=f"tok = {cls}()\ntok.train(TEXT, {size})", env={"TEXT": text},
                env_doc={"TEXT": doc}))
        return groups
    return draw


WORKSHEET = Worksheet(
    "02_bpe_basics",
    points={"get_stats": 1, "merge": 2, "encode_bytes": 2, "basic_tokenizer": 3},
    checkers=[
        Checker("get_stats", "get_stats", "function", course_ref("bpe_course.pairs.get_stats"),
                get_stats_groups),
        Checker("merge", "merge", "function", course_ref("bpe_course.pairs.merge"),
                merge_groups),
        Checker("encode_bytes", "encode_bytes", "function", course_ref(REF + "encode_bytes"),
                encode_bytes_groups),
        Checker("basic_tokenizer", "BasicTokenizer", "class",
                course_ref("bpe_course.basic.BasicTokenizer"),
                lambda: tokenizer_groups("BasicTokenizer"), own=("train", "encode", "decode")),
    ],
    helpers={"basic_tokenizer": ("bpe_course.pairs.best_pair",)},
    hidden={"get_stats": _get_stats_hidden, "merge": _merge_hidden,
            "basic_tokenizer": _tokenizer_hidden("BasicTokenizer")},
)
