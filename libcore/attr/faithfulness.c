/* faithfulness.c: how faithful an attribution map is to the model it
 * explains, measured by perturbing the input in the map's order
 * (doc/MODELS.md, "Faithfulness"): ERASER comprehensiveness and
 * sufficiency (AOPC over the bins 1, 5, 10, 20, 50 % of the real tokens),
 * the deletion and insertion curves with their areas, and the log-odds
 * drop at k % removed. The players are the real tokens of a row (the
 * dense features of an mlp); an absent player takes the baseline of IG
 * and SV (the pad or given ids under the input's mask; 0 for an mlp).
 *
 * Every perturbed copy is one row of a batched forward pass: the copies
 * of all rows, taken in order of length, fill the passes as ee_predict's
 * rows do, and each copy is evaluated once even where a bin, a curve point
 * and the log-odds drop ask for the same one. */
#define _GNU_SOURCE /* qsort_r */
#include "attr_common.h"
#include "../models/run_size.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int ee_faith_bins[EE_FAITH_BINS] = {1, 5, 10, 20, 50};
const char *const ee_faith_score_names[EE_FAITH_SCORE_COUNT] = {"probability", "logit"};

void ee_faith_options_defaults(EeFaithOptions *f)
{
    f->steps = 20;
    f->logodds_percent = 20;
    f->score = EE_FAITH_PROBABILITY;
    f->infidelity_samples = 0;
}

/* ceil(k n / 100): the players a bin of k % removes (>= 1 for n >= 1) */
static int bin_count(int k, int n) { return (int)(((long)k * n + 99) / 100); }

/* the j-th of the curve's points: round(q n / K), halves up; every count
 * 0..n when K = 0 */
static int curve_count(int q, int K, int n) { return K ? (int)((2L * q * n + K) / (2L * K)) : q; }
static int curve_points(int K, int n) { return K ? K + 1 : n + 1; }

/* the score of class t from a row of C logits, and its log-odds
 * log(p / (1 - p)) = z_t - log sum_{c != t} exp z_c, in double */
static double score_of(const float *z, int C, int t, EeFaithScore s)
{
    if (s == EE_FAITH_LOGIT) return z[t];
    double sum = 0;
    for (int c = 0; c < C; c++) sum += exp((double)z[c] - z[t]);
    return 1 / sum;
}

static double log_odds_of(const float *z, int C, int t)
{
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < C; c++)
        if (c != t && z[c] > mx) mx = z[c];
    for (int c = 0; c < C; c++)
        if (c != t) sum += exp((double)z[c] - mx);
    return z[t] - (mx + log(sum));
}

/* The counts j that some measure reads, of a row of n players: need[j]
 * bit 1 for the deletion copy, bit 2 for the insertion copy (the curve
 * points, the bins, the log-odds count lo; j = n is the baseline, which
 * insertion reads as I_0; insertion needs no copy at j = 0 or n). Returns
 * the copies to evaluate. */
long ee_faith_mark_needed(char *need, int n, int K, int lo)
{
    memset(need, 0, (size_t)n + 1);
    if (n == 0) return 0;
    for (int p = 0; p < curve_points(K, n); p++) need[curve_count(p, K, n)] |= 3;
    for (int k = 0; k < EE_FAITH_BINS; k++) need[bin_count(ee_faith_bins[k], n)] |= 3;
    need[lo] |= 1;
    need[n] |= 1;
    long copies = 0;
    for (int j = 1; j <= n; j++) copies += (need[j] & 1) + (j < n && (need[j] & 2));
    return copies;
}

/* One perturbed copy: row i with its top j players removed (del) or only
 * its top j players kept (!del). */
typedef struct {
    int i, j, del; /* del: 1 deletion, 0 insertion, 2 an infidelity subset */
    double sa;     /* infidelity: the map's sum over the subset */
} Copy;

typedef struct {
    EeModel *m;
    const EeInput *in;
    const float *A;
    const EeAttrOptions *o;
    const EeFaithOptions *f;
    EeFaithResult *res;
} Job;

