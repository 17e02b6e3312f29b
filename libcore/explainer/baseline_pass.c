#define _GNU_SOURCE /* qsort_r */
/* baseline_pass.c: the classifier at the pad baseline of each row (the
 * target's logit and its gradient, for the explainer features and the
 * efficiency projection of features.c; every class's logits, for the
 * margin explainers of margin.c). Rows of one length share their
 * baseline, so each distinct one is evaluated once per call, and read
 * from what the process kept (baseline_cache.c) when an earlier call
 * evaluated it. */
#include "explainer.h"

#include <stdlib.h>
#include <string.h>

/* Rows told apart by a hash of their ids and mask, then by their bytes. */
static uint64_t row_hash(const int32_t *ids, const uint8_t *mask, int T)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int t = 0; t < T; t++) h = (h ^ (uint64_t)(uint32_t)ids[t] ^ ((uint64_t)mask[t] << 40)) * 0x100000001b3ULL;
    return h;
}

/* Rows (and targets, when given) in a fixed order; `equal_only` compares
 * the contents alone (0: the same baseline), else ties go by index. */
typedef struct {
    const int32_t *ids;
    const uint8_t *mask;
    const uint64_t *h;
    int T;
    const int32_t *target;
    int equal_only;
} RowSet;

static int cmp_rows(const void *a, const void *b, void *ctx)
{
    const RowSet *s = ctx;
    int i = *(const int *)a, j = *(const int *)b;
    if (s->h[i] != s->h[j]) return s->h[i] < s->h[j] ? -1 : 1;
    int c = memcmp(s->ids + (size_t)i * s->T, s->ids + (size_t)j * s->T, sizeof(int32_t) * s->T);
    if (!c) c = memcmp(s->mask + (size_t)i * s->T, s->mask + (size_t)j * s->T, (size_t)s->T);
    if (!c && s->target) c = (s->target[i] > s->target[j]) - (s->target[i] < s->target[j]);
    if (c || s->equal_only) return c;
    return (i > j) - (i < j);
}

/* The classifier at the baseline of every row: f for the row's target
 * into fb (may be NULL), and, when G is given, the gradient of that logit
 * with respect to the baseline's embedding output: *G gets a table of
 * U x T x d floats (zero past each row's active length, malloc'd) and
 * gidx[i] the entry of row i. Baselines repeat: with the pad baseline every
 * row of a given length has the same one ([CLS], PADs, [SEP]) under the
 * same mask, so each distinct (baseline, mask[, target with G]) is
 * evaluated once; with a model key (not 0), those kept from earlier calls
 * (baseline_cache.c) are read, not evaluated again, and the others kept.
 * zb (may be NULL; target may then be NULL too) gets every class's logits
 * at each row's baseline (N x C). *fwd and *bwd count the passes of every
 * distinct one (what the rows need, whatever ran before), *kept those
 * that were read. */
