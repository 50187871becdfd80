"""bpe_course: the reference package of the bpe-course notebooks.

The package follows the course. Its first modules are flat and each adds one
thing to the ones before it, as minbpe's base -> basic -> regex -> gpt4 do;
each later part of the course has a folder. This is the package's one map;
every module's docstring says what it adds.

Chapters 01-05, the core (flat; a module's later chapters in brackets too):

- `text` (01): text meets bytes: `utf8_bytes`, `fix_surrogates`, input checks
- `pairs` (02): `get_stats`, `merge`, and the tie-break rule (`best_pair`)
- `save_load` (03, 05): a tokenizer is its merges; saving and loading them as the
  course's plain-text model file
- `dropout` (13): BPE-dropout, encoding with merges skipped at random, for
  subword regularization (`encode(text, dropout=0.1, rng=...)` hands it the work)
- `base` (03): `Tokenizer`, what every tokenizer shares: vocab, encoding by
  rank, decode, save and load
- `basic` (02, 03): `BasicTokenizer`, byte-level BPE over the whole text
- `patterns` (04): the split patterns of GPT-2, GPT-4 and GPT-4o
- `special` (05): cutting special tokens out of text, the `allowed_special` modes,
  and the one check of special tokens given by name or with ids
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
- `sentencepiece/` (11, 12, 13): SentencePiece's BPE on code points (Llama 2, Mistral):
  the `.model` file, its normalization, `SentencePieceBPE` and
  `SentencePieceUnigram` equal to the library (`load_sentencepiece`), a code-point
  BPE trainer, and `train_unigram`, Unigram training by EM and pruning
- `wordpiece/` (12): BERT's WordPiece: its normalizer, its pre-tokenizer
  and greedy longest-match-first, with offsets, equal to `tokenizers`; and
  `train_wordpiece`, training by WordPiece's score (pointwise mutual information)
- `pipeline/` (13): the pipeline every `tokenizer.json` describes:
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

from ._safe_path import guard as _guard

_guard()        # only under `python -m bpe_course`: see _safe_path

# Every public name, with the module that defines it. Nothing below is imported until it is
# first used (`bpe_course.train_bpe`, `from bpe_course import OpenAITokenizer`): a notebook
# that needs the first chapters' tokenizers never pays for the pipeline, the trainer's
# progress bars or the installed package's metadata (benchmarks/import_time.py measures it).
_PUBLIC = {
    ".pairs": ["best_pair", "get_stats", "merge"],
    ".base": ["Tokenizer"],
    ".basic": ["BasicTokenizer"],
    ".patterns": ["GPT2_SPLIT_PATTERN", "GPT4_SPLIT_PATTERN", "GPT4O_SPLIT_PATTERN"],
    ".regex_tokenizer": ["RegexTokenizer"],
    ".openai.encodings": ["get_encoding"],
    ".openai.tokenizer": ["GPT4Tokenizer", "OpenAITokenizer", "UnknownTokenError"],
    ".openai.tiktoken_cache": ["offline_tiktoken"],
    ".training.trainer": ["train_bpe"],
    ".files.course_files": ["load"],
    ".files.tiktoken_files": ["save_tiktoken", "to_tiktoken"],
    ".files.huggingface": ["load_vocab_merges", "save_tokenizer_json", "save_vocab_merges"],
    ".sentencepiece.tokenizer": ["SentencePieceBPE"],
    ".sentencepiece.trainer": ["train_codepoint_bpe"],
    ".sentencepiece.unigram": ["SentencePieceUnigram"],
    ".sentencepiece.unigram_trainer": ["train_unigram"],
    ".sentencepiece.load": ["load_sentencepiece"],
    ".wordpiece.tokenizer": ["WordPiece"],
    ".wordpiece.trainer": ["train_wordpiece"],
    ".pipeline.tokenizer_json": ["load_tokenizer_json"],
    ".viz": ["compare_tokens", "merge_tree", "show_tokens"],
    ".explorer": ["token_explorer"],
}
_WHERE = {name: module for module, names in _PUBLIC.items() for name in names}

__all__ = list(_WHERE)


def __getattr__(name: str):
    """Load a public name's module on first use, and keep the name here from then on.

    A submodule (`bpe_course.corpora`, `bpe_course.openai`) loads on first use as well, as if
    the package had imported it; `bpe_course.checks` (worksheets write `from bpe_course import
    checks`) is the classroom's checkers, the one way into the classroom from here."""
    import importlib
    import importlib.util
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    elif name == "checks":
        value = importlib.import_module(".classroom.checking.checks", __name__)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        return importlib.import_module(f".{name}", __name__)      # sets the attribute itself
    elif name == "__version__":
        # The one version number is pyproject.toml's; the installed package's metadata has it.
        from importlib import metadata
        try:
            value = metadata.version("bpe-course")
        except metadata.PackageNotFoundError:      # the source tree on sys.path, not installed
            value = "0+unknown"
    else:
        raise AttributeError(f"module 'bpe_course' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE) | {"__version__"})
