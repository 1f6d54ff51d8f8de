"""The browser board in a real browser: Debian's chromium, headless, driven by selenium through the
page's test hooks (docs/web.md), against the real ``othello-web`` command.

Skipped when selenium, chromium or chromedriver is missing (CI installs them: .ci/run). Every board
the page shows is checked against the reference rules (tests/reference_rules.py): the discs, the
legal-move markers and the result. Engines play at 10-30 ms a move.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
from typing import Any, Callable, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import (StaleElementReferenceException, TimeoutException,
                                        WebDriverException)  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from uci_support import Ref, command  # noqa: E402

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser")) if p), None)
CHROMEDRIVER = shutil.which("chromedriver") or next(
    (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), None)

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="chromium and chromium-driver (Debian) are not installed")

WAIT = 30.0

BOARD_JS = """
return Array.from(document.querySelectorAll('[data-square]')).map(
    e => [e.dataset.square, e.dataset.disc || '', e.hasAttribute('data-legal'), e.dataset.hint || null]);
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``othello-web --port 0`` in a fresh folder; yields the page's address."""
    folder = tmp_path_factory.mktemp("web")
    proc = subprocess.Popen([command("othello-web"), "--port", "0", "--data", str(folder / "data")],
                            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "serving http://" not in line:
        proc.kill()
        pytest.fail(f"othello-web did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    url = line.split("serving ", 1)[1].split()[0]
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900"):
        options.add_argument(arg)
    try:
        d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except WebDriverException as exc:
        pytest.skip(f"chromium could not be started: {exc.msg}")
    try:
        yield d
    finally:
        d.quit()


def wait_for(d: Any, what: Callable[[Any], Any], timeout: float = WAIT) -> Any:
    try:
        return WebDriverWait(d, timeout, poll_frequency=0.02).until(lambda _: what(d))
    except TimeoutException:
        raise AssertionError(f"timed out; status {status(d)!r}, message {message(d)!r}") from None


def status(d: Any) -> str:
    return d.execute_script('return document.querySelector(\'[data-testid="status"]\').textContent')


def message(d: Any) -> str:
    return d.execute_script('return document.querySelector(\'[data-testid="message"]\').textContent')


def board_attr(d: Any, name: str) -> str:
    return d.execute_script(f'return document.querySelector(\'[data-testid="board"]\').getAttribute("{name}")')


def move_at(d: Any, ply: int) -> str:
    """The move that led to ply, from the move list."""
    return d.execute_script(f'const li = document.querySelector(\'[data-testid="moves"] li[data-ply="{ply}"]\');'
                            'return li ? li.querySelector(".mv").textContent : null')


def disc_at(d: Any, square: str) -> str:
    return d.execute_script(f'return document.querySelector(\'[data-square="{square}"]\').getAttribute("data-disc")')


def board(d: Any) -> list[list[Any]]:
    return d.execute_script(BOARD_JS)


def ref_from_page(d: Any) -> tuple[Ref, list[list[Any]]]:
    """The position the page shows, read from its squares, as the reference rules see it."""
    squares = board(d)
    cells = "".join("X" if disc == "black" else "O" if disc == "white" else "-" for _, disc, _, _ in squares)
    turn = "x" if status(d).startswith("Black") else "o"
    return Ref.from_cells(cells, turn), squares


def open_game(d: Any, url: str, query: str) -> None:
    d.get(f"{url}?{query}")
    size = int(dict(p.split("=") for p in query.split("&"))["size"])
    wait_for(d, lambda d: board_attr(d, "data-size") == str(size) and len(board(d)) == size * size
             and status(d) != "Connecting")


def idle_turn(d: Any, text: str) -> bool:
    """The page waits for a person: status says so and no search is running."""
    now = status(d)
    return (now == text or now.startswith("Game over")) and board_attr(d, "data-thinking") == ""


def click(d: Any, css: str) -> None:
    """Click the element (found again if the page redrew it meanwhile)."""
    for attempt in range(5):
        try:
            wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, css))[0].click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise


def click_move(d: Any, square: str) -> None:
    click(d, f'[data-square="{square}"]')


def play_human_moves(d: Any, human: str, moves: int) -> list[float]:
    """Play up to ``moves`` moves for the human side (first legal square in page order), checking
    every position the page shows against the reference rules; returns the click latencies."""
    latencies = []
    for _ in range(moves):
        wait_for(d, lambda d: idle_turn(d, f"{human} to move"))
        if status(d).startswith("Game over"):
            break
        ref, squares = ref_from_page(d)
        shown = sorted(name for name, _, legal, _ in squares if legal)
        assert shown == sorted(ref.moves()), "the legal-move markers are not the legal moves"
        target = shown[0]
        ply = board_attr(d, "data-ply")
        click_move(d, target)
        wait_for(d, lambda d: board_attr(d, "data-ply") != ply)
        assert move_at(d, int(ply) + 1) == target
        latencies.append(float(d.find_element(By.TAG_NAME, "body").get_attribute("data-latency")))
    return latencies


