"""Worksheet 02, BPE basics: `get_stats`, `merge`, `encode_bytes` and a `BasicTokenizer`."""

from __future__ import annotations

from .common import (
    CONTRACT,
    DECODE,
    EDGE,
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
    outcome,
    prose,
    random_texts,
)


def get_stats_groups() -> list[Group]:
    overlap = ("Adjacent pairs overlap: in 1, 1, 1 the pair (1, 1) occurs twice, at positions "
               "0 and 1. zip(ids, ids[1:]) walks over every adjacent pair.")
    counts = ("When a `counts` dict is passed, add to it and return that same dict: "
              "RegexTokenizer passes one dict for all its chunks.")
    or_new = ("An empty dict passed as `counts` must be filled and returned too: "
              "`counts = counts or {}` swaps an empty dict for a new one (an empty dict "
              "is false), so the caller's dict stays empty. Test `if counts is None`.")
    text, doc = prose(0, 3000)
    return [
        Group([Case("get_stats([])", "An empty list has no pairs: return an empty dict."),
               Case("get_stats([1])", "One id has no neighbour: no pairs, an empty dict."),
               Case("get_stats([1, 2])", "Count each adjacent pair: {(1, 2): 1}.",
                    breaks=WRONG),
               Case("get_stats([1, 2, 3, 1, 2])", overlap, breaks=WRONG),
               Case("get_stats([1, 1, 1])", overlap, breaks=WRONG),
               Case("get_stats([7, 7, 7, 7])", overlap, breaks=WRONG),
               Case("get_stats([1, 2], {(1, 2): 5})", counts, breaks=CONTRACT),
               Case("counts = {(9, 9): 1}\nget_stats([1, 2, 3], counts)\ncounts", counts,
                    breaks=CONTRACT),
               Case("counts = {}\nresult = get_stats([1, 2], counts)\n(result is counts, counts)",
                    or_new, breaks=CONTRACT, when={"(False, {})": or_new}),
               Case("get_stats([1, 2])\nget_stats([3, 4])", "Each call without `counts` "
                    "starts from a new, empty dict.", breaks=STATE, probe="fresh"),
               Case("get_stats(list(b'aaabdaaabac'))", overlap, breaks=WRONG)]),
        Group([Case("get_stats(IDS)", overlap, breaks=WRONG, weight=REAL),
               Case("counts = get_stats(IDS[:100])\nget_stats(IDS[100:], counts)", counts,
                    breaks=CONTRACT)],
              env={"IDS": list(text.encode("utf-8"))},
              env_doc={"IDS": f"list({doc}.encode('utf-8'))"}, hidden=True),
    ]


def _pairs(ids) -> list:
    return list(zip(ids, ids[1:]))


def _tally(pairs, counts=None) -> dict:
    counts = dict(counts or {})
    for pair in pairs:
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def recognize_stats(inputs: dict, expected, got):
    """Which pairs were counted: every other one, each once, all but the last, or the
    counts given ignored."""
    args = inputs.get("args") or []
    ids = args[0] if args else None
    if not isinstance(ids, list) or not isinstance(got, dict) or inputs.get("func") != "get_stats":
        return None
    given = args[1] if len(args) > 1 and isinstance(args[1], dict) else None
    if given and got == _tally(_pairs(ids)):
        return ("ignored_counts", "the counts you were given were ignored: add the pairs to "
                "that dict (counts[pair] = counts.get(pair, 0) + 1) and return it.")
    if got == _tally(_pairs(ids)[::2], given):
        return ("overlap", "it skips overlapping pairs: stepping by 2 counts (1, 1) once in "
                "1, 1, 1, where it occurs twice, at positions 0 and 1. Count every adjacent "
                "pair: zip(ids, ids[1:]).")
    if got == {p: 1 for p in _pairs(ids)} or got == _tally(set(_pairs(ids)), given):
        return ("once", "it counts each pair once, however often it occurs: a set of pairs "
                "loses the repeats. Count every occurrence.")
    if got == _tally(_pairs(ids)[:-1], given):
        return ("last_pair", "it misses the last pair: the loop stops one position too "
                "early (the last pair starts at len(ids) - 2).")
    tally = _tally(_pairs(ids), given)
    if all(isinstance(n, int) and n >= tally.get(p, 0) for p, n in got.items()) and \
            set(got) >= set(tally):
        return ("shared", "")              # pairs left over from earlier calls
    return None


