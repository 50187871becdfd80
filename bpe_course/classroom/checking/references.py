"""Reference answers for the checkers: the course's version of what learners write.

Most checkers compare a learner's code with the package itself (`merge` with
`bpe_course.merge`, a tokenizer class with `RegexTokenizer`, ...). These are
the few references the package has no other use for: one-liners for the
UTF-8 warm-ups, `chunked_stats` and `count_pretokens`, the naive trainer in
`train_bpe`'s form, tiktoken itself behind the course's interface, and worksheet 12's
Viterbi and WordPiece in the form the worksheet asks (pieces, not ids).

>>> code_points_and_bytes("é")
(1, 2)
>>> naive_train_bpe("abab", 258)[1]
[(b'a', b'b'), (b'ab', b'ab')]
"""

from __future__ import annotations

import regex

from ...pairs import best_pair, get_stats, merge
from ...patterns import GPT4_SPLIT_PATTERN
from ...special import split_special
from ...text import fix_surrogates


def utf8_list(text: str) -> list[int]:
    return list(text.encode("utf-8"))


def code_points_and_bytes(text: str) -> tuple[int, int]:
    return len(text), len(text.encode("utf-8"))


def encode_code_point(cp: int) -> list[int]:
    """The UTF-8 bytes of one code point; ValueError for surrogates and beyond U+10FFFF."""
    if not 0 <= cp <= 0x10FFFF:
        raise ValueError(f"{cp} is not a code point (0 to 0x10FFFF)")
    if 0xD800 <= cp <= 0xDFFF:
        raise ValueError(f"U+{cp:04X} is a surrogate, which UTF-8 cannot encode")
    return list(chr(cp).encode("utf-8"))


def safe_decode(byte_list: list[int]) -> str:
    return bytes(byte_list).decode("utf-8", errors="replace")


