# Python-visible rules: legal moves, flips, moves, perft, symmetries and final scores.
#
# On the 8x8 frame (sizes 3..8, with a board mask) and on every size 3..26 (the functions ending
# in _n).

PASS = 64
FULL_MASK = 0xFFFFFFFFFFFFFFFF


def board_mask(int size):
    """Bitboard of the squares of a size x size board (3 <= size <= 8) in the 8x8 frame."""
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    cdef u64 row = ((<u64>1) << size) - 1
    cdef u64 m = 0
    cdef int r
    for r in range(size):
        m |= row << (8 * r)
    return m


def legal_moves(u64 P, u64 O, u64 mask=FULL_MASK):
    """Bitboard of P's legal moves against O."""
    return bb_moves(P, O, mask)


def flipped_discs(u64 P, u64 O, int sq):
    """Bitboard of O's discs flipped when P plays sq (0 if the move flips nothing)."""
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    return bb_flips(P, O, sq)


VECTOR_KERNELS = bool(OE_VECTOR)
"""True when move generation and flips run on the AVX2 kernels (else the scalar ones)."""


def _legal_moves_scalar(u64 P, u64 O, u64 mask=FULL_MASK):
    """legal_moves on the scalar kernel whatever the build (for tests of both kernels)."""
    return moves_scalar(P, O, mask)


def _flipped_discs_scalar(u64 P, u64 O, int sq):
    """flipped_discs on the scalar kernel whatever the build (for tests of both kernels)."""
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    return flips_scalar(P, O, sq)


def _last_flip_count(u64 P, int sq):
    """Tests: the solver's count of the discs P flips at sq, the only empty square of a full 8x8
    board (the other squares not in P are the opponent's); None in a build without pext (no BMI2,
    or OTHELLO_ENGINE_PEXT=0), whose solver counts the flips themselves."""
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    if not OE_LAST_PEXT:
        return None
    return oe_last_flips(P & ~((<u64>1) << sq), sq)


def make_move(u64 P, u64 O, int sq):
    """Play sq for P and return the new (P, O) with the sides swapped (the opponent to move).

    sq = 64 is a pass. The move is not checked for legality: use legal_moves first.
    """
    cdef u64 f
    if sq == 64:
        return (O, P)
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    f = bb_flips(P, O, sq)
    return (O ^ f, P ^ f ^ ((<u64>1) << sq))


def popcount(u64 x):
    """Number of set bits of x."""
    return oe_popcount(x)


def game_state(u64 P, u64 O, u64 mask=FULL_MASK):
    """0 if P can move, 1 if P must pass (O can move), 2 if the game is over (neither can)."""
    if bb_moves(P, O, mask):
        return 0
    return 1 if bb_moves(O, P, mask) else 2


def perft(u64 P, u64 O, int depth, u64 mask=FULL_MASK, bint bulk=False, stop=None):
    """Leaf count of the game tree to depth plies; a pass is a ply only when the opponent can move,
    and a finished game is one leaf. bulk counts the last ply by a popcount instead of making
    each move. Runs without the GIL. stop, if given, is a writable buffer (``bytearray(1)``):
    another thread sets ``stop[0] = 1`` to end the count within microseconds; the count returned
    is then partial (the caller tells by looking at stop[0])."""
    return count_leaves(P, O, depth, mask, bulk, stop, False)


def _perft_frame(u64 P, u64 O, int depth, bint bulk=False, stop=None):
    """perft on the full 8x8 frame with no board mask at all (for measuring the mask's cost)."""
    return count_leaves(P, O, depth, FULL_MASK, bulk, stop, True)


cdef object count_leaves(u64 P, u64 O, int depth, u64 mask, bint bulk, object stop, bint frame):
    """The checks and the GIL-free count shared by perft and _perft_frame (frame: no mask at all)."""
    cdef u64 n
    cdef unsigned char[::1] view
    cdef unsigned char* flag = NULL
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if stop is not None:
        view = stop           # a writable buffer; view keeps it held during the count
        if view.shape[0] < 1:
            raise ValueError("stop must be a writable buffer of one byte or more, e.g. bytearray(1)")
        flag = &view[0]
    with nogil:
        if frame:
            n = perft_rec_frame(P, O, depth, bulk, flag)
        else:
            n = perft_rec(P, O, mask, depth, bulk, flag)
    return n


