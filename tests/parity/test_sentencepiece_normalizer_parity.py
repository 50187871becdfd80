"""SentencePiece's normalization, equal to the library's `normalize` on every rule it ships.

Models trained here with `nmt_nfkc` (the default), `nfkc`, `nmt_nfkc_cf`, `identity` and a
rule file of our own (`normalization_rule_tsv`); each is checked on the hard strings, the
samples, characters that the rules rewrite, and Hypothesis text in many scripts. A BPE model
trained with the library's defaults now loads and encodes equal to the library.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import SentencePieceBPE, corpora, load_sentencepiece
from bpe_course.sentencepiece.model_proto import read_model
from bpe_course.sentencepiece.normalizer import CharsMap, Normalizer

RULED = ["unigram_nmt_nfkc", "unigram_nfkc", "unigram_nmt_nfkc_cf", "unigram_identity",
         "unigram_rule_file", "unigram_user_defined", "bpe_nmt_nfkc"]
REWRITTEN = ["ﬁ  Ａ", "①②③", "½ ㎏ ™", "ｶﾀｶﾅ", "e\u0301 é", "ΣΑΣ İ ß", "a\u3000b\tc\nd",
             "\x00\x01\x7f\u200b\ufeff", "  lead", "trail  ", "   ", "\t\t", "\u00ad", "AB A ab",
             "▁x ▁▁", "foo<tag>42 <ctrl>", "\ufffd", "\u200d\u200d", ""]
FIXED = list(corpora.HARD_STRINGS) + list(corpora.SAMPLES.values()) + REWRITTEN


@pytest.fixture(scope="module")
def pairs(spm_models, spm):
    """name -> (the library's processor, our normalizer), from the same `.model` bytes."""
    return {name: (spm.SentencePieceProcessor(model_proto=data), load_sentencepiece(data))
            for name, data in spm_models.items()}


def test_the_models_carry_the_rules_they_were_trained_with(spm_models):
    names = {n: read_model(spm_models[n]).normalizer["name"] for n in RULED}
    assert names["unigram_nmt_nfkc"] == names["bpe_nmt_nfkc"] == "nmt_nfkc"
    assert names["unigram_nfkc"] == "nfkc" and names["unigram_nmt_nfkc_cf"] == "nmt_nfkc_cf"
    assert names["unigram_identity"] == "identity"
    assert names["unigram_rule_file"] == "user_defined"
    assert not read_model(spm_models["unigram_identity"]).normalizer["precompiled_charsmap"]


@pytest.mark.parametrize("name", RULED)
def test_normalize_equals_the_library_on_fixed_strings(pairs, name):
    ref, ours = pairs[name]
    for text in FIXED:
        assert ours.normalize(text) == ref.normalize(text), (name, text)


@pytest.mark.parametrize("name", RULED)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_normalize_equals_the_library_on_text_in_many_scripts(pairs, many_scripts, name, data):
    ref, ours = pairs[name]
    text = data.draw(many_scripts)
    assert ours.normalize(text) == ref.normalize(text)


def test_the_rules_do_what_their_names_say(pairs):
    assert pairs["unigram_nmt_nfkc"][1].normalize("ﬁ  Ａ\t①") == "▁fi▁A▁1"
    assert pairs["unigram_nmt_nfkc_cf"][1].normalize("ΣΑΣ Ａ") == "▁σασ▁a"
    assert pairs["unigram_rule_file"][1].normalize("ABA é") == "▁xa▁e"      # longest first
    assert pairs["unigram_identity"][1].normalize(" ﬁ  x") == "▁▁ﬁ▁▁x"


def test_user_defined_pieces_are_not_normalized(pairs):
    ref, ours = pairs["unigram_user_defined"]
    assert ours.normalize("foo") == ref.normalize("foo") == "foo"


def test_a_bpe_model_with_the_library_defaults_encodes_equal_to_it(pairs):
    ref, ours = pairs["bpe_nmt_nfkc"]
    assert isinstance(ours, SentencePieceBPE)
    for text in FIXED:
        ids = ref.encode(text)
        assert ours.encode(text) == ids, text
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        assert ours.decode(ids) == ref.decode(ids), text


@pytest.mark.parametrize("name", ["bpe_nmt_nfkc", "bpe_user_defined"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bpe_encodes_equal_to_the_library_on_text_in_many_scripts(pairs, many_scripts, name, data):
    ref, ours = pairs[name]
    text = data.draw(many_scripts)
    ids = ref.encode(text)
    assert ours.encode(text) == ids
    assert ours.decode(ids) == ref.decode(ids)


@pytest.mark.parametrize("blob, message", [
    (b"\x01\x00", "shorter"), (b"\xff\xff\xff\x00abcd", "claims"), (b"\x06\x00\x00\x00abcdefgh", "claims"),
])
def test_a_malformed_rule_table_is_a_value_error(blob, message):
    with pytest.raises(ValueError, match=message):
        CharsMap(blob)


def test_a_rule_table_that_points_outside_itself_is_a_value_error(spm_models):
    blob = read_model(spm_models["unigram_nmt_nfkc"]).normalizer["precompiled_charsmap"]
    size = int.from_bytes(blob[:4], "little")
    cut = blob[:4 + 64] + blob[4 + size:]            # a trie of 16 units, offsets beyond them
    broken = (64).to_bytes(4, "little") + cut[4:]
    spec = {"precompiled_charsmap": broken, "add_dummy_prefix": True,
            "remove_extra_whitespaces": True, "escape_whitespaces": True}
    with pytest.raises(ValueError, match="malformed precompiled_charsmap"):
        for text in ["ﬁ", "Ａ", "①", "a", "é", "\u3000", "\x01"]:
            Normalizer(spec).normalize(text)


def test_bad_input_is_a_clear_error(pairs):
    ours = pairs["unigram_nmt_nfkc"][1]
    with pytest.raises(TypeError):
        ours.normalize(b"bytes")
    with pytest.raises(ValueError, match="surrogate"):
        ours.normalize("a\ud800b")
    with pytest.raises(TypeError):
        CharsMap("text")
    with pytest.raises(TypeError):
        Normalizer("spec")
    with pytest.raises(ValueError, match="lacks"):
        Normalizer({"name": "x"})
