"""The learned evaluations of the other board sizes (layout 2): indices and symmetry, the shipped
files, a corrupt file in the engine process, and a tiny 6x6 training run through othello-train."""

from __future__ import annotations

import glob
import os
import random
import re
import shutil
import subprocess

import pytest

from othello_engine import Engine, Limit, _core, weights
from othello_engine.board import BLACK, Board

from uci_support import EngineProcess, command

SHIPPED = sorted(int(m.group(1)) for p in glob.glob(os.path.join(weights.DATA_DIR, "eval*.weights"))
                 if (m := re.search(r"eval(\d+)\.weights$", p)) and m.group(1) != "8")
SIZES = sorted(set(SHIPPED) | {6, 10})


def random_position(size: int, plies: int, seed: int) -> tuple[int, int]:
    """(player, opponent) after up to plies random moves from the start of a size x size board."""
    rng = random.Random(seed)
    b = Board(size)
    for _ in range(plies):
        if b.is_game_over():
            break
        if b.must_pass():
            b.push(-1)
            continue
        b.push(rng.choice(b.legal_moves()))
    return b.player, b.opponent


def digits_of(P: int, O: int, squares: tuple[int, ...]) -> int:
    """The base-3 index of a list of squares, the first square the lowest digit (an oracle)."""
    v = 0
    for sq in reversed(squares):
        v = 3 * v + (1 if P >> sq & 1 else 2 if O >> sq & 1 else 0)
    return v


@pytest.mark.parametrize("size", SIZES)
def test_layout_instances_are_the_eight_images_of_each_family(size: int) -> None:
    layout = _core.pattern_n_layout(size)
    assert len(layout) == _core.PATTERN_N_INSTANCES == 8 * len(_core.PATTERN_N_FAMILIES)
    stride = 8 if size <= 8 else size
    on_board = {r * stride + c for r in range(size) for c in range(size)}
    for f in range(len(_core.PATTERN_N_FAMILIES)):
        family = [sq for fam, _, sq in layout if fam == f]
        base = family[0]
        assert set(base) <= on_board and len(set(base)) == len(base)
        # every instance reads the image of the base list under one symmetry, square by square
        images = {tuple(_core.symmetry_n(1 << s, k, size).bit_length() - 1 for s in base) for k in range(8)}
        assert set(family) == images


@pytest.mark.parametrize("size", SIZES)
def test_indices_read_the_squares_in_base_3(size: int) -> None:
    n = 6
    positions = [random_position(size, 4 + 7 * i, seed=size * 100 + i) for i in range(n)]
    k = _core.PATTERN_N_INSTANCES
    idx = bytearray(4 * k * n)
    sc = bytearray(4 * 5 * n)
    iv, sv = memoryview(idx).cast("i"), memoryview(sc).cast("i")
    _core.pattern_features_n([p for p, _ in positions], [o for _, o in positions], size, iv, sv)
    layout = _core.pattern_n_layout(size)
    for i, (P, O) in enumerate(positions):
        for j, (_, offset, squares) in enumerate(layout):
            assert iv[k * i + j] == offset + digits_of(P, O, squares)
        assert sv[5 * i + 4] == bin(P).count("1") - bin(O).count("1")
        assert sv[5 * i + 3] == 1


@pytest.mark.parametrize("size", SIZES)
def test_a_position_and_its_eight_images_evaluate_the_same(size: int) -> None:
    had = _core.pattern_weights_loaded_n(size)
    if not had:     # no shipped file: random weights show the symmetry as well
        rng = random.Random(size)
        n = _core.PATTERN_N_PHASES * _core.pattern_n_entries(size)
        _core.set_pattern_weights_n(size, memoryview(bytes(rng.getrandbits(8) for _ in range(2 * n))).cast("h"))
    for seed in range(4):
        P, O = random_position(size, 10 + 9 * seed, seed)
        if not (_core.legal_moves_n(P, O, size) or _core.legal_moves_n(O, P, size)):
            continue
        values = {_core.pattern_terms_n(_core.symmetry_n(P, k, size), _core.symmetry_n(O, k, size), size)["pattern"]
                  for k in range(8)}
        assert len(values) == 1


