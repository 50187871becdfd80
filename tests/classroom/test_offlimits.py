"""The lock on course code (`bpe_course.classroom.offlimits`) for every kind of function.

Python 3.13 deprecates giving a function the code of another kind (a plain function's
code to a generator function), so a locked generator must get a generator stub. The
pytest configuration turns the course's own DeprecationWarnings into errors.
"""

import warnings

import pytest

from bpe_course import streaming
from bpe_course.sentencepiece import model_file as spm_model
from bpe_course.classroom.checking import offlimits


@pytest.fixture
def unlocked_after():
    yield
    offlimits.apply(None)


def test_a_locked_generator_raises_when_iterated_and_comes_back_unlocked(unlocked_after):
    want = list(spm_model.fields(b"\x08\x01"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        offlimits.apply([])
        with pytest.raises(offlimits.OffLimits, match="bpe_course.sentencepiece.model_file.fields"):
            list(spm_model.fields(b"\x08\x01"))
        offlimits.apply(None)
    assert list(spm_model.fields(b"\x08\x01")) == want


def test_every_course_function_keeps_its_kind_under_the_lock(unlocked_after):
    offlimits.apply([])
    kinds = {func: offlimits._kind(code) for func, code in offlimits._ORIGINAL.items()}
    assert {offlimits._kind(func.__code__) for func in kinds} >= {"generator", "function"}
    assert all(offlimits._kind(func.__code__) == kind for func, kind in kinds.items())
    assert streaming.encode_stream.__code__ is not offlimits._ORIGINAL[streaming.encode_stream]
