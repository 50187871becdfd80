"""The command line: `python -m bpe_course train` writes a model that `encode` uses."""

import json
import os
import subprocess
import sys

import pytest

from bpe_course import RegexTokenizer, cli, corpora, load, train_bpe
from bpe_course.files import id_files

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


def test_encode_piped_prints_one_token_per_line_with_its_id(trained):
    _, prefix, _ = trained
    text = f"The object{EOT} is here | or there.\n"
    out = run("encode", "--model", prefix.with_suffix(".model"), text)
    assert out.returncode == 0, out.stderr
    tok = load(prefix.with_suffix(".model"))
    ids = tok.encode(text, allowed_special="all")
    lines = out.stdout.splitlines()
    assert [int(line.split("\t")[0]) for line in lines] == ids
    pieces = [json.loads(line.split("\t", 1)[1]) for line in lines]
    assert [p.encode("utf-8") for p in pieces] == [tok.decode_bytes([i]) for i in ids]
    assert EOT in pieces and "|" in "".join(pieces)
    assert out.stderr == f"{len(ids)} tokens, {len(text)} characters\n"


def test_encode_keeps_bytes_that_are_not_utf8_exactly(trained):
    _, prefix, _ = trained
    text = "🦊 é"                                  # bytes the small model never merged
    for args in ([], ["--json"]):
        out = run("encode", "--model", prefix.with_suffix(".model"), text, *args)
        assert out.returncode == 0, out.stderr
        if args:
            result = json.loads(out.stdout)
            pieces, ids = result["pieces"], result["ids"]
            assert result["characters"] == len(text)
        else:
            rows = [line.split("\t", 1) for line in out.stdout.splitlines()]
            ids, pieces = [int(i) for i, _ in rows], [json.loads(p) for _, p in rows]
        assert "\\udcf0" in out.stdout                     # the 4-byte fox's first byte
        data = b"".join(p.encode("utf-8", "surrogateescape") for p in pieces)
        assert data == text.encode("utf-8")
        assert ids == load(prefix.with_suffix(".model")).encode(text)


def test_encode_colours_the_pieces_on_a_terminal(trained, monkeypatch, capsys):
    _, prefix, _ = trained
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli.cli_encode(["--model", str(prefix.with_suffix(".model")), "a cat"]) == 0
    ids_line, pieces_line, summary = capsys.readouterr().out.splitlines()
    assert ids_line.startswith("[") and "\033[" in pieces_line and summary.endswith("characters")


def test_train_reports_a_missing_corpus_or_bad_vocab_size(tmp_path):
    out = run("train", tmp_path / "missing.txt", "--vocab-size", 300, "-o", tmp_path / "t")
    assert out.returncode == 2 and "no corpus file" in out.stderr
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello", encoding="utf-8")
    out = run("train", corpus, "--vocab-size", 100, "-o", tmp_path / "t")
    assert out.returncode == 2 and "at least 256" in out.stderr
    assert not (tmp_path / "t.model").exists()


def one_line_error(out, *words):
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith("error: ") and out.stderr.count("\n") == 1, out.stderr
    assert all(w in out.stderr for w in words), out.stderr


