"""Where the tests find the FFO endgame suite: ``shared/data/ffo`` beside the checkout.

``OTHELLO_FFO_DIR`` overrides the search. Outside CI a missing suite skips the tests that need it;
under CI (``CI`` set) it fails them, so a misplaced data folder cannot pass for green.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest


def _find() -> Optional[Path]:
    env = os.environ.get("OTHELLO_FFO_DIR")
    if env:
        return Path(env) if Path(env).is_dir() else None
    for parent in Path(__file__).resolve().parents:
        d = parent / "shared" / "data" / "ffo"
        if d.is_dir():
            return d
    return None


FFO_DIR: Optional[Path] = _find()
IN_CI = bool(os.environ.get("CI"))

needs_ffo = pytest.mark.skipif(FFO_DIR is None and not IN_CI,
                               reason="shared/data/ffo not found beside the checkout")


def ffo_file(name: str = "fforum-1-19.obf") -> Path:
    """A file of the suite (fails the test under CI, skips it elsewhere, when the suite is missing)."""
    if FFO_DIR is None:
        message = "shared/data/ffo not found beside the checkout (set OTHELLO_FFO_DIR)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return FFO_DIR / name


def ffo_line(n: int) -> str:
    """The OBF line of FFO position #n (1..59)."""
    name = "fforum-1-19.obf" if n <= 19 else "fforum-20-39.obf" if n <= 39 else "fforum-40-59.obf"
    first = 1 if n <= 19 else 20 if n <= 39 else 40
    return ffo_file(name).read_text().splitlines()[n - first]
