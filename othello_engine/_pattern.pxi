# Pattern evaluation (8x8): learned weight tables over fixed groups of squares, plus scalars.
#
# The tables are indexed by the contents of the groups, one table set per game phase, and a few
# scalar terms are added.
#
# Layout 1 (PATTERN_LAYOUT): eleven families, each a base group of squares and its images under
# the board's symmetries (46 instances); all instances of a family share one table. A group's
# index is base 3 over its squares in ascending bit order of the base group: digit 0 empty, 1 the
# side to move, 2 the opponent. An instance is read from the board's image under the symmetry that
# carries it onto the base group, so every instance reads its squares in the same order.
#   family     base squares (row 1 = a1..h1)              instances  table
#   edge2x     row 1 and b2, g2                               4      3^10
#   corner2x5  a1..e1, a2..e2                                 8      3^10
#   corner3x3  a1..c3                                         4      3^9
#   row2/3/4   rows 2, 3, 4                                 4 each    3^8
#   diag8      a1..h8                                         2      3^8
#   diag7..4   the diagonals from b1, c1, d1, e1 down-right   4 each  3^7..3^4
# Scalar terms (per phase): mobility difference, potential mobility difference, parity (+1 when the
# number of empties is odd: the side to move plays last), bias. Phases: PATTERN_PHASES tables, the
# phase of a position being min(empties, 59) // 4. Weights are centi-discs (int16); the evaluation
# is their sum. The weights are loaded once (set_pattern_weights) into one process-wide array that
# every search reads without locking (it is never changed while a search runs).


