/* tf_incremental.c: layer 0's attention of an occlusion copy from its
 * row's, for the transformer on the CPU (doc/MODELS.md, "CPU shortcuts").
 *
 * Why: an occlusion or ablation copy differs from its row x only in one
 * window of positions [lo, hi]. With layer 0's q, k, v of every position
 * taken from the row's cache (tf_cache.c), the full attention still costs
 * O(L^2 d) per copy (with its zeroed score blocks and the copies of q, k,
 * v into the run, about a quarter of an ablation call's time on the
 * bench's model), while only the window's keys and values differ from
 * x's. So per row, once: for every query i and
 * head, the softmax state of x's keys before each position a (prefix) and
 * from each position b on (suffix): the largest score m, the sum s of
 * exp(score - m) and the sum u of exp(score - m) v. Each is built by
 * the online softmax (a larger score rescales what is summed so far), so
 * nothing is ever subtracted: no cancellation, and no exp underflows
 * because of a large score the copy no longer has. A copy's query i
 * outside its changed positions then takes the prefix at lo and the
 * suffix at hi + 1, the window's keys (the baseline's where the copy has
 * the baseline's token) scored afresh, all rescaled to their common
 * largest score: O(w d) per query instead of O(L d). A query at a
 * changed position (its own q is the baseline's) is computed in full.
 * The rest of the pass starts at layer 0's out projection
 * (ee_tf_layer0_ctx). The values agree with full passes to float
 * rounding, not bit for bit (other summation order; the same exp); a
 * copy's numbers come from its row's alone, so they are the same bits
 * for any batch and thread count. */
#include "attr_common.h"
#include "../backend/cpu/cpu_math.h" /* fast_expf: the exp of the CPU softmax */

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct EeTfWindows {
    int S;               /* attended span of the row: keys and queries < S */
    int H, dh, d, T, R;  /* R = 2 H + d: floats of a record */
    float scale;
    const float *cache;  /* the row's tf_cache (not owned) */
    uint8_t *mask;       /* the row's attention mask [T] */
    /* [S + 1][S] records of R floats: at a (prefix: keys k < a; suffix:
     * keys k >= a) and query i, m of each head, s of each head, u of each
     * head side by side as in the attention output (m = -inf, s = u = 0:
     * no key). Allocated for T positions, so that every row's block has
     * the same size and ee_host_alloc hands the kept one back. */
    float *pre, *suf;
};

static long window_calls;

long ee_tf_window_calls(void)
{
    long n;
    #pragma omp atomic read
    n = window_calls;
    return n;
}

static size_t record_floats(const EeConfig *c) { return (size_t)(c->T + 1) * c->T * (2 * c->heads + c->d); }

double ee_tf_windows_bytes(const EeConfig *c) { return 2.0 * record_floats(c) * sizeof(float) + c->T; }

int ee_tf_windows_apply(const EeConfig *c)
{
    return c->kind == EE_KIND_TRANSFORMER && c->head == EE_HEAD_CLASSIFIER && c->layers >= 2 && !ee_config_features(c);
}

/* out[h] = scale q_h . k_h for each head h of the d = H dh columns */
static inline void head_dots(const float *q, const float *k, int H, int dh, float scale, float *out)
{
    for (int h = 0; h < H; h++) {
        const float *a = q + h * dh, *b = k + h * dh;
        float s = 0;
        #pragma omp simd reduction(+ : s)
        for (int c = 0; c < dh; c++) s += a[c] * b[c];
        out[h] = scale * s;
    }
}

/* Adds the keys with scores e[h] (already scaled) and values v [d] to the
 * record st (one key, every head). */
