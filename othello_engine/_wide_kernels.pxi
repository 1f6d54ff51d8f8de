# Wide boards' C kernels: legal moves, neighbours and stable discs on word arrays of each width.
#
# The widths and their numbering are described at the head of _wide.pxi, which wraps these kernels
# for the fused type wide_t; they are C (GCC/clang vector extensions) so that the words stay in
# registers.

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
    /* The 4-word width (sizes 12..16) as one 4-word vector (GCC/clang vector extensions): a
       shift carries across words by a lane shuffle in registers, as the 11-word width does. */
    typedef unsigned long long oe_v4 __attribute__((vector_size(32)));
    typedef long long oe_s4 __attribute__((vector_size(32)));
    static inline oe_v4 oe_v4_load(const unsigned long long* x) {
        oe_v4 a = {x[0], x[1], x[2], x[3]};
        return a;
    }
    static inline void oe_v4_store(unsigned long long* r, oe_v4 a) {
        r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; r[3] = a[3];
    }
    static inline oe_v4 oe_v4_shl(oe_v4 a, int k) {
        const oe_v4 z = {0, 0, 0, 0};
        oe_v4 c = __builtin_shuffle(a, z, (oe_s4){4, 0, 1, 2});
        return (a << k) | (c >> (64 - k));
    }
    static inline oe_v4 oe_v4_shr(oe_v4 a, int k) {
        const oe_v4 z = {0, 0, 0, 0};
        oe_v4 c = __builtin_shuffle(a, z, (oe_s4){1, 2, 3, 4});
        return (a >> k) | (c << (64 - k));
    }
    static inline int oe_v4_any(oe_v4 a) {
        return (a[0] | a[1] | a[2] | a[3]) != 0;
    }
    static inline oe_v4 oe_v4_axis(oe_v4 p, oe_v4 o, oe_v4 e, int k) {
        oe_v4 u = oe_v4_shl(p, k) & o, d = oe_v4_shr(p, k) & o, m = p ^ p;
        while (oe_v4_any(u | d)) {
            u = oe_v4_shl(u, k);
            d = oe_v4_shr(d, k);
            m |= (u | d) & e;
            u &= o;
            d &= o;
        }
        return m;
    }
    static void oe_wmoves4(const unsigned long long* P, const unsigned long long* O,
                           const unsigned long long* inner, const unsigned long long* full, int n,
                           unsigned long long* m) {
        oe_v4 p = oe_v4_load(P), o = oe_v4_load(O);
        oe_v4 e = oe_v4_load(full) & ~(p | o), oi = o & oe_v4_load(inner);
        oe_v4_store(m, oe_v4_axis(p, oi, e, 1) | oe_v4_axis(p, o, e, n)
                       | oe_v4_axis(p, oi, e, n + 1) | oe_v4_axis(p, oi, e, n - 1));
    }
    static void oe_wneighbours4(const unsigned long long* x, const unsigned long long* nf,
                                const unsigned long long* nl, const unsigned long long* full,
                                int n, unsigned long long* out) {
        oe_v4 a = oe_v4_load(x), l = a & oe_v4_load(nf), r = a & oe_v4_load(nl);
        oe_v4_store(out, (oe_v4_shl(a, n) | oe_v4_shr(a, n) | oe_v4_shl(r, 1) | oe_v4_shr(l, 1)
                          | oe_v4_shl(r, n + 1) | oe_v4_shr(l, n + 1) | oe_v4_shl(l, n - 1)
                          | oe_v4_shr(r, n - 1)) & oe_v4_load(full));
    }
    static void oe_wstable4(const unsigned long long* P, const unsigned long long* nf,
                            const unsigned long long* nl, const unsigned long long* ecol,
                            const unsigned long long* erow, int n, int rounds,
                            unsigned long long* out) {
        oe_v4 p = oe_v4_load(P), f = oe_v4_load(nf), g = oe_v4_load(nl);
        oe_v4 ec = oe_v4_load(ecol), er = oe_v4_load(erow);
        oe_v4 b = ec | er, s = p ^ p, ns, l, r;
        for (int k = 0; k < rounds; k++) {
            l = s & f;
            r = s & g;
            ns = p & (ec | oe_v4_shl(r, 1) | oe_v4_shr(l, 1)) & (er | oe_v4_shl(s, n) | oe_v4_shr(s, n))
                 & (b | oe_v4_shl(r, n + 1) | oe_v4_shr(l, n + 1))
                 & (b | oe_v4_shl(l, n - 1) | oe_v4_shr(r, n - 1));
            if (!oe_v4_any(ns ^ s)) break;
            s = ns;
        }
        oe_v4_store(out, s);
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
    void oe_wmoves4(const u64* P, const u64* O, const u64* inner, const u64* full, int n,
                    u64* m) noexcept nogil
    void oe_wmoves11(const u64* P, const u64* O, const u64* inner, const u64* full, int n,
                     u64* m) noexcept nogil
    void oe_wstable2(const u64* P, const u64* nf, const u64* nl, const u64* ecol, const u64* erow,
                     int n, int rounds, u64* s) noexcept nogil
    void oe_wstable4(const u64* P, const u64* nf, const u64* nl, const u64* ecol, const u64* erow,
                     int n, int rounds, u64* s) noexcept nogil
    void oe_wstable11(const u64* P, const u64* nf, const u64* nl, const u64* ecol, const u64* erow,
                      int n, int rounds, u64* s) noexcept nogil
    void oe_wneighbours2(const u64* x, const u64* nf, const u64* nl, const u64* full, int n,
                         u64* out) noexcept nogil
    void oe_wneighbours4(const u64* x, const u64* nf, const u64* nl, const u64* full, int n,
                         u64* out) noexcept nogil
    void oe_wneighbours11(const u64* x, const u64* nf, const u64* nl, const u64* full, int n,
                          u64* out) noexcept nogil
