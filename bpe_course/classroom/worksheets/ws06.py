"""Worksheet 06, GPT-4 from tiktoken's ranks: `recover_merges` and a `GPT4Tokenizer`."""

from __future__ import annotations

from . import ws02
from .common import (
    CONTRACT,
    DECODE,
    EOT,
    HARD_TEXTS,
    REAL,
    REF,
    REGEX,
    TOKENIZER,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    code,
    course_ref,
    prose,
    random_texts,
)


def first_ranks(encoding: str, n: int) -> tuple[dict, str]:
    from ...openai.encodings import load_ranks
    ranks = {t: r for t, r in load_ranks(encoding).items() if r < n}
    return ranks, f"{{t: r for t, r in load_ranks({encoding!r}).items() if r < {n}}}"


def tokens_of(ranks: dict) -> dict:
    return {rank: token for token, rank in ranks.items()}


def recover_merges_groups() -> list[Group]:
    lower = ("Split each token by running BPE on its bytes with only the ranks *below* its "
             "own rank: then it stops at exactly two parts, the merge that made it.")
    strictly = ("Only ranks strictly below the token's own (rank < max_rank, not <=): "
                "with its own rank allowed, BPE joins the whole token into one part, and "
                "there is no (left, right) to unpack.")
    ids = ("The ids in a merge are ranks, not byte values: (rank of left part, rank of "
           "right part) -> rank. Here b'a' has rank 1 and b'b' rank 0.")
    speed = ("This is all of cl100k_base's 100,256 ranks. Aim for about O(n · L²) with L "
             "the token's length: look the joined bytes up in `ranks` (a dict), never "
             "search through all the tokens for each one; the course's version takes a few "
             "seconds.")
    ranks, doc = first_ranks("cl100k_base", 1000)
    more, more_doc = first_ranks("o200k_base", 1500)

    def small(table: dict, hint: str, breaks: str = WRONG) -> Case:
        return Case(f"recover_merges({table!r})", hint, tokens=tokens_of(table), breaks=breaks,
                    when=UNPACK)
    return [
        Group([small({b"a": 0, b"b": 1}, "Single bytes are not merged: no multi-byte "
                     "token, no merge.", breaks="edge"),
               small({b"a": 97, b"b": 98, b"ab": 256}, strictly),
               small({b"b": 0, b"a": 1, b"ab": 2}, ids),
               small({b"a": 0, b"b": 1, b"ab": 2}, ids),
               small({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}, lower),
               small({b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4, b"abc": 5}, lower),
               Case("ranks = {b'a': 0, b'b': 1, b'ab': 2, b'abb': 3}\n"
                    "result = recover_merges(ranks)\n(result, ranks)", "Leave `ranks` as it "
                    "was: GPT4Tokenizer reads it again after recover_merges.",
                    breaks=CONTRACT, probe="unchanged:0"),
               Case("recover_merges(RANKS)", lower, tokens=tokens_of(ranks), breaks=WRONG,
                    weight=5, when=UNPACK)],
              env={"RANKS": ranks}, env_doc={"RANKS": doc}),
        Group([Case("recover_merges(ALL)", speed, breaks=WRONG, weight=5)],
              setup="from bpe_course.openai.encodings import load_ranks\n"
                    "ALL = dict(load_ranks('cl100k_base'))", time_limit=60),
        Group([Case("recover_merges(RANKS)", lower, tokens=tokens_of(more), breaks=WRONG,
                    weight=5, when=UNPACK)], env={"RANKS": more},
              env_doc={"RANKS": more_doc}, hidden=True),
    ]


# Keyed by what came back: a token split by BPE with its own rank allowed is one part.
UNPACK = {"raised:ValueError": (
    "Unpacking the parts of a token failed: BPE with ranks up to and including the token's "
    "own joins it into one part. Allow only the ranks strictly below its own "
    "(rank < max_rank), so that it stops at exactly two parts.")}


