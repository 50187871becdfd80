"""bpe_course: the reference package of the bpe-course notebooks.

Modules in the order the course teaches them:

- `pairs`: `get_stats`, `merge`, and the tie-break rule (`best_pair`)
- `basic`: `BasicTokenizer`, byte-level BPE over the whole text
- `patterns`: the split patterns of GPT-2, GPT-4 and GPT-4o
- `regex_tokenizer`: `RegexTokenizer`, BPE inside regex chunks
- `special`: special tokens and the `allowed_special` modes
- `files`: save/load as plain text, export to tiktoken
- `encodings`: OpenAI's encodings offline (`get_encoding`)
- `gpt4`: `GPT4Tokenizer`, exact parity with tiktoken
- `base`: what every tokenizer shares (vocab, rank-ordered merging, decode)
- `train_fast`: `train_bpe`, a fast trainer with the same merges, built on
  `pretokenize` (counting distinct pre-tokens) and `chunks` (cutting a corpus
  for parallel workers)
- `corpora`, `viz`: built-in texts, and ways to look at tokens
- `checks`: the worksheets' checkers, with `check_cases` (the cases),
  `check_runner` (runs them) and `check_references` (the right answers);
  `grading`: the grader; `exercises`: the worksheet generator
- `cli`, `course`: the command line; the repository URL and notebook header
"""

from .pairs import best_pair, get_stats, merge
from .base import Tokenizer
from .basic import BasicTokenizer
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .files import load, save_tiktoken, to_tiktoken
from .encodings import get_encoding
from .gpt4 import GPT4Tokenizer
from .train_fast import train_bpe
from .viz import merge_tree, show_tokens

__all__ = [
    "get_stats", "merge", "best_pair", "Tokenizer", "BasicTokenizer",
    "GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN", "GPT4O_SPLIT_PATTERN",
    "RegexTokenizer", "load", "to_tiktoken", "save_tiktoken", "get_encoding",
    "GPT4Tokenizer", "show_tokens", "merge_tree", "train_bpe",
]
