"""Rebuild the course's fixed corpora (bpe_course/data/*.txt.gz) from a Python installation.

    ~/.pyenv/versions/3.11.7/bin/python tools/make_corpora.py

The course ships its texts as package data so that every supported Python reads the same
bytes. They were taken once from CPython 3.11.7 with this script; run it with that
interpreter to reproduce them byte for byte (the script checks the result against the
sha256 recorded in bpe_course/corpora.py and says whether it matches). Run it with
another Python only if you mean to change the course's texts; then update the hashes in
corpora.py, the NOTICE and every stored notebook output.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import platform
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bpe_course" / "data"
CODE_BYTES = 8_000_000


def prose() -> bytes:
    """The pydoc help topics (what `help("if")` shows), sorted by key, joined by blank lines."""
    from pydoc_data.topics import topics
    return "\n\n".join(topics[key] for key in sorted(topics)).encode("utf-8")


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("site-packages", "dist-packages", "__pycache__"))
        files.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def python_code(max_bytes: int = CODE_BYTES) -> bytes:
    """The standard library's UTF-8 `.py` files in path order, cut on a line at `max_bytes`."""
    parts, size = [], 0
    for path in stdlib_files():
        try:
            data = path.read_text(encoding="utf-8").encode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue                     # a few test files are deliberately not UTF-8
        if size + len(data) > max_bytes:
            cut = data[: max_bytes - size]
            parts.append(cut[: cut.rfind(b"\n") + 1])       # end on a whole line
            break
        parts.append(data)
        size += len(data)
    return b"".join(parts)


def write(name: str, data: bytes) -> None:
    # mtime=0 and no file name in the header: the same bytes in, the same file out.
    with open(DATA / f"{name}.txt.gz", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as f:
            f.write(data)
    print(f"{name}: {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from bpe_course.corpora import MANIFEST
    print(f"taking the texts from Python {platform.python_version()}")
    DATA.mkdir(exist_ok=True)
    for name, data in [("prose", prose()), ("python_code", python_code())]:
        write(name, data)
        same = hashlib.sha256(data).hexdigest() == MANIFEST[name]["sha256"]
        print("  matches the recorded hash" if same else "  DIFFERS from the recorded hash")


if __name__ == "__main__":
    main()
