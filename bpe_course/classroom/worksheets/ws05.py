"""Worksheet 05, special tokens and files: `split_special`, special tokens, save/load."""

from __future__ import annotations

from . import ws02
from .common import (
    CONTRACT,
    DECODE,
    EOT,
    GPT2_SPLIT_PATTERN,
    REAL,
    REGEX,
    STATE,
    TOKENIZER,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    calls,
    course_ref,
    escaped,
    outcome,
    prose,
)

FIM = "<|fim_prefix|>"


def split_special_groups() -> list[Group]:
    escape = ("'|' is a regex operator: escape each token (regex.escape) before joining "
              "them with '|', or the pattern matches '<' alone.")
    empty = "Drop empty pieces: a token at the start or end leaves no '' behind."
    shape = ("A special token is any string in `tokens`, whatever it looks like: '[SEP]' "
             "or 'cd' is one too, and '<|x|>' is not when it is not in the list.")
    both = [EOT, FIM]

    def wrong(*args_list, hint):
        cases = calls("split_special", args_list, hint)
        for case in cases:
            case.breaks = WRONG
        return cases
    return [
        Group(calls("split_special", [("hello", [])], "No special tokens: the whole text is "
                    "one piece.")
              + calls("split_special", [("", [EOT])], "Empty text has no pieces: [].")
              + wrong(("hello", [EOT]), ("a<|endoftext|>b", [EOT]), hint=escape)
              + wrong(("<|endoftext|>a", [EOT]), ("a<|endoftext|>", [EOT]),
                      ("<|endoftext|><|endoftext|>", [EOT]), hint=empty)
              + wrong(("x<|fim_prefix|>y<|endoftext|>z", both), hint=escape)
              + wrong(("a<|end|><|end|>b", ["<|end|>", "<|end|><|end|>"]),
                      hint="When one special token contains another, the longer must win: "
                           "sort the tokens longest first before joining them into a "
                           "pattern.")
              + wrong(("1+1=2 (a*b)", ["(a*b)"]), hint=escape)
              + wrong(("a[SEP]b<|x|>c", ["[SEP]"]), ("abcdab", ["cd"]), hint=shape)
              + wrong(("<|a|> <|a|>\n", ["<|a|>"]), hint="A piece of whitespace only is a "
                      "piece like any other: keep ' ' and '\\n' (drop only empty ones).")
              + calls("split_special", [("<|endoftext", [EOT])], "Only whole tokens count.")
              + [unchanged_tokens("x<|a|><|a|>y", ["<|a|>", "<|a|><|a|>"])]),
        Group(calls("split_special", [("<|a|>b<|a|>", ["<|a|>", "b"]), ("..", ["."]),
                                      ("x[y]z", ["[y]", "y"])], escape), hidden=True),
    ]


def unchanged_tokens(text: str, tokens: list) -> Case:
    from .common import unchanged
    return unchanged("split_special", (text, tokens), 1, "Leave the list of tokens as it "
                     "was: sort a copy (sorted(tokens, ...)), not the caller's list "
                     "(tokens.sort() changes it).", params=("text", "tokens"))


def _split(text: str, pattern: str, keep_empty=False, keep_tokens=True) -> list:
    import regex
    parts = regex.split(f"({pattern})" if keep_tokens else pattern, text)
    return [p for p in parts if p or keep_empty]


