"""Worksheet 11, SentencePiece: `spm_normalize` and `spm_encode`, a code-point BPE encoder."""

from __future__ import annotations

from .common import (
    HARD_TEXTS,
    REF,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    calls,
    course_ref,
    escaped,
    random_texts,
)

MISTRAL = ("from bpe_course.sentencepiece.model_proto import read_model\n"
           "from bpe_course.sentencepiece.tokenizer import mistral_model_bytes\n"
           "MODEL = read_model(mistral_model_bytes())")
OWN_MODEL = ("from bpe_course import corpora, train_codepoint_bpe\n"
             "MODEL = train_codepoint_bpe(corpora.prose()[:20_000], vocab_size=500, "
             "add_dummy_prefix={prefix})")
# A model whose byte pieces come after the others: their ids are read from the model, never
# computed (in Mistral's model, and in the course's, '<0x00>' happens to be id 3).
MOVED_BYTES = ("from bpe_course import corpora, train_codepoint_bpe\n"
               "from bpe_course.sentencepiece.model_proto import SpmModel\n"
               "trained = train_codepoint_bpe(corpora.prose()[{start}:{stop}], vocab_size=500)\n"
               "MODEL = SpmModel(trained.pieces[:3] + trained.pieces[259:] + "
               "trained.pieces[3:259], trained.trainer, trained.normalizer)")
BYTE_IDS = ("Read each byte piece's id from the model ({piece: id} for the BYTE pieces): "
            "here the byte pieces come after the others, so '<0xE9>' is not id 3 + 0xE9.")


def _wrong(cases: list[Case]) -> list[Case]:
    for case in cases:
        case.breaks = WRONG
    return cases


def spm_normalize_groups() -> list[Group]:
    space = "Replace every space ' ' by '▁' (U+2581); nothing else changes."
    prefix = ("With add_dummy_prefix, put one '▁' in front of the text; not in front of "
              "empty text, and not at all when add_dummy_prefix is False.")
    return [
        Group(calls("spm_normalize", [("",)], prefix)
              + _wrong(calls("spm_normalize", [("Hello",)], prefix))
              + _wrong(calls("spm_normalize", [("Hello world",), (" Hello",), ("  two  spaces  ",),
                                               ("tab\there\nline",), ("▁ already",)], space))
              + _wrong(calls("spm_normalize", [("Hello world", False), (" x", False)], prefix))
              + calls("spm_normalize", [("", False)], prefix)
              + _wrong(calls("spm_normalize", [(t,) for t in HARD_TEXTS], space))),
        Group(_wrong(calls("spm_normalize", [(t,) for t in random_texts(9, 20)], space)
                     + calls("spm_normalize", [(t, False) for t in random_texts(10, 10)], space)),
              hidden=True),
    ]


def recognize_normalize(inputs: dict, expected, got):
    """Which rewrite a wrong text is: no prefix, a prefix on empty text, every whitespace
    replaced, the text stripped or its spaces collapsed, '_' for '▁', the flag ignored."""
    import re
    args = inputs.get("args") or []
    if not args or not isinstance(args[0], str) or not isinstance(got, str):
        return None
    text = args[0]
    flag = args[1] if len(args) > 1 else (inputs.get("kwargs") or {}).get("add_dummy_prefix",
                                                                          True)
    meta = "\u2581"
    fits = []

    def norm(t, prefix):
        return (meta if prefix and t else "") + t.replace(" ", meta)
    if text and flag and got == norm(text, False):
        fits.append(("no_prefix", "the dummy prefix is missing: with add_dummy_prefix "
                     "(the default), one '▁' goes in front of the text."))
    if not flag and got == norm(text, True):
        fits.append(("flag", "add_dummy_prefix=False was ignored: no '▁' in front then."))
    if not text and got == meta:
        fits.append(("empty", "empty text stays empty: no dummy prefix in front of nothing."))
    if got == (meta if flag and text else "") + re.sub(r"\s", meta, text):
        fits.append(("all_whitespace", "every whitespace character became '▁': only the space "
                     "' ' does; tabs and newlines stay as they are."))
    if got in (norm(text.strip(), flag), norm(" ".join(text.split()), flag),
               norm(re.sub(" +", " ", text), flag)):
        fits.append(("stripped", "the text was stripped or its runs of spaces collapsed: "
                     "Mistral's model keeps every space (no remove_extra_whitespaces)."))
    if " " in text and got == (meta if flag and text else "") + text:
        fits.append(("spaces", "the spaces were not replaced: every ' ' becomes '▁'."))
    if got == norm(text, flag).replace(meta, "_"):
        fits.append(("underscore", "that is '_' (an underscore), not '▁' (U+2581, LOWER ONE "
                     "EIGHTH BLOCK)."))
    if text.startswith(" ") and flag and got == norm(text, False):
        fits.append(("space_first", "a text that starts with a space still gets the dummy "
                     "prefix: ' Hello' becomes '▁▁Hello'."))
    if not fits:
        return None
    return fits[0][0], " Or: ".join(t for k, t in fits)


