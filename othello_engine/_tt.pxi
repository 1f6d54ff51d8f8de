# Transposition table: lock-free buckets shared by the search threads.
#
# A bucket is four 16-byte entries (one cache line), keyed by a 64-bit hash of (P, O).
#
# An entry holds a lower and an upper bound in centi-discs (TT_NONE = no bound), the best move
# (TT_NO_MOVE when none), the depth it was searched to (for the endgame solver's exact bounds,
# which are multiples of 100, TT_SOLVED plus the empties) and the search generation that wrote it.
# Replacement keeps the same position, else evicts the entry with the least depth, counting old
# generations as shallower. A result that failed low keeps the move already stored for its
# position (its own best move is only the one with the highest bound).
#
# Threads share one table without locks: a slot holds its second word (the data) and, in place of
# the key, key ^ data, each written and read as one 64-bit word. A slot torn by two writers (or
# read half-written) fails the check on probe and counts as a miss, so a probe never returns
# bounds of another position; probes return a copy, never a pointer into the shared table.

cdef enum:
    TT_NONE = 32000
    TT_NO_MOVE = 0xFFFF      # no square of any board (up to 26 x 26 = 676 squares)
    TT_SOLVED = 100
    TT_BUCKET = 4


cdef struct TTEntry:
    u64 key
    short lower
    short upper
    unsigned short move
    unsigned char depth
    unsigned char age


cdef struct TTable:
    TTEntry* entries
    u64 n_entries          # a power of two, at least TT_BUCKET
    unsigned char age


cdef inline u64 position_hash(u64 P, u64 O) noexcept nogil:
    cdef u64 h = P * 0x9E3779B97F4A7C15ULL
    h ^= h >> 29
    h += O * 0xC2B2AE3D27D4EB4FULL
    h ^= h >> 32
    h *= 0xD6E8FEB86659FD93ULL
    h ^= h >> 32
    return h | 1          # never 0, so an empty slot never matches


cdef int tt_allocate(TTable* t, int hash_mb) noexcept nogil:
    """(Re)allocate the table to the largest power of two of entries within hash_mb MiB, empty.
    The old table is freed first, so that the two never take memory at once; returns -1 when
    the new one can not be had, leaving no table (the caller allocates one again)."""
    cdef u64 want = (<u64>max(hash_mb, 1)) * 1024 * 1024 // sizeof(TTEntry)
    cdef u64 n = TT_BUCKET
    cdef TTEntry* fresh
    while n * 2 <= want:
        n *= 2
    if t.entries != NULL:
        oe_table_free(t.entries, t.n_entries * sizeof(TTEntry))
        t.entries = NULL
        t.n_entries = 0
    fresh = <TTEntry*>oe_table_alloc(n * sizeof(TTEntry))
    if fresh == NULL:
        return -1
    t.entries = fresh
    t.n_entries = n
    t.age = 0
    return 0


cdef inline void tt_clear(TTable* t) noexcept nogil:
    if t.entries != NULL:
        oe_table_zero(t.entries, t.n_entries * sizeof(TTEntry))
    t.age = 0


cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    static inline void oe_prefetch(const void* p) { __builtin_prefetch(p); }
    /* Whole-word accesses to memory other threads write (relaxed: plain moves on x86-64). */
    static inline unsigned long long oe_load64(const unsigned long long* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void oe_store64(unsigned long long* p, unsigned long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline unsigned long long oe_add64(unsigned long long* p, unsigned long long v) { return __atomic_add_fetch(p, v, __ATOMIC_RELAXED); }
    static inline int oe_load_int(const int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void oe_store_int(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    /* A zeroed table. Tables of 2 MiB and more are aligned to 2 MiB and, on Linux, offered to
       the kernel as transparent huge pages: a probe is a random access, and with 4 KiB pages
       nearly every one also misses the TLB. On Linux they are fresh anonymous pages, which the
       kernel zeroes when first touched: no memset, so a 4 GiB table is had at once and costs
       memory only as the search fills it. */
    static void* oe_table_alloc(size_t bytes) {
        const size_t huge = (size_t)2 << 20;
        void* p = NULL;
        if (bytes < huge)
            return calloc(1, bytes);
    #if defined(__linux__)
        size_t span = bytes + huge;
        char* raw = (char*)mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            return NULL;
        size_t head = (huge - ((size_t)raw & (huge - 1))) & (huge - 1);
        if (head)
            munmap(raw, head);
        if (span - head - bytes)
            munmap(raw + head + bytes, span - head - bytes);
        p = raw + head;
    #if defined(MADV_HUGEPAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        return p;
    #else
        if (posix_memalign(&p, huge, bytes) != 0)
            return NULL;
        memset(p, 0, bytes);
        return p;
    #endif
    }
    static void oe_table_free(void* p, size_t bytes) {
        if (p == NULL)
            return;
    #if defined(__linux__)
        if (bytes >= ((size_t)2 << 20)) {
            munmap(p, bytes);
            return;
        }
    #endif
        free(p);
    }
    /* Zero a table; a large one on Linux by giving its pages back (zero again when next
       touched), which takes no time for the pages a search never reached. */
    static void oe_table_zero(void* p, size_t bytes) {
    #if defined(__linux__)
        if (bytes >= ((size_t)2 << 20) && madvise(p, bytes, MADV_DONTNEED) == 0)
            return;
    #endif
        memset(p, 0, bytes);
    }
    """
    void oe_prefetch(const void* p) noexcept nogil
    u64 oe_load64(const u64* p) noexcept nogil
    void oe_store64(u64* p, u64 v) noexcept nogil
    u64 oe_add64(u64* p, u64 v) noexcept nogil
    int oe_load_int(const int* p) noexcept nogil
    void oe_store_int(int* p, int v) noexcept nogil
    void* oe_table_alloc(size_t bytes) noexcept nogil
    void oe_table_free(void* p, size_t bytes) noexcept nogil
    void oe_table_zero(void* p, size_t bytes) noexcept nogil


cdef inline TTEntry* tt_bucket(TTable* t, u64 key) noexcept nogil:
    """The first entry of key's bucket."""
    return t.entries + ((key & (t.n_entries - 1)) & ~(<u64>(TT_BUCKET - 1)))


cdef inline void tt_prefetch(TTable* t, u64 key) noexcept nogil:
    """Start loading key's bucket into the cache (a probe soon after finds it there)."""
    oe_prefetch(tt_bucket(t, key))


cdef inline TTEntry tt_read(TTEntry* slot) noexcept nogil:
    """A copy of the entry in slot with its key decoded: 0 for an empty slot, a key no probe
    asks for when the slot is torn."""
    cdef TTEntry e
    cdef u64 data = oe_load64((<u64*>slot) + 1)
    e.key = oe_load64(<u64*>slot) ^ data
    memcpy(&e.lower, &data, 8)
    return e


cdef inline void tt_write(TTEntry* slot, TTEntry* e) noexcept nogil:
    """Write e into slot as two words: the data, then key ^ data."""
    cdef u64 data
    memcpy(&data, &e.lower, 8)
    oe_store64((<u64*>slot) + 1, data)
    oe_store64(<u64*>slot, e.key ^ data)


# Whether a fail-low (an upper bound alone) keeps the entry's move of the same position rather
# than its own best guess (see tt_store).
cdef int TT_KEEP_MOVE = 1


cdef inline TTEntry* tt_probe(TTable* t, u64 key, TTEntry* out) noexcept nogil:
    """Copy key's entry into out and return out; NULL when key is not in the table."""
    cdef TTEntry* b = tt_bucket(t, key)
    cdef int i
    for i in range(TT_BUCKET):
        out[0] = tt_read(b + i)
        if out.key == key:
            return out
    return NULL


cdef inline void tt_store(TTable* t, u64 key, int depth, int lower, int upper, int move) noexcept nogil:
    cdef TTEntry* b = tt_bucket(t, key)
    cdef TTEntry* slot = NULL
    cdef TTEntry cur[TT_BUCKET]
    cdef TTEntry* e = NULL
    cdef TTEntry n
    cdef int i, worth, least = 1 << 30
    for i in range(TT_BUCKET):
        cur[i] = tt_read(b + i)
        if cur[i].key == key:
            e = cur + i
            slot = b + i
            if e.depth > depth and e.age == t.age:
                if move != TT_NO_MOVE and e.move == TT_NO_MOVE:
                    e.move = <unsigned short>move
                    tt_write(slot, e)
                return
            if e.depth == depth and e.age == t.age:
                # same depth: the bounds of both searches hold; keep the tighter ones unless
                # they contradict each other (a search instability), then the new ones win
                if e.lower > lower and e.lower <= upper:
                    lower = e.lower
                if e.upper < upper and e.upper >= lower:
                    upper = e.upper
            if move == TT_NO_MOVE or (TT_KEEP_MOVE and lower == -TT_NONE
                                      and e.move != TT_NO_MOVE):
                # a fail-low's best move is the one with the highest upper bound, a guess: an
                # earlier search's move stays
                move = e.move
            break
        worth = cur[i].depth - 4 * ((t.age - cur[i].age) & 255)
        if cur[i].key == 0:
            worth = -1000
        if worth < least:
            least = worth
            slot = b + i
    n.key = key
    n.lower = <short>lower
    n.upper = <short>upper
    n.move = <unsigned short>move
    n.depth = <unsigned char>depth
    n.age = t.age
    tt_write(slot, &n)
