"""Normalizers: the first step of the pipeline, changing the text before it is split.

Each normalizer changes a `NormalizedString` in place through its `transform`, so every
character keeps its span in the original text. They are the ones a `tokenizer.json` names:

- Unicode's forms `NFC`, `NFD`, `NFKC`, `NFKD` (composing, decomposing, compatibility);
- `Lowercase` (one character at a time, as Rust's `char::to_lowercase`), `StripAccents`
  (drop the combining marks, usually after NFD), `Strip` (whitespace at either end);
- `Replace` (a literal string or a regex, by a string), `Prepend` (a string in front);
- `Precompiled`: SentencePiece's compiled rule table (`sentencepiece.normalizer`), and
  `Nmt`, the fixed part of SentencePiece's `nmt_nfkc` (control characters dropped, other
  spaces made plain);
- `ByteLevel`: each byte written as one printable character (GPT-2's map), as the
  ByteLevel pre-tokenizer does;
- `BertNormalizer`: BERT's four steps (`wordpiece.normalizer`);
- `Sequence`: several, in order.

>>> from .normalized import NormalizedString
>>> s = NormalizedString("Ｈéllo")
>>> Sequence([Unicode("NFKD"), StripAccents(), Lowercase()])(s)
>>> s.normalized, s.original_span(1, 2)
('hello', (1, 2))

Subtle: where Unicode's forms compose several characters into one, `tokenizers` gives it
the span of the first; so does `Unicode` here. And `tokenizers`' Unicode is 12.0, older
than Python's: the characters it does not decompose yet are in `unicode_tables`.
"""

from __future__ import annotations

import unicodedata

import regex

from ..openai.byte_map import BYTE_TO_CHAR
from ..sentencepiece.normalizer import CharsMap, _offset
from ..wordpiece.categories import MARK_NONSPACING, is_in
from ..wordpiece.normalizer import LOWERCASE_NEWER, NFD_OLDER, WHITESPACE, is_cjk, is_control
from .normalized import NormalizedString, regex_matches
from .unicode_tables import COMBINING_MARKS, NOT_DECOMPOSED


def lower(char: str) -> str:
    """Rust's `char::to_lowercase` (Unicode 16) of one character."""
    code = LOWERCASE_NEWER.get(ord(char))
    return chr(code) if code is not None else char.lower()


def _is_older(form: str, char: str) -> bool:
    """Whether `tokenizers` (Unicode 12.0) leaves `char` alone where Python changes it."""
    if form in ("NFKC", "NFKD"):
        return is_in(NOT_DECOMPOSED, char)
    return form == "NFD" and char in NFD_OLDER


def _normal_form(form: str, text: str) -> str:
    """Python's normal form of `text`, but keeping what `tokenizers`' older Unicode keeps."""
    if not any(_is_older(form, c) for c in text if ord(c) > 0x3000):
        return unicodedata.normalize(form, text)
    out, run = [], []           # normalize the runs between the characters kept as they are
    for c in text:
        if _is_older(form, c):
            out.append(unicodedata.normalize(form, "".join(run)) + c)
            run = []
        else:
            run.append(c)
    return "".join(out) + unicodedata.normalize(form, "".join(run))


class Unicode:
    """One of Unicode's normal forms: "NFC", "NFD", "NFKC" or "NFKD"."""

    def __init__(self, form: str):
        self.form = form

    def changes(self, text: str) -> list[tuple[str, int]]:
        """`(char, change)` pairs turning `text` into its normal form.

        The text is cut into the shortest chunks that normalize on their own (a chunk ends
        before a character that combines with nothing before it); a chunk of n characters
        that becomes m keeps `0` for the first min(n, m) and `+1` for the ones added; when
        it shrinks, the first one (the composed character) drops the others."""
        out = _normal_form(self.form, text)
        dest, i, k, n = [], 0, 0, len(text)
        while i < n:
            if text[i] < "\x80" and (i + 1 == n or text[i + 1] < "\x80"):
                dest.append((text[i], 0))       # ASCII before ASCII: nothing to do
                i, k = i + 1, k + 1
                continue
            j = i + 1
            while True:
                piece = _normal_form(self.form, text[i:j])
                if j >= n or (unicodedata.combining(text[j]) == 0 and out.startswith(piece, k)
                              and _stays_apart(self.form, text[i:j], text[j])):
                    break
                j += 1
            dest.extend(_chunk_changes(piece, j - i))
            k += len(piece)
            i = j
        return dest

    def __call__(self, s: NormalizedString) -> None:
        if _normal_form(self.form, s.normalized) != s.normalized:
            s.transform(self.changes(s.normalized))


def _stays_apart(form: str, left: str, char: str) -> bool:
    """Whether `char` normalizes on its own after `left` (nothing composes across)."""
    return _normal_form(form, left + char) == _normal_form(form, left) + _normal_form(form, char)


def _chunk_changes(piece: str, n_in: int) -> list[tuple[str, int]]:
    m = len(piece)
    if m >= n_in:
        return [(c, 0 if k < n_in else 1) for k, c in enumerate(piece)]
    if m == 0:
        return []
    return [(c, -(n_in - m) if k == 0 else 0) for k, c in enumerate(piece)]


