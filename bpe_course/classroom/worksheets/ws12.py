"""Worksheet 12, the subword family: `viterbi`, `wordpiece` and `bert_normalize`.

`viterbi` finds a Unigram model's best segmentation by hand (SentencePiece's rule for
unknown characters and its tie-break), `wordpiece` cuts one word greedily, longest piece
first, as BERT does, and `bert_normalize` is BERT's normalizer. The real cases use a
Unigram model and a WordPiece vocabulary that the course trains on the prose corpus; the
hidden ones train their own on a random page for each grading run, and add random small
vocabularies (with and without ties), pages of prose and text in many scripts.

Characters for the normalizer: `tokenizers` reads Unicode 8.0's tables, a learner's
`unicodedata` a newer Unicode. The cases use only characters on which the two agree (see
`tests/classroom/worksheets/test_ws12.py`), so an answer built on `unicodedata.category` is exact here.
"""

from __future__ import annotations

import unicodedata

from .common import (
    CONTRACT,
    EDGE,
    REAL,
    REF,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    course_ref,
    escaped,
    prose,
)

UNK = "[UNK]"
META = "\u2581"


def literal(x) -> str:
    """`escaped(x)`, with a set's items sorted: a set's own order changes from run to run."""
    if isinstance(x, (set, frozenset)) and x:
        return "{" + ", ".join(escaped(v) for v in sorted(x)) + "}"
    return escaped(x)


def _cases(name: str, args_list, hint: str = "", breaks: str = WRONG, **kw) -> list[Case]:
    return [Case(f"{name}({', '.join(map(literal, args))})", hint, breaks=breaks, **kw)
            for args in args_list]


def normalized_page(text: str) -> str:
    """A page as a Unigram model reads it: each run of whitespace one '▁', one in front."""
    return META + META.join(text.split())


def named(found: list[tuple[int, str, str]]):
    """The diagnosis from the variants an answer fits, as `(tier, kind, words)`: those of
    the first tier only (a mistake that shows only near an unknown character or a limit is
    more likely than a general one, which would have failed an earlier case), at most two
    of them, joined by "Or:"."""
    if not found:
        return None
    tier = min(t for t, _, _ in found)
    first = [(kind, words) for t, kind, words in found if t == tier][:2]
    return first[0][0], " Or: ".join(words for _, words in first)


# -- exercise 1: Viterbi -------------------------------------------------------------------------

SMALL = {META: -2.0, "a": -3.0, "b": -3.0, META + "a": -4.0, "ab": -2.5}
VITERBI_HINT = ("best[end] = the highest of best[start] + scores[text[start:end]] over every "
                "piece that ends at `end` (best[0] = 0.0), then follow the starts back from "
                "the end of the text. A character that is no piece may stand alone, scored "
                "min(scores.values()) - 10.")
TIE_HINT = ("On equal totals keep the segmentation whose last piece is longer (starts "
            "earlier): scanning starts from left to right, replace the best only on a "
            "strictly greater total (`>`, not `>=`). Ties are common: 'c' + 'cc' and "
            "'cc' + 'c' have the same total.")
UNKNOWN_HINT = ("A character that is no piece becomes a piece of its own, one per character, "
                "scored min(scores.values()) - 10.")
UNDERFLOW = ("Multiplying probabilities underflows to 0.0 on a long text: add the "
             "log-probabilities (the scores) instead.")


def unigram_scores(start: int, stop: int, vocab_size: int) -> dict[str, float]:
    """The normal pieces' scores of a Unigram model trained on `prose()[start:stop]`, read
    back from its `.model` file (so each score is a 32-bit float, as the library holds it)."""
    from ...corpora import prose as corpus
    from ...sentencepiece.model_proto import NORMAL, read_model
    from ...sentencepiece.unigram_trainer import save_unigram_model, train_unigram
    model = read_model(save_unigram_model(train_unigram(corpus()[start:stop], vocab_size)))
    return {piece: score for piece, score, kind in model.pieces if kind == NORMAL}


def _scores_doc(start: int, stop: int, vocab_size: int) -> str:
    return f"bpe_course.classroom.worksheets.ws12.unigram_scores({start}, {stop}, {vocab_size})"


def _page(start: int, stop: int) -> tuple[str, str]:
    text, doc = prose(start, stop)
    return normalized_page(text), f"bpe_course.classroom.worksheets.ws12.normalized_page({doc})"


