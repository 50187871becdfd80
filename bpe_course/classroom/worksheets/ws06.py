"""Worksheet 06, GPT-4 from tiktoken's ranks: `recover_merges` and a `GPT4Tokenizer`."""

from __future__ import annotations

from .common import (EOT, HARD_TEXTS, REF, REGEX, TOKENIZER, Case, Checker, Group, Worksheet,
                     code, course_ref, prose, random_texts)


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

    def small(table: dict, hint: str) -> Case:
        return Case(f"recover_merges({table!r})", hint, tokens=tokens_of(table))
    return [
        Group([small({b"a": 0, b"b": 1}, "Single bytes are not merged: no multi-byte "
                     "token, no merge."),
               small({b"a": 97, b"b": 98, b"ab": 256}, strictly),
               small({b"b": 0, b"a": 1, b"ab": 2}, ids),
               small({b"a": 0, b"b": 1, b"ab": 2}, ids),
               small({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}, lower),
               small({b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4, b"abc": 5}, lower),
               Case("recover_merges(RANKS)", lower, tokens=tokens_of(ranks))],
              env={"RANKS": ranks}, env_doc={"RANKS": doc}),
        Group([Case("recover_merges(ALL)", speed)],
              setup="from bpe_course.openai.encodings import load_ranks\n"
                    "ALL = load_ranks('cl100k_base')", time_limit=60),
        Group([Case("recover_merges(RANKS)", lower, tokens=tokens_of(more))], env={"RANKS": more},
              env_doc={"RANKS": more_doc}, hidden=True),
    ]


OWN_PATTERN = ("o200k_base splits text with its own pattern, not cl100k_base's: it keeps "
               "\"don't\" whole and cuts 'HelloWorld' before the capital W. Pass "
               "SPLIT_PATTERNS[encoding] to super().__init__.")
MARKS = ("o200k_base splits text with its own pattern, not cl100k_base's: it keeps combining "
         "marks, such as the vowel signs of Hindi, with their letters, where cl100k_base's "
         "cuts them off. Pass SPLIT_PATTERNS[encoding] to super().__init__.")
PARITY = "Ids must equal tiktoken's."


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
        return ([Case("tok.encode('')", parity), Case("tok.encode('!')", shuffle),
                 Case("tok.encode('hello world')", shuffle),
                 Case("tok.decode(tok.encode('hello world'))", decode),
                 Case(f"tok.decode([{lone}])", decode)]
                + [Case(f"tok.encode({t!r})", parity) for t in HARD_TEXTS]
                + [Case("tok.encode('a' * 300)", parity),
                   Case("tok.encode(TEXT)", parity, weight=10),
                   Case("tok.decode(tok.encode(CODE))", decode),
                   Case("tok.encode('<|endoftext|>', allowed_special='all')", special),
                   Case("tok.encode('hi<|endoftext|>')", special, mention=EOT),
                   Case("tok.encode('\\ud83d lone surrogate')", "Like tiktoken, replace a lone "
                        "surrogate by U+FFFD before encoding (the course's RegexTokenizer "
                        "does this in encode_ordinary).")])

    from ...corpora import HARD_STRINGS
    hard = "\n".join(t for t in HARD_STRINGS if "<|" not in t)
    env = {"TEXT": texts, "CODE": src, "HARD": hard}
    env_doc = {"TEXT": doc, "CODE": src_doc,
               "HARD": "'\\n'.join(t for t in bpe_course.corpora.HARD_STRINGS if '<|' not in t)"}
    hidden = [Case(f"tok.encode({t!r})", parity) for t in random_texts(4, 25)]
    # o200k_base's own pattern is what cl100k_base's cases cannot test (cl100k_base's pattern
    # is the course's default): its cases on real text weigh more (and more are drawn
    # hidden, see _gpt4_hidden), so an answer right only on cl100k_base keeps under half
    o200k = [Case("tok.encode(\"don't stop, HelloWorld\")", OWN_PATTERN, weight=30),
             Case("tok.encode(\"I'VE GOT 12345 apples\")", OWN_PATTERN),
             Case("tok.encode(TEXT)", OWN_PATTERN, weight=10),
             Case("tok.encode(HARD)", OWN_PATTERN, weight=60)]
    return [
        Group(cases("cl100k_base"), setup="tok = GPT4Tokenizer('cl100k_base')", env=env,
              env_doc=env_doc, setup_time_limit=120),
        Group(o200k, setup="tok = GPT4Tokenizer('o200k_base')", env=env, env_doc=env_doc,
              setup_time_limit=180),
        Group(hidden, setup="tok = GPT4Tokenizer('cl100k_base')", hidden=True,
              setup_time_limit=120),
        Group(cases("o200k_base") + [Case("tok.encode(HARD.swapcase())", OWN_PATTERN, weight=60)]
              + hidden, setup="tok = GPT4Tokenizer('o200k_base')",
              env=env, env_doc=env_doc, hidden=True, setup_time_limit=180),
    ]


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _recover_merges_hidden(rng):
    from .common import unchanged
    cases = []
    for _ in range(3):
        ranks, _ = first_ranks(rng.choice(["cl100k_base", "o200k_base"]),
                                 rng.randrange(300, 900))
        cases.append(Case(f"recover_merges({ranks!r})", "Split each token with only the "
                          "ranks below its own."))
    small = {bytes([b]): b for b in range(256)}
    small.update({b"ab": 256, b"abc": 257})
    cases.append(unchanged("recover_merges", (small,), 0, "Leave `ranks` as it was."))
    return [Group(cases)]


def _gpt4_hidden(rng):
    """Short random texts in both encodings, and pages of real text in many scripts in
    o200k_base, where its pattern differs from cl100k_base's. cl100k_base's pattern is also
    the default of the course's RegexTokenizer, so its cases cannot tell whether the answer
    uses SPLIT_PATTERNS[encoding]: o200k_base's real text carries the weight."""
    from .common import REAL, random_texts, world_page
    texts = random_texts(rng.randrange(2**31), 30)
    pages = {f"PAGE{k}": world_page(rng) for k in range(5)}
    groups = []
    for name, mine in (("cl100k_base", texts[:10]), ("o200k_base", texts[10:])):
        cases = ([Case(f"tok.encode({t!r})", PARITY) for t in mine]
                 + [Case(f"tok.decode(tok.encode({t!r}))", PARITY) for t in mine[:5]])
        env = {}
        if name == "o200k_base":
            cases += [Case(f"tok.encode({page})", MARKS, weight=REAL) for page in pages]
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
                course_ref("bpe_course.openai.tokenizer.recover_merges"), recover_merges_groups),
        Checker("gpt4_tokenizer", "GPT4Tokenizer", "class",
                course_ref(REF + "TiktokenReference"), gpt4_tokenizer_groups, own=("__init__",),
                allowed_bases=(REGEX, TOKENIZER)),
    ],
    helpers={"recover_merges": ("bpe_course.openai.encodings",),   # the big case loads its ranks
             "gpt4_tokenizer": ("bpe_course.pairs", "bpe_course.base", "bpe_course.special",
                                "bpe_course.pretokenize", "bpe_course.openai.encodings")},
    forbidden={"gpt4_tokenizer": ("bpe_course.openai.encodings.get_encoding",)},
    hidden={"recover_merges": _recover_merges_hidden, "gpt4_tokenizer": _gpt4_hidden},
)
