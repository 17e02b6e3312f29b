/* coalition_model.c: the coalition methods (KernelSHAP, LIME, occlusion
 * with windows and feature ablation) on a built-in classifier (ee.h,
 * ee_coalition_attribute; doc/MODELS.md). Each row's coalitions come from
 * the generic draw of attr/coalition.c (P = the row's players) or, for
 * occlusion, from the windows below; their values from the one masked
 * evaluator, ee_masked_values (kernel_values.c), which fills the passes
 * with all rows' copies in length order (a cnn on the CPU: every method
 * from per-position products, cnn_coalitions.c; a transformer's occlusion
 * on the CPU with layer 0's attention from the row's, tf_incremental.c);
 * the values then go back to the generic solve, row by row. */
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

/* Windows of occlusion over n players: those starting at k s for
 * k = 0, 1, ... while the window ends before the last player, then the
 * first to reach or pass it, cut at the end, where it starts inside the
 * row: ceil((n - w) / s) + 1 shifts (Captum's count) when s <= w; with
 * s > w the shift past the end may start beyond the last player, and is
 * then no window. One window of all n players when n <= w. */
static long windows(int n, int w, int s)
{
    if (n <= 0) return 0;
    if (n <= w) return 1;
    long K = (n - w + s - 1) / s; /* the shift that reaches the end */
    return K + ((long)K * s < n);
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

/* The work from which the rows' draws and solves run in parallel (see
 * ee_coalition_attribute). */
#define PARALLEL_WORK 5e7
static double parallel_work = PARALLEL_WORK;

void ee_coalition_set_parallel_work(double work)
{
    parallel_work = work < 0 ? PARALLEL_WORK : work;
}

/* A thread's buffers for one row: its coalitions as bytes, their values,
 * the attributions and the players' positions. */
typedef struct {
    uint8_t *Z;
    double *v, *phi;
    int *pos;
} RowBuf;

/* What the rows share: the coalitions of every row (bits, `words` each,
 * from first[i]), their weights and values, each row's f(x) and v(empty). */
typedef struct {
    EeModel *m;
    const EeInput *in;
    const EeAttrOptions *o;
    const EeCoalitionModelOptions *c;
    const long *first;
    uint64_t *coal;
    double *weight;
    const float *value, *fx, *vempty;
    int words, W, token;
} Rows;

/* Row i's coalitions drawn (or taken) into its bits and weights. */
static EeStatus row_draw(const Rows *R, int i, RowBuf *b)
{
    int n = ee_masked_players(R->m, R->in, i);
    long count = R->first[i + 1] - R->first[i];
    EeStatus st = draw_row(R->c, R->o, i, n, count, b->Z, R->weight + R->first[i]);
    for (long k = 0; k < count && !st; k++) {
        uint64_t *S = R->coal + (size_t)(R->first[i] + k) * R->words;
        for (int j = 0; j < n; j++)
            if (b->Z[(size_t)k * n + j]) S[j / 64] |= 1ULL << (j % 64);
    }
    return st;
}

/* Row i's attributions a [W] from its coalitions' values: occlusion's
 * means, or the generic solve (its error names the row). */
static EeStatus row_solve(const Rows *R, int i, RowBuf *b, float *a)
{
    int n = 0, W = R->W;
    memset(a, 0, sizeof(float) * W);
    if (R->token) {
        const int32_t *ids = R->in->ids + (size_t)i * W;
        for (int t = 0; t < W; t++)
            if (!EE_IS_SPECIAL(ids[t])) b->pos[n++] = t;
    } else {
        for (int t = 0; t < W; t++) b->pos[n++] = t;
    }
    long count = R->first[i + 1] - R->first[i];
    if (n == 0) return EE_OK;
    /* the coalitions back as bytes for the generic solve */
    for (long k = 0; k < count; k++) {
        const uint64_t *S = R->coal + (size_t)(R->first[i] + k) * R->words;
        for (int j = 0; j < n; j++) b->Z[(size_t)k * n + j] = (uint8_t)(S[j / 64] >> (j % 64) & 1);
        b->v[k] = R->value[R->first[i] + k];
    }
    if (R->c->m.kind == EE_COAL_OCCLUSION) {
        occlusion_solve(n, count, b->Z, b->v, R->fx[i], b->phi);
    } else {
        EeCoalitionOptions mo = row_options(R->c, i, n);
        EeStatus st = ee_coalition_solve(&mo, n, count, b->Z, R->weight + R->first[i], b->v, R->vempty[i], R->fx[i],
                                         b->phi);
        if (st) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", ee_last_error());
            return ee_fail(st, "row %d: %s", i + 1, msg);
        }
    }
    for (int j = 0; j < n; j++) a[b->pos[j]] = (float)b->phi[j];
    return EE_OK;
}

/* Rows 0..N-1 through row_draw, or row_solve into A, in parallel where
 * `par`: a row's numbers depend on its own data alone, whichever thread
 * takes it. The first failing row's error comes from running it again on
 * the calling thread (errors are the thread's own). */
