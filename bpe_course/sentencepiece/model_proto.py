"""Reading (and writing) a SentencePiece `.model` file, with no protobuf library.

A `.model` file is one protobuf message, `ModelProto` (defined in SentencePiece's
`sentencepiece_model.proto`). Protobuf's wire format is simple enough to read by hand:
the message is a run of fields, each a *key* followed by a value. The key is a varint
(7 bits per byte, low bits first, high bit set on every byte but the last) holding
`field_number << 3 | wire_type`; the wire type says how long the value is:

- 0: a varint (ints, bools, enums); negative int32s take ten bytes,
- 1: eight bytes (a double), 5: four bytes (a float, little-endian),
- 2: a varint length, then that many bytes (strings, bytes, nested messages).

We keep only the fields the BPE encoder needs and skip every other field, as
protobuf itself does with fields it does not know:

- `ModelProto`: 1 `pieces` (repeated), 2 `trainer_spec`, 3 `normalizer_spec`,
  5 `denormalizer_spec`;
- `SentencePiece`: 1 `piece`, 2 `score` (float), 3 `type` (1 normal, 2 unknown,
  3 control, 4 user-defined, 5 unused, 6 byte);
- `TrainerSpec` and `NormalizerSpec`: the settings named in `TRAINER` and `NORMALIZER`.

A field that is absent takes the default the `.proto` file declares, so those defaults
are written out below. `write_model` does the reverse for the same fields, so a
vocabulary trained in pure Python can be loaded by the `sentencepiece` library too.

>>> m = read_model(write_model([("<unk>", 0.0, UNKNOWN), ("▁a", -1.0, NORMAL)],
...                            trainer={"model_type": 2}))
>>> m.pieces[1], m.trainer["byte_fallback"], m.normalizer["add_dummy_prefix"]
(('▁a', -1.0, 1), False, True)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE = 1, 2
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

# field number -> (name, kind, default), from sentencepiece_model.proto
TRAINER = {
    3: ("model_type", "int", UNIGRAM), 4: ("vocab_size", "int", 8000),
    10: ("character_coverage", "float", 0.9995), 11: ("input_sentence_size", "int", 0),
    18: ("max_sentence_length", "int", 4192), 20: ("max_sentencepiece_length", "int", 16),
    21: ("split_by_unicode_script", "bool", True), 22: ("split_by_whitespace", "bool", True),
    23: ("split_by_number", "bool", True), 24: ("treat_whitespace_as_suffix", "bool", False),
    25: ("split_digits", "bool", False), 26: ("allow_whitespace_only_pieces", "bool", False),
    35: ("byte_fallback", "bool", False), 40: ("unk_id", "int", 0), 41: ("bos_id", "int", 1),
    42: ("eos_id", "int", 2), 43: ("pad_id", "int", -1), 44: ("unk_surface", "str", " \u2047 "),
}
NORMALIZER = {
    1: ("name", "str", ""), 2: ("precompiled_charsmap", "bytes", b""),
    3: ("add_dummy_prefix", "bool", True), 4: ("remove_extra_whitespaces", "bool", True),
    5: ("escape_whitespaces", "bool", True),
}


@dataclass
class SpmModel:
    """What a `.model` file says: pieces `(piece, score, type)` by id, and the settings."""
    pieces: list[tuple[str, float, int]]
    trainer: dict
    normalizer: dict
    denormalizer: dict | None = None     # rules applied after decoding, rarely set


def with_defaults(values: dict, schema: dict) -> dict:
    """`values` completed with the defaults of `schema` (`TRAINER` or `NORMALIZER`)."""
    settings = {name: default for name, _, default in schema.values()}
    unknown = set(values) - set(settings)
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(settings)}")
    return settings | values


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated .model file: a number runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("malformed .model file: a number is longer than 10 bytes")


def fields(data: bytes):
    """Yield `(field_number, wire_type, value)` for each field of one protobuf message.

    >>> list(fields(bytes([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69])))
    [(1, 0, 150), (2, 2, b'hi')]
    """
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("malformed .model file: field number 0 is not allowed")
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = data[pos:pos + size], pos + size
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"malformed .model file: wire type {wire} (field {number}) "
                             "is not used by SentencePiece")
        if pos > len(data):
            raise ValueError("truncated .model file: a field runs past the end")
        yield number, wire, value


def _convert(value, wire: int, kind: str, name: str):
    expected = {"int": 0, "bool": 0, "float": 5, "str": 2, "bytes": 2}[kind]
    if wire != expected:
        raise ValueError(f"malformed .model file: {name} has wire type {wire}, not {expected}")
    if kind == "int":
        return value - (1 << 64) if value >= 1 << 63 else value   # int32 -1 is 2**64 - 1
    if kind == "bool":
        return bool(value)
    if kind == "float":
        return struct.unpack("<f", value)[0]
    if kind == "str":
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"malformed .model file: {name} is not UTF-8") from None
    return value


def _settings(data: bytes, schema: dict) -> dict:
    settings = {name: default for name, _, default in schema.values()}
    for number, wire, value in fields(data):
        if number in schema:
            name, kind, _ = schema[number]
            settings[name] = _convert(value, wire, kind, name)
    return settings


def _piece(data: bytes) -> tuple[str, float, int]:
    piece = _settings(data, {1: ("piece", "str", ""), 2: ("score", "float", 0.0),
                             3: ("type", "int", NORMAL)})
    if not piece["piece"]:
        raise ValueError("malformed .model file: a piece is empty")
    if piece["type"] not in range(1, 7):
        raise ValueError(f"malformed .model file: piece {piece['piece']!r} has unknown "
                         f"type {piece['type']}")
    return piece["piece"], piece["score"], piece["type"]


def read_model(data: bytes) -> SpmModel:
    """Parse the bytes of a `.model` file. Raises ValueError if they are not one."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"read_model expects the file's bytes, got {type(data).__name__}")
    pieces, trainer, normalizer, denormalizer = [], None, b"", None
    for number, wire, value in fields(bytes(data)):
        if number in (1, 2, 3, 5) and wire != 2:
            raise ValueError(f"malformed .model file: field {number} is not a message")
        if number == 1:
            pieces.append(_piece(value))
        elif number == 2:
            trainer = value
        elif number == 3:
            normalizer = value
        elif number == 5:
            denormalizer = _settings(value, NORMALIZER)
    if not pieces or trainer is None:
        raise ValueError("not a SentencePiece model (or a truncated one): the file has "
                         + ("no pieces" if not pieces else "no trainer settings"))
    return SpmModel(pieces, _settings(trainer, TRAINER), _settings(normalizer, NORMALIZER),
                    denormalizer)