def viterbi_groups() -> list[Group]:
    small = {"SMALL": SMALL}
    basic = [
        Case("viterbi('', {'a': -1.0})", "Empty text: no pieces, and the total of nothing "
             "is 0.0: ([], 0.0)."),
        *_cases("viterbi", [("a", {"a": -1.5})], VITERBI_HINT),
        Case("viterbi('▁ab', SMALL)", VITERBI_HINT, breaks=WRONG),
        Case("viterbi('▁ba▁ab', SMALL)", VITERBI_HINT, breaks=WRONG),
        *_cases("viterbi", [("ab", {"a": -1.0, "b": -1.0, "ab": -5.0}),
                            ("aaaa", {"a": -1.0, "aa": -1.75, "aaa": -3.5})], VITERBI_HINT),
        *_cases("viterbi", [("ab", {"a": -1.0, "b": -1.0, "ab": -2.0}),
                            ("abc", {"a": -1.0, "bc": -2.0, "ab": -2.0, "c": -1.0})],
                TIE_HINT, breaks=WRONG),
        *_cases("viterbi", [("axb", {"a": -1.0, "b": -2.0}), ("xyz", {"a": -1.0}),
                            ("▁x▁ab", SMALL)], UNKNOWN_HINT),
        *_cases("viterbi", [("abcd", {"ab": -1.0, "bcd": -1.0})],
                UNKNOWN_HINT + " It may start where a longer piece starts too.", breaks=EDGE),
        Case("scores = {'a': -1.0, 'b': -2.0}\nresult = viterbi('axb', scores)\n"
             "(result, scores)", "Leave `scores` as it is: work out the unknown score "
             "without adding it to the dict.", breaks=CONTRACT, probe="unchanged:1"),
    ]
    # the real thing: a Unigram model the course trains on the prose corpus
    page, page_doc = _page(20_000, 21_000)
    real = [Case(f"viterbi({escaped(t)}, SCORES)", VITERBI_HINT, breaks=WRONG)
            for t in ("▁the▁tokenizer▁learns", "▁naïve▁café", "▁" + "▁".join(["to"] * 8),
                      "▁Hello,▁world!▁1234567")]
    real.append(Case("viterbi(PAGE, SCORES)", VITERBI_HINT, breaks=WRONG, weight=REAL,
                     when={"raised:ValueError": UNDERFLOW}))
    env = {"SCORES": unigram_scores(0, 20_000, 400), "PAGE": page}
    doc = {"SCORES": _scores_doc(0, 20_000, 400), "PAGE": page_doc}
    slow = [Case("viterbi('a' * 81, {'a': -1.0, 'aa': -1.5, 'aaa': -2.0})",
                 "Trying every segmentation takes exponential time (a text of n characters "
                 "has up to 2**(n-1)): keep only the best total for each end position, "
                 "left to right.", breaks=WRONG)]
    # Its deadline: a right Viterbi takes under a millisecond on it (measured 2026-11-29),
    # so 2 s is a thousand times that; an exponential one would take 2**80 steps, and is
    # stopped by the deadline whatever it is, so a longer one only makes grading slower.
    return [Group(basic, env=small, env_doc={"SMALL": escaped(SMALL)}),
            Group(real, env=env, env_doc=doc),
            Group(slow, time_limit=2)]


def segment(text: str, scores: dict, *, unknown: float | None = None, where: str = "char",
            total: str = "sum", tie: str = "first", merged: bool = False):
    """Viterbi with one rule bent, as a learner may have it: `unknown` scores an unknown
    character (default min - 10; None there means dropped), `where` says where it may
    start ("char": where the character is no piece; "nothing": only where no piece
    starts), `total` how a path adds up ("sum"; "last": its last piece alone; "product":
    the scores multiplied, from 1.0), `tie`
    which start wins a tie ("first", "last"), `merged` makes a run of unknown
    characters one piece. Returns (pieces, total)."""
    low = min(scores.values())
    unk = low - 10.0 if unknown is None else unknown
    n = len(text)
    best: list = [1.0 if total == "product" else 0.0] + [None] * n
    start_of = [0] * (n + 1)
    for start in range(n):
        if best[start] is None:
            continue
        options = [(end, scores[text[start:end]]) for end in range(start + 1, n + 1)
                   if text[start:end] in scores]
        alone = text[start] not in scores and (where == "char" or not options)
        if alone and merged:
            end = start + 1
            while end < n and text[end] not in scores:
                end += 1
            options.append((end, unk * (end - start)))
        elif alone:
            options.append((start + 1, unk))
        for end, score in options:
            value = (best[start] + score if total == "sum" else best[start] * score
                     if total == "product" else score)
            if best[end] is None or value > best[end] or (tie == "last" and value == best[end]):
                best[end], start_of[end] = value, start
    if best[n] is None:
        return None
    pieces, end = [], n
    while end > 0:
        pieces.append(text[start_of[end]:end])
        end = start_of[end]
    return pieces[::-1], best[n]


