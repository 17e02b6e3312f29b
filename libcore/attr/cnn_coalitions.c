/* cnn_coalitions.c: the values of arbitrary coalitions (KernelSHAP, LIME,
 * drawn or given, and occlusion's windows) of a cnn on the CPU, without a
 * full pass per coalition.
 *
 * In a coalition's copy of a row every position p holds one of two
 * tokens: the row's own (p present, or a special that stays) or the
 * baseline's (p absent); past the active length L only zeros (PAD's zero
 * embedding, or the convolution's zero padding at T). The pre-activation
 * of filter f of width w at window t is
 *     bias_f + sum_{o < w, t + o < L} W_o[f] . e(token at t + o),
 * so each row computes once, per width, the products
 *     X[p][o][:] = W_o . e(x_p)   and   B[p][o][:] = W_o . e(baseline_p)
 * for every position p < L and offset o (w products [L + distinct
 * baseline tokens] x d x F through the backend), then each window all
 * present, Xs[t], and all absent, Bs[t] (bias first, then the offsets in
 * order), and the differences D[p][o] = X - B. A coalition's window is
 * Bs[t] plus D of its present positions, or Xs[t] minus D of its absent
 * ones when those are fewer, in increasing offset: at most w / 2 rows of F
 * additions instead of w d F multiply-adds. For widths up to
 * EE_CNN_TABLE_WMAX a row whose coalitions read enough windows also builds
 * the subset table of those sums (cnn_table.c: every window's 2^w possible
 * sums, each the same chain of additions), and a window is one row read.
 * A coalition reads only the windows that see one of its absent players
 * (from its first absent position - w + 1 to its last): the others are
 * the windows with every player present, whose running maxima before and
 * after each position the row computes once from the same chains, so an
 * occlusion copy reads a few windows, not the row's length. Then, as the
 * full pass: the max over the attended positions (a NaN never wins; which
 * of tied values wins changes no value), the ReLU read through
 * ee_cnn_value, the target logit summed in double.
 *
 * Rounding: the window's terms are summed in another order than the full
 * pass's product, so a value agrees with a full pass to float rounding,
 * not bit for bit. Every value depends on its row's data alone, each
 * filter's chain of additions is the same in every instruction set (no
 * multiplies to fuse) and with or without the table, and a maximum is the
 * same number whichever windows are compared first, so the values are the
 * same bits for any thread count, batch or vector width. f(x) and the
 * target come from the row's full windows (a forward pass's bits),
 * v(empty) from the baseline's windows through the backend's product. The
 * passes are counted as the full passes the values stand for (the
 * caller). */
#include "attr_common.h"
#include "cnn_incremental.h"
#include "cnn_table.h"
#include "../backend/cpu/cpu_internal.h"
#include "../models/layers.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

/* a row's coalitions per task when its coalitions are shared out */
#define GROUP 16

static long fast_calls;

int ee_cnn_coalition_fits(const EeModel *m)
{
    for (int k = 0; k < m->cfg.nwidths; k++)
        if (m->cfg.widths[k] > EE_CNN_COALITION_WMAX) return 0;
    return 1;
}

double ee_cnn_coalition_bytes(const EeModel *m)
{
    const EeConfig *c = &m->cfg;
    double T = c->T, d = c->d, F = c->filters, wsum = 0, wmax = 1, tab = 0;
    for (int k = 0; k < c->nwidths; k++) {
        wsum += c->widths[k];
        if (c->widths[k] > wmax) wmax = c->widths[k];
        tab += (double)ee_cnn_table_floats(c->widths[k], c->T, c->filters);
    }
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    /* row_alloc (every thread may hold a row) and group_alloc, as allocated there */
    double row = T * (1 + 5 * 4.0) + 4.0 * (2 * T * d + T * wmax * d + T * F + c->nwidths * F + c->classes) +
                 4.0 * (2 * T * wsum * F + 2 * T * F * c->nwidths + tab);
    double group = 8.0 * (T / 64 + 2) + 4.0 * c->nwidths * F;
    return nth * (row + group) + 4.0 * F;
}

long ee_cnn_coalition_calls(void)
{
    long c;
    #pragma omp atomic read
    c = fast_calls;
    return c;
}

