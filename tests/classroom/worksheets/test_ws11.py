"""Worksheet 11, SentencePiece: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import re

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "11_sentencepiece"
META = "\u2581"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


@wrong("spm_normalize", "dummy prefix is missing")
def normalize_without_the_prefix(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return text.replace(" ", META)
    return spm_normalize


@wrong("spm_normalize", "empty text stays empty", breaks="edge")
def normalize_prefixing_empty_text(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return (META if add_dummy_prefix else "") + text.replace(" ", META)
    return spm_normalize


@wrong("spm_normalize", "every whitespace character became '▁'")
def normalize_every_whitespace(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        text = re.sub(r"\s", META, text)
        return (META if add_dummy_prefix and text else "") + text
    return spm_normalize


@wrong("spm_normalize", "stripped or its runs of spaces collapsed")
def normalize_stripping_the_text(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        text = text.strip()
        return (META if add_dummy_prefix and text else "") + text.replace(" ", META)
    return spm_normalize


@wrong("spm_normalize", "add_dummy_prefix=False was ignored")
def normalize_ignoring_the_flag(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return (META + text.replace(" ", META)) if text else ""
    return spm_normalize


@wrong("spm_normalize", "an underscore")
def normalize_with_an_underscore(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return ("_" if add_dummy_prefix and text else "") + text.replace(" ", "_")
    return spm_normalize


@wrong("spm_normalize", "starts with a space still gets the dummy prefix")
def normalize_without_a_second_prefix(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        if add_dummy_prefix and text and not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)
    return spm_normalize


@wrong("spm_normalize", "runs of spaces collapsed")
def normalize_collapsing_spaces(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        text = re.sub(" +", " ", text)
        return (META if add_dummy_prefix and text else "") + text.replace(" ", META)
    return spm_normalize


@wrong("spm_normalize", KINDS["type"])
def normalize_into_a_list_of_symbols(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return list((META if add_dummy_prefix and text else "") + text.replace(" ", META))
    return spm_normalize


@wrong("spm_normalize", "spaces were not replaced")
def normalize_adding_only_the_prefix(ns):
    def spm_normalize(text, add_dummy_prefix=True):
        return (META if add_dummy_prefix and text else "") + text
    return spm_normalize


def encoder(ns, pick, fallback="bytes", units="chars", normalize=True, ids=True, once=False,
            prefix=None):
    """A learner's encoder: how they pick the pair, what a missing character becomes,
    what they start from, whether they normalize, whether they return ids."""
    NORMAL, BYTE, spm_normalize = ns["NORMAL"], ns["BYTE"], ns["spm_normalize"]

    def spm_encode(model, text):
        normal = {p: i for i, (p, s, t) in enumerate(model.pieces) if t == NORMAL}
        byte_ids = {p: i for i, (p, s, t) in enumerate(model.pieces) if t == BYTE}
        flag = model.normalizer["add_dummy_prefix"] if prefix is None else prefix
        text = spm_normalize(text, flag) if normalize else text
        if units == "bytes":
            symbols = [bytes([b]).decode("latin-1") for b in text.encode("utf-8")]
        else:
            symbols = list(text)
        while True:
            found = [(model.pieces[normal[a + b]][1], i) for i, (a, b)
                     in enumerate(zip(symbols, symbols[1:])) if a + b in normal]
            if not found:
                break
            i = pick(found)[1]
            symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
            if once:
                break
        out = []
        for s in symbols:
            if s in normal:
                out.append(normal[s] if ids else s)
            elif fallback == "bytes":
                out.extend(byte_ids["<0x%02X>" % b] for b in s.encode("utf-8"))
            elif fallback == "lower":
                out.extend(byte_ids["<0x%02x>" % b] for b in s.encode("utf-8"))
            elif fallback == "first_byte":
                out.append(byte_ids["<0x%02X>" % s.encode("utf-8")[0]])
            else:
                out.append(0)
        return out
    return spm_encode


HIGHEST_LEFTMOST = lambda found: max(found, key=lambda f: (f[0], -f[1]))   # noqa: E731


@wrong("spm_encode", "highest score")
def encoder_merging_the_lowest_score_first(ns):
    return encoder(ns, lambda found: min(found, key=lambda f: (f[0], f[1])))


@wrong("spm_encode", "the leftmost pair on a tie")
def encoder_taking_the_rightmost_pair_on_a_tie(ns):
    return encoder(ns, lambda found: max(found, key=lambda f: (f[0], f[1])))


@wrong("spm_encode", "id 0 (<unk>) came back")
def encoder_without_byte_fallback(ns):
    return encoder(ns, HIGHEST_LEFTMOST, fallback="unk")


@wrong("spm_encode", "becomes its UTF-8 bytes, each the id")
def encoder_with_one_byte_per_character(ns):
    return encoder(ns, HIGHEST_LEFTMOST, fallback="first_byte")


@wrong("spm_encode", "Normalize first")
def encoder_without_normalizing(ns):
    return encoder(ns, HIGHEST_LEFTMOST, normalize=False)


@wrong("spm_encode", "these are the pieces, not their ids")
def encoder_returning_pieces(ns):
    return encoder(ns, HIGHEST_LEFTMOST, ids=False)


@wrong("spm_encode", "code point, not byte")
def encoder_on_bytes(ns):
    return encoder(ns, HIGHEST_LEFTMOST, units="bytes")


@wrong("spm_encode", "merge by score")
def encoder_merging_left_to_right(ns):
    return encoder(ns, lambda found: found[0])


@wrong("spm_encode", "repeatedly merge")
def encoder_merging_once(ns):
    return encoder(ns, HIGHEST_LEFTMOST, once=True)


@wrong("spm_encode", [KINDS["exception"], "'<0x%02X>'"])
def encoder_with_lowercase_byte_pieces(ns):
    return encoder(ns, HIGHEST_LEFTMOST, fallback="lower")


@wrong("spm_encode", "the model's add_dummy_prefix")
def encoder_always_adding_the_prefix(ns):
    return encoder(ns, HIGHEST_LEFTMOST, prefix=True)


# -- answers that pass most visible cases: issue 33's learners wrote them ----------------------------

@wrong("spm_encode", "computed (3 + byte, say)")
def encoder_with_byte_ids_at_three_plus_the_byte(ns):
    NORMAL, spm_normalize = ns["NORMAL"], ns["spm_normalize"]

    def spm_encode(model, text):
        normal = {p: i for i, (p, s, t) in enumerate(model.pieces) if t == NORMAL}
        symbols = list(spm_normalize(text, model.normalizer["add_dummy_prefix"]))
        while True:
            found = [(model.pieces[normal[a + b]][1], -i) for i, (a, b)
                     in enumerate(zip(symbols, symbols[1:])) if a + b in normal]
            if not found:
                break
            i = -max(found)[1]
            symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
        ids = []
        for symbol in symbols:
            if symbol in normal:
                ids.append(normal[symbol])
            else:                                     # <unk>, <s>, </s>, then <0x00> at 3
                ids.extend(3 + b for b in symbol.encode("utf-8"))
        return ids
    return spm_encode


globals().update(wrong.tests(every_seed=["spm_encode"]))


# -- more wrong answers, and messages in detail ---------------------------------------------------

def test_the_right_encoder_written_another_way_passes(ns):
    assert checks.spm_encode(encoder(ns, HIGHEST_LEFTMOST)).passed