class Lowercase:
    def __call__(self, s: NormalizedString) -> None:
        s.map_chars(lower)


class StripAccents:
    """Drop every combining mark (Unicode's M categories, in `tokenizers`' Unicode 12.0)."""

    def __call__(self, s: NormalizedString) -> None:
        s.filter(lambda c: not is_in(COMBINING_MARKS, c))


class Strip:
    def __init__(self, left: bool = True, right: bool = True):
        self.left, self.right = left, right

    def __call__(self, s: NormalizedString) -> None:
        s.strip(self.left, self.right)


class Replace:
    """Replace each match of `pattern` (a compiled regex) by `content`."""

    def __init__(self, pattern, content: str):
        self.pattern, self.content = pattern, content

    def __call__(self, s: NormalizedString) -> None:
        spans = [span for span, hit in regex_matches(s.normalized, self.pattern) if hit]
        s.replace_matches(spans, self.content)


class Prepend:
    def __init__(self, prepend: str):
        self.prepend = prepend

    def __call__(self, s: NormalizedString) -> None:
        s.prepend(self.prepend)


class Precompiled:
    """SentencePiece's compiled rules, applied as `tokenizers` does: each grapheme of
    under 6 UTF-8 bytes is looked up whole, else each of its characters."""

    GRAPHEME = regex.compile(r"\X")

    def __init__(self, blob: bytes):
        self.charsmap = CharsMap(blob)

    def lookup(self, chunk: str) -> str | None:
        """The replacement of the first (shortest) rule matching a prefix of `chunk`."""
        units, data = self.charsmap.units, chunk.encode("utf-8")
        node = _offset(units[0])
        for byte in data:                       # walk the double array (see CharsMap)
            node ^= byte
            unit = units[node]
            if unit & 0x800000FF != byte:
                return None
            node ^= _offset(unit)
            if unit >> 8 & 1:                   # a rule ends here: the first one wins
                value = units[node] & 0x7FFFFFFF
                replacements = self.charsmap.replacements
                return replacements[value:replacements.find(b"\0", value)].decode("utf-8")
        return None

    def __call__(self, s: NormalizedString) -> None:
        dest, modified = [], False
        for grapheme in self.GRAPHEME.findall(s.normalized):
            if len(grapheme.encode("utf-8")) < 6:
                norm = self.lookup(grapheme)
                if norm is not None:
                    modified = True
                    _replace(dest, grapheme, norm)
                    continue
            for char in grapheme:
                norm = self.lookup(char)
                if norm is not None:
                    modified = True
                    _replace(dest, char, norm)
                else:
                    dest.append((char, 0))
        if modified:
            s.transform(dest)


def _replace(dest: list, old: str, new: str) -> None:
    """`tokenizers`' bookkeeping for one replacement: `0` for each new character, the
    last ones `+1` if it grew, the last one (even one before it) dropping the rest if not."""
    diff = len(new) - len(old)
    dest.extend((c, 0) for c in new)
    if diff > 0:
        for k in range(len(dest) - diff, len(dest)):
            dest[k] = (dest[k][0], 1)
    elif diff < 0 and dest:
        dest[-1] = (dest[-1][0], dest[-1][1] + diff)


# Nmt: ASCII control characters it drops, and characters it makes a plain space
NMT_DROP = frozenset(map(chr, [*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F]))
NMT_SPACE = frozenset("\t\n\x0c\r\u1680\u200b\u200c\u200d\u200e\u200f\u2028\u2029"
                      "\u2581\ufeff\ufffd")


class Nmt:
    def __call__(self, s: NormalizedString) -> None:
        s.filter(lambda c: c not in NMT_DROP)
        s.transform((" " if c in NMT_SPACE else c, 0) for c in s.normalized)


class ByteLevel:
    def __call__(self, s: NormalizedString) -> None:
        s.transform((BYTE_TO_CHAR[b], 1 if k else 0) for char in s.normalized
                    for k, b in enumerate(char.encode("utf-8")))


class BertNormalizer:
    """BERT's normalizer (see `wordpiece.normalizer`), step by step on a NormalizedString."""

    def __init__(self, clean_text=True, handle_chinese_chars=True, strip_accents=None,
                 lowercase=True):
        self.clean_text, self.handle_chinese_chars = clean_text, handle_chinese_chars
        self.strip_accents = lowercase if strip_accents is None else strip_accents
        self.lowercase = lowercase

    def __call__(self, s: NormalizedString) -> None:
        if self.clean_text:
            s.filter(lambda c: not (c in "\x00\ufffd" or is_control(c)))
            s.transform((" " if c in WHITESPACE else c, 0) for c in s.normalized)
        if self.handle_chinese_chars:
            s.transform(pair for c in s.normalized
                        for pair in (((" ", 0), (c, 1), (" ", 1)) if is_cjk(c) else ((c, 0),)))
        if self.strip_accents:
            Unicode("NFD")(s)
            s.filter(lambda c: not is_in(MARK_NONSPACING, c))
        if self.lowercase:
            s.map_chars(lower)


class Sequence:
    def __init__(self, steps: list):
        self.steps = steps

    def __call__(self, s: NormalizedString) -> None:
        for step in self.steps:
            step(s)
