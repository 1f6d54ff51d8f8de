# Python-visible search: the Search class, its iterative-deepening run, the solve-time model.
#
# Search owns the table, the stop flag and the threads. Its run deepens iteratively with
# aspiration windows and multi-PV at the root and hands over to the endgame solver near the end;
# the solve-time model decides when.

cdef void search_iterate(Search self, board_t P, board_t O, int depth, int alpha, int beta,
                         bint eg) except *:
    """One root iteration of the main thread, with the helper threads searching alongside (any
    board width: each helper gets the root in its width, see helper_main)."""
    cdef SearchState* st = &self.st
    cdef SearchState* h
    cdef HelperJob* job
    cdef int k, n = self.threads - 1
    if n == 0 or (not eg and depth < HELP_MIN_DEPTH):
        with nogil:
            root_iteration(st, P, O, depth, alpha, beta, eg)
        return
    oe_store_int(&self.helper_stop, 0)
    if oe_load_int(&self.user_stop):
        oe_store_int(&self.helper_stop, 1)
    for k in range(n):
        h = &self.helpers[k]
        h.aborted = 0
        h.check_at = h.nodes
        h.multipv = st.multipv
        h.selective = st.selective
        h.nroot = st.nroot
        memcpy(h.root, st.root, st.nroot * sizeof(RootMove))
        job = &self.jobs[k]
        job.h = h
        memcpy(job.P.w, &P, sizeof(P))
        memcpy(job.O.w, &O, sizeof(O))
        job.depth, job.alpha, job.beta, job.eg = depth, alpha, beta, eg
    with nogil:
        for k in range(n):
            # a helper that can not be started leaves its share to the others
            self.jobs[k].started = pthread_create(&self.jobs[k].tid, NULL, helper_main,
                                                  &self.jobs[k]) == 0
        root_iteration(st, P, O, depth, alpha, beta, eg)
        oe_store_int(&self.helper_stop, 1)
        for k in range(n):
            if self.jobs[k].started:
                pthread_join(self.jobs[k].tid, NULL)
    if st.max_nodes and self._nodes() >= st.max_nodes:
        st.aborted = 1       # the helpers used up the node budget


