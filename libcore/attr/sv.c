/* sv.c: Shapley Value Sampling (MODELS.md) and the exact Shapley oracle.
 *
 * Features: each real token is one feature; special tokens and pads form
 * feature 0, which keeps its ids and so always gets 0. A permutation adds
 * the real tokens to the baseline one by one; each is credited with the
 * change of the target logit. The perturbed copies of all permutations and
 * of consecutive sequences are streamed through the model in full batches;
 * each sequence is finished as soon as its last copy is evaluated.
 *
 * Permutations are drawn from the stream (seed, row_offset + i, k), so
 * results do not depend on batch size, thread count or how the rows are
 * split across calls. */
#include "attr_common.h"
#include "../models/layers.h"
#include "cnn_incremental.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;            /* real tokens */
    int *pos;         /* their positions, in order */
    int *perm;        /* steps x n feature indices */
    float *vals;      /* steps x n values f(after adding the j-th feature) */
    float fbase;
    long pending;     /* rows not yet evaluated */
    /* transformer on the CPU: embedding outputs and layer-0 q, k, v of the
     * input (x) and of the baseline (b) at every position, [T][d] each */
    float *cache;
} SeqState;

static void seq_free(SeqState *q)
{
    if (!q) return;
    free(q->pos);
    free(q->perm);
    free(q->vals);
    free(q->cache);
    free(q);
}

