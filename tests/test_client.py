"""The Python client against real engine processes: our engine over pipes, and small fake engines
that misbehave on purpose (hang, die, play illegal moves)."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from typing import Iterator

import pytest

from othello_engine.board import PASS, Board, parse_square, square_name

import reference_rules as ref
from othello_engine.client import process as client_process
from othello_engine.client import (EngineClient, EngineError, EngineProcess, EngineTerminatedError,
                                   EngineTimeoutError, IllegalEngineMoveError, Info, Limit,
                                   go_command, parse_info, position_command)

ENGINE = [sys.executable, "-m", "othello_engine"]


def midgame(empties: int) -> Board:
    """A position that is not the standard start, with the given number of empties: the game of
    first legal moves, restarted from its board (so it has no history)."""
    board = Board()
    while board.empties > empties:
        board.push(board.legal_moves()[0] if board.legal_moves() else PASS)
    return Board.from_discs(8, board.black, board.white, board.turn)


def reaped(pid: int) -> bool:
    """True when no process (not even a zombie) with this pid is our child any more."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def fake_engine(body: str) -> list[str]:
    """A tiny UCI engine in Python: handshake and isready are answered; body handles the rest
    (it sees `line` and `out(text)`)."""
    script = textwrap.dedent("""
        import sys
        def out(text):
            sys.stdout.write(text + "\\n"); sys.stdout.flush()
        for line in sys.stdin:
            line = line.strip()
            if line == "uci":
                out("id name fake"); out("uciok")
            elif line == "isready":
                out("readyok")
            elif line == "quit":
                break
            else:
        """) + textwrap.indent(textwrap.dedent(body), " " * 8)
    return [sys.executable, "-c", script]


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineClient]:
    with EngineClient.popen(ENGINE) as e:
        yield e


def solve(board: Board) -> int:
    """Exact final disc difference for the side to move, from the reference rules (the oracle;
    only for a handful of empties)."""
    return ref.solve_text(board.cells(), "XO"[board.turn])


# --- the wire ------------------------------------------------------------------------------------

def test_position_command_carries_the_game() -> None:
    b = Board()
    for m in ("f5", "d6", "c3"):
        b.push_str(m)
    assert position_command(b) == "position startpos moves f5 d6 c3"
    start = midgame(30)
    side = "b" if start.turn == 0 else "w"
    start.push(start.legal_moves()[0])
    cmd = position_command(start)
    assert cmd.startswith("position board " + start.replay().cells())
    assert cmd.endswith(f" {side} moves " + square_name(start.move_stack[0]))
    assert position_command(start, "ugi").startswith("position fen ")


def test_go_command_maps_every_limit() -> None:
    assert go_command(Limit(time=0.25)) == "go movetime 250"
    assert go_command(Limit(black_clock=1, white_clock=2, white_inc=0.5, moves_to_go=10)) == \
        "go btime 1000 wtime 2000 binc 0 winc 500 movestogo 10"
    assert go_command(Limit(exact=True)) == "go depth 60 exact"
    assert go_command(None) == "go infinite"


def test_parse_info_reads_scores_and_skips_noise() -> None:
    i = parse_info("info depth 7 seldepth 9 currmove f5 score cp -35 lowerbound nodes 99 nps 9 "
                   "hashfull 3 time 1500 pv f5 pass d6")
    assert (i.depth, i.seldepth, i.score, i.exact, i.bound, i.nodes, i.time) == \
        (7, 9, -35, False, "lower", 99, 1.5)
    assert i.pv == (37, PASS, 43)
    assert parse_info("info string hello world").string == "hello world"
    assert parse_info("info depth x score disc 6").discs == 6


# --- our engine ----------------------------------------------------------------------------------

def test_handshake_reads_id_and_options(engine: EngineClient) -> None:
    assert engine.id["name"].startswith("othello_engine")
    assert engine.options["hash"].type == "spin"
    assert engine.options["multipv"].max is not None and engine.options["multipv"].max >= 4


def test_play_a_whole_game_with_legal_moves(engine: EngineClient) -> None:
    board = Board(6)
    engine.new_game()
    while not board.is_game_over():
        result = engine.play(board, Limit(depth=2))
        assert result.move is not None
        assert board.is_legal(result.move), (board.fen(), result.token)
        board.push(result.move)
    assert engine.play(board, Limit(depth=2)).move is None


def test_play_respects_the_history_and_non_standard_starts(engine: EngineClient) -> None:
    board = midgame(20)
    for _ in range(3):
        result = engine.play(board, Limit(depth=3))
        assert result.move is not None and board.is_legal(result.move)
        board.push(result.move)


def test_play_with_a_clock_returns_in_time(engine: EngineClient) -> None:
    t = time.monotonic()
    result = engine.play(Board(), Limit(black_clock=1.0, white_clock=1.0))
    assert result.move in Board().legal_moves()
    assert time.monotonic() - t < 1.5