def encode_bytes(text: str, merges: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Worksheet 02: `text` as tokens (bytes), joining the pair of lowest rank in `merges` first."""
    rank = {pair: i for i, pair in enumerate(merges)}
    parts = [bytes([b]) for b in text.encode("utf-8")]
    while len(parts) > 1:
        i = min(range(len(parts) - 1), key=lambda k: rank.get((parts[k], parts[k + 1]), len(rank)))
        if (parts[i], parts[i + 1]) not in rank:
            break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


def merge_words(words: dict, stats: dict, pair: tuple[bytes, bytes]) -> dict:
    """Worksheet 07: `words` ({tuple of tokens: count}) with `pair` merged; `stats` updated.

    `stats` ({(left, right): count}) is changed in place to the pair counts of
    the new words, without pairs whose count fell to 0. Two words that become the same
    tuple add their counts; `words` itself is left as it was.

    >>> merge_words({(b"a", b"b", b"c"): 2, (b"ab", b"c"): 3}, {(b"a", b"b"): 2,
    ...             (b"b", b"c"): 2, (b"ab", b"c"): 3}, (b"a", b"b"))
    {(b'ab', b'c'): 5}
    """
    joined = pair[0] + pair[1]
    new: dict = {}
    for word, count in words.items():
        if not any(word[i:i + 2] == pair for i in range(len(word) - 1)):
            new[word] = new.get(word, 0) + count
            continue
        for p in zip(word, word[1:]):
            stats[p] -= count
            if stats[p] == 0:
                del stats[p]
        out, i = [], 0
        while i < len(word):
            if word[i:i + 2] == pair:
                out.append(joined)
                i += 2
            else:
                out.append(word[i])
                i += 1
        for p in zip(out, out[1:]):
            stats[p] = stats.get(p, 0) + count
        new[tuple(out)] = new.get(tuple(out), 0) + count
    return new


def chunked_stats(chunks: list[list[int]]) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = {}
    for chunk in chunks:
        get_stats(chunk, counts)
    return counts


def ordinary_parts(text: str, special_tokens=()) -> list[str]:
    """The pieces of `text` between special tokens (the tokens themselves dropped)."""
    return [p for p in split_special(text, special_tokens) if p not in special_tokens]


def count_pretokens(text: str, special_tokens=(), pattern: str = GPT4_SPLIT_PATTERN
                    ) -> dict[str, int]:
    compiled = regex.compile(pattern)
    counts: dict[str, int] = {}
    for part in ordinary_parts(fix_surrogates(text), special_tokens):
        for chunk in compiled.findall(part):
            counts[chunk] = counts.get(chunk, 0) + 1
    return counts


def naive_train_bpe(text: str, vocab_size: int, special_tokens=(),
                    pattern: str = GPT4_SPLIT_PATTERN):
    """The naive loop of `RegexTokenizer.train`, in `train_bpe`'s form: (vocab, merges).

    Special tokens are cut out first and get the last ids.
    """
    compiled = regex.compile(pattern)
    chunks = [list(c.encode("utf-8")) for part in ordinary_parts(fix_surrogates(text),
                                                                 special_tokens)
              for c in compiled.findall(part)]
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for idx in range(256, vocab_size - len(special_tokens)):
        stats: dict[tuple[int, int], int] = {}
        for chunk in chunks:
            get_stats(chunk, stats)
        if not stats:
            break
        pair = best_pair(stats, vocab)
        chunks = [merge(chunk, pair, idx) for chunk in chunks]
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
        merges.append((vocab[pair[0]], vocab[pair[1]]))
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    return vocab, merges


def tokens_per_byte(text: str, encoding: str) -> float:
    """Worksheet 09: tokens of `text` under `encoding` per UTF-8 byte (0.0 for no text)."""
    from ...openai.encodings import get_encoding
    size = len(text.encode("utf-8"))
    return len(get_encoding(encoding).encode_ordinary(text)) / size if size else 0.0


def whitespace_pretokens(text: str, pattern: str) -> int:
    """Worksheet 09: how many pre-tokens of `text` are whitespace only."""
    return sum(chunk.isspace() for chunk in regex.findall(pattern, text))


def glitch_candidates(tok, text: str) -> list[int]:
    """Worksheet 09: learned ids that `tok.encode(text)` never produces, sorted."""
    used = set(tok.encode(text))
    return sorted(idx for idx in tok.merges.values() if idx not in used)


# -- worksheet 08: GPT-2's files ---------------------------------------------------------------

def bytes_to_unicode() -> dict[int, str]:
    """Worksheet 08: GPT-2's byte map, printable bytes first (the course's `byte_map`)."""
    from ...openai.byte_map import bytes_to_unicode as table
    return table()


def read_vocab_merges(vocab_path, merges_path) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Worksheet 08: a `vocab.json` + `merges.txt` pair as `(vocab, merges)` of bytes, every
    entry of `vocab.json` kept (those no merge makes too, such as `<|endoftext|>`)."""
    import json
    from pathlib import Path

    from ...openai.byte_map import str_to_token
    vocab = {i: str_to_token(t) for t, i in
             json.loads(Path(vocab_path).read_text(encoding="utf-8")).items()}
    lines = Path(merges_path).read_text(encoding="utf-8").splitlines()
    merges = [tuple(str_to_token(part) for part in line.split(" ")) for line in lines
              if line and not line.startswith("#version")]
    return vocab, merges


def write_vocab_merges(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                       folder) -> None:
    """Worksheet 08: write `vocab.json` and `merges.txt` into `folder`, as GPT-2 did."""
    import json
    from pathlib import Path

    from ...openai.byte_map import token_to_str
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = {token_to_str(t): i for i, t in sorted(vocab.items())}
    (folder / "vocab.json").write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    (folder / "merges.txt").write_text(
        "#version: 0.2\n" + "".join(f"{token_to_str(a)} {token_to_str(b)}\n" for a, b in merges),
        encoding="utf-8")


# -- worksheet 17: the lab ----------------------------------------------------------------------

def bytes_per_token(tok, docs: list[str]) -> float:
    """Worksheet 17: the UTF-8 bytes of `docs` over the tokens `tok.encode_ordinary` makes of
    each, pooled over the documents (0.0 when they hold no bytes)."""
    size = sum(len(doc.encode("utf-8")) for doc in docs)
    tokens = sum(len(tok.encode_ordinary(doc)) for doc in docs)
    return size / tokens if tokens else 0.0


