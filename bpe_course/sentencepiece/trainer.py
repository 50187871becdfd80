"""Training BPE on code points, the way SentencePiece does: the exercise's step 5.

Unlike `train_bpe` (chapter 07), whose base vocabulary is the 256 bytes, this trainer
starts from *characters*. There can be a hundred thousand of them, so it keeps only the
most frequent ones, enough to cover `character_coverage` of the text (SentencePiece's
rule), and leaves the rare rest to byte fallback: at encoding time a rare character is
spelled as its UTF-8 bytes `<0x..>`.

The steps:

1. Each line is normalized as the encoder will see it (`▁` for spaces, a dummy prefix)
   and cut into words before every `▁`; equal words are counted once, with their count.
2. A pair of adjacent symbols may merge only into a valid piece: at most 16 characters,
   `▁` only in front, no rare character, no digit when `split_digits` (Llama's setting),
   and no letter beside a non-letter (a rough stand-in for SentencePiece's rule that a
   piece stays within one Unicode script, which keeps `e` and `,` apart).
3. Merge the most frequent pair, again and again. On equal counts take the shorter
   piece, then the smaller string: `spm_train`'s tie-break, so that the two trainers
   differ only where their algorithms do.

The result is a `SpmModel` in SentencePiece's layout (`<unk>`, `<s>`, `</s>`, the 256
byte pieces, the merged pieces with scores 0, -1, -2, ..., then the kept characters),
so `SentencePieceBPE` encodes with it, and `model_file.write_model` saves it as a `.model`
file that the `sentencepiece` library loads too.

>>> from bpe_course.sentencepiece.tokenizer import SentencePieceBPE
>>> model = train_codepoint_bpe("low lower lowest\\nlow low", vocab_size=270)
>>> [p for p, _, _ in model.pieces[259:]]         # merged pieces, then the characters
['lo', 'low', '▁low', 'l', 'o', 'w', '▁', 'e', 'r', 's', 't']
>>> SentencePieceBPE(model).encode("slower", out_type=str)
['▁', 's', 'low', 'e', 'r']
"""

from __future__ import annotations

import heapq
import unicodedata
from collections import Counter

from .model_proto import (
    BPE,
    BYTE,
    CONTROL,
    NORMAL,
    NORMALIZER,
    TRAINER,
    UNKNOWN,
    SpmModel,
    with_defaults,
)

SPACE = "\u2581"
MAX_PIECE_LENGTH = 16


def kept_characters(counts: Counter, coverage: float) -> list[str]:
    """The most frequent characters until they cover `coverage` of all (ties: smaller first).

    >>> kept_characters(Counter("aaaabbc"), 0.8)
    ['a', 'b']
    """
    total, covered, kept = sum(counts.values()), 0, []
    for ch, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if covered >= coverage * total:
            break
        covered += n
        kept.append(ch)
    return kept


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


class _Rules:
    """Which merged strings may become pieces (step 2)."""

    def __init__(self, kept: set[str], split_digits: bool):
        self.kept, self.split_digits = kept, split_digits

    def allowed(self, piece: str) -> bool:
        body = piece[1:] if piece[0] == SPACE else piece
        if len(piece) > MAX_PIECE_LENGTH or not body or SPACE in body:
            return False
        if any(ch not in self.kept for ch in piece):
            return False
        if self.split_digits and any(ch.isdigit() for ch in body):
            return False
        return len({_is_letter(ch) for ch in body}) == 1


def _words(text: str, add_dummy_prefix: bool) -> Counter:
    words = Counter()
    for line in text.splitlines():
        if not line:
            continue
        line = (SPACE if add_dummy_prefix else "") + line.replace(" ", SPACE)
        starts = [i for i, ch in enumerate(line) if ch == SPACE and i > 0]
        for a, b in zip([0] + starts, starts + [len(line)]):
            words[line[a:b]] += 1
    return words


def train_codepoint_bpe(text: str, vocab_size: int, *, character_coverage: float = 0.9995,
                        split_digits: bool = True, add_dummy_prefix: bool = True) -> SpmModel:
    """Learn a SentencePiece-style BPE vocabulary over code points, with byte fallback."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("train_codepoint_bpe needs a non-empty str of training text")
    if not 0 < character_coverage <= 1:
        raise ValueError(f"character_coverage must be in (0, 1], got {character_coverage}")
    words = _words(text, add_dummy_prefix)
    chars = Counter()
    for word, n in words.items():
        for ch in word:
            chars[ch] += n
    kept = kept_characters(chars, character_coverage)
    meta = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    meta += [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
    n_merges = vocab_size - len(meta) - len(kept)
    if n_merges < 0:
        raise ValueError(f"vocab_size {vocab_size} is smaller than the {len(meta)} meta and "
                         f"byte pieces plus the {len(kept)} kept characters")
    merged = _merge_loop(words, _Rules(set(kept), split_digits), n_merges)
    pieces = meta + [(p, -float(k), NORMAL) for k, p in enumerate(merged + kept)]
    trainer = {"model_type": BPE, "vocab_size": vocab_size, "byte_fallback": True,
               "character_coverage": character_coverage, "split_digits": split_digits}
    normalizer = {"name": "identity", "add_dummy_prefix": add_dummy_prefix,
                  "remove_extra_whitespaces": False}
    return SpmModel(pieces, with_defaults(trainer, TRAINER), with_defaults(normalizer, NORMALIZER))


def _merge_loop(words: Counter, rules: _Rules, n_merges: int) -> list[str]:
    """Step 3: merge best pairs over the counted words; return new pieces in order."""
    seqs = [list(w) for w in words]
    freq = list(words.values())
    counts: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    valid: dict[str, bool] = {}                      # rules.allowed, remembered
    heap: list = []

    def add(wid: int, sign: int, changed: set) -> None:
        seq = seqs[wid]
        for pair in zip(seq, seq[1:]):
            piece = pair[0] + pair[1]
            ok = valid.get(piece)
            if ok is None:
                ok = valid[piece] = rules.allowed(piece)
            if ok:
                counts[pair] += sign * freq[wid]
                where.setdefault(pair, set()).add(wid)
                changed.add(pair)

    def push(changed: set) -> None:
        for pair in changed:
            if counts[pair] > 0:
                heapq.heappush(heap, (-counts[pair], len(pair[0]) + len(pair[1]),
                                      pair[0] + pair[1], pair))

    changed: set = set()
    for wid in range(len(seqs)):
        add(wid, +1, changed)
    push(changed)
    learned, seen = [], set()
    while len(learned) < n_merges and heap:
        negcount, _, piece, pair = heapq.heappop(heap)
        if -negcount != counts[pair] or counts[pair] <= 0:
            continue                                 # an out-of-date entry
        changed = set()
        for wid in sorted(where.pop(pair)):
            add(wid, -1, changed)
            seq, out, i = seqs[wid], [], 0
            while i < len(seq):
                if i + 1 < len(seq) and (seq[i], seq[i + 1]) == pair:
                    out.append(piece)
                    i += 2
                else:
                    out.append(seq[i])
                    i += 1
            seqs[wid] = out
            add(wid, +1, changed)
        del counts[pair]
        changed.discard(pair)
        push(changed)
        if piece not in seen:                        # "aa"+"a" and "a"+"aa" make one piece
            seen.add(piece)
            learned.append(piece)
    return learned
