"""SentencePiece's BPE in pure Python: the tokenizer of Llama 2 and Mistral 7B, id for id.

Unlike every tokenizer before it in the course, SentencePiece runs BPE on *code points*,
not bytes, and it has no regex pre-tokenization. Encoding a text takes three steps:

1. **Normalize.** The model's rules rewrite characters (none for Llama 2's `identity`; see
   `normalizer`), spaces become the meta symbol `▁` (U+2581), and with `add_dummy_prefix`
   a `▁` is put in front of the text, so `"Hello"` and `" Hello"`'s last word look alike
   (`▁Hello`). With `remove_extra_whitespaces`, leading, trailing and repeated spaces go.
2. **Merge.** Start from one symbol per code point. Repeatedly merge the adjacent pair whose
   concatenation is a piece of the vocabulary with the highest *score* (the leftmost pair on
   a tie). The trainer scores the pieces it learns 0, -1, -2, ... in the order it learns
   them, so the highest score is the earliest merge: rank order, as in chapter 03; but the
   vocabulary stores pieces and scores, not merges. A user-defined piece is one symbol
   from the start and never merges.
3. **Fall back.** A symbol that is not a piece is unknown. With `byte_fallback` it is
   spelled as its UTF-8 bytes, pieces `<0x00>`..`<0xFF>`; without it, it becomes `<unk>`
   (a run of unknown symbols gives one `<unk>`).

Decoding undoes what encoding did: `▁` becomes a space again and the first piece's leading
`▁` (the dummy prefix) is dropped; runs of byte pieces `<0x..>` are joined and decoded as
UTF-8, and a byte that starts no valid character there becomes U+FFFD, one per byte
(`utf8_surfaces`); `<unk>` becomes its surface (` ⁇ `) and control pieces (`<s>`, `</s>`)
nothing. `piece_bytes` gives the bytes of one id on its own, for token views.

>>> sp = SentencePieceBPE.mistral()
>>> sp.encode("Hello world", out_type=str)
['▁Hello', '▁world']
>>> sp.encode(" 鬱 42", out_type=str)       # ▁▁: the dummy prefix and the space
['▁▁', '<0xE9>', '<0xAC>', '<0xB1>', '▁', '4', '2']
>>> sp.encode(" 鬱 42")
[259, 236, 175, 180, 28705, 28781, 28750]
>>> sp.decode(sp.encode(" 鬱 42"))
' 鬱 42'

Subtle: the library reads a text's *normalized* form, so a literal `▁` in the input is a
space to it. Normalization is `normalizer.Normalizer`'s: the space rules above and, for a
model trained with a Unicode rule (SentencePiece's default, `nmt_nfkc`), the model's compiled
rule table, exactly as the library applies it.

What the two SentencePiece models share (the pieces, normalizing, the unknowns, decoding) is
`SentencePieceTokenizer`; `SentencePieceBPE` adds step 2, and `unigram.SentencePieceUnigram`
replaces it with the most probable segmentation.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from importlib import resources
from pathlib import Path

from ..dropout import check_dropout
from ..text import check_text
from .model_proto import (
    BPE,
    BYTE,
    CONTROL,
    MODEL_TYPES,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    SpmModel,
    read_model,
)
from .normalizer import SPACE, Normalizer

MISTRAL_V1 = "mistral_tokenizer.model.v1"
MISTRAL_V1_SHA256 = "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"


def byte_piece(b: int) -> str:
    """The name of the piece for byte `b`: `byte_piece(10) == '<0x0A>'`."""
    return f"<0x{b:02X}>"


class SentencePieceTokenizer:
    """What every SentencePiece model shares: its pieces, normalizing, the unknowns, decoding.

    A subclass says which `model_type` it reads (`MODEL_TYPE`) and how a normalized text is
    cut into pieces (`segment`, returning `(piece, id)` pairs); `encode` does the rest.
    """

    MODEL_TYPE = BPE

    def __init__(self, model: SpmModel):
        if not isinstance(model, SpmModel):
            raise TypeError(f"expected an SpmModel (from read_model), got {type(model).__name__}")
        self._check_supported(model)
        self.model = model
        self.pieces = [p for p, _, _ in model.pieces]
        self.scores = [s for _, s, _ in model.pieces]
        self.types = [t for _, _, t in model.pieces]
        self.normal: dict[str, int] = {}      # pieces a model may build (the library's pieces_)
        self.reserved: dict[str, int] = {}    # <unk>, control and byte pieces
        for i, (piece, _, kind) in enumerate(model.pieces):
            table = self.normal if kind in (NORMAL, USER_DEFINED, UNUSED) else self.reserved
            if piece in table:
                raise ValueError(f"malformed .model file: piece {piece!r} is defined twice")
            table[piece] = i
        unknown = [i for i, t in enumerate(self.types) if t == UNKNOWN]
        if len(unknown) != 1:
            raise ValueError(f"malformed .model file: {len(unknown)} <unk> pieces, expected 1")
        self.unk_id = unknown[0]
        self.byte_fallback = model.trainer["byte_fallback"]
        names = {self.pieces[i] for i, t in enumerate(self.types) if t == BYTE}
        if names != ({byte_piece(b) for b in range(256)} if self.byte_fallback else set()):
            raise ValueError("malformed .model file: with byte_fallback there must be exactly "
                             "the 256 byte pieces <0x00>..<0xFF>, and without it none")
        self.user_defined = [p for p, _, t in model.pieces if t == USER_DEFINED]
        self.normalizer = Normalizer(model.normalizer, user_defined=self.user_defined)

    @classmethod
    def _check_supported(cls, model: SpmModel) -> None:
        kind = model.trainer["model_type"]
        if kind != cls.MODEL_TYPE:
            name = {BPE: "BPE"}.get(cls.MODEL_TYPE, MODEL_TYPES[cls.MODEL_TYPE].capitalize())
            raise ValueError(f"this is a {MODEL_TYPES.get(kind, kind)} model, not {name}: "
                             f"{cls.__name__} reads {name} models only")
        if (model.denormalizer or {}).get("precompiled_charsmap"):
            raise ValueError("models with a denormalization rule (denormalizer_spec) are not "
                             "supported")
        if model.trainer["treat_whitespace_as_suffix"]:
            raise ValueError("models with treat_whitespace_as_suffix are not supported")

    @classmethod
    def from_bytes(cls, data: bytes):
        return cls(read_model(data))

    @classmethod
    def from_file(cls, path: str | Path):
        """Load a `.model` file (for example one written by `spm_train`)."""
        return cls.from_bytes(Path(path).read_bytes())

    def vocab_size(self) -> int:
        return len(self.pieces)

    def id_to_piece(self, i: int) -> str:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"an id is an int, not {type(i).__name__}")
        if not 0 <= i < len(self.pieces):
            raise ValueError(f"id {i} is out of range: the vocabulary has ids 0..{len(self.pieces) - 1}")
        return self.pieces[i]

    def piece_to_id(self, piece: str) -> int:
        """The id of a piece, or of `<unk>` when there is no such piece (as the library does)."""
        return self.reserved.get(piece, self.normal.get(piece, self.unk_id))

    # -- encoding ---------------------------------------------------------------------
    def normalize(self, text: str) -> str:
        """Step 1: the text as the model sees it (the model's rules, spaces as ▁, the dummy
        prefix), equal to the library's `normalize`."""
        check_text(text)
        return self.normalizer.normalize(text)

    def segment(self, normalized: str) -> list[tuple[str, int]]:
        """Step 2: the normalized text cut into `(piece, id)` pairs; each model its own way."""
        raise NotImplementedError

    def encode(self, text: str, out_type: type = int) -> list:
        """Ids (or, with `out_type=str`, pieces) of `text`, equal to `sentencepiece`'s."""
        if out_type not in (int, str):
            raise ValueError("out_type must be int or str")
        return self._finish(self.segment(self.normalize(text)), out_type)

    def _finish(self, segments: list[tuple[str, int]], out_type: type) -> list:
        """Step 3, the unknowns: byte pieces with byte fallback, else one `<unk>` for a run
        of unknown pieces (the library's `PopulateSentencePieceText`)."""
        ids, pieces, prev_unknown = [], [], False
        for piece, i in segments:
            unknown = self.types[i] == UNKNOWN
            if unknown and self.byte_fallback:
                for b in piece.encode("utf-8"):
                    ids.append(self.reserved[byte_piece(b)])
                    pieces.append(byte_piece(b))
            elif unknown and prev_unknown:
                pieces[-1] += piece               # one <unk> for a run of unknowns
            else:
                ids.append(i)
                pieces.append(piece)
            prev_unknown = unknown
        return pieces if out_type is str else ids

    # -- decoding ---------------------------------------------------------------------

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