def greedy(text: str, scores: dict, fewest: bool = False):
    """Longest piece first at each position (an unknown character alone); with `fewest`,
    the segmentation with the fewest pieces. Pieces only."""
    if fewest:
        count = [0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                if (text[start:end] in scores or end == start + 1) and (
                        count[end] is None or count[start] + 1 < count[end]):
                    count[end], start_of[end] = count[start] + 1, start
        pieces, end = [], len(text)
        while end > 0:
            pieces.append(text[start_of[end]:end])
            end = start_of[end]
        return pieces[::-1]
    pieces, start = [], 0
    while start < len(text):
        end = next((e for e in range(len(text), start, -1) if text[start:e] in scores),
                   start + 1)
        pieces.append(text[start:end])
        start = end
    return pieces


def _skips_unknowns(joined: str, text: str, scores: dict) -> bool:
    """Whether `joined` is `text` with some characters left out, each of them no piece."""
    at = 0
    for c in text:
        if at < len(joined) and joined[at] == c:
            at += 1
        elif c in scores:
            return False
    return at == len(joined)


def recognize_viterbi(inputs: dict, expected, got):
    """Which rule was bent: greedy or fewest pieces, a total that is not a sum, the tie,
    the unknown characters (dropped, merged, scored otherwise, placed otherwise), the
    backtrack cut short, or a total off by rounding."""
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], dict) or \
            not args[1] or not isinstance(got, tuple) or len(got) != 2 or \
            not isinstance(expected, tuple) or not isinstance(got[0], list):
        return None
    text, scores = args
    (pieces, total), (right, right_total) = got, expected
    number = isinstance(total, (int, float)) and not isinstance(total, bool)
    if pieces == right:
        if not number or total == right_total:
            return None
        unknown = min(scores.values()) - 10.0
        product = 1.0
        for piece in right:
            product *= scores.get(piece, unknown)
        if total == product and product != right_total:
            return ("product", "the pieces are right, but the scores were multiplied, not "
                    "added: a score is a log-probability, and log-probabilities add (the total "
                    "of no piece is 0.0).")
        if abs(total - right_total) <= 1e-9 * max(1.0, abs(right_total)):
            return ("rounding", "the pieces are right but the total is off by a rounding "
                    "error: add the scores themselves (math.exp, a product of "
                    "probabilities and math.log round on the way).")
        low = min(scores.values())
        for value, label in ((0.0, "0"), (low, "like the lowest piece"), (-10.0, "-10")):
            if right != [p for p in right if p in scores] and total == sum(
                    scores.get(p, value) for p in right):
                return ("unknown_score", f"the pieces are right, but an unknown character "
                        f"was scored {label} in the total: SentencePiece scores it "
                        f"min(scores.values()) - 10.")
        return ("total", "the pieces are right, but the total is not the sum of their scores "
                "(an unknown character counts min(scores.values()) - 10).")
    if not all(isinstance(p, str) for p in pieces):
        return None
    joined = "".join(pieces)
    if joined != text:
        if text and _skips_unknowns(joined, text, scores):
            return ("dropped", "unknown characters were dropped: a character that is no "
                    "piece is a piece of its own (scored min(scores.values()) - 10), so the "
                    "pieces always spell the whole text.")
        if text.endswith(joined):
            return ("backtrack", "the pieces spell the text without its beginning: the "
                    "backtrack stopped too early; follow the starts back until position 0.")
        if joined and text.startswith(joined):
            return ("backtrack", "the pieces spell the text without its end: start the "
                    "backtrack at position len(text), the end of the last piece.")
        return ("spell", "the pieces do not spell the text: ''.join(pieces) must give the "
                "text back.")
    unknown = min(scores.values()) - 10.0
    if number and sum(scores.get(p, unknown) for p in pieces) == right_total:
        return ("tie", "your segmentation has the same total as the expected one: on a tie "
                "keep the one whose last piece is longer (starts earlier), and so on back "
                "to the front. Scanning starts from left to right, replace the best only on "
                "a strictly greater total (`>`, not `>=`), as SentencePiece does.")
    general = [
            ("greedy", greedy(text, scores), "that is the greedy longest match: at each "
             "position the longest piece. Viterbi compares every segmentation by its total "
             "score; a long piece may cost more than two short ones."),
            ("fewest", greedy(text, scores, fewest=True), "that is the segmentation with the "
             "fewest pieces: Viterbi wants the highest total score, whatever the count."),
            ("last", segment(text, scores, total="last"), "each end kept the start with the "
             "best single piece: the total of a path is best[start] + the piece's score, "
             "summed over all its pieces.")]
    # the variants that differ from the right answer only where it meets an unknown
    # character come first: an answer that fits one of them and a general one is more
    # likely the specific mistake (the general one would have failed an earlier case)
    specific = [
            ("merged", segment(text, scores, merged=True), "a run of unknown characters "
             "became one piece: each unknown character is a piece of its own."),
            ("unknown_where", segment(text, scores, where="nothing"), "an unknown piece was "
             "allowed only where no piece starts: SentencePiece adds one wherever the "
             "character itself is no piece, even where a longer piece starts."),
            *[("unknown_score", segment(text, scores, unknown=value), f"an unknown character "
               f"was scored {label}: SentencePiece scores it min(scores.values()) - 10.")
              for value, label in ((0.0, "0"), (min(scores.values()), "like the lowest piece"),
                                   (-10.0, "-10"), (-1e9, "far below every piece"))]]
    found = []
    product = segment(text, scores, total="product")
    if product and product[0] == pieces != right:
        # the pieces of a product fit other rules too (fewest pieces, say): its total tells
        tier = -1 if number and abs(total - product[1]) <= 1e-9 * max(1.0, abs(total)) else 1
        found.append((tier, "product", "the scores were multiplied, not added: a score is a "
                      "log-probability, so a path's total is the sum best[start] + score. A "
                      "product of negative numbers changes sign with every piece, and the "
                      "best path it finds is no Viterbi path."))
    for tier, (kind, other, words) in [(0, v) for v in specific] + [(1, v) for v in general]:
        pieces_of = other[0] if isinstance(other, tuple) else other
        if pieces_of == pieces and pieces_of != right:
            found.append((tier, kind, words))
    return named(found)


# -- exercise 2: WordPiece -------------------------------------------------------------------

LONGEST_HINT = ("From the start of the word, take the longest piece in `vocab` (shorten from "
                "the right until one fits); then from where it ended, the longest '##' + rest "
                "in `vocab`; and so on.")
UNK_HINT = "If no piece fits somewhere, the whole word is ['[UNK]'], not just that part."
LIMIT_HINT = ("A word of more than max_input_chars_per_word characters (len(word), not its "
              "UTF-8 bytes) is ['[UNK]']; a word of exactly that many is cut as usual.")


def wordpiece_vocab(start: int, stop: int, vocab_size: int) -> dict[str, int]:
    """A WordPiece vocabulary `{piece: id}` trained on `prose()[start:stop]`."""
    from ...corpora import prose as corpus
    from ...wordpiece.trainer import train_wordpiece
    return train_wordpiece(corpus()[start:stop], vocab_size)


def bert_words(text: str) -> list[str]:
    """The words BERT's tokenizer cuts `text` into: normalized, then pre-tokenized."""
    from ...wordpiece.normalizer import normalize
    from ...wordpiece.pretokenizer import pretokenize
    return [word for word, _, _ in pretokenize(normalize(text)[0])]


