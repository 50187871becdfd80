"""Worksheet 09, tokenization in practice: measure, don't implement.

`tokens_per_byte` (what a text costs under cl100k_base and o200k_base),
`whitespace_pretokens` (what indentation costs under GPT-2's and GPT-4's
patterns) and `glitch_candidates` (learned tokens that the training text
never produces). The worksheet's inputs are fixed: `corpora.SAMPLES`,
`corpora.HARD_STRINGS` or short texts written here; the hidden ones are drawn per
grading run (random texts with odd whitespace, pages of prose and code).
"""

from __future__ import annotations

from .common import (
    EOT,
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    REF,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    course_ref,
    escaped,
)

ENCODINGS = ("cl100k_base", "o200k_base")


def samples():
    from ...corpora import HARD_STRINGS, SAMPLES
    return SAMPLES, HARD_STRINGS


def _wrong(cases: list[Case]) -> list[Case]:
    for case in cases:
        case.breaks = WRONG
    return cases


def tokens_per_byte_groups() -> list[Group]:
    SAMPLES, HARD = samples()
    ratio = ("Divide the number of tokens (get_encoding(encoding).encode_ordinary(text)) by "
             "the number of UTF-8 bytes, len(text.encode('utf-8')), without rounding.")
    per_byte = ("Per byte, not per character: len(text) counts code points, and one "
                "character of Hindi or Chinese is 3 bytes.")
    ordinary = ("Text that merely looks like a special token is ordinary text here: use "
                "encode_ordinary (encode raises for '<|endoftext|>').")
    cases = [Case(f"tokens_per_byte('', {e!r})", "Empty text has no bytes: return 0.0.")
             for e in ENCODINGS]
    cases += _wrong([Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", ratio)
                     for lang in ("English", "Code") for e in ENCODINGS])
    cases += _wrong([Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", per_byte)
                     for lang in ("Russian", "Hindi", "Chinese", "Emoji") for e in ENCODINGS])
    cases += _wrong([Case(f"tokens_per_byte({escaped(HARD[32])}, 'cl100k_base')", ordinary,
                          when={"raised:ValueError": ordinary})])
    hidden = _wrong([Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", per_byte)
                     for lang in ("German", "Greek", "Arabic", "Korean", "Japanese")
                     for e in ENCODINGS])
    return [Group(cases), Group(hidden, hidden=True)]


def recognize_ratio(inputs: dict, expected, got):
    """Which number came back: per character, upside down, rounded, a count, the other
    encoding's."""
    from ...openai.encodings import get_encoding
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], str) or args[1] not in ENCODINGS or \
            not isinstance(got, (int, float)) or isinstance(got, bool) or not args[0]:
        return None
    text, name = args
    tokens, size = len(get_encoding(name).encode_ordinary(text)), len(text.encode("utf-8"))
    other = ENCODINGS[1 - ENCODINGS.index(name)]
    close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b))   # noqa: E731
    if close(got, tokens / len(text)) and len(text) != size:
        return ("per_character", "that is tokens per character: len(text) counts code "
                "points; divide by the number of UTF-8 bytes, len(text.encode('utf-8')).")
    if close(got, size / tokens):
        return ("upside_down", "that is bytes per token, the ratio upside down: divide the "
                "tokens by the bytes.")
    if got == tokens:
        return ("count", "that is the number of tokens: divide it by the number of bytes.")
    if isinstance(expected, float) and any(got == round(expected, k) for k in range(1, 6)):
        return ("rounded", "the ratio was rounded: return it as it is.")
    if close(got, len(get_encoding(other).encode_ordinary(text)) / size):
        return ("encoding", f"that is {other}'s ratio: the encoding argument was ignored; "
                f"use get_encoding(encoding).")
    return None


