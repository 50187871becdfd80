"""Make plain `tiktoken.get_encoding(name)` work offline, by filling tiktoken's own cache.

The first time `tiktoken.get_encoding("cl100k_base")` runs, tiktoken
downloads the rank file from OpenAI and keeps a copy in its cache folder:

- the folder is `$TIKTOKEN_CACHE_DIR`, else `$DATA_GYM_CACHE_DIR`, else
  `<temp dir>/data-gym-cache` (an empty `TIKTOKEN_CACHE_DIR` turns caching off);
- the file is named by the sha1 of the download URL, in hex;
- a cached file is used only if its sha256 is the expected one.

The course already has every file tiktoken wants, checked against the same
sha256 (see `encodings` and `gpt2_files`). `seed()` copies them into that
cache, so tiktoken finds them there and never goes to the network. It only
ever adds files that are missing, each written to a temporary name first and
then linked into place (never over an existing file, so a concurrent writer
cannot be clobbered).

When does it run? Never at `import bpe_course`, which writes nothing. The
course installs a tiktoken plugin, `tiktoken_ext/bpe_course_offline.py`;
tiktoken imports its plugins the first time a process asks it for an encoding,
and that plugin calls `seed_for_tiktoken()`: the cache is filled on first
need, and a failure is a warning that names the folder and the reason (tiktoken
then tries the network as it always does). `offline_tiktoken()` does the same
on request and raises `OSError` saying what went wrong. Set
`BPE_COURSE_SEED_TIKTOKEN=0` to keep the plugin from touching the cache.

The first time on a machine the files are written (about 1.5 s, most of it
rebuilding GPT-2's `vocab.bpe`); after that, seeding only looks at which files
exist.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import uuid
import warnings

from . import gpt2_files
from .encodings import SHA256, rank_file

_BLOB = "https://openaipublic.blob.core.windows.net/"

# Every file that tiktoken's OpenAI encodings download: URL -> (sha256, how to make it).
FILES = {
    **{f"{_BLOB}encodings/{name}.tiktoken": (SHA256[name], (lambda name=name: rank_file(name)))
       for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")},
    f"{_BLOB}gpt-2/encodings/main/vocab.bpe": (gpt2_files.VOCAB_BPE_SHA256, gpt2_files.vocab_bpe),
    f"{_BLOB}gpt-2/encodings/main/encoder.json": (gpt2_files.ENCODER_JSON_SHA256, gpt2_files.encoder_json),
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


OK = ("present", "written")


def problems(report: dict[str, str]) -> list[str]:
    """The lines of a `seed()` report that leave tiktoken needing the network."""
    return [f"{url.rsplit('/', 1)[-1]}: {what}" for url, what in report.items() if what not in OK]


def offline_tiktoken() -> dict[str, str]:
    """Fill tiktoken's cache now, so `tiktoken.get_encoding` needs no network; returns
    `seed()`'s report. Raises OSError naming the cache folder and what went wrong.

    >>> import os
    >>> sorted(set(offline_tiktoken().values())) in (["present"], ["present", "written"], ["written"])
    True
    """
    folder = cache_dir()
    if folder is None:
        raise OSError("tiktoken's cache is turned off (TIKTOKEN_CACHE_DIR is empty), so "
                      "tiktoken downloads every encoding; unset it to use the course's files")
    report = seed()
    bad = problems(report)
    if bad:
        raise OSError(f"could not fill tiktoken's cache in {folder}: " + "; ".join(bad))
    return report


def seed_for_tiktoken() -> None:
    """What the tiktoken plugin runs on tiktoken's first look for encodings: `seed()`, with a
    warning (never an exception: tiktoken must keep working) when a file could not be put
    in place. `BPE_COURSE_SEED_TIKTOKEN=0` turns it off."""
    if os.environ.get("BPE_COURSE_SEED_TIKTOKEN", "1") == "0":
        return
    folder = cache_dir()
    if folder is None:
        return                              # caching is off: tiktoken downloads, as asked
    try:
        bad = problems(seed())
    except Exception as error:              # noqa: BLE001 (reported, never raised into tiktoken)
        bad = [f"{type(error).__name__}: {error}"]
    if bad:
        warnings.warn(f"bpe-course could not fill tiktoken's cache in {folder} ("
                      + "; ".join(bad) + "); tiktoken.get_encoding will need the network "
                      "for those files", RuntimeWarning, stacklevel=2)
