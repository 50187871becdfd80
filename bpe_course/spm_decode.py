"""Decoding SentencePiece ids back to text, as the `sentencepiece` library does.

Unlike a byte-level tokenizer, whose decode joins the tokens' bytes, a
SentencePiece model holds pieces of text, and decoding undoes what encoding
did (`SentencePieceDecoding`, a mixin of `SentencePieceBPE`):

- `▁` (U+2581, the meta symbol) becomes a space again, and the leading `▁` of
  the first piece, the dummy prefix, is dropped;
- runs of byte pieces `<0x..>` are joined and decoded as UTF-8; a byte that
  starts no valid character there becomes U+FFFD, one per byte (`utf8_surfaces`);
- `<unk>` becomes its surface (` ⁇ `), and control pieces (`<s>`, `</s>`) nothing.

`piece_bytes` gives the bytes of one id on its own, for token views.

>>> from bpe_course.sentencepiece_bpe import SentencePieceBPE
>>> sp = SentencePieceBPE.mistral()
>>> pieces = ["▁Hello", "▁", "<0xE9>", "<0xAC>", "<0xB1>"]
>>> sp.decode([sp.piece_to_id(p) for p in pieces])
'Hello 鬱'
>>> sp.piece_bytes(sp.piece_to_id("▁Hello")), sp.piece_bytes(sp.piece_to_id("<0xE9>"))
(b' Hello', b'\\xe9')
"""

from __future__ import annotations

from .spm_model import BYTE, CONTROL, UNKNOWN

SPACE = "\u2581"        # ▁, SentencePiece's meta symbol for a space


def utf8_surfaces(data: bytes) -> str:
    """Decode bytes as SentencePiece does: every byte that starts no valid character is U+FFFD.

    Python's `errors="replace"` gives one U+FFFD per broken *sequence*; SentencePiece gives
    one per byte:

    >>> utf8_surfaces(b"\\xe2\\x82x"), b"\\xe2\\x82x".decode("utf-8", "replace")
    ('\\ufffd\\ufffdx', '\\ufffdx')
    """
    out, i = [], 0
    while i < len(data):
        lead = data[i]
        size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        try:
            out.append(data[i:i + size].decode("utf-8"))
            i += size
        except UnicodeDecodeError:
            out.append("\ufffd")
            i += 1
    return "".join(out)


class SentencePieceDecoding:
    """`piece_bytes` and `decode` for `SentencePieceBPE`, which gives them `model`, `types`,
    `id_to_piece` and `piece_to_id`."""

    def piece_bytes(self, i: int) -> bytes:
        """The bytes id `i` stands for on its own, as a token view shows it: `▁` as a space
        (the dummy prefix too), a byte piece as its byte, `<unk>` as its surface, and a
        control piece (`<s>`, `</s>`) as nothing."""
        piece, kind = self.id_to_piece(i), self.types[i]
        if kind == BYTE:
            return bytes([int(piece[3:5], 16)])
        if kind == CONTROL:
            return b""
        if kind == UNKNOWN:
            return self.model.trainer["unk_surface"].encode("utf-8")
        return piece.replace(SPACE, " ").encode("utf-8")

    def decode(self, ids: list[int]) -> str:
        """The text of `ids`, equal to `sentencepiece`'s `decode`."""
        spec = self.model.normalizer
        strip_first = spec["add_dummy_prefix"] or spec["remove_extra_whitespaces"]
        text, run = [], bytearray()
        expect_prefix, prefix_seen = True, False
        for i in ids:
            piece = self.id_to_piece(i)
            kind = self.types[self.piece_to_id(piece)]
            if kind == BYTE:
                run.append(int(piece[3:5], 16))
                continue
            text.append(utf8_surfaces(bytes(run)))
            run.clear()
            if prefix_seen or any(text):
                expect_prefix = False
            prefix_seen = False
            if kind == CONTROL:
                continue
            if kind == UNKNOWN:
                text.append(self.model.trainer["unk_surface"])
                continue
            if expect_prefix and strip_first and piece.startswith(SPACE):
                piece = piece[1:]
                prefix_seen = not spec["remove_extra_whitespaces"]
            text.append(piece.replace(SPACE, " "))
        text.append(utf8_surfaces(bytes(run)))
        return "".join(text)
