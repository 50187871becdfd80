"""A text file to token ids on disk (`encode --input FILE --output OUT`): the ids of the whole
file, as `.npy` (uint16 or uint32) or text, and no output at all when the input is bad."""

import pytest

from bpe_course import RegexTokenizer, cli, corpora
from bpe_course.corpora import HARD_STRINGS
from bpe_course.training.trainer import train_into

EOT = "<|endoftext|>"
SPECIALS = [EOT, "<|end|>", EOT + EOT]
# The course's hard strings and samples, special tokens side by side, then a long run of prose.
TEXT = ("".join(HARD_STRINGS) + "".join(corpora.SAMPLES.values()) + f"{EOT}{EOT}<|end|>x{EOT}"
        + corpora.prose()[:50_000])


def main(args) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def tok():
    tok = RegexTokenizer()
    train_into(tok, corpora.prose()[:30_000], 500, SPECIALS)
    return tok


@pytest.fixture
def model_and_text(tok, tmp_path):
    tok.save(tmp_path / "tok")
    (tmp_path / "in.txt").write_bytes(TEXT.encode("utf-8", "surrogatepass"))
    return tok, tmp_path, TEXT


def test_cli_streams_a_file_to_npy_and_to_text(model_and_text, capsys):
    np = pytest.importorskip("numpy")
    tok, folder, text = model_and_text
    expected = tok.encode(text.encode("utf-8", "surrogatepass").decode("utf-8"), "all")
    assert main(["encode", "--model", folder / "tok.model", "--input", folder / "in.txt",
                 "--output", folder / "ids.npy"]) == 0
    ids = np.load(folder / "ids.npy")
    assert ids.dtype == np.uint16 and ids.tolist() == expected
    out = capsys.readouterr()
    assert f"into {len(expected):,} tokens" in out.out and out.err == ""   # no bar off a terminal
    assert main(["encode", "--model", folder / "tok.model", "--input", folder / "in.txt",
                 "--output", folder / "ids.txt"]) == 0
    assert [int(x) for x in (folder / "ids.txt").read_text().split()] == expected


def test_cli_writes_uint32_when_ids_do_not_fit_in_16_bits(tmp_path):
    np = pytest.importorskip("numpy")
    tok = RegexTokenizer()
    train_into(tok, corpora.prose()[:5000], 300)
    tok.register_special_tokens({"<|big|>": 70_000})
    tok.save(tmp_path / "big")
    (tmp_path / "in.txt").write_text("hello<|big|>world", encoding="utf-8")
    assert main(["encode", "--model", tmp_path / "big.model", "--input", tmp_path / "in.txt",
                 "--output", tmp_path / "ids.npy"]) == 0
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint32 and ids.tolist() == tok.encode("hello<|big|>world", "all")


def test_cli_reports_a_file_that_is_not_utf8_and_leaves_no_output(model_and_text, capsys):
    _, folder, _ = model_and_text
    (folder / "bad.txt").write_bytes(b"fine text \xff\xfe then bad")
    assert main(["encode", "--model", folder / "tok.model", "--input", folder / "bad.txt",
                 "--output", folder / "ids.npy"]) == 2
    assert "utf-8" in capsys.readouterr().err and not (folder / "ids.npy").exists()
