"""The pattern evaluation: its weights file, its symmetry and indices, the engine's fallback to the
classic evaluation, and the UCI `Evaluation` option over pipes."""

from __future__ import annotations

import array
import os
import random
import struct
import subprocess
import sys
import zlib

import pytest

from othello_engine import Board, Engine, Limit, _core, weights

START = (0x0000000810000000, 0x0000001008000000)
FAMILIES = [  # (base squares as a bitboard, symmetries whose image of the board is read)
    (0x42FF, [0, 2, 4, 5]), (0x1F1F, list(range(8))), (0x70707, [0, 1, 2, 3]),
    (0xFF00, [0, 2, 4, 5]), (0xFF0000, [0, 2, 4, 5]), (0xFF000000, [0, 2, 4, 5]),
    (0x8040201008040201, [0, 1]), (0x80402010080402, [0, 1, 2, 3]),
    (0x804020100804, [0, 1, 2, 3]), (0x8040201008, [0, 1, 2, 3]), (0x80402010, [0, 1, 2, 3]),
]
INVERSE = [0, 1, 2, 3, 4, 6, 5, 7]


def random_position(rng: random.Random, plies: int) -> tuple[int, int]:
    P, O = START
    for _ in range(plies):
        moves = _core.legal_moves(P, O)
        if not moves:
            if not _core.legal_moves(O, P):
                break
            P, O = O, P
            continue
        P, O = _core.make_move(P, O, rng.choice([s for s in range(64) if moves >> s & 1]))
    return P, O


def reference_indices(P: int, O: int) -> list[int]:
    """The table offsets, square by square from the layout's definition (slow, independent)."""
    out, offset = [], 0
    for base, syms in FAMILIES:
        squares = [s for s in range(64) if base >> s & 1]
        for k in syms:
            index = 0
            for i, s in enumerate(squares):
                t = _core.symmetry(1 << s, INVERSE[k]).bit_length() - 1
                index += (1 if P >> t & 1 else 2 if O >> t & 1 else 0) * 3 ** i
            out.append(offset + index)
        offset += 3 ** len(squares)
    assert offset == _core.PATTERN_SCALAR_OFFSET
    return out


def features(P: int, O: int) -> tuple[list[int], list[int]]:
    idx, sc = array.array("i", [0] * _core.PATTERN_INSTANCES), array.array("i", [0] * 4)
    _core.pattern_features(array.array("Q", [P]), array.array("Q", [O]), idx, sc)
    return list(idx), list(sc)


@pytest.fixture(scope="module")
def shipped() -> array.array:
    """The shipped weights, installed in this process (another test module may have loaded
    others)."""
    weights.load(weights.DEFAULT_PATH)
    return weights.read(weights.DEFAULT_PATH)


def test_indices_match_the_layout_definition() -> None:
    rng = random.Random(7)
    for _ in range(150):
        P, O = random_position(rng, rng.randint(0, 60))
        assert features(P, O)[0] == reference_indices(P, O)


def mixed_positions(seed: int, arbitrary: int) -> list[tuple[int, int]]:
    """300 positions of random games, then arbitrary disc patterns and the extreme boards."""
    rng = random.Random(seed)
    positions = [random_position(rng, rng.randint(0, 60)) for _ in range(300)]
    for _ in range(arbitrary):
        P = rng.getrandbits(64)
        positions.append((P, rng.getrandbits(64) & ~P))
    return positions + [(0, 0), (2**64 - 1, 0), (0, 2**64 - 1)]


def test_fast_indices_agree_with_the_images_on_random_and_game_positions() -> None:
    """The search's indices (gathered with pext where the CPU has BMI2) equal the definition's,
    read from the board's eight images, on game positions and on arbitrary disc patterns."""
    for P, O in mixed_positions(19, 2000):
        fast, images = _core._pattern_indices_both(P, O)
        assert fast == images, (hex(P), hex(O))
    assert isinstance(_core.PATTERN_PEXT, bool)
    assert _core._PEXT_TABLES_AGREE


def test_vector_indices_and_sums_agree_with_the_definition(shipped: array.array) -> None:
    """Where the core computes the indices with AVX-512 (PATTERN_SIMD), its indices equal the
    definition's and its sum of table entries equals the pext path's and the sum read from the
    file's tables at the reference indices, in every phase, on game positions and arbitrary disc
    patterns (where it does not, the same functions run the pext path and the test still holds)."""
    positions = mixed_positions(23, 1000)
    n = _core.PATTERN_ENTRIES
    for k, (P, O) in enumerate(positions):
        assert _core._pattern_indices_simd(P, O) == reference_indices(P, O), (hex(P), hex(O))
        phase = k % _core.PATTERN_PHASES
        table = shipped[phase * n:(phase + 1) * n]
        expected = sum(table[i] for i in reference_indices(P, O))
        assert _core._pattern_sum(P, O, phase, True) == expected
        assert _core._pattern_sum(P, O, phase, False) == expected
    assert isinstance(_core.PATTERN_SIMD, bool)
    with pytest.raises(ValueError):
        _core._pattern_sum(0, 0, _core.PATTERN_PHASES)


