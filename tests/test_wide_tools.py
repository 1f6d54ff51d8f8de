"""The tools on boards beyond 8x8, over real processes: othello-match (refereeing checked against the
reference rules), othello-analyze, othello-book, othello-play, GTP on 10x10, NBoard refusing 10x10."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect

import reference_rules as rr
from othello_engine.board import PASS, Board
from othello_engine.ggf import parse_ggf
from test_gtp import GtpProcess
from test_nboard import NBoardProcess, legal_names, moves_of
from uci_support import Ref

PY = sys.executable
ENGINES = Path(__file__).parent / "engines"
OURS = shlex.join([PY, "-m", "othello_engine"])
RANDOM = shlex.join([PY, str(ENGINES / "random_mover.py")])


def replay_with_reference(ggf_line: str, size: int) -> int:
    """Replay a GGF game of a size x size board with the reference rules (every move legal, every
    pass forced, played to the end); return black's final disc difference."""
    rec = parse_ggf(ggf_line)
    assert rec.board.size == size and rec.board.replay() == Board(size)
    grid, color = rr.start_grid(size), rr.BLACK
    for move in rec.board.move_stack:
        if move == PASS:
            assert rr.status(grid, color) == "pass"
            grid = rr.play(grid, color, None)
        else:
            assert divmod(move, size) in rr.legal_moves(grid, color)
            grid = rr.play(grid, color, divmod(move, size))
        color = rr.other(color)
    assert rr.status(grid, color) == "over", "a normal game is played to the end"
    return rr.final_score(grid)


def run_match(tmp_path: Path, *args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str],
                                                                          dict[str, Any], list[str]]:
    js, ggf = tmp_path / "out.json", tmp_path / "out.ggf"
    proc = subprocess.run([PY, "-m", "othello_engine", "match", *args, "--json", str(js), "--ggf", str(ggf)],
                          capture_output=True, text=True, timeout=timeout)
    data = json.loads(js.read_text()) if js.exists() else {}
    games = ggf.read_text().splitlines() if ggf.exists() else []
    return proc, data, games


def test_match_on_10x10_over_uci_ugi_and_gtp_refereed_by_the_reference(tmp_path: Path) -> None:
    proc, data, ggf = run_match(
        tmp_path, "--size", "10",
        "--engine", f"cmd={RANDOM} --seed 1", "name=r-uci",
        "--engine", f"cmd={RANDOM} --seed 2", "name=r-ugi", "proto=ugi",
        "--engine", f"cmd={RANDOM} --seed 3", "name=r-gtp", "proto=gtp",
        "--games", "2")
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == 6 and len(ggf) == 6
    assert all(g["termination"] == "normal" for g in data["games"]), data["games"]
    for line in ggf:
        assert "TY[10]BO[10 " in line
        discs = replay_with_reference(line, 10)
        assert parse_ggf(line).result == (f"{discs:+d}.00" if discs else "0.00")


def test_match_on_10x10_with_our_engine(tmp_path: Path) -> None:
    proc, data, ggf = run_match(
        tmp_path, "--size", "10",
        "--engine", f"cmd={OURS}", "name=ours", "depth=1", "option.Hash=4",
        "--engine", f"cmd={RANDOM} --seed 5", "name=random",
        "--games", "2")
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == 2
    for line in ggf:
        replay_with_reference(line, 10)
    assert all(g["termination"] == "normal" for g in data["games"]), data["games"]


def test_match_on_10x10_refuses_an_nboard_engine_with_a_reason(tmp_path: Path) -> None:
    proc, data, _ = run_match(
        tmp_path, "--size", "10",
        "--engine", f"cmd={RANDOM} --seed 1", "name=r-uci",
        "--engine", f"cmd={RANDOM} --seed 4", "name=r-nboard", "proto=nboard",
        "--games", "1")
    assert proc.returncode == 0, proc.stderr
    (game,) = data["games"]
    assert game["culprit"] == "r-nboard" and "8x8" in game["reason"], game


def test_match_size_without_a_start_needs_openings(tmp_path: Path) -> None:
    proc, _, _ = run_match(tmp_path, "--size", "9", "--engine", f"cmd={RANDOM}", "name=a",
                           "--engine", f"cmd={RANDOM}", "name=b")
    assert proc.returncode == 2 and "--openings" in proc.stderr
    proc, _, _ = run_match(tmp_path, "--size", "27", "--engine", f"cmd={RANDOM}", "name=a",
                           "--engine", f"cmd={RANDOM}", "name=b")
    assert proc.returncode == 2 and "27" in proc.stderr


