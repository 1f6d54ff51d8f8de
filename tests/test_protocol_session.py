"""The protocol session contract: one ProtocolError, the one error guard, shared defaults, go perft."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from othello_engine.board import Board, square_name
from othello_engine.engine import MOVE_OVERHEAD_MS, Engine
from othello_engine.perft import perft
from othello_engine.protocol import gtp, loop, nboard, session, uci

SPEC = Path(__file__).resolve().parent.parent / "protocol_spec.md"


class Lines:
    """A session's Writer that keeps its lines and lets a test wait for one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()

    def __call__(self, line: str) -> None:
        with self._changed:
            self.lines.append(line)
            self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = 30.0) -> str:
        with self._changed:
            assert self._changed.wait_for(lambda: any(re.match(pattern, s) for s in self.lines), timeout), \
                self.lines
            return next(s for s in self.lines if re.match(pattern, s))


def test_one_protocol_error() -> None:
    assert uci.ProtocolError is session.ProtocolError is nboard.ProtocolError
    assert issubclass(gtp.GtpError, session.ProtocolError)
    assert issubclass(session.ProtocolError, ValueError)


def test_guard_reports_bad_input_with_its_text_and_internal_errors_by_type(capsys) -> None:
    said: list[str] = []

    def bad_input() -> None:
        raise session.ProtocolError("go: unknown token 'x'")

    def broken() -> None:
        raise KeyError("a secret that must not reach stdout")

    session.guard(bad_input, said.append)
    session.guard(broken, said.append)
    session.guard(broken, said.append, internal=lambda exc: f"internal error in perft: {type(exc).__name__}")
    session.guard(bad_input, said.append, expected=())   # nothing expected: every error is internal
    assert said == ["go: unknown token 'x'", "internal error: KeyError", "internal error in perft: KeyError",
                    "internal error: ProtocolError"]
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("Traceback") == 3


@pytest.mark.parametrize("name, cls", [("uci", uci.UciSession), ("ugi", uci.UciSession),
                                       ("nboard", nboard.NBoardSession), ("gtp", gtp.GtpSession)])
def test_session_factory(name: str, cls: type) -> None:
    assert loop.session_factory(name) is cls
    for method in ("handle", "close"):
        assert callable(getattr(cls, method))


def test_every_protocol_keeps_back_the_same_move_overhead() -> None:
    """One Move Overhead default: what the UCI option says is what NBoard and GTP sessions use."""
    assert Engine.__init__.__defaults__ is not None
    assert MOVE_OVERHEAD_MS / 1000 in Engine.__init__.__defaults__
    sessions: list[uci.UciSession | nboard.NBoardSession | gtp.GtpSession] = [
        uci.UciSession(Lines()), nboard.NBoardSession(Lines()), gtp.GtpSession(Lines())]
    try:
        assert [s.engine.move_overhead for s in sessions] == [MOVE_OVERHEAD_MS / 1000] * 3
        out = Lines()
        hello = uci.UciSession(out)
        try:
            hello.handle("uci")
            line = out.wait_for("option name Move Overhead ")
        finally:
            hello.close()
        assert line == f"option name Move Overhead type spin default {MOVE_OVERHEAD_MS} min 0 max 5000"
    finally:
        for s in sessions:
            s.close()
    spec = SPEC.read_text(encoding="utf-8")
    assert line in spec
    assert f"`Move Overhead` (default {MOVE_OVERHEAD_MS} ms)" in spec


@pytest.mark.parametrize("moves, depth", [("", 4), ("f5 d6 c3", 3), ("", 0)])
def test_go_perft_reports_the_library_count(moves: str, depth: int) -> None:
    out = Lines()
    s = uci.UciSession(out)
    try:
        s.handle(f"position startpos moves {moves}" if moves else "position startpos")
        s.handle(f"go perft {depth}")
        last = out.wait_for(r"nodes \d+ time \d+ nps \d+$")
    finally:
        s.close()
    board = s.board
    want = perft(board, depth)
    per_move = [] if depth == 0 else [f"{square_name(m, board.size)}: {n}" for m, n in want.per_move]
    assert out.lines[:-1] == per_move
    assert last == out.lines[-1] and int(last.split()[1]) == want.total


def test_go_perft_of_a_finished_game_counts_one_leaf() -> None:
    out = Lines()
    s = uci.UciSession(out)
    try:
        s.handle("position fen " + Board.from_cells("X" * 64, "X").fen())
        s.handle("go perft 3")
        out.wait_for(r"nodes ")
    finally:
        s.close()
    assert len(out.lines) == 1 and out.lines[0].startswith("nodes 1 time ")
