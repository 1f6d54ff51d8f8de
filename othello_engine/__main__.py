"""Command line entry point: the engine process and its subcommands."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """``othello-engine`` speaks the UCI-like protocol on stdin/stdout (``--nboard`` for NBoard);
    ``othello-engine play|perft|match|analyze|book ...`` run the tools."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "play":
        from othello_engine.play import main as play_main
        return play_main(args[1:])
    if args and args[0] == "perft":
        from othello_engine.perft import main as perft_main
        return perft_main(args[1:])
    if args and args[0] == "match":
        from othello_engine.match import main as match_main
        return match_main(args[1:])
    if args and args[0] == "analyze":
        from othello_engine.analysis import main as analyze_main
        return analyze_main(args[1:])
    if args and args[0] == "train":
        from othello_engine.train import main as train_main
        return train_main(args[1:])
    if args and args[0] == "book":
        from othello_engine.book import main as book_main
        return book_main(args[1:])
    from othello_engine.protocol.loop import main as loop_main
    return loop_main(args)


if __name__ == "__main__":
    sys.exit(main())
