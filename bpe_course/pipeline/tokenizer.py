"""The pipeline run: added tokens, then normalizer -> pre-tokenizer -> model -> post-processor.

`Pipeline.encode_with_offsets(text)` runs the six steps as `tokenizers` does:

1. **added tokens** are found first: those marked `normalized: false` in the original
   text, the others in the normalized text; the text between them goes on;
2. the **normalizer** changes each remaining piece (`normalizers`);
3. the **pre-tokenizer** cuts it into words (`pretokenizers`);
4. the **model** cuts each word into tokens (`models`; a BPE with `dropout` samples its
   cuts, from the `rng=` that `encode` takes);
5. the **post-processor** adds special tokens around them (`processors`);
6. **truncation** and **padding**, when the file asks for them, cut the tokens to a
   maximum length and pad them to a fixed one, as a model's batches need (`Truncation`,
   `Padding`; `no_truncation()` and `no_padding()` turn them off, as in `tokenizers`).

Every token carries its span in the ORIGINAL text (`normalized`), which is what
`tokenizers`' `offsets` are. `decode(ids)` maps ids to tokens (special added tokens left
out) and runs the **decoder** (`decoders`).

>>> from .models import WordLevel
>>> from .pretokenizers import WhitespaceSplit
>>> from .normalizers import Lowercase
>>> tok = Pipeline(WordLevel({"hello": 0, "world": 1, "<unk>": 2}), Lowercase(),
...                WhitespaceSplit(), added_tokens=[AddedToken("<sep>", 3, special=True)])
>>> tok.encode_with_offsets("Hello<sep> WORLD!")
Encoding(ids=[0, 3, 2], tokens=['hello', '<sep>', '<unk>'], offsets=[(0, 5), (5, 10), (11, 17)])
>>> tok.decode([0, 3, 1]), tok.decode([0, 3, 1], skip_special_tokens=False)
('hello world', 'hello <sep> world')
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import regex

from ..dropout import check_dropout
from .normalized import NormalizedString
from .pretokenizers import Split


@dataclass
class Encoding:
    """What `encode_with_offsets` returns: ids, token strings and character offsets into
    the original text, as `tokenizers`' `Encoding` has them."""
    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]


@dataclass
class Truncation:
    """A file's `truncation`: keep at most `max_length` tokens, special tokens included.
    `direction` "Right" keeps the first ones, "Left" the last ones. For one text,
    `LongestFirst` and `OnlyFirst` both cut it; `OnlySecond` needs a pair of texts. (The
    `stride` only shapes the overflowing pieces, which the course does not return.)"""
    max_length: int
    strategy: str = "LongestFirst"
    direction: str = "Right"
    stride: int = 0


@dataclass
class Padding:
    """A file's `padding`: pad to `length` tokens (`None`: a batch's longest, which for one
    text is its own length), rounded up to a multiple of `pad_to_multiple_of`, with
    `pad_token` (offsets `(0, 0)`), on the right or the left (`direction`)."""
    length: int | None = None
    pad_id: int = 0
    pad_token: str = "[PAD]"
    direction: str = "Right"
    pad_to_multiple_of: int | None = None


@dataclass
class AddedToken:
    """A token of `added_tokens`: found in the text before the model runs (in the original
    text, or with `normalized` in the normalized text); `special` ones are left out when
    decoding; `single_word`, `lstrip`, `rstrip` as `tokenizers`' `AddedToken`."""
    content: str
    id: int
    special: bool = False
    normalized: bool = True
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False


