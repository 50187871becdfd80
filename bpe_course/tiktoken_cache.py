"""Make plain `tiktoken.get_encoding(name)` work offline, by filling tiktoken's own cache.

The first time `tiktoken.get_encoding("cl100k_base")` runs, tiktoken
downloads the rank file from OpenAI and keeps a copy in its cache folder:

- the folder is `$TIKTOKEN_CACHE_DIR`, else `$DATA_GYM_CACHE_DIR`, else
  `<temp dir>/data-gym-cache` (an empty `TIKTOKEN_CACHE_DIR` turns caching off);
- the file is named by the sha1 of the download URL, in hex;
- a cached file is used only if its sha256 is the expected one.

The course already has every file tiktoken wants, checked against the same
sha256 (see `encodings` and `gpt2`). `seed()` copies them into that cache, so
later calls find them there and never go to the network. `import bpe_course`
calls it. It only ever adds files that are missing, each written to a
temporary name first and then linked into place (never over an existing
file, so a concurrent writer cannot be clobbered), and it never raises:
a folder that cannot be written just stays as it is.

The first import on a machine writes the files (about 1.5 s, most of it
rebuilding GPT-2's `vocab.bpe`); after that, `seed()` only looks at which
files exist.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import uuid

from . import gpt2
from .encodings import SHA256, rank_file

_BLOB = "https://openaipublic.blob.core.windows.net/"

# Every file that tiktoken's OpenAI encodings download: URL -> (sha256, how to make it).
FILES = {
    **{f"{_BLOB}encodings/{name}.tiktoken": (SHA256[name], (lambda name=name: rank_file(name)))
       for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")},
    f"{_BLOB}gpt-2/encodings/main/vocab.bpe": (gpt2.VOCAB_BPE_SHA256, gpt2.vocab_bpe),
    f"{_BLOB}gpt-2/encodings/main/encoder.json": (gpt2.ENCODER_JSON_SHA256, gpt2.encoder_json),
}


def cache_dir() -> str | None:
    """The folder tiktoken caches downloads in, or None if caching is turned off."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable] or None
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def cache_path(url: str, folder: str) -> str:
    """Where tiktoken looks for the download of `url`."""
    return os.path.join(folder, hashlib.sha1(url.encode()).hexdigest())


def seed() -> dict[str, str]:
    """Add the missing files to tiktoken's cache; returns URL -> what happened.

    What happened is "present" (already there: left alone), "written",
    "unavailable" (a package that holds it is not installed), "no cache"
    (caching is off), "not writable: <reason>" or "refused: <reason>" (the
    course's copy did not have the expected sha256, so nothing was written).
    """
    folder = cache_dir()
    if folder is None:
        return dict.fromkeys(FILES, "no cache")
    report = {}
    for url, (sha256, make) in FILES.items():
        path = cache_path(url, folder)
        if os.path.exists(path):
            report[url] = "present"
            continue
        try:
            report[url] = _write_new(path, sha256, make)
        except OSError as error:
            report[url] = f"not writable: {error}"
    return report


def _write_new(path: str, sha256: str, make) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{uuid.uuid4().hex}.tmp"
    try:
        # Open the file first, so an unwritable folder costs no work.
        with open(temporary, "xb") as file:
            try:
                data = make()
            except ValueError as error:       # a packaged file with the wrong sha256
                return f"refused: {error}"
            if data is None:
                return "unavailable"
            if hashlib.sha256(data).hexdigest() != sha256:
                return "refused: wrong sha256"
            file.write(data)
        try:
            os.link(temporary, path)          # fails if the file appeared meanwhile
        except FileExistsError:
            return "present"
        except OSError:                       # no hard links on this file system
            if os.path.exists(path):
                return "present"
            os.rename(temporary, path)
        return "written"
    finally:
        with contextlib.suppress(OSError):
            os.remove(temporary)


def seed_quietly() -> None:
    """`seed()` for `import bpe_course`: never raises, and can be turned off.

    Set the environment variable BPE_COURSE_SEED_TIKTOKEN=0 to leave
    tiktoken's cache alone.
    """
    if os.environ.get("BPE_COURSE_SEED_TIKTOKEN", "1") == "0":
        return
    try:
        seed()
    except Exception:                       # an import must not fail because of a cache
        pass