typedef struct {
    EeModel *m;
    const EeInput *in;
    const EeAttrOptions *o;
    const long *first;
    const uint64_t *coal;
    int words, T, d, K, F, wmax;
    size_t KF;
    int32_t *target;
    float *fx, *value, *vempty;
    const float *zeros; /* F zeros: the bias of a bias-free cnn */
    int occlusion;      /* a copy with no player absent is no occlusion window: NaN */
} Job;

/* One row's numbers, shared by its coalitions. */
typedef struct {
    CnnView v;                  /* v.L: the row's active length */
    uint8_t *mask;
    int32_t *base, *bid;        /* bid: the baseline's distinct tokens */
    int *player, *pos, *map, *bsrc; /* pos: each player's position */
    float *e2;                  /* [2L][d]: the input's embeddings, then the baseline's distinct ones */
    float *P[EE_MAX_WIDTHS];    /* width k: [2L][w][F], X (p < L) then B; then D = X - B in X's place */
    float *S[EE_MAX_WIDTHS];    /* width k: [2L][F], the windows all present Xs then all absent Bs */
    float *tab[EE_MAX_WIDTHS];  /* width k's subset table (cnn_table.h), NULL: its difference rows are read */
    int use[EE_MAX_WIDTHS];     /* whether this row reads width k's table (else its difference rows) */
    float *pre[EE_MAX_WIDTHS], *suf[EE_MAX_WIDTHS]; /* width k: [L+1][F], running maxima, every player present */
    uint64_t *pall;             /* the presence bits with every player present */
    float *scratch, *outx, *bestx, *z;
    int n;                      /* players */
} Row;

/* A thread's buffers for one coalition. */
typedef struct {
    uint64_t *pbits;            /* bit t: the copy holds the row's own token at t */
    float *best;                /* [KF] */
} Group;

static int row_alloc(const Job *j, const EeCnnView *w, const EeBackend *be, Row *r)
{
    int T = j->T, d = j->d, F = j->F;
    memset(r, 0, sizeof *r);
    r->v = (CnnView){.w = *w, .be = be};
    /* the products and windows (up to MBs a row) from ee_host_alloc: kept between calls */
    r->mask = malloc((size_t)T);
    r->base = malloc(sizeof(int32_t) * T);
    r->player = malloc(sizeof(int) * T);
    r->pos = malloc(sizeof(int) * T);
    r->map = malloc(sizeof(int) * T);
    r->pall = malloc(sizeof(uint64_t) * ((size_t)T / 64 + 2));
    r->bid = malloc(sizeof(int32_t) * T);
    r->bsrc = malloc(sizeof(int) * T);
    r->e2 = ee_host_alloc(sizeof(float) * 2 * (size_t)T * d);
    r->scratch = ee_host_alloc(sizeof(float) * (size_t)T * j->wmax * d);
    r->outx = ee_host_alloc(sizeof(float) * (size_t)T * F);
    r->bestx = malloc(sizeof(float) * j->KF);
    r->z = malloc(sizeof(float) * w->C);
    int ok = r->mask && r->base && r->player && r->pos && r->map && r->pall && r->bid && r->bsrc && r->e2 &&
             r->scratch && r->outx && r->bestx && r->z;
    for (int k = 0; k < j->K && ok; k++) {
        r->P[k] = ee_host_alloc(sizeof(float) * 2 * (size_t)T * w->widths[k] * F);
        r->S[k] = ee_host_alloc(sizeof(float) * 2 * (size_t)T * F);
        r->pre[k] = ee_host_alloc(sizeof(float) * (T + 1) * (size_t)F);
        r->suf[k] = ee_host_alloc(sizeof(float) * (T + 1) * (size_t)F);
        size_t nt = ee_cnn_table_floats(w->widths[k], T, F);
        if (nt) r->tab[k] = ee_host_alloc(sizeof(float) * nt);
        ok = r->P[k] && r->S[k] && r->pre[k] && r->suf[k] && (!nt || r->tab[k]);
    }
    return ok;
}

