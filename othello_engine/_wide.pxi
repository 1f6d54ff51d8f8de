# Wide boards (9x9 .. 26x26): the bitboard kernels on fixed arrays of 64-bit words.
#
# Included by _core.pyx after _bitboard.pxi. A wide position is two structs of words, P and O,
# side-relative as on 8x8; square row * size + col is bit (sq & 63) of word sq >> 6 (dense, the
# numbering of the Python API, so a board crosses the boundary as the bytes of a Python int).
#
# Two widths, chosen by measurement (scripts/bench_core.py --size N): w2 (128 bits, sizes 9..11,
# up to 121 squares) and w11 (704 bits, sizes 12..26, up to 676 squares). One width of 11 words
# for every size made 10x10 perft about four times slower than two words do, while a third width
# between them gained too little to pay for its compile time. Every kernel is written once over the
# fused type `wide_t` (and the search once over `board_t`, which adds u64 for 8x8); the word count
# is a compile-time constant in each specialization, so the compiler unrolls the word loops.
#
# Move generation is a Kogge-Stone fill per direction (runs double in length at each step, with
# an early exit as soon as a step adds nothing: on big boards most runs are short); flips walk the
# eight rays from the square (a move flips a handful of discs, so walking beats a fill). As on
# 8x8, the opponent discs of the first and last columns are left out of the horizontal and
# diagonal fills, so that no run wraps from one row to the next.

from libc.string cimport memcpy, memset


cdef enum:
    WMAX_WORDS = 11
    WMAX_SQ = 676            # 26 * 26
    WMAX_MOVES = 680         # per-ply move buffer: no position has more legal moves than empties


cdef struct w2:
    u64 w[2]

cdef struct w11:
    u64 w[11]

ctypedef fused wide_t:
    w2
    w11


cdef struct WGeo:
    int n                    # squares a side
    int nsq                  # n * n, also the pass code
    int nw                   # words in use (2 or 11)
    int dirs[8]              # bit offsets of the eight directions
    int dr[8]
    int dc[8]
    u64 full[WMAX_WORDS]     # the board's squares
    u64 inner[WMAX_WORDS]    # columns 1 .. n-2 (horizontal and diagonal runs never wrap in them)
    u64 not_first[WMAX_WORDS]  # every column but the first
    u64 not_last[WMAX_WORDS]   # every column but the last
    u64 edge_cols[WMAX_WORDS]  # the first and last columns
    u64 edge_rows[WMAX_WORDS]  # the first and last rows


cdef WGeo WGEO[27]


cdef void wgeo_init(WGeo* g, int n) noexcept:
    cdef int r, c, sq, k
    cdef int DR[8]
    cdef int DC[8]
    DR[:] = [0, 1, 1, 1, 0, -1, -1, -1]
    DC[:] = [1, 1, 0, -1, -1, -1, 0, 1]
    g.n = n
    g.nsq = n * n
    g.nw = 2 if n <= 11 else 11
    for k in range(8):
        g.dr[k] = DR[k]
        g.dc[k] = DC[k]
        g.dirs[k] = DR[k] * n + DC[k]
    for k in range(WMAX_WORDS):
        g.full[k] = 0
        g.inner[k] = 0
        g.not_first[k] = 0
        g.not_last[k] = 0
        g.edge_cols[k] = 0
        g.edge_rows[k] = 0
    for r in range(n):
        for c in range(n):
            sq = r * n + c
            g.full[sq >> 6] |= (<u64>1) << (sq & 63)
            if 0 < c < n - 1:
                g.inner[sq >> 6] |= (<u64>1) << (sq & 63)
            if c > 0:
                g.not_first[sq >> 6] |= (<u64>1) << (sq & 63)
            if c < n - 1:
                g.not_last[sq >> 6] |= (<u64>1) << (sq & 63)
            if c == 0 or c == n - 1:
                g.edge_cols[sq >> 6] |= (<u64>1) << (sq & 63)
            if r == 0 or r == n - 1:
                g.edge_rows[sq >> 6] |= (<u64>1) << (sq & 63)