typedef struct {
    EeRun *r;
    int token, W, C, B, n; /* W values per row (T or D); n copies in the batch */
    int32_t *ids;          /* B x T */
    uint8_t *mask;         /* B x T */
    float *x;              /* B x D (mlp) */
    float *out;            /* B x C */
    Copy *copy;
    const int32_t *tgt;
    const int *lo_count;   /* the copy whose log-odds is kept, per row */
    double **dv, **iv;     /* per row: D_j, I_j for j = 0..n_i */
    double *lo;            /* per row: log-odds at D_{lo_count} */
    double *zx, *inf;      /* per row: the target logit at x; the infidelity sum */
    double *ss, *sd, *dd;  /* per row: sums of s^2, s d, d^2 (s the map's subset sum, d the drop) */
    int ninf;              /* infidelity subsets per row */
    EeFaithScore score;
    long passes;
} Batch;

static EeStatus flush(Batch *b)
{
    if (!b->n) return EE_OK;
    if (ee_interrupted()) return ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing faithfulness");
    EeStatus st = ee_run_set_input(b->r, b->token ? b->ids : NULL, b->token ? b->mask : NULL,
                                   b->token ? NULL : b->x, b->n);
    if (st) return st;
    ee_run_embed(b->r, b->n);
    ee_run_forward(b->r, b->n, 0);
    b->r->be->download(b->out, b->r->out, sizeof(float) * (size_t)b->n * b->C);
    for (int k = 0; k < b->n; k++) {
        const Copy *c = &b->copy[k];
        const float *z = b->out + (size_t)k * b->C;
        double s = score_of(z, b->C, b->tgt[c->i], b->score);
        if (c->del == 2) { /* (sum of A over S - (f(x) - f(x without S)))^2, f the logit */
            double dz = b->zx[c->i] - z[b->tgt[c->i]], e = c->sa - dz;
            b->inf[c->i] += e * e / b->ninf;
            b->ss[c->i] += c->sa * c->sa;
            b->sd[c->i] += c->sa * dz;
            b->dd[c->i] += dz * dz;
        } else if (c->del) {
            b->dv[c->i][c->j] = s;
            if (c->j == b->lo_count[c->i]) b->lo[c->i] = log_odds_of(z, b->C, b->tgt[c->i]);
        } else
            b->iv[c->i][c->j] = s;
    }
    b->passes += b->n;
    b->n = 0;
    return EE_OK;
}

/* Appends the copy (i, j, del): x with its first j players in `order`
 * taken from the baseline (del), or the baseline with them taken from x. */
static EeStatus push(Batch *b, const Job *J, int i, const int *order, int j, int del, const int32_t *base)
{
    if (b->n == b->B) {
        EeStatus st = flush(b);
        if (st) return st;
    }
    const EeInput *in = J->in;
    int W = b->W;
    if (b->token) {
        const int32_t *x = in->ids + (size_t)i * W;
        int32_t *dst = b->ids + (size_t)b->n * W;
        memcpy(dst, del ? x : base, sizeof(int32_t) * W);
        for (int q = 0; q < j; q++) dst[order[q]] = del ? base[order[q]] : x[order[q]];
        ee_attr_row_mask(J->m, in, i, b->mask + (size_t)b->n * W);
    } else {
        const float *x = in->x + (size_t)i * W;
        float *dst = b->x + (size_t)b->n * W;
        if (del) memcpy(dst, x, sizeof(float) * W);
        else memset(dst, 0, sizeof(float) * W);
        for (int q = 0; q < j; q++) dst[order[q]] = del ? 0 : x[order[q]];
    }
    b->copy[b->n++] = (Copy){i, j, del, 0};
    return EE_OK;
}

/* Infidelity subset k of row i: each player (real token, feature) in S
 * with probability 1/2, from the stream (seed, row, 3 * 2^32 + k), one
 * uniform per player in order of position; the copy is x with S taken
 * from the baseline. */