def whitespace_pretokens_groups() -> list[Group]:
    SAMPLES, HARD = samples()
    only = ("Count the pre-tokens made only of whitespace, as str.isspace() says: spaces, "
            "tabs, newlines, and other whitespace too ('\\r', '\\x0b', U+00A0, U+3000): "
            "' return' holds a space but is a word.")
    separators = ("str.isspace() is True for the separators U+001C to U+001F too (file, "
                  "group, record and unit separator), which the split patterns do not take "
                  "for whitespace: a pre-token of them counts.")
    split = ("Split with the `regex` module (regex.findall(pattern, text)): the patterns use "
             "\\p{L} and \\p{N}, which `re` does not know.")
    pattern = ("Use the pattern you are given: GPT-2's keeps a newline with the indentation "
               "after it, GPT-4's ties it to the punctuation before it.")
    g2, g4 = "GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN"
    re_error = {key: split for key in ("raised:error", "raised:PatternError")}
    cases = [Case(f"whitespace_pretokens('Привет', {g4})", split, when=re_error, breaks=WRONG),
             Case(f"whitespace_pretokens('', {g4})", "No text, no pre-tokens: 0."),
             Case(f"whitespace_pretokens('hello world', {g4})", only, breaks=WRONG),
             Case(f"whitespace_pretokens('a  b', {g4})", only, breaks=WRONG),
             Case(f"whitespace_pretokens(CODE, {g4})", pattern, breaks=WRONG),
             Case(f"whitespace_pretokens(CODE, {g2})", pattern, breaks=WRONG),
             Case(f"whitespace_pretokens(TABS, {g2})", pattern, breaks=WRONG),
             Case(f"whitespace_pretokens({escaped(HARD[27])}, {g4})", only, breaks=WRONG),
             Case(f"whitespace_pretokens('a\\r\\n\\r\\nb', {g2})", only, breaks=WRONG),
             Case(f"whitespace_pretokens('x\\u3000\\u3000y \\xa0 z', {g4})", only),
             Case(f"whitespace_pretokens('a\\x1cb\\xa0\\xa0c \\x1d\\x1e d\\x1f', {g4})",
                  separators, breaks=WRONG),
             Case(f"whitespace_pretokens('x\\x1f\\x1f\\r\\ny\\x0b', {g2})", separators,
                  breaks=WRONG)]
    env = {"CODE": SAMPLES["Code"], "TABS": SAMPLES["Code"].replace("    ", "\t"),
           "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN, "GPT4_SPLIT_PATTERN": GPT4_SPLIT_PATTERN}
    doc = {"CODE": "bpe_course.corpora.SAMPLES['Code']",
           "TABS": "bpe_course.corpora.SAMPLES['Code'].replace('    ', '\\t')",
           "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN",
           "GPT4_SPLIT_PATTERN": "bpe_course.GPT4_SPLIT_PATTERN"}
    hidden = _wrong([Case(f"whitespace_pretokens({escaped(HARD[i])}, {p})", only)
                     for i in (5, 6, 7, 25, 26) for p in (g2, g4)])
    return [Group(cases, env=env, env_doc=doc), Group(hidden, env=env, env_doc=doc, hidden=True)]


def recognize_whitespace(inputs: dict, expected, got):
    """Which pre-tokens were counted: any holding whitespace, only spaces, tabs and
    newlines, whitespace characters, or GPT-4's pre-tokens whatever the pattern."""
    import regex
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], str) or \
            not isinstance(got, int):
        return None
    text, pattern = args
    chunks = regex.findall(pattern, text)
    fits = []
    if got == sum(any(c.isspace() for c in chunk) for chunk in chunks):
        fits.append(("contains", "it counts the pre-tokens that contain whitespace; count "
                     "those made only of whitespace (chunk.isspace()): ' return' is a word."))
    if got == sum(bool(chunk) and set(chunk) <= set(" \t\n") for chunk in chunks):
        fits.append(("narrow", "only spaces, tabs and newlines were taken for whitespace: "
                     "str.isspace() also counts '\\r', '\\x0b', '\\x0c', U+00A0, U+3000 "
                     "and the other Unicode spaces."))
    if got == sum(ch.isspace() for ch in text):
        fits.append(("characters", "it counts whitespace characters, not pre-tokens: "
                     "'    ' is one pre-token of four spaces."))
    if got == sum(bool(regex.fullmatch(r"\s+", chunk)) for chunk in chunks):
        fits.append(("regex_s", "whitespace was taken as the `regex` module's \\s, which "
                     "is not what str.isspace() says: U+001C to U+001F (the separators) are "
                     "whitespace for str.isspace() and not for regex's \\s. Count the "
                     "pre-tokens for which chunk.isspace() is True."))
    if pattern != GPT4_SPLIT_PATTERN and got == sum(
            chunk.isspace() for chunk in regex.findall(GPT4_SPLIT_PATTERN, text)):
        fits.append(("pattern", "that is the count under GPT-4's pattern: the pattern "
                     "argument was ignored."))
    if not fits or got == expected:
        return None
    return fits[0][0], " Or: ".join(text for kind, text in fits)


