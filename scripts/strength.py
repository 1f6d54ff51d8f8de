"""Strength check: the engine at a fixed time per move against weaker settings of itself and
against other engines (rust-reversi, gtp-rhino) when they are installed; prints W-L-D."""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from typing import Optional, Protocol

from othello_engine.board import BLACK, PASS, Board, parse_square, square_name
from othello_engine.engine import Engine, Limit


class Player(Protocol):
    name: str

    def move(self, board: Board) -> int: ...

    def close(self) -> None: ...


class EnginePlayer:
    """othello_engine at a fixed time per move (or a fixed depth)."""

    def __init__(self, seconds: float, depth: Optional[int] = None, hash_mb: int = 32) -> None:
        self.engine = Engine(hash_mb=hash_mb, move_overhead=0.0)
        self.limit = Limit(depth=depth) if depth else Limit(time=seconds)
        self.name = f"engine(depth {depth})" if depth else f"engine({seconds:g}s)"

    def move(self, board: Board) -> int:
        result = self.engine.search(board, self.limit)
        assert result.best_move is not None
        return result.best_move

    def close(self) -> None:
        pass


# the classic square table rust-reversi's examples use for its MatrixEvaluator
SQUARE_TABLE = [
    [100, -20, 10, 5, 5, 10, -20, 100],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [100, -20, 10, 5, 5, 10, -20, 100],
]


class RustReversiPlayer:
    """rust-reversi's alpha-beta with a square-table evaluation, same time per move."""

    def __init__(self, seconds: float) -> None:
        import rust_reversi as rr                     # measuring only, never a dependency
        self.rr = rr
        self.ms = max(1, int(seconds * 1000))
        self.search = rr.AlphaBetaSearch(rr.MatrixEvaluator(SQUARE_TABLE), 60, 1 << 20)
        self.name = f"rust-reversi({seconds:g}s)"

    def move(self, board: Board) -> int:
        if board.must_pass():
            return PASS
        rb = self.rr.Board()
        rb.set_board_str(board.cells(), self.rr.Turn.BLACK if board.turn == BLACK
                         else self.rr.Turn.WHITE)
        return int(self.search.get_move_with_timeout(rb, self.ms))

    def close(self) -> None:
        pass


class RhinoPlayer:
    """gtp-rhino (GRhino's GTP front end) at a given level, over GTP."""

    def __init__(self, level: int, program: str) -> None:
        self.proc = subprocess.Popen([program, f"--level={level}", "--book=0"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.name = f"gtp-rhino(level {level})"

    def _ask(self, command: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"gtp-rhino died after {command!r}")
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.strip())
        reply = " ".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"gtp-rhino: {command!r} -> {reply!r}")
        return reply[1:].strip()

    def move(self, board: Board) -> int:
        self._ask("clear_board")
        replay = board.replay()
        for mv in board.move_stack:
            colour = "b" if replay.turn == BLACK else "w"
            if mv != PASS:            # gtp-rhino passes by itself and rejects "play w pass"
                self._ask(f"play {colour} {square_name(mv)}")
            replay.push(mv)
        reply = self._ask("genmove " + ("b" if board.turn == BLACK else "w"))
        return PASS if reply.lower() == "pass" else parse_square(reply.lower())

    def close(self) -> None:
        try:
            self._ask("quit")
        except (RuntimeError, BrokenPipeError, OSError):
            pass
        self.proc.wait(5)


def balanced_openings(count: int, plies: int, seed: int) -> list[list[int]]:
    """Random openings of `plies` moves whose depth-8 score is within a disc of even."""
    rng = random.Random(seed)
    judge = Engine(hash_mb=16)
    out: list[list[int]] = []
    seen: set[str] = set()
    while len(out) < count:
        b = Board()
        for _ in range(plies):
            b.push(rng.choice(b.legal_moves()))
        if b.cells() in seen:
            continue
        seen.add(b.cells())
        if abs(judge.search(b, Limit(depth=8)).score) <= 100:
            out.append(list(b.move_stack))
    return out


def play_game(black: Player, white: Player, opening: list[int]) -> int:
    """Play one game from the opening; return black's final disc difference."""
    b = Board()
    for mv in opening:
        b.push(mv)
    while not b.is_game_over():
        player = black if b.turn == BLACK else white
        mv = PASS if b.must_pass() else player.move(b)
        b.push(mv)                # an illegal move raises: a broken opponent is not a loss
    return b.disc_difference()


def match(ours: Player, theirs: Player, openings: list[list[int]]) -> tuple[int, int, int]:
    w = l = d = 0
    for i, opening in enumerate(openings):
        for our_colour in (BLACK, 1 - BLACK):
            t0 = time.monotonic()
            if our_colour == BLACK:
                diff = play_game(ours, theirs, opening)
            else:
                diff = -play_game(theirs, ours, opening)
            w, l, d = w + (diff > 0), l + (diff < 0), d + (diff == 0)
            side = "black" if our_colour == BLACK else "white"
            print(f"  opening {i + 1} {ours.name} as {side}: {diff:+d}  ({time.monotonic() - t0:.1f}s)",
                  flush=True)
    return w, l, d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    ap.add_argument("--openings", type=int, default=6, help="openings, each played twice (default 6)")
    ap.add_argument("--plies", type=int, default=6, help="random plies per opening (default 6)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weak-depth", type=int, default=4, help="depth of the weaker self (default 4)")
    ap.add_argument("--rhino-level", type=int, default=3, help="gtp-rhino level 1..5 (default 3)")
    ap.add_argument("--opponents", default="self,rust,rhino",
                    help="comma-separated: self, rust, rhino (default all that are installed)")
    args = ap.parse_args(argv)
    openings = balanced_openings(args.openings, args.plies, args.seed)
    ours = EnginePlayer(args.time)
    wanted = args.opponents.split(",")
    for which in wanted:
        opponent: Optional[Player] = None
        if which == "self":
            opponent = EnginePlayer(args.time, depth=args.weak_depth)
        elif which == "rust":
            try:
                opponent = RustReversiPlayer(args.time)
            except ImportError:
                print("rust-reversi is not installed (pip install rust-reversi): skipped")
        elif which == "rhino":
            program = shutil.which("gtp-rhino") or (
                "/usr/games/gtp-rhino" if shutil.which("/usr/games/gtp-rhino") else None)
            if program:
                opponent = RhinoPlayer(args.rhino_level, program)
            else:
                print("gtp-rhino is not installed (Debian package grhino): skipped")
        else:
            print(f"unknown opponent {which!r}", file=sys.stderr)
            return 2
        if opponent is None:
            continue
        print(f"{ours.name} vs {opponent.name}: {len(openings)} openings x 2 colours", flush=True)
        try:
            w, l, d = match(ours, opponent, openings)
        finally:
            opponent.close()
        points = (w + d / 2) / max(1, w + l + d)
        print(f"{ours.name} vs {opponent.name}: W-L-D {w}-{l}-{d}  ({100 * points:.0f}% of the points)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
