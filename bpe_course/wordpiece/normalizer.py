"""BERT's normalizer: clean the text, space out CJK characters, strip accents, lowercase.

Unlike SentencePiece's normalizer (`sentencepiece.normalizer`), which reads its rules from
the model file, BERT's is four fixed steps, each of which `tokenizers`' `BertNormalizer`
can switch off:

1. **clean**: drop NUL, U+FFFD and control characters (Unicode's "other" categories Cc, Cf,
   Co; tab, newline and carriage return count as whitespace), and turn every whitespace
   character into a plain space;
2. **CJK**: put a space on each side of a CJK ideograph, so each one becomes a word;
3. **strip accents** (by default when lowercasing): decompose (NFD) and drop the
   nonspacing marks (`é` is `e` + U+0301);
4. **lowercase**, one character at a time.

Each output character remembers which input character it came from (`origins`), so that a
token's offsets can point into the text the user gave.

>>> text, origins = normalize("Héllo\\t世界!")
>>> text
'hello  世  界 !'
>>> origins
[0, 1, 2, 3, 4, 5, 6, 6, 6, 7, 7, 7, 8]

Subtle: which characters are punctuation, marks or control characters depends on the
Unicode version. `tokenizers` asks the Rust crate `unicode_categories` 0.1.1 (Unicode 8.0),
so `categories` ships its tables; Python's `unicodedata` is newer and would disagree.
"""

from __future__ import annotations

import unicodedata

from .categories import MARK_NONSPACING, OTHER, is_in

# Rust's `char::is_whitespace`: Unicode's White_Space property (not Python's isspace, which
# also counts U+001C..U+001F)
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                       "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# Lowercase: `tokenizers` uses Rust's `char::to_lowercase` (Unicode 16); these are the
# characters whose lowercase Python 3.10's `str.lower` (Unicode 13) does not know yet, all
# assigned since. Newer Pythons agree with every entry. Found by comparing the two on every
# code point (`tools/unicode_categories_tables.py --check` repeats the comparison).
LOWERCASE_NEWER = {
    0x1C89: 0x1C8A, 0x2C2F: 0x2C5F, 0xA7C0: 0xA7C1, 0xA7CB: 0x264, 0xA7CC: 0xA7CD,
    0xA7CE: 0xA7CF, 0xA7D0: 0xA7D1, 0xA7D2: 0xA7D3, 0xA7D4: 0xA7D5, 0xA7D6: 0xA7D7,
    0xA7D8: 0xA7D9, 0xA7DA: 0xA7DB, 0xA7DC: 0x19B, 0x10570: 0x10597, 0x10571: 0x10598,
    0x10572: 0x10599, 0x10573: 0x1059A, 0x10574: 0x1059B, 0x10575: 0x1059C, 0x10576: 0x1059D,
    0x10577: 0x1059E, 0x10578: 0x1059F, 0x10579: 0x105A0, 0x1057A: 0x105A1, 0x1057C: 0x105A3,
    0x1057D: 0x105A4, 0x1057E: 0x105A5, 0x1057F: 0x105A6, 0x10580: 0x105A7, 0x10581: 0x105A8,
    0x10582: 0x105A9, 0x10583: 0x105AA, 0x10584: 0x105AB, 0x10585: 0x105AC, 0x10586: 0x105AD,
    0x10587: 0x105AE, 0x10588: 0x105AF, 0x10589: 0x105B0, 0x1058A: 0x105B1, 0x1058C: 0x105B3,
    0x1058D: 0x105B4, 0x1058E: 0x105B5, 0x1058F: 0x105B6, 0x10590: 0x105B7, 0x10591: 0x105B8,
    0x10592: 0x105B9, 0x10594: 0x105BB, 0x10595: 0x105BC, 0x10D50: 0x10D70, 0x10D51: 0x10D71,
    0x10D52: 0x10D72, 0x10D53: 0x10D73, 0x10D54: 0x10D74, 0x10D55: 0x10D75, 0x10D56: 0x10D76,
    0x10D57: 0x10D77, 0x10D58: 0x10D78, 0x10D59: 0x10D79, 0x10D5A: 0x10D7A, 0x10D5B: 0x10D7B,
    0x10D5C: 0x10D7C, 0x10D5D: 0x10D7D, 0x10D5E: 0x10D7E, 0x10D5F: 0x10D7F, 0x10D60: 0x10D80,
    0x10D61: 0x10D81, 0x10D62: 0x10D82, 0x10D63: 0x10D83, 0x10D64: 0x10D84, 0x10D65: 0x10D85,
    0x16EA0: 0x16EBB, 0x16EA1: 0x16EBC, 0x16EA2: 0x16EBD, 0x16EA3: 0x16EBE, 0x16EA4: 0x16EBF,
    0x16EA5: 0x16EC0, 0x16EA6: 0x16EC1, 0x16EA7: 0x16EC2, 0x16EA8: 0x16EC3, 0x16EA9: 0x16EC4,
    0x16EAA: 0x16EC5, 0x16EAB: 0x16EC6, 0x16EAC: 0x16EC7, 0x16EAD: 0x16EC8, 0x16EAE: 0x16EC9,
    0x16EAF: 0x16ECA, 0x16EB0: 0x16ECB, 0x16EB1: 0x16ECC, 0x16EB2: 0x16ECD, 0x16EB3: 0x16ECE,
    0x16EB4: 0x16ECF, 0x16EB5: 0x16ED0, 0x16EB6: 0x16ED1, 0x16EB7: 0x16ED2, 0x16EB8: 0x16ED3,
}

# NFD: the crate `tokenizers` uses for it (`unicode-normalization-alignments` 0.1) predates
# this character's decomposition (Unicode 13), so it leaves it whole.
NFD_OLDER = frozenset("\U00011938")

CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
              (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_control(char: str) -> bool:
    """BERT's control characters: the "other" categories, but not tab, newline, return."""
    return char not in "\t\n\r" and is_in(OTHER, char)


def is_cjk(char: str) -> bool:
    """A CJK ideograph (the blocks BERT lists; not Hangul, Hiragana or Katakana)."""
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


def normalize(text: str, clean_text: bool = True, handle_chinese_chars: bool = True,
              strip_accents: bool | None = None,
              lowercase: bool = True) -> tuple[str, list[int]]:
    """`(normalized, origins)`: BERT's normalization of `text`, and for each character of
    the result the index of the character of `text` it comes from."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    pairs = list(zip(text, range(len(text))))
    if clean_text:
        pairs = [(" " if c in WHITESPACE else c, i) for c, i in pairs
                 if not (c in "\x00\ufffd" or is_control(c))]
    if handle_chinese_chars:
        pairs = [(piece, i) for c, i in pairs
                 for piece in ((" ", c, " ") if is_cjk(c) else (c,))]
    if strip_accents if strip_accents is not None else lowercase:
        pairs = [(d, i) for c, i in pairs
                 for d in (c if c in NFD_OLDER else unicodedata.normalize("NFD", c))
                 if not is_in(MARK_NONSPACING, d)]
    if lowercase:       # one character at a time: Python's "ΑΣ".lower() would give a final ς
        pairs = [(low, i) for c, i in pairs
                 for low in (chr(LOWERCASE_NEWER[ord(c)]) if ord(c) in LOWERCASE_NEWER
                             else c.lower())]
    return "".join(c for c, _ in pairs), [i for _, i in pairs]
