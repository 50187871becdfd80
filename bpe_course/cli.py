"""The command line: `python -m bpe_course COMMAND ...`.

Commands (each has --help):

- `train CORPUS --vocab-size N [--special-token T ...] -o PREFIX`: train a tokenizer
- `encode --model PREFIX.model TEXT [--json]`: the ids and pieces of TEXT (coloured on a
  terminal; one `id<TAB>"piece"` line per token when piped; one JSON object with --json)
- `encode --model MODEL --input FILE --output OUT`: stream a file of any size to ids,
  in `OUT.npy` (uint16 when the vocabulary fits, else uint32) or a text file of ids
- `corpus build [--size 1GB] [--cache DIR]`: build the lab's corpus (chapter 17) from
  Debian packages, outside the repository; `corpus verify` checks it by sha256
- `grade PATH... [--json REPORT]`: grade worksheets (for instructors)
- `gradescope WORKSHEET -o autograder.zip`: an autograder for Gradescope (for instructors)
- `exercises`: regenerate exercises/ from solutions/ (for maintainers)

Bad input stops a command before any long work with one line on stderr,
`error: ...`, naming the argument or the file line at fault, and exit status 2.
`train` may run for minutes, so every input it can check (the corpus, the output
prefix, the model file, `--input` and `--output`) is checked first.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time
from pathlib import Path

from .files.id_files import encode_file

# command -> (module, function), imported only when the command is used.
# The classroom's commands live in bpe_course.classroom, apart from the tokenizer story.
COMMANDS = {
    "train": ("bpe_course.cli", "cli_train"),
    "encode": ("bpe_course.cli", "cli_encode"),
    "grade": ("bpe_course.classroom.grading.command", "cli_grade"),
    "gradescope": ("bpe_course.classroom.gradescope.autograder", "cli_gradescope"),
    "exercises": ("bpe_course.classroom.authoring.exercises", "cli_exercises"),
    "corpus": ("bpe_course.lab.command", "cli_corpus"),
}

# -- bad input, in one line ------------------------------------------------------
# Each `*_problem` function returns a sentence naming the argument at fault and what to
# give instead, or None when there is nothing wrong.

def fail(message: str) -> int:
    """Report bad input in one line on stderr; 2 is the exit status for it."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def output_problem(prefix: str, flag: str = "-o", example: str = "mytok") -> str | None:
    """Why `train -o PREFIX` could not write PREFIX.model and PREFIX.vocab, or `encode
    --output OUT` could not write OUT (None: it can), checked before any long work.

    >>> output_problem("no/such/folder/mytok")
    '-o no/such/folder/mytok: the folder no/such/folder does not exist (create it first)'
    """
    if prefix.endswith(("/", os.sep)) or Path(prefix).is_dir():
        kind = "file prefix" if flag == "-o" else "file"
        return (f"{flag} {prefix}: give a {kind} such as "
                f"{prefix.rstrip('/' + os.sep)}/{example}, not a folder")
    folder = Path(prefix).parent
    if not folder.is_dir():
        return f"{flag} {prefix}: the folder {folder} does not exist (create it first)"
    if not os.access(folder, os.W_OK):
        return f"{flag} {prefix}: the folder {folder} is not writable"
    return None


def input_problem(source: str, target: str) -> str | None:
    """What is wrong with `encode --input FILE --output OUT` before streaming (None: nothing)."""
    path = Path(source)
    if not path.is_file():
        return f"--input {source}: " + ("not a file" if path.exists() else "no such file")
    problem = output_problem(target, "--output", "ids.npy")
    if problem is None and Path(target).exists() and path.samefile(target):
        problem = f"--output {target}: that is the --input file, which writing would erase"
    return problem


def corpus_problem(corpus: str) -> str | None:
    """Why `train` could not learn from CORPUS (None: it can try).

    >>> corpus_problem("no/such/corpus.txt")
    'no corpus file at no/such/corpus.txt'
    """
    path = Path(corpus)
    if not path.exists():
        return f"no corpus file at {corpus}"
    if not path.is_file():
        return f"the corpus {corpus} is not a file"
    if path.stat().st_size == 0:
        return f"the corpus {corpus} is empty: there is nothing to learn from"
    return None


def model_problem(model: str) -> str | None:
    """What is wrong with `--model MODEL` before reading it (None: it is a file)."""
    if Path(model).is_file():
        if model.endswith(".vocab"):
            return (f"--model {model}: that is the readable .vocab file; "
                    f"give {model[:-len('.vocab')]}.model")
        return None
    if Path(model + ".model").is_file():
        return f"--model {model}: no such file; did you mean --model {model}.model?"
    return (f"--model {model}: no such file (give the .model file that "
            f"`train -o PREFIX` or `save(PREFIX)` wrote)")