def merge_groups() -> list[Group]:
    skip = ("Overlapping run: after merging a pair, skip past both of its ids, so in "
            "1, 1, 1 only the first two merge and the last 1 stays: [256, 1].")
    end = ("Every adjacent pair equal to `pair` (compare a tuple with a tuple: "
           "(ids[i], ids[i + 1]) == pair) becomes idx, up to the last two ids: "
           "merge([1, 2], (1, 2), 256) is [256], and the ids around a match stay.")
    new = ("Return a new list, even when the pair does not occur: the caller may change "
           "the result (a trainer merges it again) and still needs `ids` as it was.")
    ids = ("Ids are ints of any size: compare them as numbers, pairs of ints, so that 1 "
           "followed by 23 is not 1 followed by 2.")
    return [
        Group([Case("merge([], (1, 2), 256)", "Nothing to merge in an empty list: return []."),
               Case("merge([1], (1, 2), 256)", "A single id has no pair: return [1]. "
                    "Careful with ids[i + 1] at the last position."),
               Case("merge([1, 2], (1, 2), 256)", end, breaks=WRONG),
               Case("merge([5, 6, 7], (6, 7), 300)", end, breaks=WRONG),
               Case("merge([6, 7, 5], (6, 7), 300)", "A pair at the very start.", breaks=WRONG),
               Case("merge([1, 2, 3], (2, 1), 256)", "Only the pair in that order merges: "
                    "(2, 1) is not (1, 2).", breaks=WRONG),
               Case("merge([1, 1, 1], (1, 1), 256)", skip, breaks=WRONG),
               Case("merge([1, 1, 1, 1], (1, 1), 256)", skip, breaks=WRONG),
               Case("merge([1, 1, 1, 1, 1], (1, 1), 256)", skip, breaks=WRONG),
               Case("merge([3, 1, 2, 1, 2, 1], (1, 2), 9)", "Replace every occurrence, not "
                    "just the first.", breaks=WRONG),
               Case("ids = [1, 2, 3]\nresult = merge(ids, (1, 2), 256)\n(result, ids)",
                    "Return a new list and leave `ids` as it was: callers keep using it.",
                    breaks=CONTRACT, probe="unchanged:0"),
               Case("ids = [5, 6, 7]\nresult = merge(ids, (1, 2), 256)\n"
                    "(result is not ids, result)", new, breaks=STATE, probe="new:0"),
               Case("merge([1, 23, 4], (1, 2), 256)", ids, breaks=WRONG),
               Case("merge([11, 2, 12, 3], (1, 2), 300)", ids, breaks=WRONG),
               Case("merge([12, 34, 5, 12, 34], (12, 34), 300)", ids, breaks=WRONG),
               Case("merge(list(b'aaabdaaabac'), (97, 97), 256)", skip, breaks=WRONG)]),
        Group([Case("merge([7] * 11 + [8, 7, 7], (7, 7), 300)", skip, breaks=WRONG),
               Case("merge([1, 2] * 50, (2, 1), 9)", end, breaks=WRONG),
               Case("merge([0, 0], (0, 0), 0)", "Ids are just ints: even 0 works.")],
              hidden=True),
    ]


def _merged(ids, pair, idx, step=2, keep_last=True, first_only=False, both_orders=False):
    """`merge` as learners get it wrong: stepping past a match by `step`, dropping the last
    id, stopping after the first match, or matching the pair in either order."""
    out, i, done = [], 0, False
    pairs = {tuple(pair), tuple(pair)[::-1]} if both_orders else {tuple(pair)}
    while i < len(ids):
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) in pairs and not done:
            out.append(idx)
            i += step
            done = first_only
        elif i == len(ids) - 1 and not keep_last:
            break
        else:
            out.append(ids[i])
            i += 1
    return out


def _merged_both(ids, pair, idx):
    """Every position where the pair starts, overlapping ones too, replaced by idx."""
    starts = {i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == tuple(pair)}
    out, i = [], 0
    while i < len(ids):
        if i in starts:
            out.append(idx)
            i += 2 if i + 1 not in starts else 1
        else:
            out.append(ids[i])
            i += 1
    return out


