"""SentencePiece's normalization, exactly: the rule table in a `.model` file, and the space rules.

Before it splits a text into pieces, SentencePiece rewrites it. The tokenizer chapter's
`SentencePieceBPE` did the space part only (the `identity` rule of Llama 2 and Mistral);
a model trained with `spm_train`'s defaults (`normalization_rule_name="nmt_nfkc"`) also
rewrites characters: full-width letters become ASCII (`Ａ` -> `A`), ligatures split
(`ﬁ` -> `fi`), compatibility forms fold (`①` -> `1`), most control characters vanish and
other spaces (tab, newline, U+3000) become a plain space. `nmt_nfkc_cf` also folds case.

The rules are not computed from Unicode tables when the model is used: `spm_train` compiled
them into the model's `normalizer_spec.precompiled_charsmap`, so a model normalizes the
same way on every machine and every Unicode version. That blob is

    <trie size: uint32, little-endian> <double-array trie> <replacements, each ending in NUL>

The trie (a Darts-clone double array) maps the UTF-8 bytes of every source string to the
offset of its replacement in the second part. Normalizing walks the text left to right:
at each position, the **longest** source string that starts there is replaced; where none
starts, one character is copied as it is. A user-defined piece of the model (a word the
model must keep whole) is matched first and copied verbatim, not normalized.

Then the space rules, all on the rewritten text:

- `remove_extra_whitespaces`: drop leading spaces, keep one of a run, drop trailing ones;
- `add_dummy_prefix`: put one space in front (so `world` and `hello world` both hold
  `▁world`); it is added *before* the space rules run, as a space that "came before" the
  text, so a text of spaces alone normalizes to nothing;
- `escape_whitespaces`: write each space as `▁` (U+2581).

>>> spec = {"name": "identity", "precompiled_charsmap": b"", "add_dummy_prefix": True,
...         "remove_extra_whitespaces": True, "escape_whitespaces": True}
>>> Normalizer(spec).normalize("  Hello   world ")
'▁Hello▁world'
>>> Normalizer(spec | {"remove_extra_whitespaces": False}).normalize(" a  b")
'▁▁a▁▁b'

With a rule table (`nmt_nfkc` from a trained model; see the tests), `"ﬁ  Ａ"` becomes
`'▁fi▁A'`.

A malformed table is a ValueError here, where the library (0.2.3) checks the trie when it
loads the model and quietly normalizes nothing if it is broken.

Subtle: the library matches rules on *bytes*, and a rule's replacement may be empty (a
removed control character) or hold spaces (a tab becomes one), so the space rules must run
after the rewrite, piece by piece, exactly as `normalizer.cc` orders them: a piece's leading
spaces are dropped when the text so far ends with a space.
"""

from __future__ import annotations

import struct

SPACE = "\u2581"        # ▁, SentencePiece's meta symbol for a space
MAX_MATCHES = 32        # rules that can match at one position, as the library reads them


class CharsMap:
    """The compiled rule table of a `.model` file: a double-array trie plus replacements.

    A double array stores a trie in one array of 32-bit units. From the unit of a node,
    the child reached by byte `b` sits at `position ^ offset ^ b`, and it is the right child
    only if its unit's label is `b`; a node where a key ends has a leaf child (label 0)
    whose unit holds the key's value, here the offset of the replacement.
    """

    def __init__(self, blob: bytes):
        if not isinstance(blob, (bytes, bytearray)):
            raise TypeError(f"a charsmap is bytes, not {type(blob).__name__}")
        if len(blob) <= 4:
            raise ValueError("malformed precompiled_charsmap: shorter than its size field "
                             "(the library says: 'Blob for normalization rule is broken')")
        (trie_size,) = struct.unpack_from("<I", blob, 0)
        if trie_size >= len(blob) or trie_size % 4:
            raise ValueError(f"malformed precompiled_charsmap: its trie claims {trie_size} "
                             f"bytes of a {len(blob)}-byte blob")
        self.units = struct.unpack_from(f"<{trie_size // 4}I", blob, 4)
        self.replacements = bytes(blob[4 + trie_size:])
        if not self.units:
            raise ValueError("malformed precompiled_charsmap: the trie is empty")

    def longest_match(self, data: bytes, pos: int) -> tuple[int, bytes]:
        """`(length, replacement)` of the longest rule whose source starts at `data[pos:]`,
        or `(0, b"")` when none does (`commonPrefixSearch` of Darts-clone, keeping the
        longest of its results as `NormalizePrefix` does)."""
        units = self.units
        try:
            unit = units[0]
            node = _offset(unit)
            length, value, found = 0, 0, 0
            for i in range(pos, len(data)):
                byte = data[i]
                node ^= byte
                unit = units[node]
                if unit & 0x800000FF != byte:      # label(): a leaf's has bit 31 set
                    break
                node ^= _offset(unit)
                if unit >> 8 & 1:                  # has_leaf(): a key ends here
                    found += 1
                    if found <= MAX_MATCHES:       # the library keeps the first 32 matches
                        length, value = i + 1 - pos, units[node] & 0x7FFFFFFF
        except IndexError:
            raise ValueError("malformed precompiled_charsmap: the trie points outside "
                             "itself") from None
        if not length:
            return 0, b""
        end = self.replacements.find(b"\0", value)
        if end < 0:
            raise ValueError("malformed precompiled_charsmap: a replacement has no NUL end")
        return length, self.replacements[value:end]


