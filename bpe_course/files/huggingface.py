"""Hugging Face's files for a byte-level BPE: `vocab.json` + `merges.txt`, and `tokenizer.json`.

Three file formats meet a learner of byte-level BPE, and each stores a
different half of the same tokenizer:

- tiktoken's rank file (`tiktoken_files.save_tiktoken`): every token's bytes and its
  rank, which is also its id. The merges are implied: BPE joins the pair whose
  joined bytes have the lowest rank.
- GPT-2's `vocab.json` + `merges.txt`: the ids of the tokens (any ids), and the
  merges in the order they were learned, which is their rank.
- `tokenizer.json` (the `tokenizers` library): the same vocabulary and merges,
  plus everything around them: the split pattern, special ("added") tokens,
  normalizer, decoder, ... in one JSON file.

JSON holds text, not bytes, so GPT-2 writes each token's bytes as characters
with GPT-2's byte map (`openai.byte_map`, chapter 08): a space is "Ġ", a newline
"Ċ", and " the" is stored as "Ġthe".

Reading a byte-level BPE file (`load_regex_tokenizer_json`) builds the course's
`RegexTokenizer` with the file's ids (`RegexTokenizer.from_vocab_merges`). A file
it cannot represent exactly (a normalizer, a different pre-tokenizer, a Unigram
model, merges that skip BPE, ...) raises ValueError naming what is unsupported,
rather than loading a tokenizer that gives different ids. Any other
`tokenizer.json` (WordPiece, Unigram, normalizers, post-processors, ...) is read
by `bpe_course.load_tokenizer_json`, the whole pipeline (`pipeline/`, after
chapter 11). Never pickle: these are JSON and text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..openai.byte_map import str_to_token, token_to_str
from ..patterns import GPT2_SPLIT_PATTERN
from ..regex_tokenizer import RegexTokenizer

# -- writing -------------------------------------------------------------------

def _ordinary_vocab(tok) -> dict[str, int]:
    special_ids = set(tok.special_tokens.values())
    return {token_to_str(t): i for i, t in sorted(tok.vocab.items()) if i not in special_ids}


def _merge_strs(tok) -> list[str]:
    vocab = tok.vocab
    return [f"{token_to_str(vocab[a])} {token_to_str(vocab[b])}" for (a, b), _ in tok.merge_items()]


def save_vocab_merges(tok, folder: str | os.PathLike) -> tuple[Path, Path]:
    """Write GPT-2's `vocab.json` and `merges.txt` into `folder`; return their paths.

    Special tokens go into `vocab.json` too, as GPT-2's `<|endoftext|>` does,
    and so do unreachable tokens (see `RegexTokenizer.from_vocab_merges`): the
    two files cannot tell them apart, so pass `special_tokens` to
    `load_vocab_merges` to get them back as they were (`tokenizer.json` keeps
    the difference). The split pattern is not stored: pass it when loading. Written as OpenAI
    wrote GPT-2's `encoder.json` and `vocab.bpe`: GPT-2's vocabulary gives
    those two files byte for byte.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {**_ordinary_vocab(tok), **{token_to_str(t): i for t, i in tok.special_tokens.items()}}
    vocab_path, merges_path = folder / "vocab.json", folder / "merges.txt"
    vocab_path.write_text(json.dumps(vocab), encoding="ascii")
    merges_path.write_text("#version: 0.2\n" + "".join(m + "\n" for m in _merge_strs(tok)),
                           encoding="utf-8")
    return vocab_path, merges_path


def tokenizer_json(tok) -> dict:
    """The `tokenizers` library's description of `tok` (what `save_tokenizer_json` writes)."""
    if not getattr(tok, "pattern", None):
        raise ValueError("tokenizer.json needs a split pattern; this tokenizer has none "
                         "(a BasicTokenizer): use save_vocab_merges, or a RegexTokenizer")
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for t, i in sorted(tok.special_tokens.items(), key=lambda item: item[1])]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                  "use_regex": False}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": tok.pattern}, "behavior": "Isolated",
             "invert": False}, byte_level]},
        "post_processor": None,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": _model_vocab(tok), "merges": _merge_strs(tok)},
    }