def wordpiece_groups() -> list[Group]:
    basic = [
        Case("wordpiece('', {'a'})", "An empty word has no pieces: []."),
        *_cases("wordpiece", [("x", {"x", "##x"}), ("able", {"able", "##able", "a"}),
                              ("unable", {"un", "able", "##able"}),
                              ("unaffable", {"un", "##aff", "##able"}),
                              ("unaffable", {"u", "un", "una", "##f", "##ff", "##ffable", "##a"}),
                              ("abc", {"a", "ab", "##c", "##bc"})], LONGEST_HINT),
        *_cases("wordpiece", [("unxable", {"un", "##able"}), ("abc", {"a", "ab", "##bc"}),
                              ("unaffablex", {"un", "##aff", "##able"}),
                              ("xunaffable", {"un", "##aff", "##able"})],
                UNK_HINT + " Greedy never goes back to try a shorter piece."),
        *_cases("wordpiece", [("hello", {"hello"}, 5)], LIMIT_HINT, breaks=EDGE),
        *_cases("wordpiece", [("helloo", {"hello", "##o"}, 5), ("hééllo", {"hééllo"}, 7),
                              ("日本語", {"日本語"}, 3), ("日本語", {"日", "##本", "##語"}, 2)],
                LIMIT_HINT, breaks=CONTRACT),
        Case("wordpiece('a' * 100, {'a', '##a'})", LIMIT_HINT + " The default is 100.",
             breaks=EDGE),
        Case("wordpiece('a' * 101, {'a', '##a'})", LIMIT_HINT + " The default is 100.",
             breaks=CONTRACT),
    ]
    words, words_doc = prose(20_000, 21_500)
    env = {"VOCAB": wordpiece_vocab(0, 20_000, 1000), "WORDS": bert_words(words)}
    doc = {"VOCAB": "bpe_course.classroom.worksheets.ws12.wordpiece_vocab(0, 20000, 1000)",
           "WORDS": f"bpe_course.classroom.worksheets.ws12.bert_words({words_doc})"}
    real = [Case(f"wordpiece({w!r}, VOCAB)", LONGEST_HINT, breaks=WRONG)
            for w in ("the", "tokenization", "unbelievable", "naïve", "2026", "ü")]
    real.append(Case("[wordpiece(w, VOCAB) for w in WORDS]", LONGEST_HINT, breaks=WRONG,
                     weight=REAL))
    return [Group(basic), Group(real, env=env, env_doc=doc)]


def _wordpiece_variant(word: str, vocab, limit: int = 100, *, order: str = "longest",
                       first: str = "", rest: str = "##", unknown: str = "word",
                       measure: str = "chars", over: str = ">", strip: bool = False):
    """WordPiece with one rule bent (see `recognize_wordpiece`)."""
    size = len(word.encode("utf-8")) if measure == "bytes" else len(word)
    if over == ">" and size > limit or over == ">=" and size >= limit:
        return [UNK]
    if order == "fewest":                  # any segmentation, as few pieces as possible
        best: list = [[]] + [None] * len(word)
        for start in range(len(word)):
            if best[start] is None:
                continue
            for end in range(start + 1, len(word) + 1):
                piece = (first if start == 0 else rest) + word[start:end]
                if piece in vocab and (best[end] is None or len(best[start]) + 1 < len(best[end])):
                    best[end] = best[start] + [piece]
        return best[-1] if best[-1] is not None else [UNK]
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if order == "longest" else range(start + 1,
                                                                             len(word) + 1)
        for end in ends:
            piece = (first if start == 0 else rest) + word[start:end]
            if piece in vocab:
                break
        else:
            if unknown == "word":
                return [UNK]
            if unknown == "part":
                return pieces + [UNK]
            pieces.append(UNK)
            start += 1
            continue
        pieces.append(piece)
        start = end
    return [p[2:] if strip and p.startswith("##") else p for p in pieces]


def recognize_wordpiece(inputs: dict, expected, got):
    """Which rule was bent: the shortest piece first, '##' on the first piece or on none,
    [UNK] for the part (or the character) that failed, going back for another cut, the
    limit in bytes, at the limit, or ignored, the '##' left out of the pieces."""
    args = list(inputs.get("args") or [])
    kwargs = inputs.get("kwargs") or {}
    if len(args) < 2 or not isinstance(args[0], str) or args[1] is None or \
            not isinstance(got, list):
        return None
    word, vocab = args[0], args[1]
    limit = args[2] if len(args) > 2 else kwargs.get("max_input_chars_per_word", 100)
    if not isinstance(limit, int):
        return None
    found = []
    # the limit's variants first: they differ from the right answer only near the limit;
    # then what happens when no piece fits; then how the pieces are looked up
    for tier, kind, bent, words in [
            (0, "bytes", dict(measure="bytes"), "the limit was counted in UTF-8 bytes: "
             "max_input_chars_per_word counts characters, len(word)."),
            (0, "at_limit", dict(over=">="), "a word of exactly max_input_chars_per_word "
             "characters became '[UNK]': only a longer one does (`>`, not `>=`)."),
            (0, "no_limit", dict(over="never"), "the limit was ignored: a word of more than "
             "max_input_chars_per_word characters is ['[UNK]'] (100 by default)."),
            (1, "backtrack", dict(order="fewest"), "your code found a cut by going back to "
             "shorter pieces: WordPiece is greedy; when the longest piece leads to a dead "
             "end the word is ['[UNK]']."),
            (1, "unk_part", dict(unknown="part"), "only the part that no piece fits became "
             "'[UNK]': the whole word becomes ['[UNK]']."),
            (1, "unk_char", dict(unknown="char"), "a character that no piece fits became "
             "'[UNK]' and the cut went on: the whole word becomes ['[UNK]']."),
            (2, "no_prefix", dict(rest=""), "the pieces after the first have no '##': look "
             "up '##' + the rest of the word, and keep the '##' in the piece."),
            (2, "strip", dict(strip=True), "the '##' was taken off the pieces: keep it; it "
             "is part of the piece (and of its id)."),
            (2, "first_prefix", dict(first="##"), "the first piece got '##' too: '##' marks "
             "a piece that continues a word, so the first piece has none."),
            (2, "shortest", dict(order="shortest"), "that is the shortest match first: "
             "WordPiece takes the longest piece that fits, shortening from the right.")]:
        try:
            other = _wordpiece_variant(word, vocab, limit, **bent)
        except TypeError:
            return None
        if other == got and other != expected:
            found.append((tier, kind, words))
    return named(found)


