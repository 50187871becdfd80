"""SentencePieceBPE equals the sentencepiece library, id for id, on every model of chapter 11.

The models: Mistral 7B's tokenizer (Llama 2's design), models that `spm_train` learns here
from the course corpus with several settings, and a model of the course's own code-point
trainer (saved as a `.model` file and loaded by the library). Each is checked on the hard
strings, the samples, whitespace runs, digits, characters outside the vocabulary, empty
text, and hypothesis text; decoding on hypothesis id lists.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

spm = pytest.importorskip("sentencepiece")

from bpe_course import SentencePieceBPE, corpora, train_codepoint_bpe  # noqa: E402
from bpe_course.sentencepiece.model_proto import write_model  # noqa: E402
from bpe_course.sentencepiece.tokenizer import mistral_model_bytes  # noqa: E402

EXTRA = [
    " ", "  ", "     ", "a  b   c    d", "  two leading", "two trailing  ", " \n ", "\t\t x",
    "0", "42", "3.14159", "2026-11-23", "1,234,567", "٣٤ ٥٦", "x1y22z333",
    "鬱", "鬱鬱 x 鬱", "ꙮ ᚠᛇᚻ 𓀀", "\U0010ffff", "\x00a\x00", "▁", "▁▁ x▁", "a▁b",
    "Hello", " Hello", "hello Hello HELLO", "<s> </s> <unk> <0x41>",
]
FIXED = list(corpora.HARD_STRINGS) + list(corpora.SAMPLES.values()) + EXTRA

# Each: spm_train options beyond the common ones.
TRAINED = {
    "llama_like": dict(byte_fallback=True, split_digits=True, remove_extra_whitespaces=False,
                       allow_whitespace_only_pieces=True, character_coverage=0.9995),
    "no_fallback": dict(byte_fallback=False, split_digits=False, character_coverage=1.0),
    "unk": dict(byte_fallback=False, split_digits=True, character_coverage=0.99),
    "no_dummy_prefix": dict(byte_fallback=True, add_dummy_prefix=False, character_coverage=0.999),
}
MODELS = ["mistral", *TRAINED, "codepoint"]


def spm_train(lines: list[str], **options) -> bytes:
    """Train a SentencePiece BPE model in memory, quietly and deterministically."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=out, model_type="bpe", vocab_size=1000,
        normalization_rule_name="identity", num_threads=1, minloglevel=2, **options)
    return out.getvalue()


@pytest.fixture(scope="module")
def model_bytes() -> dict[str, bytes]:
    lines = corpora.prose().splitlines()
    found = {name: spm_train(lines, **options) for name, options in TRAINED.items()}
    found["mistral"] = mistral_model_bytes()
    mine = train_codepoint_bpe(corpora.prose()[:100_000], vocab_size=700)
    found["codepoint"] = write_model(mine.pieces, mine.trainer, mine.normalizer)
    return found


@pytest.fixture(scope="module")
def pairs(model_bytes):
    """name -> (the library's processor, ours), both from the same bytes."""
    return {name: (spm.SentencePieceProcessor(model_proto=data), SentencePieceBPE.from_bytes(data))
            for name, data in model_bytes.items()}


def assert_same(ref, ours, text: str) -> None:
    ids = ref.encode(text)
    assert ours.encode(text) == ids, text
    assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
    assert ours.decode(ids) == ref.decode(ids), text


@pytest.mark.parametrize("name", MODELS)
def test_encode_and_decode_equal_the_library_on_the_hard_strings(pairs, name):
    ref, ours = pairs[name]
    for text in FIXED:
        assert_same(ref, ours, text)


@pytest.mark.parametrize("name", MODELS)
def test_the_fixed_strings_reach_the_fallback_paths(pairs, name):
    """The strings above exercise byte fallback or <unk>, so the parity test covers them."""
    ref, ours = pairs[name]
    ids = [i for text in FIXED for i in ref.encode(text)]
    if ours.byte_fallback:
        assert any(ref.is_byte(i) for i in ids)
    else:
        assert ref.unk_id() in ids


CHARS = st.one_of(st.sampled_from(list(" \t\n▁0123456789aeinst.,'ÉéЖ鬱😀")),
                  st.characters(blacklist_categories=("Cs",)))


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(CHARS, max_size=40))
def test_encode_equals_the_library_on_random_text(pairs, name, text):
    ref, ours = pairs[name]
    assert_same(ref, ours, text)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_decode_equals_the_library_on_random_ids(pairs, name, data):
    ref, ours = pairs[name]
    ids = data.draw(st.lists(st.integers(0, ref.vocab_size() - 1), max_size=20))
    assert ours.decode(ids) == ref.decode(ids)


def test_training_is_deterministic(model_bytes):
    """The chapter stores outputs that depend on trained models: they must not change."""
    lines = corpora.prose().splitlines()
    assert spm_train(lines, **TRAINED["llama_like"]) == model_bytes["llama_like"]
