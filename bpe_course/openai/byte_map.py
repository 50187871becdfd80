"""GPT-2's byte map: one printable character for each byte, so that JSON can hold tokens.

A byte-level BPE token is bytes, and not every token is valid UTF-8 (a token
may hold half a character). JSON holds text, not bytes, so GPT-2 writes each
token's bytes as characters with a fixed map (`bytes_to_unicode`): the 188
printable bytes stand for themselves, the others are moved to U+0100 and up.
A space is "Ġ", a newline "Ċ": " the" is stored as "Ġthe". GPT-2's own files
(`gpt2_files`) and Hugging Face's (`files.huggingface`) both use this map, and
this module is the only place it is written.

>>> BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[ord("\\n")], token_to_str(b" the")
('Ġ', 'Ċ', 'Ġthe')
>>> str_to_token("Ġthe")
b' the'
"""

from __future__ import annotations


def bytes_to_unicode() -> dict[int, str]:
    """Byte value -> the printable character GPT-2's files use for it.

    The 188 bytes that are printable Latin-1 characters ("!" to "~", "¡" to
    "¬", "®" to "ÿ") map to themselves; the other 68, in order, to
    chr(256), chr(257), ... (space is the 33rd of those: chr(288) = "Ġ").
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    others = [b for b in range(256) if b not in table]
    table.update({b: chr(256 + k) for k, b in enumerate(others)})
    return table


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}


def token_to_str(token: bytes | str) -> str:
    """A token's bytes (or the UTF-8 of a str) as GPT-2's characters: b" the" -> "Ġthe"."""
    data = token.encode("utf-8") if isinstance(token, str) else token
    return "".join(BYTE_TO_CHAR[b] for b in data)


def str_to_token(text: str, where: str = "token") -> bytes:
    """The bytes a GPT-2-mapped string stands for ("Ġthe" -> b" the"); ValueError naming
    `where` for a character outside the map."""
    try:
        return bytes(CHAR_TO_BYTE[c] for c in text)
    except KeyError as e:
        raise ValueError(f"{where} {text!r} has the character {e.args[0]!r}, which GPT-2's "
                         f"byte map does not use: not a byte-level BPE token") from None
