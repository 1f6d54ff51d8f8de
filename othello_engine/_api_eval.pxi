# Python-visible evaluation: classic terms, pattern weights, features and terms, kernel timings.
#
# The classic terms on 8x8 and wide boards; the timing of the wide kernels is for benchmarks.

def evaluation_terms(u64 P, u64 O, u64 mask=0xFFFFFFFFFFFFFFFFULL, bint pattern=False):
    """Static evaluation of P (to move) feature by feature, in centi-discs, plus its 'total'
    (the sum, clamped to +-6300). A finished game scores its final disc difference instead.
    With pattern (and the pattern evaluation applying: 8x8, weights loaded) the named features
    are followed by 'classic' (their clamped sum), the pattern families and scalar terms, and
    'pattern', and 'total' is the pattern evaluation (clamped)."""
    cdef EvalCtx ctx
    cdef int terms[N_FEATURES]
    cdef int total, k
    cdef u64 mP = bb_moves(P, O, mask), mO = bb_moves(O, P, mask)
    eval_ctx_init(&ctx, mask)
    total = evaluate_terms(&ctx, P, O, mP, mO, terms)
    out = {FEATURE_NAMES[k]: terms[k] for k in range(N_FEATURES)}
    if (mP | mO) == 0:
        out = {name: 0 for name in FEATURE_NAMES}
        total = final_score(P, O, mask)
    if pattern and mask == FULL_MASK_C and oe_pw != NULL and (mP | mO):
        out["classic"] = total
        out.update(pattern_terms(P, O))
        total = max(-6300, min(6300, out["pattern"]))
    out["total"] = total
    return out


def evaluate_position(u64 P, u64 O, u64 mask=FULL_MASK):
    """Static evaluation of the position for P, in centi-discs (see evaluation_terms)."""
    return evaluation_terms(P, O, mask)["total"]


PATTERN_FAMILIES = (
    ("edge2x", 10, 4), ("corner2x5", 10, 8), ("corner3x3", 9, 4), ("row2", 8, 4), ("row3", 8, 4),
    ("row4", 8, 4), ("diag8", 8, 2), ("diag7", 7, 4), ("diag6", 6, 4), ("diag5", 5, 4), ("diag4", 4, 4),
)
"""(name, squares, instances) of each family, in table order."""
PATTERN_SCALARS = ("mobility", "potential_mobility", "parity", "bias")


def set_pattern_weights(const short[::1] weights):
    """Install the pattern weights (PATTERN_PHASES tables of PATTERN_ENTRIES int16, centi-discs)
    for every search of this process; they are copied. Call it while no search runs."""
    global _pattern_weights
    cdef Py_ssize_t n = OE_PATTERN_PHASES * OE_PATTERN_ENTRIES
    cdef short* fresh
    if weights.shape[0] != n:
        raise ValueError(f"pattern weights: {weights.shape[0]} entries, expected {n}")
    fresh = <short*>malloc(n * sizeof(short))
    if fresh == NULL:
        raise MemoryError("cannot allocate the pattern weights")
    memcpy(fresh, &weights[0], n * sizeof(short))
    oe_pattern_set(fresh)
    if _pattern_weights != NULL:
        free(_pattern_weights)   # no search may run now (see the docstring)
    _pattern_weights = fresh


def pattern_weights_loaded():
    """True once set_pattern_weights has installed a weight set."""
    return _pattern_weights != NULL


PATTERN_PHASES = OE_PATTERN_PHASES
PATTERN_INSTANCES = PATTERN_INSTANCES_C
PATTERN_LAYOUT = PATTERN_LAYOUT_C
PATTERN_ENTRIES = OE_PATTERN_ENTRIES
PATTERN_SCALAR_OFFSET = OE_OFF_SCALAR


def pattern_phase(int empties):
    """The weight table (phase) a position with that many empties uses."""
    return oe_pattern_phase(empties)


def pattern_features(const unsigned long long[::1] P, const unsigned long long[::1] O,
                     int[::1] indices, int[::1] scalars):
    """For training: the PATTERN_INSTANCES table offsets of each position (P[i] to move against
    O[i]) into indices[PATTERN_INSTANCES * i:], and its 4 scalar features into scalars[4 * i:].
    Runs without the GIL."""
    cdef Py_ssize_t i, n = P.shape[0]
    cdef u64 p, o, mp, mo
    if O.shape[0] != n or indices.shape[0] < PATTERN_INSTANCES_C * n or scalars.shape[0] < 4 * n:
        raise ValueError("pattern_features: buffer sizes do not match")
    with nogil:
        for i in range(n):
            p = P[i]
            o = O[i]
            mp = bb_moves(p, o, FULL_MASK_C)
            mo = bb_moves(o, p, FULL_MASK_C)
            oe_pattern_indices(p, o, &indices[PATTERN_INSTANCES_C * i])
            pattern_scalars(p, o, mp, mo, 64 - oe_popcount(p | o), &scalars[4 * i])


