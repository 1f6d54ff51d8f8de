"""Numbers read from text input: ASCII digits only, of bounded length, never an exception.

Python's ``int()`` and ``float()`` accept any Unicode decimal digit (``int('٣') == 3``),
underscores (``1_0``) and surrounding whitespace, and ``int()`` refuses more than 4300 digits
with a ValueError; ``str.isdigit()`` is true for ``'²'``, which ``int()`` refuses. Every reader
of protocol lines, GGF records, book text and command arguments goes through these functions
instead, so that a number is what a GUI or a user means by one, and a bad one is just "not a
number" (None) for the caller to report.

>>> ascii_int("42"), ascii_int("-7"), ascii_int("+3"), ascii_int("٣"), ascii_int("²"), ascii_int("1_0")
(42, -7, 3, None, None, None)
>>> ascii_int("9" * 5000) is None, ascii_float("-1.5e2"), ascii_float("١.٥")
(True, -150.0, None)
"""

from __future__ import annotations

import argparse
import re
from typing import Optional

MAX_DIGITS = 30
"""Longest run of digits read as a number (more than any count, clock or score needs)."""

_INT = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS, re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,%d}(?:\.[0-9]{0,%d})?|\.[0-9]{1,%d})(?:[eE][+-]?[0-9]{1,3})?"
                    % (MAX_DIGITS, MAX_DIGITS, MAX_DIGITS), re.ASCII)


def ascii_int(text: str, signed: bool = True) -> Optional[int]:
    """The integer ``text`` spells in ASCII digits (an optional sign when signed; no spaces),
    or None."""
    if not _INT.fullmatch(text) or (not signed and text[0] in "+-"):
        return None
    return int(text)


def ascii_float(text: str) -> Optional[float]:
    """The finite decimal number ``text`` spells in ASCII (``-1.5``, ``.5``, ``2e3``), or None."""
    if not _FLOAT.fullmatch(text):
        return None
    value = float(text)
    return value if value - value == 0 else None  # not inf


def ascii_digits(text: str) -> bool:
    """True when text is one or more ASCII digits (``str.isdigit`` also takes ``'²'``, ``'٣'``)."""
    return bool(re.fullmatch(r"[0-9]+", text, re.ASCII))


def int_arg(text: str) -> int:
    """An argparse type: an integer in ASCII digits (``int()`` also reads ``'٣'``)."""
    value = ascii_int(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    return value


def float_arg(text: str) -> float:
    """An argparse type: a finite number in ASCII digits."""
    value = ascii_float(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return value
