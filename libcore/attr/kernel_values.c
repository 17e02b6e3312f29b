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

/* Runs the nb coalition rows of a batch: v(S) into mv->value, v(empty)
 * (k = -1) into mv->vempty. */
/* The transformer's layer-0 caches of the rows in flight (tf_cache.c):
 * cache[i] while row i has copies not yet evaluated (left[i] of them). */
typedef struct {
    float **cache;
    long *left;
    const float **row_cache; /* per batch row */
    EeTfWindows **win;       /* occlusion: row i's layer-0 attention sums (NULL: not occlusion) */
    const EeTfWindows **row_win;
} TfCaches;

static void tf_row_free(TfCaches *tc, int i)
{
    free(tc->cache[i]);
    tc->cache[i] = NULL;
    if (tc->win) { ee_tf_windows_free(tc->win[i]); tc->win[i] = NULL; }
}

static EeStatus flush(EeRun *r, int token, const EeInput *in, TfCaches *tc, const int32_t *h_ids,
                      const uint8_t *h_mask, const float *h_x, int nb, float *h_out, const int *row_i,
                      const long *row_k, EeMaskedValues *mv)
{
    if (ee_interrupted()) return ee_fail(EE_ERR_INTERRUPTED, "interrupted during the coalition values");
    EeStatus st;
    if (tc) {
        for (int j = 0; j < nb; j++) tc->row_cache[j] = tc->cache[row_i[j]];
        if (tc->win) {
            for (int j = 0; j < nb; j++) tc->row_win[j] = tc->win[row_i[j]];
            st = ee_tf_window_logits(r, in, tc->row_win, row_i, h_ids, h_mask, nb, h_out);
        } else {
            st = ee_tf_cached_logits(r, in, tc->row_cache, row_i, h_ids, h_mask, nb, h_out);
        }
        for (int j = 0; j < nb && !st; j++)
            if (--tc->left[row_i[j]] == 0) tf_row_free(tc, row_i[j]);
    } else if (token) st = ee_attr_logits(r, h_ids, h_mask, nb, h_out);
    else if (!(st = ee_run_set_input(r, NULL, NULL, h_x, nb))) {
        ee_run_embed(r, nb);
        ee_run_forward(r, nb, 0);
        r->be->download(h_out, r->out, sizeof(float) * (size_t)nb * r->m->cfg.classes);
    }
    if (st) return st;
    mv->passes += nb;
    int C = r->m->cfg.classes;
    for (int j = 0; j < nb; j++) {
        float v = h_out[(size_t)j * C + mv->target[row_i[j]]];
        if (row_k[j] < 0) mv->vempty[row_i[j]] = v;
        else mv->value[row_k[j]] = v;
    }
    return EE_OK;
}

int ee_masked_players(const EeModel *m, const EeInput *in, int i)
{
    const EeConfig *c = &m->cfg;
    return ee_is_token_model(c) ? ee_count_real(in->ids + (size_t)i * c->T, c->T) : c->D;
}