static void row_free(Row *r)
{
    free(r->mask); free(r->base); free(r->player); free(r->pos); free(r->map); free(r->pall); free(r->bid);
    free(r->bsrc); ee_host_free(r->e2); ee_host_free(r->scratch); ee_host_free(r->outx); free(r->bestx); free(r->z);
    for (int k = 0; k < EE_MAX_WIDTHS; k++) {
        ee_host_free(r->P[k]); ee_host_free(r->S[k]); ee_host_free(r->tab[k]);
        ee_host_free(r->pre[k]); ee_host_free(r->suf[k]);
    }
}

static int group_alloc(const Job *j, Group *g)
{
    memset(g, 0, sizeof *g);
    g->pbits = malloc(sizeof(uint64_t) * ((size_t)j->T / 64 + 2));
    g->best = malloc(sizeof(float) * j->KF);
    return g->pbits && g->best;
}

static void group_free(Group *g)
{
    free(g->pbits); free(g->best);
}

/* max over the attended positions of width k's pre-activations outx */
static void max_over_time(const Row *r, int F, float *b)
{
    for (int f = 0; f < F; f++) b[f] = -INFINITY;
    for (int t = 0; t < r->v.L; t++) {
        const float *ot = r->outx + (size_t)t * F;
        if (!r->mask[t]) continue;
        #pragma omp simd
        for (int f = 0; f < F; f++) b[f] = ot[f] > b[f] ? ot[f] : b[f];
    }
}

/* Which rows D window t of width w adds (*neg 0: its present positions,
 * onto Bs[t]) or subtracts (*neg 1: its absent ones, from Xs[t]): the
 * fewer of the two, bit o for offset o, over the nj positions before L. */
static inline __attribute__((always_inline)) uint64_t window_rows(const uint64_t *pb, int t, int L, int w, int *neg)
{
    int nj = L - t < w ? L - t : w;
    uint64_t full = nj == 64 ? ~0ULL : (1ULL << nj) - 1, bits = ee_cnn_bits_at(pb, t) & full;
    *neg = 2 * __builtin_popcountll(bits) > nj;
    return *neg ? ~bits & full : bits;
}

/* Window t of width k for the presence bits pb into a [F]: its chain of
 * additions (windows_max_c's, one window). */
static void window_sum(const Row *r, int k, const uint64_t *pb, int t, float *a)
{
    int L = r->v.L, w = r->v.w.widths[k], F = r->v.w.F, neg;
    size_t wF = (size_t)w * F;
    uint64_t sel = window_rows(pb, t, L, w, &neg);
    memcpy(a, r->S[k] + ((size_t)(neg ? 0 : L) + t) * F, sizeof(float) * F);
    for (; sel; sel &= sel - 1) {
        int o = __builtin_ctzll(sel);
        const float *d = r->P[k] + (size_t)(t + o) * wF + (size_t)o * F;
        if (neg) {
            #pragma omp simd
            for (int f = 0; f < F; f++) a[f] -= d[f];
        } else {
            #pragma omp simd
            for (int f = 0; f < F; f++) a[f] += d[f];
        }
    }
}

/* Coalition S's first and last position of an absent player (-1, -1:
 * none absent) and whether a player is present, a word at a time. */
static void absent_span(const Row *r, const uint64_t *S, int words, int *lo, int *hi, int *any)
{
    int n = r->n, first_out = -1, last_out = -1, a = 0;
    for (int wd = 0; wd < words && wd * 64 < n; wd++) {
        uint64_t valid = n - wd * 64 >= 64 ? ~0ULL : (1ULL << (n - wd * 64)) - 1, out = ~S[wd] & valid;
        a |= (S[wd] & valid) != 0;
        if (!out) continue;
        if (first_out < 0) first_out = wd * 64 + __builtin_ctzll(out);
        last_out = wd * 64 + 63 - __builtin_clzll(out);
    }
    *lo = first_out < 0 ? -1 : r->pos[first_out];
    *hi = last_out < 0 ? -1 : r->pos[last_out];
    *any = a;
}

/* The windows of width k that a coalition reads: those that see one of
 * its absent players, t0 .. t1 (t1 < t0: none). */
static void span_windows(int lo, int hi, int w, int *t0, int *t1)
{
    *t0 = lo < 0 ? 0 : lo - w + 1 > 0 ? lo - w + 1 : 0;
    *t1 = lo < 0 ? -1 : hi;
}

