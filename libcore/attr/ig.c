/* ig.c: Integrated Gradients (all node rules of MODELS.md) and
 * X-Gradient. The interpolation points of several sequences go through the
 * model together; gradients to the embedding-layer output are accumulated
 * on the backend, weighted by the node weights. */
#include "attr_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* P_s(z) by the three-term recurrence, and its derivative. */
static void legendre(int s, double z, double *p, double *dp)
{
    double p1 = 1, p2 = 0;
    for (int j = 1; j <= s; j++) {
        double p3 = p2;
        p2 = p1;
        p1 = ((2.0 * j - 1) * z * p2 - (j - 1.0) * p3) / j;
    }
    *p = p1;
    *dp = s * (z * p1 - p2) / (z * z - 1);
}

/* Gauss-Legendre nodes on [-1, 1] by Newton's method on P_s, in ascending
 * order (as numpy's leggauss, which Captum uses). */
static void gauss_legendre(int s, double *x, double *g)
{
    for (int i = 0; i < (s + 1) / 2; i++) {
        double z = cos(M_PI * (i + 0.75) / (s + 0.5)), p, dp;
        for (int it = 0; it < 100; it++) {
            legendre(s, z, &p, &dp);
            double dz = p / dp;
            z -= dz;
            if (fabs(dz) < 1e-16) break;
        }
        legendre(s, z, &p, &dp); /* the derivative at the converged root */
        double wt = 2.0 / ((1 - z * z) * dp * dp);
        x[i] = -z; /* ascending: negative roots first */
        x[s - 1 - i] = z;
        g[i] = g[s - 1 - i] = wt;
    }
    if (s % 2) x[s / 2] = 0.0;
}

const char *const ee_ig_method_names[EE_IG_METHOD_COUNT] = {
    "gausslegendre", "riemann_right", "riemann_left", "riemann_middle", "riemann_trapezoid", "xgrad",
    "gradxinput"};

EeStatus ee_ig_nodes(EeIgMethod method, int s, double *a, double *w)
{
    if (s < 1) return ee_fail(EE_ERR_INPUT, "'steps' must be >= 1, got %d", s);
    switch (method) {
    case EE_IG_GAUSSLEGENDRE:
        gauss_legendre(s, a, w);
        for (int k = 0; k < s; k++) { a[k] = (1 + a[k]) / 2; w[k] /= 2; }
        return EE_OK;
    case EE_IG_XGRAD:
    case EE_IG_GRADXINPUT:
        if (s != 1) return ee_fail(EE_ERR_INPUT, "xgrad and gradxinput use one gradient");
        a[0] = 1;
        w[0] = 1;
        return EE_OK;
    default:
        break;
    }
    if (s < 2) return ee_fail(EE_ERR_INPUT, "the Riemann methods need 'steps' >= 2, got %d", s);
    for (int k = 1; k <= s; k++) {
        double *ak = &a[k - 1], *wk = &w[k - 1];
        *wk = 1.0 / s;
        switch (method) {
        case EE_IG_RIEMANN_RIGHT: *ak = (double)k / s; break;
        case EE_IG_RIEMANN_LEFT: *ak = (k - 1.0) / s; break;
        case EE_IG_RIEMANN_MIDDLE: *ak = (k - 0.5) / s; break;
        case EE_IG_RIEMANN_TRAPEZOID:
            *ak = (k - 1.0) / (s - 1);
            if (k == 1 || k == s) *wk = 0.5 / s; /* Captum's step sizes: sum (s-1)/s */
            break;
        default: return ee_fail(EE_ERR_INPUT, "unknown IG method %d", (int)method);
        }
    }
    return EE_OK;
}

/* ---- the cnn on the CPU: convolutions are linear in e -------------------------------
 * conv(e_b + a (e_x - e_b)) = conv(e_b) + a conv(e_x - e_b), so the
 * pre-activations at every node come from two convolutions per sequence;
 * each node then needs only the max over time, and its gradient flows
 * through each filter's winning window alone (conv_pool_bwd). The same
 * numbers as s full passes up to float rounding. */
