"""The command line's errors: bad input stops a command before any long work, in one line.

`python -m bpe_course train` may run for minutes, so `cli` checks everything it
can first: the corpus, the output prefix, the model file, `--input` and
`--output`. Each check returns what is wrong, as a sentence that names the
argument at fault and says what to give instead, or None when nothing is;
`fail` prints it as `error: ...` on stderr and gives the exit status, 2.
`Parser` makes argparse's own errors take the same one-line form.

>>> corpus_problem("no/such/corpus.txt")
'no corpus file at no/such/corpus.txt'
>>> output_problem("no/such/folder/mytok")
'-o no/such/folder/mytok: the folder no/such/folder does not exist (create it first)'
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def fail(message: str) -> int:
    """Report bad input in one line on stderr; 2 is the exit status for it."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def output_problem(prefix: str, flag: str = "-o", example: str = "mytok") -> str | None:
    """Why `train -o PREFIX` could not write PREFIX.model and PREFIX.vocab, or `encode
    --output OUT` could not write OUT (None: it can), checked before any long work."""
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
    """Why `train` could not learn from CORPUS (None: it can try)."""
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
