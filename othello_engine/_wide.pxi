# Wide boards (9x9 .. 26x26): the bitboard kernels on fixed arrays of 64-bit words.
#
# A wide position is two structs of words, P and O, side-relative as on 8x8; square
# row * size + col is bit (sq & 63) of word sq >> 6 (dense, the numbering of the Python API, so a
# board crosses the boundary as the bytes of a Python int).
#
# Two widths: w2 (128 bits, sizes 9..11, up to 121 squares) and w11 (704 bits, sizes 12..26, up to
# 676 squares). Measured with scripts/bench_core.py --size 10 (perft(9) from the 10x10 start, CPU
# time): the 11-word kernels on 10x10 count 21.6 M leaves/s against 25.8 M for the 2-word ones (bulk
# counting: 56.7 M against 54.6 M); the first, all-Cython 11-word kernels made 12x12 perft five
# times slower than 10x10 on the 2-word ones, which is why the small boards got their own width (a
# third width for 12..16 was not tried). Every kernel is written once over the fused type `wide_t` (and the
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


cdef extern from *:
    """
    /* Wide-board kernels on word arrays, in C so that the words stay in registers or L1 instead
       of being copied as structs between Cython's by-value temporaries (which cost the first,
       all-Cython version of the legal-move kernel over half its time on 26x26). Each takes the
       word count nw, a constant in the two callers per width (oe_*2, oe_*11), which the forced
       inlining turns into fully unrolled, vectorized loops. Shifts are by 1..63 bits. */
    #define OE_WMAXW 11
    #define OE_WIDE_INLINE static inline __attribute__((always_inline))
    OE_WIDE_INLINE void oe_wshl(unsigned long long* r, const unsigned long long* x, int k, int nw) {
        for (int i = nw - 1; i > 0; i--) r[i] = (x[i] << k) | (x[i - 1] >> (64 - k));
        r[0] = x[0] << k;
    }
    OE_WIDE_INLINE void oe_wshr(unsigned long long* r, const unsigned long long* x, int k, int nw) {
        for (int i = 0; i < nw - 1; i++) r[i] = (x[i] >> k) | (x[i + 1] << (64 - k));
        r[nw - 1] = x[nw - 1] >> k;
    }
    /* Moves along one axis, both ways at once (two independent chains for the processor to
       overlap): the frontiers of the runs of o (first the o discs next to P) advance one square
       per step; an empty square just past a frontier is a move. */
    OE_WIDE_INLINE void oe_waxis(unsigned long long* m, const unsigned long long* P,
                                 const unsigned long long* o, const unsigned long long* empty,
                                 int k, int nw) {
        unsigned long long gu[OE_WMAXW], gd[OE_WMAXW], tu[OE_WMAXW], td[OE_WMAXW], any = 0;
        oe_wshl(gu, P, k, nw);
        oe_wshr(gd, P, k, nw);
        for (int i = 0; i < nw; i++) { gu[i] &= o[i]; gd[i] &= o[i]; any |= gu[i] | gd[i]; }
        while (any) {
            oe_wshl(tu, gu, k, nw);
            oe_wshr(td, gd, k, nw);
            any = 0;
            for (int i = 0; i < nw; i++) {
                m[i] |= (tu[i] | td[i]) & empty[i];
                gu[i] = tu[i] & o[i];
                gd[i] = td[i] & o[i];
                any |= gu[i] | gd[i];
            }
        }
    }
    OE_WIDE_INLINE void oe_wmoves(const unsigned long long* P, const unsigned long long* O,
                                  const unsigned long long* inner, const unsigned long long* full,
                                  int n, unsigned long long* m, int nw) {
        unsigned long long empty[OE_WMAXW], oi[OE_WMAXW];
        for (int i = 0; i < nw; i++) {
            empty[i] = full[i] & ~(P[i] | O[i]);
            oi[i] = O[i] & inner[i];
            m[i] = 0;
        }
        oe_waxis(m, P, oi, empty, 1, nw);
        oe_waxis(m, P, O, empty, n, nw);
        oe_waxis(m, P, oi, empty, n + 1, nw);
        oe_waxis(m, P, oi, empty, n - 1, nw);
    }
    /* The squares next to x in the eight directions, inside the board. */
    OE_WIDE_INLINE void oe_wneighbours(const unsigned long long* x, const unsigned long long* not_first,
                                       const unsigned long long* not_last,
                                       const unsigned long long* full, int n,
                                       unsigned long long* out, int nw) {
        unsigned long long l[OE_WMAXW], r[OE_WMAXW], t[OE_WMAXW], acc[OE_WMAXW];
        for (int i = 0; i < nw; i++) { l[i] = x[i] & not_first[i]; r[i] = x[i] & not_last[i]; }
        oe_wshl(acc, x, n, nw);
        oe_wshr(t, x, n, nw);   for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshl(t, r, 1, nw);   for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshr(t, l, 1, nw);   for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshl(t, r, n + 1, nw); for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshr(t, l, n + 1, nw); for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshl(t, l, n - 1, nw); for (int i = 0; i < nw; i++) acc[i] |= t[i];
        oe_wshr(t, r, n - 1, nw); for (int i = 0; i < nw; i++) out[i] = (acc[i] | t[i]) & full[i];
    }
    /* A sound subset of P's stable discs: on each axis a neighbour is the edge or a stable disc,
       grown from nothing for at most `rounds` rounds (see _wide_eval.pxi). */
    OE_WIDE_INLINE void oe_wstable(const unsigned long long* P, const unsigned long long* nf,
                                   const unsigned long long* nl, const unsigned long long* ecol,
                                   const unsigned long long* erow, int n, int rounds,
                                   unsigned long long* s, int nw) {
        unsigned long long l[OE_WMAXW], r[OE_WMAXW], t[OE_WMAXW], a[OE_WMAXW], ns[OE_WMAXW];
        for (int i = 0; i < nw; i++) s[i] = 0;
        for (int k = 0; k < rounds; k++) {
            unsigned long long diff = 0;
            for (int i = 0; i < nw; i++) { l[i] = s[i] & nf[i]; r[i] = s[i] & nl[i]; }
            oe_wshl(t, r, 1, nw);     for (int i = 0; i < nw; i++) a[i] = t[i] | ecol[i];
            oe_wshr(t, l, 1, nw);     for (int i = 0; i < nw; i++) ns[i] = P[i] & (a[i] | t[i]);
            oe_wshl(t, s, n, nw);     for (int i = 0; i < nw; i++) a[i] = t[i] | erow[i];
            oe_wshr(t, s, n, nw);     for (int i = 0; i < nw; i++) ns[i] &= a[i] | t[i];
            oe_wshl(t, r, n + 1, nw); for (int i = 0; i < nw; i++) a[i] = t[i] | ecol[i] | erow[i];
            oe_wshr(t, l, n + 1, nw); for (int i = 0; i < nw; i++) ns[i] &= a[i] | t[i];
            oe_wshl(t, l, n - 1, nw); for (int i = 0; i < nw; i++) a[i] = t[i] | ecol[i] | erow[i];
            oe_wshr(t, r, n - 1, nw); for (int i = 0; i < nw; i++) ns[i] &= a[i] | t[i];
            for (int i = 0; i < nw; i++) { diff |= ns[i] ^ s[i]; s[i] = ns[i]; }
            if (!diff) break;
        }
    }


    /* The 2-word width as one 128-bit integer (GCC/clang), for the same reason. */
    typedef unsigned __int128 oe_u128;
    static inline oe_u128 oe_ld2(const unsigned long long* x) {
        return ((oe_u128)x[1] << 64) | x[0];
    }
    static inline void oe_st2(unsigned long long* r, oe_u128 x) {
        r[0] = (unsigned long long)x;
        r[1] = (unsigned long long)(x >> 64);
    }
    static inline oe_u128 oe_axis2(oe_u128 p, oe_u128 o, oe_u128 e, int k) {
        oe_u128 u = (p << k) & o, d = (p >> k) & o, m = 0;
        while (u | d) {
            u <<= k;
            d >>= k;
            m |= (u | d) & e;
            u &= o;
            d &= o;
        }
        return m;
    }
    static void oe_wmoves2(const unsigned long long* P, const unsigned long long* O,
                           const unsigned long long* inner, const unsigned long long* full, int n,
                           unsigned long long* m) {
        oe_u128 p = oe_ld2(P), o = oe_ld2(O);
        oe_u128 e = oe_ld2(full) & ~(p | o), oi = o & oe_ld2(inner);
        oe_st2(m, oe_axis2(p, oi, e, 1) | oe_axis2(p, o, e, n) | oe_axis2(p, oi, e, n + 1)
                  | oe_axis2(p, oi, e, n - 1));
    }
    static void oe_wneighbours2(const unsigned long long* x, const unsigned long long* nf,
                                const unsigned long long* nl, const unsigned long long* full,
                                int n, unsigned long long* out) {
        oe_u128 a = oe_ld2(x), l = a & oe_ld2(nf), r = a & oe_ld2(nl);
        oe_st2(out, ((a << n) | (a >> n) | (r << 1) | (l >> 1) | (r << (n + 1)) | (l >> (n + 1))
                     | (l << (n - 1)) | (r >> (n - 1))) & oe_ld2(full));
    }
    static void oe_wstable2(const unsigned long long* P, const unsigned long long* nf,
                            const unsigned long long* nl, const unsigned long long* ecol,
                            const unsigned long long* erow, int n, int rounds,
                            unsigned long long* out) {
        oe_u128 p = oe_ld2(P), f = oe_ld2(nf), g = oe_ld2(nl), ec = oe_ld2(ecol), er = oe_ld2(erow);
        oe_u128 b = ec | er, s = 0, ns, l, r;
        for (int k = 0; k < rounds; k++) {
            l = s & f;
            r = s & g;
            ns = p & (ec | (r << 1) | (l >> 1)) & (er | (s << n) | (s >> n))
                 & (b | (r << (n + 1)) | (l >> (n + 1))) & (b | (l << (n - 1)) | (r >> (n - 1)));
            if (ns == s) break;
            s = ns;
        }
        oe_st2(out, s);
    }
    /* The 11-word width in two 8-word vectors (GCC/clang vector extensions; words 11..15 stay
       0): a shift moves the carries across words with a lane shuffle in registers, where the
       array loops above reload each word array at a one-word offset right after storing it,
       which the processor can not forward from the stores. */
    typedef unsigned long long oe_v8 __attribute__((vector_size(64)));
    typedef long long oe_s8 __attribute__((vector_size(64)));
    static inline void oe_v8_load(oe_v8* a, oe_v8* b, const unsigned long long* x) {
        oe_v8 lo = {x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]};
        oe_v8 hi = {x[8], x[9], x[10], 0, 0, 0, 0, 0};
        *a = lo;
        *b = hi;
    }
    static inline void oe_v8_shl(oe_v8* ra, oe_v8* rb, oe_v8 a, oe_v8 b, int k) {
        const oe_v8 z = {0, 0, 0, 0, 0, 0, 0, 0};
        oe_v8 ca = __builtin_shuffle(a, z, (oe_s8){8, 0, 1, 2, 3, 4, 5, 6});
        oe_v8 cb = __builtin_shuffle(a, b, (oe_s8){7, 8, 9, 10, 11, 12, 13, 14});
        *ra = (a << k) | (ca >> (64 - k));
        *rb = (b << k) | (cb >> (64 - k));
    }
    static inline void oe_v8_shr(oe_v8* ra, oe_v8* rb, oe_v8 a, oe_v8 b, int k) {
        const oe_v8 z = {0, 0, 0, 0, 0, 0, 0, 0};
        oe_v8 ca = __builtin_shuffle(a, b, (oe_s8){1, 2, 3, 4, 5, 6, 7, 8});
        oe_v8 cb = __builtin_shuffle(b, z, (oe_s8){1, 2, 3, 4, 5, 6, 7, 8});
        *ra = (a >> k) | (ca << (64 - k));
        *rb = (b >> k) | (cb << (64 - k));
    }
    static inline int oe_v8_any(oe_v8 a, oe_v8 b) {
        oe_v8 t = a | b;
        return (t[0] | t[1] | t[2] | t[3] | t[4] | t[5] | t[6] | t[7]) != 0;
    }
    static inline void oe_v8_axis(oe_v8* ma, oe_v8* mb, oe_v8 pa, oe_v8 pb, oe_v8 oa, oe_v8 ob,
                                  oe_v8 ea, oe_v8 eb, int k) {
        oe_v8 ua, ub, da, db, ta, tb;
        oe_v8_shl(&ua, &ub, pa, pb, k);
        oe_v8_shr(&da, &db, pa, pb, k);
        ua &= oa; ub &= ob; da &= oa; db &= ob;
        while (oe_v8_any(ua | da, ub | db)) {
            oe_v8_shl(&ua, &ub, ua, ub, k);
            oe_v8_shr(&da, &db, da, db, k);
            *ma |= (ua | da) & ea;
            *mb |= (ub | db) & eb;
            ua &= oa; ub &= ob; da &= oa; db &= ob;
        }
    }
    static void oe_wmoves11(const unsigned long long* P, const unsigned long long* O,
                            const unsigned long long* inner, const unsigned long long* full, int n,
                            unsigned long long* m) {
        oe_v8 pa, pb, oa, ob, ia, ib, fa, fb, ea, eb, oia, oib;
        oe_v8 ma = {0, 0, 0, 0, 0, 0, 0, 0}, mb = ma;
        oe_v8_load(&pa, &pb, P);
        oe_v8_load(&oa, &ob, O);
        oe_v8_load(&ia, &ib, inner);
        oe_v8_load(&fa, &fb, full);
        ea = fa & ~(pa | oa);
        eb = fb & ~(pb | ob);
        oia = oa & ia;
        oib = ob & ib;
        oe_v8_axis(&ma, &mb, pa, pb, oia, oib, ea, eb, 1);
        oe_v8_axis(&ma, &mb, pa, pb, oa, ob, ea, eb, n);
        oe_v8_axis(&ma, &mb, pa, pb, oia, oib, ea, eb, n + 1);
        oe_v8_axis(&ma, &mb, pa, pb, oia, oib, ea, eb, n - 1);
        for (int i = 0; i < 8; i++) m[i] = ma[i];
        for (int i = 0; i < 3; i++) m[8 + i] = mb[i];
    }
    static void oe_wneighbours11(const unsigned long long* x, const unsigned long long* nf,
                                 const unsigned long long* nl, const unsigned long long* full,
                                 int n, unsigned long long* out) {
        oe_v8 xa, xb, la, lb, ra, rb, aa, ab, ta, tb, fa, fb, ma, mb;
        oe_v8_load(&xa, &xb, x);
        oe_v8_load(&fa, &fb, nf);
        la = xa & fa; lb = xb & fb;
        oe_v8_load(&fa, &fb, nl);
        ra = xa & fa; rb = xb & fb;
        oe_v8_shl(&aa, &ab, xa, xb, n);
        oe_v8_shr(&ta, &tb, xa, xb, n);     aa |= ta; ab |= tb;
        oe_v8_shl(&ta, &tb, ra, rb, 1);     aa |= ta; ab |= tb;
        oe_v8_shr(&ta, &tb, la, lb, 1);     aa |= ta; ab |= tb;
        oe_v8_shl(&ta, &tb, ra, rb, n + 1); aa |= ta; ab |= tb;
        oe_v8_shr(&ta, &tb, la, lb, n + 1); aa |= ta; ab |= tb;
        oe_v8_shl(&ta, &tb, la, lb, n - 1); aa |= ta; ab |= tb;
        oe_v8_shr(&ta, &tb, ra, rb, n - 1); aa |= ta; ab |= tb;
        oe_v8_load(&ma, &mb, full);
        aa &= ma; ab &= mb;
        for (int i = 0; i < 8; i++) out[i] = aa[i];
        for (int i = 0; i < 3; i++) out[8 + i] = ab[i];
    }
    static void oe_wstable11(const unsigned long long* P, const unsigned long long* nf,
                             const unsigned long long* nl, const unsigned long long* ecol,
                             const unsigned long long* erow, int n, int rounds,
                             unsigned long long* out) {
        oe_v8 pa, pb, nfa, nfb, nla, nlb, eca, ecb, era, erb, ba, bb, sa, sb;
        oe_v8 la, lb, ra, rb, ta, tb, ua, ub, na, nb;
        oe_v8_load(&pa, &pb, P);
        oe_v8_load(&nfa, &nfb, nf);
        oe_v8_load(&nla, &nlb, nl);
        oe_v8_load(&eca, &ecb, ecol);
        oe_v8_load(&era, &erb, erow);
        ba = eca | era; bb = ecb | erb;
        sa = pa ^ pa; sb = sa;
        for (int k = 0; k < rounds; k++) {
            la = sa & nfa; lb = sb & nfb; ra = sa & nla; rb = sb & nlb;
            oe_v8_shl(&ta, &tb, ra, rb, 1);     ua = ta | eca; ub = tb | ecb;
            oe_v8_shr(&ta, &tb, la, lb, 1);     na = pa & (ua | ta); nb = pb & (ub | tb);
            oe_v8_shl(&ta, &tb, sa, sb, n);     ua = ta | era; ub = tb | erb;
            oe_v8_shr(&ta, &tb, sa, sb, n);     na &= ua | ta; nb &= ub | tb;
            oe_v8_shl(&ta, &tb, ra, rb, n + 1); ua = ta | ba; ub = tb | bb;
            oe_v8_shr(&ta, &tb, la, lb, n + 1); na &= ua | ta; nb &= ub | tb;
            oe_v8_shl(&ta, &tb, la, lb, n - 1); ua = ta | ba; ub = tb | bb;
            oe_v8_shr(&ta, &tb, ra, rb, n - 1); na &= ua | ta; nb &= ub | tb;
            int same = !oe_v8_any(na ^ sa, nb ^ sb);
            sa = na; sb = nb;
            if (same) break;
        }
        for (int i = 0; i < 8; i++) out[i] = sa[i];
        for (int i = 0; i < 3; i++) out[8 + i] = sb[i];
    }


    """
    void oe_wmoves2(const u64* P, const u64* O, const u64* inner, const u64* full, int n,
                    u64* m) noexcept nogil
    void oe_wmoves11(const u64* P, const u64* O, const u64* inner, const u64* full, int n,
                     u64* m) noexcept nogil
    void oe_wstable2(const u64* P, const u64* nf, const u64* nl, const u64* ecol, const u64* erow,
                     int n, int rounds, u64* s) noexcept nogil
    void oe_wstable11(const u64* P, const u64* nf, const u64* nl, const u64* ecol, const u64* erow,
                      int n, int rounds, u64* s) noexcept nogil
    void oe_wneighbours2(const u64* x, const u64* nf, const u64* nl, const u64* full, int n,
                         u64* out) noexcept nogil
    void oe_wneighbours11(const u64* x, const u64* nf, const u64* nl, const u64* full, int n,
                          u64* out) noexcept nogil


cdef struct WGeo:
    int n                    # squares a side
    int nsq                  # n * n, also the pass code
    int nw                   # words in use (2 or 11)
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
    g.nw = 2 if n <= 11 else 11
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
    else:
        oe_wneighbours11(x.w, g.not_first, g.not_last, g.full, g.n, out.w)
    return out


# --- the rules ---------------------------------------------------------------------------------

cdef inline wide_t w_moves(wide_t P, wide_t O, const WGeo* g) noexcept nogil:
    """Legal moves of P against O on the wide board g (the C kernel oe_wmoves)."""
    cdef wide_t m
    if wide_t is w2:
        oe_wmoves2(P.w, O.w, g.inner, g.full, g.n, m.w)
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
