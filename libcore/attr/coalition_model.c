/* coalition_model.c: the coalition methods (KernelSHAP, LIME, occlusion
 * with windows and feature ablation) on a built-in classifier (ee.h,
 * ee_coalition_attribute; doc/MODELS.md). Each row's coalitions come from
 * the generic draw of attr/coalition.c (P = the row's players) or, for
 * occlusion, from the windows below; their values from the one masked
 * evaluator, ee_masked_values (kernel_values.c), which fills the passes
 * with all rows' copies in length order (a cnn on the CPU: occlusion
 * incrementally below, KernelSHAP and LIME from per-position products,
 * cnn_coalitions.c; a transformer's occlusion on the CPU with layer 0's
 * attention from the row's, tf_incremental.c); the values then go back to
 * the generic solve, row by row. */
#include "attr_common.h"
#include "cnn_incremental.h"
#include "coalition.h"
#include "../models/layers.h"
#include "../models/run_size.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Windows of occlusion over n players: Captum's count of shifts,
 * ceil((n - w) / s) + 1, the last window cut at the end; one window of
 * all n players when n <= w. */
static long windows(int n, int w, int s)
{
    if (n <= 0) return 0;
    if (n <= w) return 1;
    return (n - w + s - 1) / s + 1;
}

static int occl_window(const EeCoalitionModelOptions *c) { return c->window > 0 ? c->window : 1; }
static int occl_stride(const EeCoalitionModelOptions *c) { return c->stride > 0 ? c->stride : 1; }

/* The generic options of row i with n players (KernelSHAP, LIME). */
static EeCoalitionOptions row_options(const EeCoalitionModelOptions *c, int i, int n)
{
    EeCoalitionOptions m = c->m;
    m.coalitions = NULL;
    m.weights = NULL;
    m.n = 0;
    if (c->coalitions) {
        m.coalitions = c->coalitions[i];
        m.n = c->count ? c->count[i] : 0;
        m.weights = c->weights ? c->weights[i] : NULL;
    } else if (m.samples <= 0) {
        m.samples = 2 * n + 2048;
    }
    return m;
}

static long row_count(const EeCoalitionModelOptions *c, int i, int n)
{
    if (c->m.kind == EE_COAL_OCCLUSION) return windows(n, occl_window(c), occl_stride(c));
    if (n == 0) return 0;
    EeCoalitionOptions m = row_options(c, i, n);
    return ee_coalition_count(&m, n);
}

int ee_coalition_players(const EeModel *m, const EeInput *in, int i)
{
    return ee_masked_players(m, in, i);
}

long ee_coalition_model_count(const EeCoalitionModelOptions *c, int n)
{
    if (!c || c->m.kind < 0 || c->m.kind >= EE_COAL_COUNT || c->coalitions) return -1;
    return row_count(c, 0, n);
}

static EeStatus check(const EeModel *m, const EeInput *in, const EeCoalitionModelOptions *c)
{
    if (!c || c->m.kind < 0 || c->m.kind >= EE_COAL_COUNT)
        return ee_fail(EE_ERR_INPUT, "unknown coalition method");
    const EeConfig *cfg = &m->cfg;
    int W = ee_is_token_model(cfg) ? cfg->T : cfg->D;
    if (c->m.kind == EE_COAL_OCCLUSION) {
        if (c->coalitions) return ee_fail(EE_ERR_INPUT, "occlusion takes its windows, not given coalitions");
        if (c->window < 0 || c->window > W)
            return ee_fail(EE_ERR_INPUT, "'window' must be in 1..%d (the players a row can have), got %d", W, c->window);
        if (c->stride < 0 || c->stride > W)
            return ee_fail(EE_ERR_INPUT, "'stride' must be in 1..%d, got %d", W, c->stride);
        return EE_OK;
    }
    if (c->coalitions && !c->count) return ee_fail(EE_ERR_INPUT, "given coalitions need their counts");
    for (int i = 0; i < in->n; i++) {
        int n = ee_masked_players(m, in, i);
        if (n == 0) continue;
        if (c->coalitions && !c->coalitions[i])
            return ee_fail(EE_ERR_INPUT, "row %d has %d players but no coalitions", i + 1, n);
        if (row_count(c, i, n) < 0)
            return ee_fail(EE_ERR_INPUT, "invalid options of %s for row %d (%d players)",
                           c->m.kind == EE_COAL_LIME ? "LIME" : "KernelSHAP", i + 1, n);
    }
    return EE_OK;
}

