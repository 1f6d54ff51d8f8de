"""The messages the page sends over the websocket: each one checked against its type's fields.

A message is a JSON object with a ``type`` and that type's fields, nothing else; :func:`read_message`
returns it as a dict of checked values, or raises :class:`MessageError` with one line saying what
is wrong (the session answers with an ``error`` message and goes on).

>>> read_message('{"type": "move", "square": "f5"}')
{'type': 'move', 'square': 'f5'}
>>> read_message('{"type": "new", "size": 9}')
Traceback (most recent call last):
...
othello_engine.web.messages.MessageError: new: size 9 is not an even size 4..26
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Optional

from othello_engine.board import MAX_SIZE, STANDARD_SIZES, clip_text

MAX_MESSAGE = 2_000_000
"""Longest message read (characters): a pasted or uploaded game of up to MAX_TEXT and its frame."""
MAX_TEXT = 1_000_000
"""Longest pasted or uploaded game text."""
MAX_MOVETIME_MS = 600_000
MIN_MOVETIME_MS = 10
MAX_DEPTH = 60
MAX_PLY = 10_000
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}", re.ASCII)
"""Saved game names: letters, digits, space, ``_``, ``.``, ``-``; no ``/``, no leading dot."""


class MessageError(ValueError):
    """A message that is not one the page may send; the text says what is wrong."""


Check = Callable[[str, str, Any], Any]


def _int(lo: int, hi: int) -> Check:
    def check(kind: str, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise MessageError(f"{kind}: {name} {clip_text(json.dumps(value))} is not a whole "
                               f"number in {lo}..{hi}")
        return value
    return check


def _size(kind: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in STANDARD_SIZES:
        raise MessageError(f"{kind}: {name} {clip_text(json.dumps(value))} is not an even size "
                           f"4..{MAX_SIZE}")
    return value


def _choice(*choices: str) -> Check:
    def check(kind: str, name: str, value: Any) -> str:
        if value not in choices:
            raise MessageError(f"{kind}: {name} {clip_text(json.dumps(value))} is not one of "
                               + ", ".join(choices))
        return str(value)
    return check


def _text(longest: int, pattern: Optional[re.Pattern[str]] = None) -> Check:
    def check(kind: str, name: str, value: Any) -> str:
        if not isinstance(value, str):
            raise MessageError(f"{kind}: {name} must be a string")
        if len(value) > longest:
            raise MessageError(f"{kind}: {name} is longer than {longest} characters")
        if pattern is not None and not pattern.fullmatch(value):
            raise MessageError(f"{kind}: {name} {clip_text(json.dumps(value))} is not allowed "
                               "(letters, digits, space, _ . -; up to 64, not starting with a dot)")
        return value
    return check


_PLAYER = _choice("human", "engine")
_MOVETIME = _int(MIN_MOVETIME_MS, MAX_MOVETIME_MS)
_DEPTH = _int(1, MAX_DEPTH)

MESSAGES: dict[str, dict[str, tuple[Check, bool]]] = {
    # type: {field: (check, required)}
    "new": {"size": (_size, False), "black": (_PLAYER, False), "white": (_PLAYER, False),
            "movetime": (_MOVETIME, False), "depth": (_DEPTH, False)},
    "settings": {"black": (_PLAYER, True), "white": (_PLAYER, True),
                 "movetime": (_MOVETIME, False), "depth": (_DEPTH, False)},
    "move": {"square": (_text(8), True)},
    "undo": {}, "redo": {}, "hint": {}, "stop": {}, "resume": {}, "games": {}, "results": {},
    "goto": {"ply": (_int(0, MAX_PLY), True)},
    "analyze": {"movetime": (_MOVETIME, False)},
    "load": {"text": (_text(MAX_TEXT), True)},
    "open": {"name": (_text(64, NAME_PATTERN), True)},
    "save": {"name": (_text(64, NAME_PATTERN), False)},
    "edit": {"cells": (_text(MAX_SIZE * MAX_SIZE + MAX_SIZE), True),
             "turn": (_choice("black", "white"), True)},
}
"""Every message type the page may send, with its fields (any other field is an error)."""


def read_message(text: Any) -> dict[str, Any]:
    """Parse and check one message (a JSON text); MessageError says what is wrong."""
    if not isinstance(text, str):
        raise MessageError("messages are JSON text")
    if len(text) > MAX_MESSAGE:
        raise MessageError(f"message longer than {MAX_MESSAGE} characters")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise MessageError(f"not JSON: {clip_text(text)!r}") from None
    if not isinstance(data, dict):
        raise MessageError("a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise MessageError(f"unknown message type {clip_text(json.dumps(kind))}: expected one of "
                           + ", ".join(sorted(MESSAGES)))
    fields = MESSAGES[kind]
    out: dict[str, Any] = {"type": kind}
    for name in data:
        if name != "type" and name not in fields:
            raise MessageError(f"{kind}: unknown field {clip_text(json.dumps(name))}")
    for name, (check, required) in fields.items():
        if name in data and data[name] is not None:
            out[name] = check(kind, name, data[name])
        elif required:
            raise MessageError(f"{kind}: missing field {name!r}")
    if "movetime" in out and "depth" in out:
        raise MessageError(f"{kind}: give movetime or depth, not both")
    return out