cdef object search_run(Search self, board_t P, board_t O, board_t root_moves, int max_depth,
                       u64 max_nodes, double soft_time, double hard_time, int multipv,
                       object callback, int contempt, int solve, int solve_lead, bint selective,
                       double solve_time):
    """The body of Search.run and Search.run_n, once for every board width (the state is set up
    for the board by the caller; solve_time: the expected time of an exact solve from here)."""
    cdef board_t moves, m
    cdef int depth, empties, i, delta, alpha, beta, guess, guess2, done_depth, lead
    cdef int eg_alpha, eg_beta, last_best = -1, stable = 0, steps = 0
    cdef double soft_now
    cdef bint exact = False, eg_done = False, aborted = False
    cdef double elapsed
    cdef SearchState* st = &self.st
    st.nodes = 0
    st.max_nodes = max_nodes
    st.check_at = POLL_NODES if (max_nodes == 0 or max_nodes > POLL_NODES) else max_nodes
    st.hard_time = hard_time
    st.aborted = 0
    st.seldepth = 0
    st.contempt = contempt
    st.selective = 0
    self.table.age = (self.table.age + 1) & 255
    moves = b_moves(st, P, O)
    if not b_any(moves):
        return ([], 0, 0, False)
    if b_any(b_and(moves, root_moves)):
        moves = b_and(moves, root_moves)
    st.nroot = 0
    m = moves
    while b_any(m):
        i = b_pop(&m)
        st.root[st.nroot].move = i
        st.root[st.nroot].flag = FLAG_NONE
        st.root[st.nroot].score = 0
        st.root[st.nroot].pv_len = 1
        st.root[st.nroot].pv[0] = i
        st.nroot += 1
    order_root(st, P, O)
    st.multipv = max(1, min(multipv, st.nroot, 64))
    self._start_helpers()
    empties = b_empties(st, P, O)
    if solve_lead < 0:
        lead = 10 if solve != SOLVE_AUTO else 8
    else:
        lead = solve_lead
    result = [(st.root[0].move, 0, (st.root[0].move,))]
    done_depth = 0
    guess = guess2 = 0              # the scores of the last two iterations
    depth = 0
    if board_t is not u64 and empties > WIDE_SOLVE_MAX:
        # the solver's plies are bounded by MAX_PLY (a pass is a ply too): beyond this many
        # empties a wide board is searched by midgame iterations only, whatever `solve` asks
        # (no such solve could finish anyway)
        solve = SOLVE_AUTO
        max_depth = min(max_depth, WIDE_SOLVE_MAX)
    while True:
        depth = done_depth + 1
        if solve != SOLVE_AUTO:
            eg_turn = depth + lead > empties or depth > SOLVE_PREP_DEPTH
        elif max_depth >= empties:
            eg_turn = depth + lead > empties
            if hard_time > 0:
                # hand over early when the solve should fit in the time left, never when not (the
                # estimate is near the worst case, so 80% of what is left is margin enough)
                fits = solve_time <= 0.8 * (hard_time - (now_seconds() - st.start))
                eg_turn = fits and (eg_turn or depth > 8)
        else:
            eg_turn = False
        if eg_turn:
            st.selective = 0
            # exact (or win/loss/draw) solve, aspiration around the midgame estimate
            if solve == SOLVE_WLD:
                eg_alpha, eg_beta = -1, 1
            else:
                g = int(round(guess / 100.0))
                eg_alpha, eg_beta = g - EG_ROOT_WINDOW, g + EG_ROOT_WINDOW
                if st.multipv > 1 or EG_ROOT_WINDOW == 0:
                    eg_alpha, eg_beta = -EG_INF, EG_INF
            steps = 0
            while True:
                self.depth_now = empties
                search_iterate(self, P, O, empties, eg_alpha, eg_beta, True)
                if st.aborted:
                    break
                v = st.root[0].score
                if solve == SOLVE_WLD:
                    break
                # a failed window's score is a bound: the next window tests that one score
                # (the only whole score inside (v - 1, v + 1) is v), up to EG_STEPS
                # times, then opens on that side
                steps += 1
                if v <= eg_alpha:
                    eg_alpha, eg_beta = (v - 1 if steps <= EG_STEPS else -EG_INF), v + 1
                elif v >= eg_beta:
                    eg_alpha, eg_beta = v - 1, (v + 1 if steps <= EG_STEPS else EG_INF)
                else:
                    break
            if st.aborted:
                aborted = True
                break
            eg_done = True
            exact = solve != SOLVE_WLD
            done_depth = empties
            result = self._lines(st.multipv, True, solve == SOLVE_WLD, True)
            if callback is not None:
                callback(done_depth, st.seldepth, exact, self._nodes(),
                         now_seconds() - st.start, result)
            break
        if depth > max_depth:
            break
        # forward pruning only where it can not spoil a proven score
        # (and not before a requested solve, whose ordering and first guess it would blur)
        st.selective = 1 if (selective and depth < empties and solve == SOLVE_AUTO) else 0
        if st.multipv > 1 or depth < 4:
            alpha, beta = -SCORE_INF, SCORE_INF
            delta = 0
        else:
            delta = 60
            # (iterations go one depth at a time, so guess2 is the score of depth - 2)
            g = guess2 if ASP_PARITY else guess
            alpha, beta = g - delta, g + delta
        while True:
            self.depth_now = depth
            search_iterate(self, P, O, depth, alpha, beta, False)
            if st.aborted:
                break
            v = st.root[0].score
            if (v <= alpha and alpha > -SCORE_INF or v >= beta and beta < SCORE_INF) and (
                    v >= EVAL_CAP or v <= -EVAL_CAP):
                # beyond the evaluation's cap only a proven score can stand, and windows up
                # there prune (see mid_search): search once with no window at all, or the
                # window could bounce between the cap and a proven wipeout for ever
                alpha, beta = -SCORE_INF, SCORE_INF
                continue
            if v <= alpha and alpha > -SCORE_INF:
                delta *= 2
                if self.threads == 1:
                    alpha, beta = max(-SCORE_INF, v - delta), v + 1
                else:
                    # results mixed from several depths can swing: only ever widen
                    alpha = max(-SCORE_INF, v - delta)
            elif v >= beta and beta < SCORE_INF:
                delta *= 2
                if self.threads == 1:
                    alpha, beta = v - 1, min(SCORE_INF, v + delta)
                else:
                    beta = min(SCORE_INF, v + delta)
            else:
                break
        if st.aborted:
            aborted = True
            # a move that beat the old best in the unfinished iteration is worth taking
            if st.multipv == 1 and st.root_done > 0 and (
                    st.root[0].flag == FLAG_EXACT or st.root[0].flag == FLAG_LOWER):
                result = self._lines(1, False, False, True)
            break
        done_depth = depth
        guess2 = guess
        guess = st.root[0].score
        result = self._lines(st.multipv, False, False, True)
        exact = depth >= empties
        elapsed = now_seconds() - st.start
        if callback is not None:
            callback(depth, st.seldepth, exact, self._nodes(), elapsed, result)
        if exact or st.stop[0]:
            break
        if st.root[0].move == last_best:
            stable += 1
        else:
            stable = 0
            last_best = st.root[0].move
        soft_now = soft_time
        if TM_STABILITY and 0 < soft_time < hard_time and depth >= 6:
            # clock games: a best move that just changed is worth more time, a settled one less
            soft_now = soft_time * (TM_CHANGED if stable == 0 else TM_SETTLED if stable >= 3
                                    else 100) / 100.0
        if soft_time > 0 and elapsed >= soft_now:
            break
    return (result, done_depth, self._nodes(), exact)


