"""Worksheet 04, regex pre-tokenization: `chunked_stats` and a `RegexTokenizer`."""

from __future__ import annotations

from .common import (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, REAL, REF, REGEX, TOKENIZER, Case,
                     Checker, Group, Worksheet, course_ref, prose)
from .ws02 import MERGES_HINT, ORDER_HINT, tokenizer_groups


def chunked_stats_groups() -> list[Group]:
    across = ("Pairs never cross chunks: in [[1, 2], [3, 4]] the pair (2, 3) does not "
              "exist. Count inside each chunk, adding into one dict.")
    import regex
    text, doc = prose(0, 1500)
    chunks = [list(c.encode("utf-8")) for c in regex.findall(GPT4_SPLIT_PATTERN, text)]
    return [
        Group([Case("chunked_stats([])", "No chunks, no pairs: {}."),
               Case("chunked_stats([[1, 2]])", "One chunk: just its pairs."),
               Case("chunked_stats([[1, 2], [3, 4]])", across),
               Case("chunked_stats([[1], [2]])", across),
               Case("chunked_stats([[1, 2], [1, 2]])", "The same pair in two chunks: the "
                    "counts add up to 2."),
               Case("chunked_stats([[1, 2, 1, 2]])", "Count every occurrence of a pair inside "
                    "a chunk, not once per chunk: [1, 2, 1, 2] holds (1, 2) twice."),
               Case("chunked_stats([[1, 1, 1], [1, 1]])", "Pairs overlap inside a chunk: "
                    "[1, 1, 1] holds (1, 1) twice, [1, 1] once more: 3 in all."),
               Case("chunked_stats(CHUNKS)", across)],
              env={"CHUNKS": chunks},
              env_doc={"CHUNKS": f"[list(c.encode()) for c in regex.findall("
                                 f"GPT4_SPLIT_PATTERN, {doc})]"}),
        Group([Case("chunked_stats([[5] * 7, [], [5, 6], [6, 5]])", across)], hidden=True),
    ]


PATTERN_HINT = ("Use the pattern given to __init__ (GPT-4's when it is None), compile it "
                "with regex.compile (not re) and split with it both in train and encode.")
CHUNK_HINT = (" If your merges contain tokens such as b'e ' or b'd.', pairs were counted "
              "across chunks: split the text with the pattern (regex.findall) and count "
              "pairs inside each chunk only.")


def regex_tokenizer_groups() -> list[Group]:
    base = tokenizer_groups("RegexTokenizer")
    for group in base:
        for case in group.cases:
            if case.code == "tok.merges":
                case.hint = CHUNK_HINT.strip() + " " + case.hint
            if case.code == "tok.encode(CODE)":         # a page of code: real text
                case.weight = REAL
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
    return [Group([Case("tok.merges", once)],
                  setup="tok = RegexTokenizer()\ntok.train('aaaa bb', 257)")] + base[:5] + [
        Group([Case("tok.merges", repeats)],
              setup="tok = RegexTokenizer()\ntok.train('xy cd cd cd', 257)"),
        Group([Case("tok.merges", MERGES_HINT), Case("tok.encode('1234')", split_encode),
               Case("tok.encode('34 1234')", split_encode)],
              setup="tok = RegexTokenizer()\ntok.train('34 34 34', 257)"),
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT),
               Case("tok.encode('dog. cat.')", ORDER_HINT + CHUNK_HINT)],
              setup="tok = RegexTokenizer()\ntok.train('dog. dog. dog. cat cat', 260)"),
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT),
               Case("tok.encode('hello world!!!')", ORDER_HINT + CHUNK_HINT),
               Case("tok.encode('hellohello')", ORDER_HINT)],
              setup=f"tok = RegexTokenizer()\ntok.train({hello!r}, 260)"),
    ] + base[5:] + [
        Group([Case("tok.merges", PATTERN_HINT, weight=REAL),      # trained on a page: real text
               Case("tok.encode(\"I'VE GOT 12345\")", PATTERN_HINT)],
              setup="tok = RegexTokenizer(GPT2_SPLIT_PATTERN)\ntok.train(TEXT, 290)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
    ]


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _chunked_stats_hidden(rng):
    from .common import random_ids, unchanged
    hint = "Count pairs inside each chunk only, adding into one dict."
    chunk_lists = [[random_ids(rng, size=8) for _ in range(rng.randrange(0, 8))]
                   for _ in range(40)]
    return [Group([Case(f"chunked_stats({c!r})", hint) for c in chunk_lists]
                  + [unchanged("chunked_stats", (c,), 0, "Leave the chunks as they were.")
                     for c in chunk_lists[:3]])]


def _regex_tokenizer_hidden(rng):
    """Tokenizers trained with GPT-2's pattern on a page of prose and code, each encoding
    that page and the pages that follow: the worksheet's cases use GPT-4's pattern (the
    default) almost everywhere, so most of the hidden weight is on the pattern argument."""
    from .common import REAL, random_texts, training_pages
    from .ws02 import DECODE_HINT
    groups = []
    for _ in range(3):
        pages = training_pages(rng)
        samples = random_texts(rng.randrange(2**31), 6)
        groups.append(Group(
            [Case("tok.merges", PATTERN_HINT + CHUNK_HINT, weight=REAL)]
            + [Case(f"tok.encode({name})", PATTERN_HINT + " " + ORDER_HINT, weight=REAL)
               for name in pages]
            + [Case(f"tok.encode({s!r})", PATTERN_HINT) for s in samples]
            + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT) for s in samples],
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
                chunked_stats_groups),
        Checker("regex_tokenizer", "RegexTokenizer", "class", course_ref(REGEX),
                regex_tokenizer_groups, own=("__init__", "train", "encode"),
                allowed_bases=(TOKENIZER,)),
    ],
    helpers={"chunked_stats": ("bpe_course.pairs.get_stats",),
             "regex_tokenizer": ("bpe_course.pairs",)},
    hidden={"chunked_stats": _chunked_stats_hidden, "regex_tokenizer": _regex_tokenizer_hidden},
)