def recognize_recover(inputs: dict, expected, got):
    """Merges with the ids swapped, byte values for ranks, bytes for ids, or only the
    two-byte tokens."""
    args = inputs.get("args") or []
    ranks = args[0] if args else None
    if not isinstance(ranks, dict) or not isinstance(got, dict) or not isinstance(expected, dict):
        return None
    if got and all(isinstance(k, tuple) and all(isinstance(x, (bytes, bytearray)) for x in k)
                   for k in got):
        return ("bytes_for_ids", "your code gave bytes where ids are wanted: a merge is "
                "(rank of the left part, rank of the right part) -> rank, ints all three.")
    if got == {(b, a): r for (a, b), r in expected.items()}:
        return ("swapped", "left and right are swapped: the merge is (rank of the left "
                "part, rank of the right part).")
    token_of = {r: t for t, r in ranks.items()}
    as_bytes = {tuple(token_of[x][0] if len(token_of.get(x, b"..")) == 1 else x for x in pair): r
                for pair, r in expected.items()}
    if as_bytes != expected and got == as_bytes:
        return ("byte_values", "the ids of single bytes are their byte values, not their "
                "ranks: the merge uses the rank of each part (ranks[part]), and a byte's rank "
                "is not its value (b'a' can have rank 1).")
    two = {pair: r for pair, r in expected.items() if len(token_of.get(r, b"")) == 2}
    if two != expected and got == two:
        return ("two_bytes", "only the tokens of two bytes have merges here: every token of "
                "two or more bytes was made by a merge, the longer ones too.")
    return None


OWN_PATTERN = ("o200k_base splits text with its own pattern, not cl100k_base's: it keeps "
               "\"don't\" whole and cuts 'HelloWorld' before the capital W. Pass "
               "SPLIT_PATTERNS[encoding] to super().__init__.")
MARKS = ("o200k_base splits text with its own pattern, not cl100k_base's: it keeps combining "
         "marks, such as the vowel signs of Hindi, with their letters, where cl100k_base's "
         "cuts them off. Pass SPLIT_PATTERNS[encoding] to super().__init__.")
PARITY = "Ids must equal tiktoken's."
SPECIAL_IDS = {"[100257]": "100257 is cl100k_base's id of <|endoftext|>: register the "
                          "special tokens of the encoding asked for, SPECIAL_TOKENS[encoding]."}
TAKEN_IDS = {"course:register_special_tokens": (
    "The ids you registered are already ids of ordinary tokens of this encoding: register "
    "the special tokens of the encoding asked for, SPECIAL_TOKENS[encoding].")}
ORDER = ("Do the steps of __init__ in this order: super().__init__(SPLIT_PATTERNS[encoding]) "
         "first (it resets the merges, the byte ids, the vocab and the special tokens), then "
         "self.merges, then self.byte_ids, then self.vocab = self._build_vocab(), then "
         "register_special_tokens.")
RANKS_BY_BYTES = {"raised:KeyError": (
    "load_ranks(encoding) is keyed by each token's bytes: the rank of byte b is "
    "ranks[bytes([b])], not ranks[b].")}