def test_a_whole_8x8_game_against_the_engine(driver: Any, server: str) -> None:
    open_game(driver, server, "size=8&black=human&white=engine&movetime=20")
    assert status(driver) == "Black to move"
    latencies = play_human_moves(driver, "Black", 40)
    wait_for(driver, lambda d: status(d).startswith("Game over"))
    ref, squares = ref_from_page(driver)
    assert ref.game_over()
    b, w = ref.count("x"), ref.count("o")
    assert driver.find_element(By.CSS_SELECTOR, '[data-testid="count-black"]').text == str(b)
    assert driver.find_element(By.CSS_SELECTOR, '[data-testid="count-white"]').text == str(w)
    final = ref.final_black()
    expected = "Black wins" if final > 0 else "White wins" if final < 0 else "Draw"
    assert status(driver).startswith(f"Game over: {expected}")
    assert not any(legal for _, _, legal, _ in squares)
    # the board is redrawn within 50 ms of a click (median), engine thinking not counted
    assert statistics.median(latencies) < 50, latencies
    # the game counts in the results table
    row = wait_for(driver, lambda d: d.execute_script(
        'const r = document.querySelector(\'[data-testid="results"] tr[data-size="8"]\'); return r && r.textContent'))
    assert "engine 20 ms" in row


@pytest.mark.parametrize("size", [10, 26])
def test_a_few_moves_on_big_boards(driver: Any, server: str, size: int) -> None:
    open_game(driver, server, f"size={size}&black=human&white=engine&movetime=30")
    names = [name for name, _, _, _ in board(driver)]
    assert names[0] == "a1" and names[-1] == f"{'abcdefghijklmnopqrstuvwxyz'[size - 1]}{size}"
    play_human_moves(driver, "Black", 3)
    wait_for(driver, lambda d: idle_turn(d, "Black to move"))
    ref, squares = ref_from_page(driver)
    assert sorted(n for n, _, legal, _ in squares if legal) == sorted(ref.moves())
    assert board_attr(driver, "data-ply") == "6"


def test_engine_against_engine_to_the_end(driver: Any, server: str) -> None:
    open_game(driver, server, "size=6&black=engine&white=engine&movetime=10")
    wait_for(driver, lambda d: status(d).startswith("Game over"))
    ref, _ = ref_from_page(driver)
    assert ref.game_over()


def test_hint_undo_and_save_then_load(driver: Any, server: str) -> None:
    open_game(driver, server, "size=8&black=human&white=human&movetime=50")
    action = lambda name: click(driver, f'[data-action="{name}"]')  # noqa: E731
    action("hint")
    hinted = wait_for(driver, lambda d: [s for s in board(d) if s[3] is not None])
    assert sorted(s[0] for s in hinted) == sorted(Ref(8).moves())   # a score on every legal move
    assert all(s[2] for s in hinted)
    for move in ("f5", "d6", "c3"):
        click_move(driver, move)
        wait_for(driver, lambda d: disc_at(d, move) is not None)
    action("undo")
    wait_for(driver, lambda d: disc_at(d, 'c3') is None)
    assert status(driver) == "Black to move"
    action("redo")
    wait_for(driver, lambda d: disc_at(d, 'c3') == "black")
    saved = board(driver)
    action("save")
    wait_for(driver, lambda d: message(d).startswith("Saved as"))
    name = message(driver).split('"')[1]
    action("new")
    wait_for(driver, lambda d: board_attr(d, "data-ply") == "0")
    assert board(driver) != saved
    action("load")
    click(driver, f'[data-game="{name}"]')
    wait_for(driver, lambda d: board(d) == saved)
    # pasting a move list
    box = driver.find_element(By.CSS_SELECTOR, '[data-testid="load-text"]')
    box.clear()
    box.send_keys("f5 f6 e6 f4")
    action("load-text")
    wait_for(driver, lambda d: board_attr(d, "data-ply") == "4")
    ref = Ref(8)
    for move in ("f5", "f6", "e6", "f4"):
        ref.play(move)
    assert ref_from_page(driver)[0].grid == ref.grid


def test_board_editor(driver: Any, server: str) -> None:
    open_game(driver, server, "size=4&black=human&white=human")
    action = lambda name: click(driver, f'[data-action="{name}"]')  # noqa: E731
    action("edit")
    action("edit-clear")
    for square in ("a1", "b1"):
        click_move(driver, square)            # black discs (the default brush)
    driver.find_element(By.CSS_SELECTOR, 'input[name="brush"][value="white"]').click()
    click_move(driver, "c1")
    action("edit-done")
    wait_for(driver, lambda d: disc_at(d, 'c1') == "white")
    ref, squares = ref_from_page(driver)
    assert sorted(n for n, _, legal, _ in squares if legal) == sorted(ref.moves()) == ["d1"]
    click_move(driver, "d1")
    wait_for(driver, lambda d: status(d).startswith("Game over: Black wins"))


def test_bad_url_parameters_say_so(driver: Any, server: str) -> None:
    driver.get(f"{server}?size=9&black=human&white=human")
    wait_for(driver, lambda d: "size 9 is not an even size" in message(d))
    assert status(driver) == "Black to move"


def test_upload_a_ggf_file(driver: Any, server: str, tmp_path: Any) -> None:
    record = ("(;GM[Othello]PB[a]PW[b]TY[10]BO[10 " + "-" * 44 + "O*" + "-" * 8 + "*O" + "-" * 44
              + " *]B[E4]W[D4];)")
    path = tmp_path / "upload.ggf"
    path.write_text(record)
    open_game(driver, server, "size=8&black=human&white=human")
    click(driver, '[data-action="load"]')
    driver.find_element(By.CSS_SELECTOR, '[data-testid="load-file"]').send_keys(str(path))
    wait_for(driver, lambda d: board_attr(d, "data-size") == "10" and board_attr(d, "data-ply") == "2")
    ref = Ref(10)
    ref.play("e4")
    ref.play("d4")
    assert ref_from_page(driver)[0].grid == ref.grid
