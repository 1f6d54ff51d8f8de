"""othello_engine: a strong Othello (Reversi) engine with a compiled bitboard core.

The public names: :class:`Board` and its notation helpers, :class:`Engine` with :class:`Limit`,
:class:`SearchInfo` and :class:`SearchResult`, and the input errors (all ``ValueError``).

>>> from othello_engine import Board, Engine, Limit, square_name
>>> square_name(Engine(hash_mb=1).search(Board(), Limit(depth=2)).best_move) in ('d3', 'c4', 'f5', 'e6')
True
"""

__version__ = "0.1.0"

try:
    from othello_engine import _core  # noqa: F401
except ImportError as exc:  # never fall back silently to something slower
    raise ImportError(
        "othello_engine's compiled core (othello_engine._core) is missing or broken; "
        "reinstall the package with a C compiler available: pip install ."
    ) from exc

from othello_engine.board import (  # noqa: E402
    BLACK, PASS, WHITE, Board, IllegalMoveError, InvalidBoardError, InvalidSquareError,
    OthelloError, parse_square, square_name)
from othello_engine.engine import Engine, InvalidLimitError, Limit, SearchInfo, SearchResult  # noqa: E402

__all__ = [
    "BLACK", "WHITE", "PASS", "Board", "Engine", "Limit", "SearchInfo", "SearchResult",
    "OthelloError", "IllegalMoveError", "InvalidBoardError", "InvalidSquareError", "InvalidLimitError",
    "parse_square", "square_name", "__version__",
]
