"""Every docstring example in the package runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import othello_engine

MODULES = sorted(
    ["othello_engine"] + [m.name for m in pkgutil.walk_packages(othello_engine.__path__, "othello_engine.")
                          if m.name != "othello_engine.__main__"])


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