/* Row i's coalitions as bytes (count x n) and their weights. */
static EeStatus draw_row(const EeCoalitionModelOptions *c, const EeAttrOptions *o, int i, int n, long count,
                         uint8_t *Z, double *w)
{
    if (c->m.kind != EE_COAL_OCCLUSION) {
        EeCoalitionOptions m = row_options(c, i, n);
        return ee_coalition_draw(&m, o->seed, o->row_offset + i, n, Z, w);
    }
    int ww = occl_window(c), s = occl_stride(c);
    for (long k = 0; k < count; k++) {
        uint8_t *z = Z + (size_t)k * n;
        memset(z, 1, (size_t)n);
        long a = k * s, b = a + ww < n ? a + ww : n;
        if (n <= ww) a = 0, b = n;
        memset(z + a, 0, (size_t)(b - a));
        w[k] = 1;
    }
    return EE_OK;
}

/* Occlusion: player j's value, the mean of v(all) - v(all but window k)
 * over the windows k that leave j out. */
static void occlusion_solve(int n, long count, const uint8_t *Z, const double *v, double v1, double *phi)
{
    for (int j = 0; j < n; j++) {
        double sum = 0;
        int cover = 0;
        for (long k = 0; k < count; k++)
            if (!Z[(size_t)k * n + j]) { sum += v1 - v[k]; cover++; }
        phi[j] = cover ? sum / cover : 0;
    }
}

static int max_players(const EeModel *m, const EeInput *in)
{
    int nmax = 0;
    for (int i = 0; i < in->n; i++) {
        int n = ee_masked_players(m, in, i);
        if (n > nmax) nmax = n;
    }
    return nmax;
}

/* Occlusion of a cnn on the CPU: each window's copy is the input with a few
 * tokens replaced, so only the convolution windows those tokens touch
 * change (cnn_incremental.c, as Shapley sampling adds tokens). Each
 * filter's maximum is then the larger of the input's running maxima
 * before and after those windows (computed once per row) and of the new
 * windows; the new windows of several copies go through one product (a
 * row's bits do not depend on the others: ee_cnn_rows). Whole rows in
 * parallel, or the groups of copies of a row when there are few rows
 * (cnn_occlusion_values). Nothing per copy scales with the length.
 * v(empty) is the baseline's full evaluation. The values are a full
 * pass's up to float rounding; the passes are counted as the full passes
 * they stand for. Writes value (first[N]) and vempty. */
typedef struct {
    const CnnView *v;
    const float *ex, *eb;      /* the input's and the baseline's embeddings [L][d] */
    const int *player;         /* the player at each position, -1: none */
    const uint64_t *coal;      /* the row's coalitions, `words` each */
    int words;
    const int *lo, *hi;        /* each copy's first and last absent position */
} OcclRow;

/* Copy c's windows t0..hi of width w as rows of A (w * d floats each):
 * the input's embeddings, the baseline's where c leaves the player out,
 * zeros past L. Returns the rows written. */
static int occl_windows(const OcclRow *r, long c, int w, float *A)
{
    const CnnView *v = r->v;
    int d = v->w.d, lo = r->lo[c], hi = r->hi[c], t0 = lo - w + 1 > 0 ? lo - w + 1 : 0;
    const uint64_t *S = r->coal + (size_t)c * r->words;
    for (int t = t0; t <= hi; t++)
        for (int j = 0; j < w; j++, A += d) {
            int p = t + j, pl = p < v->L ? r->player[p] : -1;
            if (p >= v->L) memset(A, 0, sizeof(float) * d);
            else if (p >= lo && p <= hi && pl >= 0 && !(S[pl / 64] >> (pl % 64) & 1))
                memcpy(A, r->eb + (size_t)p * d, sizeof(float) * d);
            else memcpy(A, r->ex + (size_t)p * d, sizeof(float) * d);
        }
    return hi - t0 + 1;
}