def glitch_candidates_groups() -> list[Group]:
    SAMPLES, HARD = samples()
    unused = ("A glitch candidate is a learned token (an id in tok.merges.values()) that never "
              "appears in tok.encode(text). Here the text is the one the tokenizer learned from, "
              "so each is a step on the way to longer tokens that always swallow it. Return "
              "their ids sorted.")
    learned = ("Only learned tokens count: the 256 byte ids are not merges (many bytes never "
               "occur in any text). Take the ids from tok.merges.values().")
    special = ("Special tokens are registered, not learned: they are in tok.vocab but not in "
               "tok.merges, and are no glitch candidates.")
    other = ("Encode the text you are given, which may differ from the training text: a "
             "token used there may be unused here.")
    cat = "the cat sat on the mat, the cat sat. " * 3
    return [
        Group(_wrong([Case("glitch_candidates(tok, 'the')", learned),
                      Case(f"glitch_candidates(tok, {cat!r})", unused)])
              + [Case("glitch_candidates(tok, '')", "Empty text uses no token: every learned "
                      "id.")]
              + _wrong([Case("glitch_candidates(tok, 'the mat')", other)]),
              setup=f"from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train({cat!r}, 270)"),
        Group(_wrong([Case("glitch_candidates(tok, TEXT)", special),
                      Case("[tok.decode([i]) for i in glitch_candidates(tok, TEXT)]", unused)]),
              setup=f"from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train(TEXT, 330)\n"
                    f"tok.register_special_tokens({{{EOT!r}: 330}})",
              env={"TEXT": "\n".join(SAMPLES.values())},
              env_doc={"TEXT": "'\\n'.join(bpe_course.corpora.SAMPLES.values())"}),
        Group(_wrong([Case("glitch_candidates(tok, TEXT)", unused)]),
              setup="from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train(TEXT, 400)",
              env={"TEXT": "".join(HARD[:30])},
              env_doc={"TEXT": "''.join(bpe_course.corpora.HARD_STRINGS[:30])"}, hidden=True),
    ]


def recognize_glitch(inputs: dict, expected, got):
    """Byte ids or special ids among the candidates, or the ids used instead of unused."""
    if not isinstance(expected, list) or not isinstance(got, list) or not all(
            isinstance(i, int) for i in got):
        return None
    extra = set(got) - set(expected)
    if extra and all(i < 256 for i in extra):
        return ("byte_ids", "byte ids are among them: the 256 byte ids are not learned "
                "tokens; take the ids from tok.merges.values().")
    if extra and expected and min(extra) > max(expected):
        return ("special_ids", "ids above every learned id are among them: special tokens "
                "are registered, not learned (they are in tok.vocab, not in tok.merges).")
    if set(got) < set(expected):
        return ("missing", "some learned ids that encoding the text never uses are missing: "
                "a token's bytes may occur inside the text and yet the token never be one of "
                "its encoding (a longer token swallows them); test the ids of "
                "tok.encode(text).")
    if got and expected and not set(got) & set(expected) and got == sorted(got):
        return ("used", "these are learned ids that encoding the text does use: a glitch "
                "candidate is one that never appears in tok.encode(text).")
    return None


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _tokens_per_byte_hidden(rng):
    from .common import random_prose, random_texts
    texts = random_texts(rng.randrange(2**31), 10) + [random_prose(rng, 400)[0]]
    return [Group(_wrong([Case(f"tokens_per_byte({escaped(t)}, {e!r})", "Tokens per UTF-8 "
                               "byte, with encode_ordinary.") for t in texts
                          for e in ENCODINGS]))]


