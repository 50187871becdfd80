"""Worksheet 09, SentencePiece: `spm_normalize` and `spm_encode`, a code-point BPE encoder."""

from __future__ import annotations

from .common import (HARD_TEXTS, REF, Case, Checker, Group, Worksheet, calls, course_ref,
                     random_texts)

MISTRAL = ("from bpe_course.sentencepiece.model_file import read_model\n"
           "from bpe_course.sentencepiece.tokenizer import mistral_model_bytes\n"
           "MODEL = read_model(mistral_model_bytes())")
OWN_MODEL = ("from bpe_course import corpora, train_codepoint_bpe\n"
             "MODEL = train_codepoint_bpe(corpora.prose()[:20_000], vocab_size=500, "
             "add_dummy_prefix={prefix})")


def spm_normalize_groups() -> list[Group]:
    space = "Replace every space ' ' by '▁' (U+2581); nothing else changes."
    prefix = ("With add_dummy_prefix, put one '▁' in front of the text; not in front of "
              "empty text, and not at all when add_dummy_prefix is False.")
    return [
        Group(calls("spm_normalize", [("",), ("Hello",)], prefix)
              + calls("spm_normalize", [("Hello world",), (" Hello",), ("  two  spaces  ",),
                                        ("tab\there\nline",), ("▁ already",)], space)
              + calls("spm_normalize", [("Hello world", False), ("", False), (" x", False)],
                      prefix)
              + calls("spm_normalize", [(t,) for t in HARD_TEXTS], space)),
        Group(calls("spm_normalize", [(t,) for t in random_texts(9, 20)], space)
              + calls("spm_normalize", [(t, False) for t in random_texts(10, 10)], space),
              hidden=True),
    ]


MERGE_HINT = ("Start from one symbol per character of the normalized text; repeatedly merge "
              "the neighbouring pair whose concatenation is a normal piece with the highest "
              "score (the leftmost pair on a tie); stop when no pair is a piece.")


def spm_encode_groups() -> list[Group]:
    merge = MERGE_HINT
    fallback = ("A final symbol that is not a piece becomes its UTF-8 bytes, each the id of "
                "the piece '<0x%02X>' (for example '<0xE9>'), in order.")
    prefix = "Normalize first (your spm_normalize, with the model's add_dummy_prefix)."
    spaces = ("Runs of '▁' are pieces too, with very low scores in Mistral's model: merge "
              "by score, not by whether a pair exists.")
    basic = [Case("spm_encode(MODEL, '')", "Empty text: no ids."),
             Case("spm_encode(MODEL, 'Hello')", prefix + " " + merge),
             Case("spm_encode(MODEL, 'Hello world')", merge),
             Case("spm_encode(MODEL, ' Hello')", prefix + " " + spaces),
             Case("spm_encode(MODEL, 'tokenization')", merge),
             Case("spm_encode(MODEL, '    return x')", merge),
             Case("spm_encode(MODEL, '2026')", merge),
             Case("spm_encode(MODEL, '鬱')", fallback),
             Case("spm_encode(MODEL, 'I feel 鬱 today 😀')", fallback)]
    hard = [Case(f"spm_encode(MODEL, {t!r})", merge) for t in HARD_TEXTS]
    hidden = [Case(f"spm_encode(MODEL, {t!r})", merge) for t in random_texts(11, 25)]
    return [
        Group(basic + hard + [Case("spm_encode(MODEL, 'ab ' * 500)", merge)],
              setup=MISTRAL, setup_time_limit=60),
        Group(basic + hard, setup=OWN_MODEL.format(prefix=False), setup_time_limit=60),
        Group(hidden, setup=MISTRAL, setup_time_limit=60, hidden=True),
        Group(hidden, setup=OWN_MODEL.format(prefix=True), setup_time_limit=60, hidden=True),
    ]


# file is given; the encoder is the exercise.
   # a trainer only: it has no encoder


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _spm_encode_hidden(rng):
    """Pages of real text (prose, code, many scripts) and short random texts, in Mistral's
    model and in one the course trains; a page weighs REAL short texts."""
    from .common import REAL, random_code, random_prose, world_page
    groups = []
    for setup in (MISTRAL, OWN_MODEL.format(prefix=True)):
        pages = {"PROSE": random_prose(rng, 1000), "CODE": random_code(rng, 1000),
                 "WORLD": world_page(rng)}
        groups.append(Group(
            [Case(f"spm_encode(MODEL, {name})", MERGE_HINT, weight=REAL) for name in pages]
            + [Case(f"spm_encode(MODEL, {t!r})", MERGE_HINT)
               for t in random_texts(rng.randrange(2**31), 10)],
            setup=setup, env={k: v[0] for k, v in pages.items()},
            env_doc={k: v[1] for k, v in pages.items()}, setup_time_limit=60))
    return groups


WORKSHEET = Worksheet(
    "09_sentencepiece",
    points={"spm_normalize": 1, "spm_encode": 4},
    checkers=[
        Checker("spm_normalize", "spm_normalize", "function", course_ref(REF + "spm_normalize"),
                spm_normalize_groups),
        Checker("spm_encode", "spm_encode", "function", course_ref(REF + "spm_encode"),
                spm_encode_groups),
    ],
    # Reading the model file is given; the encoder is the exercise (the trainer has none).
    helpers={"spm_encode": ("bpe_course.sentencepiece.model_file",
                            "bpe_course.sentencepiece.tokenizer.mistral_model_bytes",
                            "bpe_course.sentencepiece.trainer")},
    hidden={"spm_encode": _spm_encode_hidden},
)
