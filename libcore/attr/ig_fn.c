/* ig_fn.c: Integrated Gradients and Gradient x Input of a model given as
 * a function (EeScoreFn, and EeGradFn when it gives its gradient), on
 * dense rows, from a baseline row, or averaged over baselines taken
 * from a background set (expected gradients; MODELS.md).
 *
 * Each row of X needs its gradient at s nodes of the straight path from
 * each of its baselines: one perturbed row per node with a gradient
 * callback, or 2 F rows per node for central differences. A row's items
 * run baseline by baseline; when a baseline's last item is back, its
 * path sum times (x - b) joins the row's mean. A generator walks the rows
 * of X and their items and fills batches of at most B rows; each item's
 * contribution is added to its row's sums in generation order (the two
 * sides of a difference are subtracted first, then weighted), so the
 * results do not depend on the batch size. The first calls evaluate the
 * rows of X and the baselines: the targets, f(x) and f(b). */
#include "attr_common.h"
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const EeScoreFn *f;
    const EeGradFn *g;
    const double *X, *bg;   /* bg: K x F baselines */
    const int *base;        /* N x nb: the baselines (rows of bg) of each row */
    int N, F, B, C, fd, K, nb, s;
    double h;
    const double *alpha, *w;
    double *buf;            /* B x F row-major */
    long calls, rows;
    double t_eval;
} Ctx;

/* One call (scores only, or with gradients) on the first M rows of buf. */
static EeStatus call(Ctx *c, int M, int grads, const double **y, const double **gr)
{
    int C = 0;
    double t0 = ee_now();
    c->calls++;
    *gr = NULL;
    EeStatus st = grads ? c->g->eval(c->g->ctx, c->buf, M, c->F, c->calls, y, gr, &C)
                        : c->f->eval(c->f->ctx, c->buf, M, c->F, c->calls, y, &C);
    c->t_eval += ee_now() - t0;
    c->rows += M;
    if (st) return st;
    return ee_fn_check(c->calls, M, grads ? c->F : 0, *y, *gr, C, &c->C);
}

/* Item `item` of row i's list: its baseline, node k, and for differences
 * column f and side. */
static void emit(const Ctx *c, int i, long item, double *dst)
{
    int per = c->fd ? 2 * c->F : 1;
    long path = (long)c->s * per;
    const double *x = c->X + (size_t)i * c->F, *b = c->bg + (size_t)c->base[(size_t)i * c->nb + item / path] * c->F;
    item %= path;
    long k = item / per;
    double a = c->alpha[k];
    for (int f = 0; f < c->F; f++) dst[f] = b[f] + a * (x[f] - b[f]);
    if (c->fd) {
        int r = (int)(item % per), f = r / 2;
        dst[f] += r % 2 ? -c->h : c->h;
    }
}

EeStatus ee_ig_fn(const EeScoreFn *f, const EeGradFn *g, const double *X, int N, int F, const double *b,
                  const EeAttrOptions *o, double h, double *A, EeFnInfo *info)
{
    return ee_eg_fn(f, g, X, N, F, b, b ? 1 : 0, 0, o, h, A, info);
}

