"""A tiktoken plugin from bpe-course: tiktoken's cache filled from the course's own files.

tiktoken imports every module of the `tiktoken_ext` namespace the first time a
process asks it for an encoding (`tiktoken.get_encoding`, `list_encoding_names`).
This one registers no encoding of its own; importing it fills tiktoken's cache
with OpenAI's rank files, which the course ships and checks by sha256, so that
OpenAI's encodings load with no network (see `bpe_course.openai.tiktoken_cache`).
Set BPE_COURSE_SEED_TIKTOKEN=0 to turn it off.
"""

ENCODING_CONSTRUCTORS: dict = {}


def _seed() -> None:
    try:
        from bpe_course.openai.tiktoken_cache import seed_for_tiktoken
    except ImportError:                 # the course is half installed: leave tiktoken alone
        return
    seed_for_tiktoken()


_seed()