def _whitespace_hidden(rng):
    from .common import random_code, random_texts
    odd = ["\r\n", "\x0b", "\x0c", "\u00a0", "\u3000", "\u2028", "\t", "  ", "\x1c",
           "\x1f", "\x1d\x1e", "\x85"]
    texts = ["".join(rng.choice(odd + ["a", "if x:", "\n    ", "(", "1"])
                     for _ in range(rng.randrange(5, 30))) for _ in range(10)]
    texts += random_texts(rng.randrange(2**31), 5) + [random_code(rng, 600)[0]]
    only = "Count the pre-tokens for which str.isspace() is True."
    return [Group(_wrong([Case(f"whitespace_pretokens({escaped(t)}, {p})", only)
                          for t in texts for p in ("GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN")]),
                  env={"GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN,
                       "GPT4_SPLIT_PATTERN": GPT4_SPLIT_PATTERN},
                  env_doc={"GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN",
                           "GPT4_SPLIT_PATTERN": "bpe_course.GPT4_SPLIT_PATTERN"})]


def _glitch_hidden(rng):
    from .common import random_prose
    page, doc = random_prose(rng, rng.randrange(1500, 3000))
    other, other_doc = random_prose(rng, 1500)
    size = rng.randrange(300, 360)
    return [Group(_wrong([Case("glitch_candidates(tok, TEXT)", "Learned ids that encoding the "
                               "text never uses, sorted."),
                          Case("glitch_candidates(tok, OTHER)", "Encode the text you are "
                               "given.")]),
                  setup=f"from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\n"
                        f"tok.train(TEXT, {size})\n"
                        f"tok.register_special_tokens({{{EOT!r}: {size}}})",
                  env={"TEXT": page, "OTHER": other},
                  env_doc={"TEXT": doc, "OTHER": other_doc})]


# The course's tokenizers, which this worksheet measures.
TOKENIZER_CODE = ("bpe_course.regex_tokenizer", "bpe_course.base", "bpe_course.pairs",
                  "bpe_course.pretokenize", "bpe_course.special", "bpe_course.save_load",
                  "bpe_course.streaming", "bpe_course.text")


WORKSHEET = Worksheet(
    "09_tokenization_in_practice",
    points={"tokens_per_byte": 1, "whitespace_pretokens": 1, "glitch_candidates": 2},
    checkers=[
        Checker("tokens_per_byte", "tokens_per_byte", "function",
                course_ref(REF + "tokens_per_byte"), tokens_per_byte_groups,
                recognize=recognize_ratio),
        Checker("whitespace_pretokens", "whitespace_pretokens", "function",
                course_ref(REF + "whitespace_pretokens"), whitespace_pretokens_groups,
                recognize=recognize_whitespace),
        Checker("glitch_candidates", "glitch_candidates", "function",
                course_ref(REF + "glitch_candidates"), glitch_candidates_groups,
                recognize=recognize_glitch),
    ],
    # This worksheet measures the course's tokenizers, it does not rebuild them.
    helpers={"tokens_per_byte": ("bpe_course.openai.encodings", "bpe_course.openai.encoding_api",
                                 "bpe_course.openai.tokenizer", *TOKENIZER_CODE),
             "glitch_candidates": TOKENIZER_CODE},
    hidden={"tokens_per_byte": _tokens_per_byte_hidden,
            "whitespace_pretokens": _whitespace_hidden, "glitch_candidates": _glitch_hidden},
)
