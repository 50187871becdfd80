"""The command line: `python -m bpe_course COMMAND ...`.

Commands (each has --help):

- `train CORPUS --vocab-size N [--special-token T ...] -o PREFIX`: train a tokenizer
- `encode --model PREFIX.model TEXT`: print the ids and the coloured pieces of TEXT
- `grade PATH... [--json REPORT]`: grade worksheets (for instructors)
- `exercises`: regenerate exercises/ from solutions/ (for maintainers)
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

# command -> (module, function), imported only when the command is used.
# The classroom's commands live in bpe_course.classroom, apart from the tokenizer story.
COMMANDS = {
    "train": ("bpe_course.cli", "cli_train"),
    "encode": ("bpe_course.cli", "cli_encode"),
    "grade": ("bpe_course.classroom.grading", "cli_grade"),
    "exercises": ("bpe_course.classroom.exercises", "cli_exercises"),
}

# ANSI background colours for terminals, cycled over tokens.
ANSI = ["\033[43m", "\033[46m", "\033[45m", "\033[42m", "\033[44m", "\033[41m"]


def color_pieces(pieces: list[str], colour: bool = True) -> str:
    if not colour:
        return "|".join(pieces)
    return "".join(f"{ANSI[k % len(ANSI)]}\033[30m{p}\033[0m" for k, p in enumerate(pieces))


PATTERNS = {"gpt4": "GPT4_SPLIT_PATTERN", "gpt4o": "GPT4O_SPLIT_PATTERN", "gpt2": "GPT2_SPLIT_PATTERN"}


def cli_train(argv: list[str]) -> int:
    """`python -m bpe_course train CORPUS --vocab-size N [--special-token T ...] -o PREFIX`."""
    from . import patterns
    from .regex_tokenizer import RegexTokenizer
    from .train_fast import check_special_tokens, train
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course train",
        description="Train a byte-level BPE tokenizer on a UTF-8 text file (with train_bpe) "
                    "and write PREFIX.model and PREFIX.vocab.")
    parser.add_argument("corpus", help="a UTF-8 text file")
    parser.add_argument("--vocab-size", type=int, required=True,
                        help="256 bytes + merges + special tokens")
    parser.add_argument("--special-token", action="append", default=[], metavar="T",
                        help="a special token such as '<|endoftext|>' (repeat for more)")
    parser.add_argument("-o", "--output", required=True, metavar="PREFIX",
                        help="where to write PREFIX.model and PREFIX.vocab")
    parser.add_argument("--pattern", choices=list(PATTERNS), default="gpt4",
                        help="the split pattern (default: gpt4)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes counting pre-tokens (default: one per core)")
    args = parser.parse_args(argv)
    tok = RegexTokenizer(getattr(patterns, PATTERNS[args.pattern]))
    start = time.perf_counter()
    try:
        specials = check_special_tokens(args.special_token)
        result = train(Path(args.corpus), args.vocab_size, specials, tok.pattern,
                       num_workers=args.workers)
    except (OSError, ValueError, TypeError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    tok.merges = {pair: 256 + k for k, pair in enumerate(result.merges)}
    tok.register_special_tokens({t: 256 + len(tok.merges) + k for k, t in enumerate(specials)})
    tok.save(args.output)
    size = os.path.getsize(args.corpus)
    print(f"trained on {args.corpus} ({size / 1e6:.2f} MB) in {seconds:.2f} s: "
          f"{len(tok.merges):,} merges, {len(specials)} special "
          f"token{'' if len(specials) == 1 else 's'}, "
          f"vocab {len(tok.vocab):,}")
    if result.text_tokens:
        print(f"compression on the corpus (outside special tokens): "
              f"{result.text_bytes / result.text_tokens:.2f} bytes per token "
              f"({result.text_bytes:,} bytes -> {result.text_tokens:,} tokens)")
    print(f"wrote {args.output}.model and {args.output}.vocab")
    return 0


def cli_encode(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_course encode",
                                     description="Encode TEXT with a saved tokenizer.")
    parser.add_argument("--model", required=True, help="a .model file written by save/train")
    parser.add_argument("text", help="the text to encode (special tokens are allowed)")
    parser.add_argument("--no-colour", action="store_true", help="separate pieces by | instead")
    args = parser.parse_args(argv)
    from .files import load
    from .viz import encode_any, token_bytes
    try:
        tok = load(args.model)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ids = encode_any(tok, args.text)
    pieces = [b.decode("utf-8", errors="replace") for b in token_bytes(tok, ids)]
    print(ids)
    print(color_pieces(pieces, colour=not args.no_colour and sys.stdout.isatty()))
    print(f"{len(ids)} tokens, {len(args.text)} characters")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(__doc__.strip(), file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module, function = COMMANDS[argv[0]]
    return getattr(importlib.import_module(module), function)(argv[1:]) or 0