/* Whether row i reads width k from its table: when its coalitions read at
 * least as many windows as the table has rows (occlusion reads a few
 * windows per copy, LIME's coalitions every window). Either way the same
 * bits. */
static int table_pays(const Job *j, const Row *r, int i, int k)
{
    int w = r->v.w.widths[k];
    double reads = 0;
    if (ee_cnn_table_always()) return 1;
    for (long c = j->first[i]; c < j->first[i + 1]; c++) {
        int lo, hi, any, t0, t1;
        absent_span(r, j->coal + (size_t)c * j->words, j->words, &lo, &hi, &any);
        span_windows(lo, hi, w, &t0, &t1);
        if (any) reads += t1 - t0 + 1;
    }
    return reads >= (double)((size_t)r->v.L << w);
}

/* Row i: its positions and players, f(x) and the target, v(empty) and the
 * products X and B of every width. */
static void row_begin(const Job *j, Row *r, int i)
{
    int T = j->T, d = j->d, K = j->K, F = j->F;
    CnnView *v = &r->v;
    const int32_t *ids = j->in->ids + (size_t)i * T;
    ee_attr_row_mask(j->m, j->in, i, r->mask);
    ee_attr_row_baseline(j->m, j->in, j->o, i, r->base);
    int n = 0;
    v->L = 1; /* windows past the last token or attended position see only zeros */
    for (int t = 0; t < T; t++) {
        if (r->mask[t] || ids[t] != EE_PAD || r->base[t] != EE_PAD) v->L = t + 1;
        r->player[t] = EE_IS_SPECIAL(ids[t]) ? -1 : n;
        if (r->player[t] >= 0) r->pos[n++] = t;
    }
    r->n = n;
    int L = v->L;
    memset(r->pall, 0, sizeof(uint64_t) * ((size_t)L / 64 + 2));
    for (int q = 0; q < n; q++) r->pall[r->pos[q] >> 6] |= 1ULL << (r->pos[q] & 63);
    /* the input's embeddings, then the baseline's distinct ones: B[p]
     * depends on p's token alone, so a token the input holds there (a
     * special) or that the baseline held a few positions before (PAD, a
     * repeated id) is the same row (bsrc[p]: its row in e2) */
    int nd = 0;
    for (int t = 0; t < L; t++) {
        memcpy(r->e2 + (size_t)t * d, v->w.E + (size_t)ids[t] * d, sizeof(float) * d);
        if (r->base[t] == ids[t]) { r->bsrc[t] = t; continue; }
        int q = nd - 1;
        while (q >= 0 && q >= nd - 8 && r->bid[q] != r->base[t]) q--;
        if (q < 0 || q < nd - 8) {
            q = nd++;
            r->bid[q] = r->base[t];
        }
        r->bsrc[t] = L + q;
    }
    for (int q = 0; q < nd; q++)
        memcpy(r->e2 + (size_t)(L + q) * d, v->w.E + (size_t)r->bid[q] * d, sizeof(float) * d);
    /* f(x): the model's own ops on the input (its max pool keeps a maximum
     * above 0, else 0; then the classifier), a forward pass's bits */
    for (int k = 0; k < K; k++) {
        ee_cnn_windows(v, k, r->e2, 0, L - 1, r->scratch, r->outx);
        float *b = r->bestx + (size_t)k * F;
        max_over_time(r, F, b);
        for (int f = 0; f < F; f++) b[f] = b[f] > 0 ? b[f] : 0;
    }
    ee_linear_fwd(v->be, r->bestx, v->w.Wc, v->w.bc, r->z, 1, (int)j->KF, v->w.C);
    j->target[i] = j->o->target ? j->o->target[i] : ee_argmax(r->z, v->w.C);
    j->fx[i] = r->z[j->target[i]];
    if (n == 0) { /* nothing can be absent: no coalitions, v(empty) = f(x) */
        j->vempty[i] = j->fx[i];
        return;
    }
    /* v(empty): the baseline's windows, through the backend's product */
    for (int k = 0; k < K; k++) {
        ee_cnn_windows_ids(v, k, r->base, r->scratch, r->map, r->outx);
        max_over_time(r, F, r->bestx + (size_t)k * F);
    }
    j->vempty[i] = ee_cnn_value(v, r->bestx, j->target[i]);
    /* X and B: offset o of width k is the product of the 2L embeddings
     * with W_k's rows o d .. o d + d - 1, into columns o F of each row */
    for (int k = 0; k < K; k++) {
        int w = v->w.widths[k];
        size_t wF = (size_t)w * F;
        float *X = r->P[k], *B = X + (size_t)L * wF;
        const float *bias = v->w.b[k] ? v->w.b[k] : j->zeros;
        for (int o = 0; o < w; o++)
            v->be->gemm(0, 0, L + nd, F, d, 1.0f, r->e2, d, v->w.W[k] + (size_t)o * d * F, F, 0.0f,
                        X + (size_t)o * F, w * F);
        /* B [p] from its row, from the last position down: row L + q is
         * written after every position that reads it (they come at or
         * after its first reader, at or after q) */
        for (int t = L - 1; t >= 0; t--)
            if (r->bsrc[t] != L + t) memcpy(B + (size_t)t * wF, X + (size_t)r->bsrc[t] * wF, sizeof(float) * wF);
        /* Xs, Bs: each window all present and all absent, bias first,
         * then the offsets in order (zeros past L add nothing) */
        for (int h = 0; h < 2; h++)
            for (int t = 0; t < L; t++) {
                float *a = r->S[k] + ((size_t)h * L + t) * F;
                const float *P = h ? B : X;
                memcpy(a, bias, sizeof(float) * F);
                for (int o = 0; o < w && t + o < L; o++) {
                    const float *p = P + (size_t)(t + o) * wF + (size_t)o * F;
                    #pragma omp simd
                    for (int f = 0; f < F; f++) a[f] += p[f];
                }
            }
        /* D = X - B, the change of a window when one of its positions
         * turns present */
        for (size_t q = 0; q < (size_t)L * wF; q++) X[q] -= B[q];
        /* the windows with every player present as a coalition's chains
         * give them, and their running maxima: a coalition's windows that
         * see no absent player take their maximum from these */
        for (int t = 0; t < L; t++) window_sum(r, k, r->pall, t, r->outx + (size_t)t * F);
        ee_cnn_running_max(v, r->outx, r->mask, r->pre[k], r->suf[k]);
        r->use[k] = r->tab[k] && table_pays(j, r, i, k);
        if (r->use[k]) ee_cnn_table_build(r->tab[k], X, r->S[k], r->S[k] + (size_t)L * F, L, w, F);
    }
}