def gpt4_tokenizer_groups() -> list[Group]:
    from ...openai.encodings import load_ranks
    shuffle = ("The first 256 ranks are the 256 bytes in a shuffled order: '!' is byte 33 but "
               "rank 0. Give each byte its rank (self.byte_ids = [ranks[bytes([b])] for b in "
               "range(256)]) before building self.vocab.")
    parity = ("Ids must equal tiktoken's: the encoding's own split pattern "
              "(SPLIT_PATTERNS[encoding]), the merges recovered from the ranks, and the byte "
              "shuffle.")
    decode = ("decode looks up each id's bytes (self.vocab, rebuilt after setting "
              "self.byte_ids) and decodes them with errors='replace'.")
    special = "The encoding's special tokens must be registered (register_special_tokens)."
    texts, doc = prose(0, 3000)
    src, src_doc = code(3000)

    def cases(name: str) -> list[Case]:
        lone = load_ranks(name)[b"\x80"]
        return ([Case("tok.encode('')", parity),
                 Case("tok.encode('!')", shuffle, breaks=WRONG, when={"[33]": shuffle}),
                 Case("tok.encode('hello world')", shuffle, breaks=WRONG),
                 Case("tok.decode(tok.encode('hello world'))", decode, breaks=DECODE,
                      probe="round_trip"),
                 Case(f"tok.decode([{lone}])", decode, breaks=DECODE)]
                + [Case(f"tok.encode({t!r})", parity, breaks=WRONG) for t in HARD_TEXTS]
                + [Case("tok.encode('a' * 300)", parity, breaks=WRONG),
                   Case("tok.encode(TEXT)", parity, weight=10, breaks=WRONG),
                   Case("tok.decode(tok.encode(CODE))", decode, breaks=DECODE,
                        probe="round_trip"),
                   Case("tok.encode('<|endoftext|>', allowed_special='all')", special,
                        breaks=WRONG, when=SPECIAL_IDS),
                   Case("tok.decode(tok.encode('a<|endoftext|>b', allowed_special='all'))",
                        decode + " " + special, breaks=DECODE, probe="round_trip"),
                   Case("tok.encode('hi<|endoftext|>')", special, mention=EOT,
                        breaks=CONTRACT),
                   Case("tok.encode('\\ud83d lone surrogate')", "Like tiktoken, replace a lone "
                        "surrogate by U+FFFD before encoding (the course's RegexTokenizer "
                        "does this in encode_ordinary).")])

    from ...corpora import HARD_STRINGS
    hard = "\n".join(t for t in HARD_STRINGS if "<|" not in t)
    env = {"TEXT": texts, "CODE": src, "HARD": hard}
    env_doc = {"TEXT": doc, "CODE": src_doc,
               "HARD": "'\\n'.join(t for t in bpe_course.corpora.HARD_STRINGS if '<|' not in t)"}
    hidden = [Case(f"tok.encode({t!r})", parity, breaks=WRONG) for t in random_texts(4, 25)]
    # o200k_base's own pattern is what cl100k_base's cases cannot test (cl100k_base's pattern
    # is the course's default): its cases on real text weigh more (and more are drawn
    # hidden, see _gpt4_hidden), so an answer right only on cl100k_base keeps under half
    o200k = [Case("tok.encode(\"don't stop, HelloWorld\")", OWN_PATTERN, weight=30,
                  breaks=WRONG),
             Case("tok.encode(\"I'VE GOT 12345 apples\")", OWN_PATTERN, breaks=WRONG),
             Case("tok.encode('<|endoftext|>', allowed_special='all')", special, breaks=WRONG,
                  when=SPECIAL_IDS),
             Case("tok.encode(TEXT)", OWN_PATTERN, weight=10, breaks=WRONG),
             Case("tok.encode(HARD)", OWN_PATTERN, weight=60, breaks=WRONG)]
    groups = [
        Group(cases("cl100k_base"), setup="tok = GPT4Tokenizer('cl100k_base')", env=env,
              env_doc=env_doc, setup_time_limit=120),
        Group(o200k, setup="tok = GPT4Tokenizer('o200k_base')", env=env, env_doc=env_doc,
              setup_time_limit=180),
        Group(hidden, setup="tok = GPT4Tokenizer('cl100k_base')", hidden=True,
              setup_time_limit=120),
        Group(cases("o200k_base") + [Case("tok.encode(HARD.swapcase())", OWN_PATTERN, weight=60,
                                          breaks=WRONG)]
              + hidden, setup="tok = GPT4Tokenizer('o200k_base')",
              env=env, env_doc=env_doc, hidden=True, setup_time_limit=180),
    ]
    for group in groups:
        for case in group.cases:
            case.when = {**RANKS_BY_BYTES, **TAKEN_IDS, **case.when}
    return groups


