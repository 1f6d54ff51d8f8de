"""WTHOR: the reader and writer (generated files, every field), the real fixture (WTH_2021.wtb with
its name files), each kind of bad input, and the othello-games command run as users run it."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import reference_rules as ref
from othello_engine import wthor
from othello_engine.board import PASS, Board, square_name
from uci_support import command

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "WTH_2021.wtb"
GAME_1 = ("f5d6c4g5c6c5d7d3b4c3e3b5f6f3c2a4d2b6b3e2a3c7g6f4c8a2e6c1a6d8e8e7f8g4f7h6d1e1g3f2h4h5h3h2g1b7"
          "g7g2b8a8a7g8h1f1h7a5b2b1a1h8")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([command("othello-games"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def fixture_copy(tmp_path: Path, name: str = "WTH_2021.wtb") -> Path:
    """The fixture and its name files in tmp_path (the game file under name)."""
    for f in ("WTHOR.JOU", "WTHOR.TRN"):
        shutil.copy(DATA / f, tmp_path / f)
    target = tmp_path / name
    shutil.copy(FIXTURE, target)
    return target


def patch(path: Path, offset: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset:offset + len(data)] = data
    path.write_bytes(bytes(raw))


def record_offset(game: int) -> int:
    """Where record ``game`` (from 1) of an 8x8 game file starts."""
    return wthor.HEADER_SIZE + 68 * (game - 1)


# --- the reference: decoded and played without the package ---------------------------------------
def reference_replay(raw: bytes) -> tuple[list[str], int]:
    """Decode a record's move bytes by hand (10 * row + col) and play them with the reference rules,
    passing where the side to move has no move; the moves and Black's final disc difference."""
    grid, color = ref.start_grid(8), ref.BLACK
    names = []
    for byte in raw:
        if byte == 0:
            break
        move = (byte // 10 - 1, byte % 10 - 1)
        if ref.status(grid, color) == "pass":
            grid, color = ref.play(grid, color, None), ref.other(color)
        assert move in ref.legal_moves(grid, color)
        grid, color = ref.play(grid, color, move), ref.other(color)
        names.append("abcdefgh"[move[1]] + str(move[0] + 1))
    return names, ref.final_score(grid)


# --- generated files --------------------------------------------------------------------------------
def test_generated_round_trip_keeps_every_field() -> None:
    header = wthor.WthorHeader(century=19, year=99, month=12, day=31, games=2, names=0, game_year=1998,
                               board_size=8, game_type=0, depth=20, reserved=7)
    moves = bytes([56, 64, 43, 57]) + bytes(56)
    full = FIXTURE.read_bytes()[record_offset(1) + 8:record_offset(1) + 68]
    games = [wthor.WthorGame(65535, 1234, 0, 40, 38, moves), wthor.WthorGame(7, 65534, 3, 0, 64, full)]
    data = wthor.format_wthor(header, games)
    assert len(data) == 16 + 2 * 68
    back = wthor.parse_wthor(data)
    assert back.header == header and back.games == games and back.bad == []
    assert wthor.format_wthor(back.header, back.games) == data
    assert struct.unpack_from("<4BiHH4B", data) == (19, 99, 12, 31, 2, 0, 1998, 8, 0, 20, 7)
    assert [square_name(m) for m in wthor.replay_game(games[0])[0]] == ["f5", "d6", "c4", "g5"]
    assert wthor.moves_text(wthor.replay_game(games[1])[0]) == GAME_1


def test_generated_10x10_file() -> None:
    board = Board(10)
    for _ in range(12):
        board.push(board.legal_moves()[-1])
    codes = wthor.encode_moves(board.move_stack, 10)
    assert square_name(board.move_stack[0], 10) == "f7"
    assert len(codes) == 96 and codes[0] == 12 * 7 + 6       # row 7, column 6
    header = wthor.WthorHeader(game_year=2005, board_size=10, depth=30)
    data = wthor.format_wthor(header, [wthor.WthorGame(1, 2, 3, 50, 52, codes)])
    assert len(data) == 16 + 104
    back = wthor.parse_wthor(data)
    assert back.header.size == 10
    moves, final = wthor.replay_game(back.games[0], 10)
    assert moves == board.move_stack and final is None
    assert wthor.format_wthor(back.header, back.games) == data


def test_name_files_round_trip() -> None:
    names = ["Müller Jürgen", "", "x" * 30]
    data = wthor.format_names(names, wthor.PLAYER_NAME_SIZE)
    assert len(data) == 16 + 3 * 20
    assert wthor.parse_names(data) == ["Müller Jürgen", "", "x" * 19]
    trn = wthor.format_names(["Open de Paris"], wthor.TOURNAMENT_NAME_SIZE)
    assert wthor.parse_names(trn) == ["Open de Paris"] and len(trn) == 16 + 26


# --- the real fixture ------------------------------------------------------------------------------
def test_fixture_count_moves_scores_and_names() -> None:
    wf = wthor.read_wthor(str(FIXTURE))
    assert wf.header.games == len(wf.games) == 320 and wf.bad == []
    assert (wf.header.game_year, wf.header.depth, wf.header.size) == (2021, 24, 8)
    assert len(wf.players) == 3884 and len(wf.tournaments) == 439
    first = wf.games[0]
    assert first[:5] == (116, 2887, 2405, 28, 29)
    rec = wthor.game_record(wf, first)
    assert (rec.black, rec.white, rec.place, rec.date, rec.result) == (
        "William Joanna", "Hughes Scott", "Australian National", "2021", "-8.00")
    assert wthor.moves_text(rec.board.move_stack) == GAME_1
    last = wthor.game_record(wf, wf.games[-1])
    assert (last.black, last.white, last.result) == ("Low Kang Sheng", "Kurniawan Samuel He", "-2.00")


def test_fixture_replays_as_the_reference_rules_do() -> None:
    wf = wthor.read_wthor(str(FIXTURE))
    passes = 0
    for game in wf.games:
        moves, final = wthor.replay_game(game)
        names, score = reference_replay(game.moves)
        assert wthor.moves_text(moves) == "".join(names)
        assert final == score == wthor.black_difference(game.black_discs)
        passes += moves.count(PASS)
    assert passes > 0       # the fixture has games with passes the records leave out


# --- bad input -------------------------------------------------------------------------------------
def test_truncated_file(tmp_path: Path) -> None:
    path = fixture_copy(tmp_path)
    path.write_bytes(path.read_bytes()[:-10])
    r = run("check", "--no-solve", path.name, cwd=tmp_path)
    assert r.returncode == 1
    assert "game 320: truncated record: 58 of 68 bytes" in r.stdout
    assert "games: 319 played under the rules, 1 bad" in r.stdout
    r = run("convert", path.name, "--to", "moves", cwd=tmp_path)
    assert r.returncode == 1 and len(r.stdout.splitlines()) == 319
    assert "game 320: truncated record" in r.stderr


@pytest.mark.parametrize("count, expected, played", [
    (330, "game 321: missing: the header counts 330 games, the file holds 320 whole records "
          "(games 321..330 absent)", 320),
    (300, "game 301: beyond the header's count: the header counts 300 games, the file holds 320", 320),
])
def test_header_count_disagreeing_with_the_size(tmp_path: Path, count: int, expected: str, played: int) -> None:
    path = fixture_copy(tmp_path)
    patch(path, 4, struct.pack("<i", count))
    r = run("check", "--no-solve", path.name, cwd=tmp_path)
    assert r.returncode == 1 and expected in r.stdout
    assert f"games: {played} played under the rules, 1 bad" in r.stdout


def test_illegal_move_and_bad_name_number(tmp_path: Path) -> None:
    path = fixture_copy(tmp_path)
    patch(path, record_offset(5) + 8 + 9, bytes([45]))     # move 10 of game 5: e4, taken at the start
    patch(path, record_offset(7) + 2, struct.pack("<H", 60000))  # game 7's black player
    patch(path, record_offset(9) + 8 + 20, bytes([99]))    # move 21 of game 9: no square
    r = run("check", "--no-solve", path.name, cwd=tmp_path)
    assert r.returncode == 1
    assert "game 5: move 10: e4: the square is occupied" in r.stdout
    assert "game 7: black player number 60000 is beyond the name file (3884 names)" in r.stdout
    assert "game 9: move 21: byte 99 is no square of a 8x8 board" in r.stdout
    assert "games: 317 played under the rules, 3 bad" in r.stdout
    r = run("stats", path.name, cwd=tmp_path)
    assert r.returncode == 1 and "games: 317 (3 bad, not counted)" in r.stdout
    assert r.stderr.count("othello-games: bad: ") == 3


def test_not_a_game_file(tmp_path: Path) -> None:
    shutil.copy(DATA / "WTHOR.JOU", tmp_path / "names.wtb")
    (tmp_path / "short.wtb").write_bytes(b"\x14\x15")
    for name, why in (("names.wtb", "a name file of 3884 names (.JOU/.TRN), not a game file"),
                      ("short.wtb", "2 bytes: too short for a WTHOR header (16 bytes)")):
        r = run("stats", name, cwd=tmp_path)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == f"othello-games: {name}: {why}\n"


def test_a_good_file_exits_0(tmp_path: Path) -> None:
    r = run("check", "--no-solve", str(FIXTURE), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "games: 320 played under the rules, 0 bad" in r.stdout
    assert "recorded result differs from the final position: 0" in r.stdout


# --- the games command -----------------------------------------------------------------------------
def test_convert_wthor_ggf_moves_and_back(tmp_path: Path) -> None:
    r = run("convert", str(FIXTURE), "-o", "y.ggf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ggf = (tmp_path / "y.ggf").read_text().splitlines()
    assert len(ggf) == 320 and "PB[William Joanna]PW[Hughes Scott]RE[-8.00]" in ggf[0]
    r = run("convert", "y.ggf", "-o", "back.wtb", cwd=tmp_path)
    assert r.returncode == 0 and "names in back.JOU, back.TRN" in r.stderr
    original = wthor.read_wthor(str(FIXTURE))
    back = wthor.read_wthor(str(tmp_path / "back.wtb"))
    assert back.header.game_year == 2021 and back.header.depth == 24 and len(back.games) == 320
    for a, b in zip(original.games, back.games):
        assert (a.black_discs, a.theoretical, a.moves) == (b.black_discs, b.theoretical, b.moves)
        assert original.players[a.black] == back.players[b.black]
        assert original.tournaments[a.tournament] == back.tournaments[b.tournament]
    r = run("convert", "back.wtb", "--to", "moves", cwd=tmp_path)
    assert r.stdout.splitlines()[0] == GAME_1
    r = run("convert", str(FIXTURE), "-o", "same.wtb", cwd=tmp_path)     # WTHOR to WTHOR: every byte
    assert (tmp_path / "same.wtb").read_bytes()[16:] == FIXTURE.read_bytes()[16:]


def test_filter_and_stats(tmp_path: Path) -> None:
    r = run("filter", str(FIXTURE), "--player", "levy marc", "--to", "moves", cwd=tmp_path)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 17
    # e6f4c3c4 is f5d6c3d3 mirrored in the a1-h8 diagonal: the same opening up to symmetry
    r = run("filter", str(FIXTURE), "--tournament", "beijing", "--opening", "e6f4c3c4", "-o", "b.wtb",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = wthor.read_wthor(str(tmp_path / "b.wtb"))
    assert len(kept.games) == 3 and all(kept.tournaments[g.tournament] == "Beijing Open" for g in kept.games)
    assert all(g.moves[:4] == bytes([56, 64, 33, 34]) for g in kept.games)
    r = run("filter", str(FIXTURE), "--year", "2020", "--to", "moves", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    r = run("stats", str(FIXTURE), "--plies", "4", "--top", "3", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.splitlines()[:5] == ["games: 320", "players: 119", "tournaments: 19", "years: 2021",
                                         "results: black wins 154 (48.1%), white wins 160 (50.0%), draws 6 "
                                         "(1.9%); mean black disc difference -0.12"]
    assert "  86  f5d6c3d3" in r.stdout


def test_filter_onto_its_own_input_keeps_the_games_it_reads(tmp_path: Path) -> None:
    """The output replaces the input only once every game has been read from it (it used to be
    emptied before the first one was)."""
    r = run("convert", str(FIXTURE), "-o", "all.ggf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("filter", "all.ggf", "--player", "levy marc", "-o", "all.ggf", cwd=tmp_path)
    assert r.returncode == 0 and "wrote 17 games to all.ggf" in r.stderr
    assert len((tmp_path / "all.ggf").read_text().splitlines()) == 17
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.ggf"]


def test_check_theoretical_scores_against_the_exact_solve(tmp_path: Path) -> None:
    """Game 1 of the database says Black gets 29 discs (-6) with perfect play from 24 empties; our
    solve must agree, and a record changed to 30 (-4) must be reported."""
    r = run("check", str(FIXTURE), "--limit", "1", "--hash", "16", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "theoretical scores: 1 of 1 agree with our exact solve (100.0%)" in r.stdout
    path = fixture_copy(tmp_path)
    patch(path, record_offset(1) + 7, bytes([30]))
    r = run("check", path.name, "--limit", "1", "--hash", "16", cwd=tmp_path)
    assert "game 1: the file says -4, our exact solve at 24 empties -6" in r.stdout
    assert "theoretical scores: 0 of 1 agree" in r.stdout


def test_engine_dispatch_runs_the_games_command(tmp_path: Path) -> None:
    r = subprocess.run([command("othello-engine"), "games", "stats", str(FIXTURE)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("games: 320\n")
