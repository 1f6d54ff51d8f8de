"""``othello-match``: the command line of the match runner (argument parsing and output only)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from typing import Optional, TextIO

from othello_engine.drivers import DriverError
from othello_engine.match import (GameResult, MatchError, MatchResult, format_report, game_line,
                                  read_finished_games, run_match)
from othello_engine.match.arguments import build_parser, config_from_args


def main(argv: Optional[list[str]] = None) -> int:
    """``othello-match``: run a match from the command line; 0 when it ran, 2 on bad input,
    130 when interrupted (the games so far are reported)."""
    args = build_parser().parse_args(argv)
    err: TextIO = sys.stderr
    try:
        config, skipped = config_from_args(args)
    except (MatchError, DriverError) as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    for s in skipped:
        print(f"othello-match: skipped opening {s.source} {s.text!r}: {s.reason}", file=err)
    total = len(config.schedule())
    live = err.isatty() and not args.quiet
    if args.ggf:
        folder = os.path.dirname(os.path.abspath(args.ggf))
        if not os.access(folder, os.W_OK) or os.path.isdir(args.ggf):
            print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
            return 2
    refused: tuple[type[Exception], ...] = (MatchError,)
    if args.cluster is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            print(f"othello-match: error: {exc}", file=err)
            return 2
        refused += (ClusterError,)
    done: list[GameResult] = []
    if args.resume:
        if not args.ggf:
            print("othello-match: error: --resume needs the --ggf file of the earlier run", file=err)
            return 2
        if os.path.exists(args.ggf):
            try:
                done, complete = read_finished_games(config, args.ggf)
            except MatchError as exc:
                print(f"othello-match: error: {exc}", file=err)
                return 2
            with open(args.ggf, "r+b") as cut:
                cut.truncate(complete)  # a record cut short by a kill is played again
            if not args.quiet:
                print(f"othello-match: resuming: {len(done)} of {total} games already in {args.ggf}",
                      file=err)
    ggf_file: Optional[TextIO] = None
    write_failed: list[str] = []  # what could not be written; the match goes on without it

    def on_game(game: GameResult, state: MatchResult) -> None:
        nonlocal ggf_file
        if args.ggf and game.ggf and not write_failed:
            try:
                if ggf_file is None:  # created with the first game, so a match that never starts leaves none
                    ggf_file = open(args.ggf, "a" if args.resume else "w", encoding="utf-8")
                ggf_file.write(game.ggf + "\n")
                ggf_file.flush()
            except OSError as exc:
                write_failed.append(f"the GGF file {args.ggf!r}")
                print(f"othello-match: error: cannot write the GGF file {args.ggf!r}: "
                      f"{exc.strerror or exc}; the match goes on without it", file=err, flush=True)
        if args.quiet:
            return
        if live:
            p = state.pairings[0]
            extra = f"  {p.first} vs {p.second} {p.wins}-{p.losses}-{p.draws}  Elo {p.elo()}"
            if state.sprt is not None:
                extra += f"  LLR {state.sprt.llr:.2f}"
            err.write(f"\rgames {len(state.games)}/{total}{extra}\x1b[K")
            if game.culprit:
                err.write("\n" + game_line(game, total) + "\n")
            err.flush()
        else:
            print(game_line(game, total), file=err, flush=True)

    try:
        result = run_match(config, on_game=on_game, done=done, cluster=args.cluster)
    except refused as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    finally:
        if ggf_file is not None:
            try:
                ggf_file.close()
            except OSError:  # the last flush failed: already reported, or reported now
                if not write_failed:
                    write_failed.append(f"the GGF file {args.ggf!r}")
                    print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
    if live:
        err.write("\n")
    # with --json - stdout carries the JSON alone (for pipes), so the report goes to stderr
    report = format_report(result)
    try:
        print(report, file=err if args.json == "-" else sys.stdout, flush=True)
    except OSError as exc:  # stdout is full or gone: the results still reach the user
        write_failed.append("the report on standard output")
        print(f"othello-match: error: cannot write the report: {exc.strerror or exc}\n{report}", file=err)
    if args.json:
        data = result.to_json()
        data["skipped_openings"] = [asdict(s) for s in skipped]
        text = json.dumps(data, indent=2)
        try:
            if args.json == "-":
                print(text, flush=True)
            else:
                with open(args.json, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
        except OSError as exc:
            write_failed.append(f"the JSON summary {args.json!r}")
            print(f"othello-match: error: cannot write the JSON summary {args.json!r}: "
                  f"{exc.strerror or exc}", file=err)
    if result.stopped_early == "interrupted":
        return 130
    if write_failed:
        print(f"othello-match: {' and '.join(write_failed)} could not be written (the report above "
              "has every game)", file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
