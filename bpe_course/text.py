"""Chapter 01: text is Unicode code points, tokenizers work on UTF-8 bytes.

A Python `str` is a sequence of code points (`ord("é") == 233`). Byte-level
BPE never sees code points: it starts from the text's UTF-8 bytes, 0..255, so
its base vocabulary is exactly 256 tokens and every string can be encoded.
These helpers are the few places where text meets bytes, shared by every
tokenizer of the course:

- `utf8_bytes`: text to bytes, with lone surrogates replaced as tiktoken does;
- `fix_surrogates`: the replacement itself;
- `check_text`, `check_vocab_size`: clear errors for wrong input.

>>> list(utf8_bytes("hé"))
[104, 195, 169]
>>> utf8_bytes("\\ud800") == "\\ufffd".encode("utf-8")   # a lone surrogate
True
"""

from __future__ import annotations


def check_text(text: object) -> str:
    """Raise TypeError unless `text` is a str; return it."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}"
                        + (" (decode bytes first, e.g. data.decode('utf-8'))"
                           if isinstance(text, (bytes, bytearray)) else ""))
    return text


def check_vocab_size(vocab_size: object, minimum: int = 256) -> int:
    """Raise unless `vocab_size` is an int of at least `minimum` (256 byte tokens)."""
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if vocab_size < minimum:
        raise ValueError(f"vocab_size must be at least {minimum}: the 256 byte values "
                         f"are always in the vocabulary; got {vocab_size}")
    return vocab_size


def utf8_bytes(text: str) -> bytes:
    """Encode text as UTF-8, replacing lone surrogates by U+FFFD as tiktoken does.

    A Python str may hold a lone surrogate ("\\ud800"), which has no UTF-8
    form. tiktoken round-trips such text through UTF-16 with errors="replace";
    we do the same, so ids match tiktoken's for every str.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return fix_surrogates(text).encode("utf-8")


def fix_surrogates(text: str) -> str:
    """Replace lone surrogates by U+FFFD (and join valid surrogate pairs)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
