"""GPT-2 offline: r50k_base from the vendored file, the lecture's numbers, p50k, and GPT-2's
own encoder.json / vocab.bpe rebuilt byte for byte. Parity with tiktoken on every OpenAI
encoding, GPT-2's included, is in `test_openai_parity`; the byte map that GPT-2's files use is
in `tests/story/openai/test_byte_map.py`."""

import hashlib
import json

from bpe_course import GPT2_SPLIT_PATTERN, get_encoding
from bpe_course.openai import gpt2_files
from bpe_course.openai.byte_map import str_to_token
from bpe_course.openai.encodings import P50K_EXTRA_TOKENS, load_ranks, rank_file


def test_the_lectures_numbers():
    for name in ["gpt2", "r50k_base"]:
        enc = get_encoding(name)
        assert enc.name == name
        assert enc.encode("hello world") == [31373, 995]
        assert enc.encode("hello <|endoftext|>", allowed_special="all") == [31373, 220, 50256]
        assert enc.n_vocab == 50257 and enc.eot_token == 50256
        assert enc._pat_str == GPT2_SPLIT_PATTERN


def test_gpt2_and_r50k_are_the_same_vocabulary():
    assert load_ranks("gpt2") is load_ranks("r50k_base")
    assert len(load_ranks("r50k_base")) == 50256


def test_p50k_is_r50k_plus_runs_of_spaces():
    r50k, p50k = load_ranks("r50k_base"), load_ranks("p50k_base")
    assert len(p50k) == len(r50k) + 24
    assert {t: r for t, r in p50k.items() if t not in r50k} == \
        {t: 50257 + k for k, t in enumerate(P50K_EXTRA_TOKENS)}
    assert hashlib.sha256(rank_file("p50k_base")).hexdigest() == \
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"


# -- GPT-2's own files -------------------------------------------------------------
def test_rebuilt_files_are_openais_byte_for_byte():
    assert hashlib.sha256(gpt2_files.vocab_bpe()).hexdigest() == gpt2_files.VOCAB_BPE_SHA256
    assert hashlib.sha256(gpt2_files.encoder_json()).hexdigest() == gpt2_files.ENCODER_JSON_SHA256


def test_encoder_and_merges_agree_with_the_ranks():
    ranks = load_ranks("r50k_base")
    encoder = json.loads(gpt2_files.encoder_json())
    assert len(encoder) == 50257 and encoder["<|endoftext|>"] == 50256
    assert {str_to_token(s): i for s, i in encoder.items() if i != 50256} == ranks
    lines = gpt2_files.vocab_bpe_lines()
    assert len(lines) == 50000
    for k, line in enumerate(lines):             # merge k makes the token of rank 256 + k
        left, right = line.split(" ")
        assert ranks[str_to_token(left) + str_to_token(right)] == 256 + k


def test_tiktokens_own_reader_accepts_the_rebuilt_files(tmp_path):
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    (tmp_path / "vocab.bpe").write_bytes(gpt2_files.vocab_bpe())
    (tmp_path / "encoder.json").write_bytes(gpt2_files.encoder_json())
    ranks = data_gym_to_mergeable_bpe_ranks(
        str(tmp_path / "vocab.bpe"), str(tmp_path / "encoder.json"),
        gpt2_files.VOCAB_BPE_SHA256, gpt2_files.ENCODER_JSON_SHA256)
    assert ranks == load_ranks("r50k_base")
