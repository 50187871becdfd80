"""`python -m bpe_course corpus build [--size 1GB] [--cache DIR]` and `corpus verify`.

The command only reads its arguments and reports; the work is `corpus.build`
and `corpus.verify`. Bad input gets one line on stderr and exit status 2, as
every command of the course does.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..cli import Parser, fail
from . import corpus


def cli_corpus(argv: list[str]) -> int:
    parser = Parser(
        prog="python -m bpe_course corpus",
        description="Build the lab's corpus (chapter 17) from Debian packages, or verify it. "
                    "It is written outside the repository, in --cache (default: "
                    "$BPE_COURSE_LAB, else ~/.cache/bpe-course/lab).")
    parser.add_argument("action", choices=["build", "verify"],
                        help="build (or verify and reuse) the corpus; verify: check every "
                             "shard's sha256 against the manifest, offline")
    parser.add_argument("--size", default="1GB",
                        help="how much text to gather, e.g. 1GB (default), 300MB")
    parser.add_argument("--cache", metavar="DIR", default=None,
                        help="the folder for the packages, shards and manifest")
    args = parser.parse_args(argv)
    folder = Path(args.cache).expanduser() if args.cache else corpus.lab_cache()
    if args.action == "verify":
        problems = corpus.verify(folder)
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        if not problems:
            print(f"{folder}: every shard matches its sha256 in manifest.json")
        return 2 if problems else 0
    try:
        size = corpus.parse_size(args.size)
    except ValueError as e:
        return fail(f"--size: {e}")
    if folder.exists() and not folder.is_dir():
        return fail(f"--cache {folder}: not a folder")
    start = time.perf_counter()
    try:
        built = corpus.build(folder, size, log=lambda line: print(line, flush=True))
    except (OSError, RuntimeError, ValueError) as e:
        return fail(str(e))
    m = built.manifest
    print(f"corpus in {folder}: {m['bytes']['train']:,} bytes for training and "
          f"{m['bytes']['heldout']:,} held out, in {len(m['shards'])} shards from "
          f"{len(m['packages'])} packages ({time.perf_counter() - start:.0f} s); "
          f"sources and licences in manifest.json")
    return 0
