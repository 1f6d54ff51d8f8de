"""The errors the engine client raises: a dead process, a late reply, a broken rule, an illegal move."""

from __future__ import annotations

__all__ = ["EngineError", "EngineTerminatedError", "EngineTimeoutError", "IllegalEngineMoveError"]


class EngineError(RuntimeError):
    """The engine did something the protocol does not allow, or rejected a command."""


class EngineTerminatedError(EngineError):
    """The engine process is gone (exited, crashed or was killed)."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time."""


class IllegalEngineMoveError(EngineError):
    """The engine answered with a move that is not legal in the position; ``token`` is its text."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token