static EeStatus rows_each(const Rows *R, RowBuf *bufs, int N, float *A, int solve, int par)
{
    EeStatus *rst = calloc((size_t)N + 1, sizeof(EeStatus));
    if (!rst) return ee_fail(EE_ERR_NOMEM, "out of memory for the coalitions");
    #pragma omp parallel for schedule(dynamic, 1) if (par && N > 1)
    for (int i = 0; i < N; i++) {
        int th = 0;
#ifdef _OPENMP
        th = omp_get_thread_num();
#endif
        rst[i] = solve ? row_solve(R, i, bufs + th, A + (size_t)i * R->W) : row_draw(R, i, bufs + th);
    }
    EeStatus st = EE_OK;
    for (int i = 0; i < N && !st; i++)
        if (rst[i]) st = solve ? row_solve(R, i, bufs, A + (size_t)i * R->W) : row_draw(R, i, bufs);
    free(rst);
    return st;
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
    double *weight = malloc(sizeof(double) * ((size_t)total + 1));
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1)), *vempty = malloc(sizeof(float) * (N ? N : 1));
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    RowBuf *bufs = calloc((size_t)nth, sizeof *bufs);
    int ok = coal && value && weight && target && fx && vempty && bufs;
    for (int t = 0; ok && t < nth; t++) {
        bufs[t].Z = malloc((size_t)cmax * (nmax ? nmax : 1) + 1);
        bufs[t].v = malloc(sizeof(double) * ((size_t)cmax + 1));
        bufs[t].phi = malloc(sizeof(double) * ((size_t)nmax + 1));
        bufs[t].pos = malloc(sizeof(int) * ((size_t)W + 1));
        ok = bufs[t].Z && bufs[t].v && bufs[t].phi && bufs[t].pos;
    }
    if (!ok) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for %ld coalitions", total);
        goto done;
    }
    Rows R = {m, in, &opt, c, first, coal, weight, value, fx, vempty, words, W, token};
    /* the draws and solves in parallel only where they take long (a solve
     * about count n^2 operations, occlusion's means count n): a few ms of
     * them gain less than a wake of the team can cost on a shared machine
     * (measured: 2 threads on 2 busy cores, the bench's cnn occlusion took
     * 3 to 40 ms a call with these loops parallel, 3 to 20 serial) */
    double work = 0;
    for (int i = 0; i < N; i++) {
        double n = ee_masked_players(m, in, i) + 1.0;
        work += (double)(first[i + 1] - first[i]) * n * (c->m.kind == EE_COAL_OCCLUSION ? 1 : n);
    }
    int par = work >= parallel_work;
    /* every row's coalitions first, as bits, so that the evaluator can
     * fill its passes across rows */
    st = rows_each(&R, bufs, N, A, 0, par);
    EeMaskedValues mv = {.words = words, .first = first, .coal = coal, .value = value, .vempty = vempty,
                         .fx = fx, .target = target, .windows = c->m.kind == EE_COAL_OCCLUSION};
    EeDevice dev;
    const EeBackend *be = NULL;
    if (!st) st = ee_backend_resolve(o->device, o->precision, &dev, &be);
    if (!st && cfg->kind == EE_KIND_CNN && be->host_memory && !o->full_passes && o->precision == EE_PRECISION_FP32 &&
        ee_cnn_coalition_fits(m)) {
        /* each value from per-position products (cnn_coalitions.c): a
         * coalition's window is one of two tokens at each position; an
         * occlusion copy reads only the windows that see its window */
        const char *what = c->m.kind == EE_COAL_OCCLUSION ? "occlusion" : c->m.kind == EE_COAL_LIME ? "LIME" : "KernelSHAP";
        st = ee_cnn_coalition_values(m, be, in, &opt, what, c->m.kind == EE_COAL_OCCLUSION, first, coal, words, target,
                                     fx, value, vempty);
        mv.passes = full_passes_of(m, in, first, coal, words);
    } else if (!st) {
        st = ee_masked_values(m, in, &opt, c->m.kind == EE_COAL_OCCLUSION ? "occlusion"
                                           : c->m.kind == EE_COAL_LIME ? "LIME" : "KernelSHAP", &mv);
    }
    if (!st) st = rows_each(&R, bufs, N, A, 1, par);
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
    for (int t = 0; bufs && t < nth; t++) { free(bufs[t].Z); free(bufs[t].v); free(bufs[t].phi); free(bufs[t].pos); }
    free(first); free(coal); free(value); free(weight); free(bufs);
    free(target); free(fx); free(vempty);
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
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    /* each thread's row buffers (rows_each) and the per-row status */
    bytes += total * (words * 8 + 4 + 8) + nth * (cmax * (nmax + 8.0) + W * 4.0 + nmax * 8.0) + (double)in->n * 36;
    bytes += (double)B * (W * (token ? 5.0 : 4.0) + cfg->classes * 4 + 12);
    /* the transformer's layer-0 caches (and occlusion's attention sums) of
     * the rows in flight (ee_masked_values): those with copies in the batch
     * being filled, at most B / (the fewest passes of a row) + 2 */
    if (ee_tf_cache_applies_to(cfg, dev == EE_DEVICE_CPU, o) && cmin > 0) {
        double inflight = B / cmin + 2;
        if (inflight > in->n) inflight = in->n;
        double per = sizeof(float) * (double)ee_tf_cache_floats(cfg);
        if (c->m.kind == EE_COAL_OCCLUSION && ee_tf_windows_apply(cfg))
            per += ee_tf_windows_bytes(cfg);
        bytes += inflight * per;
    }
    /* the solve's normal equations */
    if (c->m.kind != EE_COAL_OCCLUSION) bytes += 8.0 * (nmax + 1) * (nmax + 2);
    /* the cnn's shortcut on the CPU (ee_coalition_attribute's choice) */
    if (cfg->kind == EE_KIND_CNN && dev == EE_DEVICE_CPU && !o->full_passes && o->precision == EE_PRECISION_FP32 &&
        ee_cnn_coalition_fits(m))
        bytes += ee_cnn_coalition_bytes(m);
    return bytes;
}