def test_analyse_gives_exact_scores_that_match_the_oracle(engine: EngineClient) -> None:
    board = midgame(20)
    while board.empties > 9:  # with history: the engine gets the moves to replay
        board.push(board.legal_moves()[-1] if board.legal_moves() else PASS)
    info = engine.analyse(board, Limit(exact=True), timeout=30)
    assert info.exact and info.discs == solve(board.copy())
    assert info.move is not None and board.is_legal(info.move)


def test_analyse_multipv_lists_distinct_legal_moves(engine: EngineClient) -> None:
    board = Board()
    board.push_str("f5")
    lines = engine.analyse(board, Limit(depth=3), multipv=2)
    assert len(lines) == 2 and [i.multipv for i in lines] == [1, 2]
    moves = [i.move for i in lines]
    assert len(set(moves)) == 2 and all(m is not None and board.is_legal(m) for m in moves)
    more = engine.analyse(board, Limit(depth=2), multipv=10)
    assert sorted(i.move or -1 for i in more) == board.legal_moves()  # only 3 moves exist
    single = engine.analyse(board, Limit(depth=2))  # back to one line
    assert isinstance(single, Info) and single.multipv == 1


def test_streaming_analysis_deepens_and_stops(engine: EngineClient) -> None:
    depths = []
    t = time.monotonic()
    with engine.analysis(Board()) as stream:  # no limit: runs until stopped
        for info in stream:
            depths.append(info.depth)
            if info.depth is not None and info.depth >= 3:
                stream.stop()
    assert stream.result is not None and stream.result.move in Board().legal_moves()
    assert depths == sorted(depths) and len(set(depths)) >= 2  # it deepened, step by step
    assert time.monotonic() - t < 10
    assert engine.play(Board(), Limit(depth=1)).move is not None  # still in step


def test_leaving_a_stream_early_stops_the_search(engine: EngineClient) -> None:
    with engine.analysis(Board()) as stream:
        assert stream.next(timeout=10) is not None
    assert stream.done
    assert engine.play(Board(), Limit(depth=1)).move is not None


def test_a_search_past_its_timeout_raises_and_the_engine_recovers(engine: EngineClient) -> None:
    t = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="0.3 s"):
        engine.play(Board(), Limit(depth=60), timeout=0.3)
    assert time.monotonic() - t < 5
    assert engine.alive
    assert engine.play(Board(), Limit(depth=1)).move is not None


def test_bad_options_are_refused(engine: EngineClient) -> None:
    with pytest.raises(EngineError, match="no option"):
        engine.configure({"Colour": "blue"})
    with pytest.raises(EngineError, match="out of range"):
        engine.configure({"Hash": 0})
    engine.configure({"Hash": 2, "move overhead": 10})


def test_ugi_dialect_plays_on_a_small_board() -> None:
    with EngineClient.popen(ENGINE, protocol="ugi") as e:
        board = Board.from_fen("6/6/2ox2/2xo2/6/6 x")
        board.push_str("c2")
        result = e.play(board, Limit(depth=2))
        assert result.move is not None and board.is_legal(result.move)


def test_killed_engine_raises_and_is_reaped() -> None:
    e = EngineClient.popen(ENGINE)
    pid = e.pid
    stream = e.analysis(Board())
    assert stream.next(timeout=10) is not None
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(EngineTerminatedError, match="SIGKILL"):
        while stream.next(timeout=10) is not None:
            pass
    with pytest.raises(EngineTerminatedError):
        e.play(Board(), Limit(depth=1))
    assert e.close() == -signal.SIGKILL
    assert reaped(pid)


def test_context_manager_cleans_up_after_an_error() -> None:
    with pytest.raises(ZeroDivisionError):
        with EngineClient.popen(ENGINE) as e:
            pid = e.pid
            1 / 0
    assert reaped(pid) and e.process.returncode == 0  # it quit when asked


# --- misbehaving engines -------------------------------------------------------------------------

def test_an_illegal_move_is_reported_with_its_text() -> None:
    with EngineClient.popen(fake_engine('if line.startswith("go"): out("bestmove a1")')) as e:
        with pytest.raises(IllegalEngineMoveError) as err:
            e.play(Board(), Limit(depth=1))
        assert err.value.token == "a1"


def test_an_engine_that_never_answers_times_out_and_is_killed() -> None:
    command = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, "
               "signal.SIG_IGN); time.sleep(60)"]
    t = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="uciok"):
        EngineClient.popen(command, timeout=0.5)
    assert time.monotonic() - t < 3  # handshake timeout, terminate (ignored), kill


HUNG = textwrap.dedent("""
    import signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        line = line.strip()
        if line == "uci":
            print("id name hung"); print("uciok", flush=True)
        elif line == "isready":
            print("readyok", flush=True)
        elif line.startswith("go") or line == "hang":
            time.sleep(60)          # hung: reads no more input (stop, quit), ignores SIGTERM
    time.sleep(60)                  # and does not even exit at the end of its input
""")


