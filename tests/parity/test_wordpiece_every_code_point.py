"""BERT's normalizer and pre-tokenizer equal `tokenizers`' on every code point, one at a time.

This is where Unicode versions show: `tokenizers` reads categories from Unicode 8.0 tables,
lowercases with Rust's Unicode 16 and decomposes with an older crate, while Python's
`unicodedata` is 13 to 15.1 depending on the Python. The course ships what differs
(`categories`, `LOWERCASE_NEWER`, `NFD_OLDER`); this test finds any character they miss.
About 10 seconds.
"""

from __future__ import annotations

import pytest

from bpe_course.wordpiece.normalizer import normalize
from bpe_course.wordpiece.pretokenizer import pretokenize

tokenizers = pytest.importorskip("tokenizers")

CHARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


@pytest.mark.slow
def test_the_normalizer_equals_bert_normalizer_on_every_code_point():
    theirs = tokenizers.normalizers.BertNormalizer()
    differ = [hex(ord(c)) for c in CHARS if theirs.normalize_str(c) != normalize(c)[0]]
    assert differ == []


@pytest.mark.slow
def test_the_pretokenizer_equals_bert_pretokenizer_on_every_code_point():
    split = tokenizers.pre_tokenizers.BertPreTokenizer()
    differ = [hex(ord(c)) for c in CHARS
              if [w for w, _ in split.pre_tokenize_str(f"a{c}b")]
              != [w for w, _, _ in pretokenize(f"a{c}b")]]
    assert differ == []
