"""bpe_course: the reference package of the bpe-course notebooks.

The package follows the course. Its first modules are flat and each adds one
thing to the ones before it, as minbpe's base -> basic -> regex -> gpt4 do;
each later part of the course has a folder. This is the package's one map;
every module's docstring says what it adds.

Chapters 01-05, the core (flat; a module's later chapters in brackets too):

- `text` (01): text meets bytes: `utf8_bytes`, `fix_surrogates`, input checks
- `pairs` (02): `get_stats`, `merge`, and the tie-break rule (`best_pair`)
- `model_file` (03): a tokenizer is its merges; the plain-text model file
- `dropout` (12): BPE-dropout, encoding with merges skipped at random
  (`encode(text, dropout=0.1, rng=...)`), for subword regularization
- `base` (03): `Tokenizer`, what every tokenizer shares: vocab, encoding by
  rank, decode, save and load
- `basic` (02, 03): `BasicTokenizer`, byte-level BPE over the whole text
- `patterns` (04): the split patterns of GPT-2, GPT-4 and GPT-4o
- `special` (05): cutting special tokens out of text, the `allowed_special` modes
- `pretokenize` (04, 07): splitting text into pre-tokens, and counting them fast
- `streaming` (08): encoding a stream of any size in bounded memory
- `regex_tokenizer` (04, 05, 08): `RegexTokenizer`, BPE inside the chunks of a
  pattern, with special tokens; `from_vocab_merges` for a vocabulary with its
  own ids (and entries no merge makes, kept decodable: CS336's contract)

The later parts, a folder each:

- `openai/` (06, 08, 15): OpenAI's encodings offline (`get_encoding`) and
  `OpenAITokenizer`, equal to tiktoken and a drop-in `tiktoken.Encoding` (06);
  GPT-2's own files and byte map (08); its `encode_with_unstable` (15)
- `training/` (07): `train_bpe`, the fast trainer: a corpus cut where no
  pre-token spans a cut, counted in parallel (local processes, or any
  `concurrent.futures.Executor`: a Dask cluster), merged with incremental counts
- `files/` (08, after training): tokenizers as files: the course's model
  files, tiktoken's rank file, Hugging Face's files, ids on disk (`.npy`)
- `sentencepiece/` (11, 12): SentencePiece's BPE on code points (Llama 2, Mistral):
  the `.model` file, its normalization, `SentencePieceBPE` and
  `SentencePieceUnigram` equal to the library (`load_sentencepiece`), a code-point
  BPE trainer, and `train_unigram`, Unigram training by EM and pruning
- `wordpiece/` (12): BERT's WordPiece: its normalizer, its pre-tokenizer
  and greedy longest-match-first, with offsets, equal to `tokenizers`; and
  `train_wordpiece`, training by the likelihood score
- `pipeline/` (12): the pipeline every `tokenizer.json` describes:
  normalizer -> pre-tokenizer -> model -> post-processor -> decoder, with each
  token's offsets in the original text; `load_tokenizer_json` reads BPE,
  WordPiece and Unigram files, equal to `tokenizers`
- `chat/` (15): a chat as ids: Mistral's chat template for `transformers`, Mistral's
  own message-by-message encoding, and token healing at the end of a prompt
- `lab/` (17): training at scale: a gigabyte of real text built from Debian's
  packages (`python -m bpe_course corpus build`), with a manifest of sources,
  licences and sha256 and a held-out split; peak memory, throughput, bytes per
  token and bits per byte

Around the story: `corpora` (the course's texts, hash-checked), `viz` (ways to
look at tokens), `explorer` (a live token explorer), `cli` (`python -m
bpe_course ...`).

The classroom, apart from the story in `bpe_course.classroom`, checks and
grades learners' work; nothing in the story imports it. `import bpe_course`
loads none of it; `from bpe_course import checks` (what worksheets write)
loads the checkers on demand.

Importing the package only defines things: it writes no file and changes no
global state. Plain `tiktoken.get_encoding(name)` works offline because the
package installs a tiktoken plugin (`tiktoken_ext.bpe_course_offline`) that
fills tiktoken's cache the first time tiktoken looks for its encodings; call
`offline_tiktoken()` to do it yourself and see what happened.
"""

from importlib import metadata as _metadata

from ._safe_path import guard as _guard

_guard()        # only under `python -m bpe_course`: see _safe_path

from .pairs import best_pair, get_stats, merge  # noqa: E402 (after the guard, on purpose)
from .base import Tokenizer
from .basic import BasicTokenizer
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .openai.encodings import get_encoding
from .openai.tokenizer import GPT4Tokenizer, OpenAITokenizer, UnknownTokenError
from .openai.tiktoken_cache import offline_tiktoken
from .training.trainer import train_bpe
from .files.model_files import load, save_tiktoken, to_tiktoken
from .files.huggingface import load_vocab_merges, save_tokenizer_json, save_vocab_merges
from .sentencepiece.tokenizer import SentencePieceBPE
from .sentencepiece.trainer import train_codepoint_bpe
from .sentencepiece.unigram import SentencePieceUnigram
from .sentencepiece.unigram_trainer import train_unigram
from .sentencepiece.load import load_sentencepiece
from .wordpiece.tokenizer import WordPiece
from .wordpiece.trainer import train_wordpiece
from .pipeline.tokenizer_json import load_tokenizer_json
from .viz import compare_tokens, merge_tree, show_tokens
from .explorer import token_explorer

# The one version number is pyproject.toml's; the installed package's metadata carries it.
try:
    __version__ = _metadata.version("bpe-course")
except _metadata.PackageNotFoundError:      # the source tree on sys.path, not installed
    __version__ = "0+unknown"

__all__ = [
    "get_stats", "merge", "best_pair", "Tokenizer", "BasicTokenizer",
    "GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN", "GPT4O_SPLIT_PATTERN", "RegexTokenizer",
    "get_encoding", "GPT4Tokenizer", "OpenAITokenizer", "UnknownTokenError", "offline_tiktoken",
    "train_bpe", "load", "to_tiktoken", "save_tiktoken", "save_vocab_merges",
    "load_vocab_merges", "save_tokenizer_json", "load_tokenizer_json",
    "SentencePieceBPE", "SentencePieceUnigram", "load_sentencepiece", "WordPiece",
    "train_codepoint_bpe", "train_unigram", "train_wordpiece", "show_tokens",
    "compare_tokens", "merge_tree", "token_explorer",
]


def __getattr__(name: str):
    """`from bpe_course import checks` (what worksheets write) loads the classroom's checkers
    only when asked, so that `import bpe_course` stays the tokenizer story alone."""
    if name == "checks":
        from .classroom.checking import checks
        return checks
    raise AttributeError(f"module 'bpe_course' has no attribute {name!r}")
