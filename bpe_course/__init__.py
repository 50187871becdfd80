"""bpe_course: the reference package of the bpe-course notebooks.

Two layers. The tokenizer story, one module per idea in the order the chapters
teach them; each module imports only modules above it in this list:

- `text` (01): text meets bytes: `utf8_bytes`, `fix_surrogates`, input checks
- `pairs` (02): `get_stats`, `merge`, and the tie-break rule (`best_pair`)
- `model_file` (03, 05): a tokenizer is its merges; the plain-text model file
- `base` (03): `Tokenizer`, what every tokenizer shares: vocab, encoding by
  rank, decode, save and load
- `basic` (02, 03): `BasicTokenizer`, byte-level BPE over the whole text
- `patterns` (04): the split patterns of GPT-2, GPT-4 and GPT-4o
- `special` (05): cutting special tokens out of text, the `allowed_special` modes
- `pretokenize` (04, 07): splitting text into pre-tokens, and counting them fast
- `streaming` (05): encoding a stream of any size in bounded memory
  (`encode_iterable`): hold back the tail that could still change
- `vocab_ids` (05): a vocabulary numbered by someone else, checked, and the ids
  of its bytes, merges and special tokens found (`number_vocab`)
- `regex_tokenizer` (04, 05): `RegexTokenizer`, BPE inside regex chunks, with
  special tokens; `from_vocab_merges` for any vocabulary and its own ids
- `files` (05): `load` a model file, export to tiktoken
- `byte_map` (05): GPT-2's printable character for each byte, so JSON can hold tokens
- `hf_files` (05): Hugging Face's `vocab.json` + `merges.txt` and `tokenizer.json`
- `encodings` (06): OpenAI's encodings offline (`get_encoding`), GPT-2 to GPT-4o
- `tiktoken_api` (06): the rest of tiktoken's `Encoding` interface, as a mixin
- `gpt4` (06): `OpenAITokenizer` (alias `GPT4Tokenizer`), exact parity with
  tiktoken, a drop-in `tiktoken.Encoding`
- `gpt2` (06): GPT-2's own `encoder.json` and `vocab.bpe`, rebuilt from the ranks
- `tiktoken_cache` (06): tiktoken's download cache filled, so plain
  `tiktoken.get_encoding` works offline after `import bpe_course`
- `corpus_cuts`, `chunks`, `train_fast` (07): `train_bpe`, a fast trainer with
  the same merges: a corpus cut where no pre-token spans a cut, counted by
  parallel workers, incremental pair counts
- `corpora`, `viz`: built-in texts, and ways to look at tokens
- `explorer`: a live token explorer (ipywidgets): your tokenizer beside GPT-2,
  GPT-4 and GPT-4o as you type
- `spm_model`, `spm_decode`, `sentencepiece_bpe`, `codepoint_bpe` (09): SentencePiece's
  BPE on code points (Llama 2, Mistral): reading a `.model` file, decoding ids as the
  library does, `SentencePieceBPE` equal to the `sentencepiece` library id for id, and a
  code-point BPE trainer
- `id_files` (05): a text file of any size streamed to ids on disk (`.npy`)
- `cli_errors`, `cli`: the command line (`python -m bpe_course train/encode/...`),
  bad input stopped in one line before any long work; `_safe_path` keeps the
  working directory off `sys.path` under `python -m bpe_course`

The classroom, apart from it in `bpe_course.classroom`: the worksheets'
checkers, the grader and the worksheet generator. `import bpe_course` loads
none of it; `from bpe_course import checks` loads the checkers on demand.
"""

import sys as _sys

if _sys.argv[:1] == ["-m"]:
    # `python -m bpe_course ...` is importing us (runpy sets argv[0] to "-m" meanwhile), with
    # the working directory first on sys.path: drop it before anything else is imported, so
    # a `tiktoken.py` (or any module) left in the grader's folder is never run.
    from ._safe_path import drop_working_directory as _drop

    _drop()

from .pairs import best_pair, get_stats, merge
from .base import Tokenizer
from .basic import BasicTokenizer
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .files import load, save_tiktoken, to_tiktoken
from .hf_files import load_tokenizer_json, load_vocab_merges, save_tokenizer_json, save_vocab_merges
from .encodings import get_encoding
from .gpt4 import GPT4Tokenizer, OpenAITokenizer, UnknownTokenError
from .train_fast import train_bpe
from .viz import compare_tokens, merge_tree, show_tokens
from .explorer import token_explorer
from .sentencepiece_bpe import SentencePieceBPE
from .codepoint_bpe import train_codepoint_bpe
from .tiktoken_cache import seed_quietly as _seed_tiktoken_cache

_seed_tiktoken_cache()          # plain tiktoken.get_encoding(...) now works offline too

__all__ = [
    "get_stats", "merge", "best_pair", "Tokenizer", "BasicTokenizer",
    "GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN", "GPT4O_SPLIT_PATTERN",
    "RegexTokenizer", "load", "to_tiktoken", "save_tiktoken", "save_vocab_merges",
    "load_vocab_merges", "save_tokenizer_json", "load_tokenizer_json", "get_encoding",
    "GPT4Tokenizer", "OpenAITokenizer", "UnknownTokenError", "show_tokens", "compare_tokens",
    "merge_tree", "token_explorer", "train_bpe", "SentencePieceBPE", "train_codepoint_bpe",
]


def __getattr__(name: str):
    """`from bpe_course import checks` (what worksheets write) loads the classroom's checkers
    only when asked, so that `import bpe_course` stays the tokenizer story alone."""
    if name == "checks":
        from .classroom import checks
        return checks
    raise AttributeError(f"module 'bpe_course' has no attribute {name!r}")