def recognize_words(inputs: dict, expected, got):
    """`recognize_wordpiece`, also for a list of words (`[wordpiece(w, VOCAB) for w in
    WORDS]`): on the first word that differs, spelled back from its pieces."""
    args = inputs.get("args") or []
    if len(args) == 2 and args[0] is None and isinstance(expected, list) and \
            isinstance(got, list) and len(got) == len(expected):
        for want, have in zip(expected, got):
            if want == have or not isinstance(have, list):
                continue
            spelled = want if want != [UNK] else have
            if not all(isinstance(p, str) for p in spelled) or spelled == [UNK]:
                return None
            word = "".join(p[2:] if p.startswith("##") else p for p in spelled)
            return recognize_wordpiece({"args": [word, args[1]]}, want, have)
        return None
    return recognize_wordpiece(inputs, expected, got)


# -- exercise 3: BERT's normalizer -----------------------------------------------------------

NORMALIZE_HINT = ("Four steps: (1) drop '\\x00', '\\ufffd' and every control character "
                  "(category Cc, Cf or Co, except '\\t', '\\n', '\\r'), and turn every "
                  "whitespace character ('\\t', '\\n', '\\r', categories Zs, Zl, Zp) into ' '; "
                  "(2) put ' ' on each side of a CJK ideograph; (3) when lowercasing, NFD and "
                  "drop the nonspacing marks (Mn); (4) lowercase, character by character.")
CJK_HINT = ("A CJK ideograph is a code point in U+4E00-9FFF, U+3400-4DBF, U+20000-2A6DF, "
            "U+2A700-2B73F, U+2B740-2B81F, U+2B920-2CEAF, U+F900-FAFF or U+2F800-2FA1F "
            "(the list BERT's code has); kana, Hangul and CJK punctuation are not.")
CLEAN_HINT = ("Clean first: drop '\\x00', '\\ufffd' and the characters of categories Cc, Cf "
              "and Co except '\\t', '\\n', '\\r'; then each of '\\t', '\\n', '\\r' and the "
              "characters of categories Zs, Zl and Zp becomes ' '.")
STRIP_HINT = ("Strip accents: unicodedata.normalize('NFD', ...), then drop the characters of "
              "category Mn; only when lowercasing.")
LOWER_HINT = "Lowercase one character at a time: ''.join(c.lower() for c in text)."

# Characters of ordinary text, and rarer ones, for the hidden texts: only characters on
# which tokenizers' Unicode 8.0 tables and every Python's unicodedata agree.
ORDINARY = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     .,;:!?'\"()-"
            "éèêëàâäçñöüÉÀÇÑÖÜßøåÅæœ\u0301\u0308\u0327"          # Latin, combining marks
            "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙЯ"           # Cyrillic
            "αβγδεζηθικλμνξοπρστυφχψωςΑΒΓΔΣΩάέήίόύώἈἀῆ"              # Greek
            "नमस्तेहिन्दीक्षि"                                                 # Devanagari (Mn and Mc)
            "مرحباًبالعالمَ"                                                 # Arabic with harakat
            "สวัสดีครับ" "שָׁלוֹם"                                         # Thai, Hebrew
            "日本語中文字你好世界東京学生"                                   # CJK ideographs
            "こんにちはカタカナ한국어안녕하세요"                          # kana, Hangul
            "，。、「」！？…ﬁﬂ①②²³ＡＢｃｄｶﾀｶﾅ"                              # punctuation, compatibility
            "\t\n\r\u00a0\u3000\u2003\u200b\u200d\ufeff\u00ad\u200e"   # whitespace, format
            "👋🌍👍🏽🙂")
RARE = ("\x00\x07\x0b\x0c\x1c\x1d\x1e\x1f\x7f\x85\ufffd\u2028\u2029\ue000"
        "\u3400\u4dbf\U00020000\U0002a6d6\uf900\ufa6d\U0002f800"      # CJK beyond U+4E00-9FFF
        "\u2e80\u31c0\u3007\U0002ceb0\u9fff\u0378")                    # not CJK to BERT