/* One row's numbers, shared by the copies of the row: built by
 * occl_row_begin, read by occl_row_groups. */
typedef struct {
    CnnView v;                 /* v.L: the row's active length */
    uint8_t *mask;
    int32_t *base;
    int *player, *pos, *map, *lo, *hi;
    float *ex, *eb, *outx, *scratch0, *pre, *suf, *bestx, *z;
    int n, rows, G;            /* players; the most windows of one width a copy changes; copies per product */
} OcclRowBuf;

/* A thread's buffers for a group of copies: G x rows windows of one width,
 * grown to the rows' need (buffers sized for the longest possible row
 * measured 15 % slower per copy on this machine). */
typedef struct {
    float *A, *out, *best;
    size_t cap; /* windows of one width it holds */
} OcclGroupBuf;


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
} OcclJob;

/* gb holds at least row r's G x rows windows (grown as rows need). */
static int occl_group_fit(const OcclJob *j, const OcclRowBuf *r, OcclGroupBuf *gb)
{
    size_t need = (size_t)r->G * r->rows;
    if (need <= gb->cap) return 1;
    free(gb->A); free(gb->out);
    gb->A = malloc(sizeof(float) * need * j->wmax * j->d);
    gb->out = malloc(sizeof(float) * need * j->F);
    gb->cap = gb->A && gb->out ? need : 0;
    return gb->cap > 0;
}

static int occl_row_alloc(const OcclJob *j, const EeCnnView *w, const EeBackend *be, long cmax, OcclRowBuf *r)
{
    int T = j->T, d = j->d;
    size_t TF1 = (size_t)(T + 1) * j->F;
    memset(r, 0, sizeof *r);
    r->v = (CnnView){.w = *w, .be = be};
    r->mask = malloc((size_t)T);
    r->base = malloc(sizeof(int32_t) * T);
    r->player = malloc(sizeof(int) * T); r->pos = malloc(sizeof(int) * T); r->map = malloc(sizeof(int) * T);
    r->lo = malloc(sizeof(int) * (cmax + 1)); r->hi = malloc(sizeof(int) * (cmax + 1));
    r->ex = malloc(sizeof(float) * (size_t)T * d); r->eb = malloc(sizeof(float) * (size_t)T * d);
    r->outx = malloc(sizeof(float) * (size_t)T * j->KF); r->scratch0 = malloc(sizeof(float) * (size_t)T * j->wmax * d);
    r->pre = malloc(sizeof(float) * TF1 * j->K); r->suf = malloc(sizeof(float) * TF1 * j->K);
    r->bestx = malloc(sizeof(float) * j->KF); r->z = malloc(sizeof(float) * w->C);
    return r->mask && r->base && r->player && r->pos && r->map && r->lo && r->hi && r->ex && r->eb && r->outx &&
           r->scratch0 && r->pre && r->suf && r->bestx && r->z;
}

static void occl_row_free(OcclRowBuf *r)
{
    free(r->mask); free(r->base); free(r->player); free(r->pos); free(r->map); free(r->lo); free(r->hi);
    free(r->ex); free(r->eb); free(r->outx); free(r->scratch0); free(r->pre); free(r->suf); free(r->bestx); free(r->z);
}

/* Row i: the input in full, its running maxima, f(x) and the target, the
 * baseline's value, each copy's absent positions (the copies with none
 * absent or none present settled here) and the group size. */
