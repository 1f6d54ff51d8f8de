"""The ``othello-engine`` command: the engine process (UCI, NBoard, GTP) or one of the tools by name."""

from __future__ import annotations

import os
import sys

MAX_THREADS = 256
"""Most search threads (othello_engine.engine.MAX_THREADS; not imported here, so that the tools
start without loading the compiled core)."""


def take_threads(args: list[str]) -> tuple[list[str], int | None, str | None]:
    """Split the engine process's ``--threads N`` (or ``--threads=N``) off args: (the other
    arguments, N or None when not given, an error text or None).

    >>> take_threads(["--nboard", "--threads", "4"])
    (['--nboard'], 4, None)
    """
    rest: list[str] = []
    threads: int | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--threads" or arg.startswith("--threads="):
            if arg == "--threads":
                if i + 1 >= len(args):
                    return rest, None, "--threads needs a number"
                text = args[i + 1]
                i += 2
            else:
                text = arg.split("=", 1)[1]
                i += 1
            if not text.isdigit() or not 1 <= int(text) <= MAX_THREADS:
                return rest, None, f"--threads {text!r}: expected a whole number in 1..{MAX_THREADS}"
            threads = int(text)
        else:
            rest.append(arg)
            i += 1
    return rest, threads, None


TOOLS = ("play", "perft", "match", "analyze", "train", "book", "games", "web")
"""The subcommands that run a tool instead of the engine process (each is also its own command)."""


def run_tool(name: str, argv: list[str]) -> int:
    """Run the tool ``name`` (one of :data:`TOOLS`) with argv; each is imported only when asked for,
    so that the engine process starts without loading the tools."""
    if name == "play":
        from othello_engine.cli import play
        return play.main(argv)
    if name == "perft":
        from othello_engine.cli import perft
        return perft.main(argv)
    if name == "match":
        from othello_engine.cli.match import main as match_main
        return match_main(argv)
    if name == "analyze":
        from othello_engine.cli import analyze
        return analyze.main(argv)
    if name == "train":
        from othello_engine.cli import train
        return train.main(argv)
    if name == "book":
        from othello_engine.cli import book
        return book.main(argv)
    if name == "games":
        from othello_engine.cli import games
        return games.main(argv)
    if name == "web":
        from othello_engine.cli import web
        return web.main(argv)
    raise ValueError(f"unknown tool {name!r}")


def apply_tuning(text: str) -> str | None:
    """Experiments only: set the search's tuning knobs from ``OTHELLO_ENGINE_TUNE``, a
    comma-separated list of ``name=value`` (see ``_core._set_tuning``). Returns an error text, or
    None."""
    from othello_engine import _core
    for item in text.split(","):
        name, _, value = item.strip().partition("=")
        if not name:
            continue
        try:
            _core._set_tuning(name, int(value))
        except ValueError:
            return f"OTHELLO_ENGINE_TUNE: cannot set {item.strip()!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    """``othello-engine`` speaks the UCI-like protocol on stdin/stdout (``--nboard`` for NBoard);
    ``othello-engine play|perft|match|analyze|train|book|games|web ...`` run the tools. ``--threads N`` sets the
    search threads of the engine process, whatever protocol it speaks."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in TOOLS:
        return run_tool(args[0], args[1:])
    args, threads, error = take_threads(args)
    if error is not None:
        sys.stderr.write(f"othello-engine: {error}\n")
        return 2
    if threads is not None:
        from othello_engine.engine import set_default_threads
        set_default_threads(threads)
    tune = os.environ.get("OTHELLO_ENGINE_TUNE")
    if tune:
        error = apply_tuning(tune)
        if error is not None:
            sys.stderr.write(f"othello-engine: {error}\n")
    from othello_engine.protocol.loop import main as loop_main
    return loop_main(args)


if __name__ == "__main__":
    sys.exit(main())