@pytest.mark.parametrize("size", SHIPPED)
def test_each_shipped_file_loads_and_drives_the_engine(size: int) -> None:
    w = weights.read(weights.size_path(size), size)
    assert len(w) == _core.PATTERN_N_PHASES * _core.pattern_n_entries(size)
    assert any(w)
    lines = _session({}, f"uci\nposition startpos {size}\neval\ngo depth 2\nquit\n")
    assert not any("unavailable" in ln for ln in lines)
    assert any(ln.startswith("eval pattern ") for ln in lines)
    assert any(ln.startswith("bestmove ") for ln in lines)


@pytest.mark.parametrize("size, plies, seeds", [(6, 10, (1, 2, 3)), (10, 80, (1, 2))])
def test_the_learned_evaluation_orders_the_endgame_and_the_score_stays_exact(size: int, plies: int,
                                                                              seeds: tuple) -> None:
    # from 16 empties on the solver sorts its moves by the learned evaluation of the size (by a
    # depth-1 search from 18): the exact score must be the one the classic ordering proves
    for seed in seeds:
        P, O = random_position(size, plies, seed)
        board = Board.from_discs(size, P, O, BLACK)
        if board.is_game_over() or board.empties < 16:
            continue
        results = [Engine(hash_mb=16, evaluation_kind=kind).search(board, Limit(exact=True))
                   for kind in ("pattern", "classic")]
        assert all(r.exact for r in results)
        assert results[0].score == results[1].score, (size, seed, board.fen())


def _session(env: dict[str, str], commands: str, monkeypatch=None) -> list[str]:
    """The engine process's output lines for the commands (env added to its environment), each
    command answered before the next is sent."""
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        engine = EngineProcess()
    done = {"uci": lambda ln: ln == "uciok", "go": lambda ln: ln.startswith("bestmove"),
            "eval": lambda ln: ln.startswith("eval total")}
    try:
        for line in commands.splitlines():
            if line == "quit":
                break
            pred = done.get(line.split()[0])
            if pred is None:
                engine.send(line)
            else:
                engine.ask(line, pred, timeout=60)
        engine.sync()
    finally:
        assert engine.close() == 0
    assert not any("Traceback" in ln for ln in engine.seen) and b"Traceback" not in engine.stderr
    return engine.seen


def test_a_corrupt_file_gives_the_classic_evaluation_and_one_message(tmp_path) -> None:
    n = _core.PATTERN_N_PHASES * _core.pattern_n_entries(10)
    blob = bytearray(weights.encode(bytes(2 * n), 10))
    blob[40] ^= 0x55
    (tmp_path / "eval10.weights").write_bytes(bytes(blob))
    lines = _session({"OTHELLO_ENGINE_WEIGHTS_DIR": str(tmp_path)},
                     "uci\nposition startpos 10\ngo depth 2\neval\nposition startpos 10 moves e4\n"
                     "go depth 2\nquit\n")
    notes = [ln for ln in lines if ln.startswith("info string")]
    assert len(notes) == 1 and "10x10" in notes[0] and "eval10.weights" in notes[0]
    assert "classic evaluation" in notes[0]
    assert not any(ln.startswith("eval pattern") for ln in lines)
    assert len([ln for ln in lines if ln.startswith("bestmove ")]) == 2


def test_a_size_without_a_file_borrows_the_nearest_one_and_says_so(tmp_path) -> None:
    shutil.copy(weights.size_path(12), tmp_path / "eval12.weights")
    lines = _session({"OTHELLO_ENGINE_WEIGHTS_DIR": str(tmp_path)},
                     "uci\nposition startpos 14\ngo depth 2\neval\ngo depth 3\nquit\n")
    notes = [ln for ln in lines if ln.startswith("info string")]
    assert notes == ["info string pattern evaluation on 14x14 uses the 12x12 weights "
                     "(there are none of its own)"]  # once
    assert any(ln.startswith("eval pattern ") for ln in lines)
    assert len([ln for ln in lines if ln.startswith("bestmove ")]) == 2
    # the shipped folder: 11x11 takes 10x10's, the smaller of two as near, and every size from
    # 13x13 up 12x12's; 7x7 has a layout of its own, which no shipped size shares (classic)
    assert weights.donor_size(11) == 10 and weights.donor_size(9) == 10
    assert weights.donor_size(16) == 12 and weights.donor_size(26) == 12
    assert weights.donor_size(7) is None and weights.donor_size(8) is None