static inline void record_add(float *st, const float *e, const float *v, int H, int dh)
{
    float *m = st, *s = st + H, *u = st + 2 * H;
    for (int h = 0; h < H; h++) {
        float *uh = u + h * dh;
        const float *vh = v + h * dh;
        if (e[h] > m[h]) { /* a new largest score: what is summed so far shrinks */
            float f = m[h] == -INFINITY ? 0.0f : fast_expf(m[h] - e[h]);
            s[h] *= f;
            #pragma omp simd
            for (int c = 0; c < dh; c++) uh[c] *= f;
            m[h] = e[h];
        }
        float p = fast_expf(e[h] - m[h]);
        s[h] += p;
        #pragma omp simd
        for (int c = 0; c < dh; c++) uh[c] += p * vh[c];
    }
}

EeStatus ee_tf_windows_new(const EeModel *m, const EeInput *in, int i, const float *cache, EeTfWindows **out)
{
    const EeConfig *c = &m->cfg;
    *out = NULL;
    EeTfWindows *w = calloc(1, sizeof *w);
    if (!w) return ee_fail(EE_ERR_NOMEM, "out of memory for the occlusion's attention sums");
    w->T = c->T; w->d = c->d; w->H = c->heads; w->dh = c->d / c->heads; w->R = 2 * c->heads + c->d;
    w->scale = 1.0f / sqrtf((float)w->dh);
    w->cache = cache;
    w->mask = malloc((size_t)c->T);
    /* megabytes a row, filled once and read by each copy: from ee_host_alloc,
     * whose blocks are kept between rows and calls (malloc maps and unmaps
     * them, and the page faults of each fresh mapping cost more than filling it) */
    w->pre = ee_host_alloc(sizeof(float) * record_floats(c));
    w->suf = ee_host_alloc(sizeof(float) * record_floats(c));
    if (!w->mask || !w->pre || !w->suf) {
        ee_tf_windows_free(w);
        return ee_fail(EE_ERR_NOMEM, "out of memory for the occlusion's attention sums (%.0f MB)",
                       ee_tf_windows_bytes(c) / 1e6);
    }
    ee_attr_row_mask(m, in, i, w->mask);
    for (int t = 0; t < c->T; t++)
        if (w->mask[t]) w->S = t + 1;
    int S = w->S, H = w->H, dh = w->dh, d = w->d, R = w->R;
    size_t Td = (size_t)c->T * d, at = (size_t)S * R; /* floats from position a to a + 1 */
    const float *Q = cache + EE_TFC_QX * Td, *K = cache + EE_TFC_KX * Td, *V = cache + EE_TFC_VX * Td;
    /* the sums with no key, then position by position each block from its
     * neighbour; queries apart: each query's sums depend on its own data
     * alone, so the threads change no bit */
    for (int q = 0; q < S; q++) {
        float *P = w->pre + (size_t)q * R, *U = w->suf + (size_t)S * at + (size_t)q * R;
        for (int h = 0; h < H; h++) P[h] = U[h] = -INFINITY;
        memset(P + H, 0, sizeof(float) * (H + d));
        memset(U + H, 0, sizeof(float) * (H + d));
    }
    int fail = 0;
    #pragma omp parallel reduction(|| : fail) if ((size_t)S * S * d > 65536)
    {
    float *e = malloc(sizeof(float) * H);
    fail = !e;
    #pragma omp for schedule(static)
    for (int q0 = 0; q0 < S; q0 += 8) { /* 8 queries: a block's writes are contiguous */
        if (!e) continue;
        int q1 = q0 + 8 < S ? q0 + 8 : S;
        size_t off = (size_t)q0 * R, span = (size_t)(q1 - q0) * R;
        for (int a = 0; a < S; a++) { /* pre[a + 1] = pre[a] and key a */
            float *st = w->pre + (size_t)(a + 1) * at + off;
            memcpy(st, st - at, sizeof(float) * span);
            if (!w->mask[a]) continue;
            for (int q = q0; q < q1; q++) {
                head_dots(Q + (size_t)q * d, K + (size_t)a * d, H, dh, w->scale, e);
                record_add(st + (size_t)(q - q0) * R, e, V + (size_t)a * d, H, dh);
            }
        }
        for (int b = S - 1; b >= 0; b--) { /* suf[b] = suf[b + 1] and key b */
            float *st = w->suf + (size_t)b * at + off;
            memcpy(st, st + at, sizeof(float) * span);
            if (!w->mask[b]) continue;
            for (int q = q0; q < q1; q++) {
                head_dots(Q + (size_t)q * d, K + (size_t)b * d, H, dh, w->scale, e);
                record_add(st + (size_t)(q - q0) * R, e, V + (size_t)b * d, H, dh);
            }
        }
    }
    free(e);
    }
    if (fail) {
        ee_tf_windows_free(w);
        return ee_fail(EE_ERR_NOMEM, "out of memory for the occlusion's attention sums");
    }
    *out = w;
    return EE_OK;
}