def symmetry(u64 x, int k, int size=8):
    """Image of bitboard x under symmetry k (0..7) of a size x size board.

    Bit 0 of k mirrors left-right, bit 1 mirrors top-bottom, bit 2 transposes (in that order).
    k = 0 is the identity; the inverse of k is k itself except 5 <-> 6 (the quarter turns).
    """
    if k < 0 or k > 7:
        raise ValueError(f"symmetry {k} is out of range 0..7")
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    return bb_symmetry_sized(x, k, size)


def canonical(u64 P, u64 O, int size=8):
    """The least of the 8 images of (P, O) under the symmetries of a size x size board, ordered by
    P then O, as ``(P', O', k)`` with k the symmetry that produces it (the smallest such k)."""
    cdef u64 bp, bo, p, o
    cdef int k, best_k = 0
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    bp, bo = P, O
    for k in range(1, 8):
        p = bb_symmetry_sized(P, k, size)
        o = bb_symmetry_sized(O, k, size)
        if p < bp or (p == bp and o < bo):
            bp, bo, best_k = p, o, k
    return (bp, bo, best_k)


def final_disc_difference(u64 P, u64 O, u64 mask=FULL_MASK):
    """Final disc difference for P (empties go to the winner), in discs."""
    return final_score(P, O, mask) // 100


