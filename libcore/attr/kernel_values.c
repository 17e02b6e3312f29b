/* kernel_values.c: the coalitions and values of target-free Shapley
 * training (doc/MODELS.md, "Target-free training"): coalitions drawn from
 * the Shapley kernel and their values v(S) from masked classifier passes
 * (the tokens outside S absent exactly as ee_sv makes them absent); the
 * loss that trains on them is train/kernel.c.
 *
 * The coalitions of a row come from the stream (seed, row, EE_KERNEL_STREAM),
 * so they do not depend on batch size, thread count or how the rows are
 * split across calls (the row is the caller's full-data index). */
#include "attr_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the stream's second key: far from SV's permutation indices k */
#define EE_KERNEL_STREAM 0x4b65726e656c5356ULL

void ee_kernel_size_probs(int n, double *p)
{
    /* p(m) proportional to (n - 1) / (m (n - m)), m = 1..n-1: the Shapley
     * kernel (n - 1) / (C(n, m) m (n - m)) summed over the C(n, m) sets */
    double sum = 0;
    for (int m = 1; m < n; m++) sum += p[m] = (double)(n - 1) / ((double)m * (n - m));
    p[0] = 0;
    if (n >= 1) p[n] = 0;
    for (int m = 1; m < n; m++) p[m] /= sum;
}

void ee_kernel_draw(uint64_t seed, long row, int n, int K, int words, uint64_t *coal)
{
    memset(coal, 0, sizeof(uint64_t) * (size_t)K * words);
    if (n < 2) return; /* no proper coalition: every one stays empty (b = 0) */
    double *cum = malloc(sizeof(double) * (n + 1));
    int *pick = malloc(sizeof(int) * n);
    if (!cum || !pick) { free(cum); free(pick); return; } /* empty coalitions: the caller's check sees none */
    ee_kernel_size_probs(n, cum);
    for (int m = 1; m <= n; m++) cum[m] += cum[m - 1];
    EeRng rng;
    ee_rng_stream(&rng, seed, (uint64_t)row, EE_KERNEL_STREAM);
    for (int k = 0; k < K; k++) {
        uint64_t *S = coal + (size_t)k * words;
        if (k & 1) { /* antithetic: the complement of the previous draw */
            const uint64_t *P = S - words;
            for (int j = 0; j < n; j++)
                if (!(P[j / 64] >> (j % 64) & 1)) S[j / 64] |= 1ULL << (j % 64);
            continue;
        }
        double u = ee_rng_uniform(&rng);
        int m = 1;
        while (m < n - 1 && u >= cum[m]) m++;
        /* m of the n tokens uniformly: the first m of a partial Fisher-Yates */
        for (int j = 0; j < n; j++) pick[j] = j;
        for (int j = 0; j < m; j++) {
            int r = j + (int)ee_rng_below(&rng, (uint64_t)(n - j));
            int t = pick[j]; pick[j] = pick[r]; pick[r] = t;
            S[pick[j] / 64] |= 1ULL << (pick[j] % 64);
        }
    }
    free(cum);
    free(pick);
}

long ee_kernel_all(int n, int words, uint64_t *coal, float *weight)
{
    if (n < 2 || n > 20) return 0;
    double p[21], binom = 1;
    double c[21]; /* C(n, m) */
    ee_kernel_size_probs(n, p);
    for (int m = 0; m <= n; m++) {
        c[m] = binom;
        binom = binom * (n - m) / (m + 1);
    }
    long K = 0;
    for (long S = 1; S < (1L << n) - 1; S++, K++) {
        if (coal) {
            memset(coal + (size_t)K * words, 0, sizeof(uint64_t) * words);
            coal[(size_t)K * words] = (uint64_t)S;
        }
        if (weight) weight[K] = (float)(p[__builtin_popcountl((unsigned long)S)] / c[__builtin_popcountl((unsigned long)S)]);
    }
    return K;
}

/* Runs the nb coalition rows of a batch; v(S) into kt->value (b(S) once
 * v(empty) is known), v(empty) (k = -1) into vempty. */
static EeStatus flush(EeRun *r, const int32_t *h_ids, const uint8_t *h_mask, int nb, float *h_out, const int *row_i,
                      const int *row_k, const int32_t *target, float *vempty, EeKernelTargets *kt, long *passes)
{
    if (ee_interrupted()) return ee_fail(EE_ERR_INTERRUPTED, "interrupted during the coalition values");
    EeStatus st = ee_attr_logits(r, h_ids, h_mask, nb, h_out);
    if (st) return st;
    *passes += nb;
    int C = r->m->cfg.classes;
    for (int j = 0; j < nb; j++) {
        float v = h_out[(size_t)j * C + target[row_i[j]]];
        if (row_k[j] < 0) vempty[row_i[j]] = v;
        else kt->value[(size_t)row_i[j] * kt->K + row_k[j]] = v;
    }
    return EE_OK;
}

