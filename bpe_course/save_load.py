"""Saving and loading a tokenizer: the course's plain-text model file (never pickle).

`save("name")` writes two files:

- `name.model`, to load back. Plain text, one fact per line, so it can be
  read, diffed and checked line by line:

      bpe-course tokenizer v1
      pattern "'(?i:[sdmt]|ll|ve|re)|..."      (JSON string, or null for BasicTokenizer)
      special_tokens 1
      "<|endoftext|>" 100257
      merges 2
      32 116 256                                (left id, right id, new id)
      256 104 257                               (in the order learned)

  A tokenizer whose single bytes do not have ids 0..255 (GPT-4's) also has a
  `byte_ids` line with the 256 ids after `pattern`. Merges whose new ids do
  not increase down the file (a vocabulary numbered by someone else) are
  ranked by their place in the file, not by their ids. A tokenizer with
  unreachable tokens (vocab entries that no merge makes and that are not
  special, see `base`) ends with them, one `id hex-of-bytes` line each:

      unreachable_tokens 1
      50256 3c7c656e646f66746578747c3e          (b"<|endoftext|>")

  Hex, because such an entry may be any bytes, not only UTF-8 text. Files
  without them are written exactly as before, so every older file still loads.
- `name.vocab`, to read: one line per token, showing how it was merged:
  `[ t][h] -> [ th] 257`.

Why not pickle? Loading a pickle runs whatever code the file says, so a
downloaded model file could take over your machine. A text format can only
ever give numbers and strings, and it survives refactoring of the classes.

`load` checks everything and raises ValueError with the line number for a
malformed, truncated or wrong-version file.

This module knows the format only; `Tokenizer.save` and `Tokenizer.load` call
it, and `files.course_files.load` picks the right class for a file.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import regex

MAGIC = "bpe-course tokenizer v1"


# -- writing -------------------------------------------------------------------

def render_token(token: bytes) -> str:
    """Show token bytes readably: UTF-8 where possible, control characters escaped.

    >>> render_token(b"hello\\n")
    'hello\\\\u000a'
    >>> render_token(b"\\xe2\\x82")       # half of a character
    '\\\\xe2\\\\x82'
    """
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"\\x{b:02x}" for b in token)
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch)[0] == "C" else ch
                   for ch in text)


def model_lines(tok) -> list[str]:
    lines = [MAGIC, "pattern " + json.dumps(tok.pattern)]
    if tok.byte_ids != list(range(256)):
        lines.append("byte_ids " + " ".join(map(str, tok.byte_ids)))
    lines.append(f"special_tokens {len(tok.special_tokens)}")
    for token, idx in sorted(tok.special_tokens.items(), key=lambda item: item[1]):
        lines.append(f"{json.dumps(token)} {idx}")
    merges = tok.merge_items()
    lines.append(f"merges {len(merges)}")
    lines.extend(f"{a} {b} {idx}" for (a, b), idx in merges)
    unreachable = getattr(tok, "unreachable_tokens", {})
    if unreachable:                     # optional, last: older files do not have it
        lines.append(f"unreachable_tokens {len(unreachable)}")
        lines.extend(f"{idx} {token.hex()}" for idx, token in sorted(unreachable.items()))
    return lines


def vocab_lines(tok) -> list[str]:
    vocab = tok.vocab
    lines = [f"# {len(vocab)} tokens. Bytes: [token] id. Merges: [left][right] -> [token] id"]
    for b, idx in enumerate(tok.byte_ids):
        lines.append(f"[{render_token(bytes([b]))}] {idx}")
    for (a, b), idx in tok.merge_items():
        lines.append(f"[{render_token(vocab[a])}][{render_token(vocab[b])}] -> "
                     f"[{render_token(vocab[idx])}] {idx}")
    for idx, token in sorted(getattr(tok, "unreachable_tokens", {}).items()):
        lines.append(f"[{render_token(token)}] {idx} unreachable")
    for token, idx in sorted(tok.special_tokens.items(), key=lambda item: item[1]):
        lines.append(f"[{render_token(token.encode('utf-8'))}] {idx} special")
    return lines


def save_model(tok, file_prefix: str | os.PathLike) -> None:
    prefix = str(file_prefix)
    Path(prefix + ".model").write_text("\n".join(model_lines(tok)) + "\n", encoding="utf-8")
    Path(prefix + ".vocab").write_text("\n".join(vocab_lines(tok)) + "\n", encoding="utf-8")


# -- reading -------------------------------------------------------------------

class _Lines:
    """The lines of a model file, handed out one at a time with their numbers."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not a bpe-course model file (not UTF-8 text)") from None
        self.i = 0

    def error(self, message: str) -> ValueError:
        return ValueError(f"{self.path}, line {self.i}: {message}")

    def next(self, what: str) -> str:
        if self.i >= len(self.lines):
            self.i += 1
            raise self.error(f"file ends early, expected {what} (truncated file?)")
        self.i += 1
        return self.lines[self.i - 1]

    def header(self, key: str) -> str:
        line = self.next(f"a '{key} ...' line")
        name, _, value = line.partition(" ")
        if name != key:
            raise self.error(f"expected a '{key} ...' line, got {line[:60]!r}")
        return value

    def ints(self, line: str, n: int | None = None) -> list[int]:
        try:
            values = [int(x) for x in line.split()]
        except ValueError:
            raise self.error(f"expected integers, got {line[:60]!r}") from None
        if n is not None and len(values) != n:
            raise self.error(f"expected {n} integers, got {len(values)}")
        if any(v < 0 for v in values):
            raise self.error("ids cannot be negative")
        return values