def stable_counts(const unsigned long long[::1] P, const unsigned long long[::1] O, int[::1] counts):
    """For training probes: the number of stable discs of each P[i] against O[i] (8x8) into
    counts[i], as the solver's stability cut-off counts them (full lines, walls and stable
    neighbours on all four axes; 0 while every corner is empty). Runs without the GIL."""
    cdef Py_ssize_t i, n = P.shape[0]
    cdef EvalCtx ctx
    if O.shape[0] != n or counts.shape[0] < n:
        raise ValueError("stable_counts: buffer sizes do not match")
    eval_ctx_init(&ctx, FULL_MASK_C)
    with nogil:
        for i in range(n):
            counts[i] = count_stable(&ctx, P[i], O[i])


PATTERN_PEXT = bool(OE_PEXT)
"""Whether this build gathers the pattern squares with BMI2 (pext) instead of reading the board's
eight images (the definition, which stays the fallback)."""

_PEXT_TABLES_AGREE = bool(_pext_tables_agree)
"""Tests: the literal instance tables of the BMI2 path agree with the ones derived from the
definition (always True in a build without pext)."""


PATTERN_SIMD = bool(OE_SIMD and _simd_ready)
"""Whether the search computes the pattern indices with AVX-512 (a build for a CPU with VBMI and
VNNI; otherwise pext, or the board's images)."""


def _pattern_indices_both(u64 P, u64 O):
    """Tests: the 46 table offsets of P to move as the search computes them, and as the
    definition (the board's images) gives them."""
    cdef int a[PATTERN_INSTANCES_C]
    cdef int b[PATTERN_INSTANCES_C]
    oe_pattern_indices(P, O, a)
    oe_pattern_indices_images(P, O, b)
    return [a[i] for i in range(PATTERN_INSTANCES_C)], [b[i] for i in range(PATTERN_INSTANCES_C)]


def _pattern_indices_simd(u64 P, u64 O):
    """Tests: the 46 table offsets of P to move by the AVX-512 path (the pext path's in a build
    without it)."""
    cdef int a[PATTERN_INSTANCES_C]
    oe_pattern_indices_simd(P, O, a)
    return [a[i] for i in range(PATTERN_INSTANCES_C)]


def _pattern_sum(u64 P, u64 O, int phase, bint simd=True):
    """Tests: the sum of the 46 instances' weights of the loaded weights' phase, by the path the
    search uses (simd) or by pext."""
    if oe_pw == NULL:
        raise RuntimeError("no pattern weights are loaded")
    if not 0 <= phase < OE_PATTERN_PHASES:
        raise ValueError("no such phase")
    cdef const short* w = oe_pw + phase * OE_PATTERN_ENTRIES
    return oe_pattern_sum_fast(P, O, w) if simd else oe_pattern_sum(P, O, w)


def pattern_terms(u64 P, u64 O):
    """The pattern evaluation of P (to move) by family, with the scalar terms and the 'pattern'
    total (unclamped), in centi-discs; needs the weights (set_pattern_weights)."""
    cdef int ix[PATTERN_INSTANCES_C]
    cdef int sc[4]
    cdef int empties = 64 - oe_popcount(P | O)
    cdef const short* w
    cdef int i, f, k = 0
    if oe_pw == NULL:
        raise RuntimeError("no pattern weights are loaded")
    w = oe_pw + oe_pattern_phase(empties) * OE_PATTERN_ENTRIES
    oe_pattern_indices(P, O, ix)
    out = {}
    for name, _, count in PATTERN_FAMILIES:
        s = 0
        for i in range(count):
            s += w[ix[k]]
            k += 1
        out[name] = s
    pattern_scalars(P, O, bb_moves(P, O, FULL_MASK_C), bb_moves(O, P, FULL_MASK_C), empties, sc)
    for i in range(4):
        out["pattern_" + PATTERN_SCALARS[i]] = w[OE_OFF_SCALAR + i] * sc[i]
    out["pattern"] = sum(out.values())
    return out


cdef object w_final_centi(int p, int o, int squares):
    cdef int e = squares - p - o
    if p > o:
        return 100 * (p - o + e)
    if p < o:
        return 100 * (p - o - e)
    return 0


