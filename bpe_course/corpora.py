"""Built-in corpora: text every Python installation already has, no downloads.

- `prose()`: the help topics of `pydoc_data.topics` (what `help("if")` shows),
  about 0.47 MB of English technical prose.
- `python_code(max_bytes)`: the standard library's own `.py` files, in sorted
  order, cut at `max_bytes` (8 MB by default) on a line boundary.
- `SAMPLES`: short texts in many languages and scripts, written for this
  course, for comparing tokenizers.
- `HARD_STRINGS`: strings tokenizers get wrong (whitespace runs, CRLF, contractions,
  digits, combining marks, emoji sequences, code, long repeats, special-token text): the
  ladder every parity test of the course climbs.
- `load_text(path)`: a text file of your own, for example TinyStories.

The stdlib corpora come from the Python you run, so their exact bytes differ
slightly between Python versions; `fingerprint` shows which one you have.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sysconfig
from pathlib import Path

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
def prose() -> str:
    """The pydoc help topics joined into one text (about 0.47 MB)."""
    from pydoc_data.topics import topics
    return "\n\n".join(topics[key] for key in sorted(topics))


def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("site-packages", "dist-packages", "__pycache__"))
        files.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


@functools.lru_cache(maxsize=None)
def python_code(max_bytes: int = 8_000_000) -> str:
    """Standard-library Python sources, concatenated in path order, at most `max_bytes` of UTF-8."""
    parts, size = [], 0
    for path in _stdlib_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue                     # a few test files are deliberately not UTF-8
        data = text.encode("utf-8", "surrogatepass")
        if size + len(data) > max_bytes:
            cut = data[: max_bytes - size]
            cut = cut[: cut.rfind(b"\n") + 1]       # end on a whole line
            parts.append(cut.decode("utf-8", "ignore"))
            break
        parts.append(text)
        size += len(data)
    return "".join(parts)


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


def fingerprint(text: str) -> str:
    """Size and a short sha256 of a corpus, to tell which version you have."""
    data = text.encode("utf-8", "surrogatepass")
    return f"{len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:12]}"
