"""Where OpenAITokenizer's ids and tiktoken's differ because their regex engines know
different Unicode versions (see the docstring of bpe_course/openai/tokenizer.py).

Every code point but the surrogates is tried between two letters and before punctuation
(`f"x{c}y {c}#m"`), for each encoding; the code points whose ids differ are counted by
their category in Python's own `unicodedata`. Takes about a minute an encoding.

    python tools/unicode_skew.py [ENCODING ...]
"""

import collections
import sys
import unicodedata

import regex
import tiktoken

from bpe_course import OpenAITokenizer


def main(names: list[str]) -> None:
    print(f"Python's Unicode {unicodedata.unidata_version}, regex {regex.__version__}, "
          f"tiktoken {tiktoken.__version__}")
    for name in names or ["r50k_base", "cl100k_base", "o200k_base"]:
        ours, theirs = OpenAITokenizer(name), tiktoken.get_encoding(name)
        differ, first = collections.Counter(), {}
        for cp in range(0x110000):
            if 0xD800 <= cp <= 0xDFFF:
                continue
            text = f"x{chr(cp)}y {chr(cp)}#m"
            if ours.encode_ordinary(text) != theirs.encode_ordinary(text):
                category = unicodedata.category(chr(cp))
                differ[category] += 1
                first.setdefault(category, f"U+{cp:04X}")
        print(f"{name}: {sum(differ.values())} code points differ",
              {k: (n, first[k]) for k, n in differ.items()})


if __name__ == "__main__":
    main(sys.argv[1:])