def _merged_as_text(ids, pair, idx, sep=" "):
    """`merge` done on the ids written out as text: joined, the pair replaced, split."""
    text = sep.join(map(str, ids)).replace(f"{pair[0]}{sep}{pair[1]}", str(idx))
    return [int(x) for x in text.split(sep.strip() or None)] if text.strip() else []


def recognize_merge(inputs: dict, expected, got):
    """Which merge a wrong list is: on the ids as text, no match ever, no skip, both
    overlapping, last id dropped, only the first match, or the pair matched backwards too."""
    args = inputs.get("args") or []
    if len(args) != 3 or not isinstance(args[0], list) or not isinstance(got, list):
        return None
    ids, pair, idx = args
    if any(got == _merged_as_text(ids, pair, idx, sep) for sep in (" ", ",", ", ")):
        return ("as_text", "it merges the ids written out as text: in '1 23' the text of "
                "the pair (1, 2), '1 2', is found inside 1 and 23, and a match can take "
                "digits of a neighbour. Ids have any number of digits: compare the ids "
                "themselves, (ids[i], ids[i + 1]) == pair.")
    if got == ids and any((a, b) == tuple(pair) for a, b in zip(ids, ids[1:])):
        return ("no_match", "nothing was merged, though the pair occurs: the comparison "
                "never holds. A list is never equal to a tuple ([1, 2] == (1, 2) is "
                "False): compare a tuple with the tuple, (ids[i], ids[i + 1]) == pair.")
    if got == _merged(ids, pair, idx, step=1):
        return ("no_skip", "it does not skip past a match: after appending the new id, move "
                "on by 2 (both ids of the pair are used), not by 1, or the pair's second id "
                "is kept too.")
    if got == _merged_both(ids, pair, idx):
        return ("both_overlapping", "it merges overlapping occurrences twice: in 1, 1, 1 "
                "only the first two ids merge (left to right), and the last 1 stays.")
    if got == _merged(ids, pair, idx, keep_last=False):
        return ("drops_last", "it drops the last id: when the loop stops at the last "
                "position without a match, the last id must still be appended.")
    if got == _merged(ids, pair, idx, first_only=True):
        return ("first_only", "it replaces only the first occurrence: keep scanning to the "
                "end of the list.")
    if got == _merged(ids, pair, idx, both_orders=True):
        return ("both_orders", "it matches the pair in both orders: only (a, b) in that "
                "order merges, not (b, a).")
    return None


