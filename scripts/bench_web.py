"""Benchmark the browser board (othello-web): the server's start-up time; N concurrent sessions, each
with its engine process (memory in all, the slowest response); and, with selenium and chromium, the
click-to-update latency in a real browser (engine thinking not counted). ``--screenshot PATH`` also
saves a picture of the page in play (docs/web-board.png is made so).

    python scripts/bench_web.py                     # everything, 20 sessions
    python scripts/bench_web.py --sessions 20 --moves 10 --no-browser
    python scripts/bench_web.py --screenshot docs/web-board.png
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Optional

BIN = Path(sys.executable).parent


def start_server(folder: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    command = shutil.which("othello-web", path=str(BIN)) or "othello-web"
    proc = subprocess.Popen([command, "--port", "0", "--data", folder, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "serving " not in line:
        proc.kill()
        raise SystemExit(f"othello-web did not start: {line!r}")
    return proc, line.split("serving ", 1)[1].split()[0]


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def startup(runs: int) -> None:
    """Time from starting the command to the page's first answer."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            t = time.perf_counter()
            proc, url = start_server(folder)
            while True:
                try:
                    with urllib.request.urlopen(url, timeout=5) as reply:
                        reply.read()
                    break
                except OSError:
                    time.sleep(0.005)
            times.append(time.perf_counter() - t)
            stop_server(proc)
    print(f"start-up: command to first page served, median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms ({runs} runs)")


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return out


async def one_session(url: str, moves: int, movetime: int, times: list[float]) -> int:
    import websockets
    async with websockets.connect(url.replace("http", "ws", 1) + "ws", max_size=None) as ws:
        async def until(pred: Any) -> dict[str, Any]:
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 120))
                assert m.get("type") != "error" or m.get("code") != "full", m["message"]
                if pred(m):
                    return m
        t = time.perf_counter()
        await until(lambda m: m["type"] == "results")
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        await ws.send(json.dumps({"type": "new", "size": 8, "black": "human", "white": "engine",
                                  "movetime": movetime}))
        m = await until(lambda m: m["type"] == "state")
        times.append(time.perf_counter() - t)
        played = 0
        while played < moves and not m["over"]:
            if m["thinking"] is not None or m["turn"] != "black":
                m = await until(lambda m: m["type"] == "state" and m["thinking"] is None
                                and (m["turn"] == "black" or m["over"]))
            if m["over"] or not m["legal"]:
                break
            t = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "square": m["legal"][0]}))
            m = await until(lambda m: m["type"] == "state")   # the board after the person's move
            times.append(time.perf_counter() - t)
            played += 1
        return played


async def concurrent(url: str, sessions: int, moves: int, movetime: int, pid: int) -> None:
    times: list[float] = []
    peak = {"rss": 0, "engines": 0}
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            kids = children(pid)
            total = rss_kb(pid) + sum(rss_kb(k) for k in kids)
            if total > peak["rss"]:
                peak.update(rss=total, engines=len(kids), server=rss_kb(pid))
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample())
    t = time.perf_counter()
    played = await asyncio.gather(*(one_session(url, moves, movetime, times) for _ in range(sessions)))
    wall = time.perf_counter() - t
    done.set()
    await sampler
    times.sort()
    print(f"{sessions} concurrent sessions (8x8, human vs engine at {movetime} ms a move, "
          f"{sum(played)} moves in {wall:.1f} s):")
    print(f"  memory at the peak: {peak['rss'] / 1024:.0f} MB in all (server {peak.get('server', 0) / 1024:.0f} MB, "
          f"{peak['engines']} engine processes, {(peak['rss'] - peak.get('server', 0)) / 1024 / max(1, peak['engines']):.0f} MB each)")
    print(f"  responses (message sent to the state or reply received), {len(times)} of them: "
          f"median {statistics.median(times) * 1000:.1f} ms, 95th percentile "
          f"{times[int(len(times) * 0.95)] * 1000:.1f} ms, slowest {times[-1] * 1000:.1f} ms")


def browser(url: str, screenshot: Optional[str]) -> None:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError:
        print("browser: selenium is not installed; skipped")
        return
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        print("browser: chromium or chromedriver is not installed; skipped")
        return
    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        for size, clicks in ((8, 40), (26, 40)):
            d.get(f"{url}?size={size}&black=human&white=human")
            time.sleep(0.5)
            for _ in range(clicks):
                legal = d.execute_script("const e = document.querySelector('[data-legal]');"
                                         "return e ? e.dataset.square : null")
                if legal is None:
                    break
                ply = d.execute_script("return document.querySelector('#board').dataset.ply")
                d.find_element(By.CSS_SELECTOR, f'[data-square="{legal}"]').click()
                while d.execute_script("return document.querySelector('#board').dataset.ply") == ply:
                    time.sleep(0.002)
            lat = sorted(d.execute_script("return window.othelloLatencies"))
            print(f"browser, {size}x{size}: click to board redrawn, {len(lat)} clicks: median "
                  f"{statistics.median(lat):.1f} ms, slowest {lat[-1]:.1f} ms")
        if screenshot:
            d.get(f"{url}?size=8&black=human&white=engine&movetime=150")
            time.sleep(0.6)
            for _ in range(9):
                legal = d.execute_script("const e = [...document.querySelectorAll('[data-legal]')];"
                                         "return e.length ? e[Math.floor(e.length / 2)].dataset.square : null")
                if legal is None:
                    break
                d.find_element(By.CSS_SELECTOR, f'[data-square="{legal}"]').click()
                for _ in range(200):
                    time.sleep(0.02)
                    if d.execute_script("const b = document.querySelector('#board');"
                                        "return b.dataset.thinking === '' && b.dataset.turn === 'black'"):
                        break
            d.find_element(By.CSS_SELECTOR, '[data-action="analyze"]').click()
            time.sleep(3.5)
            d.find_element(By.CSS_SELECTOR, '[data-action="hint"]').click()
            time.sleep(0.8)
            d.save_screenshot(screenshot)
            print(f"screenshot: {screenshot}")
    finally:
        d.quit()


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20, help="concurrent sessions (default 20)")
    ap.add_argument("--moves", type=int, default=10, help="moves of the person per session (default 10)")
    ap.add_argument("--movetime", type=int, default=100, help="engine ms a move (default 100)")
    ap.add_argument("--runs", type=int, default=5, help="server starts timed (default 5)")
    ap.add_argument("--no-browser", action="store_true", help="skip the browser latency")
    ap.add_argument("--screenshot", metavar="PATH", help="save a screenshot of the page in play")
    args = ap.parse_args(argv)
    startup(args.runs)
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start_server(folder, "--max-sessions", str(max(20, args.sessions)))
        try:
            asyncio.run(concurrent(url, args.sessions, args.moves, args.movetime, proc.pid))
            if not args.no_browser or args.screenshot:
                browser(url, args.screenshot)
        finally:
            stop_server(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
