"""The opening book: symmetric keys, learning and probing, negamax against a brute-force solver,
crash safety under SIGKILL, bad files, the text form, the CLI, and book moves in the games."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pexpect
import pytest

from othello_engine import _core
from othello_engine.board import PASS, Board, parse_square, square_name, transform_square
from othello_engine.ggf import format_ggf
from othello_engine.book import (Book, BookError, BookOptions, learn_game, load_book, nboard_book_lines,
                                 nboard_hint_lines, nboard_learn, options_from_environment,
                                 uci_book_reply, safe_probe)
from othello_engine.notation import parse_moves
from othello_engine.engine import Engine

import reference_rules as ref

GAME = "f5d6c3d3c4f4f6f3e6e7"


def image(board: Board, k: int) -> Board:
    """Symmetry k applied to a position (the independent way: map the discs)."""
    return Board.from_discs(board.size, _core.symmetry(board.black, k, board.size),
                            _core.symmetry(board.white, k, board.size), board.turn)


def random_position(size: int, plies: int, seed: int) -> Board:
    rng = random.Random(seed)
    b = Board(size)
    for _ in range(plies):
        moves = b.legal_moves()
        b.push(rng.choice(moves) if moves else PASS)
    return Board.from_discs(size, b.black, b.white, b.turn)


@pytest.mark.parametrize("size,seed", [(8, 1), (8, 2), (6, 3)])
def test_eight_images_hit_one_entry_and_map_the_move(size: int, seed: int) -> None:
    board = random_position(size, 9, seed)
    assert len({image(board, k) for k in range(8)}) == 8  # no symmetry of its own
    move = board.legal_moves()[seed % len(board.legal_moves())]
    after = board.copy()
    after.push(move)
    book = Book.memory()
    book.set_move(board, move, 250, 6)
    for k in range(8):
        img = image(board, k)
        assert not book.add_position(img)  # the same entry
        [hit] = book.lookup(img)
        assert (hit.score, hit.depth) == (250, 6)
        played = img.copy()
        played.push(hit.move)  # legal in the image...
        assert played == image(after, k)  # ...and it is the image of the learned move
        assert book.probe(img).move == hit.move
    assert book.stats().positions == 1
    # a learned move stored from an image is found from the original
    book2 = Book.memory()
    book2.set_move(image(board, 5), transform_square(move, 5, size), 100, 4)
    assert [m.move for m in book2.lookup(board)] == [move]


def test_learn_then_probe_returns_the_learned_move() -> None:
    book = Book.memory(seed=7)
    game = parse_moves(GAME)
    assert book.add_game(game) == len(game.move_stack)
    b = Board()
    for move in game.move_stack:
        hits = book.lookup(b)
        assert [h.move for h in hits] == [move] and hits[0].games == 1 and hits[0].score is None
        assert book.probe(b) is None  # learned from a game but never searched: not good enough
        b.push(move)
    assert not book.contains(b)  # the position after the last move is a leaf, not a node
    # learning a score for one move makes the book play it
    pos = parse_moves(GAME[:6])
    learned = game.move_stack[3]
    book.set_move(pos, learned, 40, 10)
    assert book.probe(pos).move == learned
    # a second game through the same positions counts
    other = next(m for m in parse_moves(GAME[:4]).legal_moves() if square_name(m) != "c3")
    book.add_game(parse_moves(GAME[:4] + square_name(other)))
    counts = {square_name(h.move): h.games for h in book.lookup(parse_moves(GAME[:4]))}
    assert counts == {"c3": 1, square_name(other): 1}
    assert book.lookup(Board())[0].games == 2


def test_probe_randomness_is_seeded_and_among_near_equals() -> None:
    pos = Board()
    book = Book.memory()
    for move, score in zip(pos.legal_moves(), (30, 10, 0, -300)):
        book.set_move(pos, move, score, 8)
    near = {m for m, s in zip(pos.legal_moves(), (30, 10, 0, -300)) if s >= 30 - 100}

    def picks(seed: int) -> list[int]:
        rng = random.Random(seed)
        return [book.probe(pos, rng=rng).move for _ in range(60)]

    assert picks(1) == picks(1)
    assert set(picks(1)) == near  # all near-equal moves, never the bad one
    assert {book.probe(pos, margin=0).move for _ in range(20)} == {pos.legal_moves()[0]}


SOLVED: dict = {}


def solve(board: Board) -> int:
    """Exact final disc difference for the side to move, from the reference rules (the oracle
    for negamax)."""
    return ref.solve_text(board.cells(), "XO"[board.turn], SOLVED)


def test_deepen_negamaxes_to_the_solved_value_on_4x4() -> None:
    book = Book.memory()
    for seed in range(12):  # several games' openings make a small tree
        b = Board(4)
        rng = random.Random(seed)
        for _ in range(3):
            b.push(rng.choice(b.legal_moves()))
        book.add_game(b)
    # and positions where a move forces the opponent to pass, or ends the game
    rng = random.Random(99)
    wanted = {"pass": 2, "end": 2}
    while any(wanted.values()):
        b = Board(4)
        while not b.is_game_over():
            moves = b.legal_moves()
            if not moves:
                b.push(PASS)
                continue
            for m in moves:
                c = b.copy()
                c.push(m)
                kind = "end" if c.is_game_over() else "pass" if c.must_pass() else ""
                if kind and wanted[kind] and not book.contains(b):
                    wanted[kind] -= 1
                    book.add_position(b)
            b.push(rng.choice(moves))
    engine = Engine(hash_mb=1)
    searched = book.deepen(engine, 20)
    assert searched > 0
    for line in export(book).splitlines()[1:]:
        node = Board.from_relative(line.split()[1])
        best = book.lookup(node)[0]
        assert best.exact and best.score == 100 * solve(node), line
    start = Board(4)
    for b in [start] + [parse_moves(square_name(m), 4) for m in start.legal_moves()]:
        hits = book.lookup(b)
        assert len(hits) == len(b.legal_moves())
        best = hits[0]
        assert best.exact and best.score == 100 * solve(b)
    # negamax consistency over the whole book: a move into a node is minus that node's best
    for line in export(book).splitlines()[1:]:
        fields = line.split()
        node = Board.from_relative(fields[1])
        for item in fields[3:]:
            name, score = item.split(":")[:2]
            child = node.copy()
            child.push(parse_square(name, 4))
            if child.must_pass():
                child.push(PASS)
            if book.contains(child):
                assert int(score) == -book.lookup(child)[0].score


def export(book: Book) -> str:
    import io
    buf = io.StringIO()
    book.export_text(buf)
    return buf.getvalue()


def test_export_import_round_trip_and_foreign_text(tmp_path: Path) -> None:
    book = Book.shipped()
    text = export(book)
    assert text.startswith("# othello_engine book 1\n") and book.stats().positions >= 200
    other = Book.open(tmp_path / "b.sqlite", write=True)
    assert other.import_text(text.splitlines(True)) == book.stats().positions
    assert export(other) == text
    before = export(other)
    with pytest.raises(BookError, match="not an othello_engine book text"):
        other.import_text(["1. e4 e5 2. Nf3\n"])
    with pytest.raises(BookError, match="bad book line 3"):
        other.import_text(["# othello_engine book 1\n", text.splitlines()[1] + "\n",
                           "8 " + "-" * 64 + " 0 a1:5:3:a:0\n"])
    assert export(other) == before  # a failed import changes nothing


def test_shipped_book_moves_are_legal_and_consistent() -> None:
    book = Book.shipped()
    text = export(book)
    for line in text.splitlines()[1:]:
        fields = line.split()
        node = Board.from_relative(fields[1])
        assert not node.is_game_over()
        for item in fields[3:]:
            assert node.is_legal(parse_square(item.split(":")[0], node.size))
    assert book.probe(Board()).move in Board().legal_moves()
    assert book.probe(Board(6)).move in Board(6).legal_moves()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_bad_book_files_are_reported_in_one_line_and_left_alone(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert load_book(str(tmp_path / "missing.book"), warn=warnings.append) is None
    assert not (tmp_path / "missing.book").exists()
    text = tmp_path / "notes.txt"
    text.write_text("this is not a book\n" * 20)
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    sums = {p: digest(p) for p in (text, foreign)}
    assert load_book(str(text), warn=warnings.append) is None
    assert load_book(str(foreign), warn=warnings.append) is None
    with pytest.raises(BookError, match="not an othello_engine book"):
        Book.open(foreign, write=True)  # an existing foreign file is never turned into a book
    with pytest.raises(BookError):
        Book.open(tmp_path, write=True)
    assert {p: digest(p) for p in sums} == sums
    assert sorted(os.listdir(tmp_path)) == ["notes.txt", "other.sqlite"]
    assert len(warnings) == 3 and all("\n" not in w and w.startswith("book not used: ")
                                      for w in warnings)
    assert "does not exist" in warnings[0] and "not an SQLite file" in warnings[1]
    # a book whose pages were damaged: it is reported, the probe gives no move, nothing raises
    good = tmp_path / "good.book"
    with Book.open(good, write=True) as book:
        book.import_text(export(Book.shipped()).splitlines(True))
    with sqlite3.connect(good) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(good.read_bytes())
    data[4096:len(data)] = b"\xa5" * (len(data) - 4096)
    good.write_bytes(bytes(data))
    warnings.clear()
    book = load_book(str(good), warn=warnings.append)
    assert safe_probe(book, Board(), warn=warnings.append) is None
    assert warnings and all(w.startswith("book not used: ") for w in warnings)


WRITER = textwrap.dedent("""
    import random, sys
    from othello_engine.book import Book
    from othello_engine.board import Board, PASS
    book = Book.open(sys.argv[1], write=True)
    rng = random.Random(int(sys.argv[2]))
    n = 0
    while True:
        b = Board()
        while not b.is_game_over():
            moves = b.legal_moves()
            b.push(rng.choice(moves) if moves else PASS)
        book.add_game(b)
        for m in b.replay().legal_moves():
            book.set_move(b.replay(), m, rng.randint(-500, 500), rng.randint(1, 9))
        n += 1
        if n == 3:
            print("ready", flush=True)