void ee_tf_windows_free(EeTfWindows *w)
{
    if (!w) return;
    free(w->mask);
    ee_host_free(w->pre);
    ee_host_free(w->suf);
    free(w);
}

/* exp of n arguments in place, masked ones (keep[j] == 0) exactly 0, as
 * the CPU softmax: one vector loop instead of n scalar calls */
static inline void exp_masked(float *a, const float *keep, int n)
{
    #pragma omp simd
    for (int j = 0; j < n; j++) a[j] = fast_expf(a[j]) * keep[j];
}

/* Layer 0's attention output of one copy (ids `row` of the row x whose
 * windows are w) at L positions into ctx [L][d]; sc: (2 T + 5) H floats
 * of scratch. */
static void copy_ctx(const EeTfWindows *w, const int32_t *x, const int32_t *row, int L, float *ctx, float *sc)
{
    int S = w->S, H = w->H, dh = w->dh, d = w->d, R = w->R;
    size_t Td = (size_t)w->T * d;
    const float *cache = w->cache;
    int lo = S, hi = S - 1; /* the changed positions' span (empty: x itself) */
    for (int t = 0; t < S; t++)
        if (row[t] != x[t]) { if (lo == S) lo = t; hi = t; }
    if (L > S) memset(ctx + (size_t)S * d, 0, sizeof(float) * (size_t)(L - S) * d); /* as the full attention */
    /* per query: [0, 2H) the prefix's and the suffix's factors, then H per
     * key scored afresh; keep: 1, or 0 for a masked key */
    float *arg = sc, *keep = sc + (size_t)(w->T + 2) * H, *mx = keep + (size_t)(w->T + 2) * H;
    for (int q = 0; q < S; q++) {
        int changed = row[q] != x[q];
        const float *qv = cache + (changed ? EE_TFC_QB : EE_TFC_QX) * Td + (size_t)q * d;
        float *o = ctx + (size_t)q * d;
        /* keys k0..k1 scored afresh: every key for a changed query (its q
         * is the baseline's), else the window's; the others' sums from the
         * prefix before lo and the suffix after hi */
        int k0 = changed ? 0 : lo, k1 = changed ? S - 1 : hi, n = (2 + k1 - k0 + 1) * H;
        const float *P = w->pre + ((size_t)lo * S + q) * R, *U = w->suf + ((size_t)(hi + 1) * S + q) * R;
        for (int h = 0; h < H; h++) {
            /* a changed query has no prefix or suffix: factors exactly 0 */
            mx[h] = changed ? -INFINITY : P[h] > U[h] ? P[h] : U[h];
            arg[h] = changed ? 0 : P[h];
            arg[H + h] = changed ? 0 : U[h];
            keep[h] = keep[H + h] = !changed;
        }
        for (int k = k0; k <= k1; k++) {
            float *e = arg + (size_t)(2 + k - k0) * H;
            for (int h = 0; h < H; h++) keep[(size_t)(2 + k - k0) * H + h] = w->mask[k];
            if (!w->mask[k]) { for (int h = 0; h < H; h++) e[h] = 0; continue; }
            head_dots(qv, cache + (row[k] == x[k] ? EE_TFC_KX : EE_TFC_KB) * Td + (size_t)k * d, H, dh, w->scale, e);
            for (int h = 0; h < H; h++) mx[h] = e[h] > mx[h] ? e[h] : mx[h];
        }
        /* everything at the common largest score; an empty prefix or suffix
         * (m = -inf) gets a factor that multiplies its zero sums */
        for (int j = 0; j < n; j += H)
            for (int h = 0; h < H; h++) arg[j + h] -= mx[h];
        exp_masked(arg, keep, n);
        float *sum = mx; /* mx is spent */
        for (int h = 0; h < H; h++) {
            float fp = arg[h], fs = arg[H + h], *oh = o + h * dh;
            const float *pu = P + 2 * H + h * dh, *uu = U + 2 * H + h * dh;
            if (changed) {
                sum[h] = 0;
                memset(oh, 0, sizeof(float) * dh);
            } else {
                sum[h] = fp * P[H + h] + fs * U[H + h];
                #pragma omp simd
                for (int c = 0; c < dh; c++) oh[c] = fp * pu[c] + fs * uu[c];
            }
        }
        for (int k = k0; k <= k1; k++) {
            if (!w->mask[k]) continue;
            const float *p = arg + (size_t)(2 + k - k0) * H;
            const float *v = cache + (row[k] == x[k] ? EE_TFC_VX : EE_TFC_VB) * Td + (size_t)k * d;
            for (int h = 0; h < H; h++) {
                float *oh = o + h * dh, ph = p[h];
                const float *vh = v + h * dh;
                sum[h] += ph;
                #pragma omp simd
                for (int c = 0; c < dh; c++) oh[c] += ph * vh[c];
            }
        }
        for (int h = 0; h < H; h++) {
            float inv = 1.0f / sum[h], *oh = o + h * dh;
            #pragma omp simd
            for (int c = 0; c < dh; c++) oh[c] *= inv;
        }
    }
}