/* What every sequence of the cnn path reads. */
typedef struct {
    const EeModel *m;
    const EeInput *in;
    const EeAttrOptions *o;
    const double *alpha, *wts;
    EeCnnView w; /* the classifier's weights */
    float *A;
    EeAttrInfo *info;
} CnnIg;

/* One thread's buffers. */
typedef struct {
    float *ex, *eb, *diff, *acc, *base, *dlt, *pre, *pooled, *dP;
    int32_t *arg, *bids;
    uint8_t *mask;
} CnnIgScratch;

static int cnn_ig_scratch(CnnIgScratch *b, const EeConfig *c)
{
    size_t T = c->T, d = c->d, F = c->filters, K = c->nwidths, TF = T * F, KF = K * F;
    b->ex = malloc(sizeof(float) * T * d); b->eb = malloc(sizeof(float) * T * d);
    b->diff = malloc(sizeof(float) * T * d); b->acc = malloc(sizeof(float) * T * d);
    b->base = malloc(sizeof(float) * TF * K); b->dlt = malloc(sizeof(float) * TF * K);
    b->pre = malloc(sizeof(float) * TF); b->pooled = malloc(sizeof(float) * KF);
    b->dP = malloc(sizeof(float) * KF);
    b->arg = malloc(sizeof(int32_t) * KF); b->bids = malloc(sizeof(int32_t) * T);
    b->mask = malloc(T);
    return b->ex && b->eb && b->diff && b->acc && b->base && b->dlt && b->pre && b->pooled && b->dP && b->arg &&
           b->bids && b->mask;
}

static void cnn_ig_scratch_free(CnnIgScratch *b)
{
    free(b->ex); free(b->eb); free(b->diff); free(b->acc); free(b->base); free(b->dlt); free(b->pre);
    free(b->pooled); free(b->dP); free(b->arg); free(b->bids); free(b->mask);
}

/* Sequence i: two convolutions per width, then every node's max and its
 * gradient through the winning windows. */
