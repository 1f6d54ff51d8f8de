# Python-visible: the pattern evaluation of the other sizes (layout 2): layout, weights, features, terms.
#
# Boards and squares are those of the *_n functions (ints of the board's numbering); every size
# 6..26 but 8 has a layout, and a learned evaluation once set_pattern_weights_n gave it weights.

cdef PatternN* pattern_n_checked(int size) except NULL:
    check_size(size)
    if size < 6 or size == 8:
        raise ValueError(f"no layout-2 pattern evaluation for {size}x{size} (sizes 6..26 but 8)")
    return pattern_n_for(size)


def pattern_n_entries(int size):
    """Table entries of one phase of the size x size layout (the scalar terms included)."""
    return pattern_n_checked(size).entries


def pattern_n_scalar_offset(int size):
    """Where the scalar terms' weights start in a phase of the size x size layout."""
    return pattern_n_checked(size).scalar_offset


def pattern_n_layout(int size):
    """The instances of the size x size layout, in evaluation order: (family index, table offset,
    squares in reading order) each; PN_INSTANCES of them, 8 a family (PATTERN_N_FAMILIES)."""
    cdef PatternN* pn = pattern_n_checked(size)
    cdef int i, j
    return [(pn.family[i], pn.offset[i], tuple(pn.sq[i][j] for j in range(pn.length[i])))
            for i in range(PN_INSTANCES)]


PATTERN_N_INSTANCES = PN_INSTANCES


def set_pattern_weights_n(int size, const short[::1] weights):
    """Install the weights of the size x size learned evaluation (PATTERN_N_PHASES phases of
    pattern_n_entries(size) int16, centi-discs) for every search of this process; they are copied.
    Call it while no search runs."""
    cdef PatternN* pn = pattern_n_checked(size)
    cdef Py_ssize_t n = PN_PHASES * pn.entries
    cdef short* fresh
    if weights.shape[0] != n:
        raise ValueError(f"pattern weights of {size}x{size}: {weights.shape[0]} entries, expected {n}")
    fresh = <short*>malloc(n * sizeof(short))
    if fresh == NULL:
        raise MemoryError("cannot allocate the pattern weights")
    memcpy(fresh, &weights[0], n * sizeof(short))
    if pn.w != NULL:
        free(pn.w)               # no search may run now (see the docstring)
    pn.w = fresh


def pattern_weights_loaded_n(int size):
    """True once set_pattern_weights_n has given the size x size board weights."""
    check_size(size)
    return size != 8 and PATTERN_N[size] != NULL and PATTERN_N[size].w != NULL


def pattern_phase_n(int empties, int size):
    """The phase (weight table) of a size x size position with that many empties."""
    return pn_phase(pattern_n_checked(size), empties)


cdef int _pn_features_w(PatternN* pn, wide_t p, object P, object O, int* ix, int* sc) except -1:
    """pn_features_of on a wide board, in the width of p (a typed zero board picks it)."""
    cdef wide_t o = p
    cdef int nw = <int>(sizeof(p.w) // 8)
    cdef const WGeo* g = &WGEO[pn.size]
    words_from_int(P, p.w, nw)
    words_from_int(O, o.w, nw)
    pn_indices(pn, p, o, ix)
    return pn_scalars(pn, g, p, o, w_moves(p, o, g), w_moves(o, p, g), sc)


cdef int pn_features_of(PatternN* pn, object P, object O, int* ix, int* sc) except -1:
    """The instance indices and scalar features of P (to move) against O; returns the empties."""
    cdef u64 p, o
    cdef int n = pn.size
    if n <= 8:
        p = P
        o = O
        pn_indices(pn, p, o, ix)
        return pn_scalars(pn, NULL, p, o, bb_moves(p, o, pn.mask), bb_moves(o, p, pn.mask), sc)
    if n <= 11:
        return _pn_features_w(pn, W2_ZERO, P, O, ix, sc)
    if n <= 16:
        return _pn_features_w(pn, W4_ZERO, P, O, ix, sc)
    return _pn_features_w(pn, W11_ZERO, P, O, ix, sc)


def pattern_features_n(P, O, int size, int[::1] indices, int[::1] scalars):
    """For training: the PATTERN_N_INSTANCES table offsets of each position (P[i] to move against
    O[i], ints of the size x size board) into indices[PATTERN_N_INSTANCES * i:], and its
    PATTERN_N_SCALARS features into scalars[5 * i:]."""
    cdef PatternN* pn = pattern_n_checked(size)
    cdef Py_ssize_t i, n = len(P)
    if len(O) != n or indices.shape[0] < PN_INSTANCES * n or scalars.shape[0] < PN_SCALARS * n:
        raise ValueError("pattern_features_n: buffer sizes do not match")
    for i in range(n):
        pn_features_of(pn, P[i], O[i], &indices[PN_INSTANCES * i], &scalars[PN_SCALARS * i])


def pattern_terms_n(P, O, int size):
    """The size x size learned evaluation of P (to move) by family, with the scalar terms
    (prefixed pattern_) and the 'pattern' total (unclamped), in centi-discs; needs its weights."""
    cdef PatternN* pn = pattern_n_checked(size)
    cdef int ix[PN_INSTANCES]
    cdef int sc[PN_SCALARS]
    cdef const short* w
    cdef int i, empties
    if pn.w == NULL:
        raise RuntimeError(f"no pattern weights are loaded for {size}x{size}")
    check_board(P, size, "P")
    check_board(O, size, "O")
    empties = pn_features_of(pn, P, O, ix, sc)
    w = pn.w + pn_phase(pn, empties) * pn.entries
    out = {name: 0 for name in PATTERN_N_FAMILIES}
    for i in range(PN_INSTANCES):
        out[PATTERN_N_FAMILIES[pn.family[i]]] += w[ix[i]]
    for i in range(PN_SCALARS):
        out["pattern_" + PATTERN_N_SCALARS[i]] = w[pn.scalar_offset + i] * sc[i]
    out["pattern"] = sum(out.values())
    return out