/* One coalition's maxima of width k over the filters f0 .. f0+nf-1. The
 * window t with m of its nj positions present starts from Xs[t] (m = nj),
 * Bs[t] (m = 0), else Bs[t] plus the rows D [t + o][o] of its present
 * positions when they are at most half, Xs[t] minus those of its absent
 * ones otherwise: at most nj / 2 rows per window, in increasing o. Each
 * filter's chain: the start, then the rows in order; the max keeps the
 * larger (a NaN never wins). Plain C, 16 filters at a time. */
static inline __attribute__((always_inline)) void windows_max_c(const Row *r, int k, const uint64_t *pb, int t0,
                                                                int t1, float *best)
{
    int L = r->v.L, w = r->v.w.widths[k], F = r->v.w.F;
    size_t wF = (size_t)w * F;
    const float *D = r->P[k], *Xs = r->S[k], *Bs = r->S[k] + (size_t)L * F;
    for (int e0 = 0; e0 < F; e0 += 16) {
        int ne = F - e0 < 16 ? F - e0 : 16;
        float b[16], a[16];
        for (int e = 0; e < 16; e++) b[e] = -INFINITY;
        for (int t = t0; t <= t1; t++) {
            if (!r->mask[t]) continue;
            int neg;
            uint64_t sel = window_rows(pb, t, L, w, &neg);
            const float *s0 = (neg ? Xs : Bs) + (size_t)t * F + e0;
            if (ne == 16) { /* constant trip counts: vector code */
                #pragma omp simd
                for (int e = 0; e < 16; e++) a[e] = s0[e];
                for (; sel; sel &= sel - 1) {
                    int o = __builtin_ctzll(sel);
                    const float *d = D + (size_t)(t + o) * wF + (size_t)o * F + e0;
                    if (neg) {
                        #pragma omp simd
                        for (int e = 0; e < 16; e++) a[e] -= d[e];
                    } else {
                        #pragma omp simd
                        for (int e = 0; e < 16; e++) a[e] += d[e];
                    }
                }
                #pragma omp simd
                for (int e = 0; e < 16; e++) b[e] = a[e] > b[e] ? a[e] : b[e];
                continue;
            }
            for (int e = 0; e < ne; e++) a[e] = s0[e];
            for (; sel; sel &= sel - 1) {
                int o = __builtin_ctzll(sel);
                const float *d = D + (size_t)(t + o) * wF + (size_t)o * F + e0;
                if (neg)
                    for (int e = 0; e < ne; e++) a[e] -= d[e];
                else
                    for (int e = 0; e < ne; e++) a[e] += d[e];
            }
            for (int e = 0; e < ne; e++) b[e] = a[e] > b[e] ? a[e] : b[e];
        }
        memcpy(best + e0, b, sizeof(float) * ne);
    }
}