def read_model(model_file: str | os.PathLike) -> dict:
    """Parse and check a `.model` file; return its pattern, byte ids, special tokens, merges."""
    path = Path(model_file)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    lines = _Lines(path)
    first = lines.next("the version line")
    if first != MAGIC:
        if first.startswith("bpe-course tokenizer v"):
            raise lines.error(f"unsupported version {first!r}; this bpe-course reads {MAGIC!r}")
        raise lines.error(f"not a bpe-course model file: the first line must be {MAGIC!r}")

    value = lines.header("pattern")
    try:
        pattern = json.loads(value)
    except json.JSONDecodeError:
        raise lines.error("the pattern must be a JSON string or null") from None
    if pattern is not None and not isinstance(pattern, str):
        raise lines.error("the pattern must be a JSON string or null")
    if pattern is not None:
        try:
            regex.compile(pattern)
        except regex.error as e:
            raise lines.error(f"the pattern is not a valid regular expression ({e})") from None

    byte_ids = list(range(256))
    if lines.i < len(lines.lines) and lines.lines[lines.i].startswith("byte_ids "):
        byte_ids = lines.ints(lines.header("byte_ids"), 256)
        if len(set(byte_ids)) != 256:
            raise lines.error("byte_ids must be 256 distinct ids")
    known = set(byte_ids)

    special_tokens = {}
    for _ in range(lines.ints(lines.header("special_tokens"), 1)[0]):
        line = lines.next("a special token line")
        try:
            token, end = json.JSONDecoder().raw_decode(line)
        except json.JSONDecodeError:
            raise lines.error(f"expected '\"token\" id', got {line[:60]!r}") from None
        if not isinstance(token, str) or not token or token in special_tokens:
            raise lines.error(f"bad or repeated special token {token!r}")
        special_tokens[token] = lines.ints(line[end:], 1)[0]

    merges = {}
    for _ in range(lines.ints(lines.header("merges"), 1)[0]):
        a, b, idx = lines.ints(lines.next("a merge line 'left right new'"), 3)
        if a not in known or b not in known:
            raise lines.error(f"merge ({a}, {b}) uses an id that is not defined before it")
        if idx in known or (a, b) in merges:
            raise lines.error(f"merge ({a}, {b}) -> {idx} repeats an id or a pair")
        merges[a, b] = idx
        known.add(idx)
    for token, idx in special_tokens.items():
        if idx in known:
            raise ValueError(f"{path}: special token {token!r} has id {idx}, "
                             f"which is also a byte or merge id")
    unreachable = _read_unreachable(lines, known | set(special_tokens.values()),
                                    byte_ids, merges)
    if any(line.strip() for line in lines.lines[lines.i:]):
        lines.i += 1
        raise lines.error("unexpected text after the last merge")
    new_ids = list(merges.values())
    return {"pattern": pattern, "byte_ids": byte_ids, "special_tokens": special_tokens,
            "merges": merges, "ids_are_ranks": new_ids == sorted(new_ids),
            "unreachable_tokens": unreachable}


def _read_unreachable(lines: _Lines, taken: set[int], byte_ids: list[int],
                      merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    """The optional last section: `unreachable_tokens N`, then N lines `id hex-of-bytes`."""
    rest = [line for line in lines.lines[lines.i:] if line.strip()]
    if not rest or not rest[0].startswith("unreachable_tokens "):
        return {}
    while not lines.lines[lines.i].strip():
        lines.i += 1
    # The bytes that bytes and merges make: an unreachable token must be none of them.
    made = {idx: bytes([b]) for b, idx in enumerate(byte_ids)}
    for (a, b), idx in merges.items():
        made[idx] = made[a] + made[b]
    made_bytes = set(made.values())
    unreachable: dict[int, bytes] = {}
    for _ in range(lines.ints(lines.header("unreachable_tokens"), 1)[0]):
        line = lines.next("an unreachable token line 'id hex'")
        idx_text, _, hex_text = line.partition(" ")
        idx = lines.ints(idx_text, 1)[0]
        try:
            token = bytes.fromhex(hex_text)
        except ValueError:
            raise lines.error(f"expected 'id hex-of-bytes', got {line[:60]!r}") from None
        if not token or idx in taken or idx in unreachable:
            raise lines.error(f"unreachable token {idx} is empty or repeats an id")
        if token in made_bytes or token in unreachable.values():
            raise lines.error(f"unreachable token {idx} = {token!r} is also a byte, "
                              f"a merge's result or another unreachable token")
        unreachable[idx] = token
    return unreachable


def load_model_into(tok, model_file: str | os.PathLike) -> None:
    """Fill `tok` from a model file (see `read_model`), checking it suits its class."""
    state = read_model(model_file)
    kind = type(tok).__name__
    if state["pattern"] is None and hasattr(tok, "compiled_pattern"):
        raise ValueError(f"{model_file} was saved by a BasicTokenizer (no split "
                         f"pattern); load it with BasicTokenizer, not {kind}")
    if state["pattern"] is not None and not hasattr(tok, "compiled_pattern"):
        raise ValueError(f"{model_file} has a split pattern; load it with "
                         f"RegexTokenizer, not {kind}")
    if state["special_tokens"] and not hasattr(tok, "register_special_tokens"):
        raise ValueError(f"{model_file} has special tokens; load it with RegexTokenizer")
    tok.pattern = state["pattern"]
    tok.byte_ids = state["byte_ids"]
    tok.ids_are_ranks = state["ids_are_ranks"]
    tok.merges = state["merges"]
    tok.special_tokens = state["special_tokens"]
    tok.unreachable_tokens = state["unreachable_tokens"]
    tok.vocab = tok._build_vocab()