def bert_normalize_groups() -> list[Group]:
    def case(text, breaks=WRONG, hint=NORMALIZE_HINT, **kw):
        return Case(f"bert_normalize({escaped(text)}"
                    + ("".join(f", {k}={v!r}" for k, v in kw.items())) + ")", hint,
                    breaks=breaks)
    basic = [
        case("", EDGE, "Empty text stays empty."),
        case("Hello World"), case("Héllo, Wörld! Ça va?", hint=STRIP_HINT),
        case("naïve café, Ångström", hint=STRIP_HINT),
        case("e\u0301 a\u0308 n\u0303", hint=STRIP_HINT),
        case("Привет, Йошкар-Ола, ёлка", hint=STRIP_HINT),
        case("ΟΔΟΣ Ἀθῆναι", hint=LOWER_HINT), case("Straße", hint=LOWER_HINT),
        case("हिन्दी नमस्ते", hint=STRIP_HINT),
        case("ﬁnal … ①² ＡＢＣ", hint=STRIP_HINT),
        case("tab\there\nline\r\nend", hint=CLEAN_HINT),
        case("a\u00a0b\u3000c\u2003d", hint=CLEAN_HINT),
        case("zero\u200bwidth\ufeffBOM soft\u00adhyphen", hint=CLEAN_HINT),
        case("x\x00y\ufffdz\x07!", EDGE, CLEAN_HINT),
        case("a\x0bb\x0cc\x1cd\x1fe\x85f", EDGE, CLEAN_HINT),
        case("line\u2028paragraph\u2029end", EDGE, CLEAN_HINT),
        case("你好，世界。", hint=CJK_HINT), case("日本語とカタカナ、한국어", hint=CJK_HINT),
        case("\u3400\U00020000\uf900\U0002f800", EDGE, CJK_HINT),
        case("\u2e80\u31c0\u3007\U0002ceb0", EDGE, CJK_HINT),
        case("Héllo Wörld", lowercase=False, hint="With lowercase=False (BERT's cased "
             "models) nothing is lowercased and no accent is stripped; cleaning and CJK "
             "spacing still happen."),
        case("Tab\tÀ 中 Σ", lowercase=False, hint="With lowercase=False nothing is "
             "lowercased and no accent stripped."),
    ]
    page, page_doc = prose(30_000, 31_500)
    real = [Case("bert_normalize(PAGE)", NORMALIZE_HINT, breaks=WRONG, weight=REAL)]
    return [Group(basic), Group(real, env={"PAGE": page}, env_doc={"PAGE": page_doc})]


def _is_cjk_bert(ch: str) -> bool:
    from ...wordpiece.normalizer import is_cjk
    return is_cjk(ch)


def _normalize_variant(text: str, lowercase: bool = True, *, form: str = "NFD",
                       marks: str = "Mn", tabs: str = "space", spaces: str = "bert",
                       fffd: bool = True, controls: tuple = ("Cc", "Cf", "Co"),
                       cjk: str = "bert", lower: str = "char", strip_cased: bool = False,
                       strip: bool = True, lower_cased: bool = False) -> str:
    """BERT's normalizer, written with `unicodedata`, with one rule bent (see
    `recognize_normalize`)."""
    def category(c):
        return unicodedata.category(c)

    def white(c):
        if spaces == "isspace":
            return c.isspace()
        if spaces == "zs":
            return c in " \t\n\r" or category(c) == "Zs"
        return c in "\t\n\r" or category(c) in ("Zs", "Zl", "Zp")

    out = []
    for c in text:
        if spaces == "isspace" and c.isspace() and (tabs == "space" or c not in "\t\n\r"):
            out.append(" ")
            continue
        if c == "\x00" or (fffd and c == "\ufffd"):
            continue
        if c in "\t\n\r":
            if tabs == "space":
                out.append(" ")
            continue
        if category(c) in controls:
            continue
        out.append(" " if white(c) else c)
    spaced = []
    for c in out:
        if cjk == "bert":
            is_cjk = _is_cjk_bert(c)
        elif cjk == "main":
            is_cjk = "\u4e00" <= c <= "\u9fff"
        elif cjk == "name":
            is_cjk = unicodedata.name(c, "").startswith("CJK")
        elif cjk == "east_asian":
            is_cjk = _is_cjk_bert(c) or (c >= "\u3040" and category(c) == "Lo")
        else:
            is_cjk = False
        spaced.append(f" {c} " if is_cjk else c)
    text = "".join(spaced)
    if (lowercase and strip) or (not lowercase and strip_cased):
        if form:
            text = "".join(unicodedata.normalize(form, c) for c in text)
        text = "".join(c for c in text if not category(c).startswith(marks))
    if lowercase or lower_cased:
        text = text.lower() if lower == "text" else text.casefold() if lower == "casefold" \
            else "".join(c.lower() for c in text)
    return text


