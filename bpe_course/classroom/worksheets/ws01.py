"""Worksheet 01, UTF-8 warm-ups: `utf8_bytes`, `code_points_and_bytes`, `encode_code_point`,
`safe_decode`."""

from __future__ import annotations

import random
import unicodedata

from ..checking.plain import Raised
from .common import (
    CONTRACT,
    EDGE,
    REF,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    calls,
    course_ref,
    escaped,
    random_texts,
)

# "UTF-8 by hand": what counts as letting Python encode, a rule the grader reads from the
# learner's source (`checking.source_rules`). An entry is a dotted name (a module or a
# function, matched with everything under it), `.NAME` (an attribute of that name on any
# object, `getattr(x, "NAME")` included), or `NAME(str, encoding)` (the builtin called with
# a second argument or `encoding=`).
BY_HAND_UTF8 = (".encode", "bytes(str, encoding)", "bytearray(str, encoding)", "codecs",
                "_codecs", "encodings", "os.fsencode", "urllib.parse.quote",
                "urllib.parse.quote_plus", "urllib.parse.quote_from_bytes")

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


SURROGATE_HINT = ("A lone surrogate such as '\\ud800' (half of a UTF-16 pair: Python strings "
                  "can hold one, but it is no character) has no UTF-8 bytes: let "
                  "text.encode('utf-8') raise its UnicodeEncodeError, as the worksheet says.")


def text_cases(name: str, texts, default: str) -> list[Case]:
    return [Case(f"{name}({escaped(t)})", TEXT_HINTS.get(t, default),
                 breaks=WRONG if t else EDGE) for t in texts]


def wrong_calls(name: str, args_list, hint: str = "") -> list[Case]:
    """`calls` whose failure is a wrong result on ordinary input."""
    cases = calls(name, args_list, hint)
    for case in cases:
        case.breaks = WRONG
    return cases


def utf8_bytes_groups() -> list[Group]:
    lone = Case("utf8_bytes('\\ud800')", SURROGATE_HINT, expected=Raised("UnicodeEncodeError", ""),
                breaks=CONTRACT)
    return [Group(text_cases("utf8_bytes", UTF8_TEXTS, BYTES_HINT) + [lone]),
            Group(wrong_calls("utf8_bytes", [(t,) for t in random_texts(1, 20)], BYTES_HINT)
                  + [Case("utf8_bytes('a\\udc80b')", SURROGATE_HINT,
                          expected=Raised("UnicodeEncodeError", ""), breaks=CONTRACT)],
                  hidden=True)]


def recognize_utf8(inputs: dict, expected, got):
    """What a wrong list of bytes is: code points, UTF-16 or UTF-32, latin-1."""
    text = inputs["args"][0]
    if not isinstance(text, str) or not isinstance(got, list):
        return None
    if got == [ord(c) for c in text]:
        return ("code_points", "these are the text's code points (ord of each character), "
                "not its UTF-8 bytes: a character above U+007F takes 2 to 4 bytes.")
    for codec in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"):
        if got == list(text.encode(codec, errors="surrogatepass")):
            return ("utf16", f"these are the text's {codec.upper()} bytes, not its UTF-8 "
                    f"bytes: encode with 'utf-8'.")
    if any(not isinstance(b, int) or not 0 <= b <= 255 for b in got):
        return ("not_bytes", "not bytes: every item must be an int from 0 to 255.")
    return None


def count_hint() -> str:
    return ("len(text) counts code points; len(text.encode('utf-8')) counts bytes. "
            "Return the two numbers as a tuple: (code points, bytes).")


def recognize_counts(inputs: dict, expected, got):
    """Which two numbers were counted instead of (code points, UTF-8 bytes)."""
    text = inputs["args"][0]
    if not isinstance(text, str) or not isinstance(got, tuple) or len(got) != 2:
        return None
    points, size = len(text), len(text.encode("utf-8"))
    if got[0] == points and got[1] == points:
        return ("code_points", "both numbers count code points: len(text) is not the number "
                "of bytes; count len(text.encode('utf-8')).")
    if got[0] == len(unicodedata.normalize("NFC", text)) and got[0] != points:
        return ("normalized", "the first number counts the characters after normalization "
                "(what the eye sees), not the code points of the text as it is: len(text).")
    for codec in ("utf-16-le", "utf-16", "utf-32-le", "utf-32"):
        if got[1] == len(text.encode(codec, errors="surrogatepass")) and got[1] != size:
            return ("utf16", f"the second number counts {codec.upper()} bytes, not UTF-8 "
                    f"bytes: len(text.encode('utf-8')).")
    return None


