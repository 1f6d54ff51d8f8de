"""The BookSeed option over pipes: the same seed gives the same book choices, game after game and
process after process; 0 (the default) leaves the choice random."""

from __future__ import annotations

import pytest

from uci_support import EngineProcess, Ref

PLIES = 6


def book_line(eng: EngineProcess) -> list[str]:
    """Up to PLIES book moves from the start, until the book has none (each checked legal by the
    reference rules)."""
    ref, moves = Ref(), []
    for _ in range(PLIES):
        eng.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        lines = eng.ask("go depth 1", lambda s: s.startswith("bestmove"))
        if not any(s.startswith("info string book move") for s in lines):
            break
        move = lines[-1].split()[1]
        assert move in ref.moves(), (moves, move)
        ref.play(move)
        moves.append(move)
    assert len(moves) >= 2, moves
    return moves


def engine_with_seed(seed: int) -> EngineProcess:
    eng = EngineProcess()
    eng.ask("uci", lambda s: s == "uciok")
    eng.send(f"setoption name BookSeed value {seed}")
    eng.send("setoption name OwnBook value true")
    eng.sync()
    return eng


def close(eng: EngineProcess) -> None:
    assert eng.close() == 0
    assert b"Traceback" not in eng.stderr and not any("error" in s for s in eng.seen), eng.seen


def test_the_option_is_announced():
    eng = EngineProcess()
    lines = eng.ask("uci", lambda s: s == "uciok")
    assert "option name BookSeed type spin default 0 min 0 max 2147483647" in lines
    close(eng)


def test_same_seed_same_book_choices_per_game_and_per_process():
    first = engine_with_seed(7)
    line = book_line(first)
    first.send("ucinewgame")
    assert book_line(first) == line           # a new game starts the choices over
    first.send("setoption name BookSeed value 7")
    assert book_line(first) == line           # so does setting the seed again
    close(first)
    second = engine_with_seed(7)
    assert book_line(second) == line          # another process, the same choices
    close(second)


def test_different_seeds_choose_differently():
    lines = set()
    for seed in (1, 2, 3, 4, 5):
        eng = engine_with_seed(seed)
        lines.add(tuple(book_line(eng)))
        close(eng)
    # the start position alone has four book moves within the margin
    assert len(lines) >= 2, lines


def test_seed_set_before_or_after_the_book_is_loaded():
    eng = EngineProcess()
    eng.ask("uci", lambda s: s == "uciok")
    eng.send("setoption name OwnBook value true")
    eng.send("setoption name BookSeed value 11")
    eng.sync()
    after = book_line(eng)
    close(eng)
    before = engine_with_seed(11)
    assert book_line(before) == after
    close(before)


@pytest.mark.parametrize("value", ["-1", "2147483648", "x"])
def test_bad_seed_is_an_error_line(value):
    eng = EngineProcess()
    eng.ask("uci", lambda s: s == "uciok")
    lines = eng.ask(f"setoption name BookSeed value {value}", lambda s: s.startswith("info string error"))
    assert "BookSeed" in lines[-1]
    assert eng.close() == 0 and b"Traceback" not in eng.stderr
