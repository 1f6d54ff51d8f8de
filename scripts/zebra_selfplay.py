"""Training games from another engine: Zebra's self-play from random openings, as game records.

Zebra (Gunnar Andersson's program; GPL, public source GitHub lk16/zebra, built by the user: see
docs/development.md, "Zebra as an opponent") plays both sides of every game from a random opening,
with its fixed-depth search (``-l D E E`` for both colours: D plies in the midgame, an exact solve
from E empties on), no book and no randomness of its own:

    python scripts/zebra_selfplay.py zebra_games.txt --zebra /path/to/zebra --games 60000 --jobs 2

The openings are random legal lines of 6-12 plies from the standard start (seeded; no line twice),
played in chunks of 2,000 games, each by one ``zebra -seqfile -repeat -log`` run in a work folder
of its own beside the output (``OUT.work/``; Zebra writes files into its working folder). A chunk
that finished is kept, so a run that was stopped resumes with the chunks not yet played. At the end
the games are written to OUT as ``othello-train`` game records, ``<moves> <black disc difference>
<solve>``: the result by replaying the moves (the empties to the winner, as this package counts),
and solve = E, since from there on both sides played perfectly. Label them as any game file:
``othello-train label OUT OUT.pos --weights ... --depth 4``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from othello_engine import atomicfile
from othello_engine.board import Board, random_moves, square_name
from othello_engine.train.records import board_of, game_positions, parse_game

CHUNK = 2000


def random_openings(count: int, seed: int, low: int = 6, high: int = 12) -> list[str]:
    """count distinct random legal lines of low..high plies from the start, after which the
    side to move has a move (seeded: the same lines for the same arguments)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        board = Board()
        plies = rng.randint(low, high)
        line = random_moves(board, plies, rng)
        text = "".join(square_name(move) for move in line)
        if len(line) == plies and board.legal_moves() and text not in seen:
            seen.add(text)
            out.append(text)
    return out


def game_records(log_text: str, solve: int) -> tuple[list[str], int]:
    """(game records, games left out) of a Zebra log: one record per move line that replays as a
    finished game, its result by that replay (Black's discs less White's, the empties to the
    winner)."""
    records, bad = [], 0
    for line in log_text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            moves, _, _ = parse_game(f"{line} 0 0")
            *_, (P, O, sign) = game_positions(moves)
        except ValueError:
            bad += 1
            continue
        final = board_of(P, O)        # the side to move as Black: sign turns it to Black's view
        if not final.is_game_over():
            bad += 1                  # the log ends before the game does
            continue
        records.append(f"{line} {final.disc_difference() * sign:+d} {solve}")
    return records, bad


def play_chunk(zebra: Path, data: Path, work: Path, index: int, depth: int, exact: int) -> str:
    """Play chunk index (its openings in work/chunk_NNN.txt) unless it finished before; returns
    its log's path."""
    name = f"chunk_{index:03d}"
    log = work / f"{name}.log"
    if (work / f"{name}.done").exists():
        return str(log)
    folder = work / name
    folder.mkdir(exist_ok=True)
    coeffs = folder / "coeffs2.bin"
    if not coeffs.exists():
        shutil.copyfile(data / "coeffs2.bin", coeffs)
    log.unlink(missing_ok=True)
    games = sum(1 for _ in open(work / f"{name}.txt"))
    try:
        subprocess.run([str(zebra), "-l", str(depth), str(exact), str(exact), str(depth),
                        str(exact), str(exact), "-b", "0", "-r", "0", "-seqfile",
                        str(work / f"{name}.txt"), "-repeat", str(games), "-log", str(log)],
                       cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=24 * 3600)
    except subprocess.CalledProcessError as exc:
        if exc.returncode == -signal.SIGINT:
            raise KeyboardInterrupt from None     # Ctrl-C reached Zebra first
        raise
    (work / f"{name}.done").touch()
    return str(log)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="game records to write")
    ap.add_argument("--zebra", required=True, help="the zebra binary (coeffs2.bin beside it)")
    ap.add_argument("--zebra-data", help="folder of coeffs2.bin (default: the binary's)")
    ap.add_argument("--games", type=int, default=CHUNK, help=f"games (default {CHUNK})")
    ap.add_argument("--depth", type=int, default=6, help="Zebra's midgame depth (default 6)")
    ap.add_argument("--exact", type=int, default=14, help="exact solve from this many empties (default 14)")
    ap.add_argument("--seed", type=int, default=2026, help="seed of the openings (default 2026)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="Zebra runs at once")
    args = ap.parse_args(argv)
    zebra = Path(args.zebra).resolve()
    data = Path(args.zebra_data).resolve() if args.zebra_data else zebra.parent
    if not (zebra.is_file() and os.access(zebra, os.X_OK)):
        print(f"zebra_selfplay: {args.zebra}: not an executable file", file=sys.stderr)
        return 2
    if not (data / "coeffs2.bin").is_file():
        print(f"zebra_selfplay: no coeffs2.bin in {data} (give --zebra-data)", file=sys.stderr)
        return 2
    if not (1 <= args.games and 1 <= args.depth <= 60 and 0 <= args.exact <= 60 and args.jobs >= 1):
        print("zebra_selfplay: --games, --depth and --jobs take 1 or more, --exact 0-60", file=sys.stderr)
        return 2
    work = Path(args.out + ".work")
    work.mkdir(parents=True, exist_ok=True)
    stamp = f"{args.games} {args.seed} {args.depth} {args.exact}\n"
    stamp_path = work / "settings.txt"
    if stamp_path.exists() and stamp_path.read_text() != stamp:
        print(f"zebra_selfplay: {work} holds a run with other settings ({stamp_path.read_text().strip()}); "
              f"remove it or give another output", file=sys.stderr)
        return 2
    if not stamp_path.exists():
        lines = random_openings(args.games, args.seed)
        for i in range(0, len(lines), CHUNK):
            (work / f"chunk_{i // CHUNK:03d}.txt").write_text("\n".join(lines[i:i + CHUNK]) + "\n")
        stamp_path.write_text(stamp)
    chunks = (args.games + CHUNK - 1) // CHUNK
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            logs = list(pool.map(lambda i: play_chunk(zebra, data, work, i, args.depth, args.exact),
                                 range(chunks)))
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"zebra_selfplay: a Zebra run failed ({type(exc).__name__}); run again to resume",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"zebra_selfplay: interrupted; the finished chunks are kept in {work}: run again to "
              f"resume", file=sys.stderr)
        return 130
    records, bad = [], 0
    for log in logs:
        try:
            text = Path(log).read_text()
        except OSError:
            print(f"zebra_selfplay: {log} is missing: remove its .done file and run again",
                  file=sys.stderr)
            return 1
        got, lost = game_records(text, args.exact)
        records += got
        bad += lost
    atomicfile.write_text(args.out, "".join(r + "\n" for r in records))
    print(f"zebra_selfplay: {len(records)} games written to {args.out}"
          + (f" ({bad} left out: not finished in the log)" if bad else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
