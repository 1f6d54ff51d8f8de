"""Drive engine processes from Python: the process pipe, the UCI/UGI client and the match's players.

The layers, as in python-chess's ``chess.engine``:

- :mod:`~othello_engine.client.process`: :class:`EngineProcess`, a child process spoken to in
  lines (start, read with timeouts, always stop and reap), knowing no protocol;
- :mod:`~othello_engine.client.wire` and :mod:`~othello_engine.client.uci`: the UCI-like
  protocol and its UGI dialect, :class:`EngineClient` with its values (:class:`Info`,
  :class:`PlayResult`) and :class:`AnalysisStream`;
- :mod:`~othello_engine.client.players`: one :class:`Player` interface over UCI/UGI, GTP and
  NBoard engines for the match referee, with :class:`EngineSpec` and :class:`TimeControl`;
- :mod:`~othello_engine.client.errors`: what the client raises.

>>> from othello_engine.client import python_command
>>> from othello_engine.board import Board
>>> with EngineClient.popen(python_command()) as engine:
...     engine.play(Board(), Limit(depth=1)).move in Board().legal_moves()
True
"""

from othello_engine.client.errors import (EngineError, EngineTerminatedError, EngineTimeoutError,
                                          IllegalEngineMoveError)
from othello_engine.client.players import (PROTOCOLS, DriverError, EngineCrashed, EngineFailure,
                                           EngineProtocolError, EngineSpec, EngineStartError,
                                           EngineTimeout, GtpPlayer, MoveRequest, NBoardPlayer,
                                           Player, Reply, TimeControl, UciPlayer, limit_of,
                                           make_player)
from othello_engine.client.process import EngineProcess, ProtocolEngine, python_command
from othello_engine.client.uci import AnalysisStream, EngineClient
from othello_engine.client.wire import (Info, Option, PlayResult, go_command, move_token,
                                        parse_info, parse_option, position_command)
from othello_engine.engine import Limit

__all__ = [
    "EngineError", "EngineTerminatedError", "EngineTimeoutError", "IllegalEngineMoveError",
    "EngineProcess", "ProtocolEngine", "python_command", "EngineClient", "Limit", "Info", "Option", "PlayResult",
    "AnalysisStream", "position_command", "go_command", "parse_info", "parse_option", "move_token",
    "PROTOCOLS", "DriverError", "EngineFailure", "EngineCrashed", "EngineTimeout",
    "EngineProtocolError", "EngineStartError", "TimeControl", "MoveRequest", "Reply", "EngineSpec",
    "Player", "UciPlayer", "GtpPlayer", "NBoardPlayer", "make_player", "limit_of",
]
