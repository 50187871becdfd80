"""Modules of the course that a later release moved, so that older worksheets grade as written.

A worksheet records the release of the course it was generated from (its
notebook metadata, `authoring.exercises.release_metadata`). A learner who
downloaded it before a release moved a module still has an imports cell
that names the old module (`from bpe_course.encodings import load_ranks`).
The grader grades such a notebook as written: inside the sandbox,
`install()` puts an import hook in place that loads the module under its
new name and registers it under the old one too (the same module object,
nothing copied), and the rules read from the source (`checking.source_rules`)
resolve the old names with `current_name`. The table comes from the
repository's history (`git log --diff-filter=R --name-status -- bpe_course`):
the story moved into folders by part on 2026-11-26 (commit bd3e532), and two
small modules were folded into the ones that use them.

Standard library only: the learner's process inside the sandbox imports it.

>>> current_name("bpe_course.encodings.load_ranks")
'bpe_course.openai.encodings.load_ranks'
>>> current_name("bpe_course.pairs.merge")
'bpe_course.pairs.merge'
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "bpe_course.hf_files": "bpe_course.files.huggingface",
    "bpe_course.id_files": "bpe_course.files.id_files",
    "bpe_course.byte_map": "bpe_course.openai.byte_map",
    "bpe_course.tiktoken_api": "bpe_course.openai.encoding_api",
    "bpe_course.encodings": "bpe_course.openai.encodings",
    "bpe_course.gpt2": "bpe_course.openai.gpt2_files",
    "bpe_course.tiktoken_cache": "bpe_course.openai.tiktoken_cache",
    "bpe_course.gpt4": "bpe_course.openai.tokenizer",
    "bpe_course.spm_model": "bpe_course.sentencepiece.model_file",
    "bpe_course.sentencepiece_bpe": "bpe_course.sentencepiece.tokenizer",
    "bpe_course.codepoint_bpe": "bpe_course.sentencepiece.trainer",
    "bpe_course.corpus_cuts": "bpe_course.training.corpus_cuts",
    "bpe_course.chunks": "bpe_course.training.counting",
    "bpe_course.train_fast": "bpe_course.training.trainer",
    "bpe_course.vocab_ids": "bpe_course.regex_tokenizer",         # folded back
    "bpe_course.spm_decode": "bpe_course.sentencepiece.tokenizer",  # folded back
}


def current_name(name: str) -> str:
    """`name` (a module or anything in one) under the module's name in this release."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return name


class _Loader(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        return importlib.import_module(self.new)      # the module itself, under both names

    def exec_module(self, module):
        pass


class MovedModules(importlib.abc.MetaPathFinder):
    """Finds a moved module under its old name (see `MOVED`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(MOVED[fullname]))


def install() -> None:
    """Let "import OLD" and "from OLD import x" work for every moved module (and the
    attribute bpe_course.OLD once imported)."""
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.append(MovedModules())
