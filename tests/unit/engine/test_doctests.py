"""The examples in the engine's docstrings are tests too."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import riverboat.engine

MODULES = sorted(
    m.name for m in pkgutil.iter_modules(riverboat.engine.__path__, "riverboat.engine.")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
