"""The web server's websocket protocol through Starlette's test client: every message type, bad
messages, the session cap, engine processes ending with their session, and the data folder.

Legal moves and results are checked against the reference rules (tests/reference_rules.py), never
against the server's own idea of them. Engines run with short time limits (tens of ms).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():   # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from othello_engine.web.app import LOOPBACK_NAMES, create_app  # noqa: E402
from othello_engine.web.messages import MESSAGES  # noqa: E402
from othello_engine.web.session import ServerSettings  # noqa: E402
from uci_support import Ref, command  # noqa: E402

Message = dict[str, Any]
HOSTS = LOOPBACK_NAMES + ("testserver",)   # the test client's host name


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    app = create_app(str(tmp_path / "data"), ServerSettings(max_sessions=2, engine_idle=60), HOSTS)
    with TestClient(app) as c:
        yield c


def until(ws: Any, pred: Callable[[Message], bool], limit: int = 2000) -> Message:
    """The first message that pred accepts (earlier ones are dropped; an unexpected error fails)."""
    for _ in range(limit):
        m = ws.receive_json()
        if pred(m):
            return m
        assert m["type"] != "error", m
    raise AssertionError("no such message")


def state(ws: Any, pred: Callable[[Message], bool] = lambda m: True) -> Message:
    return until(ws, lambda m: m["type"] == "state" and pred(m))


def settled(ws: Any) -> Message:
    """The next state with no search running."""
    return state(ws, lambda m: m["thinking"] is None)


def error(ws: Any) -> Message:
    m = ws.receive_json()
    while m["type"] == "state":
        m = ws.receive_json()
    assert m["type"] == "error", m
    return m


def start(ws: Any, **fields: Any) -> Message:
    until(ws, lambda m: m["type"] == "results")   # hello, state, games, results
    ws.send_json({"type": "new", **fields})
    return state(ws)


def ref_of(m: Message) -> Ref:
    return Ref.from_cells(m["cells"], "x" if m["turn"] == "black" else "o")


def test_hello_then_state_games_results(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        kinds = [ws.receive_json()["type"] for _ in range(4)]
        assert kinds == ["hello", "state", "games", "results"]


def test_page_static_files_and_no_paths(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    for hook in ('data-testid="status"', 'data-action="new"', 'data-action="undo"', 'data-action="redo"',
                 'data-action="hint"', 'data-action="save"', 'data-action="load"', 'data-action="analyze"'):
        assert hook in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")
    for bad in ("/static/..%2Fapp.py", "/static/nothing.js", "/static/__init__.py", "/etc/passwd"):
        assert client.get(bad).status_code == 404, bad
    assert client.get("/", headers={"host": "evil.example:8765"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8765"}).status_code == 200


@pytest.mark.parametrize("size", [4, 10, 26])
def test_new_game_at_sizes(client: TestClient, size: int) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=size, black="human", white="human")
        assert m["size"] == size and len(m["cells"]) == size * size
        assert m["status"] == "Black to move"
        assert sorted(m["legal"]) == sorted(Ref(size).moves())


def test_moves_undo_redo_goto_against_the_rules(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=6, black="human", white="human")
        ref = Ref(6)
        for _ in range(6):
            move = sorted(m["legal"])[-1]
            ws.send_json({"type": "move", "square": move})
            ref.play(move)
            m = state(ws)
            assert ref_of(m).grid == ref.grid and sorted(m["legal"]) == sorted(ref.moves())
            assert m["last"] == move
        ws.send_json({"type": "move", "square": "a1"})      # not legal: an error, nothing changes
        assert "not a legal move" in error(ws)["message"]
        ws.send_json({"type": "undo"})
        back = state(ws)
        assert back["ply"] == 5 and back["can_redo"]
        ws.send_json({"type": "redo"})
        assert state(ws)["cells"] == m["cells"]
        ws.send_json({"type": "goto", "ply": 0})
        first = state(ws)
        assert first["ply"] == 0 and ref_of(first).grid == Ref(6).grid
        assert first["status"] == "Black to move" and len(first["history"]) == 6
        ws.send_json({"type": "goto", "ply": 99})
        assert "outside the game" in error(ws)["message"]
        ws.send_json({"type": "goto", "ply": 0})
        state(ws)
        ws.send_json({"type": "undo"})
        assert "nothing to undo" in error(ws)["message"]


def test_engine_replies_and_undo_takes_back_both(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=8, black="human", white="engine", movetime=30)
        ws.send_json({"type": "move", "square": "f5"})
        m = state(ws)
        assert m["status"] == "White to move" and m["thinking"] == "move"
        m = settled(ws)
        assert m["status"] == "Black to move" and m["ply"] == 2
        ref = Ref(8)
        ref.play("f5")
        assert m["history"][1]["move"] in ref.moves()
        assert m["evals"][1] is not None            # the engine's score, for Black
        ws.send_json({"type": "undo"})
        m = state(ws)
        assert m["ply"] == 0 and m["status"] == "Black to move"


def test_engine_vs_engine_plays_to_the_end(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=4, black="engine", white="engine", movetime=10)
        m = state(ws, lambda m: m["over"])
        ref = Ref(4)
        for h in m["history"]:
            ref.play(h["move"])
        assert ref.game_over()
        b, w = ref.count("x"), ref.count("o")
        assert m["status"].startswith("Game over: ")
        assert m["count"] == {"black": b, "white": w}


def test_hint_scores_every_legal_move(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=6, black="human", white="human", movetime=50)
        ws.send_json({"type": "hint"})
        assert state(ws)["thinking"] == "hint"
        m = state(ws, lambda m: bool(m["hints"]))
        assert sorted(m["hints"]) == sorted(Ref(6).moves())
        assert all(isinstance(v, (int, float)) for v in m["hints"].values())
        assert m["evals"][0] is not None
        ws.send_json({"type": "move", "square": sorted(m["legal"])[0]})
        assert state(ws)["hints"] == {}                   # hints belong to their position


def test_analysis_gives_each_move_a_disc_loss(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=4, black="engine", white="engine", movetime=10)
        over = state(ws, lambda m: m["over"])
        ws.send_json({"type": "analyze", "movetime": 10})
        m = settled(ws)
        assert len(m["analysis"]) == len(over["history"]) + 1 and None not in m["analysis"]
        ref = Ref(4)
        for h in over["history"]:
            ref.play(h["move"])
        assert m["analysis"][-1] == ref.final_black()     # the end is scored exactly
        losses = [h["loss"] for h in m["history"]]
        assert None not in losses and all(x >= 0 for x in losses)


def test_settings_resume_and_stop(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8, black="human", white="human")
        ws.send_json({"type": "settings", "black": "engine", "white": "human", "depth": 2})
        m = state(ws)
        assert m["players"] == {"black": "engine", "white": "human"} and m["depth"] == 2
        m = settled(ws)
        assert m["ply"] == 1 and m["status"] == "White to move"
        ws.send_json({"type": "settings", "black": "engine", "white": "engine", "movetime": 5000})
        assert state(ws)["thinking"] == "move"
        ws.send_json({"type": "stop"})
        m = state(ws)
        assert m["thinking"] is None and m["paused"] and m["ply"] == 1
        ws.send_json({"type": "resume"})
        assert state(ws)["thinking"] == "move"
        ws.send_json({"type": "resume"})                  # pause again
        m = state(ws)
        assert m["paused"] and m["thinking"] is None


LOADS = [
    ("f5d6c3", 3, "White to move"),
    ("(;GM[Othello]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]B[F5]W[d6];)",
     2, "Black to move"),
    ("8/8/8/3ox3/3xo3/8/8/8 o", 0, "White to move"),
    ("-" * 27 + "OX------XO" + "-" * 27 + " X", 0, "Black to move"),
]


@pytest.mark.parametrize("text,ply,status", LOADS)
def test_load_pasted_text(client: TestClient, text: str, ply: int, status: str) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8, black="human", white="human")
        ws.send_json({"type": "load", "text": text})
        m = state(ws)
        assert m["ply"] == ply and m["status"] == status


def test_load_bad_text_keeps_the_game(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8, black="human", white="human")
        for text in ("f5 zz9", "(;GM[Chess];)", "", "8/8/8 x"):
            ws.send_json({"type": "load", "text": text})
            assert error(ws)["message"]
        ws.send_json({"type": "move", "square": "f5"})
        assert state(ws)["ply"] == 1


def test_save_open_and_games_list(client: TestClient, tmp_path: Path) -> None:
    with client.websocket_connect("/ws") as ws:
        first = start(ws, size=10, black="human", white="human")
        assert "e4" in first["legal"]
        ws.send_json({"type": "move", "square": "e4"})
        played = state(ws)
        ws.send_json({"type": "save", "name": "my game"})
        saved = until(ws, lambda m: m["type"] == "saved")
        assert saved["name"] == "my game" and saved["ggf"].startswith("(;GM[Othello]")
        games = until(ws, lambda m: m["type"] == "games")["games"]
        assert games[0]["name"] == "my game" and games[0]["size"] == 10 and games[0]["moves"] == 1
        assert (tmp_path / "data" / "games" / "my game.ggf").read_text().startswith("(;GM[Othello]")
        ws.send_json({"type": "save", "name": "my game"})   # taken: a new name
        assert until(ws, lambda m: m["type"] == "saved")["name"] == "my game-2"
        ws.send_json({"type": "new", "size": 8})
        state(ws)
        ws.send_json({"type": "open", "name": "my game"})
        m = state(ws)
        assert m["cells"] == played["cells"] and m["size"] == 10
        ws.send_json({"type": "open", "name": "nothing here"})
        assert "no saved game" in error(ws)["message"]
        ws.send_json({"type": "games"})
        assert len(until(ws, lambda m: m["type"] == "games")["games"]) == 2


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "x" * 65, "..", "a\\b", "a\x00"])
def test_no_path_outside_the_data_folder(client: TestClient, tmp_path: Path, name: str) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8)
        for kind in ("save", "open"):
            ws.send_json({"type": kind, "name": name})
            text = error(ws)["message"]
            assert "not allowed" in text or "longer than 64" in text, text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert list((tmp_path / "data" / "games").iterdir()) == []


def test_board_editor_position_and_forced_pass(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=4, black="human", white="human")
        # black to move; after b1 white has no move but black has: white's pass is played
        cells = "-X--" + "-OO-" + "XXX-" + "----"
        ws.send_json({"type": "edit", "cells": cells, "turn": "black"})
        m = state(ws)
        ref = Ref.from_cells(cells, "x")
        assert sorted(m["legal"]) == sorted(ref.moves())
        ws.send_json({"type": "edit", "cells": "XO-", "turn": "black"})
        assert error(ws)["message"]
        # an edited position where the side to move must pass: the pass is played at once
        cells = "OX--" + "-" * 12
        assert Ref.from_cells(cells, "x").must_pass()
        ws.send_json({"type": "edit", "cells": cells, "turn": "black"})
        m = state(ws)
        assert m["turn"] == "white" and m["notes"] == ["Black has no legal move and passes."]
        assert m["legal"] == Ref.from_cells(cells, "o").moves() == ["c1"]
        ws.send_json({"type": "move", "square": "c1"})
        assert state(ws)["status"].startswith("Game over: White wins")


def test_a_game_against_the_engine_counts_in_the_results(client: TestClient, tmp_path: Path) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=4, black="human", white="engine", movetime=10)
        while not m["over"]:
            if m["turn"] == "black" and m["thinking"] is None and m["legal"]:
                ws.send_json({"type": "move", "square": m["legal"][0]})
            m = state(ws)
        ref = Ref(4)
        for h in m["history"]:
            ref.play(h["move"])
        score = ref.final_black()
        outcome = "win" if score > 0 else "loss" if score < 0 else "draw"
        results = until(ws, lambda x: x["type"] == "results")["results"]
        assert results["4"]["engine 10 ms"][outcome] == 1
    on_disk = json.loads((tmp_path / "data" / "results.json").read_text())
    assert on_disk["results"]["4"]["engine 10 ms"][outcome] == 1


BAD = [
    "not json", "[1, 2]", '"text"', "{}", '{"type": "fly"}', '{"type": 3}',
    '{"type": "move"}', '{"type": "move", "square": 5}', '{"type": "move", "square": "f5", "x": 1}',
    '{"type": "move", "square": "q99"}', '{"type": "move", "square": "pass"}',
    '{"type": "new", "size": 9}', '{"type": "new", "size": 28}', '{"type": "new", "size": true}',
    '{"type": "new", "size": "8"}', '{"type": "new", "black": "robot"}',
    '{"type": "new", "movetime": 0}', '{"type": "new", "movetime": 1.5}',
    '{"type": "new", "movetime": 100, "depth": 3}', '{"type": "new", "depth": 99}',
    '{"type": "goto", "ply": -1}', '{"type": "load", "text": 5}', '{"type": "edit", "cells": "x"}',
    '{"type": "settings", "black": "human"}', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
]


def test_bad_messages_get_an_error_and_the_session_goes_on(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8, black="human", white="human")
        for text in BAD:
            ws.send_text(text)
            e = error(ws)
            assert e["message"] and "Traceback" not in e["message"], text
        ws.send_bytes(b'{"type": "undo"}')
        assert "binary" in error(ws)["message"]
        ws.send_json({"type": "move", "square": "F5"})
        assert state(ws)["ply"] == 1


def test_every_message_type_is_covered() -> None:
    """This module sends each message type the server takes (a new one needs a test here)."""
    source = Path(__file__).read_text()
    for kind in MESSAGES:
        assert f'"type": "{kind}"' in source, kind


def test_the_session_cap_says_so(client: TestClient) -> None:
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        a.receive_json()
        b.receive_json()
        with client.websocket_connect("/ws") as c:
            m = c.receive_json()
            assert m["type"] == "error" and m["code"] == "full"
            assert "The server is full: 2 games already open" in m["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                c.receive_json()
            assert closed.value.code == 1013


def test_a_page_of_another_origin_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    assert refused.value.code == 1008
    with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "hello"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:   # a zombie is gone for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return True


def test_engines_end_with_their_session_and_searches_stop(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        m = start(ws, size=8, black="engine", white="human", movetime=60000)   # a long search
        assert m["thinking"] == "move"
        deadline = time.monotonic() + 20
        status = client.get("/api/status").json()
        while not status["engine_pids"] and time.monotonic() < deadline:
            time.sleep(0.05)
            status = client.get("/api/status").json()
        assert status["sessions"] == 1 and status["engines"] == 1
        pid = status["engine_pids"][0]
        assert _alive(pid)
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert client.get("/api/status").json() == {"sessions": 0, "max_sessions": 2, "engines": 0,
                                                "engine_pids": []}


def test_an_idle_engine_ends_and_starts_again(tmp_path: Path) -> None:
    app = create_app(str(tmp_path), ServerSettings(engine_idle=1), HOSTS)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        start(ws, size=6, black="human", white="human", movetime=20)
        ws.send_json({"type": "hint"})
        state(ws, lambda m: bool(m["hints"]))
        assert client.get("/api/status").json()["engines"] == 1
        deadline = time.monotonic() + 10
        while client.get("/api/status").json()["engines"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.get("/api/status").json()["engines"] == 0
        ws.send_json({"type": "move", "square": "b3" if "b3" in Ref(6).moves() else Ref(6).moves()[0]})
        state(ws)
        ws.send_json({"type": "hint"})
        assert state(ws, lambda m: bool(m["hints"]))["hints"]


def test_results_message(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        start(ws, size=8)
        ws.send_json({"type": "results"})
        assert until(ws, lambda m: m["type"] == "results")["results"] == {}


# --- the command ---------------------------------------------------------------------------------

def run_web(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([command("othello-web"), *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)


def test_command_line_errors(tmp_path: Path) -> None:
    bad = run_web(tmp_path, "--port", "70000")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1] == "othello-web: error: argument --port: port 70000: expected 0..65535"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run_web(tmp_path, "--port", str(port), "--data", "data")
    assert busy.returncode == 1 and "Traceback" not in busy.stderr
    assert busy.stderr.startswith(f"othello-web: cannot listen on 127.0.0.1 port {port}: ")
    (tmp_path / "file").write_text("")
    nodata = run_web(tmp_path, "--port", "0", "--data", "file/sub")
    assert nodata.returncode == 1 and nodata.stderr.startswith("othello-web: cannot use the data folder")


def start_web(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([command("othello-web"), "--port", "0", "--data", "data", *args],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("othello-web: serving http://"), line
    return proc, line.split("serving ", 1)[1].split()[0]


def get_json(url: str) -> Any:
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return json.loads(reply.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_another_address_warns(tmp_path: Path) -> None:
    proc, url = start_web(tmp_path, "--host", "0.0.0.0")
    try:
        assert url.startswith("http://0.0.0.0:")
        assert get_json(url.replace("0.0.0.0", "127.0.0.1") + "api/status")["sessions"] == 0
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert err.startswith("othello-web: warning: listening on 0.0.0.0, not on the loopback address")


def test_the_server_ends_its_engines_when_it_stops(tmp_path: Path) -> None:
    websockets = pytest.importorskip("websockets.sync.client")
    proc, url = start_web(tmp_path)
    try:
        with websockets.connect(url.replace("http", "ws", 1) + "ws") as ws:
            ws.send(json.dumps({"type": "new", "size": 8, "black": "engine", "white": "engine",
                                "movetime": 60000}))
            deadline = time.monotonic() + 20
            pids: list[int] = []
            while not pids and time.monotonic() < deadline:
                pids = get_json(url + "api/status")["engine_pids"]
                time.sleep(0.05)
            assert len(pids) == 1 and _alive(pids[0])
            proc.terminate()                 # mid-search, with the page still open
            proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 5
    while _alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pids[0])


def test_ctrl_c_twice_still_shuts_down_cleanly(tmp_path: Path) -> None:
    # A Ctrl-C can arrive twice (GNU `timeout -s INT` signals the command and its group; a user
    # presses it again): the server still closes its sessions and exits quietly, where uvicorn's
    # forced exit printed the lifespan's cancellation as a traceback.
    import signal
    proc = subprocess.Popen([command("othello-web"), "--port", "0", "--data", str(tmp_path / "g")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("othello-web: serving http://127.0.0.1:"), first
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, rest
    assert "Traceback" not in rest and "ERROR" not in rest, rest