def test_evaluation_is_the_sum_of_its_table_entries(shipped: array.array) -> None:
    """The search's number, recomputed from the file's tables and the reference indices."""
    rng = random.Random(11)
    n = _core.PATTERN_ENTRIES
    for _ in range(100):
        P, O = random_position(rng, rng.randint(1, 56))
        if not (_core.legal_moves(P, O) | _core.legal_moves(O, P)):
            continue
        empties = 64 - _core.popcount(P | O)
        table = shipped[_core.pattern_phase(empties) * n:(_core.pattern_phase(empties) + 1) * n]
        _, sc = features(P, O)
        total = sum(table[i] for i in reference_indices(P, O))
        total += sum(table[_core.PATTERN_SCALAR_OFFSET + i] * sc[i] for i in range(4))
        terms = _core.evaluation_terms(P, O, _core.FULL_MASK, True)
        assert terms["pattern"] == total
        assert terms["total"] == max(-6300, min(6300, total))


def test_the_eight_images_of_a_position_evaluate_the_same(shipped: array.array) -> None:
    rng = random.Random(3)
    for _ in range(200):
        P, O = random_position(rng, rng.randint(1, 58))
        values = {_core.evaluation_terms(_core.symmetry(P, k), _core.symmetry(O, k),
                                         _core.FULL_MASK, True)["total"] for k in range(8)}
        assert len(values) == 1, values


def test_searches_with_both_evaluations_return_legal_moves() -> None:
    rng = random.Random(5)
    for kind in ("pattern", "classic"):
        engine = Engine(hash_mb=2, evaluation_kind=kind)
        for _ in range(5):
            board = Board()
            for _ in range(rng.randint(0, 40)):
                if board.is_game_over():
                    break
                board.push(rng.choice(board.legal_moves() or [64]))
            if board.is_game_over():
                continue
            result = engine.search(board, Limit(depth=5))
            assert result.best_move in (board.legal_moves() or [64])


def test_engine_evaluation_shows_named_features_and_the_pattern_total() -> None:
    board = Board()
    board.push_str("f5")
    terms = Engine(hash_mb=1).evaluation(board)
    for name in _core.FEATURE_NAMES + ("classic", "edge2x", "corner2x5", "diag4", "pattern"):
        assert name in terms
    assert terms["total"] == max(-6300, min(6300, terms["pattern"]))
    classic = Engine(hash_mb=1, evaluation_kind="classic").evaluation(board)
    assert "pattern" not in classic and classic["total"] == terms["classic"]


def test_pattern_of_8x8_does_not_apply_to_other_sizes() -> None:
    # 4x4 has no learned evaluation at all; 6x6 has its own (layout 2), never 8x8's families
    terms = Engine(hash_mb=1).evaluation(Board(size=4))
    assert "pattern" not in terms
    terms = Engine(hash_mb=1).evaluation(Board(size=6))
    assert "pattern" in terms and "edge2x" not in terms and "edge" in terms


# --- the weights file ---------------------------------------------------------------------------
def test_weights_file_round_trip(tmp_path, shipped: array.array) -> None:
    path = str(tmp_path / "w.bin")
    weights.write(path, shipped)
    assert weights.read(path) == shipped
    blob = open(path, "rb").read()
    assert blob[:4] == b"OEPW" and len(blob) < 8 << 20


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:10], "truncated header"),
    (lambda b: b"XXXX" + b[4:], "bad magic"),
    (lambda b: b[:4] + struct.pack("<H", 9) + b[6:], "format version 9"),
    (lambda b: b[:6] + struct.pack("<H", 7) + b[8:], "pattern layout 7"),
    (lambda b: b[:10] + struct.pack("<H", 3) + b[12:], "3 phases"),
    (lambda b: b[:-100], "header says"),
    (lambda b: b[:40] + bytes([b[40] ^ 0xFF]) + b[41:], "corrupt"),
    (lambda b: b[:20] + struct.pack("<I", 12345) + b[24:], "checksum"),
])
def test_damaged_weights_files_are_refused_with_a_reason(tmp_path, shipped, damage, message) -> None:
    good = weights.encode(shipped)
    path = tmp_path / "bad.bin"
    path.write_bytes(damage(good))
    with pytest.raises(weights.WeightsError, match=message):
        weights.read(str(path))


def test_missing_weights_file_is_a_weights_error(tmp_path) -> None:
    with pytest.raises(weights.WeightsError, match="No such file"):
        weights.read(str(tmp_path / "nothing.bin"))


