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
the story moved into folders by part on 2026-11-26 (commit bd3e532), two small
modules were folded into the ones that use them, and three files took names
that say what they hold on 2026-11-29 (one of them split in two: its old name
finds what it had in either).

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
import types

MOVED = {
    "bpe_course.hf_files": "bpe_course.files.huggingface",
    "bpe_course.id_files": "bpe_course.files.id_files",
    "bpe_course.byte_map": "bpe_course.openai.byte_map",
    "bpe_course.tiktoken_api": "bpe_course.openai.encoding_api",
    "bpe_course.encodings": "bpe_course.openai.encodings",
    "bpe_course.gpt2": "bpe_course.openai.gpt2_files",
    "bpe_course.tiktoken_cache": "bpe_course.openai.tiktoken_cache",
    "bpe_course.gpt4": "bpe_course.openai.tokenizer",
    "bpe_course.spm_model": "bpe_course.sentencepiece.model_proto",
    "bpe_course.sentencepiece_bpe": "bpe_course.sentencepiece.tokenizer",
    "bpe_course.codepoint_bpe": "bpe_course.sentencepiece.trainer",
    "bpe_course.corpus_cuts": "bpe_course.training.corpus_cuts",
    "bpe_course.chunks": "bpe_course.training.counting",
    "bpe_course.train_fast": "bpe_course.training.trainer",
    "bpe_course.vocab_ids": "bpe_course.regex_tokenizer",         # folded back
    "bpe_course.spm_decode": "bpe_course.sentencepiece.tokenizer",  # folded back
    "bpe_course.model_file": "bpe_course.save_load",
    "bpe_course.sentencepiece.model_file": "bpe_course.sentencepiece.model_proto",
    "bpe_course.files.model_files": ("bpe_course.files.course_files",
                                     "bpe_course.files.tiktoken_files"),
}


def current_name(name: str) -> str:
    """`name` (a module or anything in one) under the module's name in this release (for a
    module split in two, the one that has the name, else the first)."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            rest = name[len(old):]
            if isinstance(new, str):
                return new + rest
            head = rest[1:].split(".")[0]
            for module in new:
                try:
                    if head and hasattr(importlib.import_module(module), head):
                        return module + rest
                except ImportError:
                    continue
            return new[0] + rest
    return name


class _Loader(importlib.abc.Loader):
    def __init__(self, new):
        self.new = new

    def create_module(self, spec):
        if isinstance(self.new, str):
            return importlib.import_module(self.new)  # the module itself, under both names
        parts = [importlib.import_module(name) for name in self.new]
        module = types.ModuleType(spec.name, f"{spec.name}: now {', '.join(self.new)}")
        for part in reversed(parts):                 # what the old module held, from each
            module.__dict__.update({k: v for k, v in vars(part).items()
                                    if not k.startswith("__")})
        return module

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
