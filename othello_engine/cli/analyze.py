"""The othello-analyze command line: arguments, progress bar and output (the work: analysis/)."""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import stat
import sys
import time
from typing import IO, Any, Generator, Optional, Sequence

from othello_engine import filelock
from othello_engine.analysis import (DEFAULT_ENGINE, FORMATS, CsvWriter, JsonWriter, Record,
                                     ResumeError, TableWriter, WorkerSpec, analyse_lines,
                                     open_sources, output_start, plot_games, written_records)
from othello_engine.cli.common import start_size_arg
from othello_engine.client import EngineError, Limit
from othello_engine.resumable import settle
from othello_engine.textnum import float_arg, int_arg

DEFAULT_DEPTH = 12
"""Search depth per position when no limit is given."""


def _clock(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on)."""
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """A one-line progress bar on a terminal: positions done, rate, time left."""

    def __init__(self, stream: IO[str], enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.done, self.total = 0, None  # type: tuple[int, Optional[int]]

    def update(self, done: int, total: Optional[int]) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if self.enabled and now - self.last >= 0.1:
            self.last = now
            self.draw()

    def draw(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if self.total:
            width = 24
            filled = int(width * self.done / self.total)
            bar = "[" + "#" * filled + "." * (width - filled) + "]"
            left = (self.total - self.done) / rate if rate > 0 else None
            eta = "?" if left is None else _clock(left)
            text = f"{bar} {self.done}/{self.total}  {rate:.2f}/s  left {eta}"
        else:
            text = f"{self.done} done  {rate:.2f}/s  (reading input)"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="othello-analyze",
        description="Analyse Othello positions with an engine: one position or game per input "
                    "line (OBF, '<cells> <side>' board strings, UGI FEN, move lists from the start "
                    "such as 'f5d6c3' or 'f5 d6 c3', or GGF games analysed move by move); a .wtb "
                    "file is a WTHOR database, its games read as GGF games, one record a game. "
                    "Blank lines and lines starting with '#' are skipped.",
        epilog="Exit status: 0 when every line was analysed, 1 when some lines got an error "
               "record, 2 for bad arguments or an engine that cannot start.")
    p.add_argument("files", nargs="*", help="input files or pipes such as <(...) ('-' or none: "
                                           "standard input)")
    p.add_argument("--format", choices=("auto",) + FORMATS, default="auto",
                   help="input format (default: detect per line)")
    lim = p.add_argument_group("limits (per position)")
    lim.add_argument("--depth", type=int_arg, help=f"search depth (default {DEFAULT_DEPTH} when no "
                                                "other limit is given)")
    lim.add_argument("--time", type=float_arg, help="seconds per position")
    lim.add_argument("--nodes", type=int_arg, help="nodes per position")
    lim.add_argument("--exact", action="store_true", help="solve to the exact final score")
    lim.add_argument("--timeout", type=float_arg,
                     help="give up on a position after this many seconds (default: none, or "
                          "--time plus 5 s)")
    p.add_argument("--empties", type=int_arg, metavar="N",
                   help="of each game (GGF, WTHOR), only its position with N empty squares (default: "
                        "every position before a move)")
    p.add_argument("--multipv", type=int_arg, default=1, metavar="K", help="analyse the K best moves")
    p.add_argument("--size", type=start_size_arg, default=8, metavar="N",
                   help="the board of move-list lines, an even size 4..26 (default 8; FEN, board "
                        "strings and GGF say their own size)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object per line")
    out.add_argument("--csv", action="store_true", help="CSV with a header row")
    p.add_argument("--jobs", "-j", type=int_arg, default=1, metavar="N",
                   help="engine processes in parallel (output stays in input order)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the records to FILE (default: "
                                                          "standard output)")
    p.add_argument("--resume", action="store_true",
                   help="keep the records already in --output (an interrupted run over the same "
                        "input and settings) and analyse only the positions after them")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="analyse on Ray: 'local' (a Ray instance on this machine), 'auto' or "
                        "ray://HOST:PORT (an existing cluster); --jobs then counts engines over the "
                        "cluster (default: one per CPU). Needs 'othello_engine[cluster]'")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw the score graph of each GGF game (needs matplotlib: "
                        "pip install 'othello_engine[plot]')")
    eng = p.add_argument_group("engine")
    eng.add_argument("--engine", metavar="CMD",
                     help="engine command line (default: this package's engine)")
    eng.add_argument("--protocol", choices=("uci", "ugi"), default="uci",
                     help="the engine's protocol: the UCI-like one (default) or its UGI dialect")
    eng.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="set an engine option (repeatable)")
    eng.add_argument("--hash", type=int_arg, metavar="MB", help="transposition table size")
    eng.add_argument("--threads", type=int_arg, metavar="N",
                     help="search threads of each engine (its Threads option); --jobs x --threads "
                          "should not exceed the cores")
    return p


def _unreadable(path: str) -> Optional[str]:
    """Why path cannot be an input (None: it can). Regular files, pipes (such as the shell's
    ``<(...)``, a /dev/fd path) and character devices (/dev/stdin) are read as streams."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISDIR(mode):
        return "is a directory"
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return "not a regular file or pipe"
    return None