def test_analyze_on_10x10_move_lists_and_fens() -> None:
    ref = Ref(10)
    for m in ("e4", "d4"):
        ref.play(m)
    text = "e4 d4\n" + ref.fen() + "\ne4 k11\n"
    proc = subprocess.run([PY, "-m", "othello_engine", "analyze", "--size", "10", "--depth", "2", "--json"],
                          input=text, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 2, proc.stderr
    recs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(recs) == 3
    for rec in recs[:2]:
        assert rec.get("error") is None, rec
        assert rec["fen"] == ref.fen() and rec["best"] in ref.moves()
    assert "k11" in recs[2]["error"]


def test_book_on_10x10_add_show_export_import(tmp_path: Path) -> None:
    book, games = tmp_path / "ten.book", tmp_path / "games.txt"
    games.write_text("e4d4c4c3\ne4f4\n")
    base = [PY, "-m", "othello_engine", "book"]
    r = subprocess.run(base + ["add", "--book", str(book), "--size", "10", str(games)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(base + ["show", "--book", str(book), "--size", "10", "--moves", "e4"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    shown = [line.split()[0] for line in r.stdout.splitlines() if "score" in line]
    assert sorted(shown) == ["d4", "f4"]
    out = tmp_path / "ten.txt"
    r = subprocess.run(base + ["export", "--book", str(book), str(out)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()[1:]
    assert lines and all(line.split()[0] == "10" and len(line.split()[1]) == 100 for line in lines)
    again = tmp_path / "again.book"
    r = subprocess.run(base + ["import", "--book", str(again), str(out)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    out2 = tmp_path / "again.txt"
    subprocess.run(base + ["export", "--book", str(again), str(out2)], check=True, timeout=60)
    assert out2.read_text() == out.read_text()


def test_play_on_10x10() -> None:
    child = pexpect.spawn(PY, ["-m", "othello_engine", "play", "--no-color", "--size", "10", "--depth", "1"],
                          encoding="utf-8", timeout=60, dimensions=(60, 120))
    child.expect_exact("\r\n> ")
    screen = child.before
    assert "Othello 10x10" in screen and "10 " in screen and " j" in screen
    child.sendline("k11")
    child.expect_exact("\r\n> ")
    assert "'k11' is not a move or a command" in child.before and "a1..j10" in child.before
    child.sendline("e4")
    child.expect_exact("\r\n> ")
    assert "Engine (O) plays " in child.before
    reply = child.before.split("Engine (O) plays ")[1].split(".")[0]
    ref = Ref(10)
    ref.play("e4")
    assert reply in ref.moves()
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_gtp_on_10x10() -> None:
    gtp = GtpProcess("--gtp")
    try:
        assert gtp.ask("boardsize 10") == ""
        assert gtp.ask("play b e4") == ""
        gtp.send("showboard")
        status, _, text = gtp.response()
        assert status == "=" and text[0] == "white to move"
        assert any(line.startswith("10 ") for line in text) and any(" j" in line for line in text)
        gtp.send("boardsize 11")
        assert gtp.response()[0] == "?"
        gtp.send("play w k1")
        assert gtp.response()[0] == "?"
        move = gtp.ask("genmove w")
        ref = Ref(10)
        ref.play("e4")
        assert move.lower() in ref.moves()
    finally:
        gtp.send("quit")
        gtp.proc.wait(10)


def test_nboard_refuses_a_10x10_game() -> None:
    engine = NBoardProcess()
    try:
        engine.send("nboard 2", "set depth 1")
        engine.sync()
        cells = "-" * 44 + "O*--------*O" + "-" * 44
        for game in (f"(;GM[Othello]TY[10]BO[10 {cells} *]B[E4];)", "(;GM[Othello]TY[10];)"):
            engine.send(f"set game {game}")
            replies = engine.sync()
            assert len(replies) == 1 and replies[0].startswith("status set game rejected"), replies
            assert "8x8" in replies[0] and "unchanged" in replies[0]
        # the game is still the 8x8 start
        assert {m for m, _, _ in moves_of(engine.hints(64))} == legal_names(Board())
    finally:
        engine.close()


def test_book_keys_and_passes_of_wide_boards_beside_8x8_ones() -> None:
    """A 10x10 position is keyed by a BLOB and its pass stored as 100 (the core's pass code there);
    an 8x8 one keeps its signed INTEGER key and a pass as 64, as books always stored them."""
    from othello_engine.book import Book
    book = Book.memory()
    wide = Board.from_cells("XO" + "-" * 98, "w")            # white must pass, black then plays c1
    small = Board.from_cells("XO-" + "-" * 61, "w")           # the same on 8x8
    for board in (wide, small):
        assert board.must_pass()
        game = board.copy()
        game.push(PASS)
        game.push(2)                                          # c1 on both boards
        book.add_game(game)
        assert [m.move for m in book.lookup(board)] == [PASS]
        after = board.copy()
        after.push(PASS)
        assert [m.move for m in book.lookup(after)] == [2]
    rows = book._conn.execute("SELECT size, typeof(player), move FROM moves ORDER BY size, move").fetchall()
    assert ("blob", 100) in {(t, m) for s, t, m in rows if s == 10}
    assert ("integer", 64) in {(t, m) for s, t, m in rows if s == 8}