class Parser(argparse.ArgumentParser):
    """argparse, with its errors in the one-line form of every other error here."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


# ANSI background colours for terminals, cycled over tokens.
ANSI = ["\033[43m", "\033[46m", "\033[45m", "\033[42m", "\033[44m", "\033[41m"]


def color_pieces(pieces: list[str], colour: bool = True) -> str:
    if not colour:
        return "|".join(pieces)
    return "".join(f"{ANSI[k % len(ANSI)]}\033[30m{p}\033[0m" for k, p in enumerate(pieces))


def to_json(value) -> str:
    """JSON for token pieces that keeps their bytes exactly and stays readable.

    A piece is its bytes decoded as UTF-8 with `surrogateescape`: a byte that is not
    UTF-8 becomes a lone surrogate, written `\\udc80`...`\\udcff` (no real text has
    those), so `json.loads(s).encode("utf-8", "surrogateescape")` gives the bytes back.

    >>> print(to_json([b" h\\xc3\\xa9|", b"\\xf0\\x9f"]))
    [" hé|", "\\udcf0\\udc9f"]
    """
    def text(v):
        return v.decode("utf-8", errors="surrogateescape") if isinstance(v, bytes) else v
    value = [text(v) for v in value] if isinstance(value, list) else text(value)
    return re.sub("[\udc80-\udcff]", lambda m: f"\\u{ord(m.group()):04x}",
                  json.dumps(value, ensure_ascii=False))


PATTERNS = {"gpt4": "GPT4_SPLIT_PATTERN", "gpt4o": "GPT4O_SPLIT_PATTERN", "gpt2": "GPT2_SPLIT_PATTERN"}


def cli_train(argv: list[str]) -> int:
    """`python -m bpe_course train CORPUS --vocab-size N [--special-token T ...] -o PREFIX`."""
    from . import patterns
    from .regex_tokenizer import RegexTokenizer
    from .special import check_special_tokens
    from .training.trainer import train
    parser = Parser(
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
                        help="processes counting pre-tokens (default: one per idle core)")
    args = parser.parse_args(argv)
    tok = RegexTokenizer(getattr(patterns, PATTERNS[args.pattern]))
    try:                                    # everything that can be checked before training
        specials = check_special_tokens(args.special_token)
    except (ValueError, TypeError) as e:
        return fail(f"--special-token: {e}")
    if args.vocab_size < 256 + len(specials):
        extra = f" + {len(specials)} special token(s)" if specials else ""
        return fail(f"--vocab-size {args.vocab_size}: it must be at least 256 (one id per "
                    f"byte){extra}")
    if args.vocab_size - len(specials) > sys.maxunicode + 1:
        return fail(f"--vocab-size {args.vocab_size}: it can be at most "
                    f"{sys.maxunicode + 1 + len(specials):,} (the trainer writes each token "
                    f"as one character, and there are {sys.maxunicode + 1:,})")
    if args.workers is not None and args.workers < 1:
        return fail(f"--workers {args.workers}: give 1 or more processes")
    problem = corpus_problem(args.corpus) or output_problem(args.output)
    if problem:
        return fail(problem)
    start = time.perf_counter()
    try:
        result = train(Path(args.corpus), args.vocab_size, specials, tok.pattern,
                       num_workers=args.workers)
    except (OSError, ValueError, TypeError, RuntimeError) as e:
        return fail(str(e))
    seconds = time.perf_counter() - start
    first_special = 256 + len(result.merges)
    tok.set_merges({pair: 256 + k for k, pair in enumerate(result.merges)},
                   {t: first_special + k for k, t in enumerate(specials)})
    try:
        tok.save(args.output)
    except OSError as e:
        return fail(f"-o {args.output}: cannot write the model ({e.strerror or e})")
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
    wanted = args.vocab_size - 256 - len(specials)
    if len(tok.merges) < wanted:
        print(f"warning: learned {len(tok.merges):,} of the {wanted:,} merges that "
              f"--vocab-size {args.vocab_size} asks for: no pair of tokens is left to merge "
              f"(every pre-token of the corpus is already one token), so the vocabulary has "
              f"{len(tok.vocab):,} tokens; use a larger corpus for a larger vocabulary",
              file=sys.stderr)
    return 0


def cli_encode(argv: list[str]) -> int:
    """`python -m bpe_course encode --model M TEXT [--json | --no-colour]`, or `--input/--output`."""
    parser = Parser(
        prog="python -m bpe_course encode",
        description="Encode TEXT with a saved tokenizer. On a terminal: the ids, the coloured "
                    "pieces and a count. Piped (or --no-colour): one line per token, its id, a "
                    "tab and the piece as a JSON string (bytes that are not UTF-8 appear as "
                    "\\udc80..\\udcff), the count on stderr. --json: one JSON object. "
                    "With --input FILE --output OUT: stream a file of any size to ids.")
    parser.add_argument("--model", required=True,
                        help="a .model file written by save/train, or a tokenizer.json")
    parser.add_argument("text", nargs="?", help="the text to encode (special tokens are allowed)")
    parser.add_argument("--no-colour", action="store_true",
                        help="one token per line, as when piped, even on a terminal")
    parser.add_argument("--json", action="store_true",
                        help='print {"ids": [...], "pieces": [...], "characters": n}')
    parser.add_argument("--input", metavar="FILE", help="a UTF-8 text file to encode, streamed")
    parser.add_argument("--output", metavar="OUT",
                        help="where --input's ids go: OUT.npy (uint16/uint32) or a text file")
    args = parser.parse_args(argv)
    if (args.input is None) != (args.output is None) or (args.input is None) == (args.text is None):
        parser.error("give either TEXT, or both --input FILE and --output OUT")
    from .viz import encode_any, tokens_as_bytes
    problem = model_problem(args.model)
    if not problem and args.input is not None:
        problem = input_problem(args.input, args.output)
    if problem:
        return fail(problem)
    try:
        tok = load_model(args.model)
    except (OSError, ValueError) as e:
        return fail(f"--model {e}" if str(e).startswith(args.model) else f"--model {args.model}: {e}")
    if args.input is not None:
        return encode_file(tok, Path(args.input), Path(args.output))
    ids = encode_any(tok, args.text)
    pieces = tokens_as_bytes(tok, ids)
    summary = f"{len(ids)} tokens, {len(args.text)} characters"
    if args.json:
        print(f'{{"ids": {json.dumps(ids)}, "pieces": {to_json(pieces)}, '
              f'"characters": {len(args.text)}}}')
    elif sys.stdout.isatty() and not args.no_colour:
        print(ids)
        print(color_pieces([p.decode("utf-8", errors="replace") for p in pieces]))
        print(summary)
    else:
        for idx, piece in zip(ids, pieces):
            print(f"{idx}\t{to_json(piece)}")
        print(summary, file=sys.stderr)
    return 0


def load_model(path: str):
    """A saved tokenizer: a `.model` file, or Hugging Face's `tokenizer.json`."""
    if str(path).endswith(".json"):
        from .files.huggingface import load_regex_tokenizer_json
        return load_regex_tokenizer_json(path)
    from .files.course_files import load
    return load(path)