cdef extern from *:
    """
    #define OE_PATTERN_PHASES 15
    #define OE_PATTERN_SCALARS 4
    /* table offsets of the families, their sizes and the entries of one phase */
    #define OE_OFF_EDGE 0
    #define OE_OFF_C25 59049
    #define OE_OFF_C33 118098
    #define OE_OFF_R2 137781
    #define OE_OFF_R3 144342
    #define OE_OFF_R4 150903
    #define OE_OFF_D8 157464
    #define OE_OFF_D7 164025
    #define OE_OFF_D6 166212
    #define OE_OFF_D5 166941
    #define OE_OFF_D4 167184
    #define OE_OFF_SCALAR 167265
    #define OE_PATTERN_ENTRIES 167269
    static unsigned short oe_t3[1024];          /* bits -> base-3 number with the same digits */
    static const short* oe_pw = 0;              /* OE_PATTERN_PHASES x OE_PATTERN_ENTRIES */

    static void oe_pattern_init_t3(void) {
        for (int b = 0; b < 1024; b++) {
            int v = 0, p = 1;
            for (int i = 0; i < 10; i++, p *= 3)
                if (b >> i & 1) v += p;
            oe_t3[b] = (unsigned short)v;
        }
    }

    /* the base groups, read from an image of the board as a bit string in ascending order */
    #define OE_EDGE(x) (((x) & 0xFFULL) | (((x) >> 1) & 0x100ULL) | (((x) >> 5) & 0x200ULL))
    #define OE_C25(x) (((x) & 0x1FULL) | (((x) >> 3) & 0x3E0ULL))
    #define OE_C33(x) (((x) & 7ULL) | (((x) >> 5) & 0x38ULL) | (((x) >> 10) & 0x1C0ULL))
    #define OE_ROW(x, r) (((x) >> (8 * (r))) & 0xFFULL)
    #define OE_DIAG(x, m, s) ((((x) & (m)) * 0x0101010101010101ULL) >> (s))
    #define OE_D8M 0x8040201008040201ULL
    #define OE_D7M 0x0080402010080402ULL
    #define OE_D6M 0x0000804020100804ULL
    #define OE_D5M 0x0000008040201008ULL
    #define OE_D4M 0x0000000080402010ULL

    static inline unsigned long long oe_mirror(unsigned long long x) {
        x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
        x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
        return ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    }
    static inline unsigned long long oe_flip(unsigned long long x) {
        return __builtin_bswap64(x);
    }
    static inline unsigned long long oe_transpose(unsigned long long x) {
        unsigned long long t;
        t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL; x = x ^ t ^ (t << 7);
        t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL; x = x ^ t ^ (t << 14);
        t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL; return x ^ t ^ (t << 28);
    }
    /* im[k]: the image of x under symmetry k (bit 0 mirror, bit 1 flip, bit 2 transpose) */
    static inline void oe_images(unsigned long long x, unsigned long long* im) {
        im[0] = x; im[1] = oe_mirror(x); im[2] = oe_flip(x); im[3] = oe_flip(im[1]);
        im[4] = oe_transpose(x); im[5] = oe_transpose(im[1]);
        im[6] = oe_transpose(im[2]); im[7] = oe_transpose(im[3]);
    }

    #define OE_T(bp, bo) ((int)oe_t3[bp] + 2 * (int)oe_t3[bo])

    /* The 46 instance indices (offset within the phase table) of P to move against O, read from
       the eight images of the board: the definition, and the fallback without BMI2. */
    static inline void oe_pattern_indices_images(unsigned long long P, unsigned long long O, int* ix) {
        unsigned long long p[8], o[8];
        int n = 0, k;
        static const int edge_k[4] = {0, 2, 4, 5};
        static const int d8_k[2] = {0, 1};
        oe_images(P, p);
        oe_images(O, o);
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_EDGE + OE_T(OE_EDGE(p[edge_k[k]]), OE_EDGE(o[edge_k[k]]));
        for (k = 0; k < 8; k++) ix[n++] = OE_OFF_C25 + OE_T(OE_C25(p[k]), OE_C25(o[k]));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_C33 + OE_T(OE_C33(p[k]), OE_C33(o[k]));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_R2 + OE_T(OE_ROW(p[edge_k[k]], 1), OE_ROW(o[edge_k[k]], 1));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_R3 + OE_T(OE_ROW(p[edge_k[k]], 2), OE_ROW(o[edge_k[k]], 2));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_R4 + OE_T(OE_ROW(p[edge_k[k]], 3), OE_ROW(o[edge_k[k]], 3));
        for (k = 0; k < 2; k++)
            ix[n++] = OE_OFF_D8 + OE_T(OE_DIAG(p[d8_k[k]], OE_D8M, 56), OE_DIAG(o[d8_k[k]], OE_D8M, 56));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_D7 + OE_T(OE_DIAG(p[k], OE_D7M, 57), OE_DIAG(o[k], OE_D7M, 57));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_D6 + OE_T(OE_DIAG(p[k], OE_D6M, 58), OE_DIAG(o[k], OE_D6M, 58));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_D5 + OE_T(OE_DIAG(p[k], OE_D5M, 59), OE_DIAG(o[k], OE_D5M, 59));
        for (k = 0; k < 4; k++) ix[n++] = OE_OFF_D4 + OE_T(OE_DIAG(p[k], OE_D4M, 60), OE_DIAG(o[k], OE_D4M, 60));
    }

    /* With BMI2, each instance's squares are gathered from P and O directly (pext) and a table
       of the instance turns the gathered bits into its base-3 number, each square weighted by
       the power of 3 of its place in the base group. The squares, the table offsets and the
       places of the gather tables are written out as literals, so that the compiler folds them
       into the unrolled loops below; at import, oe_pattern_init_pext derives all three and the
       gather tables from the definition above (oe_pattern_indices_images) and says whether the
       literals agree with it (a test checks that they do, and that both ways give the same
       indices). */
    #if defined(__BMI2__) && !defined(OE_NO_PEXT)
    #include <immintrin.h>
    #define OE_PEXT 1
    #define OE_INST 46
    static const unsigned long long oe_inst_mask[OE_INST] = {
        0x00000000000042ffULL, 0xff42000000000000ULL, 0x0103010101010301ULL, 0x80c080808080c080ULL,
        0x0000000000001f1fULL, 0x000000000000f8f8ULL, 0x1f1f000000000000ULL, 0xf8f8000000000000ULL,
        0x0000000303030303ULL, 0x000000c0c0c0c0c0ULL, 0x0303030303000000ULL, 0xc0c0c0c0c0000000ULL,
        0x0000000000070707ULL, 0x0000000000e0e0e0ULL, 0x0707070000000000ULL, 0xe0e0e00000000000ULL,
        0x000000000000ff00ULL, 0x00ff000000000000ULL, 0x0202020202020202ULL, 0x4040404040404040ULL,
        0x0000000000ff0000ULL, 0x0000ff0000000000ULL, 0x0404040404040404ULL, 0x2020202020202020ULL,
        0x00000000ff000000ULL, 0x000000ff00000000ULL, 0x0808080808080808ULL, 0x1010101010101010ULL,
        0x8040201008040201ULL, 0x0102040810204080ULL, 0x0080402010080402ULL, 0x0001020408102040ULL,
        0x0204081020408000ULL, 0x4020100804020100ULL, 0x0000804020100804ULL, 0x0000010204081020ULL,
        0x0408102040800000ULL, 0x2010080402010000ULL, 0x0000008040201008ULL, 0x0000000102040810ULL,
        0x0810204080000000ULL, 0x1008040201000000ULL, 0x0000000080402010ULL, 0x0000000001020408ULL,
        0x1020408000000000ULL, 0x0804020100000000ULL
    };
    static const int oe_inst_off[OE_INST] = {
        0, 0, 0, 0, 59049, 59049, 59049, 59049, 59049, 59049, 59049, 59049,
        118098, 118098, 118098, 118098, 137781, 137781, 137781, 137781, 144342, 144342, 144342, 144342,
        150903, 150903, 150903, 150903, 157464, 157464, 164025, 164025, 164025, 164025, 166212, 166212,
        166212, 166212, 166941, 166941, 166941, 166941, 167184, 167184, 167184, 167184
    };
    static const int oe_inst_at[OE_INST] = {
        0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264,
        12288, 12800, 13312, 13824, 14336, 14592, 14848, 15104, 15360, 15616, 15872, 16128,
        16384, 16640, 16896, 17152, 17408, 17664, 17920, 18048, 18176, 18304, 18432, 18496,
        18560, 18624, 18688, 18720, 18752, 18784, 18816, 18832, 18848, 18864
    };
    static unsigned short oe_inst_pool[18880];

    static int oe_pattern_init_pext(void) {
        int pw[OE_INST][64], base[OE_INST], ix[OE_INST], used = 0, j, q, b, i;
        unsigned long long mask[OE_INST];
        oe_pattern_indices_images(0, 0, base);
        for (j = 0; j < OE_INST; j++)
            mask[j] = 0;
        for (q = 0; q < 64; q++) {
            oe_pattern_indices_images(1ULL << q, 0, ix);
            for (j = 0; j < OE_INST; j++) {
                pw[j][q] = ix[j] - base[j];
                if (pw[j][q]) mask[j] |= 1ULL << q;
            }
        }
        for (j = 0; j < OE_INST; j++) {
            int n = __builtin_popcountll(mask[j]);
            if (mask[j] != oe_inst_mask[j] || base[j] != oe_inst_off[j] || used != oe_inst_at[j]
                    || used + (1 << n) > (int)(sizeof(oe_inst_pool) / sizeof(oe_inst_pool[0])))
                return 0;
            for (b = 0; b < (1 << n); b++) {
                int v = 0;
                unsigned long long m = mask[j];
                for (i = 0; i < n; i++, m &= m - 1)
                    if (b >> i & 1) v += pw[j][__builtin_ctzll(m)];
                oe_inst_pool[used + b] = (unsigned short)v;
            }
            used += 1 << n;
        }
        return 1;
    }

    #define OE_GATHER(j, P, O) (oe_inst_pool[oe_inst_at[j] + _pext_u64(P, oe_inst_mask[j])] \
                                + 2 * oe_inst_pool[oe_inst_at[j] + _pext_u64(O, oe_inst_mask[j])])

    static inline void oe_pattern_indices(unsigned long long P, unsigned long long O, int* ix) {
        #pragma GCC unroll 46
        for (int j = 0; j < OE_INST; j++)
            ix[j] = oe_inst_off[j] + OE_GATHER(j, P, O);
    }
    /* the sum of the instances' weights in the phase table w (the search's evaluation) */
    static inline int oe_pattern_sum(unsigned long long P, unsigned long long O, const short* w) {
        int total = 0;
        #pragma GCC unroll 46
        for (int j = 0; j < OE_INST; j++)
            total += w[oe_inst_off[j] + OE_GATHER(j, P, O)];
        return total;
    }
    #else
    #define OE_PEXT 0
    static int oe_pattern_init_pext(void) { return 1; }
    static inline void oe_pattern_indices(unsigned long long P, unsigned long long O, int* ix) {
        oe_pattern_indices_images(P, O, ix);
    }
    static inline int oe_pattern_sum(unsigned long long P, unsigned long long O, const short* w) {
        int ix[46], total = 0;
        oe_pattern_indices_images(P, O, ix);
        for (int j = 0; j < 46; j++)
            total += w[ix[j]];
        return total;
    }
    #endif

    static inline int oe_pattern_phase(int empties) {
        return (empties > 59 ? 59 : empties) / 4;
    }

    /* With AVX-512 (VBMI for the byte permutation, VNNI for the dot product), the 46 indices are
       computed side by side instead of gather by gather. The board becomes 64 bytes of digits
       (0 empty, 1 the side to move, 2 the other); the instances, padded to 48, lie in three
       blocks of 16, and each instance's places (the squares in its base order: place i weighs
       3^i) in three groups of four. Vector 3b + g holds group g of block b: its byte 4l + t is
       the digit of the square at place 4g + t of instance 16b + l (a permutation of the digits,
       zero where there is no such place), and a dot product of each four bytes with
       (1, 3, 9, 27) gives the group's number; the index is g0 + 81 g1 + 6561 g2 plus the
       family's table offset. The weights are then fetched by a gather. The permutations and
       offsets are derived at import from the definition (oe_pattern_indices_images), and the
       search uses this path only if that succeeded (a test checks that both ways give the same
       indices). */
    #if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VBMI__) \
        && defined(__AVX512VNNI__) && !defined(OE_NO_AVX512)
    #include <immintrin.h>
    #define OE_SIMD 1
    static unsigned char oe_simd_perm[9][64] __attribute__((aligned(64)));
    static unsigned long long oe_simd_keep[9];
    static int oe_simd_off[48] __attribute__((aligned(64)));
    static int oe_simd_ok = 0;

    static int oe_simd_init(void) {
        int base[46], ix[46], sq_at[46][12], n[46], j, q, k;
        oe_pattern_indices_images(0, 0, base);
        for (j = 0; j < 46; j++) {
            n[j] = 0;
            for (k = 0; k < 12; k++) sq_at[j][k] = -1;
        }
        for (q = 0; q < 64; q++) {
            oe_pattern_indices_images(1ULL << q, 0, ix);
            for (j = 0; j < 46; j++) {
                int d = ix[j] - base[j], place = 0;
                if (d == 0) continue;
                while (d % 3 == 0) { d /= 3; place++; }
                if (d != 1 || place >= 12 || sq_at[j][place] != -1) return 0;
                sq_at[j][place] = q;
                n[j]++;
            }
        }
        for (j = 0; j < 48; j++)
            oe_simd_off[j] = j < 46 ? base[j] : 0;
        for (int v = 0; v < 9; v++) {
            int b = v / 3, g = v % 3;
            oe_simd_keep[v] = 0;
            for (int lane = 0; lane < 64; lane++) {
                int inst = 16 * b + lane / 4, place = 4 * g + lane % 4;
                oe_simd_perm[v][lane] = 0;
                if (inst < 46 && place < n[inst]) {
                    if (sq_at[inst][place] < 0) return 0;     /* the places must run 0..n-1 */
                    oe_simd_perm[v][lane] = (unsigned char)sq_at[inst][place];
                    oe_simd_keep[v] |= 1ULL << lane;
                }
            }
        }
        oe_simd_ok = 1;
        return 1;
    }

    static inline __m512i oe_simd_block(__m512i d, int b) {
        const __m512i pow4 = _mm512_set1_epi32(0x1B090301);     /* bytes 1, 3, 9, 27 */
        const __m512i zero = _mm512_setzero_si512();
        __m512i g0 = _mm512_dpbusd_epi32(zero, _mm512_maskz_permutexvar_epi8(
            oe_simd_keep[3 * b], _mm512_load_si512((const void*)oe_simd_perm[3 * b]), d), pow4);
        __m512i g1 = _mm512_dpbusd_epi32(zero, _mm512_maskz_permutexvar_epi8(
            oe_simd_keep[3 * b + 1], _mm512_load_si512((const void*)oe_simd_perm[3 * b + 1]), d), pow4);
        __m512i g2 = _mm512_dpbusd_epi32(zero, _mm512_maskz_permutexvar_epi8(
            oe_simd_keep[3 * b + 2], _mm512_load_si512((const void*)oe_simd_perm[3 * b + 2]), d), pow4);
        __m512i ix = _mm512_add_epi32(g0, _mm512_mullo_epi32(g1, _mm512_set1_epi32(81)));
        ix = _mm512_add_epi32(ix, _mm512_mullo_epi32(g2, _mm512_set1_epi32(6561)));
        return _mm512_add_epi32(ix, _mm512_load_si512((const void*)(oe_simd_off + 16 * b)));
    }

    static inline __m512i oe_simd_digits(unsigned long long P, unsigned long long O) {
        return _mm512_or_si512(_mm512_maskz_set1_epi8((__mmask64)P, 1),
                               _mm512_maskz_set1_epi8((__mmask64)O, 2));
    }

    static inline void oe_pattern_indices_simd(unsigned long long P, unsigned long long O, int* out) {
        int tmp[48] __attribute__((aligned(64)));
        __m512i d = oe_simd_digits(P, O);
        for (int b = 0; b < 3; b++)
            _mm512_store_si512((void*)(tmp + 16 * b), oe_simd_block(d, b));
        for (int j = 0; j < 46; j++)
            out[j] = tmp[j];
    }

    /* the weights are int16: each gather reads 32 bits at the entry (its neighbour above it
       in the high half, which the shifts drop); the last block's two padding lanes are masked */
    static inline int oe_pattern_sum_simd(unsigned long long P, unsigned long long O, const short* w) {
        __m512i d = oe_simd_digits(P, O);
        __m512i a = _mm512_i32gather_epi32(oe_simd_block(d, 0), (const void*)w, 2);
        __m512i b = _mm512_i32gather_epi32(oe_simd_block(d, 1), (const void*)w, 2);
        __m512i c = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)0x3FFF,
                                                oe_simd_block(d, 2), (const void*)w, 2);
        a = _mm512_srai_epi32(_mm512_slli_epi32(a, 16), 16);
        b = _mm512_srai_epi32(_mm512_slli_epi32(b, 16), 16);
        c = _mm512_srai_epi32(_mm512_slli_epi32(c, 16), 16);
        return _mm512_reduce_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a, b), c));
    }
    static inline int oe_pattern_sum_fast(unsigned long long P, unsigned long long O, const short* w) {
        return oe_simd_ok ? oe_pattern_sum_simd(P, O, w) : oe_pattern_sum(P, O, w);
    }
    #else
    #define OE_SIMD 0
    static int oe_simd_init(void) { return 0; }
    static inline void oe_pattern_indices_simd(unsigned long long P, unsigned long long O, int* out) {
        oe_pattern_indices(P, O, out);
    }
    static inline int oe_pattern_sum_fast(unsigned long long P, unsigned long long O, const short* w) {
        return oe_pattern_sum(P, O, w);
    }
    #endif
    """
    int OE_PATTERN_PHASES, OE_PATTERN_SCALARS, OE_PATTERN_ENTRIES, OE_OFF_SCALAR
    const short* oe_pw
    void oe_pattern_init_t3() nogil
    int oe_pattern_init_pext() nogil
    const int OE_PEXT
    void oe_pattern_indices_images(u64 P, u64 O, int* ix) noexcept nogil
    void oe_pattern_indices(u64 P, u64 O, int* ix) noexcept nogil
    int oe_pattern_sum(u64 P, u64 O, const short* w) noexcept nogil
    int oe_pattern_phase(int empties) noexcept nogil
    const int OE_SIMD
    int oe_simd_init() nogil
    void oe_pattern_indices_simd(u64 P, u64 O, int* ix) noexcept nogil
    int oe_pattern_sum_fast(u64 P, u64 O, const short* w) noexcept nogil

