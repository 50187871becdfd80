"""Worksheet 04, regex pre-tokenization: `chunked_stats` and a `RegexTokenizer`."""

from __future__ import annotations

from .common import (
    CONTRACT,
    DECODE,
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    REAL,
    REF,
    REGEX,
    STATE,
    TOKENIZER,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    course_ref,
    prose,
)
from .ws02 import BEST_PAIR, MERGES_HINT, ORDER_HINT, PROBES, recognize_tokenizer, tokenizer_groups


def chunked_stats_groups() -> list[Group]:
    across = ("Pairs never cross chunks: in [[1, 2], [3, 4]] the pair (2, 3) does not "
              "exist. Count inside each chunk, adding into one dict.")
    import regex
    text, doc = prose(0, 1500)
    chunks = [list(c.encode("utf-8")) for c in regex.findall(GPT4_SPLIT_PATTERN, text)]
    return [
        Group([Case("chunked_stats([])", "No chunks, no pairs: {}."),
               Case("chunked_stats([[1, 2]])", "One chunk: just its pairs.", breaks=WRONG),
               Case("chunked_stats([[1, 2], [3, 4]])", across, breaks=WRONG),
               Case("chunked_stats([[1], [2]])", across, breaks=WRONG),
               Case("chunked_stats([[1, 2], [1, 2]])", "The same pair in two chunks: the "
                    "counts add up to 2.", breaks=WRONG),
               Case("chunked_stats([[1, 2, 1, 2]])", "Count every occurrence of a pair inside "
                    "a chunk, not once per chunk: [1, 2, 1, 2] holds (1, 2) twice.",
                    breaks=WRONG),
               Case("chunked_stats([[1, 1, 1], [1, 1]])", "Pairs overlap inside a chunk: "
                    "[1, 1, 1] holds (1, 1) twice, [1, 1] once more: 3 in all.", breaks=WRONG),
               Case("chunks = [[1, 2], [2, 3]]\nresult = chunked_stats(chunks)\n(result, chunks)",
                    "Leave the chunks as they were: the caller keeps using them.",
                    breaks=CONTRACT, probe="unchanged:0"),
               Case("chunked_stats([[1, 2]])\nchunked_stats([[3, 4]])", "Each call starts "
                    "from a new, empty dict.", breaks=STATE, probe="fresh"),
               Case("first = chunked_stats([[1, 2]])\nsecond = chunked_stats([[3, 4]])\n"
                    "(first, second)", "Each call returns a dict of its own: the caller "
                    "keeps the first result while it asks for the second.", breaks=STATE,
                    probe="fresh"),
               Case("chunked_stats(CHUNKS)", across, breaks=WRONG, weight=5)],
              env={"CHUNKS": chunks},
              env_doc={"CHUNKS": f"[list(c.encode()) for c in regex.findall("
                                 f"bpe_course.GPT4_SPLIT_PATTERN, {doc})]"}),
        Group([Case("chunked_stats([[5] * 7, [], [5, 6], [6, 5]])", across, breaks=WRONG)],
              hidden=True),
    ]


def _tally(chunks, each=True) -> dict:
    counts: dict = {}
    for chunk in chunks:
        pairs = list(zip(chunk, chunk[1:]))
        for pair in (pairs if each else set(pairs)):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def recognize_chunked(inputs: dict, expected, got):
    """Which pairs were counted: across chunks, once per chunk, one chunk's only, or counts
    of an earlier chunk overwritten."""
    args = inputs.get("args") or []
    chunks = args[0] if args else None
    if not isinstance(chunks, list) or not isinstance(got, dict) or not all(
            isinstance(c, list) for c in chunks):
        return None
    flat = [i for chunk in chunks for i in chunk]
    if got == _tally([flat]):
        return ("across", "it counts pairs across chunks: the last id of one chunk and the "
                "first of the next are no pair. Count inside each chunk, adding into one dict.")
    if got == _tally(chunks, each=False):
        return ("once", "it counts each pair once per chunk, not every occurrence: "
                "[1, 2, 1, 2] holds (1, 2) twice.")
    merged: dict = {}
    for chunk in chunks:
        merged.update(_tally([chunk]))
    fits = []
    if chunks and got == _tally(chunks[-1:]):
        fits.append("only the last chunk's pairs are there: a new dict for each chunk "
                    "replaces the counts so far")
    if got == merged:
        fits.append("a pair found in several chunks has the count of its last chunk only: "
                    "dict.update replaces counts, it does not add them")
    if fits:
        return ("overwritten", " Or: ".join(fits) + ". Add each chunk's counts to one total "
                "(get_stats(chunk, counts)).")
    tally = _tally(chunks)
    if set(got) >= set(tally) and all(isinstance(n, int) and n >= tally.get(p, 0)
                                       for p, n in got.items()):
        return ("shared", "")
    return None


PATTERN_HINT = ("Use the pattern given to __init__ (GPT-4's when it is None), compile it "
                "with regex.compile (not re) and split with it both in train and encode.")