def encode_bytes_groups() -> list[Group]:
    rank = ("Join the pair with the lowest rank (its position in `merges`) first, wherever it "
            "is: here (b'b', b'c') comes first, so 'abc' becomes [b'a', b'bc'].")
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
    m8 = [(b"b", b"c"), (b"c", b"a"), (b"a", b"b")]     # leftmost first and latest first differ
    m4 = [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
    m5 = [(b"c", b"a"), (b"ca", b"f"), (b"\xc3", b"\xa9"), (b"caf", b"\xc3\xa9")]
    later = ("Going through `merges` once, in order, misses a pair whose part is made by a "
             "later merge: (b'ab', b'c') can only apply after (b'a', b'b'). After every join, "
             "look again for the lowest-ranked pair.")
    cases = [Case("encode_bytes('', [])", keep), Case("encode_bytes('xyz', M1)", keep),
             Case("encode_bytes('abcab', M8)", rank), Case("encode_bytes('abc', M1)", rank),
             Case("encode_bytes('abc', M2)", again),
             Case("encode_bytes('abcabc', M2)", again), Case("encode_bytes('xabc', M3)", again),
             Case("encode_bytes('abc', M6)", pairs), Case("encode_bytes('abc', M7)", later),
             Case("encode_bytes('aaabdaaabac', M4)", again),
             Case("encode_bytes('café', M5)", utf8)]
    for case in cases[1:]:
        case.breaks = WRONG
    hidden = [Case("encode_bytes('bcab abc', M3)", rank, breaks=WRONG),
              Case("encode_bytes('aaaaaaab', M4)", again, breaks=WRONG)]
    return [
        Group(cases, env={"M1": m1, "M2": m2, "M3": m3, "M4": m4, "M5": m5, "M6": m6, "M7": m7,
                          "M8": m8}),
        Group(hidden, env={"M3": m3, "M4": m4}, hidden=True),
    ]


def _encoded(text, merges, how):
    """`encode_bytes` as learners get it wrong."""
    rank = {pair: i for i, pair in enumerate(merges)}
    if how == "chars":
        parts = [c.encode("utf-8") for c in text]
    else:
        parts = [bytes([b]) for b in text.encode("utf-8")]
    if how == "once":
        for pair in merges:
            out, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == pair:
                    out.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        return parts
    joined = {a + b: i for i, (a, b) in enumerate(merges)}
    while len(parts) > 1:
        if how == "leftmost":
            found = [i for i in range(len(parts) - 1) if (parts[i], parts[i + 1]) in rank]
            if not found:
                break
            i = found[0]
        elif how == "highest":
            found = [i for i in range(len(parts) - 1) if (parts[i], parts[i + 1]) in rank]
            if not found:
                break
            i = max(found, key=lambda k: rank[parts[k], parts[k + 1]])
        elif how == "joined":
            i = min(range(len(parts) - 1), key=lambda k: joined.get(parts[k] + parts[k + 1],
                                                                    len(joined)))
            if parts[i] + parts[i + 1] not in joined:
                break
        else:
            i = min(range(len(parts) - 1), key=lambda k: rank.get((parts[k], parts[k + 1]),
                                                                  len(rank)))
            if (parts[i], parts[i + 1]) not in rank:
                break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


ENCODER_MISTAKES = {
    "leftmost": "it joins the leftmost pair that has a merge, not the pair of lowest rank: "
                "look at every adjacent pair and join the one whose position in `merges` is "
                "lowest.",
    "joined": "it looks up the joined bytes (left + right), not the pair: b'a' + b'bc' makes "
              "b'abc' like b'ab' + b'c', but only the pair (b'ab', b'c') is a merge.",
    "once": "it goes through `merges` once, in order, so a pair made of a token that a later "
            "merge creates never joins: after every join, look again for the lowest-ranked "
            "pair.",
    "chars": "it starts from the characters, not the bytes: 'é' is the two bytes b'\\xc3' "
             "and b'\\xa9' until a merge joins them.",
    "highest": "it joins the pair of highest rank first (the latest merge in `merges`): the "
               "lowest rank, the earliest merge, goes first.",
}


def recognize_encode_bytes(inputs: dict, expected, got):
    """Which encoder a wrong list of tokens comes from (all that fit, when several do)."""
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], list):
        return None
    text, merges = args
    fits = [how for how in ENCODER_MISTAKES if got == _encoded(text, merges, how)]
    if not fits:
        return None
    if set(fits) == {"leftmost", "highest"}:      # this text cannot tell which: say what both miss
        return ("rank", "it does not join the pair of lowest rank first: look at every "
                "adjacent pair and join the one whose position in `merges` is lowest, "
                "wherever it is.")
    return fits[0], " Or: ".join(ENCODER_MISTAKES[how] for how in fits)


def _encode_bytes_hidden(rng):
    """Merges learned from a page of prose, then pages of prose encoded with them (the
    merges are the course's trainer's, as a learner can make them)."""
    from ..checking.references import naive_train_bpe
    from .common import random_prose
    page, doc = random_prose(rng, rng.randrange(1200, 2000))
    size = rng.randrange(290, 330)
    merges = naive_train_bpe(page, size)[1]
    cases = [Case(f"encode_bytes({escaped(t)}, MERGES)", "Join the pair of lowest rank, "
                  "again and again.", breaks=WRONG) for t in random_texts(rng.randrange(2**31), 8)]
    cases += [Case("encode_bytes(TEXT, MERGES)", "Join the pair of lowest rank, again and "
                   "again.", breaks=WRONG, weight=REAL),
              Case("encode_bytes(TEXT[:200], MERGES)", "Join the pair of lowest rank.",
                   breaks=WRONG)]
    text, text_doc = random_prose(rng, 1500)
    return [Group(cases, env={"MERGES": merges, "TEXT": text},
                  env_doc={"MERGES": f"bpe_course.train_bpe({doc}, {size})[1]",
                           "TEXT": text_doc})]


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