cdef object _moves_w(wide_t a, P, O, int size):
    """legal_moves_n on the width of a (a typed zero board: W2_ZERO, W4_ZERO or W11_ZERO)."""
    cdef wide_t b = a
    cdef int nw = <int>(sizeof(a.w) // 8)
    words_from_int(P, a.w, nw)
    words_from_int(O, b.w, nw)
    a = w_moves(a, b, &WGEO[size])
    return int_from_words(a.w, nw)


cdef object _flips_w(wide_t a, P, O, int sq, int size):
    """flipped_discs_n on the width of a."""
    cdef wide_t b = a
    cdef int nw = <int>(sizeof(a.w) // 8)
    words_from_int(P, a.w, nw)
    words_from_int(O, b.w, nw)
    a = w_flips(a, b, sq, &WGEO[size])
    return int_from_words(a.w, nw)


cdef u64 _perft_w(wide_t a, P, O, int depth, int size, bint bulk, unsigned char* flag) except? 0:
    """perft_n on the width of a, without the GIL."""
    cdef wide_t b = a
    cdef int nw = <int>(sizeof(a.w) // 8)
    cdef u64 n
    words_from_int(P, a.w, nw)
    words_from_int(O, b.w, nw)
    with nogil:
        n = w_perft_rec(a, b, &WGEO[size], depth, bulk, flag)
    return n


def legal_moves_n(P, O, int size):
    """Legal moves of P against O on a size x size board (3..26), as an int of the board's bits
    (sizes 3..8: the 8x8 frame, bit row * 8 + col; 9..26: bit row * size + col)."""
    check_size(size)
    if size <= 8:
        return bb_moves(P, O, board_mask(size))
    check_board(P, size, "P")
    check_board(O, size, "O")
    if size <= 11:
        return _moves_w(W2_ZERO, P, O, size)
    if size <= 16:
        return _moves_w(W4_ZERO, P, O, size)
    return _moves_w(W11_ZERO, P, O, size)


def flipped_discs_n(P, O, int sq, int size):
    """Discs of O flipped when P plays sq on a size x size board (0 if it flips nothing)."""
    check_size(size)
    if size <= 8:
        return flipped_discs(P, O, sq)
    check_board(P, size, "P")
    check_board(O, size, "O")
    if sq < 0 or sq >= size * size:
        raise ValueError(f"square {sq} is out of range 0..{size * size - 1}")
    if (P >> sq) & 1 or (O >> sq) & 1:
        return 0
    if size <= 11:
        return _flips_w(W2_ZERO, P, O, sq, size)
    if size <= 16:
        return _flips_w(W4_ZERO, P, O, sq, size)
    return _flips_w(W11_ZERO, P, O, sq, size)


def pass_code(int size):
    """The core's pass move on a size x size board: 64 for sizes 3..8, size * size beyond."""
    check_size(size)
    return 64 if size <= 8 else size * size


def make_move_n(P, O, int sq, int size):
    """Play sq for P on a size x size board and return (P', O'), sides swapped; sq = the pass
    code (pass_code(size)) only swaps. Not checked for legality."""
    check_size(size)
    if size <= 8:
        return make_move(P, O, sq)
    if sq == size * size:
        return (O, P)
    f = flipped_discs_n(P, O, sq, size)
    return (O ^ f, P ^ f ^ ((<object>1) << sq))


def game_state_n(P, O, int size):
    """0 if P can move, 1 if P must pass (O can move), 2 if the game is over."""
    if legal_moves_n(P, O, size):
        return 0
    return 1 if legal_moves_n(O, P, size) else 2


def perft_n(P, O, int depth, int size, bint bulk=False, stop=None):
    """perft on a size x size board (3..26), same semantics as perft; runs without the GIL."""
    cdef unsigned char[::1] view
    cdef unsigned char* flag = NULL
    check_size(size)
    if size <= 8:
        return perft(P, O, depth, board_mask(size), bulk, stop)
    check_board(P, size, "P")
    check_board(O, size, "O")
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if stop is not None:
        view = stop
        if view.shape[0] < 1:
            raise ValueError("stop must be a writable buffer of one byte or more, e.g. bytearray(1)")
        flag = &view[0]
    if size <= 11:
        return _perft_w(W2_ZERO, P, O, depth, size, bulk, flag)
    if size <= 16:
        return _perft_w(W4_ZERO, P, O, depth, size, bulk, flag)
    return _perft_w(W11_ZERO, P, O, depth, size, bulk, flag)


def symmetry_n(x, int k, int size):
    """Image of the board x under symmetry k (0..7) of a size x size board (as symmetry)."""
    cdef u64 words[WMAX_WORDS]
    cdef u64 out[WMAX_WORDS]
    cdef int i, sq, nw, t
    cdef u64 m
    if k < 0 or k > 7:
        raise ValueError(f"symmetry {k} is out of range 0..7")
    check_size(size)
    if size <= 8:
        return symmetry(x, k, size)
    check_board(x, size, "x")
    nw = WGEO[size].nw
    words_from_int(x, words, nw)
    for i in range(nw):
        out[i] = 0
    for i in range(nw):
        m = words[i]
        while m:
            sq = (i << 6) + oe_ctz(m)
            m &= m - 1
            t = sym_square(sq, k, size)
            out[t >> 6] |= (<u64>1) << (t & 63)
    return int_from_words(out, nw)


def canonical_n(P, O, int size):
    """The least of the 8 images of (P, O) under the symmetries of a size x size board, ordered
    by P then O, as (P', O', k) with k the smallest symmetry producing it (as canonical)."""
    check_size(size)
    if size <= 8:
        return canonical(P, O, size)
    best = (P, O, 0)
    for k in range(1, 8):
        p = symmetry_n(P, k, size)
        o = symmetry_n(O, k, size)
        if p < best[0] or (p == best[0] and o < best[1]):
            best = (p, o, k)
    return best


def final_disc_difference_n(P, O, int size):
    """Final disc difference for P on a size x size board (empties go to the winner), in discs."""
    check_size(size)
    if size <= 8:
        return final_disc_difference(P, O, board_mask(size))
    p = bin(P).count("1")
    o = bin(O).count("1")
    e = size * size - p - o
    if p > o:
        return p - o + e
    if p < o:
        return p - o - e
    return 0
