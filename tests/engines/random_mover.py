"""A test engine that plays random legal moves over UCI/UGI, GTP or NBoard, with optional faults.

The protocol is picked from the first line (``uci``/``ugi``, ``nboard``, anything else is GTP).
``--fault KIND --after N`` misbehaves at its (N+1)-th move of the process's life:
  crash        exit at once without answering
  illegal      answer a square that is not a legal move (an occupied one)
  garbage      answer a token that is no move at all
  hang         never answer (keeps reading, ignores stop)
  late         answer after ``--delay`` seconds (default 3)
  nohandshake  never finish the handshake (no uciok / protocol answer / pong)
``--flood N`` (UCI/UGI) writes N info lines before its first bestmove.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

from othello_engine.board import Board, parse_square, square_name


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Mover:
    def __init__(self, args: argparse.Namespace) -> None:
        self.rng = random.Random(args.seed)
        self.fault = args.fault
        self.after = args.after
        self.delay = args.delay
        self.flood = args.flood
        self.moves_made = 0

    def choose(self, board: Board) -> str:
        """The move token to answer (may be a fault), or None to answer nothing."""
        faulty = self.fault is not None and self.moves_made >= self.after
        self.moves_made += 1
        moves = board.legal_moves()
        honest = square_name(self.rng.choice(moves), board.size) if moves else "pass"
        if not faulty:
            return honest
        if self.fault == "crash":
            sys.exit(3)
        if self.fault == "illegal":
            taken = board.black | board.white
            return square_name((taken & -taken).bit_length() - 1, board.size)
        if self.fault == "garbage":
            return "z9"
        if self.fault == "hang":
            for _ in sys.stdin:  # read on, never answer
                pass
            time.sleep(3600)
        if self.fault == "late":
            time.sleep(self.delay)
        return honest


def uci(mover: Mover, first: str, nohandshake: bool) -> None:
    ugi = first == "ugi"
    board = Board()
    for line in itertools.chain([first], (raw.rstrip("\r\n") for raw in sys.stdin)):
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd in ("uci", "ugi"):
            out("id name random_mover")
            if not nohandshake:
                out("ugiok" if ugi else "uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "quit":
            return
        elif cmd == "position":
            if "moves" in words:
                i = words.index("moves")
                head, moves = words[1:i], words[i + 1:]
            else:
                head, moves = words[1:], []
            if head[0] == "startpos":
                board = Board(int(head[1]) if len(head) > 1 else 8)
            elif head[0] == "board":
                board = Board.from_cells(head[1], head[2])
            else:
                board = Board.from_fen(" ".join(head[1:3]))
            for m in moves:
                board.push_str(m)
        elif cmd == "go":
            move = mover.choose(board)
            if mover.flood and mover.moves_made == 1:
                sys.stdout.write("".join(f"info depth {1 + i % 60} seldepth 30 multipv 1 score cp {i % 200} "
                                         f"nodes {i} nps 1000 time {i // 1000} pv {move}\n"
                                         for i in range(mover.flood)))
            out("info depth 1 score cp 0 nodes 1 pv " + move)
            out(f"bestmove {'0000' if ugi and move == 'pass' else move}")


def gtp(mover: Mover, first: str, nohandshake: bool) -> None:
    board = Board()
    size = 8
    for line in itertools.chain([first], (raw.rstrip("\r\n") for raw in sys.stdin)):
        words = line.split()
        if not words:
            continue
        cmd, args = words[0], words[1:]
        if nohandshake:
            continue
        if cmd == "quit":
            out("=\n")
            return
        if cmd == "protocol_version":
            out("= 2\n")
        elif cmd == "name":
            out("= random_mover\n")
        elif cmd == "boardsize":
            size = int(args[0])
            board = Board(size)
            out("=\n")
        elif cmd in ("time_settings", "time_left", "komi"):
            out("=\n")
        elif cmd == "clear_board":
            board = Board(size)
            out("=\n")
        elif cmd == "play":
            try:
                board.push(parse_square(args[1], board.size))
                out("=\n")
            except (ValueError, IndexError):
                out("? illegal move\n")
        elif cmd == "genmove":
            move = mover.choose(board)
            try:
                board.push(parse_square(move, board.size))
            except ValueError:
                pass
            out(f"= {move}\n")
        else:
            out("? unknown command\n")


def nboard(mover: Mover, nohandshake: bool) -> None:
    from othello_engine.ggf import parse_ggf
    board = Board()
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "quit":
            return
        if cmd == "ping" and not nohandshake:
            out(f"pong {words[1]}")
        elif cmd == "set" and len(words) > 1 and words[1] == "game":
            board = parse_ggf(raw.split(None, 2)[2]).board
        elif cmd == "go":
            move = mover.choose(board)
            out(f"=== {'PA' if move == 'pass' else move.upper()}/0.0/0.01")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fault", choices=["crash", "illegal", "garbage", "hang", "late", "nohandshake"])
    ap.add_argument("--after", type=int, default=0)
    ap.add_argument("--delay", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--flood", type=int, default=0)
    args = ap.parse_args()
    mover = Mover(args)
    nohandshake = args.fault == "nohandshake"
    for raw in sys.stdin:
        first = raw.strip()
        if first:
            break
    else:
        return 0
    word = first.split()[0]
    if word in ("uci", "ugi"):
        uci(mover, word, nohandshake)
    elif word == "nboard":
        nboard(mover, nohandshake)
    else:
        gtp(mover, first, nohandshake)
    return 0


if __name__ == "__main__":
    sys.exit(main())
