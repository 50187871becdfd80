"""Worksheet 08, files and vocabularies: its solution passes, the files it writes load in
`tokenizers` with the same ids, and the project's wrong answers are caught.

`WRONG` is the project's corpus of wrong answers for this worksheet, written the way a
learner writes them after reading chapter 08 (not by mutating the solution). For each, the
test asserts that it is caught (by the check cell, or by the grader's hidden cases), that
the message names the kind of mistake, and that the points the grader gives it stay within
the cap of what it breaks (see `worksheets.common.BREAKS`).
"""

import json
from pathlib import Path

import pytest

from bpe_course import GPT2_SPLIT_PATTERN, RegexTokenizer, corpora, train_bpe
from bpe_course.classroom.checking.verdicts import KINDS
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "08_files_and_vocabularies"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_the_files_the_solution_writes_load_in_tokenizers_with_the_same_ids(ns, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    text = "\n".join(corpora.SAMPLES.values())
    vocab, merges = train_bpe(text * 2, 256 + 80 + 1, ["<|endoftext|>"],
                              pattern=GPT2_SPLIT_PATTERN)
    ns["write_vocab_merges"](vocab, merges, tmp_path)
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(
        str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = RegexTokenizer.from_vocab_merges(vocab, merges, ["<|endoftext|>"],
                                            pattern=GPT2_SPLIT_PATTERN)
    for sample in [text, corpora.prose()[:3000], "\x00\x7f\xa0\xad é 👍🏽\n\t"]:
        assert hf.encode(sample).ids == ours.encode(sample)
    assert ns["read_vocab_merges"](tmp_path / "vocab.json", tmp_path / "merges.txt") == (
        vocab, merges)


# -- the corpus of wrong answers -------------------------------------------------------------------

WRONG = []


def wrong(checker, says, breaks="wrong"):
    """Add a learner's wrong answer (a function of the solution's names that returns the
    answer) to the corpus: `says` is what its message must name, `breaks` its cap."""
    def add(factory):
        WRONG.append(pytest.param(checker, factory, says, breaks, id=factory.__name__))
        return factory
    return add


@wrong("bytes_to_unicode", "the space maps to itself")
def byte_map_by_isprintable(ns):
    def bytes_to_unicode():                   # "printable" taken literally: the space prints
        table = {b: chr(b) for b in range(256) if chr(b).isprintable()}
        n = 0
        for b in range(256):
            if b not in table:
                table[b] = chr(256 + n)
                n += 1
        return table
    return bytes_to_unicode


@wrong("bytes_to_unicode", "chr(256 + b)")
def byte_map_moved_by_their_own_value(ns):
    def bytes_to_unicode():                   # space comes out right, by luck: 256 + 32
        keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
        table = {}
        for b in keep:
            table[b] = chr(b)
        for b in range(256):
            if b not in table:
                table[b] = chr(256 + b)
        return table
    return bytes_to_unicode


@wrong("bytes_to_unicode", "printable bytes were moved too")
def byte_map_shifting_every_byte(ns):
    def bytes_to_unicode():                   # "move every byte out of the way"
        return {b: chr(256 + b) for b in range(256)}
    return bytes_to_unicode


@wrong("bytes_to_unicode", "range() is left out")
def byte_map_with_exclusive_ranges(ns):
    def bytes_to_unicode():
        bs = list(range(ord("!"), ord("~"))) + list(range(ord("¡"), ord("¬"))) + \
            list(range(ord("®"), ord("ÿ")))
        cs = bs[:]
        n = 0
        for b in range(256):
            if b not in bs:
                bs.append(b)
                cs.append(256 + n)
                n += 1
        return dict(zip(bs, map(chr, cs)))
    return bytes_to_unicode


@wrong("bytes_to_unicode", "the bytes are in byte order", breaks="contract")
def byte_map_in_byte_order(ns):
    def bytes_to_unicode():                   # right values, built byte by byte
        table, n = {}, 0
        for b in range(256):
            c = chr(b)
            if c.isprintable() and c != " ":
                table[b] = c
            else:
                table[b] = chr(256 + n)
                n += 1
        return table
    return bytes_to_unicode


@wrong("bytes_to_unicode", "in increasing byte order")
def byte_map_moved_block_reversed(ns):
    def bytes_to_unicode():
        keep = [b for b in range(256) if chr(b).isprintable() and b != 32]
        table = {b: chr(b) for b in keep}
        moved = [b for b in range(256) if b not in table]
        for k, b in enumerate(reversed(moved)):
            table[b] = chr(256 + k)
        return table
    return bytes_to_unicode


@wrong("write_vocab_merges", "with Latin-1")
def write_with_latin1(ns):
    def write_vocab_merges(vocab, merges, folder):    # "latin-1 maps every byte to a char"
        folder = Path(folder)
        ids = {token.decode("latin-1"): idx for idx, token in vocab.items()}
        (folder / "vocab.json").write_text(json.dumps(ids), encoding="utf-8")
        with open(folder / "merges.txt", "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n")
            for a, b in merges:
                f.write(a.decode("latin-1") + " " + b.decode("latin-1") + "\n")
    return write_vocab_merges


@wrong("write_vocab_merges", "token(s) of `vocab` are missing")
def write_only_what_the_merges_make(ns):
    table = ns["bytes_to_unicode"]

    def write_vocab_merges(vocab, merges, folder):    # rebuilds the ids from the merges
        t = table()
        text = lambda token: "".join(t[b] for b in token)   # noqa: E731
        ids = {text(bytes([b])): b for b in range(256)}
        for k, (a, b) in enumerate(merges):
            ids[text(a + b)] = 256 + k
        Path(folder, "vocab.json").write_text(json.dumps(ids), encoding="utf-8")
        Path(folder, "merges.txt").write_text(
            "#version: 0.2\n" + "".join(f"{text(a)} {text(b)}\n" for a, b in merges),
            encoding="utf-8")
    return write_vocab_merges


@wrong("write_vocab_merges", "vocab.json is written id -> token")
def write_vocab_as_id_to_token(ns):
    table = ns["bytes_to_unicode"]

    def write_vocab_merges(vocab, merges, folder):
        t = table()
        text = lambda token: "".join(t[b] for b in token)   # noqa: E731
        Path(folder, "vocab.json").write_text(
            json.dumps({idx: text(token) for idx, token in vocab.items()}), encoding="utf-8")
        Path(folder, "merges.txt").write_text(
            "#version: 0.2\n" + "".join(f"{text(a)} {text(b)}\n" for a, b in merges),
            encoding="utf-8")
    return write_vocab_merges


@wrong("write_vocab_merges", "the merges are in another order")
def write_merges_sorted(ns):
    table = ns["bytes_to_unicode"]

    def write_vocab_merges(vocab, merges, folder):
        t = table()
        text = lambda token: "".join(t[b] for b in token)   # noqa: E731
        Path(folder, "vocab.json").write_text(
            json.dumps({text(token): idx for idx, token in vocab.items()}), encoding="utf-8")
        lines = sorted(f"{text(a)} {text(b)}" for a, b in merges)    # tidy file
        Path(folder, "merges.txt").write_text("#version: 0.2\n" + "\n".join(lines) + "\n",
                                              encoding="utf-8")
    return write_vocab_merges


@wrong("read_vocab_merges", "the merges are kept as str")
def read_merges_as_strings(ns):
    table = ns["bytes_to_unicode"]

    def read_vocab_merges(vocab_path, merges_path):
        inverse = {c: b for b, c in table().items()}
        with open(vocab_path, encoding="utf-8") as f:
            vocab = {i: bytes(inverse[c] for c in s) for s, i in json.load(f).items()}
        with open(merges_path, encoding="utf-8") as f:
            lines = f.read().splitlines()[1:]
        return vocab, [tuple(line.split()) for line in lines if line]
    return read_vocab_merges


@wrong("read_vocab_merges", "encoded with UTF-8")
def read_with_utf8(ns):
    def read_vocab_merges(vocab_path, merges_path):    # "a str becomes bytes with encode"
        vocab = {i: s.encode("utf-8") for s, i in
                 json.loads(Path(vocab_path).read_text(encoding="utf-8")).items()}
        merges = []
        for line in Path(merges_path).read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                a, b = line.split(" ")
                merges.append((a.encode("utf-8"), b.encode("utf-8")))
        return vocab, merges
    return read_vocab_merges


@wrong("read_vocab_merges", "entr(ies) of vocab.json are lost")
def read_vocab_rebuilt_from_merges(ns):
    table = ns["bytes_to_unicode"]

    def read_vocab_merges(vocab_path, merges_path):    # "the vocab is the merges' tokens"
        inverse = {c: b for b, c in table().items()}
        ids = json.loads(Path(vocab_path).read_text(encoding="utf-8"))
        merges = []
        for line in Path(merges_path).read_text(encoding="utf-8").splitlines()[1:]:
            if line:
                a, b = line.split(" ")
                merges.append((bytes(inverse[c] for c in a), bytes(inverse[c] for c in b)))
        made = {a + b for a, b in merges}
        vocab = {}
        for s, i in ids.items():
            token = bytes(inverse[c] for c in s)
            if len(token) == 1 or token in made:
                vocab[i] = token
        return vocab, merges
    return read_vocab_merges


@wrong("read_vocab_merges", KINDS["exception"])
def read_with_latin1(ns):
    def read_vocab_merges(vocab_path, merges_path):    # the inverse of latin-1 decoding
        vocab = {i: s.encode("latin-1") for s, i in
                 json.loads(Path(vocab_path).read_text(encoding="utf-8")).items()}
        merges = [tuple(p.encode("latin-1") for p in line.split(" ")) for line in
                  Path(merges_path).read_text(encoding="utf-8").splitlines()[1:] if line]
        return vocab, merges
    return read_vocab_merges


@wrong("read_vocab_merges", "sit at other ids")
def read_ids_numbered_in_file_order(ns):
    table = ns["bytes_to_unicode"]

    def read_vocab_merges(vocab_path, merges_path):    # "ids are just positions"
        inverse = {c: b for b, c in table().items()}
        ids = json.loads(Path(vocab_path).read_text(encoding="utf-8"))
        vocab = {k: bytes(inverse[c] for c in s) for k, s in enumerate(ids)}
        merges = [tuple(bytes(inverse[c] for c in p) for p in line.split(" ")) for line in
                  Path(merges_path).read_text(encoding="utf-8").splitlines()[1:] if line]
        return vocab, merges
    return read_vocab_merges


@pytest.mark.parametrize("name, factory, says, breaks", WRONG)
def test_a_wrong_answer_is_caught_named_and_keeps_what_the_rule_allows(
        ns, wrong_answer, name, factory, says, breaks):
    wrong_answer(name, factory(ns), says, breaks)


def test_the_corpus_has_at_least_8_wrong_answers_covering_every_exercise():
    assert len(WRONG) >= 8
    assert {p.values[0] for p in WRONG} == set(WORKSHEETS[WORKSHEET].points)
