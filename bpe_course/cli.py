"""The command line: `python -m bpe_course COMMAND ...`.

Commands (each has --help):

- `train CORPUS --vocab-size N [--special-token T ...] -o PREFIX`: train a tokenizer
- `encode --model PREFIX.model TEXT`: print the ids and the coloured pieces of TEXT
- `encode --model MODEL --input FILE --output OUT`: stream a file of any size to ids,
  in `OUT.npy` (uint16 when the vocabulary fits, else uint32) or a text file of ids
- `grade PATH... [--json REPORT]`: grade worksheets (for instructors)
- `exercises`: regenerate exercises/ from solutions/ (for maintainers)
"""

from __future__ import annotations

import argparse
import array
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
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course encode",
        description="Encode TEXT with a saved tokenizer, or stream a file with --input/--output.")
    parser.add_argument("--model", required=True,
                        help="a .model file written by save/train, or a tokenizer.json")
    parser.add_argument("text", nargs="?", help="the text to encode (special tokens are allowed)")
    parser.add_argument("--no-colour", action="store_true", help="separate pieces by | instead")
    parser.add_argument("--input", metavar="FILE", help="a UTF-8 text file to encode, streamed")
    parser.add_argument("--output", metavar="OUT",
                        help="where --input's ids go: OUT.npy (uint16/uint32) or a text file")
    args = parser.parse_args(argv)
    if (args.input is None) != (args.output is None) or (args.input is None) == (args.text is None):
        parser.error("give either TEXT, or both --input FILE and --output OUT")
    from .viz import encode_any, token_bytes
    try:
        tok = load_model(args.model)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.input is not None:
        return encode_file(tok, Path(args.input), Path(args.output))
    ids = encode_any(tok, args.text)
    pieces = [b.decode("utf-8", errors="replace") for b in token_bytes(tok, ids)]
    print(ids)
    print(color_pieces(pieces, colour=not args.no_colour and sys.stdout.isatty()))
    print(f"{len(ids)} tokens, {len(args.text)} characters")
    return 0


# -- streaming a file to ids (encode --input FILE --output OUT) ------------------

READ_CHARS = 1 << 16            # characters read from the input at a time
IDS_PER_WRITE = 8192            # ids buffered before each write


def load_model(path: str):
    """A saved tokenizer: a `.model` file, or Hugging Face's `tokenizer.json`."""
    if str(path).endswith(".json"):
        from .hf_files import load_tokenizer_json
        return load_tokenizer_json(path)
    from .files import load
    return load(path)


def npy_header(dtype: str, count: int) -> bytes:
    """A .npy (version 1.0) header for `count` values of `dtype`, always 128 bytes long,
    so that it can be written first with a guess and rewritten once the count is known."""
    text = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({count},), }}"
    return b"\x93NUMPY\x01\x00" + (118).to_bytes(2, "little") + text.ljust(117).encode() + b"\n"


def id_writer(out, binary: str | None):
    """A function writing a list of ids to `out`: raw little-endian values or text lines."""
    if binary is None:
        def write(ids):
            for k in range(0, len(ids), 32):
                out.write((" ".join(map(str, ids[k:k + 32])) + "\n").encode("ascii"))
        return write

    def write(ids):
        values = array.array(binary, ids)
        if sys.byteorder == "big":
            values.byteswap()
        out.write(values.tobytes())
    return write


def encode_file(tok, source: Path, target: Path) -> int:
    """Stream `source` through `tok.encode_iterable` into `target`; special tokens allowed."""
    from .chunks import ProgressBar
    if not hasattr(tok, "encode_iterable"):
        print("error: streaming needs a split pattern, and this model has none "
              "(a BasicTokenizer encodes the whole text at once)", file=sys.stderr)
        return 2
    npy = target.suffix == ".npy"
    small = max(tok.vocab) < 1 << 16
    dtype, code = ("<u2", "H") if small else ("<u4", "I")
    count = 0
    try:
        size = source.stat().st_size
        with open(source, encoding="utf-8", newline="") as f, open(target, "wb") as out, \
                ProgressBar(total=size, unit="B", unit_scale=True, desc="encoding",
                            disable=not sys.stderr.isatty()) as bar:
            def pieces():
                for piece in iter(lambda: f.read(READ_CHARS), ""):
                    bar.update(len(piece.encode("utf-8", "surrogatepass")))
                    yield piece
            if npy:
                out.write(npy_header(dtype, 0))
            write, batch = id_writer(out, code if npy else None), []
            for idx in tok.encode_iterable(pieces(), allowed_special="all"):
                batch.append(idx)
                if len(batch) == IDS_PER_WRITE:
                    write(batch)
                    count += len(batch)
                    batch = []
            write(batch)
            count += len(batch)
            if npy:
                out.seek(0)
                out.write(npy_header(dtype, count))
    except (OSError, ValueError) as e:      # UnicodeDecodeError is a ValueError
        target.unlink(missing_ok=True)
        print(f"error: {source}: {e}", file=sys.stderr)
        return 2
    kind = ("uint16" if small else "uint32") + " .npy" if npy else "text"
    print(f"encoded {source} ({size / 1e6:.2f} MB) into {count:,} tokens "
          f"({size / max(count, 1):.2f} bytes per token); wrote {target} ({kind})")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(__doc__.strip(), file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module, function = COMMANDS[argv[0]]
    return getattr(importlib.import_module(module), function)(argv[1:]) or 0
