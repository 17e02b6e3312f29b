#define _GNU_SOURCE /* qsort_r */
/* predict.c: prediction. The forward pass of rows of an input through a
 * run, the default batch of a device, the batch-and-retry that splits a
 * batch the GPU cannot hold, argmax, and ee_model_predict built from them.
 * It sits above run.c and model.c (neither calls it); the samplers
 * (attr/) reuse it. */
#include "model_impl.h"

#include <stdlib.h>
#include <string.h>

/* The class of a row of logits: the largest, ties to the lowest index. */
#define EE_ARGMAX_BODY(z, n)                                                                       \
    int best = 0;                                                                                  \
    for (int k = 1; k < (n); k++)                                                                  \
        if ((z)[k] > (z)[best]) best = k;                                                          \
    return best;

int ee_argmax(const float *z, int n) { EE_ARGMAX_BODY(z, n) }
int ee_argmax_double(const double *z, int n) { EE_ARGMAX_BODY(z, n) }

int ee_default_batch(const EeConfig *c, EeDevice dev)
{
    /* a GPU needs large passes to be busy; the CPU gains nothing past these */
    int gpu = dev == EE_DEVICE_GPU;
    switch (c->kind) {
    case EE_KIND_TRANSFORMER: return gpu ? 1024 : 64;
    case EE_KIND_CNN: return gpu ? 4096 : 256;
    default: return gpu ? 8192 : 1024;
    }
}

EeStatus ee_fit_batch(EeDevice dev, const EeConfig *c, int batch, EeBatchFn fn, void *ctx)
{
    int B = batch > 0 ? batch : ee_default_batch(c, dev);
    EeStatus st;
    while ((st = fn(ctx, B)) == EE_ERR_NOMEM && dev == EE_DEVICE_GPU && B > 1) B /= 2;
    return st;
}

EeStatus ee_run_predict(EeRun *r, const EeInput *in, int i0, int nb, float *out)
{
    const EeConfig *c = &r->m->cfg;
    int T = c->T, k = ee_config_features(c);
    EeStatus st;
    if (ee_is_token_model(c)) {
        st = ee_run_set_input(r, in->ids + (size_t)i0 * T, in->mask ? in->mask + (size_t)i0 * T : NULL, NULL,
                              nb);
        if (!st && k) st = ee_run_set_features(r, in->feats + (size_t)i0 * T * k, nb);
    } else
        st = ee_run_set_input(r, NULL, NULL, in->x + (size_t)i0 * c->D, nb);
    if (st) return st;
    ee_run_embed(r, nb);
    ee_run_forward(r, nb, 0);
    r->be->download(out, r->out, sizeof(float) * (size_t)nb * ee_config_outputs(c));
    return EE_OK;
}

typedef struct {
    EeModel *m;
    const EeInput *in;
    float *out;
    EeDevice dev;
    const EeBackend *be;
} Predict;

static EeStatus predict_batches(void *ctx, int B)
{
    Predict *p = ctx;
    const EeInput *in = p->in;
    EeStatus st;
    if (B > in->n) B = in->n;
    EeRun *r;
    if ((st = ee_run_new(p->m, p->be, B, EE_KEEP_NONE, 0, &r))) return st;
    int outs = ee_config_outputs(&p->m->cfg);
    for (int i0 = 0; i0 < in->n; i0 += B) {
        int nb = in->n - i0 < B ? in->n - i0 : B;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during prediction");
            break;
        }
        if ((st = ee_run_predict(r, in, i0, nb, p->out + (size_t)i0 * outs))) break;
    }
    if (!st) st = ee_backend_check(r->be);
    ee_run_free(r);
    return st;
}

EeStatus ee_model_predict(EeModel *m, const EeInput *in, float *out, int batch, EeDevice dev)
{
    return ee_model_predict_precision(m, in, out, batch, dev, EE_PRECISION_FP32);
}

EeStatus ee_model_predict_precision(EeModel *m, const EeInput *in, float *out, int batch,
                                    EeDevice dev, EePrecision precision)
{
    EeStatus st = ee_input_check(m, in);
    if (st) return st;
    if (in->n == 0) return EE_OK;
    Predict p = {m, in, out, EE_DEVICE_CPU, NULL};
    if ((st = ee_backend_resolve(dev, precision, &p.dev, &p.be))) return st;
    const EeConfig *c = &m->cfg;
    if (!ee_is_token_model(c) || in->n < 2)
        /* a batch that does not fit in GPU memory is split, not refused */
        return ee_fit_batch(p.dev, c, batch, predict_batches, &p);
    /* Token rows in order of length: a pass runs at the longest active
     * length of its rows, so rows of unequal length in one pass would pay
     * for padding (2-4x on real text, issue 19). A row's result does not
     * depend on the rows beside it, so the order changes no bit. */
    int N = in->n, T = c->T, k = ee_config_features(c), outs = ee_config_outputs(c);
    int *order = malloc(sizeof(int) * N);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)N * T);
    uint8_t *mask = in->mask ? malloc((size_t)N * T) : NULL;
    float *feats = k ? malloc(sizeof(float) * (size_t)N * T * k) : NULL;
    float *sorted = malloc(sizeof(float) * (size_t)N * outs);
    if (!order || !ids || (in->mask && !mask) || (k && !feats) || !sorted) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for %d rows", N);
        goto done;
    }
    ee_rows_by_length(in->ids, in->mask, N, T, order, NULL);
    for (int i = 0; i < N; i++) {
        size_t src = (size_t)order[i] * T, dst = (size_t)i * T;
        memcpy(ids + dst, in->ids + src, sizeof(int32_t) * T);
        if (mask) memcpy(mask + dst, in->mask + src, (size_t)T);
        if (k) memcpy(feats + dst * k, in->feats + src * k, sizeof(float) * T * k);
    }
    EeInput sin = {.n = N, .ids = ids, .mask = mask, .feats = feats};
    p.in = &sin;
    p.out = sorted;
    if (!(st = ee_fit_batch(p.dev, c, batch, predict_batches, &p)))
        for (int i = 0; i < N; i++)
            memcpy(out + (size_t)order[i] * outs, sorted + (size_t)i * outs, sizeof(float) * outs);
done:
    free(order); free(ids); free(mask); free(feats); free(sorted);
    return st;
}

/* Rows by their last attended (mask) or non-PAD position, shortest first,
 * ties by index. */
static int cmp_by_len(const void *a, const void *b, void *lengths)
{
    const int *len = lengths;
    int i = *(const int *)a, j = *(const int *)b;
    return len[i] != len[j] ? (len[i] > len[j]) - (len[i] < len[j]) : (i > j) - (i < j);
}

void ee_rows_by_length(const int32_t *ids, const uint8_t *mask, int N, int T, int *order, int *lengths)
{
    int *len = lengths ? lengths : malloc(sizeof(int) * (N ? N : 1));
    for (int i = 0; i < N; i++) {
        order[i] = i;
        if (!len) continue;
        int L = 0;
        for (int t = 0; t < T; t++)
            if (mask ? mask[(size_t)i * T + t] != 0 : ids[(size_t)i * T + t] != EE_PAD) L = t + 1;
        len[i] = L;
    }
    if (len) qsort_r(order, (size_t)N, sizeof(int), cmp_by_len, len); /* else: the given order */
    if (len != lengths) free(len);
}