static void cnn_ig_row(const CnnIg *v, int i, CnnIgScratch *b)
{
    const EeModel *m = v->m;
    const EeConfig *c = &m->cfg;
    const EeInput *in = v->in;
    const EeAttrOptions *o = v->o;
    const EeBackend *be = ee_backend_cpu();
    int T = c->T, d = c->d, F = c->filters, K = c->nwidths, KF = K * F, C = c->classes, s = o->steps;
    size_t TF = (size_t)T * F;
    float *ex = b->ex, *eb = b->eb, *diff = b->diff, *acc = b->acc, *base = b->base, *dlt = b->dlt;
    float *pre = b->pre, *pooled = b->pooled, *dP = b->dP;
    int32_t *arg = b->arg, *bids = b->bids;
    uint8_t *mask = b->mask;
    const int32_t *ids = in->ids + (size_t)i * T;
    ee_attr_row_mask(m, in, i, mask);
    ee_attr_row_baseline(m, in, o, i, bids);
    int L = 1; /* positions past the last token, baseline token or attended one see zeros */
    for (int t = 0; t < T; t++)
        if (mask[t] || ids[t] != EE_PAD || (o->baseline != EE_BASELINE_ZERO && bids[t] != EE_PAD)) L = t + 1;
    size_t Ld = (size_t)L * d, LF = (size_t)L * F;
    for (int t = 0; t < L; t++) {
        memcpy(ex + (size_t)t * d, v->w.E + (size_t)ids[t] * d, sizeof(float) * d);
        if (o->baseline == EE_BASELINE_ZERO) memset(eb + (size_t)t * d, 0, sizeof(float) * d);
        else memcpy(eb + (size_t)t * d, v->w.E + (size_t)bids[t] * d, sizeof(float) * d);
    }
    for (size_t q = 0; q < Ld; q++) diff[q] = ex[q] - eb[q];
    for (int k = 0; k < K; k++) {
        be->conv_fwd(eb, v->w.W[k], v->w.b[k], base + TF * k, 1, L, d, c->widths[k], F);
        be->conv_fwd(diff, v->w.W[k], NULL, dlt + TF * k, 1, L, d, c->widths[k], F);
    }
    /* logits at a = 1 (x) and a = 0 (baseline) */
    double z[2][64];
    for (int end = 0; end < 2; end++) {
        for (int k = 0; k < K; k++) {
            for (size_t q = 0; q < LF; q++) pre[q] = base[TF * k + q] + (end ? 0.0f : dlt[TF * k + q]);
            be->maxpool_fwd(pre, mask, pooled, arg, 1, L, F, KF, k * F);
        }
        for (int cl = 0; cl < C && cl < 64; cl++) {
            double val = v->w.bc ? v->w.bc[cl] : 0;
            for (int q = 0; q < KF; q++) val += (double)pooled[q] * v->w.Wc[(size_t)q * C + cl];
            z[end][cl] = val;
        }
    }
    int tg = o->target ? o->target[i] : ee_argmax_double(z[0], C);
    memset(acc, 0, sizeof(float) * Ld);
    for (int n = 0; n < s; n++) {
        float a = (float)v->alpha[n];
        for (int k = 0; k < K; k++) {
            for (size_t q = 0; q < LF; q++) pre[q] = base[TF * k + q] + a * dlt[TF * k + q];
            be->maxpool_fwd(pre, mask, pooled, arg + k * F, 1, L, F, F, 0);
        }
        for (int q = 0; q < KF; q++) dP[q] = (float)v->wts[n] * v->w.Wc[(size_t)q * C + tg];
        for (int k = 0; k < K; k++)
            be->conv_pool_bwd(NULL, v->w.W[k], dP, arg + k * F, acc, NULL, NULL, 1, L, d, c->widths[k], F, KF, k * F);
    }
    double total = 0;
    for (int t = 0; t < T; t++) {
        double sum = 0;
        if (t < L)
            for (int q = 0; q < d; q++) sum += (double)diff[(size_t)t * d + q] * acc[(size_t)t * d + q];
        v->A[(size_t)i * T + t] = (float)sum;
        total += sum;
    }
    EeAttrInfo *info = v->info;
    if (info) {
        if (info->target) info->target[i] = tg;
        if (info->fx) info->fx[i] = (float)z[0][tg];
        if (info->fbaseline) info->fbaseline[i] = (float)z[1][tg];
        if (info->delta) info->delta[i] = (float)(total - (z[0][tg] - z[1][tg]));
    }
}

static EeStatus ig_cnn_linear(EeModel *m, const EeInput *in, const EeAttrOptions *o, const double *alpha,
                              const double *wts, float *A, EeAttrInfo *info)
{
    const EeConfig *c = &m->cfg;
    int N = in->n, s = o->steps;
    CnnIg v = {m, in, o, alpha, wts, {0}, A, info};
    EeStatus st = ee_cnn_view(m, m->w, &v.w);
    if (st) return st;
    double t0 = ee_now();
    /* sequences in blocks: between blocks the calling thread (the team's
     * master) asks whether to stop, and the barrier shows every thread
     * its answer */
    int fail = 0, stop = 0;
    const int block = 16;
    #pragma omp parallel reduction(|| : fail)
    {
        CnnIgScratch b;
        if (!cnn_ig_scratch(&b, c)) fail = 1;
        for (int i0 = 0; i0 < N; i0 += block) {
            #pragma omp master
            stop = ee_interrupted();
            #pragma omp barrier
            if (stop) break;
            int i1 = i0 + block < N ? i0 + block : N;
            #pragma omp for schedule(dynamic, 1)
            for (int i = i0; i < i1; i++)
                if (!fail) cnn_ig_row(&v, i, &b);
        }
        cnn_ig_scratch_free(&b);
    }
    if (fail) return ee_fail(EE_ERR_NOMEM, "out of memory");
    if (stop) return ee_fail(EE_ERR_INTERRUPTED, "interrupted during IG");
    if (info) {
        info->forward = (long)N * (s + 2);
        info->backward = (long)N * s;
        info->seconds = ee_now() - t0;
    }
    return EE_OK;
}