def recognize_gpt4(inputs: dict, expected, got):
    """An encoder with no merges (super().__init__() called after setting them), or with
    no byte shuffle either."""
    args = inputs.get("args") or []
    if not str(inputs.get("func", "")).endswith(".encode") or not args or \
            not isinstance(args[0], str) or not isinstance(got, list) or got == expected:
        return None
    data = args[0].encode("utf-8", errors="replace")
    if len(data) > 1 and got == list(data):
        return ("unmerged", "no merge applied and no byte shuffle: the ids are the text's "
                "bytes. " + ORDER)
    from ...openai.encodings import load_ranks
    for name in ("cl100k_base", "o200k_base"):
        ranks = load_ranks(name)
        if len(data) > 1 and got == [ranks[bytes([b])] for b in data]:
            return ("unmerged", "no merge applied: the ids are the ranks of the single "
                    "bytes, so self.merges was empty when encoding. " + ORDER)
    return None


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _recover_merges_hidden(rng):
    from .common import unchanged
    cases = []
    for _ in range(3):
        ranks, _ = first_ranks(rng.choice(["cl100k_base", "o200k_base"]),
                                 rng.randrange(300, 900))
        cases.append(Case(f"recover_merges({ranks!r})", "Split each token with only the "
                          "ranks below its own.", breaks=WRONG, weight=5, when=UNPACK))
    small = {bytes([b]): b for b in range(256)}
    small.update({b"ab": 256, b"abc": 257})
    cases.append(unchanged("recover_merges", (small,), 0, "Leave `ranks` as it was.",
                           params=("ranks",)))
    return [Group(cases)]


def _gpt4_hidden(rng):
    """Short random texts in both encodings, and pages of real text in many scripts in
    o200k_base, where its pattern differs from cl100k_base's. cl100k_base's pattern is also
    the default of the course's RegexTokenizer, so its cases cannot tell whether the answer
    uses SPLIT_PATTERNS[encoding]: o200k_base's real text carries the weight."""
    from .common import random_texts, world_page
    texts = random_texts(rng.randrange(2**31), 30)
    pages = {f"PAGE{k}": world_page(rng) for k in range(5)}
    groups = []
    for name, mine in (("cl100k_base", texts[:10]), ("o200k_base", texts[10:])):
        cases = ([Case(f"tok.encode({t!r})", PARITY, breaks=WRONG) for t in mine]
                 + [Case(f"tok.decode(tok.encode({t!r}))", PARITY, breaks=DECODE,
                         probe="round_trip") for t in mine[:5]])
        env = {}
        if name == "o200k_base":
            cases += [Case(f"tok.encode({page})", MARKS, weight=REAL, breaks=WRONG)
                      for page in pages]
            env = {page: text for page, (text, doc) in pages.items()}
        groups.append(Group(cases, setup=f"tok = GPT4Tokenizer({name!r})", env=env,
                            env_doc={page: doc for page, (text, doc) in pages.items() if env},
                            setup_time_limit=120 if name == "cl100k_base" else 180))
    return groups


WORKSHEET = Worksheet(
    "06_gpt4_tokenizer",
    points={"recover_merges": 2, "gpt4_tokenizer": 3},
    checkers=[
        Checker("recover_merges", "recover_merges", "function",
                course_ref("bpe_course.openai.tokenizer.recover_merges"), recover_merges_groups,
                recognize=recognize_recover),
        Checker("gpt4_tokenizer", "GPT4Tokenizer", "class",
                course_ref(REF + "TiktokenReference"), gpt4_tokenizer_groups, own=("__init__",),
                allowed_bases=(REGEX, TOKENIZER), recognize=recognize_gpt4),
    ],
    helpers={"recover_merges": ("bpe_course.openai.encodings",),   # the big case loads its ranks
             "gpt4_tokenizer": ("bpe_course.pairs", "bpe_course.base", "bpe_course.special",
                                "bpe_course.pretokenize", "bpe_course.openai.encodings")},
    forbidden={"gpt4_tokenizer": ("bpe_course.openai.encodings.get_encoding",)},
    answers=("bpe_course.openai.tokenizer.recover_merges",
             "bpe_course.openai.tokenizer.OpenAITokenizer"),      # GPT4Tokenizer is this class
    hidden={"recover_merges": _recover_merges_hidden, "gpt4_tokenizer": _gpt4_hidden},
    probes=ws02.PROBES,
)
