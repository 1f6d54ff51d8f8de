"""The web server's ASGI application: the page's files, the websocket of each session, the status.

Routes: ``/`` (the page), ``/static/<name>`` (its script and style, read once from the package's
data: no path from a request ever reaches the file system), ``/ws`` (one session per
connection), ``/api/status`` (sessions and engine processes, for scripts and tests).
A request whose ``Host`` is not an allowed name (by default, when the server listens on the
loopback address, only the loopback names) is refused, and so is a websocket opened from a page of
another origin: another site open in the same browser cannot drive the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from importlib import resources
from typing import Any, AsyncIterator, Iterable, Optional
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from othello_engine.web.session import ServerSettings, Session, SessionManager
from othello_engine.web.store import DataStore

STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
WS_CLOSE_FULL = 1013   # "try again later"
WS_CLOSE_POLICY = 1008
WS_CLOSE_IDLE = 1000


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files from the package data, by name: (content, media type)."""
    folder = resources.files("othello_engine.web") / "static"
    out = {}
    for item in folder.iterdir():
        suffix = "." + item.name.rpartition(".")[2]
        if item.is_file() and suffix in STATIC_TYPES:
            out[item.name] = (item.read_bytes(), STATIC_TYPES[suffix])
    return out


def _host_name(value: str) -> str:
    """The host of a ``Host`` header value, without its port."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[:value.find("]") + 1] if "]" in value else value
    return value.rpartition(":")[0] if value.count(":") == 1 else value


class WebServer:
    """The application and what it serves: the data store, the sessions, the page's files."""

    def __init__(self, store: DataStore, settings: ServerSettings = ServerSettings(),
                 allowed_hosts: Optional[Iterable[str]] = LOOPBACK_NAMES) -> None:
        self.store = store
        self.settings = settings
        self.sessions = SessionManager(store, settings)
        self.allowed_hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}
        self.files = static_files()
        self.app = Starlette(routes=[
            Route("/", self.page),
            Route("/static/{name}", self.static),
            Route("/api/status", self.status),
            WebSocketRoute("/ws", self.websocket),
        ], lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        yield
        await asyncio.get_running_loop().run_in_executor(None, self.sessions.close_all)

    # --- checks -----------------------------------------------------------------------------------
    def host_allowed(self, headers: Any) -> bool:
        if self.allowed_hosts is None:
            return True
        return _host_name(headers.get("host", "")) in self.allowed_hosts

    def origin_allowed(self, headers: Any) -> bool:
        """A browser names the page that opens a websocket: it must be this server's page."""
        origin = headers.get("origin")
        if origin is None:
            return True   # not a browser (scripts, the test client)
        try:
            netloc = urlsplit(origin).netloc.lower()
        except ValueError:
            return False
        return netloc == headers.get("host", "").strip().lower()

    # --- routes -----------------------------------------------------------------------------------
    def _file(self, name: str) -> Response:
        content, media = self.files[name]
        return Response(content, media_type=media, headers={"Cache-Control": "no-cache"})

    async def page(self, request: Request) -> Response:
        if not self.host_allowed(request.headers):
            return PlainTextResponse("Invalid host header", status_code=400)
        return self._file("index.html")

    async def static(self, request: Request) -> Response:
        if not self.host_allowed(request.headers):
            return PlainTextResponse("Invalid host header", status_code=400)
        name = request.path_params["name"]
        if name not in self.files or name == "index.html":
            return PlainTextResponse("Not found", status_code=404)
        return self._file(name)

    async def status(self, request: Request) -> Response:
        if not self.host_allowed(request.headers):
            return PlainTextResponse("Invalid host header", status_code=400)
        return JSONResponse({"sessions": len(self.sessions.sessions),
                             "max_sessions": self.settings.max_sessions,
                             "engines": self.sessions.engines_running(),
                             "engine_pids": self.sessions.engine_pids()})

    async def websocket(self, websocket: WebSocket) -> None:
        if not self.host_allowed(websocket.headers) or not self.origin_allowed(websocket.headers):
            await websocket.close(code=WS_CLOSE_POLICY)
            return
        await websocket.accept()
        session = self.sessions.open(asyncio.get_running_loop())
        if session is None:
            await websocket.send_text(json.dumps({"type": "error", "code": "full",
                                                  "message": self.sessions.full_message()}))
            await websocket.close(code=WS_CLOSE_FULL)
            return
        sender = asyncio.create_task(self._send_loop(websocket, session))
        try:
            session.hello()
            await self._receive_loop(websocket, session)
        finally:
            self.sessions.close(session)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    async def _receive_loop(self, websocket: WebSocket, session: Session) -> None:
        idle = self.settings.session_idle
        while True:
            try:
                message = await asyncio.wait_for(websocket.receive(), timeout=idle)
            except asyncio.TimeoutError:
                with contextlib.suppress(Exception):
                    await websocket.send_text(json.dumps({
                        "type": "error", "code": "idle",
                        "message": f"This game was closed after {idle:g} s without a message; "
                                   "reload the page for a new one."}))
                    await websocket.close(code=WS_CLOSE_IDLE)
                return
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                session.error("messages are JSON text, not binary")
            else:
                session.handle(text)

    async def _send_loop(self, websocket: WebSocket, session: Session) -> None:
        while True:
            message = await session.outbox.get()
            try:
                await websocket.send_text(json.dumps(message))
            except (WebSocketDisconnect, RuntimeError, OSError):
                return


def create_app(data_folder: str, settings: ServerSettings = ServerSettings(),
               allowed_hosts: Optional[Iterable[str]] = LOOPBACK_NAMES) -> Starlette:
    """The ASGI application of a server keeping its files in data_folder."""
    return WebServer(DataStore(data_folder), settings, allowed_hosts).app
