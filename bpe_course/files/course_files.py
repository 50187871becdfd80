"""Chapter 05's files, read back into the right class: `load("name.model")`.

A tokenizer is saved as two plain-text files (see `save_load` for the format and
why never pickle): `tok.save("name")` writes `name.model` and `name.vocab`.
`tok.load(...)` needs a tokenizer of the right class first; `load` reads the
file and picks the class itself: `BasicTokenizer` when the file has no split
pattern, else `RegexTokenizer`.
"""

from __future__ import annotations

import os

from ..basic import BasicTokenizer
from ..regex_tokenizer import RegexTokenizer
from ..save_load import read_model


def load(model_file: str | os.PathLike):
    """Load a model file into the right class: BasicTokenizer or RegexTokenizer."""
    pattern = read_model(model_file)["pattern"]
    tok = BasicTokenizer() if pattern is None else RegexTokenizer()
    return tok.load(model_file)