cdef extern from *:
    """
    static void oe_pattern_set(const short* w) { oe_pw = w; }
    """
    void oe_pattern_set(const short* w) nogil

cdef enum:
    PATTERN_INSTANCES_C = 46
    PATTERN_LAYOUT_C = 1


oe_pattern_init_t3()
# (1: the literal instance tables of the BMI2 path agree with the definition; a test checks it)
cdef int _pext_tables_agree = oe_pattern_init_pext()
# (1: the AVX-512 path's permutations were derived from the definition, and the search uses it)
cdef int _simd_ready = oe_simd_init()
cdef short* _pattern_weights = NULL
cdef u64 FULL_MASK_C = 0xFFFFFFFFFFFFFFFFULL


cdef inline int pattern_scalars(u64 P, u64 O, u64 mP, u64 mO, int empties, int* s) noexcept nogil:
    """The scalar terms' features: mobility, potential mobility (frontier), parity, bias."""
    cdef u64 E = ~(P | O)
    s[0] = oe_popcount(mP) - oe_popcount(mO)
    s[1] = oe_popcount(E & neighbours(O)) - oe_popcount(E & neighbours(P))
    s[2] = 1 if empties & 1 else -1
    s[3] = 1
    return 4


cdef inline int pattern_eval(u64 P, u64 O, u64 mP, u64 mO) noexcept nogil:
    """Pattern evaluation of P (to move) in centi-discs, clamped to +-6300 like the classic one."""
    cdef int sc[4]
    cdef int empties = 64 - oe_popcount(P | O)
    cdef const short* w = oe_pw + oe_pattern_phase(empties) * OE_PATTERN_ENTRIES
    cdef int i, total = oe_pattern_sum_fast(P, O, w)
    pattern_scalars(P, O, mP, mO, empties, sc)
    for i in range(4):
        total += w[OE_OFF_SCALAR + i] * sc[i]
    if total > 6300:
        return 6300
    if total < -6300:
        return -6300
    return total