static EeStatus push_subset(Batch *b, const Job *J, int i, int k, const int32_t *base)
{
    if (b->n == b->B) {
        EeStatus st = flush(b);
        if (st) return st;
    }
    const EeInput *in = J->in;
    const EeAttrOptions *o = J->o;
    int W = b->W;
    const float *A = J->A + (size_t)i * W;
    EeRng r;
    ee_rng_stream(&r, o->seed, (uint64_t)(o->row_offset + i), (3ULL << 32) + (uint64_t)k);
    double sa = 0;
    if (b->token) {
        const int32_t *x = in->ids + (size_t)i * W;
        int32_t *dst = b->ids + (size_t)b->n * W;
        memcpy(dst, x, sizeof(int32_t) * W);
        for (int t = 0; t < W; t++)
            if (!EE_IS_SPECIAL(x[t]) && ee_rng_uniform(&r) < 0.5) {
                dst[t] = base[t];
                sa += A[t];
            }
        ee_attr_row_mask(J->m, in, i, b->mask + (size_t)b->n * W);
    } else {
        float *dst = b->x + (size_t)b->n * W;
        memcpy(dst, in->x + (size_t)i * W, sizeof(float) * W);
        for (int t = 0; t < W; t++)
            if (ee_rng_uniform(&r) < 0.5) {
                dst[t] = 0;
                sa += A[t];
            }
    }
    b->copy[b->n++] = (Copy){i, k, 2, sa};
    return EE_OK;
}

/* The players of row i (real token positions, or every feature) in the
 * map's order: largest score first, ties to the lower position. */
static int by_score(const void *pa, const void *pb, void *scores)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    float sa = ((const float *)scores)[a], sb = ((const float *)scores)[b];
    if (sa != sb) return sa > sb ? -1 : 1;
    return (a > b) - (a < b);
}

static int players_in_order(const Job *J, int i, int *order)
{
    const EeConfig *c = &J->m->cfg;
    int n = 0;
    const float *scores;
    if (ee_is_token_model(c)) {
        const int32_t *x = J->in->ids + (size_t)i * c->T;
        for (int t = 0; t < c->T; t++)
            if (!EE_IS_SPECIAL(x[t])) order[n++] = t;
        scores = J->A + (size_t)i * c->T;
    } else {
        for (int t = 0; t < c->D; t++) order[n++] = t;
        scores = J->A + (size_t)i * c->D;
    }
    qsort_r(order, (size_t)n, sizeof(int), by_score, (void *)scores);
    return n;
}

void ee_faith_row_metrics(EeFaithResult *res, const EeFaithOptions *f, int i, int n, const double *D, const double *I,
                          double lo_x, double lo_m)
{
    int K = f->steps, P = curve_points(K, n), NB = EE_FAITH_BINS;
    if (res->nreal) res->nreal[i] = n;
    if (n == 0) { /* nothing to remove: every measure is undefined */
        double *cols[5] = {res->comprehensiveness, res->sufficiency, res->deletion_auc, res->insertion_auc,
                           res->log_odds_drop};
        for (int k = 0; k < 5; k++)
            if (cols[k]) cols[k][i] = NAN;
        for (int k = 0; k < NB; k++) {
            if (res->comp_bins) res->comp_bins[(size_t)i * NB + k] = NAN;
            if (res->suff_bins) res->suff_bins[(size_t)i * NB + k] = NAN;
        }
        for (int q = 0; K && q <= K; q++) {
            if (res->deletion_curve) res->deletion_curve[(size_t)i * (K + 1) + q] = NAN;
            if (res->insertion_curve) res->insertion_curve[(size_t)i * (K + 1) + q] = NAN;
        }
        return;
    }
    double comp = 0, suff = 0;
    for (int k = 0; k < NB; k++) {
        int m = bin_count(ee_faith_bins[k], n);
        double ck = D[0] - D[m], sk = D[0] - I[m];
        comp += ck;
        suff += sk;
        if (res->comp_bins) res->comp_bins[(size_t)i * NB + k] = ck;
        if (res->suff_bins) res->suff_bins[(size_t)i * NB + k] = sk;
    }
    if (res->comprehensiveness) res->comprehensiveness[i] = comp / NB;
    if (res->sufficiency) res->sufficiency[i] = suff / NB;
    /* trapezoids over the fraction of players removed (inserted) */
    double ad = 0, ai = 0;
    for (int q = 0; q + 1 < P; q++) {
        int j0 = curve_count(q, K, n), j1 = curve_count(q + 1, K, n);
        double w = (double)(j1 - j0) / n;
        ad += w * 0.5 * (D[j0] + D[j1]);
        ai += w * 0.5 * (I[j0] + I[j1]);
    }
    if (res->deletion_auc) res->deletion_auc[i] = ad;
    if (res->insertion_auc) res->insertion_auc[i] = ai;
    for (int q = 0; K && q <= K; q++) {
        int j = curve_count(q, K, n);
        if (res->deletion_curve) res->deletion_curve[(size_t)i * (K + 1) + q] = D[j];
        if (res->insertion_curve) res->insertion_curve[(size_t)i * (K + 1) + q] = I[j];
    }
    if (res->log_odds_drop) res->log_odds_drop[i] = lo_x - lo_m;
}