def test_a_file_of_another_size_is_refused(tmp_path) -> None:
    n = _core.PATTERN_N_PHASES * _core.pattern_n_entries(12)
    path = tmp_path / "eval10.weights"
    path.write_bytes(weights.encode(bytes(2 * n), 12))
    with pytest.raises(weights.WeightsError, match="12x12"):
        weights.read(str(path), 10)


def test_a_tiny_6x6_training_run(tmp_path) -> None:
    pytest.importorskip("numpy")
    train = command("othello-train")

    def step(*args: str) -> str:
        proc = subprocess.run([train, *args], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    assert "30 games" in step("generate", "g.txt", "--games", "30", "--size", "6", "--depth", "1",
                              "--solve", "10", "--eval", "classic", "--jobs", "1", "-q")
    step("label", "g.txt", "p.txt", "--size", "6", "--exact", "14", "--jobs", "1", "-q")
    with open(tmp_path / "p.txt") as f:
        rows = f.read().splitlines()
    assert rows and all(len(r) == 36 + 12 for r in rows)
    # positions of 11..14 empties (past the solve point of 10) are scored by an exact solve
    exact = [r for r in rows if r.count("-", 0, 36) in (11, 12, 13, 14) and not r.endswith("-")]
    assert exact
    for r in exact[:5]:
        cells, result, score = r[:36], int(r[37:40]), int(r[41:])
        assert score % 100 == 0
        P = sum(1 << ((i // 6) * 8 + i % 6) for i, c in enumerate(cells) if c == "X")
        O = sum(1 << ((i // 6) * 8 + i % 6) for i, c in enumerate(cells) if c == "O")
        b = Board.from_discs(6, P, O, BLACK)
        assert Engine(hash_mb=1).search(b, Limit(exact=True)).score == score
    step("fit", "p.txt", "--out", "eval6.weights", "--size", "6", "-q")
    w = weights.read(str(tmp_path / "eval6.weights"), 6)
    assert any(w)
    lines = _session({"OTHELLO_ENGINE_WEIGHTS_DIR": str(tmp_path)},
                     "uci\nposition startpos 6\neval\ngo depth 3\nquit\n")
    assert not any("unavailable" in ln for ln in lines)
    assert any(ln.startswith("eval pattern ") for ln in lines)
    assert any(ln.startswith("bestmove ") for ln in lines)


def _pattern_eval(env: dict[str, str]) -> str:
    lines = _session(env, "uci\nposition startpos moves f5 d6\neval\nquit\n")
    return next(ln for ln in lines if ln.startswith("eval pattern "))


def test_the_folder_s_eval8_weights_is_8x8_s_unless_a_file_is_named(tmp_path) -> None:
    # A folder named by OTHELLO_ENGINE_WEIGHTS_DIR holds evalN.weights for every size, 8x8's too:
    # an eval8.weights there is what 8x8 plays with (experiments ran against the shipped weights
    # while believing otherwise). OTHELLO_ENGINE_WEIGHTS, a file, still comes first, and a folder
    # without an eval8.weights leaves 8x8 on the shipped file.
    shipped = _pattern_eval({})
    assert shipped != "eval pattern 0"
    phases, entries = _core.PATTERN_PHASES, weights.shape(8)[2]
    (tmp_path / "eval8.weights").write_bytes(weights.encode(bytes(2 * phases * entries), 8))
    assert _pattern_eval({"OTHELLO_ENGINE_WEIGHTS_DIR": str(tmp_path)}) == "eval pattern 0"
    assert _pattern_eval({"OTHELLO_ENGINE_WEIGHTS_DIR": str(tmp_path),
                          "OTHELLO_ENGINE_WEIGHTS": weights.DEFAULT_PATH}) == shipped
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(weights.size_path(12), other / "eval12.weights")
    assert _pattern_eval({"OTHELLO_ENGINE_WEIGHTS_DIR": str(other)}) == shipped