def recognize_split(inputs: dict, expected, got):
    """Which splitter a wrong list comes from: shapes, no escaping, shorter tokens first,
    empty pieces kept, the tokens dropped."""
    import regex
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(got, list) or \
            not all(isinstance(t, str) for t in args[1] or []):
        return None
    text, tokens = args[0], list(args[1])
    if not tokens:
        return None
    escaped_tokens = [regex.escape(t) for t in sorted(tokens, key=len, reverse=True)]
    fits = []
    if got == _split(text, r"<\|[^|<>]*\|>"):
        fits.append(("shape", "it recognises special tokens by their <|...|> shape: a special "
                     "token is any string in `tokens`, whatever it looks like, and only "
                     "those."))
    try:
        if got == _split(text, "|".join(sorted(tokens, key=len, reverse=True))):
            fits.append(("escape", "the tokens are not escaped: '|', '(', '*' or '.' inside "
                         "a token are regex operators. regex.escape each token before "
                         "joining them with '|'."))
    except regex.error:
        pass
    for order in (list(tokens), sorted(tokens), sorted(tokens, key=len)):
        if got == _split(text, "|".join(regex.escape(t) for t in order)):
            fits.append(("longest", "a shorter token won over a longer one that contains "
                         "it: sort the tokens longest first before joining them."))
            break
    if got == _split(text, "|".join(escaped_tokens), keep_empty=True):
        fits.append(("empty_pieces", "empty pieces are kept: a token at the start or the "
                     "end, or two tokens in a row, leave '' behind; drop them."))
    if got == _split(text, "|".join(escaped_tokens), keep_tokens=False):
        fits.append(("dropped", "the special tokens themselves are missing: keep them, in "
                     "order, between the pieces (a group (...) around the pattern makes "
                     "regex.split keep them)."))
    if not fits:
        return None
    return fits[0][0], " Or: ".join(text for kind, text in fits)


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
              "UTF-8 bytes) when registering: self.vocab = self._build_vocab().",
    "again": "register_special_tokens adds to the tokens already registered; it does not "
             "replace them: self.special_tokens = {**self.special_tokens, **special_tokens}.",
    "shape": "A special token is any registered string, whatever its shape ('[SEP]' too); "
             "a string that only looks like one ('<|x|>', not registered) is ordinary text.",
}


def special_tokens_groups() -> list[Group]:
    text, doc = prose(0, 2000)
    h = SPECIAL_HINTS
    setup = (f"tok = SpecialTokenizer()\ntok.train(TEXT, 300)\n"
             f"tok.register_special_tokens({{{EOT!r}: 300, {FIM!r}: 301}})")
    return [
        Group([Case("tok.special_tokens", "register_special_tokens stores the tokens in "
                    "self.special_tokens ({token: id}).", breaks=STATE),
               Case("tok.encode('hello world')", "Text without special tokens encodes as "
                    "before (encode_ordinary).", breaks=WRONG),
               Case("tok.encode('', allowed_special='all')", "Empty text: []."),
               Case("tok.encode('<|endoftext|>', allowed_special='all')", h["all"],
                    breaks=WRONG),
               Case("tok.encode('hello<|endoftext|>world', allowed_special='all')", h["all"],
                    breaks=WRONG),
               Case("tok.encode('<|endoftext|><|fim_prefix|><|endoftext|>', "
                    "allowed_special='all')", h["all"], breaks=WRONG),
               Case("tok.encode('hello<|endoftext|>world', allowed_special='none')", h["none"],
                    breaks=WRONG),
               Case("tok.encode('hello<|endoftext|>world')", h["raise"], mention=EOT,
                    breaks=CONTRACT),
               Case("tok.encode('a<|endoftext|>b', allowed_special={'<|endoftext|>'})",
                    h["set"], breaks=WRONG),
               Case("tok.encode('a<|fim_prefix|>b<|endoftext|>', "
                    "allowed_special={'<|endoftext|>'})", h["set"], mention=FIM,
                    breaks=CONTRACT),
               Case("tok.decode(tok.encode('x<|endoftext|>y', allowed_special='all'))",
                    h["decode"], breaks=DECODE, probe="round_trip"),
               Case("tok.decode([300, 301])", h["decode"], breaks=DECODE, probe="round_trip"),
               Case("tok.encode('a<|x|>', allowed_special={'<|x|>'})", h["unknown"],
                    mention="<|x|>", breaks=CONTRACT),
               Case("tok.encode('a<|x|>b')", h["shape"], breaks=WRONG),
               Case("tok.encode('<|endoftext|> <|endoftext|>\\n', allowed_special='all')",
                    "The whitespace between special tokens is ordinary text, encoded like "
                    "any other piece.", breaks=WRONG)],
              setup=setup, env={"TEXT": text}, env_doc={"TEXT": doc}),
        Group([Case("tok.encode('a<|end|><|end|>b', allowed_special='all')",
                    "When one special token contains another, the longer must win.",
                    breaks=WRONG),
               Case("tok.encode('(a*b)<|end|>', allowed_special='all')", h["all"],
                    breaks=WRONG),
               Case("tok.encode('x[SEP]y', allowed_special='all')", h["shape"], breaks=WRONG),
               Case("tok.encode('<|other|>', allowed_special='all')", h["shape"],
                    breaks=WRONG)],
              setup="tok = SpecialTokenizer()\n"
                    "tok.register_special_tokens({'<|end|>': 256, '<|end|><|end|>': 257, "
                    "'(a*b)': 258, '[SEP]': 259})"),
        Group([Case("tok.special_tokens", h["again"], breaks=STATE, probe="lost"),
               Case("tok.encode('<|a|>x<|b|>', allowed_special='all')", h["again"],
                    breaks=STATE, probe="lost"),
               Case("tok.decode([256, 257])", h["decode"], breaks=DECODE, probe="round_trip"),
               Case("other = SpecialTokenizer()\nother.special_tokens", "Each tokenizer "
                    "has its own special tokens.", breaks=STATE, probe="fresh")],
              setup="tok = SpecialTokenizer()\ntok.register_special_tokens({'<|a|>': 256})\n"
                    "tok.register_special_tokens({'<|b|>': 257})"),
        Group([Case("tok.encode('<|end|>', allowed_special='none')", h["none"], breaks=WRONG),
               Case("tok.encode('x<|end|>', allowed_special=set())", h["set"],
                    mention="<|end|>", breaks=CONTRACT),
               Case("tok.decode([256, 97])", h["decode"], breaks=DECODE, probe="round_trip")],
              setup="tok = SpecialTokenizer()\ntok.register_special_tokens({'<|end|>': 256})",
              hidden=True),
    ]