EeStatus ee_masked_values(EeModel *clf, const EeInput *in, const EeAttrOptions *o, const char *what,
                          EeMaskedValues *mv)
{
    const EeConfig *c = &clf->cfg;
    int token = ee_is_token_model(c), W = token ? c->T : c->D, C = c->classes, N = in->n, words = mv->words;
    EeDevice dev;
    const EeBackend *be;
    EeStatus st = ee_backend_resolve(o->device, o->precision, &dev, &be);
    if (st) return st;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    long rows_needed = mv->first[N] + N;
    if (rows_needed < 1) rows_needed = 1;
    if (B > rows_needed) B = (int)rows_needed;
    EeRun *r = NULL;
    /* the transformer's cache embeds two rows at once */
    if ((st = ee_run_new(clf, be, B > 2 ? B : 2, EE_KEEP_NONE, 0, &r))) return st;
    mv->passes = N;
    int tf_fast = ee_tf_cache_applies(r, o);
    int tf_win = tf_fast && mv->windows && ee_tf_windows_apply(c);
    TfCaches tcs = {0}, *tc = NULL;
    if (tf_fast) {
        tcs.cache = calloc((size_t)(N ? N : 1), sizeof(float *));
        tcs.left = calloc((size_t)(N ? N : 1), sizeof(long));
        tcs.row_cache = malloc(sizeof(float *) * B);
        if (tf_win) {
            tcs.win = calloc((size_t)(N ? N : 1), sizeof(EeTfWindows *));
            tcs.row_win = malloc(sizeof(EeTfWindows *) * B);
        }
        tc = &tcs;
    }
    int32_t *h_ids = token ? malloc(sizeof(int32_t) * (size_t)B * W) : NULL, *base = malloc(sizeof(int32_t) * W);
    float *h_out = malloc(sizeof(float) * (size_t)B * C), *h_x = token ? NULL : malloc(sizeof(float) * (size_t)B * W);
    uint8_t *h_mask = token ? malloc((size_t)B * W) : NULL, *mask = malloc((size_t)W);
    int *order = malloc(sizeof(int) * (N ? N : 1)), *pos = malloc(sizeof(int) * (W + 1));
    int *row_i = malloc(sizeof(int) * B);
    long *row_k = malloc(sizeof(long) * B);
    if ((token ? !h_ids || !h_mask : !h_x) || !base || !h_out || !mask || !order || !pos || !row_i || !row_k ||
        (tc && (!tcs.cache || !tcs.left || !tcs.row_cache)) ||
        (tf_win && (!tcs.win || !tcs.row_win))) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for the %s (batch %d)", what, B);
        goto done;
    }
    if ((st = ee_attr_targets(r, in, o, mv->target, mv->fx))) goto done;
    /* rows by length: a batch of similar rows runs at its active length */
    if (token) ee_rows_by_length(in->ids, in->mask, N, W, order, NULL);
    else
        for (int i = 0; i < N; i++) order[i] = i;
    EeProgress prog;
    ee_progress_start(&prog, o, what, N);
    double work_total = (double)rows_needed;
    int nb = 0;
    for (int q = 0; q < N && !st; q++) {
        ee_progress_tick_work(&prog, q, (double)mv->passes, work_total);
        int i = order[q], n = 0;
        const int32_t *ids = token ? in->ids + (size_t)i * W : NULL;
        const float *x = token ? NULL : in->x + (size_t)i * W;
        if (token) {
            for (int t = 0; t < W; t++)
                if (!EE_IS_SPECIAL(ids[t])) pos[n++] = t;
        } else {
            for (int t = 0; t < W; t++) pos[n++] = t;
        }
        mv->vempty[i] = mv->fx[i];
        for (long k = mv->first[i]; k < mv->first[i + 1]; k++) mv->value[k] = mv->fx[i];
        if (n == 0) continue; /* nothing can be absent: every coalition is x */
        if (token) {
            ee_attr_row_baseline(clf, in, o, i, base);
            ee_attr_row_mask(clf, in, i, mask);
        }
        if (tc) { /* the row's cache, freed with its last copy's pass */
            long copies = 1;
            for (long k = mv->first[i]; k < mv->first[i + 1]; k++) {
                int any = 0;
                for (int w = 0; w < words; w++) any |= mv->coal[(size_t)k * words + w] != 0;
                copies += any;
            }
            tcs.left[i] = copies;
            if (!(tcs.cache[i] = malloc(sizeof(float) * ee_tf_cache_floats(c)))) {
                st = ee_fail(EE_ERR_NOMEM, "out of memory for the coalition values");
                break;
            }
            if ((st = ee_tf_cache_fill(r, in, o, i, tcs.cache[i]))) break;
            if (tcs.win && (st = ee_tf_windows_new(clf, in, i, tcs.cache[i], &tcs.win[i]))) break;
        }
        /* the row's passes: the empty coalition, then each non-empty one */
        for (long k = mv->first[i] - 1; k < mv->first[i + 1] && !st; k++) {
            int any = 0;
            if (token) {
                int32_t *row = h_ids + (size_t)nb * W;
                memcpy(row, base, sizeof(int32_t) * W);
                if (k >= mv->first[i]) {
                    const uint64_t *S = mv->coal + (size_t)k * words;
                    for (int j = 0; j < n; j++)
                        if (S[j / 64] >> (j % 64) & 1) { row[pos[j]] = ids[pos[j]]; any = 1; }
                }
                memcpy(h_mask + (size_t)nb * W, mask, W);
            } else { /* an absent feature is 0 (the mlp's baseline) */
                float *row = h_x + (size_t)nb * W;
                memset(row, 0, sizeof(float) * W);
                if (k >= mv->first[i]) {
                    const uint64_t *S = mv->coal + (size_t)k * words;
                    for (int j = 0; j < n; j++)
                        if (S[j / 64] >> (j % 64) & 1) { row[j] = x[j]; any = 1; }
                }
            }
            if (k >= mv->first[i] && !any) continue; /* v(empty) is the row's own pass */
            row_i[nb] = i;
            row_k[nb] = k >= mv->first[i] ? k : -1;
            if (++nb == B) {
                st = flush(r, token, in, tc, h_ids, h_mask, h_x, nb, h_out, row_i, row_k, mv);
                nb = 0;
            }
        }
    }
    if (!st && nb > 0) st = flush(r, token, in, tc, h_ids, h_mask, h_x, nb, h_out, row_i, row_k, mv);
    ee_progress_end(&prog, st ? 0 : N, mv->passes);
    if (!st) st = ee_backend_check(r->be);
    if (!st) /* the empty coalitions take v(empty), which came with the row */
        for (int i = 0; i < N; i++)
            for (long k = mv->first[i]; k < mv->first[i + 1]; k++) {
                int any = 0;
                for (int w = 0; w < words; w++) any |= mv->coal[(size_t)k * words + w] != 0;
                if (!any) mv->value[k] = mv->vempty[i];
            }