def _key(number: int, wire: int) -> bytes:
    return _encode_varint(number << 3 | wire)


def _encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1                     # negative ints as two's complement
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _message(values: dict, schema: dict) -> bytes:
    out = bytearray()
    for number, (name, kind, _) in sorted(schema.items()):
        if name not in values:
            continue
        value = values[name]
        if kind in ("int", "bool"):
            out += _key(number, 0) + _encode_varint(int(value))
        elif kind == "float":
            out += _key(number, 5) + struct.pack("<f", value)
        else:
            raw = value.encode("utf-8") if kind == "str" else bytes(value)
            out += _key(number, 2) + _encode_varint(len(raw)) + raw
    return bytes(out)


def write_model(pieces: list[tuple[str, float, int]], trainer: dict | None = None,
                normalizer: dict | None = None) -> bytes:
    """The bytes of a `.model` file with these pieces and settings (unset ones: defaults)."""
    out = bytearray()
    for piece, score, kind in pieces:
        body = _message({"piece": piece, "score": score, "type": kind},
                        {1: ("piece", "str", ""), 2: ("score", "float", 0.0),
                         3: ("type", "int", NORMAL)})
        out += _key(1, 2) + _encode_varint(len(body)) + body
    for number, values, schema in ((2, trainer or {}, TRAINER), (3, normalizer or {}, NORMALIZER)):
        body = _message(values, schema)
        out += _key(number, 2) + _encode_varint(len(body)) + body
    return bytes(out)