def _exit_on_sigterm() -> Any:
    """Make SIGTERM end the run like Ctrl-C does, so the engines are closed; returns the old
    handler (None when signals cannot be set here, outside the main thread)."""
    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``othello-analyze``: see ``othello-analyze --help``."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    err = sys.stderr

    def fail(text: str) -> int:
        err.write(f"othello-analyze: {text}\n")
        return 2

    for name in ("depth", "nodes", "jobs", "multipv", "hash", "threads"):
        value = getattr(args, name)
        if value is not None and value < 1:
            return fail(f"--{name} must be at least 1, not {value}")
    if args.empties is not None and args.empties < 1:
        return fail(f"--empties must be at least 1, not {args.empties}")
    for name in ("time", "timeout"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            return fail(f"--{name} must be positive, not {value}")
    for path in args.files:
        why = None if path == "-" else _unreadable(path)
        if why is not None:
            return fail(f"cannot read {path!r}: {why}")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return fail("--plot needs matplotlib, an optional extra: "
                        "pip install 'othello_engine[plot]'")
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            return fail(f"bad --option {item!r}: expected NAME=VALUE")
        options[name.strip()] = value.strip()
    if args.hash is not None:
        options["Hash"] = args.hash
    if args.threads is not None:
        options["Threads"] = args.threads
    if args.cluster is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            return fail(str(exc))
    kind = "json" if args.json else "csv" if args.csv else "table"
    skip, last_line = 0, None
    lock: Optional[int] = None   # the output file's lock (filelock)
    if args.resume and not args.output:
        return fail("--resume needs the --output file of the earlier run")
    if args.output:
        if os.path.isdir(args.output) or not os.access(
                os.path.dirname(os.path.abspath(args.output)), os.W_OK):
            return fail(f"cannot write the output file {args.output!r}")
        clash = filelock.input_clash(args.output, args.files)
        if clash is not None:
            return fail(f"will not write {args.output!r}: it is the input {clash!r}; give another "
                        f"output file")
        try:   # one run at a time writes a file: taken before it is read or cut
            lock = filelock.hold(args.output, create=False)
        except filelock.FileInUse as exc:
            return fail(str(exc))
        if args.resume and os.path.exists(args.output):
            try:
                skip, last_line = written_records(args.output, kind)
                settle(args.output, line_start=output_start(kind))
            except OSError as exc:
                filelock.release(lock)
                return fail(f"cannot resume from {args.output!r}: {exc.strerror or exc}")
            except ValueError as exc:   # ResumeError, NotResumable
                filelock.release(lock)
                return fail(f"cannot resume from {args.output!r}: {exc}")
            if not args.quiet:
                err.write(f"othello-analyze: resuming after the {skip} records in {args.output}\n")

    depth = args.depth
    if depth is None and args.time is None and args.nodes is None and not args.exact:
        depth = DEFAULT_DEPTH
    limit = Limit(depth=depth, time=args.time, nodes=args.nodes, exact=args.exact)
    command = shlex.split(args.engine) if args.engine else list(DEFAULT_ENGINE)
    spec = WorkerSpec(command, args.protocol, options, stderr=err)

    progress = Progress(err, enabled=not args.quiet and err.isatty())
    games: dict[tuple[str, int], list[Record]] = {}
    failures = 0
    records: Optional[Generator[Record, None, None]] = None
    out_file: Optional[IO[str]] = None
    refused: tuple[type[Exception], ...] = (EngineError, ResumeError, filelock.FileInUse)
    if args.cluster is not None:
        refused += (ClusterError,)
    previous = _exit_on_sigterm()
    try:
        records = analyse_lines(open_sources(args.files, sys.stdin.buffer), limit, spec=spec,
                                multipv=args.multipv, jobs=args.jobs, fmt=args.format,
                                timeout=args.timeout, on_progress=progress.update, skip=skip,
                                last_line=last_line, cluster=args.cluster, size=args.size,
                                empties=args.empties)
        out: IO[str] = sys.stdout
        if args.output:
            try:
                if lock is None:   # a new file, created now (FileInUse if another run created it since)
                    lock = filelock.hold(args.output)
                out_file = out = open(args.output, "a" if skip else "w", encoding="utf-8")
            except filelock.FileInUse:
                raise
            except OSError as exc:
                return fail(f"cannot write {args.output!r}: {exc.strerror or exc}")
        if args.json:
            writer: Any = JsonWriter(out)
        elif args.csv:
            writer = CsvWriter(out, header=not skip)
        else:
            writer = TableWriter(out, show_file=len(args.files) > 1, header=not skip)
        shared = out.isatty()  # the bar and the rows share the terminal: move the bar down
        for record in records:
            if shared:
                progress.clear()
            writer.write(record)
            if shared:
                progress.draw()
            if record.error is not None:
                failures += 1
            if args.plot and record.format == "ggf" and record.ply is not None:
                games.setdefault((record.file, record.line), []).append(record)
    except refused as exc:
        progress.clear()
        if isinstance(exc, ResumeError):
            return fail(f"cannot resume from {args.output!r}: {exc}")
        if not isinstance(exc, EngineError):
            return fail(str(exc))
        return fail(f"engine {shlex.join(command)!r}: {exc}")
    except KeyboardInterrupt:
        progress.clear()
        err.write("othello-analyze: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader left (| head): stop quietly, and keep Python from complaining at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1 if failures else 0
    finally:
        if records is not None:
            records.close()  # stops the engines
        if out_file is not None:
            out_file.close()
        filelock.release(lock)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    progress.clear()
    if args.plot:
        if not games:
            err.write("othello-analyze: --plot: no GGF game in the input, nothing drawn\n")
        else:
            for path in plot_games(games, args.plot):
                err.write(f"othello-analyze: wrote {path}\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