cdef class Search:
    """Owns the transposition table, the stop flag and the search threads; runs one search at a
    time.

    run() releases the GIL while it searches; stop() may be called from any thread.
    """
    cdef SearchState st
    cdef TTable table
    cdef SearchState* helpers   # threads - 1 of them
    cdef HelperJob* jobs
    cdef u64* busy
    cdef int user_stop          # stop(): every thread stops
    cdef int helper_stop        # the helpers stop (also when the main thread's iteration ends)
    cdef u64 node_total
    cdef WideCtx* wide          # move lists and root moves of wide boards (allocated on first use)
    cdef WideCtx* helper_wide   # the helpers' own, threads - 1 of them (likewise)
    cdef public int hash_mb
    cdef readonly int threads
    cdef readonly int depth_now  # the iteration under way: its depth, or the empties of a solve

    def __init__(self, int hash_mb=16, int threads=1):
        self.table.entries = NULL
        self.st.tt = &self.table
        self.st.stop = &self.user_stop
        self.st.shared_nodes = NULL
        self.st.busy = NULL
        self.st.nthreads = 1
        self.st.thread_id = 0
        self.st.mask = 0
        self.st.wide_n = 0
        self.st.pn = NULL
        self.st.pass_move = 64
        self.st.root = self.st.root_store
        self.user_stop = 0
        self.helpers = NULL
        self.jobs = NULL
        self.busy = NULL
        self.wide = NULL
        self.helper_wide = NULL
        self.threads = 1
        self.hash_mb = 0
        self.resize(hash_mb)
        self.set_threads(threads)

    def __dealloc__(self):
        if self.table.entries != NULL:
            oe_table_free(self.table.entries, self.table.n_entries * sizeof(TTEntry))
            self.table.entries = NULL
        free(self.helpers)
        self.helpers = NULL
        free(self.jobs)
        self.jobs = NULL
        free(self.busy)
        self.busy = NULL
        free(self.wide)
        self.wide = NULL
        free(self.helper_wide)
        self.helper_wide = NULL

    def resize(self, int hash_mb):
        """Set the transposition table size in MiB (clears it)."""
        if hash_mb < 1:
            raise ValueError(f"hash size {hash_mb} MiB is below 1")
        cdef int kept
        if tt_allocate(&self.table, hash_mb) != 0:
            # the old table was freed first: take its size back (or the least), so that the
            # engine never searches without a table
            for kept in (self.hash_mb, 1):
                if kept >= 1 and tt_allocate(&self.table, kept) == 0:
                    self.hash_mb = kept
                    break
            raise MemoryError(f"cannot allocate a {hash_mb} MiB transposition table")
        self.hash_mb = hash_mb

    def set_threads(self, int threads):
        """Search with this many threads (1..256) from the next run() on; never during one."""
        cdef SearchState* fresh = NULL
        cdef HelperJob* jobs = NULL
        if threads < 1 or threads > MAX_THREADS:
            raise ValueError(f"thread count {threads} is out of range 1..{MAX_THREADS}")
        if threads > 1:
            fresh = <SearchState*>calloc(threads - 1, sizeof(SearchState))
            jobs = <HelperJob*>calloc(threads - 1, sizeof(HelperJob))
            if fresh == NULL or jobs == NULL or (self.busy == NULL and not self._alloc_busy()):
                free(fresh)
                free(jobs)
                raise MemoryError(f"cannot allocate the state of {threads} search threads")
        free(self.helpers)
        free(self.jobs)
        free(self.helper_wide)          # made again for the new count by the next wide search
        self.helpers = fresh
        self.jobs = jobs
        self.helper_wide = NULL
        self.threads = threads

    cdef bint _alloc_busy(self):
        self.busy = <u64*>calloc(BUSY_SIZE, sizeof(u64))
        return self.busy != NULL

    def clear(self):
        """Forget everything learned (a new game)."""
        tt_clear(&self.table)

    def nodes_now(self):
        """Nodes of the running search so far (read from another thread while it runs: a
        progress figure, not an exact count)."""
        return self._nodes()

    def stop(self):
        """Ask the running search to return as soon as it can (thread-safe)."""
        oe_store_int(&self.user_stop, 1)
        oe_store_int(&self.helper_stop, 1)

    def reset_stop(self):
        """Clear the stop flag; call it before starting a search (run() never clears it)."""
        self.user_stop = 0
        self.helper_stop = 0

    cdef u64 _nodes(self):
        """Nodes searched so far in this run, all threads together."""
        cdef u64 n = self.st.nodes
        cdef int k
        if self.threads > 1:
            for k in range(self.threads - 1):
                n += self.helpers[k].nodes
        return n

    cdef void _start_helpers(self):
        """Give every helper the main thread's state for a new run (its table, limits, root)."""
        cdef SearchState* h
        cdef int k
        self.node_total = 0
        self.st.flushed = 0
        self.st.shared_nodes = &self.node_total if self.threads > 1 else NULL
        self.st.busy = self.busy if self.threads > 1 else NULL
        self.st.nthreads = self.threads
        if self.threads == 1:
            return
        memset(self.busy, 0, BUSY_SIZE * sizeof(u64))
        for k in range(self.threads - 1):
            h = &self.helpers[k]
            memcpy(h, &self.st, sizeof(SearchState))
            if self.st.wide_n:
                h.wide = &self.helper_wide[k]
                h.root = h.wide.root
            else:
                h.root = h.root_store
            h.thread_id = k + 1
            h.stop = &self.helper_stop
            h.hard_time = 0

    cdef void _prepare(self, u64 mask) except *:
        cdef int sq, k, v
        if self.st.wide_n:
            # back from a wide board: its table entries mean nothing here
            self.st.wide_n = 0
            self.st.mask = 0
            tt_clear(&self.table)
        self.st.pass_move = 64
        self.st.root = self.st.root_store
        self.st.geo = NULL
        self.st.wide = NULL
        if mask != self.st.mask:
            eval_ctx_init(&self.st.ev, mask)
            if self.st.mask != 0:         # a fresh table is already empty (and not yet touched)
                tt_clear(&self.table)
            self.st.mask = mask
            self.st.squares = oe_popcount(mask)
            self.st.xs_all = 0
            for k in range(4):
                self.st.xs_all |= self.st.ev.xsq[k]
            for k in range(LEAF_STAGES):
                self.st.order_stage[k] = 0
            for sq in range(64):
                self.st.order[sq] = square_order_value(&self.st.ev, sq)
                if (mask >> sq) & 1:
                    v = self.st.order[sq]
                    # corners; the good edge and inner squares; the rest; C-squares; X-squares
                    k = 0 if v >= 60 else 1 if v > 0 else 2 if v > -12 else 3 if v > -40 else 4
                    self.st.order_stage[k] |= (<u64>1) << sq
                self.st.quad_of[sq] = 0
                for k in range(4):
                    if (self.st.ev.quadrant[k] >> sq) & 1:
                        self.st.quad_of[sq] = self.st.ev.quadrant[k]

    cdef void _use_pattern_n(self, int size):
        """Search with the learned evaluation of size (other than 8x8) when it has weights, else
        (size 0 too) with the classic one; a change clears the table."""
        cdef const PatternN* pn = NULL
        if size and PATTERN_N[size] != NULL and PATTERN_N[size].w != NULL:
            pn = PATTERN_N[size]
        if pn != self.st.pn:
            self.st.pn = pn
            tt_clear(&self.table)         # its bounds came from the other evaluation

    cdef void _prepare_wide(self, int size) except *:
        """Set the state up for a size x size board (9..26)."""
        if self.wide == NULL:
            self.wide = <WideCtx*>calloc(1, sizeof(WideCtx))
            if self.wide == NULL:
                raise MemoryError("cannot allocate the move lists of a wide board")
        if self.threads > 1 and self.helper_wide == NULL:
            self.helper_wide = <WideCtx*>calloc(self.threads - 1, sizeof(WideCtx))
            if self.helper_wide == NULL:
                raise MemoryError(f"cannot allocate the move lists of {self.threads} search "
                                  f"threads on a wide board")
        if self.st.wide_n != size:
            tt_clear(&self.table)
            self.st.wide_n = size
            self.st.mask = 0
            self.st.geo = &WGEO[size]
            self.st.wev = weval_for(size)
            self.st.squares = size * size
        self.st.wide = self.wide
        self.st.root = self.wide.root
        self.st.pass_move = size * size

    def _lines(self, int count, bint eg, bint wld, bint only_exact):
        """The first count root moves as (move, score in centi-discs, pv) tuples."""
        cdef int i, j, s
        cdef RootMove* rm
        out = []
        for i in range(min(count, self.st.nroot)):
            rm = &self.st.root[i]
            if rm.flag == FLAG_NONE or (only_exact and i > 0 and rm.flag != FLAG_EXACT):
                break
            s = rm.score
            if eg:
                if wld:
                    s = 100 if s > 0 else (-100 if s < 0 else 0)
                else:
                    s *= 100
                if s == 0:
                    s = self.st.contempt
            out.append((rm.move, s, tuple(rm.pv[j] for j in range(rm.pv_len))))
        return out

    def run(self, u64 P, u64 O, u64 mask, int max_depth=60, u64 max_nodes=0,
            double soft_time=0.0, double hard_time=0.0, u64 root_moves=0, int multipv=1,
            object callback=None, *, int contempt=0, int solve=SOLVE_AUTO, int solve_lead=-1,
            bint selective=True, bint pattern=False):
        """Search P (to move) against O.

        Returns (lines, depth, nodes, exact): lines is a list of (move, score, pv tuple) best first,
        at most multipv long; scores are centi-discs from P's view; exact means the scores are
        proven final disc differences (times 100; a proven draw scores contempt). A pass is move
        64. Limits: max_depth in plies, max_nodes (0 = none), soft_time (start no new iteration
        after it, seconds, 0 = none), hard_time (abort, seconds, 0 = none). root_moves (bitboard,
        0 = all) restricts the root. callback(depth, seldepth, exact, nodes, seconds, lines) is
        called after each iteration.

        contempt: centi-discs a proven draw is worth to P. solve: 0 = hand over to the exact
        solver when the empties are few enough (solve_lead: how many empties beyond the depth
        reached, -1 = default), 1 = solve exactly whatever the depth limit, 2 = win/loss/draw
        only (scores +100 / contempt / -100, exact stays False). selective: allow probcut in
        the midgame iterations that can not reach the end of the game. pattern: evaluate with the
        pattern weights where they apply (8x8, weights loaded), else with the classic features.
        """
        cdef SearchState* st = &self.st
        cdef double solve_time = solve_seconds(oe_popcount(mask & ~(P | O)))
        st.start = now_seconds()
        self._prepare(mask)
        use_pattern = 1 if (pattern and mask == FULL_MASK_C and oe_pw != NULL) else 0
        if use_pattern != st.ev.pattern:
            st.ev.pattern = use_pattern
            tt_clear(&self.table)         # its bounds came from the other evaluation
        self._use_pattern_n(pattern_n_size(mask) if pattern and mask != FULL_MASK_C else 0)
        return search_run(self, P, O, root_moves, max_depth, max_nodes, soft_time, hard_time,
                          multipv, callback, contempt, solve, solve_lead, selective, solve_time)

    def run_n(self, P, O, int size, int max_depth=60, u64 max_nodes=0,
              double soft_time=0.0, double hard_time=0.0, root_moves=0, int multipv=1,
              object callback=None, *, int contempt=0, int solve=SOLVE_AUTO, int solve_lead=-1,
              bint selective=True, bint pattern=False):
        """run() on a size x size board (3..26): the same arguments, results and callbacks, with
        boards and root_moves as ints of that size (see legal_moves_n) and moves as its square
        numbers; a pass is pass_code(size). Sizes 3..8 forward to run() with board_mask(size).
        Wide boards search with the threads of set_threads as 8x8 does; pattern does not apply
        to them (the classic evaluation's features are used)."""
        cdef SearchState* st = &self.st
        cdef int empties
        cdef double solve_time
        check_size(size)
        if size <= 8:
            return self.run(P, O, board_mask(size), max_depth, max_nodes, soft_time, hard_time,
                            root_moves, multipv, callback, contempt=contempt, solve=solve,
                            solve_lead=solve_lead, selective=selective, pattern=pattern)
        check_board(P, size, "P")
        check_board(O, size, "O")
        check_board(root_moves, size, "root_moves")
        st.start = now_seconds()
        self._prepare_wide(size)
        self._use_pattern_n(size if pattern else 0)
        empties = size * size - bin(P).count("1") - bin(O).count("1")
        solve_time = solve_seconds_n(empties, size)
        if size <= 11:
            return _run_w(self, W2_ZERO, P, O, root_moves, max_depth, max_nodes, soft_time,
                          hard_time, multipv, callback, contempt, solve, solve_lead, selective,
                          solve_time)
        if size <= 16:
            return _run_w(self, W4_ZERO, P, O, root_moves, max_depth, max_nodes, soft_time,
                          hard_time, multipv, callback, contempt, solve, solve_lead, selective,
                          solve_time)
        return _run_w(self, W11_ZERO, P, O, root_moves, max_depth, max_nodes, soft_time,
                      hard_time, multipv, callback, contempt, solve, solve_lead, selective,
                      solve_time)


