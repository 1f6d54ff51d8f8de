"""Every docstring example in the package runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import othello_engine

MODULES = sorted(
    ["othello_engine"] + [f"othello_engine.{m.name}" for m in pkgutil.iter_modules(othello_engine.__path__)
                          if m.name not in ("__main__",)]
    + [f"othello_engine.protocol.{m.name}"
       for m in pkgutil.iter_modules([othello_engine.__path__[0] + "/protocol"])])


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