def main(argv: list[str] | None = None) -> int:
    """Run a command; `--help` prints this module's docstring on stdout (exit status 0),
    no command prints it on stderr (2), an unknown one gets the usual one-line error."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if argv[0] not in COMMANDS:
        return fail(f"no command {argv[0]!r}: give one of {', '.join(COMMANDS)} "
                    f"(see python -m bpe_course --help)")
    module, function = COMMANDS[argv[0]]
    try:
        return getattr(importlib.import_module(module), function)(argv[1:]) or 0
    except KeyboardInterrupt:               # Ctrl-C: one line, as shells report SIGINT (130)
        print(f"interrupted: {argv[0]} stopped before it finished", file=sys.stderr)
        return 130
    except ModuleNotFoundError as e:        # a package that this install does not bring
        if not e.name or e.name.split(".")[0] in ("bpe_course", "tiktoken_ext"):
            raise
        return fail(missing_package(argv[0], e.name.split(".")[0]))


# Packages some commands need that a plain `pip install bpe-course` does not bring, with the
# extra of the course that brings each.
EXTRAS = {"nbformat": "dev", "nbclient": "dev", "jupyter_client": "dev", "ipykernel": "learn",
          "transformers": "learn"}


def missing_package(command: str, package: str) -> str:
    """One line for a command whose package is not installed: what to install.

    >>> missing_package("exercises", "nbformat")
    "the exercises command needs nbformat, which is not installed: pip install nbformat (or install the course with it: pip install 'bpe-course[dev]')"
    """
    extra = EXTRAS.get(package)
    also = f" (or install the course with it: pip install 'bpe-course[{extra}]')" if extra else ""
    return f"the {command} command needs {package}, which is not installed: pip install {package}{also}"
