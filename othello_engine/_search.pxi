# Evaluation and search. Included by _core.pyx after _bitboard.pxi.
#
# PLACEHOLDER SEARCH (to be replaced by the real one, issue 3): plain alpha-beta with iterative
# deepening and a square-table evaluation, with the final API: stop flag, node and time limits,
# a per-iteration callback, root-move subset and multi-PV.

from libc.time cimport time as c_time
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef int SCORE_INF = 1000000
cdef int MAX_PLY = 80

cdef int SQUARE_VALUE[64]
_sv = [100, -20, 10, 5, 5, 10, -20, 100,
       -20, -50, -2, -2, -2, -2, -50, -20,
       10, -2, -1, -1, -1, -1, -2, 10,
       5, -2, -1, -1, -1, -1, -2, 5,
       5, -2, -1, -1, -1, -1, -2, 5,
       10, -2, -1, -1, -1, -1, -2, 10,
       -20, -50, -2, -2, -2, -2, -50, -20,
       100, -20, 10, 5, 5, 10, -20, 100]
for _i in range(64):
    SQUARE_VALUE[_i] = _sv[_i]


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct SearchState:
    u64 mask
    u64 nodes
    u64 max_nodes
    double start
    double hard_time
    int stop
    int aborted


cdef int final_score(u64 P, u64 O, u64 mask) noexcept nogil:
    """Final disc difference for P in centi-discs, empties going to the winner."""
    cdef int p = oe_popcount(P), o = oe_popcount(O)
    cdef int e = oe_popcount(mask) - p - o
    if p > o:
        return 100 * (p - o + e)
    if p < o:
        return 100 * (p - o - e)
    return 0


cdef int evaluate(u64 P, u64 O, u64 mask) noexcept nogil:
    cdef int s = 0
    cdef u64 x = P
    while x:
        s += SQUARE_VALUE[oe_ctz(x)]
        x &= x - 1
    x = O
    while x:
        s -= SQUARE_VALUE[oe_ctz(x)]
        x &= x - 1
    s += 10 * (oe_popcount(bb_moves(P, O, mask)) - oe_popcount(bb_moves(O, P, mask)))
    return s


cdef int alphabeta(SearchState* st, u64 P, u64 O, int depth, int alpha, int beta) noexcept nogil:
    cdef u64 moves, f
    cdef int sq, v, best
    st.nodes += 1
    if (st.nodes & 1023) == 0:
        if st.stop or (st.max_nodes and st.nodes >= st.max_nodes) or (
                st.hard_time > 0 and now_seconds() - st.start >= st.hard_time):
            st.aborted = 1
    if st.aborted:
        return 0
    moves = bb_moves(P, O, st.mask)
    if moves == 0:
        if bb_moves(O, P, st.mask) == 0:
            return final_score(P, O, st.mask)
        return -alphabeta(st, O, P, depth, -beta, -alpha)
    if depth <= 0:
        return evaluate(P, O, st.mask)
    best = -SCORE_INF
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        f = bb_flips(P, O, sq)
        v = -alphabeta(st, O ^ f, P ^ f ^ ((<u64>1) << sq), depth - 1, -beta, -alpha)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


cdef class Search:
    """Owns the transposition table and the stop flag; runs one search at a time.

    run() releases the GIL while it searches; stop() may be called from any thread.
    """
    cdef SearchState st
    cdef public int hash_mb

    def __init__(self, int hash_mb=16):
        self.hash_mb = hash_mb
        self.st.stop = 0

    def resize(self, int hash_mb):
        """Set the transposition table size in MiB (clears it)."""
        self.hash_mb = hash_mb

    def clear(self):
        """Forget everything learned (a new game)."""
        pass

    def stop(self):
        """Ask the running search to return as soon as it can (thread-safe)."""
        self.st.stop = 1

    def reset_stop(self):
        """Clear the stop flag; call it before starting a search (run() never clears it)."""
        self.st.stop = 0

    def run(self, u64 P, u64 O, u64 mask, int max_depth=60, u64 max_nodes=0,
            double soft_time=0.0, double hard_time=0.0, u64 root_moves=0, int multipv=1,
            object callback=None):
        """Search P (to move) against O.

        Returns (lines, depth, nodes, exact): lines is a list of (move, score, pv tuple) best first,
        at most multipv long; scores are centi-discs from P's view; exact means the scores are
        proven final disc differences (times 100). A pass is move 64. Limits: max_depth in plies,
        max_nodes (0 = none), soft_time (start no new iteration after it, seconds, 0 = none),
        hard_time (abort, seconds, 0 = none). root_moves (bitboard, 0 = all) restricts the root.
        callback(depth, seldepth, exact, nodes, seconds, lines) is called after each iteration.
        """
        cdef u64 moves, f, m
        cdef int depth, sq, v, empties, i
        cdef list lines = [], result = []
        cdef double elapsed
        cdef bint exact = False
        self.st.mask = mask
        self.st.nodes = 0
        self.st.max_nodes = max_nodes
        self.st.start = now_seconds()
        self.st.hard_time = hard_time
        self.st.aborted = 0
        moves = bb_moves(P, O, mask)
        if moves == 0:
            return ([], 0, 0, False)
        if root_moves:
            if moves & root_moves:
                moves &= root_moves
        empties = oe_popcount(mask & ~(P | O))
        if max_depth > empties:
            max_depth = empties
        result = [(oe_ctz(moves), 0, (oe_ctz(moves),))]
        depth = 0
        for depth in range(1, max_depth + 1):
            lines = []
            m = moves
            while m:
                sq = oe_ctz(m)
                m &= m - 1
                f = bb_flips(P, O, sq)
                with nogil:
                    v = -alphabeta(&self.st, O ^ f, P ^ f ^ ((<u64>1) << sq), depth - 1,
                                   -SCORE_INF, SCORE_INF)
                if self.st.aborted:
                    break
                lines.append((sq, v, (sq,)))
            if self.st.aborted:
                depth -= 1
                break
            lines.sort(key=lambda t: -t[1])
            result = lines[:max(multipv, 1)]
            exact = depth >= empties
            elapsed = now_seconds() - self.st.start
            if callback is not None:
                callback(depth, depth, exact, self.st.nodes, elapsed, result)
            if soft_time > 0 and elapsed >= soft_time:
                break
            if self.st.stop:
                break
        return (result, depth, self.st.nodes, exact)
