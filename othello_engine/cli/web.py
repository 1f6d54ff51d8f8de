"""The ``othello-web`` command (``othello-engine web``): options, the listening socket, the server's run."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Optional

from othello_engine.textnum import float_arg, int_arg

DEFAULT_PORT = 8765
WS_MAX_BYTES = 8 * 1024 * 1024
"""Largest websocket frame the server reads (a pasted game of a million characters, in UTF-8)."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="othello-web",
        description="Play, watch and analyse Othello at every even size 4..26 in the browser: "
                    "a local web server and its page.",
        epilog="Open the printed address in a browser. Needs the [web] extra: "
               "pip install 'othello_engine[web]'.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; any other "
                        "address is reachable by others and prints a warning)")
    p.add_argument("--port", type=_port_arg, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one and prints it)")
    p.add_argument("--data", metavar="DIR", default=None,
                   help="folder of the saved games and the results file (default "
                        "~/.local/share/othello_engine/web, or under $XDG_DATA_HOME)")
    p.add_argument("--max-sessions", type=_count_arg, default=20, metavar="N",
                   help="most games open at once, each with its engine process (default 20)")
    p.add_argument("--engine-idle", type=_seconds_arg, default=300.0, metavar="S",
                   help="seconds without a search after which a game's engine process ends; it "
                        "starts again when needed (default 300)")
    p.add_argument("--session-idle", type=_seconds_arg, default=3600.0, metavar="S",
                   help="seconds without a message from a page after which its game is closed "
                        "(default 3600)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    return p


def _port_arg(text: str) -> int:
    port = int_arg(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port}: expected 0..65535")
    return port


def _count_arg(text: str) -> int:
    n = int_arg(text)
    if not 1 <= n <= 1000:
        raise argparse.ArgumentTypeError(f"{n}: expected 1..1000")
    return n


def _seconds_arg(text: str) -> float:
    s = float_arg(text)
    if not 1 <= s <= 10 ** 7:
        raise argparse.ArgumentTypeError(f"{text}: expected seconds in 1..10000000")
    return s


def is_loopback(host: str) -> bool:
    """True for the loopback addresses and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (OSError if it cannot be had)."""
    infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _server_class(uvicorn):
    """uvicorn's server, but a second SIGINT while it shuts down does not force the exit: the
    graceful shutdown (at most timeout_graceful_shutdown, then the sessions' engines closed) goes
    on. A forced exit skipped closing the sessions and printed the lifespan's cancellation as a
    traceback; and one Ctrl-C can arrive twice (GNU timeout -s INT signals the command and its
    process group)."""
    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            if self.should_exit and sig == signal.SIGINT:
                return
            super().handle_exit(sig, frame)
    return Server


def main(argv: Optional[list[str]] = None) -> int:
    started = time.monotonic()
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from othello_engine.web.app import LOOPBACK_NAMES, create_app
        from othello_engine.web.session import ServerSettings
        from othello_engine.web.store import default_data_folder
    except ImportError as exc:
        sys.stderr.write(f"othello-web: the web server needs the [web] extra ({exc.name} is "
                         "missing): pip install 'othello_engine[web]'\n")
        return 2
    data = Path(args.data) if args.data else default_data_folder()
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        sys.stderr.write(f"othello-web: cannot use the data folder {str(data)!r}: "
                         f"{exc.strerror or exc}\n")
        return 1
    loopback = is_loopback(args.host)
    if not loopback:
        sys.stderr.write(f"othello-web: warning: listening on {args.host}, not on the loopback "
                         "address: anyone who can reach this machine can open games here and "
                         "start engine processes. Use --host 127.0.0.1 unless you mean it.\n")
    try:
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        sys.stderr.write(f"othello-web: cannot listen on {args.host} port {args.port}: {reason}\n")
        return 1
    port = sock.getsockname()[1]
    settings = ServerSettings(max_sessions=args.max_sessions, engine_idle=args.engine_idle,
                              session_idle=args.session_idle)
    allowed = (set(LOOPBACK_NAMES) | {args.host.lower()}) if loopback else None
    app = create_app(str(data), settings, allowed)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    print(f"othello-web: serving {url} (data folder {data}; started in "
          f"{time.monotonic() - started:.2f} s); Ctrl-C stops it", flush=True)
    if args.open:
        import webbrowser
        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="on",
                            ws_max_size=WS_MAX_BYTES, timeout_graceful_shutdown=3)
    server = _server_class(uvicorn)(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