""")


def test_killed_writer_leaves_a_readable_book(tmp_path: Path) -> None:
    path = tmp_path / "crash.book"
    for round_ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(round_)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        # a reader works alongside the writer
        deadline = time.monotonic() + 0.2 + 0.15 * round_
        with Book.open(path) as reader:
            while time.monotonic() < deadline:
                assert reader.probe(Board()).move in Board().legal_moves()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert proc.returncode == -signal.SIGKILL
        with Book.open(path) as book:
            assert book._conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            st = book.stats()
            assert st.positions >= 3 and st.games >= 3
            assert book.probe(Board()).move in Board().legal_moves()
    with Book.open(path, write=True) as book:  # and it can still be written
        book.add_game(parse_moves(GAME))


def test_the_command_lives_in_cli_not_in_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    """othello_engine.book is the library (store, readers, options); othello-book is cli.book."""
    import othello_engine.book as library
    from othello_engine.cli.book import main
    assert not hasattr(library, "main") and not hasattr(library, "build_parser")
    assert main(["stats"]) == 0
    assert capsys.readouterr().out.startswith("<shipped book>: ")


def run_book(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "othello_engine", "book", *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args, named", [
    (["deepen", "--depth", "0"], "--depth: 0 is out of range 1..60"),
    (["deepen", "--depth", "61"], "--depth: 61 is out of range 1..60"),
    (["deepen", "--depth", "x"], "--depth: 'x' is not an integer"),
    (["deepen", "--hash", "0"], "--hash: 0 is out of range 1..4096"),
    (["add", "--plies", "0", "games.txt"], "--plies: 0 is below 1"),
    (["add", "--plies", "-2", "games.txt"], "--plies: -2 is below 1"),
    (["add", "--size", "5", "games.txt"], "--size: '5' is not a board size"),
    (["show", "--size", "3"], "--size: '3' is not a board size"),
])
def test_cli_bad_numbers_are_rejected(tmp_path: Path, args: list[str], named: str) -> None:
    """`deepen --depth 0` used to be accepted ("searched 0 moves"): bad numbers exit 2 with a
    message naming the option and the range, and write no book."""
    (tmp_path / "games.txt").write_text("f5 d6 c3\n")
    book_file = tmp_path / "my.book"
    r = subprocess.run([sys.executable, "-m", "othello_engine", "book", "--book", str(book_file), *args],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and named in r.stderr and r.stdout == "", r.stderr
    assert "Traceback" not in r.stderr and not book_file.exists()


def test_deepen_api_rejects_a_depth_out_of_range(tmp_path: Path) -> None:
    with Book.open(tmp_path / "b.book", write=True) as book:
        with pytest.raises(BookError, match="depth 0"):
            book.deepen(None, 0)  # type: ignore[arg-type]


def test_cli_add_deepen_show_export_import(tmp_path: Path) -> None:
    book_file = tmp_path / "my.book"
    ggf_game = parse_moves("f5f6e6f4")
    games = tmp_path / "games.ggf"
    games.write_text(format_ggf(ggf_game, "a", "b") + "\n" + format_ggf(parse_moves("d3c3"), "a", "b"))
    seqs = tmp_path / "games.txt"
    seqs.write_text("# openings\nf5 d6 c3\nF5-D6-C5\n")
    r = run_book("--book", str(book_file), "add", str(games), str(seqs))
    assert r.returncode == 0 and "added 4 games" in r.stdout, r.stderr
    r = run_book("--book", str(book_file), "deepen", "--depth", "3")
    assert r.returncode == 0 and "deepen:" in r.stderr and "searched" in r.stdout, r.stderr
    r = run_book("--book", str(book_file), "show", "--moves", "f5")
    assert r.returncode == 0
    shown = {line.split()[0] for line in r.stdout.splitlines() if "score" in line}
    assert shown == {square_name(m) for m in parse_moves("f5").legal_moves()}
    with Book.open(book_file) as book:
        assert {square_name(m.move) for m in book.lookup(parse_moves("f5")) if m.games} == {"d6", "f6"}
    out = tmp_path / "book.txt"
    assert run_book("--book", str(book_file), "export", str(out)).returncode == 0
    copy = tmp_path / "copy.book"
    r = run_book("--book", str(copy), "import", str(out))
    assert r.returncode == 0, r.stderr
    assert run_book("--book", str(copy), "export").stdout == out.read_text()
    # bad input: one line on stderr, exit 1, no file created
    r = run_book("--book", str(tmp_path / "nope.book"), "show")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "does not exist" in r.stderr
    r = run_book("add", str(seqs))
    assert r.returncode == 1 and "--book" in r.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("f5 z9\n")
    r = run_book("--book", str(book_file), "add", str(bad))
    assert r.returncode == 1 and "bad.txt:1" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "nope.book").exists()
    # at rest a book is one self-contained file (the WAL is folded back when the writer closes)
    assert not list(tmp_path.glob("*-wal")) and not list(tmp_path.glob("*-shm"))


def test_learn_game_and_nboard_lines(tmp_path: Path) -> None:
    path = str(tmp_path / "learn.book")
    game = parse_moves(GAME)
    report = learn_game(path, game)
    assert report.startswith("learned: ") and report.endswith(f"new positions (10 moves into {path})")
    with Book.open(path, write=True) as book:
        pos = parse_moves(GAME[:2])
        book.set_move(pos, parse_square("d6"), 150, 12)
        lines = nboard_book_lines(book, pos)
        assert lines == ["book D6 1.50 1 12 from the book"]


def test_the_game_plays_book_moves_instantly(tmp_path: Path) -> None:
    path = tmp_path / "play.book"
    with Book.open(path, write=True) as book:
        pos = parse_moves("f5")
        book.set_move(pos, parse_square("f6"), 0, 20)
    # depth 30 would take far longer than the timeout without the book
    child = pexpect.spawn(sys.executable, ["-m", "othello_engine", "play", "--no-color",
                                           "--depth", "30", "--book", str(path)],
                          env={**os.environ, "TERM": "dumb"}, encoding="utf-8", timeout=5)
    child.expect_exact("\r\n> ")
    started = time.monotonic()
    child.sendline("f5")
    child.expect_exact("Engine (O) plays f6 (from the book).")
    assert time.monotonic() - started < 2.0
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_book_options_of_a_session(tmp_path: Path) -> None:
    opts = BookOptions(seed=3)
    assert opts.probe(Board()) is None  # off by default
    lines = opts.set_option("OwnBook", "true")
    assert lines and lines[0].startswith("info string book <shipped book>:")
    assert opts.probe(Board()).move in Board().legal_moves()
    lines = opts.set_option("BookFile", str(tmp_path / "missing.book"))
    assert len(lines) == 1 and lines[0].startswith("info string book not used:")
    assert opts.probe(Board()) is None  # plays on without a book
    with pytest.raises(BookError):
        opts.set_option("OwnBook", "maybe")
    assert BookOptions().set_option("BookFile", "") == []  # nothing is opened while the book is off


def test_protocol_helpers(tmp_path: Path) -> None:
    out: list[str] = []
    opts = options_from_environment({})
    assert not opts.enabled and not uci_book_reply(opts, Board(), out.append, square_name) and not out
    opts = options_from_environment({"OTHELLO_ENGINE_BOOK": "shipped"}, seed=1)
    assert uci_book_reply(opts, Board(), out.append, square_name)
    assert out[0].startswith("info string book move ") and out[-1].startswith("bestmove ")
    assert parse_square(out[-1].split()[1]) in Board().legal_moves()
    lines = nboard_hint_lines(opts, Board(), 4)
    assert len(lines) == 4 and all(line.startswith("book ") for line in lines)
    assert {parse_square(line.split()[1]) for line in lines} == set(Board().legal_moves())
    assert nboard_learn(opts, parse_moves(GAME)) == ["learned"]  # the shipped book is not written
    path = tmp_path / "nb.book"
    opts = options_from_environment({"OTHELLO_ENGINE_BOOK": str(path)})
    lines = nboard_learn(opts, parse_moves(GAME))
    assert lines[0] == "learned" and lines[1].startswith("status learned: ") and "10 moves" in lines[1]
    with Book.open(path) as book:
        assert [m.move for m in book.lookup(Board())] == [parse_square("f5")]


class EngineProcess:
    """The engine process over pipes (UCI-like protocol)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "othello_engine"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     bufsize=1)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 20.0) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            assert line, f"engine closed its output; got {lines}"
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines
        raise AssertionError(f"no {prefix!r} within {timeout} s: {lines}")

    def close(self) -> None:
        self.send("quit")
        self.proc.communicate(timeout=10)


