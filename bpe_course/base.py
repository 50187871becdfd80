"""What every tokenizer of the course shares: a vocabulary, merges, encode and decode.

A trained BPE tokenizer is nothing but an ordered list of merges. Each merge
says "the adjacent ids (a, b) become the new id c", and new ids are handed
out in training order, so a merge's id is also its *rank*: lower ids were
learned earlier, from more frequent pairs.

- `vocab` maps every id to the bytes it stands for; it is rebuilt from the
  merges (`vocab[c] = vocab[a] + vocab[b]`), so it never needs to be saved.
- `decode` looks ids up in `vocab`, joins the bytes and decodes them as UTF-8.
- `encode` turns text into bytes and applies merges, always the lowest-ranked
  pair present first, until no adjacent pair has a merge (`encode_chunk`).

Subclasses decide how text is cut before merging (`BasicTokenizer`: not at
all; `RegexTokenizer`: by a split pattern) and how the model is trained. The
base class never calls a method that a subclass overrides: a subclass adds
what it needs after `super().__init__()`, and extends a method by calling the
base's version (`RegexTokenizer.set_merges` forgets its cache after it).

Ids and ranks. The course's trainers, GPT-2 and tiktoken hand out ids in
merge order, so comparing ids compares ranks. A vocabulary numbered by
someone else (`RegexTokenizer.from_vocab_merges`, Hugging Face files) may give
its tokens any ids. Then `ids_are_ranks` is False, `merges` lists the merges
in the order they were learned (dict order), and `encode_chunk` runs BPE on
ranks and translates them to the vocabulary's ids at the end.

Such a vocabulary may also hold entries that no merge makes and that are not
special tokens (GPT-2's `vocab.json` lists `<|endoftext|>` at 50256 among its
ordinary tokens). They are kept in `unreachable_tokens` (id -> bytes): `decode`
knows them, `encode` never produces them, since only merges make tokens.
"""

from __future__ import annotations

import copy
import heapq
import os
from typing import Callable

from .save_load import load_model_into, save_model

# Chunks up to this many ids are merged with a simple scan; longer ones (say a
# million "a"s in a row) use a heap, so merging stays O(n log n) instead of O(n^2).
_SHORT_CHUNK = 128
# The "id" of a pair that has no merge: it sorts after every real id.
NO_MERGE = float("inf")