static EeStatus check(const Job *J)
{
    const EeModel *m = J->m;
    const EeConfig *c = &m->cfg;
    const EeFaithOptions *f = J->f;
    EeAttrOptions o = *J->o;
    o.steps = 1; /* ee_attr_check's sample count: not ours */
    EeStatus st = ee_attr_check(m, J->in, &o, 0);
    if (st) return st;
    if (c->classes < 2) return ee_fail(EE_ERR_MODEL, "faithfulness needs a classifier of at least 2 classes");
    if (ee_is_token_model(c) && o.baseline == EE_BASELINE_ZERO)
        return ee_fail(EE_ERR_INPUT, "faithfulness replaces tokens by baseline ids: 'baseline' must be 'pad' or ids, not 'zero'");
    if (f->steps < 0 || f->steps > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "'steps' of the curves must be 0 (every count) or 1..%d, got %d", 1 << 20, f->steps);
    if (f->logodds_percent < 1 || f->logodds_percent > 100)
        return ee_fail(EE_ERR_INPUT, "'logodds' must be a percentage in 1..100, got %d", f->logodds_percent);
    if ((unsigned)f->score >= EE_FAITH_SCORE_COUNT) return ee_fail(EE_ERR_INPUT, "unknown 'score' %d", (int)f->score);
    if (f->infidelity_samples < 0 || f->infidelity_samples > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "'infidelity' (subsets per row) must be in 0..%d, got %d", 1 << 20,
                       f->infidelity_samples);
    int W = ee_is_token_model(c) ? c->T : c->D;
    for (int i = 0; i < J->in->n; i++)
        for (int t = 0; t < W; t++)
            if (!isfinite(J->A[(size_t)i * W + t]))
                return ee_fail(EE_ERR_INPUT, "A(%d,%d) is %g: the maps must be finite", i + 1, t + 1,
                               (double)J->A[(size_t)i * W + t]);
    return EE_OK;
}