static void occl_row_begin(const OcclJob *j, OcclRowBuf *r, int i)
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
    size_t LF = (size_t)v->L * F, LF1 = (size_t)(v->L + 1) * F;
    for (int t = 0; t < v->L; t++) {
        memcpy(r->ex + (size_t)t * d, v->w.E + (size_t)ids[t] * d, sizeof(float) * d);
        memcpy(r->eb + (size_t)t * d, v->w.E + (size_t)r->base[t] * d, sizeof(float) * d);
    }
    /* the input in full, its running maxima and its logits: the model's
     * own ops on the same numbers (its max pool keeps a maximum above 0,
     * else 0; then the classifier), so f(x) has a forward pass's bits;
     * then the baseline */
    for (int k = 0; k < K; k++) {
        ee_cnn_windows(v, k, r->ex, 0, v->L - 1, r->scratch0, r->outx + LF * k);
        ee_cnn_running_max(v, r->outx + LF * k, r->mask, r->pre + LF1 * k, r->suf + LF1 * k);
        for (int f = 0; f < F; f++) {
            float b = r->pre[LF1 * k + (size_t)v->L * F + f];
            r->bestx[(size_t)k * F + f] = b > 0 ? b : 0;
        }
    }
    ee_linear_fwd(v->be, r->bestx, v->w.Wc, v->w.bc, r->z, 1, (int)j->KF, v->w.C);
    j->target[i] = j->o->target ? j->o->target[i] : ee_argmax(r->z, v->w.C);
    j->fx[i] = r->z[j->target[i]];
    for (int k = 0; k < K; k++) {
        ee_cnn_windows_ids(v, k, r->base, r->scratch0, r->map, r->outx + LF * k);
        /* the maxima's values alone (ee_cnn_value reads nothing else), a vector of filters at a time */
        float *b = r->bestx + (size_t)k * F;
        for (int f = 0; f < F; f++) b[f] = -INFINITY;
        for (int t = 0; t < v->L; t++) {
            const float *ot = r->outx + LF * k + (size_t)t * F;
            if (!r->mask[t]) continue;
            #pragma omp simd
            for (int f = 0; f < F; f++) b[f] = ot[f] > b[f] ? ot[f] : b[f];
        }
    }
    j->vempty[i] = ee_cnn_value(v, r->bestx, j->target[i]);
    long k0 = j->first[i], nk = j->first[i + 1] - j->first[i];
    r->rows = 1;
    for (long k = 0; k < nk; k++) {
        /* a word at a time: the first and the last absent player */
        const uint64_t *S = j->coal + (size_t)(k0 + k) * j->words;
        int any = 0, first_out = -1, last_out = -1;
        for (int wd = 0; wd * 64 < n; wd++) {
            uint64_t valid = n - wd * 64 >= 64 ? ~0ULL : (1ULL << (n - wd * 64)) - 1, out = ~S[wd] & valid;
            any |= (S[wd] & valid) != 0;
            if (!out) continue;
            if (first_out < 0) first_out = wd * 64 + __builtin_ctzll(out);
            last_out = wd * 64 + 63 - __builtin_clzll(out);
        }
        r->lo[k] = first_out < 0 ? -1 : r->pos[first_out];
        r->hi[k] = last_out < 0 ? -1 : r->pos[last_out];
        if (!any) j->value[k0 + k] = j->vempty[i];          /* every token absent: v(empty) */
        else if (r->lo[k] < 0) j->value[k0 + k] = NAN;      /* nothing absent: not an occlusion window */
        if (!any || r->lo[k] < 0) { r->lo[k] = -1; continue; }
        int t0 = r->lo[k] - j->wmax + 1 > 0 ? r->lo[k] - j->wmax + 1 : 0;
        if (r->hi[k] - t0 + 1 > r->rows) r->rows = r->hi[k] - t0 + 1;
    }
    /* copies per product: enough rows to fill the product's tiles */
    r->G = 48 / r->rows;
    if (r->G < 1) r->G = 1;
    if (r->G > 16) r->G = 16;
}

static long occl_row_groups_count(const OcclJob *j, const OcclRowBuf *r, int i)
{
    long nk = j->first[i + 1] - j->first[i];
    return (nk + r->G - 1) / r->G;
}

/* Groups g0..g1-1 of row i's copies (G copies each): their new windows
 * width by width through one product, each copy's maxima from the row's
 * running maxima around its windows, its value. */