static void windows_max_base(const Row *r, int k, const uint64_t *pb, int t0, int t1, float *best)
{
    windows_max_c(r, k, pb, t0, t1, best);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void windows_max_avx2(const Row *r, int k, const uint64_t *pb, int t0, int t1,
                                                             float *best)
{
    windows_max_c(r, k, pb, t0, t1, best);
}

/* The same chains, NV vectors of 16 filters (f0 ..) at a time in
 * registers, the last one masked to `tail`; NV is a constant of each call
 * below, so the loops over v unroll to straight code. vmaxps (a, b) is
 * a > b ? a : b, the scalar comparison. */
static inline __attribute__((always_inline, target("avx512f,avx2"))) void
windows_block_avx512(const Row *r, int k, const uint64_t *pb, int t0, int t1, int f0, int NV, __mmask16 tail,
                     float *best)
{
    int L = r->v.L, w = r->v.w.widths[k], F = r->v.w.F;
    size_t wF = (size_t)w * F;
    const float *D = r->P[k] + f0, *Xs = r->S[k] + f0, *Bs = r->S[k] + (size_t)L * F + f0;
    __m512 b[8], a[8];
    #pragma GCC unroll 8
    for (int v = 0; v < NV; v++) b[v] = _mm512_set1_ps(-INFINITY);
    for (int t = t0; t <= t1; t++) {
        if (!r->mask[t]) continue;
        int neg;
        uint64_t sel = window_rows(pb, t, L, w, &neg);
        const float *s0 = (neg ? Xs : Bs) + (size_t)t * F;
        #pragma GCC unroll 8
        for (int v = 0; v < NV; v++)
            a[v] = v < NV - 1 ? _mm512_loadu_ps(s0 + v * 16) : _mm512_maskz_loadu_ps(tail, s0 + v * 16);
        for (; sel; sel &= sel - 1) {
            int o = __builtin_ctzll(sel);
            const float *d = D + (size_t)(t + o) * wF + (size_t)o * F;
            #pragma GCC unroll 8
            for (int v = 0; v < NV; v++) {
                __m512 x = v < NV - 1 ? _mm512_loadu_ps(d + v * 16) : _mm512_maskz_loadu_ps(tail, d + v * 16);
                a[v] = neg ? _mm512_sub_ps(a[v], x) : _mm512_add_ps(a[v], x);
            }
        }
        #pragma GCC unroll 8
        for (int v = 0; v < NV; v++) b[v] = _mm512_max_ps(a[v], b[v]);
    }
    #pragma GCC unroll 8
    for (int v = 0; v < NV; v++) _mm512_mask_storeu_ps(best + f0 + v * 16, v < NV - 1 ? 0xFFFF : tail, b[v]);
}

__attribute__((target("avx512f,avx2"))) static void windows_max_avx512(const Row *r, int k, const uint64_t *pb,
                                                                        int t0, int t1, float *best)
{
    int F = r->v.w.F;
    for (int f0 = 0; f0 < F; f0 += 128) {
        int nv = (F - f0 + 15) / 16 < 8 ? (F - f0 + 15) / 16 : 8, lanes = F - f0 - (nv - 1) * 16;
        __mmask16 tail = (__mmask16)(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
        switch (nv) {
        case 1: windows_block_avx512(r, k, pb, t0, t1, f0, 1, tail, best); break;
        case 2: windows_block_avx512(r, k, pb, t0, t1, f0, 2, tail, best); break;
        case 3: windows_block_avx512(r, k, pb, t0, t1, f0, 3, tail, best); break;
        case 4: windows_block_avx512(r, k, pb, t0, t1, f0, 4, tail, best); break;
        case 5: windows_block_avx512(r, k, pb, t0, t1, f0, 5, tail, best); break;
        case 6: windows_block_avx512(r, k, pb, t0, t1, f0, 6, tail, best); break;
        case 7: windows_block_avx512(r, k, pb, t0, t1, f0, 7, tail, best); break;
        default: windows_block_avx512(r, k, pb, t0, t1, f0, 8, tail, best); break;
        }
    }
}
#endif

/* Coalitions c0..c1-1 of row i (at most GROUP). */
static void group_values(const Job *j, const Row *r, int i, long c0, long c1, Group *gb)
{
    const CnnView *v = &r->v;
    int L = v->L, G = (int)(c1 - c0), K = j->K, F = j->F;
    long k0 = j->first[i];
    for (int g = 0; g < G; g++) {
        const uint64_t *S = j->coal + (size_t)(k0 + c0 + g) * j->words;
        float *value = j->value + k0 + c0 + g;
        int lo, hi, any;
        absent_span(r, S, j->words, &lo, &hi, &any);
        if (!any) { *value = j->vempty[i]; continue; } /* every token absent: v(empty) */
        if (lo < 0 && j->occlusion) { *value = NAN; continue; }
        uint64_t *pb = gb->pbits;
        memset(pb, 0, sizeof(uint64_t) * ((size_t)L / 64 + 2));
        for (int t = lo < 0 ? L : 0; t < L; t++) {
            int pl = r->player[t];
            /* a special keeps its token: the baseline's is the same */
            uint64_t in = pl >= 0 && (S[pl / 64] >> (pl % 64) & 1);
            pb[t >> 6] |= in << (t & 63);
        }
        for (int k = 0; k < K; k++) {
            int w = v->w.widths[k], t0, t1;
            float *best = gb->best + (size_t)k * F;
            span_windows(lo, hi, w, &t0, &t1);
            if (r->use[k]) ee_cnn_table_max(r->tab[k], pb, r->mask, t0, t1, w, F, best);
#if defined(__x86_64__) && defined(__GNUC__)
            else if (ee_cpu_use_avx512()) windows_max_avx512(r, k, pb, t0, t1, best);
            else if (ee_cpu_use_avx2()) windows_max_avx2(r, k, pb, t0, t1, best);
#endif
            else windows_max_base(r, k, pb, t0, t1, best);
            /* the windows before and after, which see every player present */
            const float *p = r->pre[k] + (size_t)t0 * F, *q = r->suf[k] + (size_t)(t1 + 1) * F;
            #pragma omp simd
            for (int f = 0; f < F; f++) {
                float b = p[f] > best[f] ? p[f] : best[f];
                best[f] = q[f] > b ? q[f] : b;
            }
        }
        *value = ee_cnn_value(v, gb->best, j->target[i]);
    }
}

static long groups_of(const Job *j, int i)
{
    return (j->first[i + 1] - j->first[i] + GROUP - 1) / GROUP;
}

static void row_groups(const Job *j, const Row *r, int i, long g0, long g1, Group *gb)
{
    long nk = j->first[i + 1] - j->first[i];
    if (r->n == 0) return;
    for (long g = g0; g < g1; g++) {
        long c0 = g * GROUP, c1 = c0 + GROUP < nk ? c0 + GROUP : nk;
        group_values(j, r, i, c0, c1, gb);
    }
}

typedef struct {
    double cost;
    int i;
} Order;

static int order_cmp(const void *a, const void *b)
{
    const Order *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* A row's work, for the order of the rows: its products and each
 * coalition's windows scale with its length (up to its last token). */
static double row_cost(const Job *j, int i)
{
    const int32_t *ids = j->in->ids + (size_t)i * j->T;
    int len = j->T;
    while (len > 1 && ids[len - 1] == EE_PAD) len--;
    return (double)len * (j->first[i + 1] - j->first[i] + 1);
}

/* The rows: with at least two rows per thread, each thread takes whole
 * rows (one team for the call), else the rows one by one with their
 * groups of coalitions shared out (one team per row). All buffers are
 * allocated before the team starts. */
EeStatus ee_cnn_coalition_values(EeModel *m, const EeBackend *be, const EeInput *in, const EeAttrOptions *o,
                                 const char *what, int occlusion, const long *first, const uint64_t *coal,
                                 int words, int32_t *target, float *fx, float *value, float *vempty)
{
    const EeConfig *c = &m->cfg;
    EeCnnView w;
    EeStatus st = ee_cnn_view(m, m->w, &w);
    if (st) return st;
    #pragma omp atomic
    fast_calls++;
    Job j = {m, in, o, first, coal, words, c->T, c->d, w.K, w.F, 1, (size_t)w.K * w.F, target, fx, value, vempty,
             NULL, occlusion};
    for (int k = 0; k < w.K; k++)
        if (c->widths[k] > j.wmax) j.wmax = c->widths[k];
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    int by_rows = in->n >= 2 * nth && nth > 1, nrow = by_rows ? nth : 1;
    float *zeros = calloc((size_t)w.F, sizeof(float));
    Row *rb = calloc((size_t)nrow, sizeof *rb);
    Group *gb = calloc((size_t)nth, sizeof *gb);
    Order *order = malloc(sizeof(Order) * (in->n ? in->n : 1));
    int ok = zeros && rb && gb && order;
    for (int t = 0; ok && t < nrow; t++) ok = row_alloc(&j, &w, be, rb + t);
    for (int t = 0; ok && t < nth; t++) ok = group_alloc(&j, gb + t);
    j.zeros = zeros;
    if (!ok) st = ee_fail(EE_ERR_NOMEM, "out of memory for the cnn's %s values", what);
    EeProgress prog;
    ee_progress_start(&prog, o, what, in->n);
    if (!st && by_rows) {
        /* the most work first, so that the last rows to finish are short */
        for (int i = 0; i < in->n; i++) order[i] = (Order){row_cost(&j, i), i};
        qsort(order, (size_t)in->n, sizeof *order, order_cmp);
        int stop = 0;
        long done = 0;
        #pragma omp parallel
        {
            int th = 0;
#ifdef _OPENMP
            th = omp_get_thread_num();
#endif
            #pragma omp for schedule(dynamic, 1)
            for (int q = 0; q < in->n; q++) {
                int halt;
                #pragma omp atomic read
                halt = stop;
                if (halt) continue;
                if (th == 0) { /* the interrupt hook and the progress belong to the calling thread */
                    long dn;
                    #pragma omp atomic read
                    dn = done;
                    ee_progress_tick(&prog, dn);
                    if (ee_interrupted()) {
                        #pragma omp atomic write
                        stop = 1;
                        continue;
                    }
                }
                int i = order[q].i;
                row_begin(&j, rb + th, i);
                row_groups(&j, rb + th, i, 0, groups_of(&j, i), gb + th);
                #pragma omp atomic
                done++;
            }
        }
        if (stop) st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during the %s values", what);
    }
    for (int i = 0; i < in->n && !st && !by_rows; i++) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during the %s values", what); break; }
        ee_progress_tick(&prog, i);
        row_begin(&j, rb, i);
        long groups = groups_of(&j, i);
        #pragma omp parallel if (groups > 1)
        {
            int th = 0;
#ifdef _OPENMP
            th = omp_get_thread_num();
#endif
            #pragma omp for schedule(dynamic, 1)
            for (long g = 0; g < groups; g++) row_groups(&j, rb, i, g, g + 1, gb + th);
        }
    }
    ee_progress_end(&prog, st ? 0 : in->n, 0);
    for (int t = 0; rb && t < nrow; t++) row_free(rb + t);
    for (int t = 0; gb && t < nth; t++) group_free(gb + t);
    free(rb); free(gb); free(order); free(zeros);
    return st;
}