static EeStatus ig_sorted(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                          EeAttrInfo *info)
{
    const EeConfig *c = &m->cfg;
    int xgrad = o->method == EE_IG_XGRAD || o->method == EE_IG_GRADXINPUT;
    EeAttrOptions opt = *o;
    if (xgrad) {
        if (o->method == EE_IG_XGRAD && !ee_config_homogeneous(c))
            return ee_fail(EE_ERR_UNSUPPORTED,
                           "xgrad needs a nonnegatively homogeneous network (a bias-free cnn or mlp), not a %s%s",
                           ee_kind_name(c->kind), c->kind != EE_KIND_TRANSFORMER && c->bias ? " with biases" : "");
        opt.steps = 1;
        opt.baseline = EE_BASELINE_ZERO;
    }
    EeStatus st = ee_attr_check(m, in, &opt, 0);
    if (st) return st;
    int s = opt.steps;
    double *alpha = malloc(sizeof(double) * s), *wts = malloc(sizeof(double) * s);
    if (!alpha || !wts) { free(alpha); free(wts); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    if ((st = ee_ig_nodes(opt.method, s, alpha, wts))) { free(alpha); free(wts); return st; }
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(opt.device, opt.precision, &dev, &be))) { free(alpha); free(wts); return st; }
    if (c->kind == EE_KIND_CNN && be->host_memory && c->classes <= 64 && !opt.full_passes) {
        st = ig_cnn_linear(m, in, &opt, alpha, wts, A, info);
        free(alpha);
        free(wts);
        return st;
    }

    int token = ee_is_token_model(c), T = token ? c->T : 1, C = c->classes, N = in->n;
    int R = opt.batch > 0 ? opt.batch : ee_default_batch(c, dev);
    int G = R / s > 0 ? R / s : 1;            /* sequences per group */
    /* f(x) and f(baseline) of a group go through in one pass of 2 G rows:
     * no more than R, so that s = 1 and 2 run on the buffers of larger s
     * (a pass of 2 R rows cost 2x per row in first-touched memory) */
    if (2 * G > R && R >= 2) G = R / 2;
    if (G > N) G = N > 0 ? N : 1;
    if (R > G * s) R = G * s; /* no larger than one group's interpolation rows */
    int Bmax = R > 2 * G ? R : 2 * G;
    EeRun *r = NULL;
    if ((st = ee_run_new(m, be, Bmax, EE_KEEP_FULL, 0, &r))) { free(alpha); free(wts); return st; }
    size_t W = (size_t)r->in_width;
    int fail = 0;
    float *ex = ee_run_alloc(r, sizeof(float) * G * W, &fail);
    float *eb = ee_run_alloc(r, sizeof(float) * G * W, &fail);
    float *diff = ee_run_alloc(r, sizeof(float) * G * W, &fail);
    float *acc = ee_run_alloc(r, sizeof(float) * G * W, &fail);
    float *d_dout = ee_run_alloc(r, sizeof(float) * Bmax * C, &fail);
    /* per interpolation row: its node, its weight and its sequence in the group */
    float *d_alpha = ee_run_alloc(r, sizeof(float) * Bmax, &fail);
    float *d_w = ee_run_alloc(r, sizeof(float) * Bmax, &fail);
    int32_t *d_group = ee_run_alloc(r, sizeof(int32_t) * Bmax, &fail);
    float *h_alpha = malloc(sizeof(float) * Bmax), *h_w = malloc(sizeof(float) * Bmax);
    int32_t *h_group = malloc(sizeof(int32_t) * Bmax);
    int32_t *h_ids = malloc(sizeof(int32_t) * Bmax * T);
    uint8_t *h_mask = malloc((size_t)Bmax * T);
    float *h_dout = malloc(sizeof(float) * Bmax * C);
    float *h_out = malloc(sizeof(float) * Bmax * C);
    float *h_diff = malloc(sizeof(float) * G * W), *h_acc = malloc(sizeof(float) * G * W);
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1));
    float *fb = malloc(sizeof(float) * (N ? N : 1));
    if (fail || !fb || !h_alpha || !h_w || !h_group || !h_ids || !h_mask || !h_dout || !h_out || !h_diff || !h_acc || !target || !fx) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for IG buffers (batch %d)", Bmax);
        goto done;
    }
    double t0 = ee_now();
    long fwd = 0, bwd = 0;
    EeProgress prog;
    ee_progress_start(&prog, &opt, xgrad ? "xgrad" : "ig", N);
    for (int i0 = 0; i0 < N && !st; i0 += G) {
        int g_n = N - i0 < G ? N - i0 : G;
        /* The group's rows run at one active length L (the longest any of
         * its inputs or baselines needs); positions past it get 0. */
        int L = 1;
        if (token) {
            for (int g = 0; g < g_n; g++) {
                memcpy(h_ids + (size_t)g * T, in->ids + (size_t)(i0 + g) * T, sizeof(int32_t) * T);
                ee_attr_row_mask(m, in, i0 + g, h_mask + (size_t)g * T);
                ee_attr_row_baseline(m, in, &opt, i0 + g, h_ids + (size_t)(g_n + g) * T);
                memcpy(h_mask + (size_t)(g_n + g) * T, h_mask + (size_t)g * T, T);
            }
            L = ee_run_needed_len(r, h_ids, h_mask, 2 * g_n);
        }
        size_t Wg = token ? (size_t)L * c->d : W;
        /* e_x of the group, then e_b (pad/ids baselines) or 0 */
        if ((st = ee_run_set_input_len(r, h_ids, h_mask, token ? NULL : in->x + (size_t)i0 * c->D, g_n, L)))
            break;
        ee_run_embed(r, g_n);
        be->copy(ex, r->e, sizeof(float) * g_n * Wg);
        if (opt.baseline == EE_BASELINE_ZERO) {
            be->zero(eb, sizeof(float) * g_n * Wg);
        } else {
            if ((st = ee_run_set_input_len(r, h_ids + (size_t)g_n * T, h_mask, NULL, g_n, L))) break;
            ee_run_embed(r, g_n);
            be->copy(eb, r->e, sizeof(float) * g_n * Wg);
        }
        be->copy(diff, ex, sizeof(float) * g_n * Wg);
        be->axpy((size_t)g_n * Wg, -1.0f, eb, diff);
        /* f at e_x and e_b (targets, fx, fbaseline), one pass of 2 g_n rows */
        if (token) {
            for (int g = 0; g < g_n; g++)
                memcpy(h_ids + (size_t)(g_n + g) * T, in->ids + (size_t)(i0 + g) * T, sizeof(int32_t) * T);
            if ((st = ee_run_set_input_len(r, h_ids, h_mask, NULL, 2 * g_n, L))) break;
        }
        be->copy(r->e, ex, sizeof(float) * g_n * Wg);
        be->copy(r->e + (size_t)g_n * Wg, eb, sizeof(float) * g_n * Wg);
        /* in FP32 whatever the precision: f(x) and f(baseline) are what
         * completeness and the callers compare the map with */
        r->be = ee_backend_at(dev, EE_PRECISION_FP32);
        ee_run_forward(r, 2 * g_n, 0);
        r->be = be;
        fwd += 2 * g_n;
        be->download(h_out, r->out, sizeof(float) * 2 * g_n * C);
        for (int g = 0; g < g_n; g++) {
            const float *z = h_out + (size_t)g * C;
            int t = opt.target ? opt.target[i0 + g] : ee_argmax(z, C);
            target[i0 + g] = t;
            fx[i0 + g] = z[t];
            fb[i0 + g] = h_out[(size_t)(g_n + g) * C + t];
        }
        /* interpolation rows (g, k), in chunks of Bmax */
        be->zero(acc, sizeof(float) * g_n * Wg);
        long rows = (long)g_n * s;
        for (long q0 = 0; q0 < rows && !st; q0 += Bmax) {
            int nb = rows - q0 < Bmax ? (int)(rows - q0) : Bmax;
            if (ee_interrupted()) {
                st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during IG");
                break;
            }
            memset(h_dout, 0, sizeof(float) * (size_t)nb * C);
            for (int j = 0; j < nb; j++) {
                int g = (int)((q0 + j) / s);
                if (token) {
                    memcpy(h_ids + (size_t)j * T, in->ids + (size_t)(i0 + g) * T, sizeof(int32_t) * T);
                    ee_attr_row_mask(m, in, i0 + g, h_mask + (size_t)j * T);
                }
                h_dout[(size_t)j * C + target[i0 + g]] = 1.0f;
            }
            if (token && (st = ee_run_set_input_len(r, h_ids, h_mask, NULL, nb, L))) break;
            for (int j = 0; j < nb; j++) {
                int k = (int)((q0 + j) % s);
                h_group[j] = (int32_t)((q0 + j) / s);
                h_alpha[j] = (float)alpha[k];
                h_w[j] = (float)wts[k];
            }
            be->upload(d_group, h_group, sizeof(int32_t) * nb);
            be->upload(d_alpha, h_alpha, sizeof(float) * nb);
            be->upload(d_w, h_w, sizeof(float) * nb);
            be->lerp_rows(r->e, eb, diff, d_alpha, d_group, nb, (int)Wg);
            ee_run_forward(r, nb, 0);
            be->upload(d_dout, h_dout, sizeof(float) * (size_t)nb * C);
            ee_run_backward(r, nb, d_dout, 1, 0);
            fwd += nb;
            bwd += nb;
            be->accum_rows(acc, r->de, d_w, d_group, nb, (int)Wg);
        }
        if (st) break;
        /* phi = (e_x - e_b) .* acc, summed over d */
        be->download(h_diff, diff, sizeof(float) * g_n * Wg);
        be->download(h_acc, acc, sizeof(float) * g_n * Wg);
        int per = token ? c->d : 1, cols = token ? T : c->D, active = token ? L : c->D;
        for (int g = 0; g < g_n; g++) {
            double total = 0;
            for (int t = 0; t < cols; t++) {
                double sum = 0;
                if (t < active) {
                    const float *dv = h_diff + (size_t)g * Wg + (size_t)t * per;
                    const float *av = h_acc + (size_t)g * Wg + (size_t)t * per;
                    for (int k = 0; k < per; k++) sum += (double)dv[k] * av[k];
                }
                A[(size_t)(i0 + g) * cols + t] = (float)sum;
                total += sum;
            }
            if (info && info->delta) info->delta[i0 + g] = (float)(total - ((double)fx[i0 + g] - fb[i0 + g]));
        }
        ee_progress_tick(&prog, i0 + g_n);
    }
    ee_progress_end(&prog, N, fwd + bwd);
    if (!st) st = ee_backend_check(be);
    if (!st && info) {
        if (info->target) memcpy(info->target, target, sizeof(int32_t) * N);
        if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
        if (info->fbaseline) memcpy(info->fbaseline, fb, sizeof(float) * N);
        info->forward = fwd;
        info->backward = bwd;
        info->seconds = ee_now() - t0;
    }
