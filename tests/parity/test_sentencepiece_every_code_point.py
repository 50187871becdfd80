"""SentencePiece's normalization equals the library's on every code point, for every rule.

Each character is normalized between two letters (`x` + c + `y`), so that a character the
rules remove or turn into a space shows what it does inside a text. About 35 seconds.
"""

from __future__ import annotations

import pytest

from bpe_course import load_sentencepiece

CHARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "unigram_nfkc", "unigram_nmt_nfkc_cf",
                                  "unigram_identity", "unigram_rule_file"])
def test_normalize_equals_the_library_on_every_code_point(spm_models, spm, name):
    ref = spm.SentencePieceProcessor(model_proto=spm_models[name])
    ours = load_sentencepiece(spm_models[name])
    differ = [hex(ord(c)) for c in CHARS if ours.normalize(f"x{c}y") != ref.normalize(f"x{c}y")]
    assert differ == []
