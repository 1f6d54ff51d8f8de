# cython: language_level=3
"""Compiled hot path of othello_engine: bitboard rules, symmetries, perft, evaluation and search.

Board model. A position is two uint64 bitboards, ``P`` for the side to move and ``O`` for its
opponent (side-relative, so no kernel branches on colour). Bit ``row * 8 + col`` is a square: bit 0
is a1, the top-left corner, bit 7 is h1, bit 63 is h8 (columns a..h left to right, rows 1..8 top to
bottom). A board smaller than 8x8 (3..8 squares a side) occupies the top-left ``size x size``
corner of the same frame and is described by a ``mask`` of its squares (:func:`board_mask`); the
squares outside it stay empty. A pass is move 64. Everything here takes and returns plain
integers and trusts its input; parsing, validation, timing, threads and I/O belong to the Python
modules around this one (``othello_engine.board`` checks positions before they get here).

Boards of 9x9 to 26x26 (``_wide.pxi``) take and return plain ints of ``size * size`` bits, bit
``row * size + col``, through the functions ending in ``_n`` (which accept every size 3..26 and
forward sizes 3..8 to the 64-bit functions); their pass is ``size * size`` (:func:`pass_code`).

>>> P, O = 0x0000000810000000, 0x0000001008000000     # the 8x8 start, black to move
>>> hex(legal_moves(P, O))
'0x102004080000'
>>> [perft(P, O, d) for d in range(1, 5)]
[4, 12, 56, 244]
"""

# The compiled parts, flat and in dependency order (as Edax's all.c): each part uses only the
# parts above it, and no part includes another. Every part opens with a comment naming its concern.

# the machine: types and rules
include "_types.pxi"         # u64, the wide word arrays, the fused board_t; C library imports
include "_bitboard.pxi"      # 8x8 kernels: moves, flips, perft, symmetries (AVX2 or scalar)
include "_wide_kernels.pxi"  # 9x9..26x26: the C kernels on word arrays of each width
include "_wide.pxi"          # 9x9..26x26 kernels on word arrays; Python int <-> words

# evaluation
include "_pattern.pxi"       # the pattern evaluation (8x8): learned tables, indices, scalars
include "_eval.pxi"          # the classic evaluation (8x8 frame): features, weights, stability
include "_wide_eval.pxi"     # the classic evaluation on wide boards
include "_pattern_n.pxi"     # the pattern evaluation of the other sizes (layout 2)

# search
include "_tt.pxi"            # transposition table shared by the threads, lock-free
include "_state.pxi"         # SearchState, limits and tunables, polling, the busy table
include "_board_ops.pxi"     # the search's board operations over board_t, terminal scores, pv
include "_midgame.pxi"       # principal-variation search to a depth
include "_endgame.pxi"       # exact solver: eg_search down to eg_last1
include "_root.pxi"          # one iteration over the root moves; their first order
include "_threads.pxi"       # helper threads' work and their pthread entry point

# the Python-visible API (mirrored by _core.pyi)
include "_api_rules.pxi"     # legal moves, flips, perft, symmetries on every size
include "_api_eval.pxi"      # evaluation terms, pattern weights and features, kernel timings
include "_api_pattern_n.pxi" # the other sizes' pattern evaluation: layout, weights, features, terms
include "_api_search.pxi"    # the Search class and its iterative-deepening run; solve times
