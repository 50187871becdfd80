"""The tokenizer pipeline's story (`bpe_course.pipeline`): offsets survive normalization,
each step does its one job, and a file the course cannot reproduce exactly is refused with
a ValueError naming what, never loaded to give other ids.

Parity with `tokenizers` on trained files is in `tests/parity/test_tokenizer_json_parity.py`.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from bpe_course import load_tokenizer_json
from bpe_course.pipeline import decoders, normalizers, pretokenizers
from bpe_course.pipeline.normalized import NormalizedString
from bpe_course.pipeline.pretokenizers import Split
from bpe_course.pipeline.tokenizer import Truncation

WORDPIECE = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
             "max_input_chars_per_word": 100,
             "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "fine": 3, "cafe": 4, "##s": 5}}
BASE = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True}, "model": WORDPIECE}


def write(tmp_path, change=None, name="tokenizer.json"):
    data = json.loads(json.dumps(BASE))
    if change:
        change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- the story -----------------------------------------------------------------------

def test_offsets_point_into_the_original_text_through_normalization(tmp_path):
    def nfkc_first(data):
        data["normalizer"] = {"type": "Sequence",
                              "normalizers": [{"type": "NFKC"}, BASE["normalizer"]]}
    tok = load_tokenizer_json(write(tmp_path, nfkc_first))
    text = "ＦＩＮＥ Cafés"                      # full-width letters, an accent, a capital
    enc = tok.encode_with_offsets(text)
    assert enc.tokens == ["fine", "cafe", "##s"]
    assert [text[a:b] for a, b in enc.offsets] == ["ＦＩＮＥ", "Café", "s"]
    assert tok.encode(text) == enc.ids and tok.decode(enc.ids) == "fine cafes"


def test_a_normalized_string_remembers_where_each_character_came_from():
    s = NormalizedString("Ǆ ﬁ")
    normalizers.Sequence([normalizers.Unicode("NFKC"), normalizers.Lowercase()])(s)
    assert s.normalized == "dž fi"
    assert s.alignments == [(0, 1), (0, 1), (1, 2), (2, 3), (2, 3)]
    s.prepend("▁")                          # what is added takes the span beside it
    assert s.normalized[0] == "▁" and s.original_span(0, 1) == (0, 1)


def test_split_behaviors_on_one_example():
    text = "the-final--countdown"
    results = {}
    for behavior in ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext",
                     "Contiguous"):
        pieces = pretokenizers.SplitPattern(__import__("regex").compile("-"), behavior)(
            [Split(NormalizedString(text))])
        results[behavior] = [p.normalized.normalized for p in pieces]
    assert results == {"Removed": ["the", "final", "countdown"],
                       "Isolated": ["the", "-", "final", "-", "-", "countdown"],
                       "MergedWithPrevious": ["the-", "final-", "-", "countdown"],
                       "MergedWithNext": ["the", "-final", "-", "-countdown"],
                       "Contiguous": ["the", "-", "final", "--", "countdown"]}


def test_decoders_undo_what_was_written():
    assert decoders.ByteLevel()(["Ġh", "Ã©llo"]) == [" héllo"]
    assert decoders.WordPiece()(["un", "##aff", "##able", ","]) == ["un", "aff", "able", ","]
    assert decoders.ByteFallback()(["a", "<0xE2>", "<0x82>", "<0xAC>", "b", "<0xFF>"]) == \
        ["a", "€", "b", "\ufffd"]


def test_added_tokens_are_found_before_anything_else(tmp_path):
    def add(data):
        data["added_tokens"] = [
            {"id": 1, "content": "[CLS]", "special": True, "normalized": False,
             "single_word": False, "lstrip": False, "rstrip": False},
            {"id": 6, "content": "[Fine]", "special": False, "normalized": False,
             "single_word": False, "lstrip": False, "rstrip": False}]
    tok = load_tokenizer_json(write(tmp_path, add))
    enc = tok.encode_with_offsets("[CLS]fine[Fine]")
    assert enc.ids == [1, 3, 6] and enc.offsets == [(0, 5), (5, 9), (9, 15)]
    assert tok.decode(enc.ids) == "fine [Fine]"                 # special ones are skipped
    assert tok.decode(enc.ids, skip_special_tokens=False) == "[CLS] fine [Fine]"


def test_allowed_special_is_accepted_only_as_all(tmp_path):
    tok = load_tokenizer_json(write(tmp_path))
    assert tok.encode("fine", allowed_special="all") == [3]
    with pytest.raises(ValueError, match="always matches its added tokens"):
        tok.encode("fine", allowed_special="none")
    with pytest.raises(TypeError, match="must be a str"):
        tok.encode_with_offsets(b"fine")


def test_truncation_counts_the_special_tokens_and_padding_fills_to_the_length(tmp_path):
    def bert_batches(data):
        data["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 2],
                                  "cls": ["[CLS]", 1]}
        data["truncation"] = {"max_length": 4, "strategy": "LongestFirst", "stride": 0,
                              "direction": "Right"}
        data["padding"] = {"strategy": {"Fixed": 6}, "direction": "Right", "pad_id": 0,
                           "pad_type_id": 0, "pad_token": "[UNK]", "pad_to_multiple_of": None}
    tok = load_tokenizer_json(write(tmp_path, bert_batches))
    enc = tok.encode_with_offsets("fine cafes fine")      # fine cafe ##s fine: 4 tokens
    assert enc.tokens == ["[CLS]", "fine", "cafe", "[SEP]", "[UNK]", "[UNK]"]
    assert enc.offsets[3:] == [(0, 0)] * 3
    tok.truncation.direction = "Left"
    assert tok.encode("fine cafes fine") == [1, 5, 3, 2, 0, 0]
    tok.no_truncation()
    tok.no_padding()
    assert tok.encode("fine cafes fine") == [1, 3, 4, 5, 3, 2]
    tok.truncation = Truncation(1)        # shorter than [CLS] [SEP]: tokenizers cuts nothing
    assert tok.encode("fine cafes") == [1, 3, 4, 5, 2]


# -- what is refused, by name ------------------------------------------------------

def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


REFUSED = [
    (_set(["model", "type"], "Word2Vec"), "model type 'Word2Vec'"),
    (_set(["normalizer"], {"type": "Uppercase"}), "unsupported normalizer"),
    (_set(["pre_tokenizer"], {"type": "UnicodeScripts"}), "unsupported pre_tokenizer"),
    (_set(["post_processor"], {"type": "Magic"}), "unsupported post_processor"),
    (_set(["decoder"], {"type": "Magic"}), "unsupported decoder"),
    (_set(["truncation"], {"max_length": 5, "strategy": "Sideways"}), "truncation strategy"),
    (_set(["truncation"], {"max_length": -1}), "truncation max_length"),
    (_set(["padding"], {"strategy": {"Fixed": 8}, "direction": "Up"}), "padding direction"),
    (_set(["padding"], {"strategy": "Longest"}), "padding strategy"),
    (_set(["pre_tokenizer"], {"type": "Split", "pattern": {"Regex": "a"},
                              "behavior": "Sideways", "invert": False}), "Split behavior"),
    (_set(["pre_tokenizer"], {"type": "Metaspace", "replacement": "▁",
                              "prepend_scheme": "sometimes"}), "prepend_scheme"),
    (_set(["normalizer"], {"type": "Replace", "pattern": {"Glob": "*"}, "content": ""}),
     "Replace pattern"),
    (_set(["normalizer"], {"type": "BertNormalizer", "clean_text": True, "shout": True}),
     "'shout'"),
    (_set(["post_processor"], {"type": "TemplateProcessing", "single": [
        {"Sequence": {"id": "B", "type_id": 0}}], "pair": [], "special_tokens": {}}),
     "TemplateProcessing single template"),
]


@pytest.mark.parametrize("change, named", REFUSED, ids=[n for _, n in REFUSED])
def test_what_the_course_cannot_reproduce_is_refused_naming_it(tmp_path, change, named):
    path = write(tmp_path, change)
    with pytest.raises(ValueError) as error:
        load_tokenizer_json(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and named in message, message


def _bpe_with_dropout(dropout):
    def bpe(data):
        data["model"] = {"type": "BPE", "dropout": dropout,
                         "vocab": {"[UNK]": 0, "a": 1, "b": 2, "ab": 3, "abab": 4},
                         "merges": ["a b", "ab ab"], "unk_token": "[UNK]"}
        data["decoder"] = None
    return bpe


def test_bpe_dropout_samples_and_a_generator_makes_it_reproducible(tmp_path):
    tok = load_tokenizer_json(write(tmp_path, _bpe_with_dropout(0.5)))
    drawn = {tuple(tok.encode("abab")) for _ in range(200)}    # a fresh draw every call
    assert drawn == {(4,), (3, 3), (3, 1, 2), (1, 2, 3), (1, 2, 1, 2)}
    assert tok.encode("abab", rng=random.Random(0)) == tok.encode("abab", rng=random.Random(0))
    tok.model.dropout = 1.0                                     # nothing merges
    assert tok.encode("abab") == [1, 2, 1, 2]
    tok.model.dropout = None                                    # plain BPE again
    assert tok.encode("abab") == [4]


@pytest.mark.parametrize("dropout", [1.5, -0.5, "0.5"])
def test_a_bpe_dropout_that_is_not_a_probability_is_refused(tmp_path, dropout):
    path = write(tmp_path, _bpe_with_dropout(dropout))
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: the BPE dropout must be a"):
        load_tokenizer_json(path)


@pytest.mark.parametrize("change, named", [
    (lambda d: d.pop("model"), "not a tokenizer.json (no 'model')"),
    (lambda d: d.update(added_tokens=[{"content": "x"}]),
     "added_tokens[0] needs a 'content' string and an int 'id'"),
    (lambda d: d.update(model={"type": "Unigram", "vocab": []}),
     "the Unigram vocabulary must be a non-empty list"),
    (lambda d: d.update(model={"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}),
     "'b' is not in the vocabulary"),
    (lambda d: d["model"].update(unk_token="<oov>"), "no unknown token '<oov>'"),
    (lambda d: d.update(decoder={"type": "Strip"}), "malformed file"),
])
def test_a_malformed_file_is_a_value_error_naming_the_file(tmp_path, change, named):
    path = write(tmp_path, change)
    with pytest.raises(ValueError) as error:
        load_tokenizer_json(str(path))
    assert str(error.value).startswith(f"{path}: ") and named in str(error.value), \
        str(error.value)


def test_files_that_are_missing_or_not_json(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_tokenizer_json(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a JSON file"):
        load_tokenizer_json(tmp_path / "bad.json")


def test_load_tokenizer_json_reads_a_gzipped_file_such_as_the_one_the_course_ships(tmp_path):
    from importlib import resources

    from bpe_course.pipeline import minilm_tokenizer
    shipped = load_tokenizer_json(resources.files("bpe_course") / "data" / "minilm_tokenizer.json.gz")
    assert shipped.encode("Tokenizers!") == minilm_tokenizer().encode("Tokenizers!")
    (tmp_path / "broken.json.gz").write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(ValueError, match="broken.json.gz is not a JSON file"):
        load_tokenizer_json(tmp_path / "broken.json.gz")