SAVED_FILE = {"raised:FileNotFoundError": (
    "save(file_prefix) writes the file file_prefix + '.model' (add the suffix), and "
    "load(model_file) reads the path it is given, suffix included.")}


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
    vocab = ("load must rebuild the vocab after it has set the merges and the special tokens "
             "(self.vocab = self._build_vocab() last): built before, it lacks their ids.")

    def lost(code, hint, **kw):
        return Case(code, hint, breaks=STATE, probe="lost", when=SAVED_FILE, **kw)
    return [
        Group([Case("text_file(TMP + '/mine.model')", "save(prefix) writes prefix + '.model' "
                    "as plain text, never a pickle: loading a pickle runs whatever code it "
                    "holds.", breaks=CONTRACT, probe="text", when=SAVED_FILE),
               lost("tok2.merges == tok.merges", "load must restore every merge, with its id."),
               lost("tok2.special_tokens", "load must restore the special tokens."),
               lost("tok2.pattern == GPT2_SPLIT_PATTERN", same),
               lost("tok2.encode(\"I'VE GOT 12345 apples<|endoftext|>\", "
                    "allowed_special='all')", same),
               lost("tok2.decode(tok2.encode('x<|endoftext|>y', allowed_special='all'))", same),
               lost("tok2.decode(list(range(256, 301)))", vocab),
               lost("tok2.encode(TEXT[:300])", same)],
              setup=setup, env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([lost("used = SpecialTokenizer()\nused.train('zzzz zzzz', 258)\n"
                    "used.register_special_tokens({'<|z|>': 258})\n"
                    "used.load(TMP + '/mine.model')\n"
                    "(used.merges == tok.merges, used.special_tokens, used.decode([257, 300]))",
                    "load replaces whatever the tokenizer held before: set self.merges and "
                    "self.special_tokens to what was saved (not update them), then rebuild "
                    "the vocab.")],
              setup=setup, env={"TEXT": text, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([lost("tok2.encode('<|fim|>ab', allowed_special='all')", same),
               lost("tok2.merges == tok.merges", same),
               lost("tok2.decode([256, 257, 400])", vocab)],
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
    pool = [EOT, FIM, "<|a|>", "<|a|><|a|>", "(x)", "[.]", "|", "ab", "[SEP]", "<s>"]
    cases = []
    for _ in range(40):
        tokens = rng.sample(pool, rng.randrange(1, 4))
        cases.append(Case(f"split_special({escaped(_special_text(rng, tokens + ['<|q|>']))}, "
                          f"{tokens!r})", "Escape the tokens, longest first, and drop empty "
                          "pieces; a token is what the list holds, whatever its shape.",
                          breaks=WRONG))
    cases.append(unchanged_tokens(_special_text(rng, [EOT, "(x)"]), ["(x)", EOT]))
    return [Group(cases)]


def _special_tokens_hidden(rng):
    text, doc = prose(0, 2000)
    tokens = [EOT, FIM]
    texts = [_special_text(rng, tokens) for _ in range(25)]
    other = [_special_text(rng, ["<|q|>", "[SEP]"]) for _ in range(5)]
    cases = [Case(f"tok.encode({escaped(t)}, allowed_special='all')", SPECIAL_HINTS["all"],
                  breaks=WRONG) for t in texts[:10]]
    cases += [Case(f"tok.encode({escaped(t)}, allowed_special='none')", SPECIAL_HINTS["none"],
                   breaks=WRONG) for t in texts[10:15]]
    cases += [Case(f"tok.encode({escaped(t)})", SPECIAL_HINTS["raise"], breaks=CONTRACT)
              for t in texts[15:20]]
    cases += [Case(f"tok.decode(tok.encode({escaped(t)}, allowed_special='all'))",
                   SPECIAL_HINTS["decode"], breaks=DECODE, probe="round_trip")
              for t in texts[20:]]
    cases += [Case(f"tok.encode({escaped(t)}, allowed_special='all')", SPECIAL_HINTS["shape"],
                   breaks=WRONG) for t in other]
    size = rng.randrange(262, 300)
    setup = (f"tok = SpecialTokenizer()\ntok.train(TEXT, {size})\n"
             f"tok.register_special_tokens({{{EOT!r}: {size}}})\n"
             f"tok.register_special_tokens({{{FIM!r}: {size + 1}, '[SEP]': {size + 2}}})")
    return [Group(cases + [Case(f"tok.decode([{size}, {size + 1}, {size + 2}])",
                                SPECIAL_HINTS["decode"], breaks=DECODE, probe="round_trip"),
                           Case("tok.special_tokens", SPECIAL_HINTS["again"], breaks=STATE,
                                probe="lost")],
                  setup=setup, env={"TEXT": text}, env_doc={"TEXT": doc})]


# Patterns other than the default, for round trips (load must restore and recompile them):
# GPT-2's, and one that keeps each word's trailing space, so that pairs such as (b'e', b' ')
# are learned, which GPT-4's pattern (the default) never puts in one chunk.
PATTERNS = {"GPT2_SPLIT_PATTERN": (GPT2_SPLIT_PATTERN, "bpe_course.GPT2_SPLIT_PATTERN"),
            "WORDS": (r"\S+\s*", repr(r"\S+\s*"))}


def _save_load_hidden(rng):
    """Round trips of tokenizers with a pattern that is not the default, trained on a page of
    prose and code, then encoding real text. The saved file is loaded only if it is text: a
    load that would run a pickle is never run, so a pickle fails every case here."""
    from .common import training_pages
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
            [Case("tok2.merges == tok.merges", same, breaks=STATE, probe="lost")]
            + [Case(f"tok2.encode({name})", same, weight=REAL, breaks=STATE, probe="lost")
               for name in pages]
            + [Case(f"tok2.decode(tok2.encode({name}))", same, weight=5, breaks=STATE,
                    probe="lost") for name in pages]
            + [Case(f"tok2.decode(list(range(256, {size + 1})))", same, breaks=STATE,
                    probe="lost")]
            + [Case(f"tok2.encode({escaped(_special_text(rng, [EOT]))}, allowed_special='all')",
                    same, breaks=STATE, probe="lost") for _ in range(8)],
            setup=setup, env={**{k: v[0] for k, v in pages.items()}, pattern: value},
            env_doc={**{k: v[1] for k, v in pages.items()}, pattern: doc}))
    return groups


def lost(expected, got):
    """The probe "lost": what a tokenizer held must survive save/load or another
    registration."""
    return ("lost", f"state lost: the tokenizer does not hold what it held before (after "
            f"load, or after another registration): {outcome(expected, got)}. Restore "
            f"everything, each part from what was saved or registered: the pattern "
            f"recompiled, the merges, the special tokens, and the vocab rebuilt from them "
            f"last.", False)


def not_text(expected, got):
    """The probe "text": the saved file must be text."""
    if got is False:
        return ("not_text", "save wrote a file that is not a text file (a pickle?): a "
                "loader that unpickles runs whatever code the file holds, so a pickle is "
                "never loaded. Write text: JSON, or lines of your own.")
    return None


WORKSHEET = Worksheet(
    "05_special_tokens",
    points={"split_special": 1, "special_tokens": 2, "save_load": 2},
    checkers=[
        Checker("split_special", "split_special", "function",
                course_ref("bpe_course.special.split_special"), split_special_groups,
                recognize=recognize_split),
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
    answers=("bpe_course.special.split_special", REGEX + ".register_special_tokens",
             REGEX + ".encode", REGEX + ".from_merges", TOKENIZER + ".save", TOKENIZER + ".load"),
    hidden={"split_special": _split_special_hidden, "special_tokens": _special_tokens_hidden,
            "save_load": _save_load_hidden},
    probes={**ws02.PROBES, "lost": lost, "text": not_text},
)