class Pipeline:
    """A tokenizer as a `tokenizer.json` describes it: normalizer, pre-tokenizer, model,
    post-processor and decoder, with added tokens matched before them all."""

    def __init__(self, model, normalizer=None, pre_tokenizer=None, post_processor=None,
                 decoder=None, added_tokens=(), truncation: Truncation | None = None,
                 padding: Padding | None = None):
        self.model, self.normalizer, self.pre_tokenizer = model, normalizer, pre_tokenizer
        self.post_processor, self.decoder = post_processor, decoder
        self.truncation, self.padding = truncation, padding
        self.added_tokens = list(added_tokens)
        self.added_by_id = {t.id: t for t in self.added_tokens}
        raw = {t.content: t for t in self.added_tokens if not t.normalized}
        normal = {}
        # how decoding writes an added token: a normalized one in its normalized form
        self.written = {t.id: t.content for t in self.added_tokens}
        for t in self.added_tokens:        # a normalized token is looked for normalized
            if t.normalized:
                form = t.content
                if normalizer is not None:
                    s = NormalizedString(t.content)
                    normalizer(s)
                    form = s.normalized
                normal[form] = t
                self.written[t.id] = form
        self._raw, self._normal = raw, normal
        self._raw_re, self._normal_re = _alternatives(raw), _alternatives(normal)

    # -- encoding ---------------------------------------------------------------------
    def _split_added(self, splits: list[Split], table, pattern) -> list[Split]:
        """Cut out the added tokens of `table` found by `pattern` (`tokenizers`'
        `find_matches`): the longest at the leftmost place; a `single_word` token only
        between non-word characters; `lstrip`/`rstrip` take the spaces beside it along."""
        if pattern is None:
            return splits
        out = []
        for split in splits:
            if split.tokens is not None:
                out.append(split)
                continue
            s = split.normalized
            text, last = s.normalized, 0
            for m in pattern.finditer(text):
                start, stop = m.span()
                token = table[m.group()]
                if token.single_word and (WORD_END.search(text[:start])
                                          or WORD_START.match(text[stop:])):
                    continue
                if token.lstrip:
                    start = max(SPACES_END.search(text[:start]).start(), last)
                if token.rstrip:
                    stop += SPACES_START.match(text[stop:]).end()
                if last < start:
                    out.append(Split(s.slice(last, start)))
                piece = s.slice(start, stop)
                out.append(Split(piece, [(token.id, piece.normalized,
                                          (0, len(piece.normalized)))]))
                last = stop
            if last < len(text):
                out.append(Split(s.slice(last, len(text))))
        return [split for split in out if split.normalized.normalized]

    def encode_with_offsets(self, text: str, rng: random.Random | None = None) -> Encoding:
        """Ids, tokens and offsets (in characters of `text`), equal to `tokenizers`'
        `encode(text)` with `add_special_tokens=True`.

        A BPE model with `dropout` samples its merges (`models.BPE.merge_all`): a fresh
        draw every call, as the library makes, from `rng` when given (the same seed, the
        same tokens) and from a new unseeded generator otherwise. `model.dropout = None`
        switches it off, as `tok.model.dropout = None` does in `tokenizers`."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        dropout = getattr(self.model, "dropout", None)
        if dropout:                         # one generator for all the words of the text
            rng = check_dropout(dropout, rng)
        splits = self._split_added([Split(NormalizedString(text))], self._raw, self._raw_re)
        for split in splits:
            if split.tokens is None and self.normalizer is not None:
                self.normalizer(split.normalized)
        splits = self._split_added(splits, self._normal, self._normal_re)
        if self.pre_tokenizer is not None:
            splits = self.pre_tokenizer(splits)
        found = []
        for split in splits:
            s = split.normalized
            if split.tokens is not None:
                tokens = split.tokens
            elif dropout:
                tokens = self.model.tokenize(s.normalized, rng=rng)
            else:
                tokens = self.model.tokenize(s.normalized)
            found.extend((i, token, s.original_span(a, b)) for i, token, (a, b) in tokens)
        if self.truncation is not None:
            found = self._truncate(found)
        if self.post_processor is not None:
            found = self.post_processor(found)
        if self.padding is not None:
            found = self._pad(found)
        return Encoding([i for i, _, _ in found], [t for _, t, _ in found],
                        [span for _, _, span in found])

    def _truncate(self, found: list) -> list:
        """Cut the model's tokens so that, with the special tokens the post-processor will
        add, there are at most `max_length` (`tokenizers`' `post_process`)."""
        trunc = self.truncation
        if trunc.strategy == "OnlySecond":
            raise ValueError("this tokenizer truncates only the second of a pair of texts "
                             "(strategy OnlySecond), and encode takes one text")
        # how many tokens the post-processor adds: what it makes of no tokens at all
        added = len(self.post_processor([])) if self.post_processor is not None else 0
        if trunc.max_length < added:
            # Subtle: `tokenizers` computes `max_length - added` in unsigned integers, which
            # wrap around to a huge length here: nothing is cut. The course does the same.
            return found
        keep = trunc.max_length - added
        if len(found) <= keep:
            return found
        return found[:keep] if trunc.direction == "Right" else found[len(found) - keep:]

    def _pad(self, found: list) -> list:
        pad = self.padding
        target = len(found) if pad.length is None else pad.length
        if pad.pad_to_multiple_of and target % pad.pad_to_multiple_of:
            target += pad.pad_to_multiple_of - target % pad.pad_to_multiple_of
        if len(found) >= target:
            return found
        pads = [(pad.pad_id, pad.pad_token, (0, 0))] * (target - len(found))
        return found + pads if pad.direction == "Right" else pads + found

    def no_truncation(self) -> None:
        """Stop truncating (as `tokenizers`' `no_truncation`)."""
        self.truncation = None

    def no_padding(self) -> None:
        """Stop padding (as `tokenizers`' `no_padding`)."""
        self.padding = None

    def encode(self, text: str, allowed_special="all", *,
               rng: random.Random | None = None) -> list[int]:
        """The ids of `text`, equal to `tokenizers`' `encode(text).ids` (with a BPE
        dropout, drawn as the library draws them, from `rng`: see `encode_with_offsets`).

        The file's added tokens are always matched, as `tokenizers` does; `allowed_special`
        only accepts "all", so that code written for a `RegexTokenizer` runs unchanged."""
        if allowed_special != "all":
            raise ValueError("a tokenizer.json pipeline always matches its added tokens, as "
                             "tokenizers does: allowed_special can only be 'all'")
        return self.encode_with_offsets(text, rng=rng).ids

    # -- decoding ---------------------------------------------------------------------
    def id_to_token(self, i: int) -> str | None:
        if i in self.written:
            return self.written[i]
        return self.model.id_to_token(i)

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        """The text of `ids`, equal to `tokenizers`' `decode` (special tokens skipped by
        default; ids it does not know are skipped too).

        Subtle: an added token marked `normalized` is written in its normalized form (the
        decoder expects what the model saw), and it counts as special only if that form is
        a special token's content, as in `tokenizers`."""
        specials = {t.content for t in self.added_tokens if t.special}
        tokens = [t for t in map(self.id_to_token, ids)
                  if t is not None and not (skip_special_tokens and t in specials)]
        if self.decoder is None:
            return " ".join(tokens)
        return "".join(self.decoder(tokens))


# Rust's regex crate: \w and \s in Unicode; its `$` is the very end (Python's `\Z`, not
# `$`, which also matches before a final newline)
WORD_END, WORD_START = regex.compile(r"\w\Z"), regex.compile(r"\w")
SPACES_END, SPACES_START = regex.compile(r"\s*\Z"), regex.compile(r"\s*")


def _alternatives(table: dict):
    """One regex matching any of the strings, the longest at the leftmost position
    (the Aho-Corasick automaton `tokenizers` builds, leftmost-longest)."""
    if not table:
        return None
    ordered = sorted(table, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(t) for t in ordered))