CHUNK_HINT = (" If your merges contain tokens such as b'e ' or b'd.', pairs were counted "
              "across chunks: split the text with the pattern (regex.findall) and count "
              "pairs inside each chunk only.")


REGEX_NOT_RE = {
    key: "The split patterns use \\p{L} and \\p{N} and possessive quantifiers, which the "
         "standard `re` module does not know: import regex and use regex.compile."
    for key in ("raised:error", "raised:PatternError")}
SUPER_INIT = {"raised:AttributeError": (
    "An attribute of the base class is missing: call super().__init__() first in "
    "__init__; it creates self.merges, self.special_tokens, self.byte_ids and self.vocab.")}
NO_PAIRS = {"empty": (
    "No merge was learned, so no pair was counted: check what your split gives "
    "(findall returns the chunks, split what lies between them) and that each chunk is the "
    "list of its UTF-8 bytes.")}
CHUNK_BYTES = {"course:encode_chunk": (
    "encode_chunk takes the bytes of one chunk (chunk.encode('utf-8')), not the str.")}


def regex_tokenizer_groups() -> list[Group]:
    base = tokenizer_groups("RegexTokenizer")
    for group in base:
        for case in group.cases:
            if case.code == "tok.merges":
                case.hint = CHUNK_HINT.strip() + " " + case.hint
            if case.code == "tok.encode(CODE)":         # a page of code: real text
                case.weight = REAL
            case.when = {**REGEX_NOT_RE, **SUPER_INIT, **CHUNK_BYTES, **case.when}
    text, doc = prose(0, 3000)
    hello = "hello hello world!!! hello"
    repeats = ("A chunk that occurs 3 times counts its pairs 3 times: count the pairs of "
               "every chunk of the text, not of set(chunks) or a dict's keys, which lose how "
               "often each chunk occurs.")
    once = ("Count every occurrence of a pair inside a chunk: 'aaaa' holds (97, 97) three "
            "times, so it beats (32, 98) and (98, 98), which occur once.")
    split_encode = ("encode must split the text with the pattern too, and encode each chunk "
                    "on its own: '1234' is the chunks '123' and '4', so the merge (51, 52) "
                    "of '3' + '4' cannot apply across them.")
    first = {**REGEX_NOT_RE, **SUPER_INIT, **BEST_PAIR, **CHUNK_BYTES, **NO_PAIRS}
    keep = ("__init__ keeps the pattern in self.pattern (GPT-4's when pattern is None) and "
            "its compiled form in self.compiled_pattern, as the worksheet asks.")
    attributes = Group([
        Case("RegexTokenizer().pattern", keep, breaks=CONTRACT, probe="attr:pattern",
             when=SUPER_INIT),
        Case("RegexTokenizer(GPT2_SPLIT_PATTERN).pattern", keep, breaks=CONTRACT,
             probe="attr:pattern", when=SUPER_INIT),
        Case("RegexTokenizer(GPT2_SPLIT_PATTERN).compiled_pattern.pattern", keep,
             breaks=CONTRACT, probe="attr:compiled_pattern", when=SUPER_INIT)],
        env={"GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
        env_doc={"GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"})
    return [Group([Case("tok.merges", once, breaks=WRONG, when=first)],
                  setup="tok = RegexTokenizer()\ntok.train('aaaa bb', 257)")] + base[:5] + [
        Group([Case("tok.merges", repeats, breaks=WRONG, when=first)],
              setup="tok = RegexTokenizer()\ntok.train('xy cd cd cd', 257)"),
        Group([Case("tok.merges", MERGES_HINT, breaks=WRONG, when=first),
               Case("tok.encode('1234')", split_encode, breaks=WRONG, when=first),
               Case("tok.encode('34 1234')", split_encode, breaks=WRONG, when=first)],
              setup="tok = RegexTokenizer()\ntok.train('34 34 34', 257)"),
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT, breaks=WRONG,
                    when=first),
               Case("tok.encode('dog. cat.')", ORDER_HINT + CHUNK_HINT, breaks=WRONG,
                    when=first)],
              setup="tok = RegexTokenizer()\ntok.train('dog. dog. dog. cat cat', 260)"),
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT, breaks=WRONG,
                    when=first),
               Case("tok.encode('hello world!!!')", ORDER_HINT + CHUNK_HINT, breaks=WRONG,
                    when=first),
               Case("tok.encode('hellohello')", ORDER_HINT, breaks=WRONG, when=first)],
              setup=f"tok = RegexTokenizer()\ntok.train({hello!r}, 260)"),
    ] + base[5:] + [
        Group([Case("tok.merges", PATTERN_HINT, weight=REAL, breaks=WRONG, when=first),
               Case("tok.encode(\"I'VE GOT 12345\")", PATTERN_HINT, breaks=WRONG, when=first)],
              setup="tok = RegexTokenizer(GPT2_SPLIT_PATTERN)\ntok.train(TEXT, 290)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        attributes,
    ]


def recognize_regex_tokenizer(inputs: dict, expected, got):
    """A learned token that crosses from a letter to a space or punctuation (pairs counted
    across chunks), or what `recognize_tokenizer` sees."""
    import regex
    if isinstance(expected, dict) and isinstance(got, dict) and got and all(
            isinstance(k, tuple) and len(k) == 2 and isinstance(v, int)
            for k, v in got.items()):
        vocab = {i: bytes([i]) for i in range(256)}
        for (a, b), idx in sorted(got.items(), key=lambda item: item[1]):
            if a in vocab and b in vocab:
                vocab[idx] = vocab[a] + vocab[b]
                token = vocab[idx].decode("utf-8", errors="replace")
                if regex.search(r"\p{L}[\s\p{P}]", token):
                    return ("across_chunks", f"pairs were counted across chunks: the learned "
                            f"token {vocab[idx]!r} joins a letter to the space or punctuation "
                            f"after it, which no chunk of the pattern holds. Split the text "
                            f"with the pattern (findall) and count pairs inside each chunk.")
    return recognize_tokenizer(inputs, expected, got)


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _chunked_stats_hidden(rng):
    from .common import random_ids, unchanged
    hint = "Count pairs inside each chunk only, adding into one dict."
    chunk_lists = [[random_ids(rng, size=8) for _ in range(rng.randrange(0, 8))]
                   for _ in range(40)]
    own = ("Each call returns a dict of its own: the caller keeps the first result while "
           "it asks for the second.")
    kept = [Case(f"first = chunked_stats({a!r})\nsecond = chunked_stats({b!r})\n"
                 f"(first, second)", own, breaks=STATE, probe="fresh")
            for a, b in zip(chunk_lists[3:6], chunk_lists[6:9])]
    return [Group([Case(f"chunked_stats({c!r})", hint, breaks=WRONG) for c in chunk_lists]
                  + [unchanged("chunked_stats", (c,), 0, "Leave the chunks as they were.",
                               params=("chunks",)) for c in chunk_lists[:3] if c] + kept)]


def _regex_tokenizer_hidden(rng):
    """Tokenizers trained with GPT-2's pattern on a page of prose and code, each encoding
    that page and the pages that follow: the worksheet's cases use GPT-4's pattern (the
    default) almost everywhere, so most of the hidden weight is on the pattern argument."""
    from .common import REAL, random_texts, training_pages
    from .ws02 import DECODE_HINT
    words = r"\w+|\s+|[^\w\s]+"
    groups = [Group([Case(f"RegexTokenizer({words!r}).pattern", "__init__ keeps the pattern "
                          "it is given in self.pattern.", breaks=CONTRACT,
                          probe="attr:pattern"),
                     Case(f"RegexTokenizer({words!r}).compiled_pattern.findall('ab, cd')",
                          "__init__ compiles the pattern it is given.", breaks=WRONG)])]
    for _ in range(3):
        pages = training_pages(rng)
        samples = random_texts(rng.randrange(2**31), 6)
        groups.append(Group(
            [Case("tok.merges", PATTERN_HINT + CHUNK_HINT, weight=REAL, breaks=WRONG)]
            + [Case(f"tok.encode({name})", PATTERN_HINT + " " + ORDER_HINT, weight=REAL,
                    breaks=WRONG) for name in pages]
            + [Case(f"tok.decode(tok.encode({name}))", DECODE_HINT, weight=5, breaks=DECODE,
                    probe="round_trip") for name in pages]
            + [Case(f"tok.encode({s!r})", PATTERN_HINT, breaks=WRONG) for s in samples]
            + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT, breaks=DECODE,
                    probe="round_trip") for s in samples],
            setup=f"tok = RegexTokenizer(GPT2_SPLIT_PATTERN)\n"
                  f"tok.train(TEXT, {rng.randrange(300, 360)})",
            env={**{k: v[0] for k, v in pages.items()}, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
            env_doc={**{k: v[1] for k, v in pages.items()},
                     "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}))
    return groups


WORKSHEET = Worksheet(
    "04_regex_tokenizer",
    points={"chunked_stats": 1, "regex_tokenizer": 3},
    checkers=[
        Checker("chunked_stats", "chunked_stats", "function", course_ref(REF + "chunked_stats"),
                chunked_stats_groups, recognize=recognize_chunked),
        Checker("regex_tokenizer", "RegexTokenizer", "class", course_ref(REGEX),
                regex_tokenizer_groups, own=("__init__", "train", "encode"),
                allowed_bases=(TOKENIZER,), recognize=recognize_regex_tokenizer),
    ],
    helpers={"chunked_stats": ("bpe_course.pairs.get_stats",),
             "regex_tokenizer": ("bpe_course.pairs",)},
    answers=("bpe_course.regex_tokenizer.RegexTokenizer",),
    hidden={"chunked_stats": _chunked_stats_hidden, "regex_tokenizer": _regex_tokenizer_hidden},
    probes=PROBES,
)