done:
    be->release(ex);
    be->release(eb);
    be->release(diff);
    be->release(acc);
    be->release(d_dout);
    be->release(d_alpha);
    be->release(d_w);
    be->release(d_group);
    free(h_alpha); free(h_w); free(h_group);
    ee_run_free(r);
    free(h_ids); free(h_mask); free(h_dout); free(h_out); free(h_diff); free(h_acc);
    free(target); free(fx); free(fb); free(alpha); free(wts);
    return st;
}

/* Sequences are processed in order of length (ee_rows_by_length), so that
 * the rows that share a pass have similar active lengths (less padding);
 * results go back to the caller's order. */
static EeStatus ig_ordered(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                           EeAttrInfo *info);

EeStatus ee_ig_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                         EeAttrInfo *info)
{
    return ee_attr_fit_batch(ig_ordered, m, in, o, A, info);
}

static EeStatus ig_ordered(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                           EeAttrInfo *info)
{
    const EeConfig *c = &m->cfg;
    int N = in->n, T = c->T;
    if (!ee_is_token_model(c) || N < 2 || !in->ids) return ig_sorted(m, in, o, A, info);
    EeStatus st = ee_attr_check(m, in, o, 0);
    if (st) return st;
    int *order = malloc(sizeof(int) * N);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)N * T);
    uint8_t *mask = in->mask ? malloc((size_t)N * T) : NULL;
    int32_t *bids = o->baseline_ids ? malloc(sizeof(int32_t) * (size_t)N * T) : NULL;
    int32_t *tg = o->target ? malloc(sizeof(int32_t) * N) : NULL;
    float *Ap = malloc(sizeof(float) * (size_t)N * T);
    EeAttrInfo pi = {0};
    if (info) {
        pi.target = info->target ? malloc(sizeof(int32_t) * N) : NULL;
        pi.fx = info->fx ? malloc(sizeof(float) * N) : NULL;
        pi.fbaseline = info->fbaseline ? malloc(sizeof(float) * N) : NULL;
        pi.delta = info->delta ? malloc(sizeof(float) * N) : NULL;
    }
    if (!order || !ids || (in->mask && !mask) || (o->baseline_ids && !bids) || (o->target && !tg) ||
        !Ap || (info && ((info->target && !pi.target) || (info->fx && !pi.fx) ||
                         (info->fbaseline && !pi.fbaseline) || (info->delta && !pi.delta)))) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory");
        goto done;
    }
    ee_rows_by_length(in->ids, in->mask, N, T, order, NULL);
    for (int i = 0; i < N; i++) {
        size_t src = (size_t)order[i] * T, dst = (size_t)i * T;
        memcpy(ids + dst, in->ids + src, sizeof(int32_t) * T);
        if (mask) memcpy(mask + dst, in->mask + src, T);
        if (bids) memcpy(bids + dst, o->baseline_ids + src, sizeof(int32_t) * T);
        if (tg) tg[i] = o->target[order[i]];
    }
    EeInput pin = {.n = N, .ids = ids, .mask = mask};
    EeAttrOptions po = *o;
    po.baseline_ids = bids;
    po.target = tg;
    if ((st = ig_sorted(m, &pin, &po, Ap, info ? &pi : NULL))) goto done;
    for (int i = 0; i < N; i++) {
        int j = order[i];
        memcpy(A + (size_t)j * T, Ap + (size_t)i * T, sizeof(float) * T);
        if (!info) continue;
        if (pi.target) info->target[j] = pi.target[i];
        if (pi.fx) info->fx[j] = pi.fx[i];
        if (pi.fbaseline) info->fbaseline[j] = pi.fbaseline[i];
        if (pi.delta) info->delta[j] = pi.delta[i];
    }
    if (info) {
        info->forward = pi.forward;
        info->backward = pi.backward;
        info->seconds = pi.seconds;
    }
done:
    free(order); free(ids); free(mask); free(bids); free(tg); free(Ap);
    free(pi.target); free(pi.fx); free(pi.fbaseline); free(pi.delta);
    return st;
}
