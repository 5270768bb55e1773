"""Who asked: one spelling of the caller, shared by every service's logs and request ids."""

from __future__ import annotations

import pytest

from riverboat.auth import Identity
from riverboat.services.common.auth import acting_as, current_caller


def test_the_caller_is_role_and_subject() -> None:
    assert Identity(subject="ann", role="player").caller == "player:ann"
    with acting_as(Identity(subject="boss", role="operator")):
        assert current_caller() == "operator:boss"


def test_outside_a_call_there_is_no_caller() -> None:
    with pytest.raises(RuntimeError):
        current_caller()
