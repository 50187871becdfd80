"""The cases behind every checker: inputs, the reference to compare with, and hints.

Each checker of `bpe_course.checks` is described here by a `Checker`: the
name the learner's function or class has in the worksheet, the course's own
version of it (the *reference*, which gives the expected answers), and
groups of cases, edge cases first. A case is a line of Python run with the
learner's object bound to that name (see `check_runner`), so the failing
case a learner is shown is also code they can paste and run.

Groups marked `hidden` are not run by the worksheets' check cells, only by
the grader, so a solution cannot be fitted to the cases a learner has seen.

Cases are built on first use (some read corpora), one function per worksheet.

>>> names = [c.name for c in CHECKERS.values()]
>>> names[:3]
['utf8_bytes', 'code_points_and_bytes', 'safe_decode']
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Callable

from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN

COMPUTE = "compute"   # a case's expected answer comes from running the reference


@dataclass
class Case:
    code: str                      # run with the learner's object bound to its name
    hint: str = ""                 # shown when this case fails
    expected: object = COMPUTE     # or a fixed value (with judge="at_least": a minimum)
    judge: str = "equal"           # "equal" or "at_least"
    mention: str = ""              # an expected exception's message must contain this


@dataclass
class Group:
    cases: list[Case]
    setup: str = ""                # run once, before the cases, in the same namespace
    env: dict = field(default_factory=dict)      # named inputs
    env_doc: dict = field(default_factory=dict)  # how a learner can make each input
    hidden: bool = False           # only the grader runs it
    time_limit: float | None = None
    setup_time_limit: float | None = None


@dataclass
class Checker:
    name: str                      # the checker, e.g. "merge"
    target: str                    # the learner's function or class, as named in the worksheet
    kind: str                      # "function" or "class"
    reference: Callable[[], object]
    groups: Callable[[], list[Group]]
    own: tuple[str, ...] = ()      # methods the learner must write, not inherit from the course
    allowed_bases: tuple[str, ...] = ()   # course classes the learner's class may inherit from


# -- inputs ------------------------------------------------------------------------

def prose(start: int, stop: int) -> tuple[str, str]:
    from .corpora import prose as corpus
    return corpus()[start:stop], f"bpe_course.corpora.prose()[{start}:{stop}]"


def code(stop: int) -> tuple[str, str]:
    from .corpora import python_code
    return python_code(200_000)[:stop], f"bpe_course.corpora.python_code()[:{stop}]"


HARD_TEXTS = [
    "hello world", "  leading and trailing  ", "\n\n\ttabs\t and\r\nCRLF \n",
    "I'm you're he'll we'd I'VE", "It’s curly: don’t", "1 12 123 1234 12345 3.14 -42",
    "naïve café Ångström", "e\u0301 a\u0308", "Привет, мир!", "مرحبا بالعالم", "नमस्ते",
    "안녕하세요", "こんにちは世界", "你好，世界。", "👋🌍 👩‍👩‍👧‍👦 👍🏽", "\u200b\u200d\ufeff",
    "def f(x):\n    return x ** 2\n", "<|endoftext", "!!!???...", "    \n    \n",
    "https://example.com/a?b=c&d=e", "\x00\x01\x7f",
]


def random_texts(seed: int, n: int) -> list[str]:
    """Texts no worksheet shows: random runs of letters, digits, spaces and other scripts."""
    rng = random.Random(seed)
    pool = ("abcdefghijklmnopqrstuvwxyzABC    0123456789.,;:!?'\"()\n\t-_éüñçß"
            "абвгдежзαβγδ日本語中文한국어🙂👍🏽\u0301\u200d")
    return ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 60))) for _ in range(n)]


def calls(name: str, args_list, hint: str = "") -> list[Case]:
    return [Case(f"{name}({', '.join(map(repr, args))})", hint) for args in args_list]




# -- 01 UTF-8 warm-ups ----------------------------------------------------------------

UTF8_TEXTS = ["", "a", "hello", "é", "€", "😀", "\x00", "\x7f", "\x80", "\u07ff", "\u0800",
              "\uffff", "\U00010000", "\U0010ffff", "naïve café", "안녕하세요", "e\u0301",
              "👩‍👩‍👧"]
BYTES_HINT = ("é is one code point (233) but two bytes in UTF-8, 195 and 169. "
              "text.encode('utf-8') gives the bytes; list(...) turns them into ints. "
              "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above.")


def utf8_bytes_groups() -> list[Group]:
    return [Group(calls("utf8_bytes", [(t,) for t in UTF8_TEXTS], BYTES_HINT)),
            Group(calls("utf8_bytes", [(t,) for t in random_texts(1, 20)], BYTES_HINT),
                  hidden=True)]


def code_points_groups() -> list[Group]:
    hint = ("len(text) counts code points; len(text.encode('utf-8')) counts bytes. "
            "'é' is 1 code point and 2 bytes; '😀' is 1 code point and 4 bytes. "
            "Return the two numbers as a tuple: (code points, bytes).")
    return [Group(calls("code_points_and_bytes", [(t,) for t in UTF8_TEXTS], hint)),
            Group(calls("code_points_and_bytes", [(t,) for t in random_texts(2, 20)], hint),
                  hidden=True)]


def safe_decode_groups() -> list[Group]:
    ok = "Valid UTF-8 decodes as usual: bytes(byte_list).decode('utf-8', errors='replace')."
    bad = ("These bytes are not valid UTF-8. Decode with errors='replace', which puts U+FFFD "
           "('\ufffd') where bytes are broken: errors='ignore' drops them silently, and "
           "latin-1 never fails but gives the wrong characters.")
    valid = [[], [104, 105], [195, 169], [240, 159, 152, 128], [226, 130, 172, 32, 49]]
    broken = [[128], [195], [104, 255, 105], [240, 159, 152], [0xED, 0xA0, 0x80],
              [0xC0, 0xAF], [104, 105, 226, 130]]
    hidden = [[0xF8, 0x88, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [97] * 5 + [0xE0, 0x80],
              list("añ😀".encode()) + [0x9F, 0x9F]]
    return [Group(calls("safe_decode", [(b,) for b in valid], ok)
                  + calls("safe_decode", [(b,) for b in broken], bad)),
            Group(calls("safe_decode", [(b,) for b in hidden], bad), hidden=True)]


# -- 02 get_stats, merge, BasicTokenizer ----------------------------------------------------

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
        Group([Case("tok.merges", MERGES_HINT), Case("tok.encode(TEXT)", ORDER_HINT)]
              + [Case(f"tok.encode({s!r})", ORDER_HINT) for s in samples]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT) for s in samples],
              setup=f"{make}\ntok.train(TEXT, 300)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("tok.merges", MERGES_HINT), Case("tok.encode(TEXT)", ORDER_HINT),
               Case("tok.encode(CODE)", ORDER_HINT)]
              + [Case(f"tok.decode(tok.encode({s!r}))", DECODE_HINT)
                 for s in random_texts(3, 10)],
              setup=f"{make}\ntok.train(TEXT, 330)", env={"TEXT": more, "CODE": src},
              env_doc={"TEXT": more_doc, "CODE": src_doc}, hidden=True),
    ]


# -- 04 regex pre-tokenization ---------------------------------------------------------

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
               Case("chunked_stats([[1, 1, 1], [1, 1]])", across),
               Case("chunked_stats(CHUNKS)", across)],
              env={"CHUNKS": chunks},
              env_doc={"CHUNKS": f"[list(c.encode()) for c in regex.findall("
                                 f"GPT4_SPLIT_PATTERN, {doc})]"}),
        Group([Case("chunked_stats([[5] * 7, [], [5, 6], [6, 5]])", across)], hidden=True),
    ]


CHUNK_HINT = (" If your merges contain tokens such as b'e ' or b'd.', pairs were counted "
              "across chunks: split the text with the pattern (regex.findall) and count "
              "pairs inside each chunk only.")


def regex_tokenizer_groups() -> list[Group]:
    base = tokenizer_groups("RegexTokenizer")
    for group in base:
        for case in group.cases:
            if case.code == "tok.merges":
                case.hint = CHUNK_HINT.strip() + " " + case.hint
    text, doc = prose(0, 3000)
    hello = "hello hello world!!! hello"
    pattern_hint = ("Use the pattern given to __init__ (GPT-4's when it is None), compile it "
                    "with regex.compile (not re) and split with it both in train and encode.")
    return base[:5] + [
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT),
               Case("tok.encode('dog. cat.')", ORDER_HINT + CHUNK_HINT)],
              setup="tok = RegexTokenizer()\ntok.train('dog. dog. dog. cat cat', 260)"),
        Group([Case("tok.merges", CHUNK_HINT.strip() + " " + MERGES_HINT),
               Case("tok.encode('hello world!!!')", ORDER_HINT + CHUNK_HINT),
               Case("tok.encode('hellohello')", ORDER_HINT)],
              setup=f"tok = RegexTokenizer()\ntok.train({hello!r}, 260)"),
    ] + base[5:] + [
        Group([Case("tok.merges", pattern_hint), Case("tok.encode(\"I'VE GOT 12345\")",
                                                      pattern_hint)],
              setup="tok = RegexTokenizer(GPT2_SPLIT_PATTERN)\ntok.train(TEXT, 290)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
    ]


# -- 05 special tokens and files ---------------------------------------------------------

EOT, FIM = "<|endoftext|>", "<|fim_prefix|>"


def split_special_groups() -> list[Group]:
    escape = ("'|' is a regex operator: escape each token (regex.escape) before joining "
              "them with '|', or the pattern matches '<' alone.")
    empty = "Drop empty pieces: a token at the start or end leaves no '' behind."
    both = [EOT, FIM]
    return [
        Group(calls("split_special", [("hello", [])], "No special tokens: the whole text is "
                    "one piece.")
              + calls("split_special", [("", [EOT])], "Empty text has no pieces: [].")
              + calls("split_special", [("hello", [EOT]), ("a<|endoftext|>b", [EOT])], escape)
              + calls("split_special", [("<|endoftext|>a", [EOT]), ("a<|endoftext|>", [EOT]),
                                        ("<|endoftext|><|endoftext|>", [EOT])], empty)
              + calls("split_special", [("x<|fim_prefix|>y<|endoftext|>z", both)], escape)
              + calls("split_special", [("a<|end|><|end|>b", ["<|end|>", "<|end|><|end|>"])],
                      "When one special token contains another, the longer must win: sort "
                      "the tokens longest first before joining them into a pattern.")
              + calls("split_special", [("1+1=2 (a*b)", ["(a*b)"])], escape)
              + calls("split_special", [("<|endoftext", [EOT])], "Only whole tokens count.")),
        Group(calls("split_special", [("<|a|>b<|a|>", ["<|a|>", "b"]), ("..", ["."]),
                                      ("x[y]z", ["[y]", "y"])], escape), hidden=True),
    ]


SPECIAL_HINTS = {
    "all": "allowed_special='all': every registered special token in the text becomes its "
           "id; the pieces between them are encoded as ordinary text.",
    "none": "allowed_special='none': special tokens are just text, encoded like any other.",
    "raise": "The default, allowed_special='none_raise', must raise ValueError naming the "
             "special token found, so user text cannot smuggle in control tokens.",
    "set": "A set allows only its tokens; any other registered special token in the text "
           "raises ValueError naming it.",
    "decode": "decode must know the special ids: add them to self.vocab (as the token's "
              "UTF-8 bytes) when registering.",
}


def special_tokens_groups() -> list[Group]:
    text, doc = prose(0, 2000)
    h = SPECIAL_HINTS
    setup = (f"tok = SpecialTokenizer()\ntok.train(TEXT, 300)\n"
             f"tok.register_special_tokens({{{EOT!r}: 300, {FIM!r}: 301}})")
    return [
        Group([Case("tok.special_tokens", "register_special_tokens stores the tokens in "
                    "self.special_tokens ({token: id})."),
               Case("tok.encode('hello world')", "Text without special tokens encodes as "
                    "before (encode_ordinary)."),
               Case("tok.encode('', allowed_special='all')", "Empty text: []."),
               Case("tok.encode('<|endoftext|>', allowed_special='all')", h["all"]),
               Case("tok.encode('hello<|endoftext|>world', allowed_special='all')", h["all"]),
               Case("tok.encode('<|endoftext|><|fim_prefix|><|endoftext|>', "
                    "allowed_special='all')", h["all"]),
               Case("tok.encode('hello<|endoftext|>world', allowed_special='none')", h["none"]),
               Case("tok.encode('hello<|endoftext|>world')", h["raise"], mention=EOT),
               Case("tok.encode('a<|endoftext|>b', allowed_special={'<|endoftext|>'})",
                    h["set"]),
               Case("tok.encode('a<|fim_prefix|>b<|endoftext|>', "
                    "allowed_special={'<|endoftext|>'})", h["set"], mention=FIM),
               Case("tok.decode(tok.encode('x<|endoftext|>y', allowed_special='all'))",
                    h["decode"])],
              setup=setup, env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("tok.encode('a<|end|><|end|>b', allowed_special='all')",
                    "When one special token contains another, the longer must win."),
               Case("tok.encode('(a*b)<|end|>', allowed_special='all')", h["all"])],
              setup="tok = SpecialTokenizer()\n"
                    "tok.register_special_tokens({'<|end|>': 256, '<|end|><|end|>': 257, "
                    "'(a*b)': 258})"),
        Group([Case("tok.encode('<|end|>', allowed_special='none')", h["none"]),
               Case("tok.encode('x<|end|>', allowed_special=set())", h["set"],
                    mention="<|end|>"),
               Case("tok.decode([256, 97])", h["decode"])],
              setup="tok = SpecialTokenizer()\ntok.register_special_tokens({'<|end|>': 256})",
              hidden=True),
    ]


def save_load_groups() -> list[Group]:
    text, doc = prose(0, 2000)
    text, doc = text + " 12345 67890" * 20, doc + ' + " 12345 67890" * 20'
    setup = ("tok = SpecialTokenizer(GPT2_SPLIT_PATTERN)\ntok.train(TEXT, 300)\n"
             f"tok.register_special_tokens({{{EOT!r}: 300}})\n"
             "tok.save(TMP + '/mine')\ntok2 = SpecialTokenizer()\n"
             "tok2.load(TMP + '/mine.model')")
    same = ("tok2 must encode exactly like tok: save and restore the pattern (and recompile "
            "it: self.compiled_pattern = regex.compile(self.pattern)), the merges, the vocab "
            "built from them, and the special tokens.")
    return [
        Group([Case("text_file(TMP + '/mine.model')", "save(prefix) writes prefix + '.model' "
                    "as plain text, never a pickle: loading a pickle runs whatever code it "
                    "holds."),
               Case("tok2.merges == tok.merges", "load must restore every merge, with its id."),
               Case("tok2.special_tokens", "load must restore the special tokens."),
               Case("tok2.pattern == GPT2_SPLIT_PATTERN", same),
               Case("tok2.encode(\"I'VE GOT 12345 apples<|endoftext|>\", "
                    "allowed_special='all')", same),
               Case("tok2.decode(tok2.encode('x<|endoftext|>y', allowed_special='all'))", same),
               Case("tok2.encode(TEXT[:300])", same)],
              setup=setup, env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case("tok2.encode('<|fim|>ab', allowed_special='all')", same),
               Case("tok2.merges == tok.merges", same)],
              setup="tok = SpecialTokenizer()\ntok.train('abababab', 258)\n"
                    "tok.register_special_tokens({'<|fim|>': 400})\ntok.save(TMP + '/t')\n"
                    "tok2 = SpecialTokenizer()\ntok2.load(TMP + '/t.model')", hidden=True),
    ]


# -- 06 GPT-4's tokenizer from tiktoken's ranks ------------------------------------------------

def first_ranks(encoding: str, n: int) -> tuple[dict, str]:
    from .encodings import load_ranks
    ranks = {t: r for t, r in load_ranks(encoding).items() if r < n}
    return ranks, f"{{t: r for t, r in load_ranks({encoding!r}).items() if r < {n}}}"


def recover_merges_groups() -> list[Group]:
    lower = ("Split each token by running BPE on its bytes with only the ranks *below* its "
             "own rank: then it stops at exactly two parts, the merge that made it.")
    ids = "The ids in a merge are ranks: (rank of left part, rank of right part) -> rank."
    ranks, doc = first_ranks("cl100k_base", 1000)
    more, more_doc = first_ranks("o200k_base", 1500)
    return [
        Group(calls("recover_merges", [({b"a": 0, b"b": 1},)], "Single bytes are not merged: "
                    "no multi-byte token, no merge.")
              + calls("recover_merges", [({b"a": 0, b"b": 1, b"ab": 2},),
                                         ({b"b": 0, b"a": 1, b"ab": 2},)], ids)
              + calls("recover_merges", [({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4},),
                                         ({b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4,
                                           b"abc": 5},)], lower)
              + [Case("recover_merges(RANKS)", lower)],
              env={"RANKS": ranks}, env_doc={"RANKS": doc}),
        Group([Case("recover_merges(RANKS)", lower)], env={"RANKS": more},
              env_doc={"RANKS": more_doc}, hidden=True),
    ]


def gpt4_tokenizer_groups() -> list[Group]:
    from .encodings import load_ranks
    shuffle = ("The first 256 ranks are the 256 bytes in a shuffled order: '!' is byte 33 but "
               "rank 0. Give each byte its rank (self.byte_ids = [ranks[bytes([b])] for b in "
               "range(256)]) before building self.vocab.")
    parity = ("Ids must equal tiktoken's: GPT-4's split pattern, the merges recovered from "
              "the ranks, and the byte shuffle.")
    decode = ("decode looks up each id's bytes (self.vocab, rebuilt after setting "
              "self.byte_ids) and decodes them with errors='replace'.")
    special = "The encoding's special tokens must be registered (register_special_tokens)."
    texts, doc = prose(0, 3000)
    src, src_doc = code(3000)

    def cases(name: str) -> list[Case]:
        lone = load_ranks(name)[b"\x80"]
        return ([Case("tok.encode('')", parity), Case("tok.encode('!')", shuffle),
                 Case("tok.encode('hello world')", shuffle),
                 Case("tok.decode(tok.encode('hello world'))", decode),
                 Case(f"tok.decode([{lone}])", decode)]
                + [Case(f"tok.encode({t!r})", parity) for t in HARD_TEXTS]
                + [Case("tok.encode('a' * 300)", parity), Case("tok.encode(TEXT)", parity),
                   Case("tok.decode(tok.encode(CODE))", decode),
                   Case("tok.encode('<|endoftext|>', allowed_special='all')", special),
                   Case("tok.encode('hi<|endoftext|>')", special, mention=EOT),
                   Case("tok.encode('\\ud83d lone surrogate')", "Like tiktoken, replace a lone "
                        "surrogate by U+FFFD before encoding (the course's RegexTokenizer "
                        "does this in encode_ordinary).")])

    env = {"TEXT": texts, "CODE": src}
    env_doc = {"TEXT": doc, "CODE": src_doc}
    hidden = [Case(f"tok.encode({t!r})", parity) for t in random_texts(4, 25)]
    return [
        Group(cases("cl100k_base"), setup="tok = GPT4Tokenizer('cl100k_base')", env=env,
              env_doc=env_doc, setup_time_limit=120),
        Group(hidden, setup="tok = GPT4Tokenizer('cl100k_base')", hidden=True,
              setup_time_limit=120),
        Group(cases("o200k_base") + hidden, setup="tok = GPT4Tokenizer('o200k_base')",
              env=env, env_doc=env_doc, hidden=True, setup_time_limit=180),
    ]


# -- 07 fast training -----------------------------------------------------------------------

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


def train_bpe_groups() -> list[Group]:
    same = ("The merges must be exactly the naive trainer's: same counts (inside pre-tokens "
            "only), same tie-break (highest count, then greatest (left bytes, right bytes)). "
            + FAST_HINT)
    size = ("vocab_size counts the 256 bytes, the merges and the special tokens; vocab maps "
            "every id to its bytes.")
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
        Group([Case("merges", same), Case("len(vocab)", size)],
              setup=f"{train}(TEXT, 400)", env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("merges", same)], setup=f"{train}(TEXT[:5000], 300, "
                                             "pattern=GPT2_SPLIT_PATTERN)",
              env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case(f"fast = seconds(lambda: train_bpe(TEXT, {SPEED_VOCAB}), repeat=3)\n"
                    f"slow = seconds(lambda: RegexTokenizer().train(TEXT, {SPEED_VOCAB}))\n"
                    "round(slow / fast, 1)", FAST_HINT, expected=10, judge="at_least")],
              setup="from bpe_course import RegexTokenizer", env={"TEXT": speed},
              env_doc={"TEXT": speed_doc}, time_limit=120),
        Group([Case("merges", same), Case("sorted(vocab.values())", size)],
              setup=f"{train}(CODE, 350, ['<|endoftext|>', '<|pad|>'])",
              env={"CODE": src}, env_doc={"CODE": src_doc}, hidden=True, time_limit=120),
    ]


# -- the checkers ----------------------------------------------------------------------------

def _course(path: str):
    """A lazy reference: 'bpe_course.pairs.merge' -> that object, imported on use."""
    def load():
        import importlib
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)
    return load


_TOKENIZER = "bpe_course.base.Tokenizer"
_REGEX = "bpe_course.regex_tokenizer.RegexTokenizer"


def _checkers() -> dict[str, Checker]:
    ref = "bpe_course.check_references."
    items = [
        Checker("utf8_bytes", "utf8_bytes", "function", _course(ref + "utf8_list"),
                utf8_bytes_groups),
        Checker("code_points_and_bytes", "code_points_and_bytes", "function",
                _course(ref + "code_points_and_bytes"), code_points_groups),
        Checker("safe_decode", "safe_decode", "function", _course(ref + "safe_decode"),
                safe_decode_groups),
        Checker("get_stats", "get_stats", "function", _course("bpe_course.pairs.get_stats"),
                get_stats_groups),
        Checker("merge", "merge", "function", _course("bpe_course.pairs.merge"), merge_groups),
        Checker("basic_tokenizer", "BasicTokenizer", "class",
                _course("bpe_course.basic.BasicTokenizer"),
                lambda: tokenizer_groups("BasicTokenizer"), own=("train", "encode", "decode")),
        Checker("chunked_stats", "chunked_stats", "function", _course(ref + "chunked_stats"),
                chunked_stats_groups),
        Checker("regex_tokenizer", "RegexTokenizer", "class", _course(_REGEX),
                regex_tokenizer_groups, own=("__init__", "train", "encode"),
                allowed_bases=(_TOKENIZER,)),
        Checker("split_special", "split_special", "function",
                _course("bpe_course.special.split_special"), split_special_groups),
        Checker("special_tokens", "SpecialTokenizer", "class", _course(_REGEX),
                special_tokens_groups, own=("register_special_tokens", "encode"),
                allowed_bases=(_REGEX, _TOKENIZER)),
        Checker("save_load", "SpecialTokenizer", "class", _course(_REGEX), save_load_groups,
                own=("save", "load"), allowed_bases=(_REGEX, _TOKENIZER)),
        Checker("recover_merges", "recover_merges", "function",
                _course("bpe_course.gpt4.recover_merges"), recover_merges_groups),
        Checker("gpt4_tokenizer", "GPT4Tokenizer", "class", _course(ref + "TiktokenReference"),
                gpt4_tokenizer_groups, own=("__init__",), allowed_bases=(_REGEX, _TOKENIZER)),
        Checker("count_pretokens", "count_pretokens", "function",
                _course(ref + "count_pretokens"), count_pretokens_groups),
        Checker("train_bpe", "train_bpe", "function", _course(ref + "naive_train_bpe"),
                train_bpe_groups),
    ]
    for checker in items:          # build each checker's groups once, on first use
        checker.groups = functools.lru_cache(maxsize=None)(checker.groups)
    return {c.name: c for c in items}


CHECKERS: dict[str, Checker] = _checkers()


# Each worksheet's exercises: checker name (also the check cell's nbgrader grade_id) -> points.
WORKSHEETS: dict[str, dict[str, int]] = {
    "01_utf8_warmups": {"utf8_bytes": 1, "code_points_and_bytes": 1, "safe_decode": 1},
    "02_bpe_basics": {"get_stats": 1, "merge": 2, "basic_tokenizer": 3},
    "04_regex_tokenizer": {"chunked_stats": 1, "regex_tokenizer": 3},
    "05_special_tokens": {"split_special": 1, "special_tokens": 2, "save_load": 2},
    "06_gpt4_tokenizer": {"recover_merges": 2, "gpt4_tokenizer": 3},
    "07_fast_training": {"count_pretokens": 1, "train_bpe": 4},
}