MERGE_HINT = ("Start from one symbol per character (code point, not byte) of the normalized "
              "text; repeatedly merge "
              "the neighbouring pair whose concatenation is a normal piece with the highest "
              "score (the leftmost pair on a tie); stop when no pair is a piece.")


def spm_encode_groups() -> list[Group]:
    merge = MERGE_HINT
    fallback = ("A final symbol that is not a piece becomes its UTF-8 bytes, each the id of "
                "the piece '<0x%02X>' (for example '<0xE9>'), in order.")
    prefix = "Normalize first (your spm_normalize, with the model's add_dummy_prefix)."
    spaces = ("Runs of '▁' are pieces too, with very low scores in Mistral's model: merge "
              "by score, not by whether a pair exists.")
    basic = [Case("spm_encode(MODEL, '')", "Empty text: no ids.")] + _wrong([
        Case("spm_encode(MODEL, 'Hello')", prefix + " " + merge),
        Case("spm_encode(MODEL, 'Hello world')", merge),
        Case("spm_encode(MODEL, ' Hello')", prefix + " " + spaces),
        Case("spm_encode(MODEL, 'tokenization')", merge),
        Case("spm_encode(MODEL, '    return x')", merge),
        Case("spm_encode(MODEL, '2026')", merge),
        Case("spm_encode(MODEL, '鬱')", fallback),
        Case("spm_encode(MODEL, 'I feel 鬱 today 😀')", fallback)])
    hard = _wrong([Case(f"spm_encode(MODEL, {t!r})", merge) for t in HARD_TEXTS])
    hidden = _wrong([Case(f"spm_encode(MODEL, {t!r})", merge) for t in random_texts(11, 25)])
    moved = _wrong([Case(f"spm_encode(MODEL, {escaped(t)})", BYTE_IDS)
                    for t in ("鬱", "I feel 鬱 today 😀", "naïve café Ångström", "Привет, мир!",
                              "👋🌍 👩\u200d👩\u200d👧")])
    return [
        Group(basic + hard + _wrong([Case("spm_encode(MODEL, 'ab ' * 500)", merge)]),
              setup=MISTRAL, setup_time_limit=60),
        Group(moved, setup=MOVED_BYTES.format(start=0, stop=20_000), setup_time_limit=60),
        Group(basic + hard, setup=OWN_MODEL.format(prefix=False), setup_time_limit=60),
        Group(hidden, setup=MISTRAL, setup_time_limit=60, hidden=True),
        Group(hidden, setup=OWN_MODEL.format(prefix=True), setup_time_limit=60, hidden=True),
    ]


