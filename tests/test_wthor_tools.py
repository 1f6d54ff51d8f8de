"""Every tool that reads games takes a WTHOR database: othello-analyze, othello-book add,
othello-train label and testset, othello-match --openings, each run as a user runs it."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

from othello_engine import wthor
from othello_engine.board import PASS
from othello_engine.ggf import parse_ggf
from uci_support import command

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "WTH_2021.wtb"
ENGINE = shlex.join([sys.executable, "-P", "-m", "othello_engine"])


def run(name: str, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([command(name), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def small_database(tmp_path: Path, games: int = 3, bad: bool = False) -> Path:
    """The first games of the fixture as a .wtb in tmp_path with the real name files beside it; with
    ``bad``, game 2 gets an illegal move (move 5 on a square taken at the start)."""
    for f in ("WTHOR.JOU", "WTHOR.TRN"):
        shutil.copy(DATA / f, tmp_path / f)
    wf = wthor.read_wthor(str(FIXTURE))
    records = wf.games[:games]
    if bad:
        records[1] = records[1]._replace(moves=records[1].moves[:4] + bytes([44]) + records[1].moves[5:])
    path = tmp_path / "small.wtb"
    path.write_bytes(wthor.format_wthor(wf.header, records))
    return path


def test_analyze_whole_games_and_positions_at_n_empties(tmp_path: Path) -> None:
    small_database(tmp_path, 2)
    r = run("othello-analyze", "small.wtb", "--depth", "1", "--json", "-q", "--engine", ENGINE, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    wf = wthor.read_wthor(str(tmp_path / "small.wtb"))
    plies = [len(wthor.replay_game(g)[0]) for g in wf.games]
    assert len(records) == sum(plies)                  # one record before each move, passes included
    assert [r["line"] for r in records] == [1] * plies[0] + [2] * plies[1]
    assert parse_ggf(records[0]["input"]).black == "William Joanna"
    r = run("othello-analyze", "small.wtb", "--empties", "24", "--depth", "1", "--json", "-q",
            "--engine", ENGINE, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(x["line"], x["empties"], x["ply"]) for x in records] == [(1, 24, 37), (2, 24, 37)]


def test_analyze_reports_a_bad_game_and_goes_on(tmp_path: Path) -> None:
    small_database(tmp_path, 3, bad=True)
    r = run("othello-analyze", "small.wtb", "--empties", "30", "--depth", "1", "--json", "-q",
            "--engine", ENGINE, cwd=tmp_path)
    assert r.returncode == 1
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["line"] for x in records] == [1, 2, 3]
    assert records[1]["error"] == "move 5: d4: the square is occupied"
    assert "error" not in records[0] and records[0]["empties"] == records[2]["empties"] == 30


def test_book_add_from_a_database(tmp_path: Path) -> None:
    small_database(tmp_path, 3, bad=True)
    r = run("othello-book", "add", "small.wtb", "--book", "b.book", "--plies", "10", cwd=tmp_path)
    assert r.returncode == 1
    assert "small.wtb: game 2: move 5: d4: the square is occupied" in r.stderr
    assert r.stdout.startswith("added 2 games: ")
    with sqlite3.connect(tmp_path / "b.book") as db:
        assert db.execute("select count(*) from positions").fetchone()[0] >= 10


def test_train_label_and_testset_from_a_database(tmp_path: Path) -> None:
    small_database(tmp_path, 3, bad=True)
    r = run("othello-train", "label", "small.wtb", "pos.txt", "--jobs", "1", "-q", cwd=tmp_path)
    assert r.returncode == 1
    assert "bad game left out: small.wtb: game 2: move 5" in r.stderr
    lines = (tmp_path / "pos.txt").read_text().splitlines()
    wf = wthor.read_wthor(str(tmp_path / "small.wtb"))
    kept = [wf.games[0], wf.games[2]]
    # a position before each move; a pass (game 3 has one) gives none of its own, as in every game file
    assert len(lines) == sum(len([m for m in wthor.replay_game(g)[0] if m != PASS]) for g in kept) == 120
    assert lines[0] == "-" * 27 + "OX------XO" + "-" * 27 + " -08       -"     # game 1: Black lost by 8
    r = run("othello-train", "testset", "small.wtb", "t.txt", "--empties", "8", "--count", "2",
            "--jobs", "1", "-q", cwd=tmp_path)
    assert r.returncode == 1
    assert len((tmp_path / "t.txt").read_text().splitlines()) == 2
    # the same positions labelled by a search to a depth (a midgame set): its own message
    r = run("othello-train", "testset", "small.wtb", "d.txt", "--empties", "8", "--count", "2",
            "--depth", "4", "--jobs", "1", "-q", cwd=tmp_path)
    assert r.returncode == 1 and "2 positions searched to depth 4 into d.txt" in r.stderr
    assert [line[:64] for line in (tmp_path / "d.txt").read_text().splitlines()] == \
        [line[:64] for line in (tmp_path / "t.txt").read_text().splitlines()]


def test_match_openings_from_a_database(tmp_path: Path) -> None:
    small_database(tmp_path, 3)
    r = run("othello-match", "--engine", f"cmd={ENGINE}", "name=a", "depth=1", "--engine", f"cmd={ENGINE}",
            "name=b", "depth=1", "--games", "2", "--openings", "small.wtb", "--opening-plies", "6",
            "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    games = [parse_ggf(line) for line in (tmp_path / "othello-match.ggf").read_text().splitlines()]
    wf = wthor.read_wthor(str(tmp_path / "small.wtb"))
    first = [m for m in wthor.replay_game(wf.games[0])[0] if m != PASS][:6]
    assert len(games) == 2 and all(g.board.move_stack[:6] == first for g in games)


def test_match_openings_deduplicated_by_symmetry(tmp_path: Path) -> None:
    """The fixture's 320 games give 25 positions after 4 moves, each once up to symmetry."""
    from othello_engine.match.openings import load_openings
    openings, skipped = load_openings(str(FIXTURE), 8, 4)
    assert len(openings) == 25 and skipped == []
    mirrored = tmp_path / "m.wtb"
    wf = wthor.read_wthor(str(FIXTURE))
    first = wf.games[0]
    # the same game played in the a1-h8 mirror: 10 * row + col becomes 10 * col + row
    flipped = bytes((b % 10) * 10 + b // 10 if b else 0 for b in first.moves)
    mirrored.write_bytes(wthor.format_wthor(wf.header, [first, first._replace(moves=flipped)]))
    openings, _ = load_openings(str(mirrored), 8, 4)
    assert len(openings) == 1
    r = run("othello-match", "--engine", "cmd=x", "--engine", "cmd=y", "--openings", "m.wtb",
            "--opening-plies", "0", cwd=tmp_path)
    assert r.returncode == 2 and "--opening-plies 0: expected 1..60" in r.stderr
    assert struct.unpack_from("<i", mirrored.read_bytes(), 4) == (2,)