EeStatus ee_kernel_values(EeModel *clf, const EeInput *in, const EeAttrOptions *o, EeKernelTargets *kt, int draw)
{
    EeAttrOptions opt = *o;
    opt.steps = 1;
    EeStatus st = ee_attr_check(clf, in, &opt, 1);
    if (st) return st;
    const EeConfig *c = &clf->cfg;
    int T = c->T, C = c->classes, N = in->n, K = kt->K, W = kt->words;
    if (K < 1) return ee_fail(EE_ERR_INPUT, "coalitions per row must be at least 1, got %d", K);
    for (int i = 0; i < N; i++)
        if (ee_count_real(in->ids + (size_t)i * T, T) > 64 * W)
            return ee_fail(EE_ERR_INPUT, "row %d has more real tokens than %d words of coalition bits hold", i + 1, W);
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o->device, o->precision, &dev, &be))) return st;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    long rows_needed = (long)N * (K + 1);
    if (rows_needed < 1) rows_needed = 1;
    if (B > rows_needed) B = (int)rows_needed;
    EeRun *r = NULL;
    if ((st = ee_run_new(clf, be, B, 0, 0, &r))) return st;
    double t0 = ee_now();
    long passes = N;
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1)), *h_ids = malloc(sizeof(int32_t) * (size_t)B * T);
    int32_t *base = malloc(sizeof(int32_t) * T);
    float *fx = malloc(sizeof(float) * (N ? N : 1)), *h_out = malloc(sizeof(float) * (size_t)B * C);
    float *vempty = malloc(sizeof(float) * (N ? N : 1));
    uint8_t *h_mask = malloc((size_t)B * T), *mask = malloc((size_t)T);
    int *order = malloc(sizeof(int) * (N ? N : 1)), *pos = malloc(sizeof(int) * (T + 1));
    int *row_i = malloc(sizeof(int) * B), *row_k = malloc(sizeof(int) * B);
    if (!target || !h_ids || !base || !fx || !h_out || !vempty || !h_mask || !mask || !order || !pos || !row_i ||
        !row_k) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for the coalition values (batch %d)", B);
        goto done;
    }
    if ((st = ee_attr_targets(r, in, &opt, target, fx))) goto done;
    /* rows by length: a batch of similar rows runs at its active length */
    ee_rows_by_length(in->ids, in->mask, N, T, order);
    EeProgress prog;
    ee_progress_start(&prog, o, "coalition values", N);
    int nb = 0;
    for (int q = 0; q < N && !st; q++) {
        ee_progress_tick(&prog, q);
        int i = order[q], n = 0;
        const int32_t *ids = in->ids + (size_t)i * T;
        for (int t = 0; t < T; t++)
            if (!EE_IS_SPECIAL(ids[t])) pos[n++] = t;
        if (draw) ee_kernel_draw(o->seed, o->row_offset + i, n, K, W, kt->coal + (size_t)i * K * W);
        for (int k = 0; k < K; k++) kt->value[(size_t)i * K + k] = 0;
        vempty[i] = fx[i];
        if (n == 0) continue; /* nothing can be absent: v(empty) = f(x), total 0 */
        ee_attr_row_baseline(clf, in, &opt, i, base);
        ee_attr_row_mask(clf, in, i, mask);
        /* the row's passes: the empty coalition, then each non-empty one */
        for (int k = -1; k < K && !st; k++) {
            int32_t *row = h_ids + (size_t)nb * T;
            memcpy(row, base, sizeof(int32_t) * T);
            if (k >= 0) {
                const uint64_t *S = kt->coal + ((size_t)i * K + k) * W;
                int any = 0;
                for (int j = 0; j < n; j++)
                    if (S[j / 64] >> (j % 64) & 1) { row[pos[j]] = ids[pos[j]]; any = 1; }
                if (!any) continue; /* b(empty) = 0 needs no pass */
            }
            memcpy(h_mask + (size_t)nb * T, mask, T);
            row_i[nb] = i;
            row_k[nb] = k;
            if (++nb == B) {
                st = flush(r, h_ids, h_mask, nb, h_out, row_i, row_k, target, vempty, kt, &passes);
                nb = 0;
            }
        }
    }
    if (!st && nb > 0) st = flush(r, h_ids, h_mask, nb, h_out, row_i, row_k, target, vempty, kt, &passes);
    ee_progress_end(&prog, st ? 0 : N, passes);
    if (!st) st = ee_backend_check(r->be);
    if (!st) {
        for (int i = 0; i < N; i++) {
            kt->total[i] = fx[i] - vempty[i];
            int n = ee_count_real(in->ids + (size_t)i * T, T);
            for (int k = 0; k < K; k++) {
                const uint64_t *S = kt->coal + ((size_t)i * K + k) * W;
                int any = 0;
                for (int w = 0; w < W; w++) any |= S[w] != 0;
                float *v = kt->value + (size_t)i * K + k;
                *v = any && n > 0 ? *v - vempty[i] : 0.0f;
            }
        }
        kt->passes = passes;
        kt->seconds = ee_now() - t0;
    }
done:
    free(target); free(h_ids); free(base); free(fx); free(h_out); free(vempty); free(h_mask); free(mask);
    free(order); free(pos); free(row_i); free(row_k);
    ee_run_free(r);
    return st;
}