def recognize_spm(inputs: dict, expected, got):
    """Pieces where ids are wanted, the unknown id where bytes were wanted, or byte ids
    computed as 3 + byte where the model has them elsewhere."""
    if not isinstance(expected, list) or not isinstance(got, list):
        return None
    differ = [(e, g) for e, g in zip(expected, got) if e != g]
    if len(expected) == len(got) and differ and all(
            isinstance(g, int) and 3 <= g <= 258 for e, g in differ) and len(
            {e - g for e, g in differ if isinstance(e, int)}) == 1:
        return ("byte_ids", "the byte pieces' ids were computed (3 + byte, say), where they "
                "are read from the model: in this model the byte pieces come after the "
                "others. Look each one up, the id of the piece '<0x%02X>' % byte ({piece: "
                "id} for the BYTE pieces).")
    if got and all(isinstance(x, str) for x in got):
        return ("pieces", "these are the pieces, not their ids: turn each symbol into the id "
                "of its piece ({piece: id} for the NORMAL pieces).")
    if 0 in got and 0 not in expected:
        return ("unknown", "id 0 (<unk>) came back where the character has no piece: with "
                "byte fallback it becomes its UTF-8 bytes, each the id of the piece "
                "'<0x%02X>' % byte.")
    return None


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _spm_normalize_hidden(rng):
    """Random texts (runs of spaces, tabs, newlines, other scripts), with and without the
    dummy prefix."""
    texts = random_texts(rng.randrange(2**31), 20) + ["  " + t + "  " for t in
                                                      random_texts(rng.randrange(2**31), 5)]
    hint = "Every ' ' becomes '▁'; one '▁' in front with add_dummy_prefix, except for ''."
    return [Group(_wrong([Case(f"spm_normalize({escaped(t)})", hint) for t in texts]
                         + [Case(f"spm_normalize({escaped(t)}, add_dummy_prefix=False)", hint)
                            for t in texts[:10]]))]


def _spm_encode_hidden(rng):
    """Pages of real text (prose, code, many scripts) and short random texts, in Mistral's
    model and in one the course trains; a page weighs REAL short texts."""
    from .common import REAL, random_code, random_prose, world_page
    groups = []
    at = rng.randrange(20_000, 200_000)
    moved = MOVED_BYTES.format(start=at, stop=at + 20_000)
    for setup in (MISTRAL, OWN_MODEL.format(prefix=True), moved):
        pages = {"PROSE": random_prose(rng, 1000), "CODE": random_code(rng, 1000),
                 "WORLD": world_page(rng)}
        groups.append(Group(
            [Case(f"spm_encode(MODEL, {name})", MERGE_HINT, weight=REAL, breaks=WRONG)
             for name in pages]
            + [Case(f"spm_encode(MODEL, {escaped(t)})", MERGE_HINT, breaks=WRONG)
               for t in random_texts(rng.randrange(2**31), 10)],
            setup=setup, env={k: v[0] for k, v in pages.items()},
            env_doc={k: v[1] for k, v in pages.items()}, setup_time_limit=60))
    return groups


WORKSHEET = Worksheet(
    "11_sentencepiece",
    points={"spm_normalize": 1, "spm_encode": 4},
    checkers=[
        Checker("spm_normalize", "spm_normalize", "function", course_ref(REF + "spm_normalize"),
                spm_normalize_groups, recognize=recognize_normalize),
        Checker("spm_encode", "spm_encode", "function", course_ref(REF + "spm_encode"),
                spm_encode_groups, recognize=recognize_spm),
    ],
    # Reading the model file is given; the encoder is the exercise (the trainer has none).
    helpers={"spm_encode": ("bpe_course.sentencepiece.model_proto",
                            "bpe_course.sentencepiece.tokenizer.mistral_model_bytes",
                            "bpe_course.sentencepiece.trainer")},
    answers=tuple(f"bpe_course.sentencepiece.tokenizer.{m}" for m in (
        "SentencePieceTokenizer.normalize", "SentencePieceTokenizer.segment",
        "SentencePieceTokenizer.encode", "SentencePieceBPE.segment", "SentencePieceBPE.encode",
        "SentencePieceBPE.bpe")),
    hidden={"spm_normalize": _spm_normalize_hidden, "spm_encode": _spm_encode_hidden},
)