EeStatus ee_baseline_pass(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int32_t *target,
                          uint64_t model_key, float *fb, float *zb, float **G, int *gidx, long *fwd, long *bwd,
                          long *kept)
{
    const EeModel *m = r->m;
    const EeBackend *be = r->be;
    int N = in->n, T = m->cfg.T, C = m->cfg.classes, B = r->Bmax, d = m->cfg.d;
    /* a baseline's entry (here and in the cache): its logits, and with G
     * its target's gradient, so that only then does the target tell
     * entries apart (etg; else target -1, d 0) */
    const int32_t *etg = G ? target : NULL;
    int kd = G ? d : 0;
    int32_t *bids = malloc(sizeof(int32_t) * (size_t)N * T), *uids = malloc(sizeof(int32_t) * (size_t)B * T);
    uint8_t *mask = malloc((size_t)N * T), *umask = malloc((size_t)B * T);
    uint64_t *h = malloc(sizeof(uint64_t) * N);
    int *order = malloc(sizeof(int) * N), *uof = malloc(sizeof(int) * N), *rep = malloc(sizeof(int) * N);
    int *todo = malloc(sizeof(int) * N), *utg = malloc(sizeof(int) * B);
    float *out = malloc(sizeof(float) * (size_t)B * C), *dout = malloc(sizeof(float) * (size_t)B * C);
    float *zu = malloc(sizeof(float) * (size_t)N * C); /* each entry's logits */
    float *d_dout = G ? be->alloc(sizeof(float) * (size_t)B * C) : NULL, *table = NULL;
    EeStatus st = EE_OK;
    if (!bids || !uids || !mask || !umask || !h || !order || !uof || !rep || !todo || !utg || !out || !dout ||
        !zu || (G && !d_dout)) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for the baselines");
        goto done;
    }
    for (int i = 0; i < N; i++) {
        ee_attr_row_mask(m, in, i, mask + (size_t)i * T);
        ee_attr_row_baseline(m, in, o, i, bids + (size_t)i * T);
        h[i] = row_hash(bids + (size_t)i * T, mask + (size_t)i * T, T) ^ (etg ? (uint64_t)etg[i] * 0x9E3779B97F4A7C15ULL : 0);
        order[i] = i;
    }
    RowSet set = {bids, mask, h, T, etg, 0}, equal = set;
    equal.equal_only = 1;
    qsort_r(order, (size_t)N, sizeof(int), cmp_rows, &set);
    /* the distinct rows (rep[u]: a row of entry u; uof[q]: the entry of
     * order[q]) */
    int U = 0;
    for (int q = 0; q < N; q++) {
        if (q == 0 || cmp_rows(&order[q], &order[q - 1], &equal)) rep[U++] = order[q];
        uof[q] = U - 1;
    }
    if (G && !(table = calloc((size_t)(U ? U : 1) * T * d, sizeof(float)))) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for the baselines' gradients");
        goto done;
    }
    /* those kept from an earlier call, then the others in batches */
    int ntodo = 0;
    for (int u = 0; u < U; u++) {
        int i = rep[u];
        const int32_t *bi = bids + (size_t)i * T;
        const uint8_t *mi = mask + (size_t)i * T;
        if (!(model_key && ee_baseline_cache_get(model_key, h[i], bi, mi, T, kd, etg ? etg[i] : -1,
                                                 G ? table + (size_t)u * T * d : NULL, zu + (size_t)u * C, C)))
            todo[ntodo++] = u;
    }
    /* the gradient at every position: a run kept for a top-only backward
     * (EE_KEEP_TOP) has not the buffers, so those passes get their own */
    EeRun *full = NULL, *run = r;
    if (G && ntodo && r->keep == EE_KEEP_TOP) {
        if ((st = ee_run_new(r->m, be, B, EE_KEEP_FULL, 0, &full))) goto done;
        run = full;
    }
    for (int q0 = 0; q0 < ntodo && !st; q0 += B) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during the baseline passes"); break; }
        int nb = ntodo - q0 < B ? ntodo - q0 : B;
        for (int j = 0; j < nb; j++) {
            int i = rep[todo[q0 + j]];
            memcpy(uids + (size_t)j * T, bids + (size_t)i * T, sizeof(int32_t) * T);
            memcpy(umask + (size_t)j * T, mask + (size_t)i * T, (size_t)T);
            utg[j] = etg ? etg[i] : -1;
        }
        int L = ee_run_needed_len(run, uids, umask, nb);
        if ((st = ee_run_set_input_len(run, uids, umask, NULL, nb, L))) break;
        ee_run_embed(run, nb);
        ee_run_forward(run, nb, 0);
        be->download(out, run->out, sizeof(float) * (size_t)nb * C);
        if (G) {
            memset(dout, 0, sizeof(float) * (size_t)nb * C);
            for (int j = 0; j < nb; j++) dout[(size_t)j * C + utg[j]] = 1.0f;
            be->upload(d_dout, dout, sizeof(float) * (size_t)nb * C);
            ee_run_backward(run, nb, d_dout, 1, 0);
        }
        for (int j = 0; j < nb; j++) {
            int u = todo[q0 + j];
            memcpy(zu + (size_t)u * C, out + (size_t)j * C, sizeof(float) * C);
            float *dst = G ? table + (size_t)u * T * d : NULL; /* [L][d] rows into [T][d] slots */
            if (G) be->download(dst, run->de + (size_t)j * L * d, sizeof(float) * (size_t)L * d);
            if (model_key)
                ee_baseline_cache_put(model_key, h[rep[u]], uids + (size_t)j * T, umask + (size_t)j * T, T, kd, utg[j],
                                      dst, out + (size_t)j * C, C);
        }
    }
    if (!st) {
        *fwd += U;
        if (G) *bwd += U;
        *kept += (G ? 2L : 1L) * (U - ntodo);
        for (int q = 0; q < N; q++) {
            int i = order[q], u = uof[q];
            if (fb) fb[i] = zu[(size_t)u * C + target[i]];
            if (zb) memcpy(zb + (size_t)i * C, zu + (size_t)u * C, sizeof(float) * C);
            if (G) gidx[i] = u;
        }
    }
    ee_run_free(full);
done:
    if (G && !st) *G = table;
    else free(table);
    if (d_dout) be->release(d_dout);
    free(bids); free(uids); free(mask); free(umask); free(h); free(order); free(uof); free(rep); free(todo);
    free(utg); free(out); free(dout); free(zu);
    return st;
}