def recognize_normalize(inputs: dict, expected, got):
    """Which rule was bent: NFKD or no decomposition, every mark dropped, the whole text
    lowercased (final sigma) or casefolded, tabs and newlines dropped, str.isspace, the
    separators kept, U+FFFD kept, format characters kept, the CJK blocks, the flag."""
    args = inputs.get("args") or []
    kwargs = inputs.get("kwargs") or {}
    if not args or not isinstance(args[0], str) or not isinstance(got, str):
        return None
    text = args[0]
    lowercase = args[1] if len(args) > 1 else kwargs.get("lowercase", True)
    found = []
    for kind, bent, words in [
            ("nfkd", dict(form="NFKD"), "NFKD also replaces compatibility characters "
             "('ﬁ' by 'fi', '…' by '...', '①' by '1', 'Ａ' by 'A'): BERT decomposes with "
             "NFD, which only splits off the accents."),
            ("no_nfd", dict(form=""), "accents written as one character ('é', U+00E9) stayed: "
             "decompose with unicodedata.normalize('NFD', ...) first, then drop the marks."),
            ("marks", dict(marks="M"), "every mark was dropped: only the nonspacing marks "
             "(category Mn) go; spacing vowel signs (Mc, as in Hindi 'ि') stay."),
            ("sigma", dict(lower="text"), "the whole text was lowercased at once: str.lower() "
             "writes a final 'Σ' as 'ς'; BERT lowercases one character at a time "
             "(''.join(c.lower() for c in text))."),
            ("casefold", dict(lower="casefold"), "casefold() is not lowercase: it turns 'ß' "
             "into 'ss' and 'ς' into 'σ'; use c.lower()."),
            ("tabs", dict(tabs="drop"), "'\\t', '\\n' and '\\r' were dropped as control "
             "characters: BERT counts them as whitespace, so each becomes ' '."),
            ("isspace", dict(spaces="isspace"), "str.isspace() is not BERT's whitespace: "
             "'\\x0b', '\\x0c', '\\x1c'-'\\x1f' and '\\x85' are control characters (Cc) and "
             "are dropped, not turned into spaces (drop the control characters first)."),
            ("separators", dict(spaces="zs"), "U+2028 and U+2029 (line and paragraph "
             "separators, categories Zl and Zp) are whitespace too: they become ' '."),
            ("fffd", dict(fffd=False), "U+FFFD (the replacement character) is dropped too, "
             "with '\\x00'."),
            ("format", dict(controls=("Cc",)), "format characters were kept (category Cf: "
             "zero-width space, BOM, soft hyphen): BERT drops Cc, Cf and Co."),
            ("unassigned", dict(controls=("Cc", "Cf", "Co", "Cn")), "an unassigned code "
             "point (category Cn) was dropped: only Cc, Cf and Co are."),
            ("cjk_main", dict(cjk="main"), "only U+4E00-9FFF got spaces: BERT's CJK "
             "ideographs are eight ranges, the extensions (U+3400-4DBF, U+20000-2A6DF, ...) "
             "and the compatibility ideographs (U+F900-FAFF, U+2F800-2FA1F) too."),
            ("cjk_name", dict(cjk="name"), "characters whose name starts with 'CJK' got "
             "spaces: radicals and strokes are no ideographs, and newer extensions are not "
             "in BERT's eight ranges; test the code point against the ranges."),
            ("cjk_east_asian", dict(cjk="east_asian"), "kana or Hangul got spaces: only CJK "
             "ideographs do (BERT's eight ranges of code points)."),
            ("no_cjk", dict(cjk="none"), "CJK ideographs need a space on each side (BERT's "
             "eight ranges of code points)."),
            ("strip_cased", dict(strip_cased=True), "with lowercase=False the accents stay: "
             "strip them only when lowercasing."),
            ("lower_cased", dict(lower_cased=True), "lowercase=False was ignored: nothing is "
             "lowercased then."),
            ("no_strip", dict(strip=False), "the accents stayed: when lowercasing, NFD then "
             "drop the nonspacing marks (Mn)."),
            ("no_lower", dict(lower="none"), "nothing was lowercased.")]:
        if kind == "no_lower":
            other = _normalize_variant(text, False, strip_cased=bool(lowercase))
        else:
            other = _normalize_variant(text, lowercase, **bent)
        if other == got and other != expected:
            found.append((1 if kind in ("no_cjk", "no_strip", "no_lower") else 0, kind, words))
    return named(found)


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _f32(x: float) -> float:
    from ...sentencepiece.unigram import f32
    return f32(x)


def _library_agrees(text: str, scores: dict) -> bool:
    """Whether the course's `SentencePieceUnigram` (32-bit sums, as the library) finds the
    same pieces as the exact reference: a drawn text on which a near tie tips is left out."""
    from ...sentencepiece.model_proto import NORMAL, UNKNOWN, write_model
    from ...sentencepiece.unigram import SentencePieceUnigram
    from ..checking.references import viterbi
    model = SentencePieceUnigram.from_bytes(write_model(
        [("<unk>", 0.0, UNKNOWN)] + [(p, s, NORMAL) for p, s in scores.items()],
        {"model_type": 1}))
    return [p for p, _ in model.segment(text)] == viterbi(text, scores)[0]


def _small_cases(rng, ties: bool, n: int) -> list[Case]:
    cases = []
    while len(cases) < n:
        alphabet = rng.choice(["ab", "abc", "ab▁", "abcd"])
        pieces = set(alphabet)       # as in a trained model: every known character is a piece
        for _ in range(rng.randrange(2, 9)):
            pieces.add("".join(rng.choice(alphabet) for _ in range(rng.randrange(2, 5))))
        scores = {p: (-rng.randrange(1, 25) / 4 if ties else _f32(-rng.uniform(0.5, 12.0)))
                  for p in sorted(pieces)}
        text = "".join(rng.choice(alphabet + "xy" * (rng.random() < 0.3))
                       for _ in range(rng.randrange(1, 30)))
        if _library_agrees(text, scores):
            cases.append(Case(f"viterbi({escaped(text)}, {escaped(scores)})",
                              TIE_HINT if ties else VITERBI_HINT, breaks=WRONG))
    return cases


