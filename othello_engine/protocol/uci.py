"""The UCI-like protocol and its UGI dialect: a line in, an Engine call, a formatted line out."""

from __future__ import annotations

import traceback
import sys
from typing import Callable, Optional

from othello_engine import __version__
from othello_engine.board import (BLACK, PASS, Board, OthelloError, parse_square, square_name)
from othello_engine.engine import Engine, Limit, SearchInfo, SearchResult

ENGINE_NAME = f"othello_engine {__version__}"
ENGINE_AUTHOR = "the othello_engine developers"


class ProtocolError(ValueError):
    """A command that cannot be carried out; its text becomes the error line."""


class UciSession:
    """One conversation in the UCI-like protocol (or, after ``ugi``, its UGI dialect)."""

    def __init__(self, out: Callable[[str], None]) -> None:
        self.out = out
        self.engine = Engine()
        self.board = Board()
        self.ugi = False

    # --- plumbing ---------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Deal with one input line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            return False
        method = getattr(self, "cmd_" + cmd, None)
        try:
            if method is None:
                raise ProtocolError(f"unknown command {cmd!r}")
            method(args)
        except (ProtocolError, OthelloError) as exc:
            self.error(str(exc))
        except Exception as exc:  # never let a traceback reach stdout
            traceback.print_exc(file=sys.stderr)
            self.error(f"internal error: {exc}")
        return True

    def error(self, text: str) -> None:
        self.out(f"info string error: {text}")

    def close(self) -> None:
        self.engine.stop()
        self.engine.wait(1.0)

    def move_text(self, move: Optional[int]) -> str:
        if move is None:
            return "(none)"
        if move == PASS:
            return "0000" if self.ugi else "pass"
        return square_name(move)

    # --- commands -----------------------------------------------------------------------------
    def cmd_uci(self, args: list[str]) -> None:
        self.handshake("uciok")

    def cmd_ugi(self, args: list[str]) -> None:
        self.ugi = True
        self.handshake("ugiok")

    def handshake(self, ok: str) -> None:
        self.out(f"id name {ENGINE_NAME}")
        self.out(f"id author {ENGINE_AUTHOR}")
        self.out("option name Hash type spin default 16 min 1 max 4096")
        self.out("option name MultiPV type spin default 1 min 1 max 64")
        self.out("option name Move Overhead type spin default 30 min 0 max 5000")
        self.out(ok)

    def cmd_isready(self, args: list[str]) -> None:
        self.out("readyok")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.busy_check()
        self.engine.new_game()
        self.board = Board(self.board.size)

    cmd_uginewgame = cmd_ucinewgame

    def cmd_setoption(self, args: list[str]) -> None:
        self.busy_check()
        text = " ".join(args)
        if not text.startswith("name ") or " value " not in text:
            raise ProtocolError(f"bad setoption {text!r}: expected 'name <Name> value <v>'")
        name, value = text[5:].split(" value ", 1)
        name, value = name.strip(), value.strip()
        key = name.lower()
        try:
            number = int(value)
        except ValueError:
            raise ProtocolError(f"bad value {value!r} for option {name!r}: expected an integer") from None
        if key == "hash" and 1 <= number <= 4096:
            self.engine.set_hash(number)
        elif key == "multipv" and 1 <= number <= 64:
            self.engine.multipv = number
        elif key == "move overhead" and 0 <= number <= 5000:
            self.engine.move_overhead = number / 1000
        elif key in ("hash", "multipv", "move overhead"):
            raise ProtocolError(f"value {number} for option {name!r} is out of range")
        else:
            raise ProtocolError(f"unknown option {name!r}")

    def busy_check(self) -> None:
        if self.engine.is_searching:
            raise ProtocolError("the engine is searching; send stop first")

    def cmd_position(self, args: list[str]) -> None:
        self.busy_check()
        if not args:
            raise ProtocolError("position needs startpos, board or fen")
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        kind = head[0]
        if kind == "startpos":
            board = Board(int(head[1]) if len(head) > 1 and head[1].isdigit() else 8)
        elif kind == "board" and len(head) == 3:
            board = Board.from_cells(head[1], head[2])
        elif kind == "fen" and len(head) == 3:
            board = Board.from_fen(head[1] + " " + head[2])
        else:
            raise ProtocolError(f"bad position {' '.join(args)!r}")
        for m in moves:
            board.push_str(m)
        self.board = board

    def cmd_go(self, args: list[str]) -> None:
        self.busy_check()
        opts: dict[str, int] = {}
        flags = set()
        i = 0
        while i < len(args):
            key = args[i]
            if key in ("infinite",):
                flags.add(key)
                i += 1
                continue
            if i + 1 >= len(args):
                raise ProtocolError(f"go: {key!r} needs a value")
            try:
                opts[key] = int(args[i + 1])
            except ValueError:
                raise ProtocolError(f"go: bad number {args[i + 1]!r} for {key!r}") from None
            i += 2
        if "perft" in opts:
            self.perft(opts["perft"])
            return
        bt = opts.get("btime", opts.get("p1time"))
        wt = opts.get("wtime", opts.get("p2time"))
        limit = Limit(depth=opts.get("depth"), nodes=opts.get("nodes"),
                      time=opts["movetime"] / 1000 if "movetime" in opts else None,
                      black_clock=bt / 1000 if bt is not None else None,
                      white_clock=wt / 1000 if wt is not None else None,
                      black_inc=opts.get("binc", opts.get("p1inc", 0)) / 1000,
                      white_inc=opts.get("winc", opts.get("p2inc", 0)) / 1000,
                      moves_to_go=opts.get("movestogo"), infinite="infinite" in flags)
        self.engine.start(self.board, limit, on_info=self.send_info, on_done=self.send_bestmove)

    def send_info(self, info: SearchInfo) -> None:
        for k, line in enumerate(info.lines, 1):
            score = (f"disc {line.score // 100:+d}" if info.exact else f"cp {line.score}")
            multipv = f" multipv {k}" if len(info.lines) > 1 else ""
            pv = " ".join(self.move_text(m) for m in line.pv)
            self.out(f"info depth {info.depth} seldepth {info.seldepth}{multipv} score {score} "
                     f"nodes {info.nodes} nps {info.nps} time {int(info.time * 1000)} pv {pv}")

    def send_bestmove(self, result: SearchResult) -> None:
        self.out(f"bestmove {self.move_text(result.best_move)}")

    def cmd_stop(self, args: list[str]) -> None:
        self.engine.stop()

    def perft(self, depth: int) -> None:
        from othello_engine import _core
        total = 0
        b = self.board
        for m in b.legal_moves() or ([PASS] if b.must_pass() else []):
            p, o = _core.make_move(b.player, b.opponent, m)
            n = _core.perft(p, o, depth - 1, b.mask) if depth > 0 else 1
            total += n
            self.out(f"{self.move_text(m)}: {n}")
        self.out(f"nodes {total}")

    def cmd_query(self, args: list[str]) -> None:
        what = args[0] if args else ""
        b = self.board
        if what == "p1turn":
            self.out("response " + ("true" if b.turn == BLACK else "false"))
        elif what == "gameover":
            self.out("response " + ("true" if b.is_game_over() else "false"))
        elif what == "result":
            if not b.is_game_over():
                self.out("response none")
            else:
                d = b.disc_difference()
                self.out("response " + ("p1win" if d > 0 else "p2win" if d < 0 else "draw"))
        else:
            raise ProtocolError(f"unknown query {what!r}")

    def cmd_d(self, args: list[str]) -> None:
        for row in str(self.board).splitlines():
            self.out(row)
        self.out(f"fen {self.board.fen()}")
        side = "black" if self.board.turn == BLACK else "white"
        self.out(f"side {side} black {self.board.count(0)} white {self.board.count(1)}")
        self.out("legal " + " ".join(square_name(m) for m in self.board.legal_moves()))
