"""Fixtures that several test files share.

- `ours_and_tiktoken(name)`: the course's `OpenAITokenizer` beside tiktoken's own
  `Encoding` for one OpenAI encoding, each built once per session.
- `tricky_text`: a Hypothesis strategy for text that the OpenAI split patterns find hard.
- `mistral`: `SentencePieceBPE.mistral()`, Mistral 7B's tokenizer, built once per session.
- `spm`: the sentencepiece library, for tests that compare with it (skipped without it).
- `no_network`: a test that opens a connection fails.
- `spm_models`: `.model` files that `spm_train` learns from the course's prose, once per
  session: Unigram models with each normalization rule (and a rule file), byte fallback,
  user-defined and control pieces; a BPE model with the library's defaults.
- `wordpiece_tokenizer`: a `tokenizers` BERT tokenizer (BertNormalizer, BertPreTokenizer,
  WordPiece) trained on the prose, once per session.
- `copy_tree(source, target)`: `shutil.copytree` without what Jupyter and Python write
  beside the course's files (`.ipynb_checkpoints/` after `make lab`, `__pycache__/`, ...),
  for tests that copy a folder of the repository.
- `many_scripts`: a Hypothesis strategy for text in many scripts, with the characters
  normalizers treat specially (accents, combining marks, full-width forms, ligatures,
  control characters, whitespace runs).
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
from pathlib import Path

# Numerical libraries run each matrix product on a thread per core (numpy's OpenBLAS, OpenMP
# builds). When the suite's other processes already keep every core busy, those threads spin
# waiting for each other: 300 products of the sizes chapter 16 trains with took 3.9 s of CPU
# on two threads and 0.7-0.8 s on one, with two other processes busy on the 2 cores. One
# thread each, set before anything loads them; the kernels that run notebooks inherit it.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import pytest
from hypothesis import strategies as st

from bpe_course import OpenAITokenizer, SentencePieceBPE, corpora, get_encoding

# Python 3.12 is Colab's. In tox's py312 (tox.ini sets BPE_NOTEBOOKS_IN_COLAB=1), the Colab test
# (tests/notebooks/test_colab.py) runs every chapter as Colab runs it, its stored outputs
# compared as nbval compares them, and every worksheet, asking what test_exercises.py asks of
# it; it must not skip. Neither nbval's run of the chapters nor test_exercises.py's run of the
# worksheets happens a second time there. That keeps one Python's run under ten minutes on
# two cores.
NOTEBOOKS_IN_COLAB = os.environ.get("BPE_NOTEBOOKS_IN_COLAB") == "1"
CHAPTERS_FOLDER = Path(__file__).resolve().parent.parent / "notebooks"
WORKSHEETS_RUN_IN_COLAB = "test_exercise_runs_end_to_end_with_not_attempted_verdicts"


def pytest_collection_modifyitems(config, items):
    if not NOTEBOOKS_IN_COLAB:
        return
    in_colab = [item for item in items if
                (item.path.suffix == ".ipynb" and item.path.resolve().parent == CHAPTERS_FOLDER)
                or getattr(item, "originalname", None) == WORKSHEETS_RUN_IN_COLAB]
    if in_colab:
        config.hook.pytest_deselected(items=in_colab)
        items[:] = [item for item in items if item not in set(in_colab)]

# A user-defined normalization rule file for spm_train: source code points, a tab, the
# code points to write instead (hex). Longest match wins, so "ﬁ" and "AB" are rules too.
SPM_RULES = "FB01\t66 69\n41 42\t78\n41\t61\n3000\t20\n9\t20\nE9\t65\nFF21\t41\n"
SPM_MODELS = {   # name -> spm_train options beyond model_type, vocab_size and the corpus
    "unigram_nmt_nfkc": dict(model_type="unigram"),            # the library's defaults
    "unigram_nfkc": dict(model_type="unigram", normalization_rule_name="nfkc"),
    "unigram_nmt_nfkc_cf": dict(model_type="unigram", normalization_rule_name="nmt_nfkc_cf"),
    "unigram_identity": dict(model_type="unigram", normalization_rule_name="identity",
                             remove_extra_whitespaces=False),
    "unigram_rule_file": dict(model_type="unigram"),           # + normalization_rule_tsv
    "unigram_byte_fallback": dict(model_type="unigram", byte_fallback=True,
                                  character_coverage=0.999),
    "unigram_user_defined": dict(model_type="unigram", control_symbols=["<ctrl>"],
                                 user_defined_symbols=["foo", "<tag>", "42"],
                                 add_dummy_prefix=False),
    "bpe_nmt_nfkc": dict(model_type="bpe"),                    # the library's defaults
    "bpe_user_defined": dict(model_type="bpe", user_defined_symbols=["foo", "<tag>"],
                             byte_fallback=True),
}


@pytest.fixture(scope="session")
def ours_and_tiktoken():
    """`ours_and_tiktoken(name)` -> (OpenAITokenizer(name), tiktoken's Encoding for name).

    Building ours reads and checks 100,000 ranks or more, so each is built once; both are
    only read by the tests that use them.
    """
    @functools.cache
    def pair(name: str):
        return OpenAITokenizer(name), get_encoding(name)
    return pair


@pytest.fixture(scope="session")
def tricky_text():
    """Any UTF-8 text, or a run of the pieces that the split patterns treat specially
    (contractions, digit groups, whitespace runs, a combining mark, a ZWJ, special-token
    text, GPT-2's "Ġ"). Draw from it with `data.draw(tricky_text)`."""
    # Characters Python's Unicode has not assigned (Cn) are left out: the `regex` module
    # and tiktoken's Rust engine may know different Unicode versions and class them
    # differently (see bpe_course/openai/tokenizer.py).
    any_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cn"]), max_size=300)
    pieces = st.lists(st.sampled_from(["a", "A", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "’",
                                       "1", "123", "4567", "é", "e\u0301", "Ж", "中", "👍", "🏽",
                                       "\u200d", "!", "...", "<|endoftext|>", "<|fim_prefix|>",
                                       "Ġ", "_", "/", "x"]),
                      max_size=60).map("".join)
    return st.one_of(any_text, pieces)


@pytest.fixture(scope="session")
def mistral() -> SentencePieceBPE:
    """Mistral 7B's SentencePiece tokenizer, shipped with the package (no skip)."""
    return SentencePieceBPE.mistral()


@pytest.fixture(scope="session")
def spm():
    """The sentencepiece library, which the course's SentencePiece code is checked against."""
    return pytest.importorskip("sentencepiece")


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to connect (a socket, or `requests.get` as tiktoken downloads) raises."""
    import requests

    def refuse(*args, **kwargs):
        raise OSError("network access in a test")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(requests, "get", refuse)


@pytest.fixture(scope="session")
def spm_models(tmp_path_factory, spm) -> dict[str, bytes]:
    """name -> the bytes of a `.model` file trained by `spm_train` (see SPM_MODELS)."""
    folder = tmp_path_factory.mktemp("spm_models")
    rules = folder / "rules.tsv"
    rules.write_text(SPM_RULES, encoding="utf-8")
    lines = corpora.prose()[:150_000].splitlines()
    models = {}
    for name, options in SPM_MODELS.items():
        if name == "unigram_rule_file":
            options = options | {"normalization_rule_tsv": str(rules)}
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_prefix=str(folder / name), vocab_size=800,
            num_threads=1, minloglevel=2, **options)
        models[name] = (folder / f"{name}.model").read_bytes()
    return models


@pytest.fixture(scope="session")
def wordpiece_tokenizer():
    """A `tokenizers` BERT tokenizer trained on the prose: BertNormalizer, BertPreTokenizer,
    WordPiece (2,000 pieces, [UNK] among them), the WordPiece decoder."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers
    tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=2000, special_tokens=["[UNK]"],
                                        show_progress=False)
    tok.train_from_iterator(corpora.prose().splitlines(), trainer)
    return tok


@pytest.fixture(scope="session")
def many_scripts():
    """Text in many scripts, with what normalizers treat specially."""
    pieces = st.sampled_from([
        "a", "Z", " ", "  ", "   ", "\t", "\n", "\r\n", "\u3000", "\xa0", "\u2009", "\x00",
        "\x01", "\x1f", "\x7f", "\u200b", "\u200d", "\ufeff", "\ufffd", "\u00ad",
        "é", "e\u0301", "Å", "ñ", "ß", "İ", "ς", "Σ", "ǅ", "ﬁ", "ﬀ", "Ａ", "ｂ", "１", "！",
        "ｶ", "①", "½", "™", "㎏", "Ж", "щ", "Ω", "ά", "中", "文", "鬱", "𠀀", "가", "힣",
        "ᄀ", "あ", "ア", "ๆ", "ि", "ا", "😀", "👍🏽", "🇺🇸", "▁", "▁▁", "<s>", "</s>",
        "<unk>", "foo", "<tag>", "<ctrl>", "42", "AB", "don't", "U.S.A.", "$", "^", "…",
        "«", "»", "—", "\u166d", "\U00011938", "\ue000", "\U000f0000"])
    return st.one_of(st.lists(pieces, max_size=25).map("".join),
                     st.text(st.characters(blacklist_categories=("Cs",)), max_size=30))


# What tools write beside the course's files in a working copy: JupyterLab's checkpoints (a
# notebook opened in `make lab`), Python's bytecode, test and Hypothesis caches, editors.
WRITTEN_BESIDE = (".ipynb_checkpoints", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis",
                  ".virtual_documents", ".DS_Store", "*~")


@pytest.fixture(scope="session")
def copy_tree():
    """`copy_tree(source, target, *also)`: copy a folder of the repository as git would see
    it, leaving out what Jupyter and Python wrote beside it (and the patterns in `also`)."""
    def copy(source, target, *also):
        return shutil.copytree(source, target, ignore=shutil.ignore_patterns(*WRITTEN_BESIDE, *also))
    return copy
