"""Decoders: from tokens back to text, undoing what the earlier steps wrote.

A decoder takes the tokens (strings) and returns tokens; the last one's are joined. Each
undoes one convention:

- `ByteLevel`: GPT-2's printable characters back to bytes, then UTF-8 (bad bytes "�");
- `WordPiece`: "##ing" glued to the piece before, others after a space (and `cleanup`:
  " ." back to ".", " n't" to "n't", ...);
- `Metaspace`: "▁" back to a space (the first token's dropped when one was prepended);
- `BPEDecoder`: the end-of-word suffix ("</w>") becomes a space (nothing at the end);
- `ByteFallback`: runs of `<0xE2><0x82><0xAC>` back to their UTF-8 text ("€");
- `CTC`: a speech model's output: repeats collapsed, the pad token dropped, the word
  delimiter a space;
- `Fuse` (all into one), `Strip` (n copies of a character off each end),
  `Replace` (a pattern by a string), and `Sequence`.

>>> Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)])(
...     ["▁Hello", "▁", "<0xE2>", "<0x82>", "<0xAC>"])
['Hello €']
"""

from __future__ import annotations

from ..openai.byte_map import CHAR_TO_BYTE
from ..wordpiece.tokenizer import CLEANUP


class ByteLevel:
    def __call__(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        for token in tokens:
            if all(c in CHAR_TO_BYTE for c in token):
                data.extend(CHAR_TO_BYTE[c] for c in token)
            else:                        # not written with the byte map: its own UTF-8
                data.extend(token.encode("utf-8"))
        return [data.decode("utf-8", errors="replace")]


def cleanup(text: str) -> str:
    for dirty, clean in CLEANUP:
        text = text.replace(dirty, clean)
    return text


class WordPiece:
    def __init__(self, prefix: str = "##", cleanup: bool = True):
        self.prefix, self.cleanup = prefix, cleanup

    def __call__(self, tokens):
        out = []
        for n, token in enumerate(tokens):
            if n:
                token = (token.replace(self.prefix, "", 1) if token.startswith(self.prefix)
                         else " " + token)
            out.append(cleanup(token) if self.cleanup else token)
        return out


class Metaspace:
    def __init__(self, replacement="▁", prepend_scheme="always"):
        self.replacement, self.prepend_scheme = replacement, prepend_scheme

    def __call__(self, tokens):
        out = []
        for n, token in enumerate(tokens):
            space = "" if n == 0 and self.prepend_scheme != "never" else " "
            out.append(token.replace(self.replacement, space))
        return out


class BPEDecoder:
    def __init__(self, suffix: str = "</w>"):
        self.suffix = suffix

    def __call__(self, tokens):
        return [t.replace(self.suffix, "" if n == len(tokens) - 1 else " ")
                for n, t in enumerate(tokens)]


class ByteFallback:
    def __call__(self, tokens):
        out, pending = [], bytearray()

        def flush():
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:          # one "�" for each byte
                    out.extend("\ufffd" for _ in pending)
                pending.clear()

        for token in tokens:
            if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
                try:
                    pending.append(int(token[3:5], 16))
                    continue
                except ValueError:
                    pass
            flush()
            out.append(token)
        flush()
        return out


class CTC:
    def __init__(self, pad_token="<pad>", word_delimiter_token="|", cleanup=True):
        self.pad, self.delimiter, self.cleanup = pad_token, word_delimiter_token, cleanup

    def __call__(self, tokens):
        out = []
        for n, token in enumerate(tokens):
            if n and token == tokens[n - 1]:        # repeats collapse into one
                continue
            token = token.replace(self.pad, "")
            if self.cleanup:
                token = cleanup(token).replace(self.delimiter, " ")
            if token:
                out.append(token)
        return out


class Fuse:
    def __call__(self, tokens):
        return ["".join(tokens)]


class Strip:
    """Up to `start` copies of `content` off each token's front, `stop` off its end."""

    def __init__(self, content: str, start: int, stop: int):
        self.content, self.start, self.stop = content, start, stop

    def __call__(self, tokens):
        out = []
        for token in tokens:
            begin = 0
            while begin < min(self.start, len(token)) and token[begin] == self.content:
                begin += 1
            end = len(token)
            for _ in range(self.stop):
                if end > begin and token[end - 1] == self.content:
                    end -= 1
                else:
                    break
            out.append(token[begin:end])
        return out


class Replace:
    """Each match of `pattern` (a literal string, or a compiled regex) by `content`."""

    def __init__(self, pattern, content: str):
        self.pattern, self.content = pattern, content

    def __call__(self, tokens):
        if isinstance(self.pattern, str):
            return [t.replace(self.pattern, self.content) for t in tokens]
        return [self.pattern.sub(self.content.replace("\\", "\\\\"), t) for t in tokens]


class Sequence:
    def __init__(self, steps: list):
        self.steps = steps

    def __call__(self, tokens):
        for step in self.steps:
            tokens = step(tokens)
        return tokens
