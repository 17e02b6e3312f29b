/* occlusion_features.c: the occlusion features of an explainer (EE_INPUTS_OCCLUSION):
 * for every real token t of a row, the two marginal contributions of t
 * that Shapley Value Sampling sees when t comes last and when it comes
 * first in a permutation,
 *   leave-one-out  f(x) - f(x with t absent)
 *   add-one        f(baseline with t present) - f(baseline),
 * with ee_sv's features, baseline (real tokens replaced, special tokens
 * kept) and mask (the input's). Every Shapley value lies between such
 * first-order terms and the interactions the explainer has to learn; they
 * cost 2 n + 2 forward passes for n real tokens, about as much as two SV
 * permutations. Every copy takes each position's token from the input or
 * the baseline, so a transformer on the CPU runs them as ee_sv does, with
 * the row's layer-0 projections computed once (tf_cache.c): the values
 * then agree with full passes to float rounding (tools/dump_outputs'
 * models even give the same bits), at 1.4-1.6x the rate of full passes
 * on 32- and 64-token rows. */
#include "explainer.h"

#include <stdlib.h>
#include <string.h>

/* One perturbed copy in the batch: row i, position t (-1: the input
 * itself, -2: the baseline itself), add = the baseline with t present. */
typedef struct {
    int i, t, add;
} Copy;

typedef struct {
    EeRun *r;
    const int32_t *tgt;
    float *F;
    int k, T, C;
    double *fx, *fb;  /* f(x), f(baseline) of every row */
    int32_t *ids;     /* B x T */
    uint8_t *mask;    /* B x T */
    float *out;       /* B x C */
    Copy *copy;       /* B */
    int n;            /* copies in the batch */
    long passes;
    /* the layer-0 caches (NULL: full passes): cache[i] while row i has
     * copies not yet run, left[i] of them */
    const EeInput *in;
    float **cache;
    int *left, *row_i;      /* N, N, B */
    const float **row_cache; /* B */
} Batch;

/* Runs the batch; the target logits go to fx / fb or, for the copies of
 * one position, into F's slots 2 and 3 (differences taken at the end). */
static EeStatus flush(Batch *b)
{
    if (!b->n) return EE_OK;
    if (ee_interrupted()) return ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing occlusion features");
    EeStatus st;
    if (b->cache) {
        for (int j = 0; j < b->n; j++) {
            b->row_i[j] = b->copy[j].i;
            b->row_cache[j] = b->cache[b->copy[j].i];
        }
        st = ee_tf_cached_logits(b->r, b->in, b->row_cache, b->row_i, b->ids, b->mask, b->n, b->out);
        for (int j = 0; j < b->n && !st; j++)
            if (--b->left[b->copy[j].i] == 0) {
                ee_host_free(b->cache[b->copy[j].i]);
                b->cache[b->copy[j].i] = NULL;
            }
    } else st = ee_attr_logits(b->r, b->ids, b->mask, b->n, b->out);
    if (st) return st;
    for (int j = 0; j < b->n; j++) {
        const Copy *c = &b->copy[j];
        double z = b->out[(size_t)j * b->C + b->tgt[c->i]];
        if (c->t == -1) b->fx[c->i] = z;
        else if (c->t == -2) b->fb[c->i] = z;
        else b->F[((size_t)c->i * b->T + c->t) * b->k + (c->add ? 3 : 2)] = (float)z;
    }
    b->passes += b->n;
    b->n = 0;
    return EE_OK;
}

/* Appends a copy of `src` (the input or the baseline) with position t
 * taken from `other` (t >= 0), flushing a full batch first. */
static EeStatus push(Batch *b, const int32_t *src, const int32_t *other, const uint8_t *mask, int i, int t,
                     int add)
{
    if (b->n == b->r->Bmax) {
        EeStatus st = flush(b);
        if (st) return st;
    }
    int32_t *dst = b->ids + (size_t)b->n * b->T;
    memcpy(dst, src, sizeof(int32_t) * b->T);
    if (t >= 0) dst[t] = other[t];
    memcpy(b->mask + (size_t)b->n * b->T, mask, (size_t)b->T);
    b->copy[b->n++] = (Copy){i, t, add};
    return EE_OK;
}

