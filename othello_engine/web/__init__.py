"""The browser board of ``othello-engine web``: a local server and its single page.

- :mod:`~othello_engine.web.app`: the ASGI application (the page, ``/ws``, ``/api/status``);
- :mod:`~othello_engine.web.session`: a page's session and the cap on their number;
- :mod:`~othello_engine.web.messages`: the messages the page may send, checked;
- :mod:`~othello_engine.web.game`: the game on the page (board, undo/redo, scores, files);
- :mod:`~othello_engine.web.engines`: each session's engine process, driven from a thread;
- :mod:`~othello_engine.web.store`: the data folder (saved games, the results file);
- ``static/``: the page itself (HTML, CSS, JavaScript; no build step).

The server needs the ``[web]`` extra (Starlette, uvicorn, websockets); only
:mod:`~othello_engine.web.app` imports them, so the other modules load without it.
"""
