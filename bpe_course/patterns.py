"""The split patterns of GPT-2, GPT-4 and GPT-4o, exactly as tiktoken uses them.

A BPE tokenizer that merges across the whole text learns tokens like
"dog." or " the," that glue a word to punctuation. GPT-2 introduced a
pre-tokenization step: a regular expression first cuts the text into chunks
(words with their leading space, runs of digits, runs of punctuation,
whitespace), and merges never cross a chunk boundary.

These strings are copied from tiktoken's `tiktoken_ext/openai_public.py`; a
test checks them against the installed tiktoken. They need the `regex`
module: `\\p{L}` (any letter), `\\p{N}` (any number), possessive quantifiers
like `++` (match greedily and never give back), and `(?i:...)`.

>>> import regex
>>> regex.findall(GPT4_SPLIT_PATTERN, "Hello world's 12345 tokens!!\\n")
['Hello', ' world', "'s", ' ', '123', '45', ' tokens', '!!\\n']
"""

# r50k_base / GPT-2. Contractions are lower-case only; numbers of any length;
# `\s++$` and `\s+(?!\S)` keep the last space of a run for the next word.
GPT2_SPLIT_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

# cl100k_base / GPT-4. Case-insensitive contractions, at most 3 digits per
# chunk, a word may start with one non-letter (" word", "(word", "_word"),
# punctuation takes trailing newlines, newlines are grouped.
GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

# o200k_base / GPT-4o. Words are split at case changes (CamelCase -> Camel, Case),
# contractions stay attached to their word, marks (\p{M}) count as letters.
GPT4O_SPLIT_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