def code_points_groups() -> list[Group]:
    hint = count_hint()
    return [Group(text_cases("code_points_and_bytes", UTF8_TEXTS, hint)),
            Group(wrong_calls("code_points_and_bytes", [(t,) for t in random_texts(2, 20)],
                              hint), hidden=True)]


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
    cases = [Case(f"encode_code_point({hex(cp)})", hint, breaks=WRONG) for cp, hint in edges]
    cases += [Case(f"encode_code_point({hex(cp)})", hint, breaks=CONTRACT) for cp, hint in bad]
    cases.append(Case("[b for ch in 'hé€👋' for b in encode_code_point(ord(ch))]", four,
                      breaks=WRONG))
    rng = random.Random(5)
    hidden = [rng.choice([rng.randrange(0x80, 0x800), rng.randrange(0x800, 0xD800),
                          rng.randrange(0x10000, 0x110000)]) for _ in range(20)]
    return [Group(cases),
            Group([Case(f"encode_code_point({hex(cp)})", four, breaks=WRONG) for cp in hidden]
                  + [Case("encode_code_point(0xdabc)", surrogate, breaks=CONTRACT)],
                  hidden=True)]


RANGES = ((0x7F, 1, "U+0000 to U+007F"), (0x7FF, 2, "U+0080 to U+07FF"),
          (0xFFFF, 3, "U+0800 to U+FFFF"), (0x10FFFF, 4, "U+10000 to U+10FFFF"))
LEADS = {1: (0x80, 0x00), 2: (0xE0, 0xC0), 3: (0xF0, 0xE0), 4: (0xF8, 0xF0)}


def recognize_code_point(inputs: dict, expected, got):
    """Which part of the UTF-8 layout a wrong list of bytes gets wrong."""
    cp = inputs["args"][0]
    if not isinstance(cp, int) or not isinstance(got, list) or not isinstance(expected, list):
        return None
    size = len(expected)
    span = next(words for top, n, words in RANGES if n == size)
    if len(got) != size:
        return ("boundary", f"wrong number of bytes: U+{cp:04X} lies in {span}, which takes "
                f"{size} byte{'s' if size > 1 else ''}, and your code gave {len(got)}. Check "
                f"the comparisons at the boundaries of the table: cp < 0x80, cp < 0x800, "
                f"cp < 0x10000.")
    if got == list(cp.to_bytes(size, "big")):
        return ("raw", "these are the code point's own bytes, not its UTF-8 encoding: UTF-8 "
                "spreads the bits over bytes that start with marker bits (110, 1110, 11110, "
                "then 10).")
    if not all(isinstance(b, int) for b in got):
        return None
    mask, lead = LEADS[size]
    if size > 1 and (got[0] & mask) != lead:
        return ("lead_byte", f"the lead byte's marker bits are wrong: a {size}-byte sequence "
                f"starts with {bin(lead >> (8 - size - 1))[2:]}0 (0x{lead:02X} | the top "
                f"bits), and yours is {got[0]:08b}.")
    if any((b & 0xC0) != 0x80 for b in got[1:]):
        return ("continuation", "a continuation byte lacks its marker: every byte after "
                "the first is 10xxxxxx, 0x80 | (6 bits).")
    if any(not 0 <= b <= 255 for b in got):
        return ("not_bytes", "a number above 255 is not a byte: mask each part (& 0x3F) "
                "before adding the marker bits.")
    return ("bits", "the marker bits are right but the code point's bits are cut in the "
            "wrong places: 6 bits per continuation byte, from the top: cp >> 18, "
            "cp >> 12, cp >> 6, each & 0x3F.")


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
    strict = {"raised:UnicodeDecodeError": "A strict decode raises on broken bytes: pass "
              "errors='replace', which puts U+FFFD where bytes are broken."}
    cases = (calls("safe_decode", [(b,) for b in valid[:1]], ok)
             + wrong_calls("safe_decode", [(b,) for b in valid[1:]], ok)
             + wrong_calls("safe_decode", [(b,) for b in broken], bad))
    for case in cases:
        case.when = strict
    return [Group(cases),
            Group(wrong_calls("safe_decode", [(b,) for b in hidden], bad), hidden=True)]