for _n in range(9, 27):
    wgeo_init(&WGEO[_n], _n)


# --- word-array operations (each inlines to a loop the compiler unrolls) -------------------------

cdef inline wide_t w_zero(wide_t x) noexcept nogil:
    """A board of x's width with no square set (x only picks the width)."""
    cdef int i
    for i in range(<int>(sizeof(x.w) // 8)):
        x.w[i] = 0
    return x


cdef inline wide_t w_load(wide_t x, const u64* words) noexcept nogil:
    """A board of x's width from the first words of an array (e.g. a WGeo mask)."""
    cdef int i
    for i in range(<int>(sizeof(x.w) // 8)):
        x.w[i] = words[i]
    return x


cdef inline wide_t w_and(wide_t a, wide_t b) noexcept nogil:
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        a.w[i] &= b.w[i]
    return a


cdef inline wide_t w_or(wide_t a, wide_t b) noexcept nogil:
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        a.w[i] |= b.w[i]
    return a


cdef inline wide_t w_xor(wide_t a, wide_t b) noexcept nogil:
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        a.w[i] ^= b.w[i]
    return a


cdef inline wide_t w_andnot(wide_t a, wide_t b) noexcept nogil:
    """a & ~b."""
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        a.w[i] &= ~b.w[i]
    return a


cdef inline bint w_any(wide_t a) noexcept nogil:
    cdef u64 x = 0
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        x |= a.w[i]
    return x != 0


cdef inline bint w_eq(wide_t a, wide_t b) noexcept nogil:
    cdef u64 x = 0
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        x |= a.w[i] ^ b.w[i]
    return x == 0


cdef inline int w_popcount(wide_t a) noexcept nogil:
    cdef int i, n = 0
    for i in range(<int>(sizeof(a.w) // 8)):
        n += oe_popcount(a.w[i])
    return n


cdef inline bint w_test(wide_t* a, int sq) noexcept nogil:
    return (a.w[sq >> 6] >> (sq & 63)) & 1


cdef inline void w_set(wide_t* a, int sq) noexcept nogil:
    a.w[sq >> 6] |= (<u64>1) << (sq & 63)


cdef inline int w_pop_lsb(wide_t* a) noexcept nogil:
    """Remove the lowest set square of a and return it (a must not be empty)."""
    cdef int i
    cdef u64 x
    for i in range(<int>(sizeof(a.w) // 8)):
        x = a.w[i]
        if x:
            a.w[i] = x & (x - 1)
            return (i << 6) + oe_ctz(x)
    return -1


cdef inline wide_t w_shl(wide_t x, int k) noexcept nogil:
    """x shifted towards the higher squares by k bits (0 < k)."""
    cdef wide_t r
    cdef int i, j, q = k >> 6, b = k & 63
    cdef int nw = <int>(sizeof(x.w) // 8)
    for i in range(nw - 1, -1, -1):
        j = i - q
        if j < 0:
            r.w[i] = 0
        elif b == 0:
            r.w[i] = x.w[j]
        elif j == 0:
            r.w[i] = x.w[0] << b
        else:
            r.w[i] = (x.w[j] << b) | (x.w[j - 1] >> (64 - b))
    return r


cdef inline wide_t w_shr(wide_t x, int k) noexcept nogil:
    """x shifted towards the lower squares by k bits (0 < k)."""
    cdef wide_t r
    cdef int i, j, q = k >> 6, b = k & 63
    cdef int nw = <int>(sizeof(x.w) // 8)
    for i in range(nw):
        j = i + q
        if j >= nw:
            r.w[i] = 0
        elif b == 0:
            r.w[i] = x.w[j]
        elif j == nw - 1:
            r.w[i] = x.w[j] >> b
        else:
            r.w[i] = (x.w[j] >> b) | (x.w[j + 1] << (64 - b))
    return r


cdef inline wide_t w_shift(wide_t x, int s) noexcept nogil:
    """x moved by s squares (s > 0 towards higher squares)."""
    if s > 0:
        return w_shl(x, s)
    return w_shr(x, -s)


cdef inline wide_t w_neighbours(wide_t x, const WGeo* g) noexcept nogil:
    """Squares next to a square of x in any of the eight directions (may include occupied ones)."""
    cdef int n = g.n
    cdef wide_t l = w_and(x, w_load(x, g.not_first)), r = w_and(x, w_load(x, g.not_last))
    cdef wide_t out = w_or(w_shl(x, n), w_shr(x, n))
    out = w_or(out, w_or(w_shl(r, 1), w_shr(l, 1)))
    out = w_or(out, w_or(w_shl(r, n + 1), w_shr(l, n + 1)))
    out = w_or(out, w_or(w_shl(l, n - 1), w_shr(r, n - 1)))
    return w_and(out, w_load(x, g.full))


# --- the rules ---------------------------------------------------------------------------------

cdef inline wide_t w_dir_moves(wide_t P, wide_t O, int s, int maxrun) noexcept nogil:
    """Squares reached from P through a run of O along direction s (empty or not): Kogge-Stone
    fill, doubling the run length at each step; stops once a step adds nothing or the runs
    would exceed maxrun (the longest run the board allows)."""
    cdef wide_t g, pro, add
    cdef int length = 1, step = s
    g = w_and(O, w_shift(P, s))
    if not w_any(g):
        return g
    pro = w_and(O, w_shift(O, s))
    while length < maxrun:
        add = w_andnot(w_and(pro, w_shift(g, step)), g)
        if not w_any(add):
            break
        g = w_or(g, add)
        length *= 2
        if length >= maxrun:
            break
        pro = w_and(pro, w_shift(pro, step))
        step *= 2
    return w_shift(g, s)


cdef inline wide_t w_moves(wide_t P, wide_t O, const WGeo* g) noexcept nogil:
    """Legal moves of P against O on the wide board g."""
    cdef wide_t oi = w_and(O, w_load(O, g.inner))
    cdef wide_t m
    cdef int n = g.n, run = g.n - 2
    m = w_dir_moves(P, oi, 1, run)
    m = w_or(m, w_dir_moves(P, oi, -1, run))
    m = w_or(m, w_dir_moves(P, O, n, run))
    m = w_or(m, w_dir_moves(P, O, -n, run))
    m = w_or(m, w_dir_moves(P, oi, n + 1, run))
    m = w_or(m, w_dir_moves(P, oi, -n - 1, run))
    m = w_or(m, w_dir_moves(P, oi, n - 1, run))
    m = w_or(m, w_dir_moves(P, oi, -n + 1, run))
    return w_and(m, w_andnot(w_load(O, g.full), w_or(P, O)))


cdef inline wide_t w_flips(wide_t P, wide_t O, int sq, const WGeo* g) noexcept nogil:
    """Discs of O flipped when P plays at sq (an empty square): walks the eight rays."""
    cdef wide_t f = w_zero(P)
    cdef int n = g.n, r = sq // n, c = sq - (sq // n) * n
    cdef int d, rr, cc, i, j, cnt, dr, dc, step
    for d in range(8):
        dr = g.dr[d]
        dc = g.dc[d]
        step = g.dirs[d]
        rr = r + dr
        cc = c + dc
        i = sq + step
        cnt = 0
        while 0 <= rr < n and 0 <= cc < n and w_test(&O, i):
            rr += dr
            cc += dc
            i += step
            cnt += 1
        if cnt and 0 <= rr < n and 0 <= cc < n and w_test(&P, i):
            j = sq + step
            while cnt:
                w_set(&f, j)
                j += step
                cnt -= 1
    return f


cdef inline wide_t w_bit(wide_t x, int sq) noexcept nogil:
    """The board of x's width with square sq alone."""
    x = w_zero(x)
    w_set(&x, sq)
    return x


cdef u64 w_perft_rec(wide_t P, wide_t O, const WGeo* g, int depth, bint bulk,
                     unsigned char* stop) noexcept nogil:
    """perft_rec on a wide board (same semantics)."""
    cdef wide_t moves, f
    cdef u64 total
    cdef int sq
    if depth == 0:
        return 1
    moves = w_moves(P, O, g)
    if not w_any(moves):
        if not w_any(w_moves(O, P, g)):
            return 1
        return w_perft_rec(O, P, g, depth - 1, bulk, stop)
    total = 0
    if depth == 1:
        if bulk:
            return w_popcount(moves)
        while w_any(moves):
            sq = w_pop_lsb(&moves)
            total += w_any(w_flips(P, O, sq, g))
        return total
    if oe_stop_requested(stop):
        return 0
    while w_any(moves):
        sq = w_pop_lsb(&moves)
        f = w_flips(P, O, sq, g)
        total += w_perft_rec(w_xor(O, f), w_xor(w_xor(P, f), w_bit(f, sq)), g, depth - 1, bulk, stop)
    return total


# --- the boundary: Python ints <-> word arrays -------------------------------------------------

cdef inline void words_from_int(object x, u64* out, int nw) except *:
    """The low nw words of the non-negative int x."""
    cdef bytes b = (<object>x).to_bytes(nw * 8, "little")
    memcpy(out, <const char*>b, nw * 8)


cdef inline object int_from_words(const u64* words, int nw):
    return int.from_bytes((<const char*>words)[:nw * 8], "little")


cdef inline int check_size(int size) except -1:
    if size < 3 or size > 26:
        raise ValueError(f"board size {size} is out of range 3..26")
    return 0


cdef inline int check_board(object x, int size, str what) except -1:
    if x < 0 or x >> (size * size if size > 8 else 64):
        raise ValueError(f"{what} has squares outside a {size}x{size} board")
    return 0


def legal_moves_n(P, O, int size):
    """Legal moves of P against O on a size x size board (3..26), as an int of the board's bits
    (sizes 3..8: the 8x8 frame, bit row * 8 + col; 9..26: bit row * size + col)."""
    cdef w2 a2, b2
    cdef w11 a11, b11
    check_size(size)
    if size <= 8:
        return bb_moves(P, O, board_mask(size))
    check_board(P, size, "P")
    check_board(O, size, "O")
    if size <= 11:
        words_from_int(P, a2.w, 2)
        words_from_int(O, b2.w, 2)
        a2 = w_moves(a2, b2, &WGEO[size])
        return int_from_words(a2.w, 2)
    words_from_int(P, a11.w, 11)
    words_from_int(O, b11.w, 11)
    a11 = w_moves(a11, b11, &WGEO[size])
    return int_from_words(a11.w, 11)


def flipped_discs_n(P, O, int sq, int size):
    """Discs of O flipped when P plays sq on a size x size board (0 if it flips nothing)."""
    cdef w2 a2, b2
    cdef w11 a11, b11
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
        words_from_int(P, a2.w, 2)
        words_from_int(O, b2.w, 2)
        a2 = w_flips(a2, b2, sq, &WGEO[size])
        return int_from_words(a2.w, 2)
    words_from_int(P, a11.w, 11)
    words_from_int(O, b11.w, 11)
    a11 = w_flips(a11, b11, sq, &WGEO[size])
    return int_from_words(a11.w, 11)


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
    cdef w2 a2, b2
    cdef w11 a11, b11
    cdef u64 n
    cdef unsigned char[::1] view
    cdef unsigned char* flag = NULL
    cdef const WGeo* g
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
    g = &WGEO[size]
    if size <= 11:
        words_from_int(P, a2.w, 2)
        words_from_int(O, b2.w, 2)
        with nogil:
            n = w_perft_rec(a2, b2, g, depth, bulk, flag)
    else:
        words_from_int(P, a11.w, 11)
        words_from_int(O, b11.w, 11)
        with nogil:
            n = w_perft_rec(a11, b11, g, depth, bulk, flag)
    return n


cdef int sym_square(int sq, int k, int n) noexcept nogil:
    """Image of square sq (row * n + col) under symmetry k of an n x n board."""
    cdef int r = sq // n, c = sq % n, t
    if k & 1:
        c = n - 1 - c
    if k & 2:
        r = n - 1 - r
    if k & 4:
        t = r
        r = c
        c = t
    return r * n + c


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