def round_trip(expected, got):
    """The probe "round_trip": decode(encode(text)) must give the text back."""
    return ("round_trip", f"decode does not give the text back: {outcome(expected, got)}. "
            f"decode joins the bytes of each id (self.vocab) and decodes the whole with "
            f"errors='replace'.", False)


# What this worksheet's probes say (see `Case.probe`); worksheets 04 to 06 use them too.
PROBES = {"round_trip": round_trip}


# Keyed by what came back: the course's best_pair raised inside the learner's training loop.
BEST_PAIR = {"course:best_pair": (
    "best_pair(stats, vocab) reads the bytes of both ids of every pair in `vocab`: "
    "KeyError: 256 means self.vocab lacks the id 256 when a pair holding it is counted (set "
    "self.vocab[idx] as each merge is made, or rebuild the vocab before the next step), and "
    "ValueError means `stats` was empty: stop training when no pair is left.")}
FRESH_HINT = ("Every tokenizer starts empty, and train starts afresh: create self.merges "
              "and self.vocab in __init__ (not in the class body, where one dict is shared "
              "by every instance), and reset them at the start of train.")


def tokenizer_groups(cls: str, pattern_arg: str = "") -> list[Group]:
    """Cases shared by the BasicTokenizer and RegexTokenizer checkers."""
    make = f"tok = {cls}({pattern_arg})"
    text, doc = prose(0, 2000)
    more, more_doc = prose(20000, 24000)
    src, src_doc = code(3000)
    samples = ["The interpreter reads it.", "안녕 👋 naïve", "", " ", "\n\n", "🙂" * 3]
    return [
        Group([Case("tok.merges", MERGES_HINT + " Store merges as {(left, right): new_id}.",
                    breaks=WRONG, when=BEST_PAIR),
               Case("tok.encode('aaabdaaabac')", ORDER_HINT, breaks=WRONG),
               Case("tok.decode([258, 100, 258, 97, 99])", DECODE_HINT, breaks=DECODE,
                    probe="round_trip"),
               Case("tok.encode('')", "Empty text encodes to []."),
               Case("tok.decode([])", "No ids decode to ''."),
               Case("tok.vocab[258]", "Keep self.vocab up to date: vocab[idx] = "
                    "vocab[a] + vocab[b] for every merge.", breaks=WRONG)],
              setup=f"{make}\ntok.train('aaabdaaabac', 259)"),
        Group([Case("tok.merges", "Every pair occurs once here, so this is all about ties: "
                    "best_pair(stats, self.vocab) picks the pair whose (bytes of left, bytes "
                    "of right) is greatest, and that pair is merged first.",
                    breaks=WRONG, when=BEST_PAIR)],
              setup=f"{make}\ntok.train('abcd', 257)"),
        Group([Case("tok.merges", "With fewer than two bytes there is no pair to count: "
                    "stop early (break when get_stats returns an empty dict).", when={
                        "course:best_pair": "With fewer than two bytes there is no pair to "
                        "count, and best_pair raises ValueError on an empty dict: stop early "
                        "(break when get_stats returns an empty dict)."})],
              setup=f"{make}\ntok.train('a', 300)"),
        Group([Case("tok.merges", MERGES_HINT, breaks=WRONG, when=BEST_PAIR),
               Case("tok.encode('abc')", ORDER_HINT, breaks=WRONG),
               Case("tok.encode('bcab')", ORDER_HINT, breaks=WRONG)],
              setup=f"{make}\ntok.train('ababab bcbc', 258)"),
        Group([Case("tok.decode([128])", DECODE_HINT, breaks=DECODE),
               Case("tok.decode([104, 228, 189])", DECODE_HINT, breaks=DECODE)],
              setup=f"{make}\ntok.train('aaabdaaabac', 259)"),
        Group([Case(f"other = {cls}({pattern_arg})\nother.train('xyxyxy', 257)\n"
                    f"fresh = {cls}({pattern_arg})\n(fresh.merges, fresh.encode('xyxy'))",
                    FRESH_HINT, breaks=STATE, probe="fresh"),
               Case(f"tok = {cls}({pattern_arg})\ntok.train('aaabdaaabac', 259)\n"
                    "tok.train('xyxyxy', 257)\n(tok.merges, tok.encode('aaab'))",
                    FRESH_HINT, breaks=STATE, probe="fresh")]),
        Group([Case("tok.merges", MERGES_HINT, weight=REAL, breaks=WRONG, when=BEST_PAIR),
               Case("tok.encode(TEXT)", ORDER_HINT, weight=REAL, breaks=WRONG)]
              + [Case(f"tok.encode({s!r})", ORDER_HINT, breaks=WRONG if s.strip() else EDGE)
                 for s in samples]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT, breaks=DECODE,
                      probe="round_trip") for s in samples],
              setup=f"{make}\ntok.train(TEXT, 300)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("tok.merges", MERGES_HINT, weight=REAL, breaks=WRONG),
               Case("tok.encode(TEXT)", ORDER_HINT, weight=REAL, breaks=WRONG),
               Case("tok.encode(CODE)", ORDER_HINT, weight=5, breaks=WRONG),
               Case("tok.decode(tok.encode(TEXT))", DECODE_HINT, weight=5, breaks=DECODE,
                    probe="round_trip")]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT, breaks=DECODE,
                      probe="round_trip") for s in random_texts(3, 10)],
              setup=f"{make}\ntok.train(TEXT, 330)", env={"TEXT": more, "CODE": src},
              env_doc={"TEXT": more_doc, "CODE": src_doc}, hidden=True),
    ]