static void occl_row_groups(const OcclJob *j, const OcclRowBuf *r, int i, long g0, long g1, OcclGroupBuf *gb)
{
    const CnnView *v = &r->v;
    int K = j->K, F = j->F, d = j->d, G = r->G;
    size_t LF1 = (size_t)(v->L + 1) * F, KF = j->KF;
    long k0 = j->first[i], nk = j->first[i + 1] - j->first[i];
    OcclRow R = {v, r->ex, r->eb, r->player, j->coal + (size_t)k0 * j->words, j->words, r->lo, r->hi};
    for (long g = g0; g < g1; g++) {
        long c0 = g * G, c1 = c0 + G < nk ? c0 + G : nk;
        for (int kk = 0; kk < K; kk++) {
            int w = v->w.widths[kk], M = 0;
            size_t wd = (size_t)w * d;
            for (long cc = c0; cc < c1; cc++)
                if (r->lo[cc] >= 0) M += occl_windows(&R, cc, w, gb->A + (size_t)M * wd);
            if (!M) break;
            ee_cnn_rows(v, kk, gb->A, M, gb->out);
            /* each copy's maxima: before its windows, the windows, after */
            const float *o = gb->out;
            for (long cc = c0; cc < c1; cc++) {
                if (r->lo[cc] < 0) continue;
                int t0 = r->lo[cc] - w + 1 > 0 ? r->lo[cc] - w + 1 : 0, t1 = r->hi[cc];
                float *b = gb->best + KF * (cc - c0) + (size_t)kk * F;
                const float *p = r->pre + LF1 * kk + (size_t)t0 * F, *s = r->suf + LF1 * kk + (size_t)(t1 + 1) * F;
                memcpy(b, p, sizeof(float) * F);
                for (int t = t0; t <= t1; t++, o += F)
                    if (r->mask[t]) {
                        #pragma omp simd
                        for (int f = 0; f < F; f++) b[f] = o[f] > b[f] ? o[f] : b[f];
                    }
                #pragma omp simd
                for (int f = 0; f < F; f++) b[f] = s[f] > b[f] ? s[f] : b[f];
            }
        }
        for (long cc = c0; cc < c1; cc++)
            if (r->lo[cc] >= 0) j->value[k0 + cc] = ee_cnn_value(v, gb->best + KF * (cc - c0), j->target[i]);
    }
}

/* Rows by decreasing count of copies (ties by index). */
typedef struct {
    long copies;
    int i;
} OcclOrder;