class Tokenizer:
    """Base class: holds merges and special tokens, encodes chunks, decodes ids."""

    # Class defaults, so that a subclass which forgets super().__init__() still works.
    ids_are_ranks = True                # a merge's id is its rank (see the module docstring)
    _by_rank = None                     # (tokenizer on ranks, id of each rank) otherwise
    # id -> bytes of vocab entries that no merge makes and that are not special (see the
    # module docstring). Always replaced by a new dict, never changed in place.
    unreachable_tokens: dict[int, bytes] = {}

    def __init__(self) -> None:
        self.merges: dict[tuple[int, int], int] = {}
        self.pattern: str | None = None
        self.special_tokens: dict[str, int] = {}
        self.byte_ids: list[int] = list(range(256))   # id of each raw byte
        self.unreachable_tokens = {}
        self.vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}

    # -- vocabulary -------------------------------------------------------
    def merge_items(self) -> list[tuple[tuple[int, int], int]]:
        """The merges in the order they were learned: `((left id, right id), new id)`."""
        if self.ids_are_ranks:
            return sorted(self.merges.items(), key=lambda item: item[1])
        return list(self.merges.items())

    def _build_vocab(self) -> dict[int, bytes]:
        """A new vocab dict built from the byte ids, the merges (in rank order), the
        unreachable tokens and the special tokens; it returns the dict (assign it:
        `self.vocab = self._build_vocab()`). Call it after changing any of them."""
        vocab = {idx: bytes([b]) for b, idx in enumerate(self.byte_ids)}
        merges = self.merge_items()
        for (a, b), idx in merges:
            vocab[idx] = vocab[a] + vocab[b]
        vocab.update(self.unreachable_tokens)     # decodable, but no merge makes them
        for token, idx in self.special_tokens.items():
            vocab[idx] = token.encode("utf-8")
        self._by_rank = None if self.ids_are_ranks else self._rank_tokenizer(merges)
        return vocab

    def _rank_tokenizer(self, merges) -> tuple["Tokenizer", list[int]]:
        """The same merges numbered by rank (bytes 0..255, merge k is 256 + k), and the
        vocabulary's id of every rank: BPE runs on ranks, the ids are only labels."""
        ids_of_rank = list(self.byte_ids)
        rank_of = {idx: r for r, idx in enumerate(ids_of_rank)}
        on_ranks = Tokenizer()
        for (a, b), idx in merges:
            rank_of[idx] = len(ids_of_rank)
            on_ranks.merges[rank_of[a], rank_of[b]] = len(ids_of_rank)
            ids_of_rank.append(idx)
        return on_ranks, ids_of_rank

    @property
    def inverse_special_tokens(self) -> dict[int, str]:
        return {idx: token for token, idx in self.special_tokens.items()}

    # -- encoding ---------------------------------------------------------
    def _merged_id(self, a: int, b: int) -> int | float:
        """The id that adjacent ids (a, b) merge into, or NO_MERGE. Lower ids merge first."""
        return self.merges.get((a, b), NO_MERGE)

    def encode_chunk(self, data: bytes) -> list[int]:
        """Encode the bytes of one chunk: start from byte ids, apply merges by rank.

        Subtle: at every step we merge the *lowest-ranked* pair present, not
        "the next merge in the list". Replaying all merges in training order
        gives the same result but costs one pass per merge (100,000 for
        GPT-4); picking the best available pair costs one pass per merge
        that actually applies, a handful for a typical word.
        """
        if self._by_rank is not None:           # ids are not ranks: merge ranks, then translate
            on_ranks, ids_of_rank = self._by_rank
            return [ids_of_rank[r] for r in on_ranks.encode_chunk(data)]
        ids = [self.byte_ids[b] for b in data]
        if len(ids) <= _SHORT_CHUNK:
            return self._merge_short(ids, self._merged_id)
        return self._merge_long(ids, self._merged_id)

    @staticmethod
    def _merge_short(ids: list[int], merged_id: Callable[[int, int], int | float]) -> list[int]:
        """Apply merges to `ids` (changed in place and returned), lowest rank first, where
        `merged_id(a, b)` is the id that the pair merges into, or NO_MERGE.

        >>> merges = {(97, 97): 256, (256, 97): 257}
        >>> Tokenizer._merge_short([97, 97, 97], lambda a, b: merges.get((a, b), NO_MERGE))
        [257]
        """
        # ranks[i] is the id that pair (ids[i], ids[i+1]) would merge into.
        ranks = [merged_id(a, b) for a, b in zip(ids, ids[1:])]
        while ranks:
            best = min(ranks)
            if best == NO_MERGE:
                break
            i = ranks.index(best)          # leftmost of the best pairs
            ids[i] = best
            del ids[i + 1]
            del ranks[i]
            # Only the pairs touching position i changed.
            if i > 0:
                ranks[i - 1] = merged_id(ids[i - 1], ids[i])
            if i < len(ranks):
                ranks[i] = merged_id(ids[i], ids[i + 1])
        return ids

    @staticmethod
    def _merge_long(ids: list[int], merged_id: Callable[[int, int], int | float]) -> list[int]:
        """Same result as `_merge_short`, for long chunks: a heap of the pairs by rank.

        Positions form a linked list (`nxt`, `prv`); a merge folds the right
        element into the left one. `rank[i]` is what the pair starting at
        position i merges into now (NO_MERGE: nothing, or i is gone). A heap
        entry is one int, `rank * n + i`, so the heap pops the lowest rank
        first and, on a tie, the leftmost pair, as the simple scan does, and it
        compares plain ints. Entries are never removed: one whose rank is no
        longer `rank[i]` is stale and skipped when popped.
        """
        n = len(ids)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        rank = [merged_id(a, b) for a, b in zip(ids, ids[1:])] + [NO_MERGE]
        heap = [r * n + i for i, r in enumerate(rank) if r != NO_MERGE]
        heapq.heapify(heap)
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            r, i = divmod(pop(heap), n)
            if rank[i] != r:
                continue                    # stale entry
            j = nxt[i]                      # fold j into i
            ids[i] = r
            rank[j] = NO_MERGE
            k = nxt[i] = nxt[j]
            if k < n:                       # the pair (i, k) is new
                prv[k] = i
                m = rank[i] = merged_id(r, ids[k])
                if m != NO_MERGE:
                    push(heap, m * n + i)
            else:
                rank[i] = NO_MERGE
            h = prv[i]
            if h >= 0:                      # so is the pair (h, i)
                m = rank[h] = merged_id(ids[h], r)
                if m != NO_MERGE:
                    push(heap, m * n + h)
        out, i = [], 0                      # position 0 is never folded away
        while i < n:
            out.append(ids[i])
            i = nxt[i]
        return out

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError

    # -- decoding ---------------------------------------------------------
    def decode_bytes(self, ids: list[int]) -> bytes:
        """The raw bytes behind `ids` (special tokens included)."""
        vocab = self.vocab
        try:
            return b"".join([vocab[idx] for idx in ids])
        except (KeyError, TypeError):
            pass
        for idx in ids:                     # find the culprit for a clear message
            if not isinstance(idx, int) or isinstance(idx, bool):
                raise TypeError(f"token ids must be ints, got {idx!r} ({type(idx).__name__})")
            if idx not in vocab:
                raise ValueError(f"unknown token id {idx}: this tokenizer's ids are "
                                 f"0..{max(vocab)} (with {len(vocab)} tokens)")
        raise TypeError(f"ids must be a sequence of ints, got {type(ids).__name__}")

    def decode(self, ids: list[int], errors: str = "replace") -> str:
        """Turn ids back into text.

        Subtle: not every id sequence is valid UTF-8. A token can hold part of
        a character (GPT-4 has tokens for single continuation bytes), so
        `decode([some_lone_byte])` cannot be decoded strictly. Like tiktoken,
        we replace broken bytes by U+FFFD ("�"); pass errors="strict" to get
        the UnicodeDecodeError instead.
        """
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def set_merges(self, merges: dict[tuple[int, int], int],
                   special_tokens: dict[str, int] | None = None) -> None:
        """Give this tokenizer new merges, `(left id, right id) -> new id` with ids in merge
        order (bytes 0..255, then 256, 257, ...), and, if given, new special tokens, which
        replace the registered ones; the vocabulary is rebuilt. This is how a trainer fills a
        tokenizer (`training.trainer.train_into`), and how `train` ends.

        >>> tok = Tokenizer()
        >>> tok.set_merges({(104, 105): 256}, {"<|eot|>": 257})
        >>> tok.vocab[256], tok.vocab[257]
        (b'hi', b'<|eot|>')
        """
        self.merges = dict(merges)
        self.byte_ids, self.ids_are_ranks = list(range(256)), True
        self.unreachable_tokens = {}            # their ids belonged to the old vocabulary
        if special_tokens is not None:
            self.special_tokens = dict(special_tokens)
        self.vocab = self._build_vocab()

    def first_merges(self, vocab_size: int) -> "Tokenizer":
        """A copy that keeps only the merges with ids below `vocab_size`, the first learned.

        Merge k of training depends only on the merges before it, so this is the tokenizer
        that training to `vocab_size` would have given (chapters 02 and 09 use it to see
        every smaller size at once). Special and unreachable tokens are kept.
        """
        if not isinstance(vocab_size, int) or vocab_size < 256:
            raise ValueError(f"vocab_size must be an int of at least 256, not {vocab_size!r}")
        small = copy.copy(self)
        small.merges = {pair: idx for pair, idx in self.merges.items() if idx < vocab_size}
        small.vocab = small._build_vocab()
        return small

    # -- files ------------------------------------------------------------
    def save(self, file_prefix: str | os.PathLike) -> None:
        """Write `file_prefix.model` (to load) and `file_prefix.vocab` (to read)."""
        save_model(self, file_prefix)

    def load(self, model_file: str | os.PathLike) -> "Tokenizer":
        """Read a `.model` file written by `save` into this tokenizer; returns self."""
        load_model_into(self, model_file)
        return self
