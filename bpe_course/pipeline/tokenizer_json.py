"""Reading a `tokenizer.json` into a pipeline, and running it: `load_tokenizer_json`.

`Pipeline.encode_with_offsets(text)` runs the five steps as `tokenizers` does:

1. **added tokens** are found first: those marked `normalized: false` in the original
   text, the others in the normalized text; the text between them goes on;
2. the **normalizer** changes each remaining piece (`normalizers`);
3. the **pre-tokenizer** cuts it into words (`pretokenizers`);
4. the **model** cuts each word into tokens (`models`);
5. the **post-processor** adds special tokens around them (`processors`).

Every token carries its span in the ORIGINAL text (`normalized`), which is what
`tokenizers`' `offsets` are. `decode(ids)` maps ids to tokens (special added tokens left
out) and runs the **decoder** (`decoders`).

A component or an option the course cannot reproduce exactly is a ValueError naming it,
never a tokenizer that gives other ids.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import regex

from . import decoders, models, normalizers, pretokenizers, processors
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
class AddedToken:
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
                 decoder=None, added_tokens=()):
        self.model, self.normalizer, self.pre_tokenizer = model, normalizer, pre_tokenizer
        self.post_processor, self.decoder = post_processor, decoder
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
        if pattern is None:
            return splits
        out = []
        for split in splits:
            if split.tokens is not None:
                out.append(split)
                continue
            s, last = split.normalized, 0
            for m in pattern.finditer(s.normalized):
                if last < m.start():
                    out.append(Split(s.slice(last, m.start())))
                piece = s.slice(m.start(), m.end())
                token = table[m.group()]
                out.append(Split(piece, [(token.id, piece.normalized,
                                          (0, len(piece.normalized)))]))
                last = m.end()
            if last < len(s.normalized) or not s.normalized:
                out.append(Split(s.slice(last, len(s.normalized))))
        return [split for split in out if split.normalized.normalized]

    def encode_with_offsets(self, text: str) -> Encoding:
        """Ids, tokens and offsets (in characters of `text`), equal to `tokenizers`'
        `encode(text)` with `add_special_tokens=True`."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
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
            tokens = split.tokens if split.tokens is not None else self.model.tokenize(
                s.normalized)
            found.extend((i, token, s.original_span(a, b)) for i, token, (a, b) in tokens)
        if self.post_processor is not None:
            found = self.post_processor(found)
        return Encoding([i for i, _, _ in found], [t for _, t, _ in found],
                        [span for _, _, span in found])

    def encode(self, text: str, allowed_special="all") -> list[int]:
        """The ids of `text`, equal to `tokenizers`' `encode(text).ids`.

        The file's added tokens are always matched, as `tokenizers` does; `allowed_special`
        only accepts "all", so that code written for a `RegexTokenizer` runs unchanged."""
        if allowed_special != "all":
            raise ValueError("a tokenizer.json pipeline always matches its added tokens, as "
                             "tokenizers does: allowed_special can only be 'all'")
        return self.encode_with_offsets(text).ids

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


def _alternatives(table: dict):
    """One regex matching any of the strings, the longest at the leftmost position
    (the Aho-Corasick automaton `tokenizers` builds, leftmost-longest)."""
    if not table:
        return None
    ordered = sorted(table, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(t) for t in ordered))


# -- reading the file ----------------------------------------------------------------

def _unsupported(what: str, value) -> ValueError:
    return ValueError(f"unsupported {what}: {json.dumps(value, ensure_ascii=False)[:160]}; "
                      f"the course cannot reproduce it exactly")


def _regex(pattern, where: str):
    """A `{"String": s}` or `{"Regex": r}` pattern as a compiled regex."""
    if isinstance(pattern, dict) and len(pattern) == 1:
        (kind, value), = pattern.items()
        if kind == "String" and isinstance(value, str):
            return regex.compile(regex.escape(value))
        if kind == "Regex" and isinstance(value, str):
            return regex.compile(value)
    raise _unsupported(f"{where} pattern", pattern)


def _check_keys(step: dict, known: set, where: str) -> None:
    extra = set(step) - known - {"type"}
    if extra:
        raise _unsupported(f"{where} {step.get('type')} option(s) {sorted(extra)}", step)