static int occl_order_cmp(const void *a, const void *b)
{
    const OcclOrder *x = a, *y = b;
    if (x->copies != y->copies) return x->copies > y->copies ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The rows: with at least two rows per thread, each thread takes whole
 * rows (one team for the call: no barrier per row, and a row's begin
 * runs beside the others' copies), else the rows one by one with their
 * groups of copies shared out. Which thread computes what changes no
 * bit: a row's numbers depend on its own data alone. */
static EeStatus cnn_occlusion_values(EeModel *m, const EeBackend *be, const EeInput *in, const EeAttrOptions *o,
                                     const long *first, const uint64_t *coal, int words, int32_t *target,
                                     float *fx, float *value, float *vempty)
{
    const EeConfig *c = &m->cfg;
    EeCnnView w;
    EeStatus st = ee_cnn_view(m, m->w, &w);
    if (st) return st;
    OcclJob j = {m, in, o, first, coal, words, c->T, c->d, w.K, w.F, 1, (size_t)w.K * w.F, target, fx, value, vempty};
    for (int k = 0; k < w.K; k++)
        if (c->widths[k] > j.wmax) j.wmax = c->widths[k];
    long cmax = 0;
    for (int i = 0; i < in->n; i++)
        if (first[i + 1] - first[i] > cmax) cmax = first[i + 1] - first[i];
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    int by_rows = in->n >= 2 * nth && nth > 1;
    int nrow = by_rows ? nth : 1;
    OcclRowBuf *rb = calloc((size_t)nrow, sizeof *rb);
    OcclGroupBuf *gb = calloc((size_t)nth, sizeof *gb);
    int ok = rb && gb;
    for (int t = 0; ok && t < nrow; t++) ok = occl_row_alloc(&j, &w, be, cmax, rb + t);
    for (int t = 0; ok && t < nth; t++) ok = (gb[t].best = malloc(sizeof(float) * j.KF * 16)) != NULL;
    if (!ok) st = ee_fail(EE_ERR_NOMEM, "out of memory for the cnn's occlusion");
    EeProgress prog;
    ee_progress_start(&prog, o, "occlusion", in->n);
    if (!st && by_rows) {
        /* longest rows first, so that the last ones to finish are short */
        OcclOrder *order = malloc(sizeof(OcclOrder) * in->n);
        if (!order) st = ee_fail(EE_ERR_NOMEM, "out of memory for the cnn's occlusion");
        for (int i = 0; order && i < in->n; i++) order[i] = (OcclOrder){first[i + 1] - first[i], i};
        if (order) qsort(order, (size_t)in->n, sizeof *order, occl_order_cmp);
        int stop = 0, nomem = 0;
        long done = 0;
        #pragma omp parallel if (order)
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
                if (!halt) {
                    #pragma omp atomic read
                    halt = nomem;
                }
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
                occl_row_begin(&j, rb + th, i);
                if (!occl_group_fit(&j, rb + th, gb + th)) {
                    #pragma omp atomic write
                    nomem = 1;
                    continue;
                }
                occl_row_groups(&j, rb + th, i, 0, occl_row_groups_count(&j, rb + th, i), gb + th);
                #pragma omp atomic
                done++;
            }
        }
        free(order);
        if (!st && nomem) st = ee_fail(EE_ERR_NOMEM, "out of memory for the cnn's occlusion");
        if (!st && stop) st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during occlusion");
    }
    for (int i = 0; i < in->n && !st && !by_rows; i++) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during occlusion"); break; }
        ee_progress_tick(&prog, i);
        occl_row_begin(&j, rb, i);
        long groups = occl_row_groups_count(&j, rb, i);
        int fail = 0;
        #pragma omp parallel reduction(|| : fail)
        {
            int th = 0;
#ifdef _OPENMP
            th = omp_get_thread_num();
#endif
            fail = !occl_group_fit(&j, rb, gb + th);
            #pragma omp for schedule(dynamic, 1)
            for (long g = 0; g < groups; g++)
                if (gb[th].cap) occl_row_groups(&j, rb, i, g, g + 1, gb + th);
        }
        if (fail) st = ee_fail(EE_ERR_NOMEM, "out of memory for the cnn's occlusion");
    }
    ee_progress_end(&prog, st ? 0 : in->n, 0);
    for (int t = 0; rb && t < nrow; t++) occl_row_free(rb + t);
    for (int t = 0; gb && t < nth; t++) { free(gb[t].A); free(gb[t].out); free(gb[t].best); }
    free(rb); free(gb);
    return st;
}

/* The passes a full evaluation makes (f(x), v(empty), one per non-empty
 * coalition): the count the incremental path reports. */
static long full_passes_of(const EeModel *m, const EeInput *in, const long *first, const uint64_t *coal, int words)
{
    long p = in->n;
    for (int i = 0; i < in->n; i++) {
        if (!ee_masked_players(m, in, i)) continue;
        p++;
        for (long k = first[i]; k < first[i + 1]; k++) {
            int any = 0;
            for (int w = 0; w < words; w++) any |= coal[(size_t)k * words + w] != 0;
            p += any;
        }
    }
    return p;
}