def test_uci_engine_plays_book_moves_instantly(tmp_path: Path) -> None:
    path = tmp_path / "uci.book"
    after_f5 = parse_moves("f5")
    with Book.open(path, write=True) as book:
        book.set_move(after_f5, parse_square("f6"), 30, 18)
        book.set_move(after_f5, parse_square("f4"), -500, 18)
    e = EngineProcess()
    try:
        e.send("uci")
        hello = e.until("uciok")
        assert "option name OwnBook type check default false" in hello
        assert "option name BookFile type string default <empty>" in hello
        # off by default: a search, not the book
        e.send("position startpos moves f5")
        e.send("go depth 2")
        lines = e.until("bestmove")
        assert not any("book" in line for line in lines)
        # on, with the shipped book: depth 40 would take far longer than the time allowed
        e.send("setoption name OwnBook value true")
        e.send("isready")
        assert any(line.startswith("info string book <shipped book>") for line in e.until("readyok"))
        e.send("position startpos")
        started = time.monotonic()
        e.send("go depth 40")
        lines = e.until("bestmove", timeout=5)
        assert time.monotonic() - started < 2.0
        assert lines[0].startswith("info string book move ")
        move = parse_square(lines[-1].split()[1])
        assert move in {m.move for m in Book.shipped().lookup(Board())}
        # a book file: the learned move, mapped for a mirror image of the position
        e.send(f"setoption name BookFile value {path}")
        for k in range(8):
            img = image(after_f5, k)
            e.send(f"position board {img.cells()} w")
            e.send("go depth 40")
            lines = e.until("bestmove", timeout=5)
            expected = image(parse_moves("f5f6"), k)
            played = img.copy()
            played.push(parse_square(lines[-1].split()[1]))
            assert played == expected, lines
        # out of the book: a normal search
        e.send("position startpos moves f5 d6")
        e.send("go depth 2")
        lines = e.until("bestmove")
        assert not any("book" in line for line in lines)
        # a missing file: one line, then play on without a book
        e.send(f"setoption name BookFile value {tmp_path / 'missing.book'}")
        e.send("position startpos moves f5")
        e.send("go depth 2")
        lines = e.until("bestmove")
        notes = [line for line in lines if "book" in line]
        assert len(notes) == 1 and notes[0].startswith("info string book not used:")
        assert parse_square(lines[-1].split()[1]) in after_f5.legal_moves()
    finally:
        e.close()
    assert not (tmp_path / "missing.book").exists()