def recognize_decode(inputs: dict, expected, got):
    """Which decoding a wrong text is: dropping, latin-1, escapes, or byte by byte."""
    data = inputs["args"][0]
    if not isinstance(data, list) or not isinstance(got, str):
        return None
    raw = bytes(data)
    if got == "":
        return ("empty", "empty result: the broken bytes were dropped, or decoding gave up "
                "on them: each broken sequence must show as U+FFFD (errors='replace'), so "
                "that the reader sees something was there.")
    if got == raw.decode("utf-8", errors="ignore"):
        return ("dropped", "the broken bytes were dropped (errors='ignore'): they must show "
                "as U+FFFD, so that the reader sees something was there.")
    if got == raw.decode("latin-1"):
        return ("latin1", "this is the bytes read as latin-1 (one character per byte), "
                "which never fails but turns every multi-byte character into two or more "
                "wrong ones: decode as UTF-8 with errors='replace'.")
    for errors in ("backslashreplace", "surrogateescape"):
        if got == raw.decode("utf-8", errors=errors):
            return ("escapes", f"errors='{errors}' writes the broken bytes as escapes; "
                    f"the worksheet asks for U+FFFD (errors='replace').")
    if got == "".join(bytes([b]).decode("utf-8", errors="replace") for b in raw):
        return ("bytewise", "each byte was decoded on its own, so every character of two "
                "or more bytes became U+FFFD: decode the whole list at once.")
    return None


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
                     "Leave the list you are given as it was: decode a copy (bytes(byte_list)).",
                     params=("byte_list",))


def _code_points_hidden(rng):
    """Code points at every boundary of the UTF-8 table and one step either side, anywhere
    in each range, the surrogates' edges and numbers that are no code points."""
    edges = [0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF, 0xD7FF, 0xE000]
    valid = edges + [rng.randrange(lo, hi) for lo, hi in ((0, 0x80), (0x80, 0x800),
                                                          (0x800, 0xD800), (0xE000, 0x10000),
                                                          (0x10000, 0x110000)) for _ in range(4)]
    bad = [0xD800, 0xDFFF, rng.randrange(0xD800, 0xE000), 0x110000,
           rng.randrange(0x110000, 0x200000), -rng.randrange(1, 1000)]
    four = "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above."
    return [Group([Case(f"encode_code_point({hex(cp)})", four, breaks=WRONG) for cp in valid]
                  + [Case(f"encode_code_point({hex(cp)})", "Raise ValueError for surrogates "
                          "and numbers outside 0 to 0x10FFFF.", breaks=CONTRACT) for cp in bad]
                  + [Case(f"[b for ch in {escaped(t)} for b in encode_code_point(ord(ch))]",
                          four, breaks=WRONG) for t in _texts(rng, 10)])]


WORKSHEET = Worksheet(
    "01_utf8_warmups",
    points={"utf8_bytes": 1, "code_points_and_bytes": 1, "encode_code_point": 2,
            "safe_decode": 1},
    checkers=[
        Checker("utf8_bytes", "utf8_bytes", "function", course_ref(REF + "utf8_list"),
                utf8_bytes_groups, recognize=recognize_utf8),
        Checker("code_points_and_bytes", "code_points_and_bytes", "function",
                course_ref(REF + "code_points_and_bytes"), code_points_groups,
                recognize=recognize_counts),
        Checker("encode_code_point", "encode_code_point", "function",
                course_ref(REF + "encode_code_point"), encode_code_point_groups,
                recognize=recognize_code_point),
        Checker("safe_decode", "safe_decode", "function", course_ref(REF + "safe_decode"),
                safe_decode_groups, recognize=recognize_decode),
    ],
    forbidden={"encode_code_point": BY_HAND_UTF8},
    answers=("bpe_course.text.utf8_bytes",),
    hidden={
        "utf8_bytes": lambda rng: [Group(wrong_calls("utf8_bytes", [(t,) for t in _texts(rng, 60)],
                                                     BYTES_HINT))],
        "code_points_and_bytes": lambda rng: [Group(wrong_calls(
            "code_points_and_bytes", [(t,) for t in _texts(rng, 60)], count_hint()))],
        "encode_code_point": _code_points_hidden,
        "safe_decode": lambda rng: [Group(wrong_calls(
            "safe_decode", [(_broken_bytes(rng),) for _ in range(40)]
            + [(list(t.encode()),) for t in _texts(rng, 15)],
            "Decode with errors='replace'.") + [_unchanged_bytes(rng) for _ in range(3)])],
    },
)