def lab_train_bpe(text: str, vocab_size: int, special_tokens=(),
                  pattern: str = GPT4_SPLIT_PATTERN):
    """Worksheet 17: `train_bpe`'s (vocab, merges); the naive trainer gives the same merges."""
    from ...training.trainer import train_bpe
    return train_bpe(text, vocab_size, list(special_tokens), pattern)


class TiktokenReference:
    """tiktoken itself, behind the interface of the course's tokenizers."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        from ...openai.encodings import get_encoding
        self.enc = get_encoding(encoding)

    def encode(self, text: str, allowed_special="none_raise") -> list[int]:
        if allowed_special == "none":
            return self.enc.encode_ordinary(text)
        if allowed_special == "none_raise":
            return self.enc.encode(text)
        return self.enc.encode(text, allowed_special=allowed_special)

    def decode(self, ids: list[int]) -> str:
        return self.enc.decode(ids)


# -- worksheet 11: SentencePiece ------------------------------------------------------------

_SPM_CACHE: dict[int, tuple] = {}


def spm_normalize(text: str, add_dummy_prefix: bool = True) -> str:
    """SentencePiece's identity normalization with extra whitespace kept (Llama 2, Mistral)."""
    return ("\u2581" if add_dummy_prefix and text else "") + text.replace(" ", "\u2581")


def spm_encode(model, text: str) -> list[int]:
    """The ids of `text` under a SentencePiece BPE `model` (an `SpmModel`), as the library gives."""
    from ...sentencepiece.tokenizer import SentencePieceBPE
    cached = _SPM_CACHE.get(id(model))
    if cached is None or cached[0] is not model:
        cached = _SPM_CACHE[id(model)] = (model, SentencePieceBPE(model))
    return cached[1].encode(text)


# -- worksheet 12: the subword family -------------------------------------------------------

UNK_PENALTY = 10.0          # SentencePiece scores an unknown character this far below the lowest piece


def viterbi(text: str, scores: dict[str, float]) -> tuple[list[str], float]:
    """Worksheet 12: the best segmentation of `text` under a Unigram model's piece scores,
    and its total score, as SentencePiece's `EncodeOptimized` finds it.

    Left to right: `best[end]` is the best total of a segmentation of `text[:end]`; a
    piece `text[start:end]` extends the best one of `text[:start]`. A character that is
    no piece may be a piece of its own, scored `min(scores) - 10`. On a tie the first
    start found (the smallest) stays, so the last piece is the longest. The sums are
    Python floats, exact for the 32-bit scores of a `.model` file; the library adds in
    32-bit floats, which can tip a near tie the other way (see
    `unigram.SentencePieceUnigram.segment`).

    >>> viterbi("▁ab", {"▁": -2.0, "a": -3.0, "b": -3.0, "▁a": -4.0, "ab": -2.5})
    (['▁', 'ab'], -4.5)
    >>> viterbi("abcd", {"ab": -1.0, "bcd": -1.0})
    (['a', 'bcd'], -12.0)
    """
    unknown = min(scores.values()) - UNK_PENALTY
    longest = max(map(len, scores))
    n = len(text)
    best: list[float | None] = [0.0] + [None] * n
    start_of = [0] * (n + 1)
    for start in range(n):
        for end in range(start + 1, min(n, start + longest) + 1):
            score = scores.get(text[start:end])
            if score is None and end == start + 1:
                score = unknown
            if score is None:
                continue
            total = best[start] + score
            if best[end] is None or total > best[end]:
                best[end], start_of[end] = total, start
    pieces, end = [], n
    while end > 0:
        pieces.append(text[start_of[end]:end])
        end = start_of[end]
    return pieces[::-1], best[n]