def _session(env_weights: str, args: list[str], commands: str) -> tuple[list[str], str]:
    """The engine process run with the given weights file, arguments and input: its output lines
    and its standard error."""
    env = dict(os.environ, OTHELLO_ENGINE_WEIGHTS=env_weights)
    proc = subprocess.run([sys.executable, "-m", "othello_engine", *args], input=commands.encode(),
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stdout and b"Traceback" not in proc.stderr
    return proc.stdout.decode().splitlines(), proc.stderr.decode()


def _engine_session(env_weights: str, commands: str) -> list[str]:
    return _session(env_weights, [], commands)[0]


def _corrupt_copy(tmp_path, shipped) -> str:
    """A copy of the shipped weights with one byte of its stream damaged."""
    path = tmp_path / "corrupt.bin"
    blob = bytearray(weights.encode(shipped))
    blob[100] ^= 0x55
    path.write_bytes(bytes(blob))
    return str(path)


def test_corrupt_weights_give_one_info_line_and_the_classic_evaluation(tmp_path, shipped) -> None:
    lines = _engine_session(_corrupt_copy(tmp_path, shipped), "uci\nposition startpos moves f5\neval\ngo depth 4\nquit\n")
    notes = [ln for ln in lines if ln.startswith("info string")]
    assert len(notes) == 1 and "classic evaluation" in notes[0] and "corrupt.bin" in notes[0]
    assert lines.index(notes[0]) < lines.index("uciok")
    assert not any(ln.startswith("eval pattern") for ln in lines)
    assert any(ln.startswith("bestmove ") and ln.split()[1] in ("d6", "f6", "f4") for ln in lines)


def test_corrupt_weights_in_nboard_give_one_status_line_and_still_play(tmp_path, shipped) -> None:
    bad = _corrupt_copy(tmp_path, shipped)
    lines, _ = _session(bad, [], "nboard 2\nset depth 4\nset game (;GM[Othello]PC[x]"
                        "BO[8 ---------------------------O*------*O--------------------------- *]"
                        "B[F5];)\ngo\nquit\n")
    assert lines[0] == "set myname othello_engine"
    notes = [ln for ln in lines if "pattern evaluation unavailable" in ln]
    assert notes == [lines[1]] and notes[0].startswith("status ") and "corrupt.bin" in notes[0]
    assert "classic evaluation" in notes[0]
    moves = [ln.split()[1].split("/")[0] for ln in lines if ln.startswith("=== ")]
    assert len(moves) == 1 and moves[0] in ("D6", "F6", "F4")
    good, _ = _session(weights.DEFAULT_PATH, [], "nboard 2\nquit\n")
    assert good == ["set myname othello_engine", "status"]


def test_corrupt_weights_in_gtp_give_one_stderr_line_and_still_play(tmp_path, shipped) -> None:
    bad = _corrupt_copy(tmp_path, shipped)
    lines, err = _session(bad, ["--gtp"], "boardsize 8\nplay b f5\ngenmove w\nquit\n")
    notes = [ln for ln in err.splitlines() if "pattern evaluation unavailable" in ln]
    assert len(notes) == 1 and "corrupt.bin" in notes[0] and "classic evaluation" in notes[0]
    assert not any("pattern" in ln for ln in lines)
    assert [ln for ln in lines if ln.startswith("=")][-2].split()[1].lower() in ("d6", "f6", "f4")
    _, err_good = _session(weights.DEFAULT_PATH, ["--gtp"], "name\nquit\n")
    assert "pattern evaluation" not in err_good


def test_shipped_weights_load_silently_and_evaluation_option_switches() -> None:
    lines = _engine_session(weights.DEFAULT_PATH,
                            "uci\nposition startpos moves f5\neval\n"
                            "setoption name Evaluation value classic\neval\n"
                            "setoption name Evaluation value bogus\nisready\nquit\n")
    assert "option name Evaluation type combo default pattern var pattern var classic" in lines
    assert not any(ln.startswith("info string pattern") for ln in lines)
    evals = [ln for ln in lines if ln.startswith("eval total")]
    assert len(evals) == 2
    first = lines.index(evals[0])
    assert any(ln.startswith("eval pattern ") for ln in lines[:first])
    assert not any(ln.startswith("eval pattern ") for ln in lines[first + 1:])
    assert any(ln.startswith("info string error: setoption: bad value") for ln in lines)
    assert lines[-1] == "readyok"


def test_weights_stream_bomb_is_refused(tmp_path) -> None:
    """A header that promises the right size but a stream that inflates to more is corrupt."""
    data = bytes(2 * _core.PATTERN_PHASES * _core.PATTERN_ENTRIES + 1000)
    stream = zlib.compress(data)
    header = weights.HEADER.pack(b"OEPW", 1, 1, 8, _core.PATTERN_PHASES, _core.PATTERN_ENTRIES,
                                 len(stream), zlib.crc32(data))
    path = tmp_path / "bomb.bin"
    path.write_bytes(header + stream)
    with pytest.raises(weights.WeightsError):
        weights.read(str(path))
