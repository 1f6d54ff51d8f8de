"""Perft: published counts from the 8x8 start, the core against the reference on every size, the CLI."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time

import pytest

import reference_rules as ref
from uci_support import default_sigint
from othello_engine import _core
from othello_engine.board import Board, square_name
from othello_engine.perft import perft as board_perft

# Leaf counts from the 8x8 start, depths 1..10, as published (a pass is a ply, a finished game a leaf).
PUBLISHED = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284]


def start_bitboards(size: int) -> tuple[int, int, int]:
    black, white = ref.bitboards(ref.start_grid(size))
    return black, white, _core.board_mask(size)


@pytest.mark.parametrize("depth", range(1, 8))
def test_reference_perft_matches_published(depth: int) -> None:
    """The oracle itself is checked against the published numbers."""
    assert ref.perft(ref.start_grid(8), ref.BLACK, depth) == PUBLISHED[depth - 1]


@pytest.mark.parametrize("bulk", [False, True])
def test_core_perft_start_depths_1_to_8(bulk: bool) -> None:
    P, O, mask = start_bitboards(8)
    assert [_core.perft(P, O, d, mask, bulk) for d in range(1, 9)] == PUBLISHED[:8]
    assert _core.perft(P, O, 0, mask, bulk) == 1


@pytest.mark.slow
@pytest.mark.parametrize("depth", [9, 10])
@pytest.mark.parametrize("bulk", [False, True])
def test_core_perft_start_deep(depth: int, bulk: bool) -> None:
    P, O, mask = start_bitboards(8)
    assert _core.perft(P, O, depth, mask, bulk) == PUBLISHED[depth - 1]


@pytest.mark.parametrize("size,depth", [(3, 9), (4, 9), (5, 6), (6, 5), (7, 4)])
def test_core_perft_small_boards_match_reference(size: int, depth: int) -> None:
    """From the standard start (4, 6) or the hand-made one (3, 5, 7): every depth up to `depth`;
    the 3x3 and 4x4 trees end within that depth, so finished games are counted too."""
    P, O, mask = start_bitboards(size)
    grid = ref.start_grid(size)
    for d in range(1, depth + 1):
        expected = ref.perft(grid, ref.BLACK, d)
        assert _core.perft(P, O, d, mask) == expected, (size, d)
        assert _core.perft(P, O, d, mask, True) == expected, (size, d)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_core_perft_random_positions_match_reference(size: int) -> None:
    """Positions from random games (late ones have passes and game ends inside the tree)."""
    rng = random.Random(3000 + size)
    for _ in range(6):
        game = ref.random_game(size, rng)
        for grid, color, _move in game[len(game) // 3::max(1, len(game) // 5)]:
            black, white = ref.bitboards(grid)
            P, O = (black, white) if color == ref.BLACK else (white, black)
            mask = _core.board_mask(size)
            for d in range(0, 4):
                expected = ref.perft(grid, color, d)
                assert _core.perft(P, O, d, mask) == expected
                assert _core.perft(P, O, d, mask, True) == expected


def test_divide_sums_to_total_and_matches_reference() -> None:
    board = Board(6)
    for move in ("c2", "b2"):
        board.push_str(move)
    result = board_perft(board, 4)
    grid = [list(board.cells()[r * 6:(r + 1) * 6].replace("-", ".")) for r in range(6)]
    color = ref.BLACK if board.turn == 0 else ref.WHITE
    expected = {ref.square_index(m): ref.perft(ref.play(grid, color, m), ref.other(color), 3)
                for m in ref.legal_moves(grid, color)}
    assert dict(result.per_move) == expected
    assert result.total == sum(expected.values()) == ref.perft(grid, color, 4)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "othello_engine", "perft", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_prints_divide_total_time_rate() -> None:
    out = run_cli("6").stdout.splitlines()
    per_move = dict(line.split() for line in out if line[:2] in ("d3", "c4", "f5", "e6"))
    assert {k: int(v) for k, v in per_move.items()} == {m: PUBLISHED[5] // 4 for m in ("d3", "c4", "f5", "e6")}
    assert f"total {PUBLISHED[5]}" in out
    assert any(line.startswith("time ") and line.endswith(" s") for line in out)
    assert any(line.startswith("leaves/s ") for line in out)


def test_cli_any_position_and_size_bulk() -> None:
    grid = ref.start_grid(5)
    proc = run_cli("5", "--board", ref.grid_text(grid) + " X", "--bulk", "--no-divide")
    assert proc.returncode == 0, proc.stderr
    assert f"total {ref.perft(grid, ref.BLACK, 5)}" in proc.stdout.splitlines()
    fen_proc = run_cli("4", "--fen", "8/8/8/3ox3/3xo3/8/8/8 x", "--moves", "f5", "--up-to")
    lines = [line.split() for line in fen_proc.stdout.splitlines() if line.startswith("depth")]
    after_f5 = ref.play(ref.start_grid(8), ref.BLACK, (4, 5))
    assert [int(parts[3]) for parts in lines] == [ref.perft(after_f5, ref.WHITE, d) for d in range(1, 5)]


def test_cli_position_options_agree() -> None:
    """One position given five ways gives one count, the reference's."""
    rng = random.Random(11)
    grid, color, _ = ref.random_game(8, rng)[20]
    side = "X" if color == ref.BLACK else "O"
    b = Board.from_cells(ref.grid_text(grid), side)
    rel = b.relative_cells()
    expected = f"total {ref.perft(grid, color, 3)}"
    for option in (["--position", b.fen()], ["--fen", b.fen()], ["--obf", f"{b.cells()} {side};"],
                   ["--board", f"{b.cells()} {side}"], ["--relative", f"{rel} {side.lower()}"]):
        proc = run_cli("3", *option)
        assert expected in proc.stdout.splitlines(), (option, proc.stdout, proc.stderr)


