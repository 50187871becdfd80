"""What `import tiktoken` finds inside the grader's sandbox: the course's own encoder, locked.

tiktoken encodes exactly like GPT-4, which is worksheet 06's exercise, so the
sandbox hides the real package and puts this module in its place. Importing
it works (the course imports it at the top of `bpe_course.openai.encodings`). An
`Encoding` of one of OpenAI's encodings is the course's pure-Python drop-in
(`bpe_course.openai.tokenizer.OpenAITokenizer`, the same ids): it is course code, so it
runs only where an exercise names it as a helper (worksheet 09 measures with
it; in worksheet 06 it is off limits like the rest of the course's answer).
Everything else raises, with the reason.
"""

import functools


@functools.lru_cache(maxsize=None)
def _course_encoding(name):
    from bpe_course.openai.tokenizer import OpenAITokenizer
    return OpenAITokenizer(name)


def Encoding(name, pat_str=None, mergeable_ranks=None, special_tokens=None, **_):
    return _course_encoding(name)


def get_encoding(name):
    return _course_encoding(name)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise ImportError(f"tiktoken.{name} is not available while your worksheet is graded: "
                      f"the course's answers and tiktoken are off limits in answers")