cdef int _terms_w(wide_t p, P, O, int size, int* terms, bint* over) except? -9999:
    """The classic evaluation's terms on the width of p (a typed zero board picks it)."""
    cdef wide_t o = p, mp, mo
    cdef int nw = <int>(sizeof(p.w) // 8)
    cdef const WGeo* g = &WGEO[size]
    words_from_int(P, p.w, nw)
    words_from_int(O, o.w, nw)
    mp = w_moves(p, o, g)
    mo = w_moves(o, p, g)
    over[0] = not w_any(w_or(mp, mo))
    return w_evaluate_terms(weval_for(size), g, p, o, mp, mo, terms)


def evaluation_terms_n(P, O, int size, bint pattern=False):
    """evaluation_terms on a size x size board (3..26): the named classic features, centi-discs,
    and their 'total' (clamped to +-6300; a finished game scores its final disc difference).
    With pattern and a learned evaluation for the size (8x8's, or one set by
    set_pattern_weights_n) the features are followed by 'classic', its terms and 'pattern' as in
    evaluation_terms, and 'total' is the learned evaluation."""
    check_size(size)
    if size == 8 or not pattern or not pattern_weights_loaded_n(size):
        return _classic_terms_n(P, O, size, pattern)
    out = _classic_terms_n(P, O, size, False)
    if legal_moves_n(P, O, size) or legal_moves_n(O, P, size):
        out["classic"] = out.pop("total")
        out.update(pattern_terms_n(P, O, size))
        out["total"] = max(-6300, min(6300, out["pattern"]))
    return out


cdef object _classic_terms_n(object P, object O, int size, bint pattern):
    """The classic terms of evaluation_terms_n (pattern: 8x8's pattern terms too)."""
    cdef int terms[N_FEATURES]
    cdef int total, k
    cdef bint over = False
    if size <= 8:
        return evaluation_terms(P, O, board_mask(size), pattern)
    check_board(P, size, "P")
    check_board(O, size, "O")
    if size <= 11:
        total = _terms_w(W2_ZERO, P, O, size, terms, &over)
    elif size <= 16:
        total = _terms_w(W4_ZERO, P, O, size, terms, &over)
    else:
        total = _terms_w(W11_ZERO, P, O, size, terms, &over)
    out = {FEATURE_NAMES[k]: terms[k] for k in range(N_FEATURES)}
    if over:
        out = {name: 0 for name in FEATURE_NAMES}
        total = w_final_centi(bin(P).count("1"), bin(O).count("1"), size * size)
    out["total"] = total
    return out


def evaluate_position_n(P, O, int size):
    """Static evaluation of P on a size x size board, centi-discs (see evaluation_terms_n)."""
    return evaluation_terms_n(P, O, size)["total"]


cdef double w_kernel_seconds(wide_t P, wide_t O, const WGeo* g, WEval* c, int which,
                             int reps) noexcept nogil:
    """Time of reps calls of one kernel (0 moves, 1 flips of every move, 2 evaluation)."""
    cdef double t0 = now_seconds()
    cdef wide_t acc = w_zero(P), m, mm
    cdef int i, sq, x = 0
    m = w_moves(P, O, g)
    mm = w_moves(O, P, g)
    for i in range(reps):
        if which == 0:
            acc = w_xor(acc, w_moves(P, O, g))
            P.w[0] ^= acc.w[0] & 1          # a dependence, so the calls are not merged
        elif which == 1:
            m = w_moves(P, O, g)
            while w_any(m):
                sq = w_pop_lsb(&m)
                acc = w_xor(acc, w_flips(P, O, sq, g))
        else:
            x += w_evaluate_terms(c, g, P, O, m, mm, NULL)
            P.w[0] ^= x & 1
    if acc.w[0] == 12345 and x == 12345:
        return -1
    return now_seconds() - t0


cdef double _kernel_w(wide_t p, P, O, int size, int which, int reps) except? -2:
    """_kernel_seconds on the width of p."""
    cdef wide_t o = p
    cdef int nw = <int>(sizeof(p.w) // 8)
    cdef WEval* c = weval_for(size)
    cdef double t
    words_from_int(P, p.w, nw)
    words_from_int(O, o.w, nw)
    with nogil:
        t = w_kernel_seconds(p, o, &WGEO[size], c, which, reps)
    return t


def _kernel_seconds(P, O, int size, int which, int reps):
    """Benchmarks: seconds for reps calls of a wide kernel (0 legal moves, 1 legal moves plus the
    flips of each, 2 the classic evaluation) on the position (P, O) of a size x size board."""
    check_size(size)
    if size <= 8:
        raise ValueError("wide boards only")
    if size <= 11:
        return _kernel_w(W2_ZERO, P, O, size, which, reps)
    if size <= 16:
        return _kernel_w(W4_ZERO, P, O, size, which, reps)
    return _kernel_w(W11_ZERO, P, O, size, which, reps)


cdef object _stable_w(wide_t p, P, O, int size):
    """_stable_discs_n on the width of p."""
    cdef wide_t o = p
    cdef int nw = <int>(sizeof(p.w) // 8)
    words_from_int(P, p.w, nw)
    words_from_int(O, o.w, nw)
    if w_count_stable(weval_for(size), &WGEO[size], p, o) == 0:
        return 0
    p = w_stable(p, &WGEO[size])
    return int_from_words(p.w, nw)


def _stable_discs_n(P, O, int size):
    """Tests: the discs of P the wide evaluation counts as stable (an int of the board's bits;
    sizes 9..26)."""
    check_size(size)
    if size <= 8:
        raise ValueError("wide boards only")
    check_board(P, size, "P")
    check_board(O, size, "O")
    if size <= 11:
        return _stable_w(W2_ZERO, P, O, size)
    if size <= 16:
        return _stable_w(W4_ZERO, P, O, size)
    return _stable_w(W11_ZERO, P, O, size)
