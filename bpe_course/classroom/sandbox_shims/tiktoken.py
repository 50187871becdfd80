"""What `import tiktoken` finds inside the grader's sandbox: nothing usable.

tiktoken encodes exactly like GPT-4, which is worksheet 06's exercise, so the
sandbox hides the real package and puts this module in its place. Importing
it works (the course imports it at the top of `bpe_course.encodings`); using
it raises, with the reason.
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise ImportError(f"tiktoken.{name} is not available while your worksheet is graded: "
                      f"the course's answers and tiktoken are off limits in answers")