def recognize_tokenizer(inputs: dict, expected, got):
    """Merges one too many or too few (vocab_size counted wrong), or an encode that never
    merged."""
    if isinstance(expected, dict) and isinstance(got, dict) and expected and all(
            isinstance(v, int) for v in expected.values()):
        if len(got) == len(expected) + 1 and all(got.get(k) == v for k, v in expected.items()):
            return ("one_more", "one merge too many: vocab_size counts the 256 bytes, so "
                    "train learns vocab_size - 256 merges, ids 256 to vocab_size - 1 "
                    "(range(256, vocab_size)).")
        if got and len(got) == len(expected) - 1 and all(expected.get(k) == v
                                                         for k, v in got.items()):
            return ("one_fewer", "one merge too few: train learns vocab_size - 256 merges, "
                    "ids 256 to vocab_size - 1 (range(256, vocab_size)).")
        values = list(got.values())
        if len(got) > len(expected) and (len(set(values)) < len(values) or any(
                got.get(k) != v for k, v in expected.items())):
            return ("shared", "")          # merges of an earlier training still there
    args = inputs.get("args") or []
    if str(inputs.get("func", "")).endswith(".decode") and args and isinstance(args[0], list) \
            and all(isinstance(i, int) and 0 <= i < 256 for i in args[0]) and isinstance(got, str):
        if got == bytes(args[0]).decode("utf-8", errors="ignore"):
            return ("round_trip", "decode does not give the text back: it drops the bytes "
                    "that are not valid UTF-8 (errors='ignore'); they must become U+FFFD "
                    "(errors='replace').")
        if got == "".join(bytes([i]).decode("utf-8", errors="replace") for i in args[0]):
            return ("round_trip", "decode does not give the text back: it decodes each id's "
                    "bytes on its own, so a character whose bytes are spread over two ids "
                    "becomes two U+FFFD. Join the bytes of all the ids first, then decode "
                    "once, with errors='replace'.")
    if str(inputs.get("func", "")).endswith(".encode") and args and isinstance(args[0], str):
        if got == list(args[0].encode("utf-8")) and got != expected:
            return ("unmerged", "encode gave the text's bytes with no merge applied: while "
                    "some adjacent pair has a merge, replace the one with the lowest id.")
    return None


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _get_stats_hidden(rng):
    from .common import random_ids, unchanged
    overlap = "Count every adjacent pair, overlapping ones too."
    cases = [Case(f"get_stats({random_ids(rng)!r})", overlap, breaks=WRONG) for _ in range(40)]
    cases += [Case(f"counts = {{(1, 2): 3}}\nget_stats({random_ids(rng)!r}, counts)\ncounts",
                   "Add to the counts you are given.", breaks=CONTRACT) for _ in range(5)]
    cases += [unchanged("get_stats", (random_ids(rng),), 0, "Leave `ids` as it was.",
                        params=("ids",)) for _ in range(3)]
    cases += [Case(f"get_stats({random_ids(rng)!r})\nget_stats({random_ids(rng, size=12)!r})",
                   "Each call without `counts` starts from a new, empty dict.", breaks=STATE,
                   probe="fresh")]
    return [Group(cases)]


