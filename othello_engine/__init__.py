"""othello_engine: a strong Othello (Reversi) engine with a compiled bitboard core."""

__version__ = "0.1.0"

try:
    from othello_engine import _core  # noqa: F401
except ImportError as exc:  # never fall back silently to something slower
    raise ImportError(
        "othello_engine's compiled core (othello_engine._core) is missing or broken; "
        "reinstall the package with a C compiler available: pip install ."
    ) from exc
