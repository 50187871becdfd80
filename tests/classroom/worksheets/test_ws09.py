"""Worksheet 09, tokenization in practice: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import re as stdlib_re

import regex

from bpe_course import GPT4_SPLIT_PATTERN, get_encoding
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "09_tokenization_in_practice"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


@wrong("tokens_per_byte", "tokens per character")
def tokens_per_character(ns):
    def tokens_per_byte(text, encoding):
        return len(get_encoding(encoding).encode_ordinary(text)) / len(text) if text else 0.0
    return tokens_per_byte


@wrong("tokens_per_byte", [KINDS["exception"], "use encode_ordinary"])
def tokens_per_byte_with_encode(ns):
    def tokens_per_byte(text, encoding):
        size = len(text.encode())
        return len(get_encoding(encoding).encode(text)) / size if size else 0.0
    return tokens_per_byte


@wrong("tokens_per_byte", "bytes per token, the ratio upside down")
def bytes_per_token(ns):
    def tokens_per_byte(text, encoding):
        tokens = get_encoding(encoding).encode_ordinary(text)
        return len(text.encode("utf-8")) / len(tokens) if tokens else 0.0
    return tokens_per_byte


@wrong("tokens_per_byte", "was rounded")
def tokens_per_byte_rounded(ns):
    def tokens_per_byte(text, encoding):
        size = len(text.encode("utf-8"))
        return round(len(get_encoding(encoding).encode_ordinary(text)) / size, 3) if size else 0.0
    return tokens_per_byte


@wrong("tokens_per_byte", "encoding argument was ignored")
def tokens_per_byte_always_in_cl100k(ns):
    enc = get_encoding("cl100k_base")

    def tokens_per_byte(text, encoding):
        size = len(text.encode("utf-8"))
        return len(enc.encode_ordinary(text)) / size if size else 0.0
    return tokens_per_byte


@wrong("tokens_per_byte", [KINDS["exception"], "ZeroDivisionError"], breaks="edge")
def tokens_per_byte_dividing_by_zero(ns):
    def tokens_per_byte(text, encoding):
        return len(get_encoding(encoding).encode_ordinary(text)) / len(text.encode("utf-8"))
    return tokens_per_byte


@wrong("tokens_per_byte", "that is the number of tokens")
def tokens_per_byte_counting_tokens(ns):
    def tokens_per_byte(text, encoding):
        return len(get_encoding(encoding).encode_ordinary(text))
    return tokens_per_byte


@wrong("whitespace_pretokens", [KINDS["exception"], "`re` does not know"])
def whitespace_pretokens_with_re(ns):
    def whitespace_pretokens(text, pattern):
        return sum(c.isspace() for c in stdlib_re.findall(pattern, text))
    return whitespace_pretokens


@wrong("whitespace_pretokens", "contain whitespace")
def whitespace_pretokens_containing_a_space(ns):
    def whitespace_pretokens(text, pattern):
        return sum(" " in c or "\n" in c or "\t" in c for c in regex.findall(pattern, text))
    return whitespace_pretokens


@wrong("whitespace_pretokens", "pattern argument was ignored")
def whitespace_pretokens_with_gpt4s_pattern(ns):
    def whitespace_pretokens(text, pattern):
        return sum(c.isspace() for c in regex.findall(GPT4_SPLIT_PATTERN, text))
    return whitespace_pretokens


@wrong("whitespace_pretokens", "only spaces, tabs and newlines")
def whitespace_pretokens_of_spaces_tabs_newlines(ns):
    def whitespace_pretokens(text, pattern):
        return sum(set(c) <= {" ", "\t", "\n"} for c in regex.findall(pattern, text))
    return whitespace_pretokens


@wrong("whitespace_pretokens", "whitespace characters, not pre-tokens")
def whitespace_characters(ns):
    def whitespace_pretokens(text, pattern):
        return sum(ch.isspace() for ch in text)
    return whitespace_pretokens


@wrong("whitespace_pretokens", "only spaces, tabs and newlines")
def whitespace_pretokens_stripping_ascii(ns):
    def whitespace_pretokens(text, pattern):
        return sum(c.strip(" \t\n") == "" for c in regex.findall(pattern, text))
    return whitespace_pretokens


@wrong("glitch_candidates", "byte ids are among them")
def glitch_candidates_with_byte_ids(ns):
    def glitch_candidates(tok, text):
        return sorted(set(tok.vocab) - set(tok.encode(text)))
    return glitch_candidates


@wrong("glitch_candidates", "registered, not learned")
def glitch_candidates_with_special_tokens(ns):
    def glitch_candidates(tok, text):
        used = set(tok.encode(text))
        return sorted(i for i in tok.vocab if i >= 256 and i not in used)
    return glitch_candidates


@wrong("glitch_candidates", KINDS["type"])
def glitch_candidates_as_a_set(ns):
    def glitch_candidates(tok, text):
        return set(tok.merges.values()) - set(tok.encode(text))
    return glitch_candidates


@wrong("glitch_candidates", KINDS["bytes_for_ids"])
def glitch_candidates_as_tokens(ns):
    def glitch_candidates(tok, text):
        used = set(tok.encode(text))
        return [tok.vocab[i] for i in sorted(tok.merges.values()) if i not in used]
    return glitch_candidates


@wrong("glitch_candidates", "that encoding the text does use")
def glitch_candidates_used_instead_of_unused(ns):
    def glitch_candidates(tok, text):
        used = set(tok.encode(text))
        return sorted(i for i in tok.merges.values() if i in used)
    return glitch_candidates


@wrong("glitch_candidates", KINDS["order"])
def glitch_candidates_newest_first(ns):
    def glitch_candidates(tok, text):
        used = set(tok.encode(text))
        return sorted((i for i in tok.merges.values() if i not in used), reverse=True)
    return glitch_candidates


@wrong("glitch_candidates", "yet the token never be one of its encoding")
def glitch_candidates_by_substring(ns):
    def glitch_candidates(tok, text):
        data = text.encode("utf-8")               # "a token is used if its bytes occur"
        return sorted(i for i in tok.merges.values() if tok.vocab[i] not in data)
    return glitch_candidates


# -- answers that pass most visible cases: issue 33's learners wrote them ----------------------------

@wrong("whitespace_pretokens", "regex` module's \\s")
def whitespace_pretokens_with_regex_s(ns):
    def whitespace_pretokens(text, pattern):
        return sum(1 for chunk in regex.findall(pattern, text) if regex.fullmatch(r"\s+", chunk))
    return whitespace_pretokens


globals().update(wrong.tests())


