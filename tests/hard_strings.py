"""Strings that tokenizers get wrong: the ladder every parity and round-trip test climbs.

Imported by the tests and by chapter 06, which prints our ids beside tiktoken's for each.
"""

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
