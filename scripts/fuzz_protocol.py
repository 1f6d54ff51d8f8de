"""Fuzz the engine process's protocols (UCI, UGI, NBoard) with hostile lines and print figures.

Each hostile line is a mutated real command (numbers in other scripts, huge or signed numbers,
dropped, doubled or garbled tokens, unclosed GGF brackets, binary bytes, over-long tokens) or plain
garbage. After every line the fuzzer sends ``stop`` and ``isready`` (NBoard: ``ping <n>``) and
checks what the spec promises:

- ``readyok`` / ``pong <n>`` comes within the timeout (no hang, the process lives);
- no ``internal error`` and no traceback on standard output;
- UCI/UGI: a line answered with an error leaves the position as it was (``d`` before and after),
  and every accepted ``go`` ends with exactly one ``bestmove`` (checked at the end).

Usage: ``python scripts/fuzz_protocol.py [--protocol uci|ugi|nboard|all] [--seconds S]
[--lines N] [--seed K]``; the exit status is 1 when any check failed. The quick form runs in the
test suite (tests/test_fuzz_protocol.py).
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

ENGINE = [sys.executable, "-P", "-m", "othello_engine"]
TIMEOUT = 10.0
"""Seconds the engine has to answer isready/ping after a hostile line."""

START_CELLS = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27
GGF = ("(;GM[Othello]PC[x]PB[a]PW[b]TY[8]BO[8 " + START_CELLS.replace("X", "*") + " *]"
       "B[F5]W[D6/-1.5]B[C3//0.1];)")
HOSTILE_TOKENS = [
    "", "0", "-1", "--3", "+-1", "+7", "\u00b2", "\u0663", "\u0661\u0666", "\uff13", "9" * 40,
    "9" * 5000, "1e999", "-1e999", "nan", "inf", "-0", "0x10", "1_000", "1.5", ".", "-", "\u00a0",
    "\u00ff", "a9", "i1", "h9", "z", "pass", "PA", "@@", "0000", "(none)", "x" * 300, "[", "]", "\\",
    "(;", ";)", "B[", "BO[", "TY[", "\x00", "\x1b[2J", "\t", "\r", "\ufeff", "\ud7ff", "moves",
    "value", "name", "startpos", "fen", "board", "infinite", "perft", "searchmoves", "depth",
    "j10", "z26", "a27", "k11", "10", "26", "27", "10/10",
]
UCI_TEMPLATES = [
    "uci", "ugi", "isready", "ucinewgame", "uginewgame", "position startpos",
    "position startpos moves f5 d6 c3 d3 c4", "position startpos moves f5d6c3", "position startpos 6",
    "position startpos 4 moves b3", f"position board {START_CELLS} b", f"position board {START_CELLS}w",
    "position fen 8/8/8/3ox3/3xo3/8/8/8 x", "position fen 8/8/8/3ox3/3xo3/8/8/8 x 0 1 moves f5",
    "position fen 6/6/2ox2/2xo2/6/6 x moves pass", "position startpos 10", "position startpos 10 moves e4 d4",
    "position startpos 10 moves e4d4c4c3", "position startpos 26 moves m12 l12",
    "position fen 10/10/10/10/4ox4/4xo4/10/10/10/10 x moves e4", "go depth 2", "go nodes 500", "go movetime 5",
    "go wtime 100 btime 100 winc 0 binc 0", "go p1time 50 p2time 50 p1inc 1 p2inc 1", "go infinite",
    "go exact", "go wld", "go searchmoves f5 d3 depth 2", "go perft 3", "go movestogo 3 btime 40 wtime 40",
    "stop", "query p1turn", "query gameover", "query result", "d", "eval", "help", "debug on",
    "register later", "setoption name Hash value 8", "setoption name Hash value 4096", "setoption name MultiPV value 3",
    "setoption name Move Overhead value 20", "setoption name Clear Hash",
    "setoption name OwnBook value true", "setoption name OwnBook value false",
    "setoption name BookFile value <empty>", "setoption name BookFile value /dev/zero",
    "setoption name BookFile value /dev/null", "setoption name BookFile value /",
    "setoption name BookFile value {fifo}", "setoption name BookSeed value 7",
]
NBOARD_TEMPLATES = [
    "nboard 2", "nboard 1", "set depth 2", "set depth 60", "set contempt 100", "set contempt -100",
    f"set game {GGF}", "set game (;GM[Othello]B[F5]W[F6];)", "set game (;GM[Othello]TY[6]B[B3];)",
    "set game (;GM[Othello]TY[10]B[E4];)",
    "move F5", "move F5/1.0/2.0", "move PA", "move D3", "hint 2", "hint 1", "go", "learn", "analyze",
    "F5", "ping 3",
]
UCI_REPLY_WORDS = ("id", "option", "uciok", "ugiok", "readyok", "info", "bestmove", "response",
                   "fen", "board", "side", "discs", "legal", "moves", "eval", "nodes")


def mutate(rng: random.Random, line: str) -> str:
    """A hostile variant of a command line."""
    roll = rng.random()
    if roll < 0.15:  # the command itself: valid lines must leave the engine sane too
        return line
    if roll < 0.35:  # one argument swapped for a hostile one: the likeliest mistake of a GUI
        tokens = line.split(" ")
        if len(tokens) > 1:
            tokens[rng.randrange(1, len(tokens))] = rng.choice(HOSTILE_TOKENS)
        return " ".join(tokens)
    if roll < 0.40:  # plain garbage
        return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x3000)]))
                       for _ in range(rng.randrange(1, 60)))
    if roll < 0.45:  # a GGF with brackets and escapes gone wrong
        body = GGF[:rng.randrange(2, len(GGF))] + rng.choice(["[", "\\", "]", ";)", "[[", "B[" * 500,
                                                            "\\]" * 50, ""]) + rng.choice(["", ";)"])
        return rng.choice(["set game ", ""]) + body
    tokens = line.split(" ")
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(7)
        i = rng.randrange(len(tokens))
        if kind == 0:
            tokens[i] = rng.choice(HOSTILE_TOKENS)
        elif kind == 1 and len(tokens) > 1:
            del tokens[i]
        elif kind == 2:
            tokens.insert(i, tokens[i])
        elif kind == 3:
            tokens[i] = tokens[i].swapcase()
        elif kind == 4:
            tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(HOSTILE_TOKENS))
        elif kind == 5 and i > 0:
            tokens[i] = tokens[i] + rng.choice(HOSTILE_TOKENS)
        elif kind == 6:
            tokens = tokens[:max(1, i)]
    return rng.choice([" ", "  ", "\t"]).join(tokens)


def encode(rng: random.Random, text: str) -> bytes:
    """The line as bytes: sometimes with invalid UTF-8 spliced in; never a newline inside."""
    data = text.encode("utf-8", "surrogatepass").replace(b"\n", b" ")
    if rng.random() < 0.05:
        at = rng.randrange(len(data) + 1)
        data = data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))).replace(b"\n", b"") + data[at:]
    return data


@dataclass
class Figures:
    protocol: str
    lines: int = 0
    errors_answered: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def report(self) -> str:
        lat = sorted(self.latencies) or [0.0]
        return (f"{self.protocol:6} {self.lines:6d} lines in {self.seconds:6.1f} s "
                f"({self.lines / max(self.seconds, 1e-9):6.0f}/s), {self.errors_answered} answered with an "
                f"error; sync reply median {1000 * statistics.median(lat):.1f} ms, max "
                f"{1000 * lat[-1]:.1f} ms; {len(self.failures)} failures")


class Process:
    """The engine over pipes, lines read by a thread."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        self.stderr: list[bytes] = []
        self.bestmoves = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.bestmoves += line.startswith("bestmove")
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            if len(self.stderr) < 50:
                self.stderr.append(raw)

    def send(self, *lines: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(line + b"\n" for line in lines))
        self.proc.stdin.flush()

    def until(self, done: Callable[[str], bool], timeout: float) -> Optional[list[str]]:
        """Lines up to done(line), or None on timeout or end of output."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                return None
            got.append(line)
            if done(line):
                return got

    def close(self) -> int:
        try:
            self.send(b"quit")
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


def _bad_output(lines: list[str]) -> list[str]:
    return [s for s in lines if "internal error" in s or "Traceback" in s or s.startswith('  File "')]


def fuzz(protocol: str, seconds: float, max_lines: int, seed: int,
         command: Optional[list[str]] = None) -> Figures:
    """Run one protocol's fuzzing for at most seconds / max_lines hostile lines."""
    rng = random.Random(seed)
    figures = Figures(protocol)
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "fifo")
        if hasattr(os, "mkfifo"):
            os.mkfifo(fifo)
        env = dict(os.environ, OTHELLO_ENGINE_BOOK=os.path.join(tmp, "learned.book"))
        proc = Process(command or ENGINE, env)
        nboard = protocol == "nboard"
        proc.send(b"nboard 2" if nboard else protocol.encode())
        templates = [t.replace("{fifo}", fifo) for t in (NBOARD_TEMPLATES if nboard else UCI_TEMPLATES)]
        started = time.monotonic()
        gos = 0
        position = _position(proc) if not nboard else None
        sync = 0
        while figures.lines < max_lines and time.monotonic() - started < seconds:
            text = mutate(rng, rng.choice(templates))
            data = encode(rng, text)
            words = data.decode("utf-8", "replace").split()  # as the engine splits it
            if words and words[0].lower() == "quit":
                continue
            sync += 1
            t0 = time.monotonic()
            if nboard:
                proc.send(data, f"ping {900000 + sync}".encode())
                got = proc.until(lambda s: s == f"pong {900000 + sync}", TIMEOUT)
            else:
                proc.send(data, b"stop", b"isready")
                got = proc.until(lambda s: s == "readyok", TIMEOUT)
                first = data.decode("utf-8", "replace").split()[:1]
                if got is not None and [w.lower() for w in first] == ["isready"]:
                    more = proc.until(lambda s: s == "readyok", TIMEOUT)  # its own and ours
                    got = None if more is None else got + more
            figures.lines += 1
            if got is None:
                figures.failures.append(f"no {'pong' if nboard else 'readyok'} within {TIMEOUT:g} s "
                                        f"after {data[:120]!r}")
                break
            figures.latencies.append(time.monotonic() - t0)
            bad = _bad_output(got)
            if bad:
                figures.failures.append(f"{bad[0][:120]!r} after {data[:120]!r}")
            errors = [s for s in got if s.startswith("info string error") or s.startswith("status bad")
                      or "rejected" in s or s.startswith("status unknown") or s.startswith("status illegal")]
            figures.errors_answered += bool(errors)
            if nboard:
                continue
            command_word = words[0].lower() if words else ""
            if command_word == "go" and not any("error" in s for s in got if s.startswith("info string")) \
                    and "perft" not in [w.lower() for w in words]:
                gos += 1
            if not any(s.startswith("info string error") for s in got) and \
                    command_word in ("position", "ucinewgame", "uginewgame"):
                position = _position(proc)  # accepted: the new position is the expected one
            elif command_word in ("position", "ucinewgame", "uginewgame") or figures.lines % 16 == 0:
                now = _position(proc)
                if now != position:
                    figures.failures.append(f"the position changed after {data[:120]!r}: "
                                            f"{position} -> {now} (replies {got[:3]})")
                    position = now
        if not nboard:
            proc.send(b"stop")
            time.sleep(0.3)  # a stopped search's bestmove comes within 50 ms
            proc.send(b"isready")
            proc.until(lambda s: s == "readyok", TIMEOUT)
            if proc.bestmoves != gos:
                figures.failures.append(f"{gos} accepted go commands but {proc.bestmoves} bestmove lines")
        figures.seconds = time.monotonic() - started
        rc = proc.close()
        if rc != 0:
            figures.failures.append(f"exit status {rc}; stderr: {b''.join(proc.stderr)[-300:]!r}")
    return figures


def _position(proc: Process) -> Optional[tuple[str, ...]]:
    """The engine's position: the fen and moves lines of ``d``."""
    proc.send(b"stop", b"d")
    got = proc.until(lambda s: s.startswith("moves"), TIMEOUT)
    if got is None:
        return None
    return tuple(s for s in got if s.startswith(("fen ", "moves")))


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--protocol", choices=("uci", "ugi", "nboard", "all"), default="all")
    ap.add_argument("--seconds", type=float, default=60.0, help="seconds per protocol (default 60)")
    ap.add_argument("--lines", type=int, default=10 ** 9, help="hostile lines per protocol at most")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", help="engine command (default: this package's engine)")
    args = ap.parse_args(argv)
    command = args.engine.split() if args.engine else None
    protocols = ("uci", "ugi", "nboard") if args.protocol == "all" else (args.protocol,)
    print(f"load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "", flush=True)
    failed = 0
    for k, protocol in enumerate(protocols):
        figures = fuzz(protocol, args.seconds, args.lines, args.seed + k, command)
        print(figures.report(), flush=True)
        for failure in figures.failures[:20]:
            print(f"  FAIL {failure}")
        failed += len(figures.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
