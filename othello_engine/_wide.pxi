# Wide boards (9x9 .. 26x26): the bitboard kernels on fixed arrays of 64-bit words.
#
# A wide position is two structs of words, P and O, side-relative as on 8x8; square
# row * size + col is bit (sq & 63) of word sq >> 6 (dense, the numbering of the Python API, so a
# board crosses the boundary as the bytes of a Python int).
#
# Three widths: w2 (128 bits, sizes 9..11, up to 121 squares), w4 (256 bits, sizes 12..16, up to
# 256 squares) and w11 (704 bits, sizes 17..26, up to 676 squares). Measured with
# scripts/bench_core.py --size 10 (perft(9) from the 10x10 start, CPU time): the 11-word kernels on
# 10x10 count 21.6 M leaves/s against 25.8 M for the 2-word ones (bulk counting: 56.7 M against
# 54.6 M); the first, all-Cython 11-word kernels made 12x12 perft five times slower than 10x10 on
# the 2-word ones, which is why the small boards got their own width. The 4-word width for 12..16
# (2026-11-24, scripts/bench_search.py --size 12|16 --positions 5 --time 1, CPU time) searches
# 3.3-3.4 M nodes/s against 1.2 M on 11 words, about the 10x10 figure (3.05 M), with the same
# trees. Every kernel is written once over the fused type `wide_t` (and the
# search once over `board_t`, which adds u64 for 8x8); the word count is a compile-time constant
# in each specialization.
#
# Move generation follows the frontier of the opponent runs one square per step per direction until
# it dies out (in a game most runs are a disc or two long; a doubling Kogge-Stone fill paid for
# shifts by 4s, 8s, ... spanning words whatever the runs, and was slower); flips walk the
# eight rays from the square (a move flips a handful of discs, so walking beats a fill). As on
# 8x8, the opponent discs of the first and last columns are left out of the horizontal and
# diagonal fills, so that no run wraps from one row to the next.


cdef enum:
    WMAX_WORDS = 11
    WMAX_SQ = 676            # 26 * 26
    WMAX_MOVES = 680         # per-ply move buffer: no position has more legal moves than empties


cdef inline int wide_words(int n) noexcept nogil:
    """The words of the width an n x n wide board is played on: 2 up to 11x11, 4 up to 16x16, 11."""
    return 2 if n <= 11 else 4 if n <= 16 else 11


# Typed zero boards of each width: passed to a fused function, they pick its width (see
# legal_moves_n: a size chooses the width at run time, the word count is a constant inside).
cdef w2 W2_ZERO
cdef w4 W4_ZERO
cdef w11 W11_ZERO
memset(&W2_ZERO, 0, sizeof(W2_ZERO))
memset(&W4_ZERO, 0, sizeof(W4_ZERO))
memset(&W11_ZERO, 0, sizeof(W11_ZERO))


cdef struct WGeo:
    int n                    # squares a side
    int nsq                  # n * n, also the pass code
    int nw                   # words in use (2, 4 or 11: wide_words)
    int dirs[8]              # bit offsets of the eight directions
    int dr[8]
    int dc[8]
    unsigned char reach[WMAX_SQ][8]   # squares from each square to the edge in each direction
    u64 full[WMAX_WORDS]     # the board's squares
    u64 inner[WMAX_WORDS]    # columns 1 .. n-2 (horizontal and diagonal runs never wrap in them)
    u64 not_first[WMAX_WORDS]  # every column but the first
    u64 not_last[WMAX_WORDS]   # every column but the last
    u64 edge_cols[WMAX_WORDS]  # the first and last columns
    u64 edge_rows[WMAX_WORDS]  # the first and last rows


cdef WGeo WGEO[27]


