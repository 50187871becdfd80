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
import sys

# command -> (module, function), imported only when the command is used.
COMMANDS = {
    "train": ("bpe_course.train_fast", "cli_train"),
    "encode": ("bpe_course.cli", "cli_encode"),
    "grade": ("bpe_course.grading", "cli_grade"),
    "exercises": ("bpe_course.exercises", "cli_exercises"),
}

# ANSI background colours for terminals, cycled over tokens.
ANSI = ["\033[43m", "\033[46m", "\033[45m", "\033[42m", "\033[44m", "\033[41m"]


def color_pieces(pieces: list[str], colour: bool = True) -> str:
    if not colour:
        return "|".join(pieces)
    return "".join(f"{ANSI[k % len(ANSI)]}\033[30m{p}\033[0m" for k, p in enumerate(pieces))


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