EeStatus ee_eg_fn(const EeScoreFn *f, const EeGradFn *g, const double *X, int N, int F, const double *bg, int K,
                  int m, const EeAttrOptions *o, double h, double *A, EeFnInfo *info)
{
    const double *b = bg;
    if (!f || !f->eval || !o || (g && !g->eval) || (N > 0 && (!X || !A)))
        return ee_fail(EE_ERR_INPUT, "IG of f: missing argument");
    if (N < 0 || F < 1) return ee_fail(EE_ERR_INPUT, "IG of f: X must have at least one column (got %d)", F);
    if (o->method == EE_IG_XGRAD)
        return ee_fail(EE_ERR_UNSUPPORTED, "xgrad is defined for bias-free ReLU networks; for a function use 'gradxinput'");
    int one = o->method == EE_IG_GRADXINPUT, s = one ? 1 : o->steps;
    if (bg && K < 1) return ee_fail(EE_ERR_INPUT, "the background must have at least one row");
    if (m < 0) return ee_fail(EE_ERR_INPUT, "the baselines drawn per row must be >= 0, got %d", m);
    if (one && b)
        for (size_t j = 0; j < (size_t)K * F; j++)
            if (b[j] != 0) return ee_fail(EE_ERR_INPUT, "gradxinput has no baseline (one gradient at the input)");
    if (!g && !(h > 0 && isfinite(h)))
        return ee_fail(EE_ERR_INPUT, "the finite-difference step must be > 0, got %g", h);
    for (size_t t = 0; t < (size_t)N * F; t++)
        if (!isfinite(X[t])) return ee_fail(EE_ERR_INPUT, "X(%zu,%zu) is NaN or Inf", t / F + 1, t % F + 1);
    for (size_t j = 0; b && j < (size_t)K * F; j++)
        if (!isfinite(b[j]))
            return ee_fail(EE_ERR_INPUT, "the baseline's (background's) row %zu, column %zu is NaN or Inf", j / F + 1,
                           j % F + 1);
    if (!b) K = 1;
    double t0 = ee_now();
    /* every row of the background in order, or m drawn per row */
    int nbase = m > 0 ? m : K;
    Ctx c = {.f = f, .g = g, .X = X, .N = N, .F = F, .fd = !g, .h = h, .K = K, .nb = nbase, .s = s};
    long path = (long)s * (c.fd ? 2L * F : 1), per_row = path * nbase;
    long B = o->batch > 0 ? o->batch : 1024;
    double total = (double)N * per_row;
    if (B > N + K && B > total) B = (long)(total > N + K ? total : N + K);
    c.B = (int)B;
    double *alpha = malloc(sizeof(double) * s), *w = malloc(sizeof(double) * s);
    double *zeros = b ? NULL : calloc((size_t)F, sizeof(double));
    double *fx = malloc(sizeof(double) * (N + 1)), *fb = malloc(sizeof(double) * (N + 1));
    double *fbg = NULL; /* K x C: f at the baselines */
    int *base = malloc(sizeof(int) * ((size_t)N * nbase + 1));
    double *acc = NULL, *plus = NULL;
    int32_t *target = malloc(sizeof(int32_t) * (N + 1));
    long *pending = NULL;
    int *row_i = malloc(sizeof(int) * c.B);
    long *row_t = malloc(sizeof(long) * c.B);
    c.buf = malloc(sizeof(double) * (size_t)c.B * F);
    EeStatus st = EE_OK;
    if (!alpha || !w || (!b && !zeros) || !fx || !fb || !target || !row_i || !row_t || !c.buf || !base) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for IG of f (batch %d)", c.B);
        goto done;
    }
    c.bg = b ? b : zeros;
    for (int i = 0; i < N; i++) {
        if (m > 0) { /* drawn: uniform with replacement, one stream per row */
            EeRng r;
            ee_rng_stream(&r, o->seed, (uint64_t)(o->row_offset + i), EE_EG_STREAM);
            for (int j = 0; j < m; j++) base[(size_t)i * nbase + j] = (int)ee_rng_below(&r, (uint64_t)K);
        } else {
            for (int j = 0; j < K; j++) base[(size_t)i * nbase + j] = j;
        }
    }
    c.base = base;
    if ((st = ee_ig_nodes(o->method, s, alpha, w))) goto done;
    c.alpha = alpha;
    c.w = w;

    /* the first calls: the rows of X, then the baselines */
    for (int i0 = 0; i0 < N + K && !st; i0 += c.B) {
        int M = N + K - i0 < c.B ? N + K - i0 : c.B;
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during IG of f"); break; }
        for (int j = 0; j < M; j++)
            memcpy(c.buf + (size_t)j * F, i0 + j < N ? X + (size_t)(i0 + j) * F : c.bg + (size_t)(i0 + j - N) * F,
                   sizeof(double) * F);
        const double *y, *gr;
        if ((st = call(&c, M, 0, &y, &gr))) break;
        if (!fbg && !(fbg = malloc(sizeof(double) * (size_t)K * c.C))) {
            st = ee_fail(EE_ERR_NOMEM, "out of memory for IG of f");
            break;
        }
        for (int j = 0; j < M; j++) {
            int i = i0 + j, t = 0;
            if (i >= N) { /* a baseline: read at every row's target below */
                for (int k = 0; k < c.C; k++) fbg[(size_t)(i - N) * c.C + k] = y[j + (size_t)k * M];
                continue;
            }
            if (o->target) {
                t = o->target[i];
                if (t < 0 || t >= c.C) {
                    st = ee_fail(EE_ERR_INPUT, "'target' of row %d is %d but f returns %d score%s per row", i + 1, t + 1,
                                 c.C, c.C == 1 ? "" : "s");
                    break;
                }
            } else {
                for (int k = 1; k < c.C; k++)
                    if (y[j + (size_t)k * M] > y[j + (size_t)t * M]) t = k;
            }
            target[i] = t;
            fx[i] = y[j + (size_t)t * M];
        }
    }
    if (st) goto done;
    /* f(b) at every target, the mean over the row's baselines */
    for (int i = 0; i < N; i++) {
        double sum = 0;
        for (int j = 0; j < nbase; j++) sum += fbg[(size_t)base[(size_t)i * nbase + j] * c.C + target[i]];
        fb[i] = sum / nbase;
    }

    /* the path: sums over the nodes per row and column */
    acc = calloc((size_t)N * F * 2 + 1, sizeof(double)); /* per row: the baseline's path sums, the mean */
    plus = calloc((size_t)N + 1, sizeof(double));
    pending = malloc(sizeof(long) * (N + 1));
    if (!acc || !plus || !pending) { st = ee_fail(EE_ERR_NOMEM, "out of memory for IG of f"); goto done; }
    for (int i = 0; i < N; i++) pending[i] = per_row;
    EeProgress prog;
    ee_progress_start_rows(&prog, o, "ig", N);
    int gi = 0, finished = 0;
    long gt = 0;
    while (finished < N && !st) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during IG of f"); break; }
        int nb = 0;
        while (nb < c.B && gi < N) {
            emit(&c, gi, gt, c.buf + (size_t)nb * F);
            row_i[nb] = gi;
            row_t[nb] = gt;
            nb++;
            if (++gt == per_row) { gt = 0; gi++; }
        }
        if (nb > 0) {
            const double *y, *gr;
            if ((st = call(&c, nb, !c.fd, &y, &gr))) break;
            for (int j = 0; j < nb; j++) {
                int i = row_i[j], t = target[i];
                double *a = acc + (size_t)i * F * 2;
                long item = row_t[j] % path;
                if (c.fd) {
                    int per = 2 * F, r = (int)(item % per);
                    double v = y[j + (size_t)t * nb];
                    if (r % 2 == 0) plus[i] = v; /* the + side comes first, in this call or the one before */
                    else a[r / 2] += w[item / per] * ((plus[i] - v) / (2 * h));
                } else {
                    double wk = w[item];
                    const double *gt_ = gr + (size_t)t * nb * F;
                    for (int col = 0; col < F; col++) a[col] += wk * gt_[j + (size_t)col * nb];
                }
                if (item == path - 1) { /* the baseline's path is complete: (x - b) times its sums */
                    const double *x = X + (size_t)i * F;
                    const double *bb = c.bg + (size_t)base[(size_t)i * nbase + row_t[j] / path] * F;
                    for (int col = 0; col < F; col++) {
                        a[F + col] += (x[col] - bb[col]) * a[col];
                        a[col] = 0;
                    }
                }
                pending[i]--;
            }
        }
        for (; finished < N && pending[finished] == 0; finished++) {
            const double *x = X + (size_t)finished * F;
            double *a = A + (size_t)finished * F, sum = 0;
            (void)x;
            for (int col = 0; col < F; col++) {
                a[col] = acc[(size_t)finished * F * 2 + F + col] / nbase;
                sum += a[col];
            }
            if (info && info->delta) info->delta[finished] = sum - (fx[finished] - fb[finished]);
        }
        ee_progress_tick(&prog, finished);
    }
    ee_progress_end(&prog, finished, c.rows);
    if (!st) {
        ee_fn_info_rows(info, N, target, fx);
        if (info && info->fempty) memcpy(info->fempty, fb, sizeof(double) * N);
    }
done:
    ee_fn_info_totals(info, c.rows, c.calls, c.t_eval, t0);
    free(alpha); free(w); free(zeros); free(fx); free(fb); free(fbg); free(base); free(acc); free(plus); free(target); free(pending);
    free(row_i); free(row_t); free(c.buf);
    return st;
}