cdef void wgeo_init(WGeo* g, int n) noexcept:
    cdef int r, c, sq, k, t
    cdef int DR[8]
    cdef int DC[8]
    DR[:] = [0, 1, 1, 1, 0, -1, -1, -1]
    DC[:] = [1, 1, 0, -1, -1, -1, 0, 1]
    g.n = n
    g.nsq = n * n
    g.nw = wide_words(n)
    for k in range(8):
        g.dr[k] = DR[k]
        g.dc[k] = DC[k]
        g.dirs[k] = DR[k] * n + DC[k]
    for r in range(n):
        for c in range(n):
            for k in range(8):
                t = 0
                while 0 <= r + (t + 1) * DR[k] < n and 0 <= c + (t + 1) * DC[k] < n:
                    t += 1
                g.reach[r * n + c][k] = t
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


cdef inline int w_count_in(wide_t* a, const u64* mask) noexcept nogil:
    """Number of squares of a inside mask (a WGeo or WEval mask: no copy of it is made)."""
    cdef int i, n = 0
    for i in range(<int>(sizeof(a.w) // 8)):
        n += oe_popcount(a.w[i] & mask[i])
    return n


cdef inline bint w_any_in(wide_t* a, const u64* mask) noexcept nogil:
    cdef u64 x = 0
    cdef int i
    for i in range(<int>(sizeof(a.w) // 8)):
        x |= a.w[i] & mask[i]
    return x != 0


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
    """x shifted towards the higher squares by k bits, 0 < k < 64 (every shift of a board up to
    26 x 26 along a direction is at most 27 bits: no word is skipped, and the loop is branch-free,
    which lets the compiler vectorize it)."""
    cdef wide_t r
    cdef int i
    cdef int nw = <int>(sizeof(x.w) // 8)
    r.w[0] = x.w[0] << k
    for i in range(1, nw):
        r.w[i] = (x.w[i] << k) | (x.w[i - 1] >> (64 - k))
    return r


cdef inline wide_t w_shr(wide_t x, int k) noexcept nogil:
    """x shifted towards the lower squares by k bits, 0 < k < 64."""
    cdef wide_t r
    cdef int i
    cdef int nw = <int>(sizeof(x.w) // 8)
    for i in range(nw - 1):
        r.w[i] = (x.w[i] >> k) | (x.w[i + 1] << (64 - k))
    r.w[nw - 1] = x.w[nw - 1] >> k
    return r


cdef inline wide_t w_shift(wide_t x, int s) noexcept nogil:
    """x moved by s squares (s > 0 towards higher squares)."""
    if s > 0:
        return w_shl(x, s)
    return w_shr(x, -s)


cdef inline wide_t w_neighbours(wide_t x, const WGeo* g) noexcept nogil:
    """Squares next to a square of x in any of the eight directions (may include occupied ones)."""
    cdef wide_t out
    if wide_t is w2:
        oe_wneighbours2(x.w, g.not_first, g.not_last, g.full, g.n, out.w)
    elif wide_t is w4:
        oe_wneighbours4(x.w, g.not_first, g.not_last, g.full, g.n, out.w)
    else:
        oe_wneighbours11(x.w, g.not_first, g.not_last, g.full, g.n, out.w)
    return out


# --- the rules ---------------------------------------------------------------------------------

cdef inline wide_t w_moves(wide_t P, wide_t O, const WGeo* g) noexcept nogil:
    """Legal moves of P against O on the wide board g (the C kernel oe_wmoves)."""
    cdef wide_t m
    if wide_t is w2:
        oe_wmoves2(P.w, O.w, g.inner, g.full, g.n, m.w)
    elif wide_t is w4:
        oe_wmoves4(P.w, O.w, g.inner, g.full, g.n, m.w)
    else:
        oe_wmoves11(P.w, O.w, g.inner, g.full, g.n, m.w)
    return m


cdef inline wide_t w_flips(wide_t P, wide_t O, int sq, const WGeo* g) noexcept nogil:
    """Discs of O flipped when P plays at sq (an empty square): walks the eight rays, each at
    most as far as the edge (g.reach)."""
    cdef wide_t f = w_zero(P)
    cdef const unsigned char* reach = g.reach[sq]
    cdef int d, i, j, cnt, step, left
    for d in range(8):
        step = g.dirs[d]
        left = reach[d]
        i = sq + step
        cnt = 0
        while cnt < left and w_test(&O, i):
            i += step
            cnt += 1
        if cnt and cnt < left and w_test(&P, i):
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