def _viterbi_hidden(rng):
    """A Unigram model trained on a random page, pages of prose and text in many scripts
    read with it, and random small vocabularies, with ties (an edge) and without."""
    from ...corpora import prose as corpus
    from .common import random_prose, world_page
    start, size = rng.randrange(0, len(corpus()) - 40_000), rng.randrange(300, 700)
    scores = unigram_scores(start, start + 20_000, size)
    env, doc = {"SCORES": scores}, {"SCORES": _scores_doc(start, start + 20_000, size)}
    pages = {"PROSE": random_prose(rng, 1000), "PROSE2": random_prose(rng, 600),
             "WORLD": world_page(rng)}
    cases = []
    for name, (text, how) in pages.items():
        if _library_agrees(normalized_page(text), scores):
            env[name] = normalized_page(text)
            doc[name] = f"bpe_course.classroom.worksheets.ws12.normalized_page({how})"
            cases.append(Case(f"viterbi({name}, SCORES)", VITERBI_HINT, breaks=WRONG,
                              weight=REAL, when={"raised:ValueError": UNDERFLOW}))
    words = normalized_page(random_prose(rng, 400)[0]).split(META)[1:]
    cases += [Case(f"viterbi({escaped(META + w)}, SCORES)", VITERBI_HINT, breaks=WRONG)
              for w in rng.sample(words, min(10, len(words)))
              if _library_agrees(META + w, scores)]
    return [Group(cases, env=env, env_doc=doc),
            Group(_small_cases(rng, False, 15) + _small_cases(rng, True, 15))]


def _wordpiece_hidden(rng):
    """A vocabulary trained on a random page, the words of prose and of text in many
    scripts; random small vocabularies and words, with limits near their length."""
    from ...corpora import prose as corpus
    from .common import random_prose, world_page
    start, size = rng.randrange(0, len(corpus()) - 40_000), rng.randrange(600, 1500)
    env = {"VOCAB": wordpiece_vocab(start, start + 20_000, size)}
    doc = {"VOCAB": f"bpe_course.classroom.worksheets.ws12.wordpiece_vocab({start}, "
                    f"{start + 20_000}, {size})"}
    cases = []
    for name, (text, how) in {"WORDS": random_prose(rng, 1500), "WORLD": world_page(rng)}.items():
        env[name] = bert_words(text)
        doc[name] = f"bpe_course.classroom.worksheets.ws12.bert_words({how})"
        cases.append(Case(f"[wordpiece(w, VOCAB) for w in {name}]", LONGEST_HINT,
                          breaks=WRONG, weight=REAL))
    small = []
    for _ in range(20):
        alphabet = rng.choice(["ab", "abc", "abé", "ab日"])
        vocab = set()
        for _ in range(rng.randrange(2, 10)):
            piece = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 4)))
            vocab.add(piece if rng.random() < 0.4 else "##" + piece)
        word = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        small.append(Case(f"wordpiece({escaped(word)}, {literal(vocab)})",
                          LONGEST_HINT + " " + UNK_HINT, breaks=WRONG))
    limits = []
    for _ in range(10):
        word = "".join(rng.choice("abé日") for _ in range(rng.randrange(1, 9)))
        vocab = {word[:k] for k in range(1, len(word) + 1)} | {"##" + word[k:] for k in
                                                                 range(1, len(word))}
        limit = len(word) + rng.choice([-1, 0, 1])
        limits.append(Case(f"wordpiece({escaped(word)}, {literal(vocab)}, {limit})",
                           LIMIT_HINT, breaks=CONTRACT if limit != len(word) else EDGE))
    return [Group(cases, env=env, env_doc=doc), Group(small + limits)]


def _bert_normalize_hidden(rng):
    """Random texts of ordinary characters in many scripts (with lowercase=False too), a
    page of prose and one in many scripts, and random texts with rare characters."""
    from .common import random_prose, world_page

    def draw(pool, n):
        return ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 40)))
                for _ in range(n)]
    (page, page_doc), (world, world_doc) = random_prose(rng, 1500), world_page(rng)
    real = [Case("bert_normalize(PAGE)", NORMALIZE_HINT, breaks=WRONG, weight=REAL),
            Case("bert_normalize(WORLD)", NORMALIZE_HINT, breaks=WRONG, weight=REAL),
            Case("bert_normalize(WORLD, lowercase=False)", NORMALIZE_HINT, breaks=WRONG,
                 weight=REAL)]
    ordinary = [Case(f"bert_normalize({escaped(t)})", NORMALIZE_HINT, breaks=WRONG)
                for t in draw(ORDINARY, 20)]
    ordinary += [Case(f"bert_normalize({escaped(t)}, lowercase=False)", NORMALIZE_HINT,
                      breaks=WRONG) for t in draw(ORDINARY, 10)]
    rare = [Case(f"bert_normalize({escaped(t)})", NORMALIZE_HINT, breaks=EDGE)
            for t in draw(ORDINARY[:80] + RARE * 3, 15)]
    return [Group(real, env={"PAGE": page, "WORLD": world},
                  env_doc={"PAGE": page_doc, "WORLD": world_doc}),
            Group(ordinary + rare)]


WORKSHEET = Worksheet(
    "12_subword_family",
    points={"viterbi": 3, "wordpiece": 2, "bert_normalize": 2},
    checkers=[
        Checker("viterbi", "viterbi", "function", course_ref(REF + "viterbi"), viterbi_groups,
                recognize=recognize_viterbi),
        Checker("wordpiece", "wordpiece", "function", course_ref(REF + "wordpiece"),
                wordpiece_groups, recognize=recognize_words),
        Checker("bert_normalize", "bert_normalize", "function",
                course_ref(REF + "bert_normalize"), bert_normalize_groups,
                recognize=recognize_normalize),
    ],
    answers=("bpe_course.sentencepiece.unigram_trainer.viterbi",
             "bpe_course.sentencepiece.unigram.SentencePieceUnigram.segment",
             "bpe_course.wordpiece.tokenizer.WordPiece.tokenize_word",
             "bpe_course.wordpiece.tokenizer.WordPiece._pieces",
             "bpe_course.wordpiece.normalizer.normalize"),
    hidden={"viterbi": _viterbi_hidden, "wordpiece": _wordpiece_hidden,
            "bert_normalize": _bert_normalize_hidden},
)