static EeStatus seq_new(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int i,
                        SeqState **out)
{
    int T = m->cfg.T, s = o->steps;
    const int32_t *ids = in->ids + (size_t)i * T;
    SeqState *q = calloc(1, sizeof *q);
    if (!q) return ee_fail(EE_ERR_NOMEM, "out of memory");
    q->n = ee_count_real(ids, T);
    q->pos = malloc(sizeof(int) * (q->n + 1));
    q->perm = malloc(sizeof(int) * ((size_t)s * q->n + 1));
    q->vals = malloc(sizeof(float) * ((size_t)s * q->n + 1));
    if (!q->pos || !q->perm || !q->vals) { seq_free(q); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    for (int t = 0, j = 0; t < T; t++)
        if (!EE_IS_SPECIAL(ids[t])) q->pos[j++] = t;
    for (int k = 0; k < s; k++) {
        int *p = q->perm + (size_t)k * q->n;
        if (o->perms) {
            memcpy(p, o->perms[i] + (size_t)k * q->n, sizeof(int) * q->n);
        } else {
            ee_sv_permutation(o->seed, o->row_offset + i, k, q->n, p);
        }
    }
    q->pending = 1 + (long)s * q->n;
    *out = q;
    return EE_OK;
}

/* Checks explicit permutations: each row a permutation of 0..n_i-1. */
static EeStatus check_perms(const EeModel *m, const EeInput *in, const EeAttrOptions *o)
{
    int T = m->cfg.T;
    for (int i = 0; i < in->n; i++) {
        int n = ee_count_real(in->ids + (size_t)i * T, T);
        if (!o->perms[i] && n > 0) return ee_fail(EE_ERR_INPUT, "permutations of row %d missing", i + 1);
        char *seen = calloc((size_t)n + 1, 1);
        if (!seen) return ee_fail(EE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < o->steps; k++) {
            memset(seen, 0, (size_t)n + 1);
            for (int j = 0; j < n; j++) {
                int v = o->perms[i][(size_t)k * n + j];
                if (v < 0 || v >= n || seen[v]) {
                    free(seen);
                    return ee_fail(EE_ERR_INPUT,
                                   "permutations{%d}(%d,:) is not a permutation of 1..%d (the real tokens of row %d)",
                                   i + 1, k + 1, n, i + 1);
                }
                seen[v] = 1;
            }
        }
        free(seen);
    }
    return EE_OK;
}

/* phi of a finished sequence, mean over permutations of the marginals;
 * var (optional): their sample variance over the permutations (the
 * variance of one permutation's estimate; 0 for s = 1). */
static EeStatus seq_finish(const SeqState *q, int s, int T, float *A, float *var)
{
    double *phi = calloc((size_t)T * 2, sizeof(double)), *sq = phi + T;
    if (!phi) return ee_fail(EE_ERR_NOMEM, "out of memory");
    for (int k = 0; k < s; k++) {
        double prev = q->fbase;
        for (int j = 0; j < q->n; j++) {
            double v = q->vals[(size_t)k * q->n + j];
            int t = q->pos[q->perm[(size_t)k * q->n + j]];
            phi[t] += v - prev;
            sq[t] += (v - prev) * (v - prev);
            prev = v;
        }
    }
    for (int t = 0; t < T; t++) A[t] = (float)(phi[t] / s);
    if (var)
        for (int t = 0; t < T; t++) {
            double mean = phi[t] / s, v = s > 1 ? (sq[t] - s * mean * mean) / (s - 1) : 0;
            var[t] = (float)(v > 0 ? v : 0);
        }
    free(phi);
    return EE_OK;
}


/* ---- the cnn on the CPU: one token at a time ----------------------------------
 * Adding one token to a coalition changes only the convolution windows that
 * contain it (w per width). Each permutation keeps its pre-activations and
 * recomputes those windows (cnn_incremental.c, shared with occlusion), then
 * the max over time and the target logit, at a fraction of the work.
 * Permutations run in parallel. */
static EeStatus sv_cnn_incremental(EeModel *m, const EeBackend *be, const EeInput *in,
                                   const EeAttrOptions *o, const int32_t *target, SeqState *q, int i,
                                   float *A, float *var)
{
    const EeConfig *c = &m->cfg;
    int T = c->T, d = c->d, s = o->steps;
    CnnView v = {.be = be}; /* a backend of host memory: its ops run on this function's buffers */
    EeStatus st = ee_cnn_view(m, m->w, &v.w);
    if (st) return st;
    int wmax = 1;
    for (int k = 0; k < v.w.K; k++)
        if (c->widths[k] > wmax) wmax = c->widths[k];
    const int32_t *ids = in->ids + (size_t)i * T;
    uint8_t *mask = malloc((size_t)T);
    int32_t *base = malloc(sizeof(int32_t) * T);
    if (!mask || !base) { free(mask); free(base); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    ee_attr_row_mask(m, in, i, mask);
    ee_attr_row_baseline(m, in, o, i, base);
    v.L = 1; /* windows past the last token or attended position see only zeros */
    for (int t = 0; t < T; t++)
        if (mask[t] || ids[t] != EE_PAD || base[t] != EE_PAD) v.L = t + 1;
    size_t LF = (size_t)v.L * v.w.F, Ld = (size_t)v.L * d;
    size_t scratch_n = (size_t)(v.L > wmax ? v.L : wmax) * wmax * d;
    /* the baseline's embeddings and pre-activations, shared by every permutation */
    float *e0 = malloc(sizeof(float) * Ld), *out0 = malloc(sizeof(float) * LF * v.w.K);
    float *scratch0 = malloc(sizeof(float) * scratch_n);
    if (!e0 || !out0 || !scratch0) st = ee_fail(EE_ERR_NOMEM, "out of memory");
    if (!st) {
        for (int t = 0; t < v.L; t++) memcpy(e0 + (size_t)t * d, v.w.E + (size_t)base[t] * d, sizeof(float) * d);
        float *o0[EE_MAX_WIDTHS];
        for (int k = 0; k < v.w.K; k++) {
            o0[k] = out0 + LF * k;
            ee_cnn_windows(&v, k, e0, 0, v.L - 1, scratch0, o0[k]);
        }
        size_t KF = (size_t)v.w.K * v.w.F;
        float *best0 = malloc(sizeof(float) * KF);
        int *arg0 = malloc(sizeof(int) * KF);
        if (!best0 || !arg0) {
            free(best0); free(arg0);
            free(mask); free(base); free(e0); free(out0); free(scratch0);
            return ee_fail(EE_ERR_NOMEM, "out of memory");
        }
        for (int k = 0; k < v.w.K; k++)
            for (int f = 0; f < v.w.F; f++) ee_cnn_max_scan(&v, o0[k], mask, f, best0 + k * v.w.F + f, arg0 + k * v.w.F + f);
        q->fbase = ee_cnn_value(&v, best0, target[i]);
        int fail = 0;
        #pragma omp parallel reduction(|| : fail)
        {
            float *e = malloc(sizeof(float) * Ld), *outb = malloc(sizeof(float) * LF * v.w.K);
            float *scratch = malloc(sizeof(float) * (size_t)wmax * wmax * d);
            float *best = malloc(sizeof(float) * KF);
            int *arg = malloc(sizeof(int) * KF);
            float *ok[EE_MAX_WIDTHS];
            if (!e || !outb || !scratch || !best || !arg) fail = 1;
            #pragma omp for schedule(dynamic, 1)
            for (int k = 0; k < s; k++) {
                if (!e || !outb || !scratch || !best || !arg) continue;
                memcpy(e, e0, sizeof(float) * Ld);
                memcpy(outb, out0, sizeof(float) * LF * v.w.K);
                memcpy(best, best0, sizeof(float) * KF);
                memcpy(arg, arg0, sizeof(int) * KF);
                for (int kk = 0; kk < v.w.K; kk++) ok[kk] = outb + LF * kk;
                for (int j = 0; j < q->n; j++) {
                    int p = q->pos[q->perm[(size_t)k * q->n + j]];
                    memcpy(e + (size_t)p * d, v.w.E + (size_t)ids[p] * d, sizeof(float) * d);
                    for (int kk = 0; kk < v.w.K; kk++) {
                        int t0 = p - v.w.widths[kk] + 1 > 0 ? p - v.w.widths[kk] + 1 : 0;
                        ee_cnn_windows(&v, kk, e, t0, p, scratch, ok[kk]);
                        ee_cnn_max_update(&v, ok[kk], mask, t0, p, best + kk * v.w.F, arg + kk * v.w.F);
                    }
                    q->vals[(size_t)k * q->n + j] = ee_cnn_value(&v, best, target[i]);
                }
            }
            free(e);
            free(outb);
            free(scratch);
            free(best);
            free(arg);
        }
        free(best0);
        free(arg0);
        if (fail) st = ee_fail(EE_ERR_NOMEM, "out of memory");
    }
    if (!st) st = seq_finish(q, s, T, A, var);
    free(mask); free(base); free(e0); free(out0); free(scratch0);
    return st;
}

/* ---- the transformer on the CPU: layer-0 projections reused (tf_cache.c) -------- */
static EeStatus sv_tf_cache(EeRun *r, const EeInput *in, const EeAttrOptions *o, int i, SeqState *q)
{
    q->cache = malloc(sizeof(float) * ee_tf_cache_floats(&r->m->cfg));
    if (!q->cache) return ee_fail(EE_ERR_NOMEM, "out of memory");
    return ee_tf_cache_fill(r, in, o, i, q->cache);
}

/* Target logits of nb coalition rows (rows of sequences seq[row_i[j]]). */
static EeStatus sv_tf_logits(EeRun *r, const EeInput *in, SeqState **seq, const int *row_i,
                             const int32_t *ids, const uint8_t *mask, int nb, float *out)
{
    const float *cache[EE_TF_CACHE_BATCH_MAX];
    for (int j0 = 0; j0 < nb; j0 += EE_TF_CACHE_BATCH_MAX) { /* r's batch: nb <= Bmax, usually one round */
        int n = nb - j0 < EE_TF_CACHE_BATCH_MAX ? nb - j0 : EE_TF_CACHE_BATCH_MAX;
        for (int j = 0; j < n; j++) cache[j] = seq[row_i[j0 + j]]->cache;
        EeStatus st = ee_tf_cached_logits(r, in, cache, row_i + j0, ids + (size_t)j0 * r->m->cfg.T,
                                          mask + (size_t)j0 * r->m->cfg.T, n, out + (size_t)j0 * r->m->cfg.classes);
        if (st) return st;
    }
    return EE_OK;
}

static EeStatus sv_run(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                       EeAttrInfo *info);

EeStatus ee_sv_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                         EeAttrInfo *info)
{
    return ee_attr_fit_batch(sv_run, m, in, o, A, info);
}

static EeStatus sv_run(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                       EeAttrInfo *info)
{
    EeStatus st = ee_attr_check(m, in, o, 1);
    if (st) return st;
    if (o->perms && (st = check_perms(m, in, o))) return st;
    const EeConfig *c = &m->cfg;
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o->device, o->precision, &dev, &be))) return st;
    int T = c->T, C = c->classes, N = in->n, s = o->steps;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    long rows_needed = N; /* no larger than all the perturbed copies together */
    for (int i = 0; i < N; i++) rows_needed += 1 + (long)s * ee_count_real(in->ids + (size_t)i * T, T);
    if (B > rows_needed) B = (int)rows_needed;
    EeRun *r = NULL;
    /* the transformer's per-sequence cache embeds two rows at once */
    if ((st = ee_run_new(m, be, B > 2 ? B : 2, EE_KEEP_NONE, 0, &r))) return st;
    double t0 = ee_now();
    SeqState **seq = calloc((size_t)(N ? N : 1), sizeof *seq);
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1));
    int32_t *h_ids = malloc(sizeof(int32_t) * (size_t)B * T);
    uint8_t *h_mask = malloc((size_t)B * T);
    float *h_out = malloc(sizeof(float) * (size_t)B * C);
    int32_t *state = malloc(sizeof(int32_t) * T);   /* coalition being built */
    uint8_t *mask = malloc((size_t)T);
    /* which (sequence, k, j) each row of the batch is; j = -1: baseline */
    int *row_i = malloc(sizeof(int) * B), *row_kj = malloc(sizeof(int) * B);
    if (!seq || !target || !fx || !h_ids || !h_mask || !h_out || !state || !mask || !row_i || !row_kj) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for SV buffers (batch %d)", B);
        goto done;
    }
    if ((st = ee_attr_targets(r, in, o, target, fx))) goto done;
    long passes = N, done_seqs = 0;
    int finished = 0; /* sequences [0, finished) are written to A */
    EeProgress prog;
    ee_progress_start(&prog, o, "sv", N);
    if (c->kind == EE_KIND_CNN && be->host_memory && !o->full_passes) {
        for (int i = 0; i < N && !st; i++) {
            SeqState *q;
            if (ee_interrupted()) {
                st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during SV");
                break;
            }
            if ((st = seq_new(m, in, o, i, &q))) break;
            float *var = info && info->variance ? info->variance + (size_t)i * T : NULL;
            if (q->n == 0) {
                memset(A + (size_t)i * T, 0, sizeof(float) * T);
                if (var) memset(var, 0, sizeof(float) * T);
                q->fbase = fx[i];
            } else {
                st = sv_cnn_incremental(m, be, in, o, target, q, i, A + (size_t)i * T, var);
            }
            if (info && info->fbaseline) info->fbaseline[i] = q->fbase;
            passes += 1 + (long)s * q->n; /* the passes it stands for */
            seq_free(q);
            ee_progress_tick(&prog, i + 1);
        }
        finished = done_seqs = N;
    }

    /* generator position */
    int gi = 0, gk = 0, gj = -1, nb = 0;
    int tf_fast = ee_tf_cache_applies(r, o);
    while (finished < N && !st) {
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during SV");
            break;
        }
        /* fill a batch */
        while (nb < B && gi < N) {
            if (!seq[gi]) {
                if ((st = seq_new(m, in, o, gi, &seq[gi]))) break;
                if (tf_fast && seq[gi]->n > 0 && (st = sv_tf_cache(r, in, o, gi, seq[gi]))) break;
                ee_attr_row_baseline(m, in, o, gi, state);
                ee_attr_row_mask(m, in, gi, mask);
                gk = 0;
                gj = -1;
            }
            SeqState *q = seq[gi];
            if (q->n == 0) { /* nothing to attribute: baseline = input */
                q->fbase = fx[gi];
                q->pending = 0;
                gi++;
                continue;
            }
            if (gj >= 0) { /* add feature perm[gk][gj] to the coalition */
                int t = q->pos[q->perm[(size_t)gk * q->n + gj]];
                state[t] = in->ids[(size_t)gi * T + t];
            }
            memcpy(h_ids + (size_t)nb * T, state, sizeof(int32_t) * T);
            memcpy(h_mask + (size_t)nb * T, mask, T);
            row_i[nb] = gi;
            row_kj[nb] = gj < 0 ? -1 : gk * q->n + gj;
            nb++;
            /* advance: the baseline row, then each permutation from the baseline */
            if (++gj >= q->n) {
                gj = 0;
                ee_attr_row_baseline(m, in, o, gi, state);
                if (++gk >= s) gi++;
            }
        }
        if (st) break;
        if (nb > 0) {
            st = tf_fast ? sv_tf_logits(r, in, seq, row_i, h_ids, h_mask, nb, h_out)
                         : ee_attr_logits(r, h_ids, h_mask, nb, h_out);
            if (st) break;
            passes += nb;
            for (int j = 0; j < nb; j++) {
                SeqState *q = seq[row_i[j]];
                float v = h_out[(size_t)j * C + target[row_i[j]]];
                if (row_kj[j] < 0) q->fbase = v;
                else q->vals[row_kj[j]] = v;
                q->pending--;
            }
            nb = 0;
        }
        while (finished < N && seq[finished] && seq[finished]->pending == 0) {
            SeqState *q = seq[finished];
            float *var = info && info->variance ? info->variance + (size_t)finished * T : NULL;
            if (q->n == 0) {
                memset(A + (size_t)finished * T, 0, sizeof(float) * T);
                if (var) memset(var, 0, sizeof(float) * T);
            } else if ((st = seq_finish(q, s, T, A + (size_t)finished * T, var))) {
                break;
            }
            if (info && info->fbaseline) info->fbaseline[finished] = q->fbase;
            seq_free(q);
            seq[finished] = NULL;
            finished++;
            done_seqs++;
        }
        ee_progress_tick(&prog, done_seqs);
    }
    ee_progress_end(&prog, done_seqs, passes);
    if (!st) st = ee_backend_check(r->be);
    if (!st && info) {
        if (info->target) memcpy(info->target, target, sizeof(int32_t) * N);
        if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
        if (info->delta)
            for (int i = 0; i < N; i++) {
                double sum = 0;
                for (int t = 0; t < T; t++) sum += A[(size_t)i * T + t];
                info->delta[i] = (float)(sum - ((double)fx[i] - (info->fbaseline ? info->fbaseline[i] : 0)));
            }
        info->forward = passes;
        info->backward = 0;
        info->seconds = ee_now() - t0;
    }
