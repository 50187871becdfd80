"""Worksheet 08, tokenization in practice: measure, don't implement.

`tokens_per_byte` (what a text costs under cl100k_base and o200k_base),
`whitespace_pretokens` (what indentation costs under GPT-2's and GPT-4's
patterns) and `glitch_candidates` (learned tokens that the training text
never produces). Every input is fixed: `corpora.SAMPLES`, `corpora.HARD_STRINGS`
or short texts written here, so the expected answers never change.
"""

from __future__ import annotations

from .common import (EOT, GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, REF, Case, Checker, Group,
                     Worksheet, course_ref, escaped)

ENCODINGS = ("cl100k_base", "o200k_base")


def samples():
    from ...corpora import HARD_STRINGS, SAMPLES
    return SAMPLES, HARD_STRINGS


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
    cases += [Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", ratio)
              for lang in ("English", "Code") for e in ENCODINGS]
    cases += [Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", per_byte)
              for lang in ("Russian", "Hindi", "Chinese", "Emoji") for e in ENCODINGS]
    cases += [Case(f"tokens_per_byte({escaped(HARD[32])}, 'cl100k_base')", ordinary)]
    hidden = [Case(f"tokens_per_byte({escaped(SAMPLES[lang])}, {e!r})", per_byte)
              for lang in ("German", "Greek", "Arabic", "Korean", "Japanese") for e in ENCODINGS]
    return [Group(cases), Group(hidden, hidden=True)]


def whitespace_pretokens_groups() -> list[Group]:
    SAMPLES, HARD = samples()
    only = ("Count the pre-tokens made only of whitespace (chunk.isspace()): ' return' holds "
            "a space but is a word.")
    split = ("Split with the `regex` module (regex.findall(pattern, text)): the patterns use "
             "\\p{L} and \\p{N}, which `re` does not know.")
    pattern = ("Use the pattern you are given: GPT-2's keeps a newline with the indentation "
               "after it, GPT-4's ties it to the punctuation before it.")
    g2, g4 = "GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN"
    cases = [Case(f"whitespace_pretokens('Привет', {g4})", split),
             Case(f"whitespace_pretokens('', {g4})", "No text, no pre-tokens: 0."),
             Case(f"whitespace_pretokens('hello world', {g4})", only),
             Case(f"whitespace_pretokens('a  b', {g4})", only),
             Case(f"whitespace_pretokens(CODE, {g4})", pattern),
             Case(f"whitespace_pretokens(CODE, {g2})", pattern),
             Case(f"whitespace_pretokens(TABS, {g2})", pattern),
             Case(f"whitespace_pretokens({escaped(HARD[27])}, {g4})", only)]
    env = {"CODE": SAMPLES["Code"], "TABS": SAMPLES["Code"].replace("    ", "\t"),
           "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN, "GPT4_SPLIT_PATTERN": GPT4_SPLIT_PATTERN}
    doc = {"CODE": "bpe_course.corpora.SAMPLES['Code']",
           "TABS": "bpe_course.corpora.SAMPLES['Code'].replace('    ', '\\t')",
           "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN",
           "GPT4_SPLIT_PATTERN": "bpe_course.GPT4_SPLIT_PATTERN"}
    hidden = [Case(f"whitespace_pretokens({escaped(HARD[i])}, {p})", only)
              for i in (5, 6, 7, 25, 26) for p in (g2, g4)]
    return [Group(cases, env=env, env_doc=doc), Group(hidden, env=env, env_doc=doc, hidden=True)]


def glitch_candidates_groups() -> list[Group]:
    SAMPLES, HARD = samples()
    unused = ("A glitch candidate is a learned token (an id in tok.merges.values()) that never "
              "appears in tok.encode(text): a step on the way to longer tokens that always "
              "swallow it. Return their ids sorted.")
    learned = ("Only learned tokens count: the 256 byte ids are not merges (many bytes never "
               "occur in any text). Take the ids from tok.merges.values().")
    special = ("Special tokens are registered, not learned: they are in tok.vocab but not in "
               "tok.merges, and are no glitch candidates.")
    other = ("Encode the text you are given, which may differ from the training text: a "
             "token used there may be unused here.")
    cat = "the cat sat on the mat, the cat sat. " * 3
    return [
        Group([Case("glitch_candidates(tok, 'the')", learned),
               Case(f"glitch_candidates(tok, {cat!r})", unused),
               Case("glitch_candidates(tok, '')", "Empty text uses no token: every learned id."),
               Case("glitch_candidates(tok, 'the mat')", other)],
              setup=f"from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train({cat!r}, 270)"),
        Group([Case("glitch_candidates(tok, TEXT)", special),
               Case("[tok.decode([i]) for i in glitch_candidates(tok, TEXT)]", unused)],
              setup=f"from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train(TEXT, 330)\n"
                    f"tok.register_special_tokens({{{EOT!r}: 330}})",
              env={"TEXT": "\n".join(SAMPLES.values())},
              env_doc={"TEXT": "'\\n'.join(bpe_course.corpora.SAMPLES.values())"}),
        Group([Case("glitch_candidates(tok, TEXT)", unused)],
              setup="from bpe_course import RegexTokenizer\ntok = RegexTokenizer()\ntok.train(TEXT, 400)",
              env={"TEXT": "".join(HARD[:30])},
              env_doc={"TEXT": "''.join(bpe_course.corpora.HARD_STRINGS[:30])"}, hidden=True),
    ]


# The course's tokenizers, which this worksheet measures.
TOKENIZER_CODE = ("bpe_course.regex_tokenizer", "bpe_course.base", "bpe_course.pairs",
                  "bpe_course.pretokenize", "bpe_course.special", "bpe_course.model_file",
                  "bpe_course.streaming", "bpe_course.text")


WORKSHEET = Worksheet(
    "08_tokenization_in_practice",
    points={"tokens_per_byte": 1, "whitespace_pretokens": 1, "glitch_candidates": 2},
    checkers=[
        Checker("tokens_per_byte", "tokens_per_byte", "function",
                course_ref(REF + "tokens_per_byte"), tokens_per_byte_groups),
        Checker("whitespace_pretokens", "whitespace_pretokens", "function",
                course_ref(REF + "whitespace_pretokens"), whitespace_pretokens_groups),
        Checker("glitch_candidates", "glitch_candidates", "function",
                course_ref(REF + "glitch_candidates"), glitch_candidates_groups),
    ],
    # This worksheet measures the course's tokenizers, it does not rebuild them.
    helpers={"tokens_per_byte": ("bpe_course.openai.encodings", "bpe_course.openai.encoding_api",
                                 "bpe_course.openai.tokenizer", *TOKENIZER_CODE),
             "glitch_candidates": TOKENIZER_CODE},
)
