"""The perfect-play part of the shipped book on 6x6 (scripts/build_book6.py): its exact scores
agree with one another and with the solver, the start scores the known -4, and the engine with
`OwnBook` plays a whole 6x6 game perfectly, over its pipes, with the reference rules as referee."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from othello_engine import Engine, Limit
from othello_engine.board import BLACK, PASS, Board, parse_square
from othello_engine.book import Book
from othello_engine.book.store import position_key

import reference_rules as ref
from uci_support import EngineProcess, Ref

BUILD = Path(__file__).resolve().parent.parent / "scripts" / "build_book6.py"


def exact_nodes() -> dict[tuple[int, int], tuple[Board, dict[int, int]]]:
    """The shipped book's 6x6 positions whose every move has an exact score."""
    text = io.StringIO()
    Book.shipped().export_text(text)
    out = {}
    for line in text.getvalue().splitlines()[1:]:
        fields = line.split()
        if fields[0] != "6":
            continue
        items = [item.split(":") for item in fields[3:]]
        if not items or any(flag != "x" for _, _, _, flag, _ in items):
            continue
        node = Board.from_relative(fields[1])
        scores = {(PASS if name == "pass" else parse_square(name, 6)): int(score) // 100
                  for name, score, _, _, _ in items}
        out[position_key(node.player, node.opponent, 6)[1:3]] = (node, scores)
    return out


def test_the_exact_part_is_a_consistent_negamax_tree_from_the_start() -> None:
    nodes = exact_nodes()
    start = Board(6)
    root = nodes[position_key(start.player, start.opponent, 6)[1:3]]
    assert set(root[1]) == set(start.legal_moves())
    assert max(root[1].values()) == -4  # white wins 20-16 with perfect play
    linked = 0
    for node, scores in nodes.values():
        assert set(scores) == set(node.legal_moves() or [PASS])
        for move, score in scores.items():
            child = node.copy()
            child.push(move)
            known = nodes.get(position_key(child.player, child.opponent, 6)[1:3])
            if known is not None:
                assert score == -max(known[1].values()), (node.cells(), move)
                linked += 1
    assert len(nodes) > 50 and linked > 50


def test_the_deepest_exact_scores_agree_with_the_solver() -> None:
    # the three deepest (22 to 24 empties: their children solve in well under a second)
    nodes = sorted(exact_nodes().values(), key=lambda n: n[0].empties)
    assert nodes[2][0].empties <= 24
    engine = Engine(hash_mb=16)
    for node, scores in nodes[:3]:
        for move, score in scores.items():
            child = node.copy()
            child.push(move)
            if child.is_game_over():
                assert score == -child.disc_difference()
                continue
            r = engine.search(child, Limit(exact=True))
            assert r.exact and -r.score // 100 == score, (node.cells(), move)


def test_the_engine_plays_6x6_perfectly_with_its_book() -> None:
    # book moves while the book knows the position, then `go` with no limit, which solves; the
    # reference rules referee every move, and the game must end 16-20, perfect play's result
    e = EngineProcess()
    ref = Ref(6)
    moves: list[str] = []
    try:
        e.send("uci")
        e.until(lambda ln: ln == "uciok")
        e.send("setoption name OwnBook value true")
        booked = 0
        while not ref.game_over():
            if ref.must_pass():
                ref.play("pass")
                moves.append("pass")
                continue
            e.send("position startpos 6" + (" moves " + " ".join(moves) if moves else ""))
            e.send("go")
            lines, _ = e.until(lambda ln: ln.startswith("bestmove"), timeout=120)
            booked += any(ln.startswith("info string book move") for ln in lines)
            move = lines[-1].split()[1]
            ref.play(move)
            moves.append(move)
    finally:
        assert e.close() == 0
    assert booked >= 10, moves
    assert (ref.count("x"), ref.count("o")) == (16, 20), moves


def test_the_builder_on_4x4_matches_the_reference_solver_and_resumes(tmp_path: Path) -> None:
    def build() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-P", str(BUILD), "--size", "4", "--full-plies", "2",
                               "--lines", "6", "--jobs", "1", "--solved", str(tmp_path / "solved.txt"),
                               "--out", str(tmp_path / "book4.txt")],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)

    first = build()
    assert first.returncode == 0, first.stderr
    start = ref.solve(ref.start_grid(4), ref.BLACK)
    assert f"the start scores {start:+d} for black" in first.stdout
    book = Book.memory()
    with open(tmp_path / "book4.txt", encoding="utf-8") as f:
        assert book.import_text(f) > 3
    memo: dict = {}
    for line in (tmp_path / "book4.txt").read_text().splitlines()[1:]:
        fields = line.split()
        node = Board.from_relative(fields[1])
        for item in fields[3:]:
            name, score, _, flag, _ = item.split(":")
            child = node.copy()
            child.push(PASS if name == "pass" else parse_square(name, 4))
            color = ref.BLACK if child.turn == BLACK else ref.WHITE
            value = ref.solve(ref.grid_from_text(child.cells()), color, memo)
            assert flag == "x" and int(score) // 100 == -value, line
    solved = (tmp_path / "solved.txt").read_text()
    again = build()  # every solve is in the log: none is repeated
    assert again.returncode == 0 and "solving" not in again.stderr
    assert (tmp_path / "solved.txt").read_text() == solved
