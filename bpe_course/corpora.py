"""Built-in corpora: fixed texts shipped with the package, no downloads.

- `prose()`: the help topics of `pydoc_data.topics` (what `help("if")` shows),
  466,273 bytes of English technical prose.
- `python_code(max_bytes)`: the standard library's own `.py` files, in sorted
  order, cut at `max_bytes` (8 MB by default) on a line boundary.
- `SAMPLES`: short texts in many languages and scripts, written for this
  course, for comparing tokenizers.
- `HARD_STRINGS`: strings tokenizers get wrong (whitespace runs, CRLF, contractions,
  digits, combining marks, emoji sequences, code, long repeats, special-token text): the
  ladder every parity test of the course climbs.
- `load_text(path)`: a text file of your own, for example TinyStories.

Both texts were taken once from CPython 3.11.7 (`tools/make_corpora.py`) and ship
gzipped in `bpe_course/data/`, so every Python reads the same bytes and every number
the course prints is the same on Python 3.10 to 3.13. Reading them from the running
interpreter instead would change them with each release (3.12's help topics are
27 KB longer). They are (c) the Python Software Foundation, under the PSF License
Version 2 (see NOTICE and `bpe_course/data/LICENSE-PSF.txt`); `MANIFEST` records each
one's source, licence, size and sha256, checked on every load.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
from importlib import resources
from pathlib import Path

_SOURCE = "CPython 3.11.7"
_LICENCE = "PSF License Version 2 (bpe_course/data/LICENSE-PSF.txt)"
MANIFEST: dict[str, dict] = {
    "prose": {
        "file": "prose.txt.gz",
        "source": f"{_SOURCE}: Lib/pydoc_data/topics.py, the topics sorted by key, "
                  "joined by blank lines",
        "licence": _LICENCE,
        "bytes": 466_273,
        "sha256": "71f2ff5d99bdc1f9c48c5c2353ad138201c5ca1c377e0226857ef8fa89b8bcee",
    },
    "python_code": {
        "file": "python_code.txt.gz",
        "source": f"{_SOURCE}: Lib/**/*.py (the UTF-8 ones) in path order, "
                  "cut at 8,000,000 bytes on a line",
        "licence": _LICENCE,
        "bytes": 7_999_999,
        "sha256": "aeaccbb4a562b977489e39023c2e21ac079c16ea1764ef2754e2aaed804e2244",
    },
}

SAMPLES: dict[str, str] = {
    "English": "The quick brown fox jumps over the lazy dog while the cat sleeps in the sun.",
    "German": "Der schnelle braune Fuchs springt über den faulen Hund, während die Katze schläft.",
    "French": "Le renard brun rapide saute par-dessus le chien paresseux pendant que le chat dort.",
    "Spanish": "El rápido zorro marrón salta sobre el perro perezoso mientras el gato duerme.",
    "Russian": "Быстрая коричневая лиса прыгает через ленивую собаку, пока кошка спит на солнце.",
    "Greek": "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο ενώ η γάτα κοιμάται.",
    "Arabic": "الثعلب البني السريع يقفز فوق الكلب الكسول بينما تنام القطة في الشمس.",
    "Hindi": "तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर से कूदती है जबकि बिल्ली धूप में सोती है।",
    "Korean": "빠른 갈색 여우가 게으른 개를 뛰어넘는 동안 고양이는 햇볕 아래에서 잔다.",
    "Japanese": "素早い茶色の狐が怠け者の犬を飛び越え、猫は日なたで眠っている。",
    "Chinese": "敏捷的棕色狐狸跳过了懒惰的狗，而猫在阳光下睡觉。",
    "Emoji": "🦊💨🐕😴 ☀️🐈 👩🏽‍💻 👨‍👩‍👧‍👦 🇩🇪🇯🇵 ❤️‍🔥",
    "Code": "def greet(name: str) -> str:\n    if not name:\n        return \"Hello, world!\"\n    return f\"Hello, {name}!\"\n",
}

HARD_STRINGS = [
    "",                                            # nothing at all
    "a",
    " ",
    "hello world",
    "   leading and trailing   ",
    "\n\n\n",
    "line one\r\nline two\r\n",                    # CRLF
    "tabs\tand\tspaces \t \n mixed",
    "trailing spaces   ",
    "I'm you're he's we'll they'd can't won't",   # contractions
    "I'M YOU'RE HE'S WE'LL THEY'D CAN'T",          # upper case
    "It’s a curly apostrophe: don’t",               # U+2019
    "1 12 123 1234 12345 123456 1234567 12345678901234567890",
    "3.14159 1,000,000 0x1F 1e-9 -42 +7",
    "١٢٣٤٥ ४२ 二十三",                                # non-ASCII digits
    "naïve café résumé Ångström",
    "e\u0301 a\u0308 n\u0303",                     # combining marks
    "Привет, мир! Как дела?",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "안녕하세요 세계",
    "こんにちは世界、カタカナ",
    "你好，世界。",
    "👋🌍 👩‍👩‍👧‍👦 👍🏽 🧑🏿‍🚀",                   # emoji, ZWJ sequences, skin tones
    "🇺🇸🇯🇵🇩🇪 flags",
    "def f(x):\n    if x:\n        return x ** 2\n    return None\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "    \n        \n",                            # indentation-only lines
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "!!!!!!!!!!!!!!????????........",
    "a" * 5000,                                    # very long repeats
    "ab " * 2000,
    "<|endoftext|> is a special token",            # special-token text (encode_ordinary)
    "<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>",
    "\u200b\u200d\ufeff zero width",
    "\x00\x01\x7f control",
    "CamelCaseWords HTTPServer getHTTPResponseCode",
    "https://example.com/path?query=1&b=2#frag",
    "Ωμέγα ΑΛΦΑ",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙",                                  # outside the BMP
]


@functools.lru_cache(maxsize=None)
def _read(name: str) -> bytes:
    """The bytes of one packaged corpus, after checking its size and sha256."""
    entry = MANIFEST[name]
    data = gzip.decompress((resources.files(__package__) / "data" / entry["file"]).read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != entry["bytes"] or digest != entry["sha256"]:
        raise RuntimeError(f"corpus {name!r} is damaged: {len(data):,} bytes with sha256 "
                           f"{digest}, expected {entry['bytes']:,} bytes with {entry['sha256']}; "
                           "reinstall bpe-course")
    return data


@functools.lru_cache(maxsize=None)
def prose() -> str:
    """The pydoc help topics of CPython 3.11.7, sorted by key and joined into one text (466,273 bytes)."""
    return _read("prose").decode("utf-8")


@functools.lru_cache(maxsize=None)
def python_code(max_bytes: int = 8_000_000) -> str:
    """CPython 3.11.7's standard-library sources, in path order, at most `max_bytes` of UTF-8.

    The text is cut on a line boundary; 8,000,000 (the default) gives all of it.
    """
    if not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"max_bytes must be a non-negative int, not {max_bytes!r}")
    data = _read("python_code")[:max_bytes]
    if len(data) < MANIFEST["python_code"]["bytes"]:
        data = data[: data.rfind(b"\n") + 1]              # end on a whole line
    return data.decode("utf-8")


def load_text(path: str | os.PathLike, max_bytes: int | None = None) -> str:
    """Read a UTF-8 text file (for example TinyStories), optionally only its first `max_bytes`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no text file at {path}")
    with open(path, "rb") as f:
        data = f.read() if max_bytes is None else f.read(max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if max_bytes is not None and e.start >= len(data) - 3:
            return data[: e.start].decode("utf-8")  # cut inside a character
        raise ValueError(f"{path} is not UTF-8 text (bad byte at offset {e.start})") from None