def _merge_hidden(rng):
    from .common import new_object, random_ids, unchanged
    cases = []
    for k in range(45):
        ids = random_ids(rng, size=rng.choice([6, 40])) + random_ids(rng, size=3) + [1, 2]
        at = rng.randrange(len(ids) - 1)
        pair = (ids[at], ids[at + 1])           # a pair that occurs (the worksheet shows one
                                                # that does not)
        cases.append(Case(f"merge({ids!r}, {pair!r}, {rng.randrange(256, 1000)})",
                          "Replace every occurrence, left to right, skipping past each match.",
                          breaks=WRONG))
    for _ in range(5):
        # At least 10 ids: never one of the short lists the worksheet shows.
        ids = [rng.randrange(6) for _ in range(rng.randrange(8, 31))] + [1, 1]
        cases.append(unchanged("merge", (ids, (1, 1), 256), 0,
                               "Return a new list and leave `ids` as it was: callers keep "
                               "using it.", params=("ids", "pair", "idx")))
    for _ in range(10):
        # Ids of one to three digits, written so that one id's digits begin another's.
        ids = random_ids(rng, 1, 300, size=30) + [rng.randrange(1, 30)]
        a, b = rng.choice([(x, y) for x, y in zip(ids, ids[1:])] or [(1, 2)])
        cases.append(Case(f"merge({ids!r}, ({a}, {b}), {rng.randrange(300, 1000)})",
                          "Ids are ints of any size: compare them as numbers.", breaks=WRONG))
        digits = str(rng.randrange(111, 300))          # [1, 23, 7]: its text holds '1 2'
        cases.append(Case(f"merge([{digits[0]}, {int(digits[1:])}, 7], ({digits[0]}, "
                          f"{digits[1]}), 999)", "Ids are ints of any size: compare them "
                          "as numbers.", breaks=WRONG))
    for _ in range(3):
        ids = random_ids(rng, 0, 6, size=20) + [5]
        cases.append(new_object("merge", (ids, (7, 8), 256), 0, "Return a new list, even "
                                "when the pair does not occur.", params=("ids", "pair", "idx")))
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
                [Case("tok.merges", MERGES_HINT, breaks=WRONG, weight=5),
                 Case("tok.encode(TEXT)", ORDER_HINT, breaks=WRONG, weight=5),
                 Case("tok.decode(tok.encode(TEXT))", DECODE_HINT, breaks=DECODE, weight=5,
                      probe="round_trip")]
                + [Case(f"tok.encode({s!r})", ORDER_HINT, breaks=WRONG) for s in samples]
                + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT, breaks=DECODE,
                        probe="round_trip") for s in samples],
                setup=f"tok = {cls}()\ntok.train(TEXT, {size})", env={"TEXT": text},
                env_doc={"TEXT": doc}))
        return groups
    return draw


WORKSHEET = Worksheet(
    "02_bpe_basics",
    points={"get_stats": 1, "merge": 2, "encode_bytes": 2, "basic_tokenizer": 3},
    checkers=[
        Checker("get_stats", "get_stats", "function", course_ref("bpe_course.pairs.get_stats"),
                get_stats_groups, recognize=recognize_stats),
        Checker("merge", "merge", "function", course_ref("bpe_course.pairs.merge"),
                merge_groups, recognize=recognize_merge),
        Checker("encode_bytes", "encode_bytes", "function", course_ref(REF + "encode_bytes"),
                encode_bytes_groups, recognize=recognize_encode_bytes),
        Checker("basic_tokenizer", "BasicTokenizer", "class",
                course_ref("bpe_course.basic.BasicTokenizer"),
                lambda: tokenizer_groups("BasicTokenizer"), own=("train", "encode", "decode"),
                recognize=recognize_tokenizer),
    ],
    helpers={"basic_tokenizer": ("bpe_course.pairs.best_pair",)},
    answers=("bpe_course.pairs.get_stats", "bpe_course.pairs.merge", "bpe_course.basic"),
    hidden={"get_stats": _get_stats_hidden, "merge": _merge_hidden,
            "encode_bytes": _encode_bytes_hidden,
            "basic_tokenizer": _tokenizer_hidden("BasicTokenizer")},
    probes=PROBES,
)