static EeStatus run(void *ctx, int Bwant)
{
    Job *J = ctx;
    EeModel *m = J->m;
    const EeInput *in = J->in;
    const EeAttrOptions *o = J->o;
    const EeConfig *c = &m->cfg;
    EeFaithResult *res = J->res;
    int N = in->n, C = c->classes, token = ee_is_token_model(c), W = token ? c->T : c->D, K = J->f->steps;
    EeDevice dev;
    const EeBackend *be;
    EeStatus st = ee_backend_resolve(o->device, o->precision, &dev, &be);
    if (st) return st;
    double t0 = ee_now();
    /* what each row costs: its copies, a pass each */
    long rows_needed = N;
    int *nreal = malloc(sizeof(int) * (N ? N : 1)), *lo_count = malloc(sizeof(int) * (N ? N : 1));
    char *need = malloc((size_t)W + 2);
    int *order = malloc(sizeof(int) * (N ? N : 1)), *players = malloc(sizeof(int) * (size_t)W);
    int32_t *tgt = malloc(sizeof(int32_t) * (N ? N : 1)), *base = malloc(sizeof(int32_t) * (size_t)W);
    double *lo = malloc(sizeof(double) * (N ? N : 1)), *lox = malloc(sizeof(double) * (N ? N : 1));
    double *zx = malloc(sizeof(double) * (N ? N : 1)), *inf = calloc((size_t)(N ? N : 1), sizeof(double));
    double *ss = calloc((size_t)(N ? N : 1), sizeof(double)), *sd = calloc((size_t)(N ? N : 1), sizeof(double));
    double *dd = calloc((size_t)(N ? N : 1), sizeof(double));
    double **dv = calloc((size_t)(N ? N : 1), sizeof(double *)), **iv = calloc((size_t)(N ? N : 1), sizeof(double *));
    Batch b = {.token = token, .W = W, .C = C, .score = J->f->score, .tgt = tgt, .lo_count = lo_count, .dv = dv,
               .iv = iv, .lo = lo, .zx = zx, .inf = inf, .ss = ss, .sd = sd, .dd = dd,
               .ninf = J->f->infidelity_samples};
    EeRun *r = NULL;
    if (!nreal || !lo_count || !need || !order || !players || !tgt || !base || !lo || !lox || !zx || !inf || !ss || !sd || !dd || !dv || !iv) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for faithfulness (%d rows)", N);
        goto done;
    }
    for (int i = 0; i < N; i++) {
        int n = token ? ee_count_real(in->ids + (size_t)i * W, W) : W;
        nreal[i] = n;
        lo_count[i] = bin_count(J->f->logodds_percent, n);
        rows_needed += ee_faith_mark_needed(need, n, K, lo_count[i]) + (n > 0 ? J->f->infidelity_samples : 0);
        dv[i] = malloc(sizeof(double) * (size_t)(n + 1));
        iv[i] = malloc(sizeof(double) * (size_t)(n + 1));
        if (!dv[i] || !iv[i]) {
            st = ee_fail(EE_ERR_NOMEM, "out of memory for faithfulness (%d rows)", N);
            goto done;
        }
    }
    int B = Bwant;
    if (B > rows_needed) B = (int)rows_needed;
    if (B < 1) B = 1;
    if ((st = ee_run_new(m, be, B, EE_KEEP_NONE, 0, &r))) goto done;
    b.r = r;
    b.B = B;
    b.ids = token ? malloc(sizeof(int32_t) * (size_t)B * W) : NULL;
    b.mask = token ? malloc((size_t)B * W) : NULL;
    b.x = token ? NULL : malloc(sizeof(float) * (size_t)B * W);
    b.out = malloc(sizeof(float) * (size_t)B * C);
    b.copy = malloc(sizeof(Copy) * (size_t)B);
    if ((token && (!b.ids || !b.mask)) || (!token && !b.x) || !b.out || !b.copy) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for faithfulness (batch %d)", B);
        goto done;
    }
    if (token) ee_rows_by_length(in->ids, in->mask, N, W, order, NULL);
    else
        for (int i = 0; i < N; i++) order[i] = i;
    /* the targets and the score at x: the input rows in passes of their own
     * (the same run, backend and precision as the copies) */
    for (int q0 = 0; q0 < N && !st; q0 += B) {
        int nb = N - q0 < B ? N - q0 : B;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing faithfulness");
            break;
        }
        for (int k = 0; k < nb; k++) {
            int i = order[q0 + k];
            if (token) {
                memcpy(b.ids + (size_t)k * W, in->ids + (size_t)i * W, sizeof(int32_t) * W);
                ee_attr_row_mask(m, in, i, b.mask + (size_t)k * W);
            } else
                memcpy(b.x + (size_t)k * W, in->x + (size_t)i * W, sizeof(float) * W);
        }
        if ((st = ee_run_set_input(r, token ? b.ids : NULL, token ? b.mask : NULL, token ? NULL : b.x, nb))) break;
        ee_run_embed(r, nb);
        ee_run_forward(r, nb, 0);
        r->be->download(b.out, r->out, sizeof(float) * (size_t)nb * C);
        for (int k = 0; k < nb; k++) {
            int i = order[q0 + k];
            const float *z = b.out + (size_t)k * C;
            tgt[i] = o->target ? o->target[i] : ee_argmax(z, C);
            dv[i][0] = score_of(z, C, tgt[i], J->f->score);
            zx[i] = z[tgt[i]];
            lox[i] = log_odds_of(z, C, tgt[i]);
        }
        b.passes += nb;
    }
    double work_total = (double)rows_needed; /* the passes: rows differ in length */
    EeProgress prog;
    ee_progress_start(&prog, o, "faithfulness", N);
    for (int q = 0; q < N && !st; q++) {
        int i = order[q], n = players_in_order(J, i, players);
        if (token) ee_attr_row_baseline(m, in, o, i, base);
        ee_faith_mark_needed(need, n, K, lo_count[i]);
        for (int j = 1; j <= n && !st; j++) {
            if (need[j] & 1) st = push(&b, J, i, players, j, 1, base);
            if (!st && (need[j] & 2) && j < n) st = push(&b, J, i, players, j, 0, base);
        }
        for (int k = 0; k < J->f->infidelity_samples && n > 0 && !st; k++) st = push_subset(&b, J, i, k, base);
        ee_progress_tick_work(&prog, q + 1, (double)b.passes, work_total);
    }
    if (!st) st = flush(&b);
    ee_progress_end(&prog, N, b.passes);
    if (!st) st = ee_backend_check(r->be);
    for (int i = 0; i < N && !st; i++) {
        int n = nreal[i];
        if (n > 0) {
            iv[i][0] = dv[i][n]; /* the baseline */
            iv[i][n] = dv[i][0]; /* x */
        }
        if (res->target) res->target[i] = tgt[i];
        if (res->fx) res->fx[i] = dv[i][0];
        if (res->fbaseline) res->fbaseline[i] = n > 0 ? dv[i][n] : dv[i][0];
        ee_faith_row_metrics(res, J->f, i, n, dv[i], iv[i], lox[i], n > 0 ? lo[i] : lox[i]);
        int m = J->f->infidelity_samples;
        if (res->infidelity) res->infidelity[i] = n > 0 && m ? inf[i] : NAN;
        /* with the map scaled by the beta that fits the drops best (least
         * squares): (sum d^2 - (sum s d)^2 / sum s^2) / m, clamped at 0
         * against rounding; beta = 0 when every subset sum is 0 */
        if (res->infidelity_normalized)
            res->infidelity_normalized[i] = n > 0 && m ? fmax(0.0, (dd[i] - (ss[i] > 0 ? sd[i] * sd[i] / ss[i] : 0)) / m) : NAN;
    }
    if (!st) {
        res->forward = b.passes;
        res->seconds = ee_now() - t0;
    }