EeStatus ee_tf_window_logits(EeRun *r, const EeInput *in, const EeTfWindows *const *windows, const int *row_i,
                             const int32_t *ids, const uint8_t *mask, int nb, float *out)
{
    const EeConfig *c = &r->m->cfg;
    if (!ee_tf_windows_apply(c))
        return ee_fail(EE_ERR_MODEL, "layer 0's attention of a copy needs a transformer classifier of 2 or more "
                                     "layers");
    int T = c->T, d = c->d;
    int L = ee_run_needed_len(r, ids, mask, nb);
    EeStatus st = ee_run_set_input_len(r, ids, mask, NULL, nb, L);
    if (st) return st;
    const float **cache = malloc(sizeof(float *) * (nb ? nb : 1));
    if (!cache) return ee_fail(EE_ERR_NOMEM, "out of memory");
    for (int j = 0; j < nb; j++) cache[j] = windows[j]->cache;
    float *e = r->e, *ctx = ee_tf_layer0_ctx(r);
    ee_tf_cache_copy(c, in, cache, row_i, ids, nb, L, 1, &e);
    free(cache);
    int fail = 0;
    #pragma omp parallel reduction(|| : fail)
    {
        float *sc = malloc(sizeof(float) * (2 * T + 5) * c->heads);
        fail = !sc;
        #pragma omp for schedule(dynamic, 1)
        for (int j = 0; j < nb; j++)
            if (sc) copy_ctx(windows[j], in->ids + (size_t)row_i[j] * T, ids + (size_t)j * T, L,
                             ctx + (size_t)j * L * d, sc);
        free(sc);
    }
    if (fail) return ee_fail(EE_ERR_NOMEM, "out of memory");
    r->ctx0_given = 1;
    ee_run_forward(r, nb, 0);
    r->be->download(out, r->out, sizeof(float) * (size_t)nb * c->classes);
    #pragma omp atomic
    window_calls++;
    return EE_OK;
}