done:
    if (seq)
        for (int i = 0; i < N; i++) seq_free(seq[i]);
    free(seq); free(target); free(fx); free(h_ids); free(h_mask); free(h_out);
    free(state); free(mask); free(row_i); free(row_kj);
    ee_run_free(r);
    return st;
}

/* ---- exact Shapley values (oracle) ------------------------------------------- */
EeStatus ee_shapley_exact(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                          EeAttrInfo *info)
{
    EeAttrOptions opt = *o;
    opt.steps = 1;
    EeStatus st = ee_attr_check(m, in, &opt, 1);
    if (st) return st;
    const EeConfig *c = &m->cfg;
    int T = c->T, C = c->classes, N = in->n;
    for (int i = 0; i < N; i++)
        if (ee_count_real(in->ids + (size_t)i * T, T) > 12)
            return ee_fail(EE_ERR_INPUT, "exact Shapley values enumerate 2^n coalitions: row %d has %d real tokens (at most 12)",
                           i + 1, ee_count_real(in->ids + (size_t)i * T, T));
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o->device, o->precision, &dev, &be))) return st;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    EeRun *r = NULL;
    if ((st = ee_run_new(m, be, B, EE_KEEP_NONE, 0, &r))) return st;
    double t0 = ee_now();
    long passes = N;
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1));
    int32_t *h_ids = malloc(sizeof(int32_t) * (size_t)B * T), *base = malloc(sizeof(int32_t) * T);
    uint8_t *h_mask = malloc((size_t)B * T), *mask = malloc((size_t)T);
    float *h_out = malloc(sizeof(float) * (size_t)B * C);
    double *v = malloc(sizeof(double) * 4096), fact[14];
    int pos[13];
    if (!target || !fx || !h_ids || !base || !h_mask || !mask || !h_out || !v) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory");
        goto done;
    }
    fact[0] = 1;
    for (int k = 1; k < 14; k++) fact[k] = fact[k - 1] * k;
    if ((st = ee_attr_targets(r, in, &opt, target, fx))) goto done;
    for (int i = 0; i < N && !st; i++) {
        const int32_t *ids = in->ids + (size_t)i * T;
        int n = 0;
        for (int t = 0; t < T; t++)
            if (!EE_IS_SPECIAL(ids[t])) pos[n++] = t;
        ee_attr_row_baseline(m, in, &opt, i, base);
        ee_attr_row_mask(m, in, i, mask);
        long ncoal = 1L << n;
        for (long s0 = 0; s0 < ncoal && !st; s0 += B) {
            int nb = ncoal - s0 < B ? (int)(ncoal - s0) : B;
            if (ee_interrupted()) {
                st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during exact Shapley values");
                break;
            }
            for (int j = 0; j < nb; j++) {
                int32_t *row = h_ids + (size_t)j * T;
                memcpy(row, base, sizeof(int32_t) * T);
                for (int f = 0; f < n; f++)
                    if ((s0 + j) >> f & 1) row[pos[f]] = ids[pos[f]];
                memcpy(h_mask + (size_t)j * T, mask, T);
            }
            if ((st = ee_attr_logits(r, h_ids, h_mask, nb, h_out))) break;
            passes += nb;
            for (int j = 0; j < nb; j++) v[s0 + j] = h_out[(size_t)j * C + target[i]];
        }
        float *a = A + (size_t)i * T;
        memset(a, 0, sizeof(float) * T);
        for (int f = 0; f < n; f++) {
            double phi = 0;
            for (long S = 0; S < ncoal; S++) {
                if (S >> f & 1) continue;
                int k = __builtin_popcountl((unsigned long)S);
                phi += fact[k] * fact[n - k - 1] / fact[n] * (v[S | (1L << f)] - v[S]);
            }
            a[pos[f]] = (float)phi;
        }
        if (info && info->fbaseline) info->fbaseline[i] = (float)v[0];
    }
    if (!st && info) {
        if (info->target) memcpy(info->target, target, sizeof(int32_t) * N);
        if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
        info->forward = passes;
        info->backward = 0;
        info->seconds = ee_now() - t0;
    }
done:
    free(target); free(fx); free(h_ids); free(base); free(h_mask); free(mask); free(h_out); free(v);
    ee_run_free(r);
    return st;
}