def read_normalizer(step):
    if step is None:
        return None
    kind = step.get("type") if isinstance(step, dict) else None
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return normalizers.Unicode(kind)
    if kind == "Lowercase":
        return normalizers.Lowercase()
    if kind == "StripAccents":
        return normalizers.StripAccents()
    if kind == "Strip":
        _check_keys(step, {"strip_left", "strip_right"}, "normalizer")
        return normalizers.Strip(step.get("strip_left", True), step.get("strip_right", True))
    if kind == "Replace":
        return normalizers.Replace(_regex(step.get("pattern"), "Replace"), step["content"])
    if kind == "Prepend":
        return normalizers.Prepend(step["prepend"])
    if kind == "Precompiled":
        import base64
        blob = base64.b64decode(step.get("precompiled_charsmap") or "")
        return normalizers.Precompiled(blob) if blob else None
    if kind == "BertNormalizer":
        _check_keys(step, {"clean_text", "handle_chinese_chars", "strip_accents", "lowercase"},
                    "normalizer")
        return normalizers.BertNormalizer(step.get("clean_text", True),
                                          step.get("handle_chinese_chars", True),
                                          step.get("strip_accents"), step.get("lowercase", True))
    if kind == "Sequence":
        return normalizers.Sequence([n for n in map(read_normalizer, step["normalizers"])
                                     if n is not None])
    raise _unsupported("normalizer", step)


BEHAVIORS = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"}


def read_pre_tokenizer(step):
    if step is None:
        return None
    kind = step.get("type") if isinstance(step, dict) else None
    if kind == "ByteLevel":
        return pretokenizers.ByteLevel(step.get("add_prefix_space", True),
                                       step.get("trim_offsets", True),
                                       step.get("use_regex", True))
    if kind == "Whitespace":
        return pretokenizers.Whitespace()
    if kind == "WhitespaceSplit":
        return pretokenizers.WhitespaceSplit()
    if kind == "BertPreTokenizer":
        return pretokenizers.BertPreTokenizer()
    if kind == "Metaspace":
        _check_keys(step, {"replacement", "prepend_scheme", "split", "str_rep",
                           "add_prefix_space"}, "pre_tokenizer")
        return pretokenizers.Metaspace(step.get("replacement", "▁"),
                                       _prepend_scheme(step), step.get("split", True))
    if kind == "Split":
        if step.get("behavior") not in BEHAVIORS:
            raise _unsupported("Split behavior", step)
        return pretokenizers.SplitPattern(_regex(step.get("pattern"), "Split"),
                                          step["behavior"], bool(step.get("invert")))
    if kind == "Digits":
        return pretokenizers.Digits(bool(step.get("individual_digits")))
    if kind == "Punctuation":
        if step.get("behavior", "Isolated") not in BEHAVIORS:
            raise _unsupported("Punctuation behavior", step)
        return pretokenizers.Punctuation(step.get("behavior", "Isolated"))
    if kind == "Sequence":
        return pretokenizers.Sequence([read_pre_tokenizer(p) for p in step["pretokenizers"]])
    raise _unsupported("pre_tokenizer", step)


def _prepend_scheme(step) -> str:
    scheme = step.get("prepend_scheme")
    if scheme is None:              # files from before prepend_scheme: add_prefix_space
        scheme = "always" if step.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "first", "never"):
        raise _unsupported("Metaspace prepend_scheme", step)
    return scheme


def read_model(model):
    if not isinstance(model, dict):
        raise ValueError("not a tokenizer.json (no 'model')")
    kind = model.get("type")
    if kind is None:                # old files: the model is known by its fields
        kind = ("BPE" if "merges" in model else "WordPiece" if "max_input_chars_per_word"
                in model else "Unigram" if isinstance(model.get("vocab"), list) else None)
    if kind == "BPE":
        if model.get("dropout") not in (None, 0, 0.0):
            raise _unsupported("BPE setting 'dropout' (random merges)", model["dropout"])
        vocab = model.get("vocab")
        if not isinstance(vocab, dict):
            raise ValueError("the BPE vocabulary must be a JSON object of token -> id")
        merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
                  for m in model.get("merges") or []]
        if any(len(m) != 2 for m in merges):
            raise ValueError("each merge must be 'left right' or [left, right]")
        return models.BPE(vocab, merges, model.get("unk_token"),
                          model.get("continuing_subword_prefix"),
                          model.get("end_of_word_suffix"), bool(model.get("fuse_unk")),
                          bool(model.get("byte_fallback")), bool(model.get("ignore_merges")))
    if kind == "WordPiece":
        return models.WordPiece(model["vocab"], model.get("unk_token", "[UNK]"),
                                model.get("continuing_subword_prefix", "##"),
                                model.get("max_input_chars_per_word", 100))
    if kind == "Unigram":
        vocab = model.get("vocab")
        if not isinstance(vocab, list) or not vocab:
            raise ValueError("the Unigram vocabulary must be a non-empty list of [piece, score]")
        return models.Unigram([(p, s) for p, s in vocab], model.get("unk_id"),
                              bool(model.get("byte_fallback")))
    raise _unsupported(f"model type {kind!r}", kind)


