"""WordPiece: each word cut greedily into the longest pieces of the vocabulary, with `##`.

Unlike BPE (chapters 02-09), WordPiece stores no merges and no scores, just a vocabulary.
A word is encoded left to right: take the longest prefix that is in the vocabulary, then
the longest piece of the rest that is in the vocabulary *with* the continuation prefix
`##`, and so on. If at some point no piece fits, the whole word becomes `[UNK]` (not just
the part that failed), and so does a word longer than `max_input_chars_per_word` (100).

`WordPiece` is the whole of BERT's tokenizer as `tokenizers` builds it (`BertNormalizer`,
`BertPreTokenizer`, the `WordPiece` model, no special tokens added): `encode` gives the
same ids, and `encode_with_offsets` the same offsets, character spans of the original text.

>>> vocab = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "!": 4, "aff": 5}
>>> wp = WordPiece(vocab)
>>> wp.tokenize_word("unaffable")
['un', '##aff', '##able']
>>> wp.encode("Unaffable!  Unaffablé")
[1, 2, 3, 4, 1, 2, 3]
>>> wp.encode_with_offsets("UNAFF xyz")
[(1, (0, 2)), (2, (2, 5)), (0, (6, 9))]

Subtle: greedy longest-match-first is not the segmentation with the fewest pieces: with
`a`, `##bc`, `ab`, `##c`, the word `abc` starts with `ab` (the longest), then needs `##c`;
if `##c` were missing, the word would be `[UNK]` although `a ##bc` spells it.
"""

from __future__ import annotations

from pathlib import Path

from .normalizer import normalize
from .pretokenizer import pretokenize


class WordPiece:
    """BERT's WordPiece tokenizer over a vocabulary `{piece: id}`, equal to `tokenizers`."""

    def __init__(self, vocab: dict[str, int], unk_token: str = "[UNK]",
                 continuing_subword_prefix: str = "##", max_input_chars_per_word: int = 100,
                 lowercase: bool = True, strip_accents: bool | None = None,
                 clean_text: bool = True, handle_chinese_chars: bool = True):
        if not isinstance(vocab, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                for k, v in vocab.items()):
            raise TypeError("vocab must be a dict {piece (str): id (int)}")
        if unk_token not in vocab:
            raise ValueError(f"the vocabulary has no unknown token {unk_token!r}; "
                             "add it or pass unk_token=")
        if not isinstance(max_input_chars_per_word, int) or max_input_chars_per_word < 0:
            raise ValueError("max_input_chars_per_word must be an int >= 0")
        self.vocab = dict(vocab)
        self.inverse = {i: piece for piece, i in vocab.items()}
        self.unk_token, self.prefix = unk_token, continuing_subword_prefix
        self.max_chars = max_input_chars_per_word
        self.options = dict(lowercase=lowercase, strip_accents=strip_accents,
                            clean_text=clean_text, handle_chinese_chars=handle_chinese_chars)

    @classmethod
    def from_vocab_file(cls, path: str | Path, **options) -> "WordPiece":
        """Load BERT's `vocab.txt`: one piece per line, its id the line's number."""
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        vocab: dict[str, int] = {}
        for i, line in enumerate(lines):
            vocab.setdefault(line.rstrip("\r"), i)
        return cls(vocab, **options)

    def tokenize_word(self, word: str) -> list[str]:
        """The pieces of one word: greedy longest-match-first, or `[unk_token]`."""
        return [piece for piece, _, _ in self._pieces(word)]

    def _pieces(self, word: str) -> list[tuple[str, int, int]]:
        """`(piece, start, end)` for one word, offsets in characters of the word."""
        if len(word) > self.max_chars:
            return [(self.unk_token, 0, len(word))]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:                   # shrink from the right until a piece fits
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            else:
                return [(self.unk_token, 0, len(word))]   # the whole word is unknown
            pieces.append((piece, start, end))
            start = end
        return pieces

    def encode_with_offsets(self, text: str) -> list[tuple[int, tuple[int, int]]]:
        """`(id, (start, end))` for each token, offsets in characters of `text`."""
        normalized, origins = normalize(text, **self.options)
        out = []
        for word, word_start, _ in pretokenize(normalized):
            for piece, start, end in self._pieces(word):
                first, last = origins[word_start + start], origins[word_start + end - 1]
                out.append((self.vocab[piece], (first, last + 1)))
        return out

    def encode(self, text: str) -> list[int]:
        """The ids of `text`, equal to `tokenizers`' `encode(text).ids`."""
        return [i for i, _ in self.encode_with_offsets(text)]

    def decode(self, ids: list[int], cleanup: bool = True) -> str:
        """The text of `ids` as `tokenizers`' WordPiece decoder writes it: a `##` piece glued
        to the one before, others after a space; with `cleanup`, the spaces before `.`, `?`,
        `!`, `,` and English contractions are taken out again, piece by piece."""
        out = []
        for n, i in enumerate(ids):
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"an id is an int, not {type(i).__name__}")
            if i not in self.inverse:
                raise ValueError(f"id {i} is not in the vocabulary")
            piece = self.inverse[i]
            if n:
                piece = piece[len(self.prefix):] if piece.startswith(self.prefix) else " " + piece
            if cleanup:
                for dirty, clean in CLEANUP:
                    piece = piece.replace(dirty, clean)
            out.append(piece)
        return "".join(out)


# the decoder's cleanup, in the order `tokenizers` applies it
CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
           (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))