EeStatus ee_occlusion_features(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int *order,
                               const int32_t *tgt, float *F, int k, long *fwd)
{
    const EeModel *m = r->m;
    int N = in->n, T = m->cfg.T, C = m->cfg.classes, B = r->Bmax;
    Batch b = {.r = r, .tgt = tgt, .F = F, .k = k, .T = T, .C = C};
    b.fx = malloc(sizeof(double) * (N ? N : 1));
    b.fb = malloc(sizeof(double) * (N ? N : 1));
    b.ids = malloc(sizeof(int32_t) * (size_t)B * T);
    b.mask = malloc((size_t)B * T);
    b.out = malloc(sizeof(float) * (size_t)B * C);
    b.copy = malloc(sizeof(Copy) * (size_t)B);
    int32_t *x = malloc(sizeof(int32_t) * T), *base = malloc(sizeof(int32_t) * T);
    uint8_t *mask = malloc((size_t)T);
    EeStatus st = EE_OK;
    if (!b.fx || !b.fb || !b.ids || !b.mask || !b.out || !b.copy || !x || !base || !mask)
        st = ee_fail(EE_ERR_NOMEM, "out of memory for occlusion features (batch %d)", B);
    if (!st && ee_tf_cache_applies(r, o)) {
        b.in = in;
        b.cache = calloc(N ? N : 1, sizeof(float *));
        b.left = calloc(N ? N : 1, sizeof(int));
        b.row_i = malloc(sizeof(int) * (size_t)B);
        b.row_cache = malloc(sizeof(float *) * (size_t)B);
        if (!b.cache || !b.left || !b.row_i || !b.row_cache)
            st = ee_fail(EE_ERR_NOMEM, "out of memory for occlusion features (batch %d)", B);
    }
    double work_total = 0; /* passes: rows differ in length */
    for (int i = 0; i < N; i++) work_total += 2.0 * ee_count_real(in->ids + (size_t)i * T, T) + 2;
    EeProgress prog;
    ee_progress_start(&prog, o, "occlusion features", N);
    /* rows in order of length: the copies sharing a pass have similar
     * active lengths */
    for (int q = 0; q < N && !st; q++) {
        int i = order[q];
        memcpy(x, in->ids + (size_t)i * T, sizeof(int32_t) * T);
        ee_attr_row_mask(m, in, i, mask);
        ee_attr_row_baseline(m, in, o, i, base);
        if (b.cache) { /* the row's cache, freed with its last copy's pass */
            b.left[i] = 2 * ee_count_real(x, T) + 2;
            size_t bytes = sizeof(float) * ee_tf_cache_floats(&m->cfg);
            if (!(b.cache[i] = ee_host_alloc(bytes))) {
                st = ee_fail(EE_ERR_NOMEM, "out of memory for occlusion features (%zu bytes a row)", bytes);
                break;
            }
            if ((st = ee_tf_cache_fill(r, in, o, i, b.cache[i]))) break;
        }
        if ((st = push(&b, x, NULL, mask, i, -1, 0)) || (st = push(&b, base, NULL, mask, i, -2, 0))) break;
        for (int t = 0; t < T && !st; t++) {
            if (EE_IS_SPECIAL(x[t])) continue;
            if (!(st = push(&b, x, base, mask, i, t, 0))) st = push(&b, base, x, mask, i, t, 1);
        }
        ee_progress_tick_work(&prog, q + 1, (double)b.passes, work_total);
    }
    if (!st) st = flush(&b);
    ee_progress_end(&prog, N, b.passes);
    for (int i = 0; i < N && !st; i++) {
        const int32_t *row = in->ids + (size_t)i * T;
        for (int t = 0; t < T; t++) {
            float *f = F + ((size_t)i * T + t) * k;
            if (EE_IS_SPECIAL(row[t])) { f[2] = f[3] = 0; continue; }
            f[2] = (float)(b.fx[i] - f[2]);
            f[3] = (float)(f[3] - b.fb[i]);
        }
    }
    if (fwd) *fwd += b.passes;
    if (b.cache)
        for (int i = 0; i < N; i++) ee_host_free(b.cache[i]); /* left by an error */
    free(b.cache); free(b.left); free(b.row_i); free(b.row_cache);
    free(b.fx); free(b.fb); free(b.ids); free(b.mask); free(b.out); free(b.copy);
    free(x); free(base); free(mask);
    return st;
}