EeStatus ee_coalition_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o,
                                const EeCoalitionModelOptions *c, float *A, EeAttrInfo *info)
{
    double t0 = ee_now();
    EeAttrOptions opt = *o;
    opt.steps = 1;
    int token = ee_is_token_model(&m->cfg);
    EeStatus st = ee_attr_check(m, in, &opt, token);
    if (st || (st = check(m, in, c))) return st;
    const EeConfig *cfg = &m->cfg;
    int N = in->n, W = token ? cfg->T : cfg->D, nmax = max_players(m, in), words = ee_kernel_words(nmax);
    long cmax = 0, *first = malloc(sizeof(long) * ((size_t)N + 1));
    if (!first) return ee_fail(EE_ERR_NOMEM, "out of memory for the coalitions");
    first[0] = 0;
    for (int i = 0; i < N; i++) {
        long k = row_count(c, i, ee_masked_players(m, in, i));
        first[i + 1] = first[i] + k;
        if (k > cmax) cmax = k;
    }
    long total = first[N];
    uint64_t *coal = calloc((size_t)total * words + 1, sizeof(uint64_t));
    float *value = malloc(sizeof(float) * ((size_t)total + 1));
    double *weight = malloc(sizeof(double) * ((size_t)total + 1)), *v = malloc(sizeof(double) * ((size_t)cmax + 1));
    double *phi = malloc(sizeof(double) * ((size_t)nmax + 1));
    uint8_t *Z = malloc((size_t)cmax * (nmax ? nmax : 1) + 1);
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1)), *vempty = malloc(sizeof(float) * (N ? N : 1));
    int *pos = malloc(sizeof(int) * ((size_t)W + 1));
    if (!coal || !value || !weight || !v || !phi || !Z || !target || !fx || !vempty || !pos) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for %ld coalitions", total);
        goto done;
    }
    /* every row's coalitions first, as bits, so that the evaluator can
     * fill its passes across rows */
    for (int i = 0; i < N && !st; i++) {
        int n = ee_masked_players(m, in, i);
        long count = first[i + 1] - first[i];
        if ((st = draw_row(c, &opt, i, n, count, Z, weight + first[i]))) break;
        for (long k = 0; k < count; k++) {
            uint64_t *S = coal + (size_t)(first[i] + k) * words;
            for (int j = 0; j < n; j++)
                if (Z[(size_t)k * n + j]) S[j / 64] |= 1ULL << (j % 64);
        }
    }
    EeMaskedValues mv = {.words = words, .first = first, .coal = coal, .value = value, .vempty = vempty,
                         .fx = fx, .target = target, .windows = c->m.kind == EE_COAL_OCCLUSION};
    EeDevice dev;
    const EeBackend *be = NULL;
    if (!st) st = ee_backend_resolve(o->device, o->precision, &dev, &be);
    if (!st && c->m.kind == EE_COAL_OCCLUSION && cfg->kind == EE_KIND_CNN && be->host_memory && !o->full_passes &&
        o->precision == EE_PRECISION_FP32) {
        /* the targets, f(x) and v(empty) from each row's full passes, the windows incrementally */
        st = cnn_occlusion_values(m, be, in, &opt, first, coal, words, target, fx, value, vempty);
        mv.passes = full_passes_of(m, in, first, coal, words);
    } else if (!st && c->m.kind != EE_COAL_OCCLUSION && cfg->kind == EE_KIND_CNN && be->host_memory &&
               !o->full_passes && o->precision == EE_PRECISION_FP32 && ee_cnn_coalition_fits(m)) {
        /* KernelSHAP and LIME: about half the tokens of a coalition are
         * absent, so each value from per-position products (cnn_coalitions.c) */
        st = ee_cnn_coalition_values(m, be, in, &opt, c->m.kind == EE_COAL_LIME ? "LIME" : "KernelSHAP", first,
                                     coal, words, target, fx, value, vempty);
        mv.passes = full_passes_of(m, in, first, coal, words);
    } else if (!st) {
        st = ee_masked_values(m, in, &opt, c->m.kind == EE_COAL_OCCLUSION ? "occlusion"
                                           : c->m.kind == EE_COAL_LIME ? "LIME" : "KernelSHAP", &mv);
    }
    for (int i = 0; i < N && !st; i++) {
        int n = 0;
        float *a = A + (size_t)i * W;
        memset(a, 0, sizeof(float) * W);
        if (token) {
            const int32_t *ids = in->ids + (size_t)i * W;
            for (int t = 0; t < W; t++)
                if (!EE_IS_SPECIAL(ids[t])) pos[n++] = t;
        } else {
            for (int t = 0; t < W; t++) pos[n++] = t;
        }
        long count = first[i + 1] - first[i];
        if (n == 0) continue;
        /* the coalitions back as bytes for the generic solve */
        for (long k = 0; k < count; k++) {
            const uint64_t *S = coal + (size_t)(first[i] + k) * words;
            for (int j = 0; j < n; j++) Z[(size_t)k * n + j] = (uint8_t)(S[j / 64] >> (j % 64) & 1);
            v[k] = value[first[i] + k];
        }
        if (c->m.kind == EE_COAL_OCCLUSION) {
            occlusion_solve(n, count, Z, v, fx[i], phi);
        } else {
            EeCoalitionOptions mo = row_options(c, i, n);
            if ((st = ee_coalition_solve(&mo, n, count, Z, weight + first[i], v, vempty[i], fx[i], phi))) {
                char msg[256];
                snprintf(msg, sizeof msg, "%s", ee_last_error());
                st = ee_fail(st, "row %d: %s", i + 1, msg);
                break;
            }
        }
        for (int j = 0; j < n; j++) a[pos[j]] = (float)phi[j];
    }
    if (!st && info) {
        if (info->target) memcpy(info->target, target, sizeof(int32_t) * N);
        if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
        if (info->fbaseline) memcpy(info->fbaseline, vempty, sizeof(float) * N);
        if (info->delta)
            for (int i = 0; i < N; i++) {
                double sum = 0;
                for (int t = 0; t < W; t++) sum += A[(size_t)i * W + t];
                info->delta[i] = (float)(sum - ((double)fx[i] - vempty[i]));
            }
        info->forward = mv.passes;
        info->backward = 0;
        info->seconds = ee_now() - t0;
    }