cdef object _run_w(Search self, wide_t p, P, O, root_moves, int max_depth, u64 max_nodes,
                   double soft_time, double hard_time, int multipv, object callback, int contempt,
                   int solve, int solve_lead, bint selective, double solve_time):
    """Search.run_n's search on the width of p (a typed zero board picks it)."""
    cdef wide_t o = p, r = p
    cdef int nw = <int>(sizeof(p.w) // 8)
    words_from_int(P, p.w, nw)
    words_from_int(O, o.w, nw)
    words_from_int(root_moves, r.w, nw)
    return search_run(self, p, o, r, max_depth, max_nodes, soft_time, hard_time, multipv,
                      callback, contempt, solve, solve_lead, selective, solve_time)


def solve_seconds(int empties):
    """Expected time (seconds) of the exact solve at `empties` empty squares, the one cost model
    of both this search's hand-over gate and the game-clock plan (timeman.DEFAULT_SOLVE).
    Calibrated with `scripts/bench_time.py --calibrate 23 --seed 1` and `--seed 2` side by side
    on positions from the engine's own games (2-core machine, both cores busy, 40 positions per
    number of empties, 2026-11-30): medians 16 empties 3 ms, 18: 12-20 ms, 20: 73-86 ms, 22:
    0.23-0.36 s; 90th percentiles 18: 55-62 ms, 20: 0.18-0.25 s, 22: 1.1-1.8 s; worst 0.10 s at
    18, 0.37 s at 20, 2.8 s at 22. The model, 0.4 s at 20 empties and 2.4 times that for each
    empty more, sits near the worst case (SOLVE_MS20, SOLVE_GROWTH). It was 1.5 s at 20 until
    then, calibrated on the solver of 2026-11-22, which took 0.9 s at 20 empties (median)."""
    return SOLVE_MS20 / 1000.0 * (SOLVE_GROWTH / 100.0) ** (empties - 20)


def solve_seconds_n(int empties, int size):
    """solve_seconds for a size x size board (3..26): the same tree-size model, times the cost
    of a node of the wide kernels over an 8x8 one (measured with scripts/bench_search.py
    --size N: about 4 times on the two- and four-word boards, 9x9 to 16x16, and 12 times on the
    larger)."""
    check_size(size)
    if size <= 8:
        return solve_seconds(empties)
    return solve_seconds(empties) * (4.0 if size <= 16 else 12.0)


def _set_tuning(str name, int value):
    """Experiments only: set one of the search's tuning knobs (the midgame's, probcut's, time's
    and threads' of _state.pxi, the solver's of _endgame.pxi); returns its previous value, so that
    a caller can put back exactly what was there."""
    cdef int* knob = mid_knob(name)
    cdef int old
    if knob == NULL:
        knob = eg_knob(name)
    if knob == NULL:
        raise ValueError(f"unknown tuning parameter {name!r}")
    old = knob[0]
    knob[0] = value
    mpc_fill()
    return old
