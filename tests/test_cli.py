"""The command line: `python -m bpe_course train` writes a model that `encode` uses."""

import subprocess
import sys

import pytest

from bpe_course import corpora, load, train_bpe

EOT = "<|endoftext|>"


def run(*args):
    return subprocess.run([sys.executable, "-m", "bpe_course", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    corpus = folder / "corpus.txt"
    corpus.write_text(EOT.join(corpora.prose()[:30_000].split("\n\n")), encoding="utf-8")
    out = run("train", corpus, "--vocab-size", 400, "--special-token", EOT,
              "-o", folder / "tok")
    return corpus, folder / "tok", out


def test_train_writes_the_model_and_vocab_files_and_a_summary(trained):
    corpus, prefix, out = trained
    assert out.returncode == 0, out.stderr
    assert prefix.with_suffix(".model").is_file() and prefix.with_suffix(".vocab").is_file()
    assert "143 merges, 1 special token, vocab 400" in out.stdout
    assert "bytes per token" in out.stdout
    assert out.stderr == ""                 # no progress bars when not on a terminal


def test_the_trained_model_has_train_bpes_merges(trained):
    corpus, prefix, _ = trained
    vocab, _ = train_bpe(corpus, 400, [EOT])
    assert load(prefix.with_suffix(".model")).vocab == vocab


def test_encode_prints_the_ids_and_pieces_of_a_trained_model(trained):
    _, prefix, _ = trained
    text = f"The object{EOT} is here."
    out = run("encode", "--model", prefix.with_suffix(".model"), text)
    assert out.returncode == 0, out.stderr
    ids_line, pieces_line, summary = out.stdout.splitlines()
    tok = load(prefix.with_suffix(".model"))
    ids = tok.encode(text, allowed_special="all")
    assert ids_line == str(ids)
    assert pieces_line == "|".join(tok.decode([i]) for i in ids)
    assert EOT in pieces_line
    assert summary == f"{len(ids)} tokens, {len(text)} characters"


def test_train_reports_a_missing_corpus_or_bad_vocab_size(tmp_path):
    out = run("train", tmp_path / "missing.txt", "--vocab-size", 300, "-o", tmp_path / "t")
    assert out.returncode == 2 and "no corpus file" in out.stderr
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello", encoding="utf-8")
    out = run("train", corpus, "--vocab-size", 100, "-o", tmp_path / "t")
    assert out.returncode == 2 and "at least 256" in out.stderr
    assert not (tmp_path / "t.model").exists()
