"""Worksheet 01, UTF-8 warm-ups: `utf8_bytes`, `code_points_and_bytes`, `safe_decode`."""

from __future__ import annotations

from .common import REF, calls, Checker, course_ref, Group, random_texts

UTF8_TEXTS = ["", "a", "hello", "é", "€", "😀", "\x00", "\x7f", "\x80", "\u07ff", "\u0800",
              "\uffff", "\U00010000", "\U0010ffff", "naïve café", "안녕하세요", "e\u0301",
              "👩‍👩‍👧"]
BYTES_HINT = ("é is one code point (233) but two bytes in UTF-8, 195 and 169. "
              "text.encode('utf-8') gives the bytes; list(...) turns them into ints. "
              "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above.")


def utf8_bytes_groups() -> list[Group]:
    return [Group(calls("utf8_bytes", [(t,) for t in UTF8_TEXTS], BYTES_HINT)),
            Group(calls("utf8_bytes", [(t,) for t in random_texts(1, 20)], BYTES_HINT),
                  hidden=True)]


def code_points_groups() -> list[Group]:
    hint = ("len(text) counts code points; len(text.encode('utf-8')) counts bytes. "
            "'é' is 1 code point and 2 bytes; '😀' is 1 code point and 4 bytes. "
            "Return the two numbers as a tuple: (code points, bytes).")
    return [Group(calls("code_points_and_bytes", [(t,) for t in UTF8_TEXTS], hint)),
            Group(calls("code_points_and_bytes", [(t,) for t in random_texts(2, 20)], hint),
                  hidden=True)]


def safe_decode_groups() -> list[Group]:
    ok = "Valid UTF-8 decodes as usual: bytes(byte_list).decode('utf-8', errors='replace')."
    bad = ("These bytes are not valid UTF-8. Decode with errors='replace', which puts U+FFFD "
           "('\ufffd') where bytes are broken: errors='ignore' drops them silently, and "
           "latin-1 never fails but gives the wrong characters.")
    valid = [[], [104, 105], [195, 169], [240, 159, 152, 128], [226, 130, 172, 32, 49]]
    broken = [[128], [195], [104, 255, 105], [240, 159, 152], [0xED, 0xA0, 0x80],
              [0xC0, 0xAF], [104, 105, 226, 130]]
    hidden = [[0xF8, 0x88, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [97] * 5 + [0xE0, 0x80],
              list("añ😀".encode()) + [0x9F, 0x9F]]
    return [Group(calls("safe_decode", [(b,) for b in valid], ok)
                  + calls("safe_decode", [(b,) for b in broken], bad)),
            Group(calls("safe_decode", [(b,) for b in hidden], bad), hidden=True)]


WORKSHEET = "01_utf8_warmups"
# checker name (also the check cell's nbgrader grade_id) -> points
POINTS = {"utf8_bytes": 1, "code_points_and_bytes": 1, "safe_decode": 1}

CHECKERS = [
        Checker("utf8_bytes", "utf8_bytes", "function", course_ref(REF + "utf8_list"),
            utf8_bytes_groups),
        Checker("code_points_and_bytes", "code_points_and_bytes", "function",
            course_ref(REF + "code_points_and_bytes"), code_points_groups),
        Checker("safe_decode", "safe_decode", "function", course_ref(REF + "safe_decode"),
            safe_decode_groups),
]


# -- hidden cases drawn afresh for each grading run (see cases.groups_for) -----------------

def _texts(rng, n):
    from .common import random_texts
    return random_texts(rng.randrange(2**31), n)


def _broken_bytes(rng) -> list[int]:
    data = list(_texts(rng, 1)[0].encode("utf-8"))
    for _ in range(rng.randrange(1, 4)):             # break it: drop, cut or add a byte
        where = rng.randrange(len(data) + 1)
        data.insert(where, rng.choice([0x80, 0xBF, 0xC0, 0xE2, 0xF0, 0xFF, rng.randrange(256)]))
    return data


def _unchanged_bytes(rng):
    from .common import unchanged
    return unchanged("safe_decode", (_broken_bytes(rng),), 0,
                     "Leave the list you are given as it was: decode a copy (bytes(byte_list)).")


HIDDEN = {
    "utf8_bytes": lambda rng: [Group(calls("utf8_bytes", [(t,) for t in _texts(rng, 60)],
                                           BYTES_HINT))],
    "code_points_and_bytes": lambda rng: [Group(calls(
        "code_points_and_bytes", [(t,) for t in _texts(rng, 60)],
        "len(text) counts code points; len(text.encode('utf-8')) counts bytes."))],
    "safe_decode": lambda rng: [Group(calls(
        "safe_decode", [(_broken_bytes(rng),) for _ in range(40)]
        + [(list(t.encode()),) for t in _texts(rng, 15)],
        "Decode with errors='replace'.") + [_unchanged_bytes(rng) for _ in range(3)])],
}