done:
    for (int i = 0; dv && iv && i < N; i++) {
        free(dv[i]);
        free(iv[i]);
    }
    free(dv); free(iv); free(nreal); free(lo_count); free(need); free(order); free(players); free(tgt); free(base);
    free(lo); free(lox); free(zx); free(inf); free(ss); free(sd); free(dd);
    free(b.ids); free(b.mask); free(b.x); free(b.out); free(b.copy);
    ee_run_free(r);
    return st;
}

EeStatus ee_faithfulness(EeModel *m, const EeInput *in, const float *A, const EeAttrOptions *o,
                         const EeFaithOptions *f, EeFaithResult *res)
{
    Job J = {m, in, A, o, f, res};
    EeStatus st = check(&J);
    if (st) return st;
    if (in->n == 0) {
        res->forward = 0;
        res->seconds = 0;
        return EE_OK;
    }
    EeDevice dev;
    if ((st = ee_device_resolve(o->device, &dev))) return st;
    /* a GPU batch that does not fit is split, not refused */
    return ee_fit_batch(dev, &m->cfg, o->batch, run, &J);
}

double ee_faithfulness_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o, const EeFaithOptions *f)
{
    const EeConfig *c = &m->cfg;
    if (in->n < 1) return 0;
    EeDevice dev = o->device != EE_DEVICE_AUTO ? o->device : ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU;
    int token = ee_is_token_model(c), W = token ? c->T : c->D;
    double N = in->n, C = c->classes;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    double rows = N * (2.0 * W + 1);
    if (B > rows) B = (int)rows;
    double bytes = ee_run_bytes((EeModel *)m, dev, B, 0, 0);
    /* per row: its curves, counts, target and log-odds; per copy in the batch */
    bytes += N * (2.0 * (W + 1) * 8 + 40) + (double)W * 9 + 8;
    bytes += (double)B * (token ? W * 5.0 : W * 4.0) + B * (C * 4 + 12);
    (void)f;
    return bytes;
}