done:
    free(h_ids); free(base); free(h_out); free(h_x); free(h_mask); free(mask);
    free(order); free(pos); free(row_i); free(row_k);
    if (tc && tcs.cache)
        for (int i = 0; i < N; i++) tf_row_free(&tcs, i); /* rows left by an error */
    free(tcs.cache); free(tcs.left); free(tcs.row_cache); free(tcs.win); free(tcs.row_win);
    ee_run_free(r);
    return st;
}

EeStatus ee_kernel_values(EeModel *clf, const EeInput *in, const EeAttrOptions *o, EeKernelTargets *kt, int draw)
{
    EeAttrOptions opt = *o;
    opt.steps = 1;
    /* full passes: the training values keep the bits they had before this
     * evaluator was shared (the transformer's layer-0 cache would change
     * their last bits) */
    opt.full_passes = 1;
    EeStatus st = ee_attr_check(clf, in, &opt, 1);
    if (st) return st;
    const EeConfig *c = &clf->cfg;
    int T = c->T, N = in->n, K = kt->K, W = kt->words;
    if (K < 1) return ee_fail(EE_ERR_INPUT, "coalitions per row must be at least 1, got %d", K);
    for (int i = 0; i < N; i++)
        if (ee_count_real(in->ids + (size_t)i * T, T) > 64 * W)
            return ee_fail(EE_ERR_INPUT, "row %d has more real tokens than %d words of coalition bits hold", i + 1, W);
    double t0 = ee_now();
    long *first = malloc(sizeof(long) * ((size_t)N + 1));
    int32_t *target = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1)), *vempty = malloc(sizeof(float) * (N ? N : 1));
    if (!first || !target || !fx || !vempty) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for the coalition values");
        goto done;
    }
    for (int i = 0; i <= N; i++) first[i] = (long)i * K;
    if (draw)
        for (int i = 0; i < N; i++)
            ee_kernel_draw(o->seed, o->row_offset + i, ee_count_real(in->ids + (size_t)i * T, T), K, W,
                           kt->coal + (size_t)i * K * W);
    EeMaskedValues mv = {.words = W, .first = first, .coal = kt->coal, .value = kt->value, .vempty = vempty,
                         .fx = fx, .target = target};
    if ((st = ee_masked_values(clf, in, &opt, "coalition values", &mv))) goto done;
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
    kt->passes = mv.passes;
    kt->seconds = ee_now() - t0;
done:
    free(first); free(target); free(fx); free(vempty);
    return st;
}