def test_train_refuses_a_vocab_size_beyond_what_it_can_hold_naming_the_flag(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello", encoding="utf-8")
    one_line_error(run("train", corpus, "--vocab-size", 1_000_000_000, "-o", tmp_path / "t"),
                   "--vocab-size 1000000000", "at most 1,114,112")


def test_a_command_whose_package_is_not_installed_says_what_to_install(tmp_path):
    # nbformat as a plain install (no extras) lacks it: importing it fails as a missing one does
    (tmp_path / "nbformat").mkdir()
    (tmp_path / "nbformat" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'nbformat'\", name='nbformat')\n")
    out = subprocess.run([sys.executable, "-m", "bpe_course", "exercises"], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    one_line_error(out, "exercises", "pip install nbformat", "bpe-course[dev]")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("hello world, hello there\n", encoding="utf-8")
    return path


def test_train_checks_the_output_folder_before_training(corpus, tmp_path):
    one_line_error(run("train", corpus, "--vocab-size", 300, "-o", tmp_path / "nodir" / "x"),
                   "-o", "nodir", "does not exist")
    one_line_error(run("train", corpus, "--vocab-size", 300, "-o", f"{tmp_path}/"),
                   "-o", "not a folder")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root may write into any folder")
def test_train_refuses_a_folder_it_cannot_write(corpus, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    one_line_error(run("train", corpus, "--vocab-size", 300, "-o", locked / "x"),
                   "not writable")


def test_train_refuses_an_empty_corpus_and_bad_arguments(corpus, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    one_line_error(run("train", empty, "--vocab-size", 300, "-o", tmp_path / "t"), "is empty")
    one_line_error(run("train", corpus, "--vocab-size", 256, "--special-token", EOT,
                       "-o", tmp_path / "t"), "--vocab-size 256", "1 special token")
    one_line_error(run("train", corpus, "--vocab-size", "many", "-o", tmp_path / "t"),
                   "--vocab-size", "invalid int value")
    one_line_error(run("train", corpus, "-o", tmp_path / "t"), "--vocab-size", "required")
    one_line_error(run("train", corpus, "--vocab-size", 300, "--special-token", "",
                       "-o", tmp_path / "t"), "--special-token")
    one_line_error(run("train", corpus, "--vocab-size", 300, "--workers", 0,
                       "-o", tmp_path / "t"), "--workers 0")
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe")
    one_line_error(run("train", tmp_path / "bin.txt", "--vocab-size", 300, "-o", tmp_path / "t"),
                   "not UTF-8")
    assert list(tmp_path.glob("t.*")) == []


def test_train_warns_when_the_corpus_runs_out_of_pairs(corpus, tmp_path):
    out = run("train", corpus, "--vocab-size", 1000, "-o", tmp_path / "t")
    assert out.returncode == 0, out.stderr
    merges = len(load(tmp_path / "t.model").merges)
    assert merges < 1000 - 256
    assert out.stderr == (f"warning: learned {merges} of the 744 merges that --vocab-size 1000 "
                          f"asks for: no pair of tokens is left to merge (every pre-token of "
                          f"the corpus is already one token), so the vocabulary has "
                          f"{256 + merges} tokens; use a larger corpus for a larger "
                          f"vocabulary\n")


def test_encode_names_what_is_wrong_with_the_model(trained, tmp_path):
    _, prefix, _ = trained
    one_line_error(run("encode", "--model", prefix, "hi"),
                   f"did you mean --model {prefix}.model?")
    one_line_error(run("encode", "--model", prefix.with_suffix(".vocab"), "hi"),
                   "readable .vocab file")
    one_line_error(run("encode", "--model", tmp_path / "none.model", "hi"), "no such file")
    lines = prefix.with_suffix(".model").read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("pattern ")
    bad = tmp_path / "bad.model"
    bad.write_text("\n".join([lines[0], 'pattern "([a-z"', *lines[2:]]) + "\n", encoding="utf-8")
    one_line_error(run("encode", "--model", bad, "hi"), "--model", "line 2",
                   "not a valid regular expression")
    bad.write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")
    one_line_error(run("encode", "--model", bad, "hi"), "truncated")


def test_load_refuses_a_pattern_that_is_not_a_regex(trained, tmp_path):
    _, prefix, _ = trained
    lines = prefix.with_suffix(".model").read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.model"
    bad.write_text("\n".join([lines[0], 'pattern "(?<broken"', *lines[2:]]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 2: the pattern is not a valid regular expression"):
        load(bad)


# -- encode --input FILE --output OUT (what is written: test_id_files) -----------------

def test_ctrl_c_while_streaming_removes_the_partial_output(trained, tmp_path, monkeypatch, capsys):
    corpus, prefix, _ = trained
    target, seen = tmp_path / "ids.npy", {}
    encode_iterable = RegexTokenizer.encode_iterable

    def interrupted(self, *args, **kwargs):        # Ctrl-C after 5,000 ids, some on disk
        for k, idx in enumerate(encode_iterable(self, *args, **kwargs)):
            if k == 5000:
                seen["partial"] = target.stat().st_size
                raise KeyboardInterrupt
            yield idx
    monkeypatch.setattr(RegexTokenizer, "encode_iterable", interrupted)
    monkeypatch.setattr(id_files, "IDS_PER_WRITE", 1024)
    try:
        status = cli.main(["encode", "--model", str(prefix.with_suffix(".model")),
                           "--input", str(corpus), "--output", str(target)])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped encode as a traceback")
    assert seen["partial"] > 128                    # the header and some ids were written ...
    assert status == 130 and not target.exists()    # ... and are gone
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"interrupted: nothing written to {target}\n"


def test_ctrl_c_while_training_is_one_line_and_status_130(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):         # Ctrl-C in the middle of training
        raise KeyboardInterrupt
    monkeypatch.setattr("bpe_course.training.trainer.train", interrupted)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world " * 200, encoding="utf-8")
    try:
        status = cli.main(["train", str(corpus), "--vocab-size", "300",
                           "-o", str(tmp_path / "tok")])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped train as a traceback")
    out = capsys.readouterr()
    assert status == 130 and out.err == "interrupted: train stopped before it finished\n"
    assert list(tmp_path.iterdir()) == [corpus]                  # nothing written


def test_encode_checks_input_and_output_before_encoding(trained, tmp_path):
    corpus, prefix, _ = trained
    model = prefix.with_suffix(".model")
    out = run("encode", "--model", model, "--input", corpus,
              "--output", tmp_path / "nodir" / "ids.npy")
    one_line_error(out, f"--output {tmp_path / 'nodir' / 'ids.npy'}: the folder "
                        f"{tmp_path / 'nodir'} does not exist (create it first)")
    assert str(corpus) not in out.stderr
    one_line_error(run("encode", "--model", model, "--input", corpus, "--output", f"{tmp_path}/"),
                   "--output", "not a folder")
    one_line_error(run("encode", "--model", model, "--input", tmp_path / "none.txt",
                       "--output", tmp_path / "ids.npy"), "--input", "none.txt", "no such file")
    copy = tmp_path / "in.txt"
    copy.write_text("hello", encoding="utf-8")
    one_line_error(run("encode", "--model", model, "--input", copy, "--output", copy),
                   "--output", "is the --input file")
    assert copy.read_text(encoding="utf-8") == "hello" and not (tmp_path / "ids.npy").exists()


def test_encode_names_the_tokenizer_json_file_it_cannot_load(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"model": {"type": "Unigram"}}), encoding="utf-8")
    out = run("encode", "--model", bad, "hi")
    one_line_error(out, f"--model {bad}: unsupported model type 'Unigram'")
    assert "tokenizer.json" not in out.stderr


def test_help_goes_to_stdout_and_a_missing_or_unknown_command_is_an_error():
    for flag in ("--help", "-h"):
        out = run(flag)
        assert out.returncode == 0 and out.stderr == ""
        assert out.stdout.startswith("The command line") and "encode --model" in out.stdout
    out = run()
    assert out.returncode == 2 and out.stdout == "" and "Commands" in out.stderr
    one_line_error(run("tokenize", "hi"), "no command 'tokenize'", "train, encode", "--help")
