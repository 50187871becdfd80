"""Worksheet 05, special tokens and files: `split_special`, special tokens, save/load."""

from __future__ import annotations

from .common import (EOT, GPT2_SPLIT_PATTERN, REGEX, TOKENIZER, Case, Checker, Group,
                     Worksheet, calls, course_ref, prose)

FIM = "<|fim_prefix|>"


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
    "unknown": "A set that names a token which is not a registered special token is a "
               "mistake of the caller: raise ValueError naming it (registered tokens live in "
               "self.special_tokens).",
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
                    h["decode"]),
               Case("tok.encode('a<|x|>', allowed_special={'<|x|>'})", h["unknown"],
                    mention="<|x|>")],
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


# The course code under the course's RegexTokenizer, which the tokenizers build on.
_BASE = ("bpe_course.pairs", "bpe_course.base", "bpe_course.pretokenize")


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _special_text(rng, tokens) -> str:
    from .common import random_texts
    words = random_texts(rng.randrange(2**31), rng.randrange(1, 6))
    return "".join(w + (rng.choice(tokens) if rng.random() < 0.7 else "") for w in words)


def _split_special_hidden(rng):
    from .common import unchanged
    pool = [EOT, FIM, "<|a|>", "<|a|><|a|>", "(x)", "[.]", "|", "ab"]
    cases = []
    for _ in range(40):
        tokens = rng.sample(pool, rng.randrange(1, 4))
        cases.append(Case(f"split_special({_special_text(rng, tokens)!r}, {tokens!r})",
                          "Escape the tokens, longest first, and drop empty pieces."))
    tokens = [EOT, "(x)"]
    cases.append(unchanged("split_special", (_special_text(rng, tokens), tokens), 1,
                           "Leave the list of tokens as it was: sort a copy (sorted(...))."))
    return [Group(cases)]


def _special_tokens_hidden(rng):
    text, doc = prose(0, 2000)
    texts = [_special_text(rng, [EOT, FIM]) for _ in range(25)]
    cases = [Case(f"tok.encode({t!r}, allowed_special='all')", SPECIAL_HINTS["all"])
             for t in texts[:10]]
    cases += [Case(f"tok.encode({t!r}, allowed_special='none')", SPECIAL_HINTS["none"])
              for t in texts[10:15]]
    cases += [Case(f"tok.encode({t!r})", SPECIAL_HINTS["raise"]) for t in texts[15:20]]
    cases += [Case(f"tok.decode(tok.encode({t!r}, allowed_special='all'))",
                   SPECIAL_HINTS["decode"]) for t in texts[20:]]
    size = rng.randrange(262, 300)
    setup = (f"tok = SpecialTokenizer()\ntok.train(TEXT, {size})\n"
             f"tok.register_special_tokens({{{EOT!r}: {size}, {FIM!r}: {size + 1}}})")
    return [Group(cases, setup=setup, env={"TEXT": text}, env_doc={"TEXT": doc})]


# Patterns other than the default, for round trips (load must restore and recompile them):
# GPT-2's, and one that keeps each word's trailing space, so that pairs such as (b'e', b' ')
# are learned, which GPT-4's pattern (the default) never puts in one chunk.
PATTERNS = {"GPT2_SPLIT_PATTERN": (GPT2_SPLIT_PATTERN, "bpe_course.GPT2_SPLIT_PATTERN"),
            "WORDS": (r"\S+\s*", repr(r"\S+\s*"))}


def _save_load_hidden(rng):
    """Round trips of tokenizers with a pattern that is not the default, trained on a page of
    prose and code, then encoding real text. The saved file is loaded only if it is text: a
    load that would run a pickle is never run, so a pickle fails every case here."""
    from .common import REAL, training_pages
    same = "tok2 must encode exactly like tok after load (the pattern restored and recompiled)."
    groups = []
    for pattern, (value, doc) in PATTERNS.items():
        pages = training_pages(rng)
        size = rng.randrange(300, 360)
        setup = (f"tok = SpecialTokenizer({pattern})\ntok.train(TEXT, {size})\n"
                 f"tok.register_special_tokens({{{EOT!r}: {size}}})\ntok.save(TMP + '/h')\n"
                 "if not text_file(TMP + '/h.model'):\n"
                 "    raise ValueError('save wrote a file that is not text (a pickle?): it is "
                 "never loaded, since loading a pickle runs whatever code it holds')\n"
                 "tok2 = SpecialTokenizer()\ntok2.load(TMP + '/h.model')")
        groups.append(Group(
            [Case("tok2.merges == tok.merges", same)]     # a copy: only encoding is real text
            + [Case(f"tok2.encode({name})", same, weight=REAL) for name in pages]
            + [Case(f"tok2.encode({_special_text(rng, [EOT])!r}, allowed_special='all')", same)
               for _ in range(8)],
            setup=setup, env={**{k: v[0] for k, v in pages.items()}, pattern: value},
            env_doc={**{k: v[1] for k, v in pages.items()}, pattern: doc}))
    return groups


WORKSHEET = Worksheet(
    "05_special_tokens",
    points={"split_special": 1, "special_tokens": 2, "save_load": 2},
    checkers=[
        Checker("split_special", "split_special", "function",
                course_ref("bpe_course.special.split_special"), split_special_groups),
        Checker("special_tokens", "SpecialTokenizer", "class", course_ref(REGEX),
                special_tokens_groups, own=("register_special_tokens", "encode"),
                allowed_bases=(REGEX, TOKENIZER)),
        Checker("save_load", "SpecialTokenizer", "class", course_ref(REGEX), save_load_groups,
                own=("save", "load"), allowed_bases=(REGEX, TOKENIZER)),
    ],
    # The tokenizers build on the course's RegexTokenizer (without its own encode, special
    # tokens and files); reading or writing the course's model files is off limits.
    helpers={"special_tokens": _BASE, "save_load": _BASE},
    forbidden={"special_tokens": (REGEX + ".from_merges",), "save_load": (REGEX + ".from_merges",)},
    hidden={"split_special": _split_special_hidden, "special_tokens": _special_tokens_hidden,
            "save_load": _save_load_hidden},
)