def test_nboard_hint_sends_book_lines_and_learn_adds_the_game(tmp_path: Path) -> None:
    pytest.importorskip("othello_engine.protocol.nboard")
    path = tmp_path / "nboard.book"
    after_f5 = parse_moves("f5")
    with Book.open(path, write=True) as book:
        book.set_move(after_f5, parse_square("f6"), 150, 12)
        book.set_move(after_f5, parse_square("d6"), 50, 12)
    game = parse_moves("f5d6c3d3c4")
    proc = subprocess.Popen([sys.executable, "-m", "othello_engine"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "OTHELLO_ENGINE_BOOK": str(path)})
    script = ["nboard 2", "set depth 2",
              "set game " + format_ggf(after_f5, "a", "b"), "hint 2", "ping 1",
              "set game " + format_ggf(game, "a", "b"), "learn", "ping 2", "quit"]
    out, err = proc.communicate("\n".join(script) + "\n", timeout=60)
    lines = out.splitlines()
    assert "book F6 1.50 0 12 from the book" in lines and "book D6 0.50 0 12 from the book" in lines
    assert lines.index("book F6 1.50 0 12 from the book") < lines.index("pong 1")
    assert "learned" in lines and "Traceback" not in err
    with Book.open(path) as book:
        b = Board()
        for move in game.move_stack:
            assert any(m.move == move and m.games == 1 for m in book.lookup(b))
            b.push(move)