def _offset(unit: int) -> int:
    """Darts-clone's `offset()`: 21 bits, shifted left by 8 more when bit 9 is set."""
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


class Normalizer:
    """SentencePiece's `Normalizer`: `normalize(text)` gives the text the model segments.

    `spec` is a `.model` file's `normalizer_spec` (as `read_model` returns it);
    `user_defined` are the model's user-defined pieces, which pass through unchanged.
    """

    def __init__(self, spec: dict, treat_whitespace_as_suffix: bool = False,
                 user_defined: tuple[str, ...] | list[str] = ()):
        if not isinstance(spec, dict):
            raise TypeError(f"spec is the normalizer_spec as a dict, not {type(spec).__name__}")
        missing = {"precompiled_charsmap", "add_dummy_prefix", "remove_extra_whitespaces",
                   "escape_whitespaces"} - set(spec)
        if missing:
            raise ValueError(f"the normalizer spec lacks {sorted(missing)}")
        self.spec = spec
        blob = spec["precompiled_charsmap"]
        self.charsmap = CharsMap(blob) if blob else None
        self.suffix = treat_whitespace_as_suffix
        self.user_defined = {s.encode("utf-8") for s in user_defined}
        self.user_lengths = sorted({len(s) for s in self.user_defined}, reverse=True)

    def normalize_prefix(self, data: bytes, pos: int) -> tuple[bytes, int]:
        """The normalized form of what starts at `data[pos:]`, and how many bytes it used:
        a user-defined piece as it is, else the longest rule, else one character as it is."""
        for size in self.user_lengths:
            if data[pos:pos + size] in self.user_defined:
                return data[pos:pos + size], size
        if self.charsmap is not None:
            size, replacement = self.charsmap.longest_match(data, pos)
            if size:
                return replacement, size
        lead = data[pos]
        size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        return data[pos:pos + size], size

    def normalize(self, text: str) -> str:
        """`text` as the model sees it: rules applied, spaces handled, `▁` for space."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        if any("\ud800" <= c <= "\udfff" for c in text):
            raise ValueError("the text contains a lone surrogate, which is not a character "
                             "and has no UTF-8 form (the sentencepiece library refuses it too)")
        spec = self.spec
        squeeze, escape = spec["remove_extra_whitespaces"], spec["escape_whitespaces"]
        data, pos = text.encode("utf-8"), 0
        if squeeze:                                # leading spaces (after the rules) go
            while pos < len(data):
                piece, size = self.normalize_prefix(data, pos)
                if piece != b" ":
                    break
                pos += size
        if pos == len(data):
            return ""
        space = SPACE.encode("utf-8") if escape else b" "
        out = bytearray()
        if spec["add_dummy_prefix"] and not self.suffix:
            out += space
        prev_space = squeeze           # the dummy prefix, or "nothing yet", counts as a space
        while pos < len(data):
            piece, size = self.normalize_prefix(data, pos)
            if prev_space:
                piece = piece.lstrip(b" ")
            if piece:
                out += piece.replace(b" ", space) if escape else piece
                prev_space = piece.endswith(b" ")
            pos += size
            if not squeeze:
                prev_space = False
        if squeeze:
            while out.endswith(space):
                del out[-len(space):]
        if spec["add_dummy_prefix"] and self.suffix:
            out += space
        return out.decode("utf-8")