class SentencePieceBPE(SentencePieceTokenizer):
    """A SentencePiece BPE model, read from a `.model` file, encoding and decoding like the
    library."""

    MODEL_TYPE = BPE

    @classmethod
    def mistral(cls) -> "SentencePieceBPE":
        """Mistral 7B's first tokenizer (Apache-2.0, from `mistral-common`), hash-checked."""
        return cls.from_bytes(mistral_model_bytes())

    def segment(self, normalized: str) -> list[tuple[str, int]]:
        return [(piece, self.piece_to_id(piece)) for piece in self.bpe(normalized)]

    def encode(self, text: str, out_type: type = int, enable_sampling: bool = False,
               alpha: float = 0.1, rng: random.Random | None = None) -> list:
        """Ids (or pieces) of `text`, equal to `sentencepiece`'s `encode`.

        With `enable_sampling`, BPE-dropout (see `bpe_course.dropout`): as in the library,
        `alpha` is the probability of skipping a merge. The library's loop differs a little
        from the paper's: a merge taken off the agenda is skipped with probability `alpha`
        and *dropped from the agenda* (it comes back only if a neighbour's merge makes the
        pair anew), where the paper draws again at every step. This does as the library
        does; `rng` is a `random.Random` (a fresh unseeded one by default)."""
        if not enable_sampling:
            return super().encode(text, out_type)
        if out_type not in (int, str):
            raise ValueError("out_type must be int or str")
        rng = check_dropout(alpha, rng)
        pieces = self.bpe(self.normalize(text), alpha, rng)
        return self._finish([(piece, self.piece_to_id(piece)) for piece in pieces], out_type)

    def bpe(self, normalized: str, dropout: float = 0.0,
            rng: random.Random | None = None) -> list[str]:
        """Step 2: merge code points into pieces, best score first, leftmost on a tie.

        A user-defined piece is one frozen symbol from the start: never merged with its
        neighbours (the library's `PrefixMatcher`, longest first). With `dropout`, each
        merge taken off the agenda is skipped with that probability (drawing from `rng`)."""
        symbols, frozen = [], []
        lengths = sorted({len(p) for p in self.user_defined}, reverse=True)
        user = set(self.user_defined)
        pos = 0
        while pos < len(normalized):
            size = next((n for n in lengths if normalized[pos:pos + n] in user), 0)
            symbols.append(normalized[pos:pos + (size or 1)])
            frozen.append(bool(size))
            pos += size or 1
        nxt = list(range(1, len(symbols))) + [-1]
        prv = list(range(-1, len(symbols) - 1))
        agenda, unmerge = [], {}

        def consider(left: int, right: int) -> None:
            if left < 0 or right < 0 or frozen[left] or frozen[right]:
                return
            piece = symbols[left] + symbols[right]
            i = self.normal.get(piece)
            if i is not None:
                heapq.heappush(agenda, (-self.scores[i], left, right, len(piece)))
                if self.types[i] == UNUSED:       # an unused piece is split again at the end
                    unmerge[piece] = (symbols[left], symbols[right])

        for i in range(1, len(symbols)):
            consider(i - 1, i)
        while agenda:
            _, left, right, size = heapq.heappop(agenda)
            if not symbols[left] or not symbols[right] or \
                    len(symbols[left]) + len(symbols[right]) != size:
                continue                          # stale: a side has changed since
            if dropout and rng.random() < dropout:
                continue                          # BPE-dropout: skip this merge
            symbols[left] += symbols[right]
            symbols[right] = ""
            nxt[left] = nxt[right]
            if nxt[left] >= 0:
                prv[nxt[left]] = left
            consider(prv[left], left)
            consider(left, nxt[left])
        out = []

        def resegment(piece: str) -> None:
            i = self.normal.get(piece)
            if i is not None and self.types[i] == UNUSED and piece in unmerge:
                for part in unmerge[piece]:
                    resegment(part)
            else:
                out.append(piece)

        for s in symbols:
            if s:
                resegment(s)
        return out


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


def mistral_model_bytes() -> bytes:
    """The bytes of Mistral 7B's `tokenizer.model.v1`, checked against its sha256."""
    data = (resources.files("bpe_course") / "data" / MISTRAL_V1).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MISTRAL_V1_SHA256:
        raise ValueError(f"bpe_course/data/{MISTRAL_V1} has sha256 {digest}, expected "
                         f"{MISTRAL_V1_SHA256}: reinstall the course package")
    return data
