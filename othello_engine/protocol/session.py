"""The protocol session contract: what the input loop needs, the one ProtocolError, the one error guard."""

from __future__ import annotations

import sys
import traceback
from typing import Callable, Protocol

from othello_engine.board import OthelloError

Writer = Callable[[str], None]
"""Writes one reply line (or, for GTP, one whole response), whole and flushed, from any thread."""


class ProtocolError(ValueError):
    """A command that cannot be carried out; its text becomes the protocol's error line."""


class Session(Protocol):
    """One conversation in one protocol, as the input loop drives it: a session is made with the
    :data:`Writer` its replies go to, gets every input line, and is closed at the end of input."""

    out: Writer

    def handle(self, line: str) -> bool:
        """Deal with one input line (replies go to ``out``); False means quit."""
        ...

    def close(self) -> None:
        """End of input or quit: stop any search; its last lines may still be written."""
        ...


SessionFactory = Callable[[Writer], Session]
"""What the loop calls to start a session: the session class of a protocol."""

INPUT_ERRORS: tuple[type[Exception], ...] = (ProtocolError, OthelloError)
"""Errors that mean bad input (their text is the reply); any other exception is an internal error."""


def internal_error(exc: BaseException) -> str:
    """The error text of an internal error: its type only, since its message may hold anything.

    >>> internal_error(KeyError("x"))
    'internal error: KeyError'
    """
    return f"internal error: {type(exc).__name__}"


def guard(action: Callable[[], None], report: Callable[[str], None], *,
          expected: tuple[type[Exception], ...] = INPUT_ERRORS,
          internal: Callable[[Exception], str] = internal_error) -> None:
    """Run action; bad input (an ``expected`` error) is reported with its text, any other
    exception with one line from ``internal`` and its traceback on stderr: never on stdout.

    >>> def bad() -> None:
    ...     raise ProtocolError("go: unknown token 'x'")
    >>> guard(bad, print)
    go: unknown token 'x'
    """
    try:
        action()
    except expected as exc:
        report(str(exc))
    except Exception as exc:  # never let a traceback reach stdout
        traceback.print_exc(file=sys.stderr)
        report(internal(exc))

