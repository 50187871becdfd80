"""Facts about the course itself, kept in one place: where it lives, how notebooks start.

Every notebook's Colab badge and setup cell are generated from these
(`tools/notebooks.py headers`, and the exercise generator), and a test checks
that all notebooks agree with them.
"""

REPO = "bpe-course/bpe-course"           # GitHub owner/name
BRANCH = "main"
SETUP_MARK = "# Setup: in Colab, install the course package; elsewhere, nothing to do."
# The kernel every notebook stores: ipykernel's own spec, which plain Jupyter, Binder and
# `make lab` (Makefile) all offer under these names, so opening a notebook leaves it unchanged.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def badge(relpath: str) -> str:
    """Markdown for an Open-in-Colab badge of the notebook at `relpath` in the repository."""
    url = f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/{relpath}"
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url})"


def setup_source() -> str:
    """The first code cell of every notebook: installs the package in Colab only, once per
    runtime (a second chapter opened in the same runtime finds it and skips the 24-91 s of
    cloning and building it again)."""
    return "\n".join([
        SETUP_MARK,
        "import sys",
        "from importlib.util import find_spec",
        "",
        'if "google.colab" in sys.modules and find_spec("bpe_course") is None:',
        f'    %pip install --quiet "bpe-course @ git+https://github.com/{REPO}@{BRANCH}"',
        '    print("bpe-course installed; no restart needed.")',
        'elif "google.colab" in sys.modules:',
        '    print("bpe-course is already installed in this runtime.")',
    ])


# -- the path through the chapters -------------------------------------------------------------
# Each chapter, in order, with what it introduces from the package: a module (every name in it),
# a name (`bpe_course.X`) or a method (".name", on the objects the chapter shows). A chapter may
# use what it or an earlier chapter introduces, nothing later (tests/notebooks/test_path.py);
# a worksheet follows the chapter of its number.
CHAPTERS = [
    ("01", "unicode_and_bytes", "Unicode and bytes",
     ["bpe_course.text", "bpe_course.corpora", "bpe_course.checks", "bpe_course.BasicTokenizer",
      "bpe_course.show_tokens", "bpe_course.viz.show_tokens", ".encode", ".decode", ".vocab"]),
    ("02", "naive_bpe", "Naive BPE",
     ["bpe_course.pairs", "bpe_course.get_stats", "bpe_course.merge", "bpe_course.best_pair",
      "bpe_course.merge_tree", "bpe_course.viz.merge_tree", "bpe_course.basic", ".train",
      ".merges"]),
    ("03", "encode_decode", "Encode and decode",
     ["bpe_course.base", "bpe_course.Tokenizer", "bpe_course.save_load",
      "bpe_course.token_explorer", "bpe_course.explorer"]),
    ("04", "regex_pretokenization", "Regex pre-tokenization",
     ["bpe_course.patterns", "bpe_course.GPT2_SPLIT_PATTERN", "bpe_course.GPT4_SPLIT_PATTERN",
      "bpe_course.GPT4O_SPLIT_PATTERN", "bpe_course.RegexTokenizer",
      "bpe_course.regex_tokenizer", "bpe_course.pretokenize", ".encode_ordinary"]),
    ("05", "special_tokens_and_saving", "Special tokens and saving",
     ["bpe_course.special", ".register_special_tokens", ".special_tokens", ".save", ".load",
      "bpe_course.load"]),
    ("06", "gpt4_compatibility", "GPT-4 compatibility",
     ["bpe_course.openai.encodings", "bpe_course.openai.tokenizer", "bpe_course.get_encoding",
      "bpe_course.GPT4Tokenizer", "bpe_course.OpenAITokenizer", "bpe_course.UnknownTokenError",
      "bpe_course.openai",
      "bpe_course.openai.tiktoken_cache", "bpe_course.offline_tiktoken"]),
    ("07", "fast_training", "Fast training",
     ["bpe_course.training", "bpe_course.train_bpe"]),
    ("08", "files_and_vocabularies", "Files and vocabularies",
     ["bpe_course.files", "bpe_course.openai.gpt2_files", "bpe_course.openai.byte_map",
      "bpe_course.streaming", "bpe_course.to_tiktoken", "bpe_course.save_tiktoken",
      "bpe_course.load_tokenizer_json", "bpe_course.save_tokenizer_json",
      "bpe_course.load_vocab_merges", "bpe_course.save_vocab_merges", ".from_vocab_merges",
      ".encode_iterable"]),
    ("09", "tokenization_in_practice", "Tokenization in practice",
     ["bpe_course.viz", "bpe_course.compare_tokens", ".first_merges"]),
    ("10", "what_the_model_sees", "What the model sees", []),
    ("11", "sentencepiece", "SentencePiece",
     ["bpe_course.sentencepiece", "bpe_course.SentencePieceBPE",
      "bpe_course.train_codepoint_bpe"]),
    ("12", "subword_family", "WordPiece and Unigram",
     ["bpe_course.wordpiece", "bpe_course.WordPiece", "bpe_course.train_wordpiece",
      "bpe_course.sentencepiece.unigram", "bpe_course.sentencepiece.unigram_trainer",
      "bpe_course.sentencepiece.load", "bpe_course.SentencePieceUnigram",
      "bpe_course.train_unigram", "bpe_course.load_sentencepiece", ".tokenize_word",
      ".nbest_encode"]),
    ("13", "tokenizer_pipeline", "The tokenizer pipeline",
     ["bpe_course.pipeline", "bpe_course.sentencepiece.normalizer", "bpe_course.dropout",
      ".encode_with_offsets", ".no_padding", ".no_truncation"]),
    ("14", "tokenizers_in_transformers", "Tokenizers in a model's pipeline",
     ["bpe_course.pipeline.tokenizer_json.minilm_tokenizer_config_json"]),
    ("15", "chat_templates", "Chat templates and the end of a prompt", ["bpe_course.chat"]),
    ("16", "beyond_text_bpe", "Beyond text BPE", []),
    ("17", "lab_at_scale", "Lab: training at scale", ["bpe_course.lab"]),
]


def introduced_in(name: str) -> str | None:
    """The chapter that introduces `name` ("bpe_course.a.b" or ".method"): its own entry,
    else the entry of the longest module above it; None if the map does not know it."""
    entries = {entry: number for number, _, _, names in CHAPTERS for entry in names}
    if name.startswith("."):
        return entries.get(name)
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in entries:
            return entries[".".join(parts[:end])]
    return None


# -- how long a chapter is -------------------------------------------------------------------
MAX_CELLS, MAX_WORDS = 40, 1800     # a chapter a learner can do in one sitting (issue 34)


def chapter_size(nb) -> dict[str, int]:
    """Cells and words of prose of a notebook (an `nbformat` node): `words` counts the prose
    on the chapter's path, leaving out code blocks, the quiz (the cell tagged `quiz`) and
    "going deeper" asides folded in `<details>` (counted apart as `deeper`)."""
    import re
    size = {"cells": len(nb.cells), "words": 0, "deeper": 0, "quiz": 0}
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"```.*?```", " ", cell.source, flags=re.DOTALL)
        if "quiz" in cell.get("metadata", {}).get("tags", []):
            size["quiz"] += len(text.split())
            continue
        folded = re.findall(r"<details>.*?</details>", text, flags=re.DOTALL)
        size["deeper"] += sum(len(f.split()) for f in folded)
        size["words"] += len(re.sub(r"<details>.*?</details>", " ", text,
                                    flags=re.DOTALL).split())
    return size
