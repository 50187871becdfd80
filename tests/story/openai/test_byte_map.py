"""GPT-2's byte map: one printable character for each byte, used by GPT-2's and Hugging Face's
files."""

import pytest

from bpe_course.openai.byte_map import BYTE_TO_CHAR, bytes_to_unicode, str_to_token, token_to_str


def test_bytes_to_unicode_is_a_bijection_onto_printable_characters():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in table.values())
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("A")] == "A"


def test_printable_bytes_stand_for_themselves():
    assert len(set(BYTE_TO_CHAR.values())) == 256
    assert all(BYTE_TO_CHAR[b] == chr(b) for b in b"!~\xa1\xac\xae\xff")


def test_token_strings_round_trip():
    for token in [b" the", b"\n\n", b"\xe4\xb8", b"hello"]:
        assert str_to_token(token_to_str(token)) == token
    assert token_to_str(b" the") == "Ġthe"
    assert token_to_str(" the\n") == "ĠtheĊ" and str_to_token("ĠtheĊ") == b" the\n"


def test_a_character_outside_the_map_is_refused():
    with pytest.raises(ValueError, match="byte map"):
        str_to_token("a b")
