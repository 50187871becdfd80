"""Worksheet 01, UTF-8 warm-ups: `utf8_bytes`, `code_points_and_bytes`, `encode_code_point`,
`safe_decode`."""

from __future__ import annotations

import random

from .common import (REF, Case, Checker, Group, Worksheet, calls, course_ref, escaped,
                     random_texts)

UTF8_TEXTS = ["", "a", "hello", "é", "€", "😀", "\x00", "\x7f", "\x80", "\u07ff", "\u0800",
              "\uffff", "\U00010000", "\U0010ffff", "naïve café", "안녕하세요", "e\u0301",
              "👩‍👩‍👧"]
BYTES_HINT = ("é is one code point (233) but two bytes in UTF-8, 195 and 169. "
              "text.encode('utf-8') gives the bytes; list(...) turns them into ints. "
              "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above.")
# the texts whose case gets a hint of its own: (code points, bytes) spelled out
TEXT_HINTS = {
    "e\u0301": "'e\\u0301' looks like one character but is two code points: 'e' and the "
                "combining acute accent U+0301 (2 bytes in UTF-8), so 2 code points and 3 bytes.",
    "👩‍👩‍👧": "This family emoji is 5 code points (3 people joined by 2 zero width joiners "
             "U+200D): 3 × 4 + 2 × 3 = 18 bytes.",
    "😀": "'😀' is 1 code point (U+1F600) and 4 bytes.",
    "é": "'é' (U+00E9) is 1 code point and 2 bytes.",
}


def text_cases(name: str, texts, default: str) -> list[Case]:
    return [Case(f"{name}({escaped(t)})", TEXT_HINTS.get(t, default)) for t in texts]


def utf8_bytes_groups() -> list[Group]:
    return [Group(text_cases("utf8_bytes", UTF8_TEXTS, BYTES_HINT)),
            Group(calls("utf8_bytes", [(t,) for t in random_texts(1, 20)], BYTES_HINT),
                  hidden=True)]


def code_points_groups() -> list[Group]:
    hint = ("len(text) counts code points; len(text.encode('utf-8')) counts bytes. "
            "Return the two numbers as a tuple: (code points, bytes).")
    return [Group(text_cases("code_points_and_bytes", UTF8_TEXTS, hint)),
            Group(calls("code_points_and_bytes", [(t,) for t in random_texts(2, 20)], hint),
                  hidden=True)]


def encode_code_point_groups() -> list[Group]:
    one = "Up to U+007F (127) a code point is its own single byte: [cp]."
    two = ("U+0080 to U+07FF take 2 bytes: 110xxxxx 10xxxxxx, the top 5 bits of the code "
           "point then the low 6: [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)].")
    three = ("U+0800 to U+FFFF take 3 bytes: 1110xxxx 10xxxxxx 10xxxxxx, the bits taken "
             "from the top: cp >> 12, then (cp >> 6) & 0x3F, then cp & 0x3F.")
    four = ("U+10000 to U+10FFFF take 4 bytes: 11110xxx then three 10xxxxxx, from "
            "cp >> 18 down to cp & 0x3F. Check the boundary: 0xFFFF still takes 3 bytes.")
    surrogate = ("U+D800 to U+DFFF are surrogates, halves of UTF-16 pairs, not characters: "
                 "UTF-8 has no bytes for them. Raise ValueError yourself (chr(cp).encode() "
                 "would raise UnicodeEncodeError, a different error).")
    too_big = "Code points stop at U+10FFFF (and start at 0): raise ValueError outside that."
    edges = [(0, one), (0x41, one), (0x7F, one), (0x80, two), (0xE9, two), (0x7FF, two),
             (0x800, three), (0x20AC, three), (0xD7FF, three), (0xE000, three),
             (0xFFFF, three), (0x10000, four), (0x1F44B, four), (0x10FFFF, four)]
    bad = [(0xD800, surrogate), (0xDBFF, surrogate), (0xDC00, surrogate), (0xDFFF, surrogate),
           (0x110000, too_big), (-1, too_big)]
    cases = [Case(f"encode_code_point({hex(cp)})", hint) for cp, hint in edges + bad]
    cases.append(Case("[b for ch in 'hé€👋' for b in encode_code_point(ord(ch))]", four))
    rng = random.Random(5)
    hidden = [rng.choice([rng.randrange(0x80, 0x800), rng.randrange(0x800, 0xD800),
                          rng.randrange(0x10000, 0x110000)]) for _ in range(20)]
    return [Group(cases),
            Group([Case(f"encode_code_point({hex(cp)})", four) for cp in hidden]
                  + [Case("encode_code_point(0xdabc)", surrogate)], hidden=True)]


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


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

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


WORKSHEET = Worksheet(
    "01_utf8_warmups",
    points={"utf8_bytes": 1, "code_points_and_bytes": 1, "encode_code_point": 2,
            "safe_decode": 1},
    checkers=[
        Checker("utf8_bytes", "utf8_bytes", "function", course_ref(REF + "utf8_list"),
                utf8_bytes_groups),
        Checker("code_points_and_bytes", "code_points_and_bytes", "function",
                course_ref(REF + "code_points_and_bytes"), code_points_groups),
        Checker("encode_code_point", "encode_code_point", "function",
                course_ref(REF + "encode_code_point"), encode_code_point_groups),
        Checker("safe_decode", "safe_decode", "function", course_ref(REF + "safe_decode"),
                safe_decode_groups),
    ],
    hidden={
        "utf8_bytes": lambda rng: [Group(calls("utf8_bytes", [(t,) for t in _texts(rng, 60)],
                                               BYTES_HINT))],
        "code_points_and_bytes": lambda rng: [Group(calls(
            "code_points_and_bytes", [(t,) for t in _texts(rng, 60)],
            "len(text) counts code points; len(text.encode('utf-8')) counts bytes."))],
        "safe_decode": lambda rng: [Group(calls(
            "safe_decode", [(_broken_bytes(rng),) for _ in range(40)]
            + [(list(t.encode()),) for t in _texts(rng, 15)],
            "Decode with errors='replace'.") + [_unchanged_bytes(rng) for _ in range(3)])],
    },
)