def test_a_search_that_hangs_is_cleaned_up_at_once() -> None:
    """The search timeout used to be followed by 10 s of waiting for a bestmove after stop."""
    e = EngineClient.popen([sys.executable, "-c", HUNG])
    started = time.monotonic()
    with pytest.raises(EngineTimeoutError):
        e.play(Board(), Limit(time=0.1), timeout=1.0)
    cleanup = time.monotonic() - started - 1.0
    assert cleanup < 1.0, cleanup
    assert not e.alive and reaped(e.pid)
    e.close()


def test_closing_an_engine_that_ignores_quit_and_sigterm_is_quick() -> None:
    """quit, a short wait, SIGTERM (ignored), a short wait, SIGKILL: well under 2 s (was 4+ s)."""
    e = EngineClient.popen([sys.executable, "-c", HUNG])
    e.process.send("hang")
    started = time.monotonic()
    code = e.close()
    took = time.monotonic() - started
    assert took < 1.5, took
    assert code == -signal.SIGKILL and reaped(e.pid)


def test_an_engine_that_dies_on_go_reports_its_exit() -> None:
    e = EngineClient.popen(fake_engine('if line.startswith("go"): sys.stderr.write("boom\\n"); sys.exit(3)'))
    with pytest.raises(EngineTerminatedError, match="code 3.*boom"):
        e.play(Board(), Limit(depth=1))
    assert e.close() == 3 and reaped(e.pid)


def test_process_layer_timeouts_and_eof() -> None:
    with EngineProcess([sys.executable, "-c", "import sys; print(sys.stdin.readline().strip().upper())"]) as p:
        with pytest.raises(EngineTimeoutError):
            p.readline(timeout=0.2)
        p.send("hi")
        assert p.readline(timeout=10) == "HI"
        with pytest.raises(EngineTerminatedError, match="code 0"):
            p.readline(timeout=10)
        with pytest.raises(EngineTerminatedError):
            p.send("again")
    assert reaped(p.pid)


FLOOD = ("import sys\n"
         "for i in range(2000):\n"
         "    sys.stdout.write(str(i).rjust(10_000, '.') + '\\n')\n"
         "sys.stdout.write('done\\n')\n")


def test_unread_output_holds_a_flooding_engine_back(monkeypatch) -> None:
    # 20 MB of output that nobody reads: the reader keeps MAX_BATCHES reads and then waits, the
    # pipe fills and the engine blocks in its write; reading on gets every line, in order
    monkeypatch.setattr(client_process, "MAX_BATCHES", 4)
    with EngineProcess([sys.executable, "-c", FLOOD]) as p:
        time.sleep(1.0)
        assert p.proc.poll() is None, "the engine wrote all its output although none was read"
        for i in range(2000):
            assert p.readline(timeout=10) == str(i).rjust(10_000, ".")
        assert p.readline(timeout=10) == "done"
        with pytest.raises(EngineTerminatedError, match="code 0"):
            p.readline(timeout=10)
    assert reaped(p.pid)


def test_closing_a_flooding_engine_that_is_never_read_is_quick(monkeypatch) -> None:
    monkeypatch.setattr(client_process, "MAX_BATCHES", 4)
    p = EngineProcess([sys.executable, "-c", FLOOD])
    time.sleep(0.5)
    t0 = time.monotonic()
    p.close()
    assert time.monotonic() - t0 < 5
    p._out_thread.join(timeout=5)
    assert not p._out_thread.is_alive()
    assert reaped(p.pid)


def test_the_module_examples_run() -> None:
    import doctest
    import othello_engine.client as client
    from othello_engine.client import process, uci, wire
    for module in (client, process, uci, wire):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_a_rejected_go_raises_at_once_and_the_engine_stays_usable() -> None:
    body = '''
        if line.startswith("go") and "depth 1" in line:
            out("info string error: go: depth 1 is not allowed here")
        elif line.startswith("go"):
            out("info depth 2 score cp 5 pv d3")
            out("bestmove d3")
    '''
    with EngineClient.popen(fake_engine(body)) as e:
        t = time.monotonic()
        with pytest.raises(EngineError, match="rejected the search: error: go: depth 1"):
            e.play(Board(), Limit(depth=1))
        assert time.monotonic() - t < 5
        result = e.play(Board(), Limit(depth=2))
        assert result.move == parse_square("d3") and result.info.score == 5


def test_a_rejected_position_is_not_searched() -> None:
    body = '''
        if line.startswith("position"):
            out("info string error: position: no such thing")
        elif line.startswith("go"):
            out("bestmove d3")
    '''
    with EngineClient.popen(fake_engine(body)) as e:
        with pytest.raises(EngineError, match="no such thing.*position startpos"):
            e.play(Board(), Limit(depth=1))


def test_the_log_sees_both_directions() -> None:
    seen: list[tuple[str, str]] = []
    with EngineClient.popen(ENGINE, log=lambda d, line: seen.append((d, line))) as e:
        e.play(Board(), Limit(depth=1))
    assert (">", "uci") in seen and ("<", "uciok") in seen
    assert any(d == "<" and line.startswith("bestmove") for d, line in seen)
