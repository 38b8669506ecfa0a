"""from_dp_event / check_dp_event name neighbouring= when given the US spelling (issue 34),
before looking at the event."""

import pytest

import fdp
from fdp.interop.dp_events import check_dp_event


@pytest.mark.parametrize("func", [fdp.from_dp_event, check_dp_event])
def test_us_spelling_names_the_keyword(func):
    with pytest.raises(TypeError, match="'neighboring': did you mean neighbouring="):
        func(object(), neighboring="replace_one")


def test_british_spelling_still_reaches_the_event():
    with pytest.raises(ValueError, match="neighbouring must be one of"):
        fdp.from_dp_event(object(), neighbouring="neighbours")