def test_cli_bad_input_is_one_error_line() -> None:
    proc = run_cli("3", "--fen", "9/8 x")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: bad FEN '9/8 x'") and "Traceback" not in proc.stderr
    proc = run_cli("3", "--moves", "a1")
    assert proc.returncode == 2 and "illegal move a1" in proc.stderr


def test_pass_at_root_is_one_divide_entry() -> None:
    # white to move has no move here, black has: the only root "move" is the pass
    board = Board.from_cells("XO-" "---" "---", "O")
    assert board.must_pass()
    result = board_perft(board, 2)
    assert [square_name(m) for m, _ in result.per_move] == ["pass"]
    assert result.total == ref.perft([list("XO."), list("..."), list("...")], ref.WHITE, 2)


def test_cli_bad_move_names_its_option_and_number() -> None:
    proc = run_cli("3", "--moves", "f5", "f5")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--moves" in proc.stderr and "move 2 'f5'" in proc.stderr and "occupied" in proc.stderr


def test_cli_size_must_agree_with_a_given_position() -> None:
    proc = run_cli("2", "--size", "6", "--fen", "8/8/8/3ox3/3xo3/8/8/8 x")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--size 6" in proc.stderr and "8x8" in proc.stderr
    agreeing = run_cli("2", "--size", "6", "--fen", "6/6/2ox2/2xo2/6/6 x")
    assert agreeing.returncode == 0 and "total 12" in agreeing.stdout.splitlines()


def interrupted_count(delay: float) -> tuple[int, str, str]:
    """Start ``perft 14 --bulk`` (many minutes), send SIGINT ``delay`` seconds after its header
    lines, and return its exit status, stdout and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "othello_engine", "perft", "14", "--bulk"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    try:
        assert proc.stdout is not None
        while not proc.stdout.readline().startswith("bulk"):
            pass
        if delay:
            time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode, out, err


def test_cli_ctrl_c_stops_a_long_count_at_once() -> None:
    """perft 14 takes many minutes; SIGINT must end it within seconds (exit 130, no traceback),
    and the root moves counted so far stay on stdout."""
    code, out, err = interrupted_count(0.3)  # well inside the count of the first root move
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert "total" not in out


def test_cli_ctrl_c_the_moment_the_header_is_out() -> None:
    """A SIGINT right after the header lines, before the count's thread has started, is caught
    the same way (it once escaped as a KeyboardInterrupt traceback about one time in three)."""
    for _ in range(6):
        code, out, err = interrupted_count(0)
        assert code == 130, err
        assert "Traceback" not in err and "interrupted" in err
        assert "total" not in out


def test_cli_reader_going_away_is_quiet() -> None:
    """``othello-engine perft 9 | head -1``: no traceback when the pipe closes."""
    proc = subprocess.Popen([sys.executable, "-m", "othello_engine", "perft", "9"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith("position")
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=30)
    assert "Traceback" not in err and "Error" not in err, err


def test_core_perft_stop_flag_ends_a_long_count() -> None:
    """A flag set by another thread ends the compiled count within a few milliseconds; an unset
    flag changes nothing; the API's result says it was stopped and keeps only finished moves."""
    b = Board()
    P, O, mask = b.player, b.opponent, b.mask
    assert _core.perft(P, O, 9, mask, False, bytearray(1)) == PUBLISHED[8]
    assert _core._perft_frame(P, O, 9, False, bytearray(1)) == PUBLISHED[8]
    stop = bytearray(1)
    threading.Timer(0.2, stop.__setitem__, (0, 1)).start()
    started = time.monotonic()
    _core.perft(P, O, 14, mask, True, stop)       # minutes when not stopped
    assert time.monotonic() - started < 1.0
    stop[0] = 1
    r = board_perft(Board(), 12, bulk=True, stop=stop)
    assert r.stopped and r.per_move == () and r.total == 0
    assert not board_perft(Board(), 3, stop=bytearray(1)).stopped
    with pytest.raises(ValueError):
        _core.perft(P, O, 3, mask, False, bytearray(0))