done:
    free(first); free(coal); free(value); free(weight); free(v); free(phi); free(Z);
    free(target); free(fx); free(vempty); free(pos);
    return st;
}

double ee_coalition_attribute_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o,
                                    const EeCoalitionModelOptions *c)
{
    const EeConfig *cfg = &m->cfg;
    if (!c || in->n < 1) return 0;
    int token = ee_is_token_model(cfg), W = token ? cfg->T : cfg->D, nmax = max_players(m, in);
    double words = ee_kernel_words(nmax), total = 0, cmax = 0, cmin = 0;
    for (int i = 0; i < in->n; i++) {
        int n = ee_masked_players(m, in, i);
        long k = c->m.kind == EE_COAL_OCCLUSION || !c->coalitions ? row_count(c, i, n) : (c->count ? c->count[i] : 0);
        if (k < 0) k = 0;
        total += k;
        if (k > cmax) cmax = k;
        if (n && (cmin == 0 || k + 1 < cmin)) cmin = k + 1; /* the row's passes: v(empty) and its coalitions */
    }
    EeDevice dev;
    if (ee_device_resolve(o->device, &dev)) dev = EE_DEVICE_CPU;
    int B = o->batch > 0 ? o->batch : ee_default_batch(cfg, dev);
    if (B > total + in->n) B = (int)(total + in->n);
    if (B < 2) B = 2;
    double bytes = ee_run_bytes((EeModel *)m, dev, B, 0, 0);
    bytes += total * (words * 8 + 4 + 8) + cmax * (nmax + 8.0) + (double)in->n * 32 + W * 13.0;
    bytes += (double)B * (W * (token ? 5.0 : 4.0) + cfg->classes * 4 + 12);
    /* the transformer's layer-0 caches (and occlusion's attention sums) of
     * the rows in flight (ee_masked_values): those with copies in the batch
     * being filled, at most B / (the fewest passes of a row) + 2 */
    if (cfg->kind == EE_KIND_TRANSFORMER && dev == EE_DEVICE_CPU && !o->full_passes && cfg->layers > 1 && cmin > 0) {
        double inflight = B / cmin + 2;
        if (inflight > in->n) inflight = in->n;
        double per = sizeof(float) * (double)ee_tf_cache_floats(cfg);
        if (c->m.kind == EE_COAL_OCCLUSION && cfg->head == EE_HEAD_CLASSIFIER && !ee_config_features(cfg))
            per += ee_tf_windows_bytes(cfg);
        bytes += inflight * per;
    }
    /* the solve's normal equations */
    if (c->m.kind != EE_COAL_OCCLUSION) bytes += 8.0 * (nmax + 1) * (nmax + 2);
    /* KernelSHAP/LIME's cnn shortcut on the CPU (ee_coalition_attribute's choice) */
    if (c->m.kind != EE_COAL_OCCLUSION && cfg->kind == EE_KIND_CNN && dev == EE_DEVICE_CPU && !o->full_passes &&
        o->precision == EE_PRECISION_FP32 && ee_cnn_coalition_fits(m))
        bytes += ee_cnn_coalition_bytes(m);
    return bytes;
}