def _model_vocab(tok) -> dict[str, int]:
    """The BPE model's vocabulary, special tokens included (as in GPT-2's own file).

    `tokenizers` does not take an added token's id from `added_tokens`: it uses the model's
    id for that text if the model has one, else it appends the token after the model's
    largest id. So a special token that sits anywhere else (CS336's `<|endoftext|>` at 0, or
    a gap below the merges) must be in the model's vocabulary under its own text, or the
    library would give it another id. BPE never produces it there: no merge makes it.
    """
    vocab = _ordinary_vocab(tok)
    for text, i in tok.special_tokens.items():
        if text in vocab:
            raise ValueError(f"special token {text!r} has the same text as ordinary token "
                             f"{vocab[text]} in tokenizer.json's byte-level vocabulary; "
                             "tokenizer.json cannot hold both")
        vocab[text] = i
    return vocab


def save_tokenizer_json(tok, path: str | os.PathLike) -> None:
    """Write `tokenizer.json`; `tokenizers.Tokenizer.from_file(path)` gives the same ids."""
    Path(path).write_text(json.dumps(tokenizer_json(tok), ensure_ascii=False, indent=1) + "\n",
                          encoding="utf-8")


# -- reading -------------------------------------------------------------------

def _read_json(path) -> object:
    """The file's JSON; errors name the file as the caller gave it."""
    name = os.fspath(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no file at {name}")
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{name} is not a JSON file: {e}") from None


def _parse_merge(merge, k: int) -> tuple[bytes, bytes]:
    parts = merge.split(" ") if isinstance(merge, str) else merge
    if not isinstance(parts, list) or len(parts) != 2 or not all(
            isinstance(p, str) and p for p in parts):
        raise ValueError(f"merge {k} must be 'left right' or [left, right], got {merge!r}")
    return str_to_token(parts[0], f"merge {k}"), str_to_token(parts[1], f"merge {k}")


def build(vocab: dict, merges: list, pattern: str, specials=None):
    """A RegexTokenizer from a GPT-2-mapped vocab (str -> id) and merges, with the file's ids.

    `specials` names the special tokens: a dict text -> id (`tokenizer.json`'s
    added tokens), or a list of texts as CS336 gives them (other tokens that
    no merge makes stay unreachable: decodable, never encoded). With None,
    tokens that no merge makes become special tokens (GPT-2's `<|endoftext|>`).
    """
    if not isinstance(vocab, dict) or not all(isinstance(i, int) for i in vocab.values()):
        raise ValueError("the vocabulary must be a JSON object mapping tokens to int ids")
    pairs = [_parse_merge(m, k) for k, m in enumerate(merges)]
    made = {bytes([b]) for b in range(256)} | {a + b for a, b in pairs}
    by_id = {i: str_to_token(t) for t, i in vocab.items()}
    if specials is not None and not isinstance(specials, dict):
        return RegexTokenizer.from_vocab_merges(by_id, pairs, specials, pattern)
    if specials is None:
        try:
            specials = {t.decode("utf-8"): i for i, t in by_id.items() if t not in made}
        except UnicodeDecodeError:
            raise ValueError("a token that no merge makes is not UTF-8 text, so it cannot "
                             "be a special token") from None
    ordinary = {i: t for i, t in by_id.items() if i not in set(specials.values())}
    tok = RegexTokenizer.from_vocab_merges(ordinary, pairs, pattern=pattern)
    tok.register_special_tokens(specials)
    return tok


def load_vocab_merges(vocab_file: str | os.PathLike, merges_file: str | os.PathLike,
                      pattern: str = GPT2_SPLIT_PATTERN,
                      special_tokens: list[str] | None = None) -> RegexTokenizer:
    """Read GPT-2's `vocab.json` + `merges.txt`; they hold no pattern, GPT-2's is the default.

    The two files do not say which tokens are special. By default every token
    that no merge makes is taken as one (GPT-2's `<|endoftext|>`, which then
    follows `allowed_special` as in tiktoken's `r50k_base`). Pass
    `special_tokens` (a list of str, as CS336's `Tokenizer.from_files` takes it)
    to name them yourself: the other tokens that no merge makes stay
    unreachable (`RegexTokenizer.from_vocab_merges`).
    """
    vocab = _read_json(vocab_file)
    path = Path(merges_file)
    if not path.is_file():
        raise FileNotFoundError(f"no file at {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    return build(vocab, [line for line in lines if line], pattern, special_tokens)


def _unsupported(what: str, value) -> ValueError:
    """The error for a setting the course cannot load exactly (`load_regex_tokenizer_json`
    puts the file's name in front)."""
    return ValueError(f"unsupported {what}: {json.dumps(value)[:120]}; the course reads "
                      f"byte-level BPE with a split pattern and nothing else "
                      f"(bpe_course.load_tokenizer_json reads more)")


def _pattern(pre) -> str:
    """The split pattern that a byte-level BPE's pre-tokenizer stands for.

    Two shapes are exact: GPT-2's `ByteLevel` with its own regex, and a `Split`
    by a regex (each match a pre-token) followed by a `ByteLevel` without one.
    """
    steps = pre.get("pretokenizers") if isinstance(pre, dict) else None
    if isinstance(pre, dict) and pre.get("type") == "ByteLevel" and pre.get("use_regex", True):
        byte_level, pattern = pre, GPT2_SPLIT_PATTERN     # the same splits as GPT-2's regex
    elif (isinstance(pre, dict) and pre.get("type") == "Sequence" and isinstance(steps, list)
          and len(steps) == 2 and all(isinstance(step, dict) for step in steps)
          and steps[0].get("type") == "Split" and steps[0].get("behavior") == "Isolated"
          and not steps[0].get("invert") and isinstance(steps[0].get("pattern"), dict)
          and list(steps[0]["pattern"]) == ["Regex"]
          and steps[1].get("type") == "ByteLevel" and steps[1].get("use_regex") is False):
        byte_level, pattern = steps[1], steps[0]["pattern"]["Regex"]
    else:
        raise _unsupported("pre_tokenizer", pre)
    if byte_level.get("add_prefix_space"):
        raise _unsupported("pre_tokenizer (add_prefix_space puts a space before the text)", pre)
    return pattern


def load_regex_tokenizer_json(path: str | os.PathLike) -> RegexTokenizer:
    """Read a `tokenizer.json` of a byte-level BPE with a split pattern into a
    `RegexTokenizer` (for any other file: `bpe_course.load_tokenizer_json`).

    Every ValueError starts with the file's name as given (`bad.json: unsupported
    normalizer: ...`), whatever the file is called.
    """
    data = _read_json(path)
    try:
        return _from_tokenizer_json(data)
    except ValueError as e:
        raise ValueError(f"{os.fspath(path)}: {e}") from None


def _from_tokenizer_json(data) -> RegexTokenizer:
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a tokenizer.json (no 'model')")
    model = data["model"]
    if model.get("type", "BPE") != "BPE":
        raise _unsupported(f"model type {model.get('type')!r} (not BPE)", model.get("type"))
    # Settings that change the ids must be off (None, "", false or 0 in the file).
    for key in ("dropout", "continuing_subword_prefix", "end_of_word_suffix", "byte_fallback",
                "ignore_merges"):
        if model.get(key):
            raise _unsupported(f"BPE setting {key!r}", model[key])
    for key in ("normalizer", "truncation", "padding"):
        if data.get(key) is not None:
            raise _unsupported(key, data[key])
    # Only a ByteLevel post-processor (offsets) and decoder (bytes back to text) are exact.
    for key in ("post_processor", "decoder"):
        step = data.get(key)
        if step is not None and not (isinstance(step, dict) and step.get("type") == "ByteLevel"):
            raise _unsupported(key, step)
    pattern = _pattern(data.get("pre_tokenizer"))
    specials = {}
    for n, added in enumerate(data.get("added_tokens") or []):
        if not (isinstance(added, dict) and isinstance(added.get("content"), str)
                and isinstance(added.get("id"), int)):
            raise ValueError(f"added_tokens[{n}] needs a 'content' string and an int 'id'")
        if any(added.get(k) for k in ("single_word", "lstrip", "rstrip")):
            raise _unsupported("added token option (single_word, lstrip or rstrip)", added)
        specials[added["content"]] = added["id"]
    merges = model.get("merges") or []
    if not isinstance(merges, list):
        raise ValueError("the merges must be a JSON list")
    return build(model.get("vocab"), merges, pattern, specials)