def _pair(value, where):
    if isinstance(value, list) and len(value) == 2:
        return value[0], value[1]
    raise _unsupported(where, value)


def read_post_processor(step):
    if step is None:
        return None
    kind = step.get("type") if isinstance(step, dict) else None
    if kind == "TemplateProcessing":
        specials = step.get("special_tokens") or {}
        items = []
        for piece in step.get("single") or []:
            if "Sequence" in piece:
                if piece["Sequence"].get("id") != "A":
                    raise _unsupported("TemplateProcessing single template", step["single"])
                items.append(None)
            else:
                name = piece["SpecialToken"]["id"]
                special = specials[name]
                items.append((name, special["ids"]) if len(special["ids"]) == 1
                             else None)
                if len(special["ids"]) != 1:
                    raise _unsupported("TemplateProcessing special token of several ids",
                                       special)
                items[-1] = (special["tokens"][0], special["ids"])
        return processors.Template(items)
    if kind == "BertProcessing":
        cls, sep = _pair(step["cls"], "cls"), _pair(step["sep"], "sep")
        return processors.Template([(cls[0], [cls[1]]), None, (sep[0], [sep[1]])])
    if kind == "RobertaProcessing":
        return processors.Roberta(_pair(step["cls"], "cls"), _pair(step["sep"], "sep"),
                                  step.get("trim_offsets", True),
                                  step.get("add_prefix_space", True))
    if kind == "ByteLevel":
        return processors.ByteLevel(step.get("trim_offsets", True),
                                    step.get("add_prefix_space", True))
    if kind == "Sequence":
        return processors.Sequence([read_post_processor(p) for p in step["processors"]])
    raise _unsupported("post_processor", step)


def read_decoder(step):
    if step is None:
        return None
    kind = step.get("type") if isinstance(step, dict) else None
    if kind == "ByteLevel":
        return decoders.ByteLevel()
    if kind == "WordPiece":
        return decoders.WordPiece(step.get("prefix", "##"), step.get("cleanup", True))
    if kind == "Metaspace":
        return decoders.Metaspace(step.get("replacement", "▁"), _prepend_scheme(step))
    if kind == "BPEDecoder":
        return decoders.BPEDecoder(step.get("suffix", "</w>"))
    if kind == "ByteFallback":
        return decoders.ByteFallback()
    if kind == "Fuse":
        return decoders.Fuse()
    if kind == "Strip":
        return decoders.Strip(step["content"], step.get("start", 0), step.get("stop", 0))
    if kind == "Replace":
        pattern = step.get("pattern")
        if isinstance(pattern, dict) and list(pattern) == ["String"]:
            return decoders.Replace(pattern["String"], step["content"])
        return decoders.Replace(_regex(pattern, "Replace decoder"), step["content"])
    if kind == "Sequence":
        return decoders.Sequence([read_decoder(d) for d in step["decoders"]])
    raise _unsupported("decoder", step)


def read_added_tokens(entries) -> list[AddedToken]:
    out = []
    for n, entry in enumerate(entries or []):
        if not (isinstance(entry, dict) and isinstance(entry.get("content"), str)
                and isinstance(entry.get("id"), int)):
            raise ValueError(f"added_tokens[{n}] needs a 'content' string and an int 'id'")
        if any(entry.get(k) for k in ("single_word", "lstrip", "rstrip")):
            raise _unsupported("added token option (single_word, lstrip or rstrip)", entry)
        out.append(AddedToken(entry["content"], entry["id"], bool(entry.get("special")),
                              bool(entry.get("normalized", True))))
    return out


def pipeline_from_json(data) -> Pipeline:
    """A Pipeline from a `tokenizer.json`'s content (a dict)."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a tokenizer.json (no 'model')")
    for key in ("truncation", "padding"):
        if data.get(key) is not None:
            raise _unsupported(key, data[key])
    normalizer = read_normalizer(data.get("normalizer"))
    return Pipeline(read_model(data["model"]), normalizer,
                    read_pre_tokenizer(data.get("pre_tokenizer")),
                    read_post_processor(data.get("post_processor")),
                    read_decoder(data.get("decoder")),
                    read_added_tokens(data.get("added_tokens")))


def load_tokenizer_json(path: str | os.PathLike) -> Pipeline:
    """Read any `tokenizer.json` the course can reproduce exactly into a `Pipeline`.

    Every ValueError starts with the file's name as given (`bad.json: unsupported ...`)."""
    name = os.fspath(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no file at {name}")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{name} is not a JSON file: {e}") from None
    try:
        return pipeline_from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        message = str(e) if isinstance(e, ValueError) else f"malformed file ({e!r})"
        raise ValueError(f"{name}: {message}") from None
