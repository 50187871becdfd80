"""The fixture every worksheet's test file shares (its scaffolding is in `corpus.py`)."""

import pytest


@pytest.fixture(scope="module")
def ns(solution, request):
    """The names the solution of the test file's worksheet (its `WORKSHEET`) defines."""
    return solution(request.module.WORKSHEET)