def wordpiece(word: str, vocab, max_input_chars_per_word: int = 100) -> list[str]:
    """Worksheet 12: the pieces of one word, greedy longest-match-first with `##`, as
    `tokenizers`' WordPiece model gives them (`WordPiece.tokenize_word` with `vocab`).

    >>> wordpiece("unaffable", {"un", "##aff", "##able"})
    ['un', '##aff', '##able']
    >>> wordpiece("unaffablex", {"un", "##aff", "##able"})      # no piece for "x": all unknown
    ['[UNK]']
    """
    if len(word) > max_input_chars_per_word:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def bert_normalize(text: str, lowercase: bool = True) -> str:
    """Worksheet 12: BERT's normalizer (`tokenizers`' `BertNormalizer`): clean, space out
    CJK ideographs, and, when lowercasing, strip accents."""
    from ...wordpiece.normalizer import normalize
    return normalize(text, lowercase=lowercase)[0]


# -- worksheet 14: tokenizers in a model's pipeline ---------------------------------------------

IGNORE = -100               # the label PyTorch's cross-entropy skips (its ignore_index)


def align_labels(word_ids: list, word_labels: list[int]) -> list[int]:
    """Worksheet 14: one label per token from one label per word, as chapter 14 aligns them:
    a word's first token (one whose word differs from the token before it) gets the word's
    label, every other token -100, and so does a special token (word id None).

    >>> align_labels([None, 0, 0, 1, None], [3, 0])
    [-100, 3, -100, 0, -100]
    >>> align_labels([None, 4, 4, 5, None], [0, 0, 0, 0, 1, 2])   # a window that starts mid-word
    [-100, 1, -100, 2, -100]
    """
    aligned, previous = [], None
    for word in word_ids:
        aligned.append(IGNORE if word is None or word == previous else word_labels[word])
        previous = word
    return aligned


def entity_spans(labels: list[str], word_ids: list, offsets: list) -> list[tuple[str, int, int]]:
    """Worksheet 14: the entities of a token-labelled text as (type, start, end) characters.

    Each word takes its first token's label and spans from its first token's start to its
    last token's end; special tokens (word id None) are left out. An entity is a word
    labelled B-X or I-X and the words right after it labelled I-X; an I-X that does not
    follow a word of an entity of type X starts one (as conlleval reads BIO labels).

    >>> entity_spans(["O", "B-PER", "I-PER", "O", "I-LOC", "O"],
    ...              [None, 0, 0, 1, 2, None], [(0, 0), (0, 3), (3, 7), (8, 10), (11, 16), (0, 0)])
    [('PER', 0, 7), ('LOC', 11, 16)]
    """
    words: dict = {}                                  # word -> [label, start, end], in order
    for label, word, (start, end) in zip(labels, word_ids, offsets):
        if word is None:
            continue
        if word in words:
            words[word][2] = end
        else:
            words[word] = [label, start, end]
    entities, previous = [], "O"
    for label, start, end in words.values():
        if label.startswith("I-") and previous[2:] == label[2:]:
            entities[-1] = (entities[-1][0], entities[-1][1], end)
        elif label != "O":
            entities.append((label[2:], start, end))
        previous = label
    return entities


def pad_batch(features: list[dict], pad_id: int, side: str = "right") -> dict:
    """Worksheet 14: a padding collator. Rows of `input_ids` (and of `labels`, if the
    features have them) padded to the batch's longest, on `side`, with `pad_id` (labels
    with -100), and the attention mask: 1 for a real token, 0 for padding.

    >>> pad_batch([{"input_ids": [5, 6, 7]}, {"input_ids": [8]}], 0)
    {'input_ids': [[5, 6, 7], [8, 0, 0]], 'attention_mask': [[1, 1, 1], [1, 0, 0]]}
    """
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', not {side!r}")
    longest = max((len(f["input_ids"]) for f in features), default=0)

    def pad(row, value):
        filler = [value] * (longest - len(row))
        return list(row) + filler if side == "right" else filler + list(row)
    batch = {"input_ids": [pad(f["input_ids"], pad_id) for f in features],
             "attention_mask": [pad([1] * len(f["input_ids"]), 0) for f in features]}
    if features and "labels" in features[0]:
        batch["labels"] = [pad(f["labels"], IGNORE) for f in features]
    return batch
