/* margin.c: the margin explainer of a binary classifier (EeConfig.margin).
 *
 * The map of the class a binary classifier predicts flips its sign where
 * the prediction flips (IG and SV are linear in the explained function,
 * and a classifier trained with cross entropy has z_1 close to -z_2 up to
 * a constant, so the first class's map is close to minus the second's).
 * An explainer trained on those maps must learn that jump from the tokens
 * alone, and where it guesses the class wrong it explains the row with the
 * wrong sign: on the spam panel 2.2 % of the test mails, two thirds of the
 * one-pass explainer's error (doc/FIGURE5.md, issue 19). A margin
 * explainer learns the map signed toward the second class instead, which
 * is continuous where the classifier is, and its sign is decided at
 * ee_explain: by the class given, by the class the features' classifier
 * pass found, or, for an explainer that reads no features, by the map
 * itself. Its real tokens' scores sum to about z_2(x) - z_2(b) (the
 * efficiency of the maps), about half the margin's change from the
 * baseline b to x, so the classifier's margin at x is estimated as
 * m(b) + 2 sum(map), m(b) = z_2(b) - z_1(b) from one classifier pass per
 * distinct baseline, kept across calls (baseline_cache.c): the class is
 * the second where that estimate is above 0. */
#include "explainer.h"

#include <stdlib.h>
#include <string.h>

/* The sum of a row's map over its real (non-special) tokens, in double. */
static double real_sum(const int32_t *ids, const float *a, int T)
{
    double sum = 0;
    for (int t = 0; t < T; t++)
        if (!EE_IS_SPECIAL(ids[t])) sum += a[t];
    return sum;
}

EeStatus ee_margin_classes(EeModel *clf, const EeInput *in, const EeAttrOptions *o, const float *A, int32_t *tg,
                           EeAttrInfo *info)
{
    const EeConfig *c = &clf->cfg;
    if (c->head != EE_HEAD_CLASSIFIER || c->classes != 2)
        return ee_fail(EE_ERR_MODEL, "a margin explainer explains a binary classifier (this one has %d classes)",
                       c->classes);
    EeStatus st = ee_attr_check(clf, in, o, 0);
    if (st) return st;
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o->device, o->precision, &dev, &be))) return st;
    int N = in->n, T = c->T;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    if (B > N) B = N > 0 ? N : 1;
    uint64_t model_key;
    if ((st = ee_baseline_cache_model_key(clf, dev, o->precision, &model_key))) return st;
    float *zb = malloc(sizeof(float) * 2 * (N ? N : 1)); /* the logits at each row's baseline */
    if (!zb) return ee_fail(EE_ERR_NOMEM, "out of memory");
    EeRun *r = NULL;
    long fwd = 0, bwd = 0, kept = 0;
    double t0 = ee_now();
    if (!(st = ee_run_new(clf, be, B, EE_KEEP_NONE, 0, &r)))
        st = ee_baseline_pass(r, in, o, NULL, model_key, NULL, zb, NULL, NULL, &fwd, &bwd, &kept);
    ee_run_free(r);
    for (int i = 0; i < N && !st; i++) {
        float mb = zb[2 * i + 1] - zb[2 * i]; /* m(b) = z_2 - z_1 at the baseline */
        tg[i] = (double)mb + 2 * real_sum(in->ids + (size_t)i * T, A + (size_t)i * T, T) > 0;
    }
    free(zb);
    if (info) {
        info->forward += fwd;
        info->kept += kept;
        info->seconds += ee_now() - t0;
    }
    return st;
}

void ee_margin_sign(int N, int T, const int32_t *tg, float *A)
{
    for (int i = 0; i < N; i++)
        if (tg[i] == 0)
            for (int t = 0; t < T; t++) A[(size_t)i * T + t] = -A[(size_t)i * T + t];
}

EeStatus ee_explainer_margin_maps(EeModel *clf, const EeDataset *set, const EeTrainOptions *topt, float **out,
                                  EeAttrInfo *info)
{
    *out = NULL;
    const EeConfig *c = &clf->cfg;
    if (c->head != EE_HEAD_CLASSIFIER || c->classes != 2)
        return ee_fail(EE_ERR_INPUT, "'margin' explains a binary classifier (this one has %d classes)", c->classes);
    int N = set->in.n, T = c->T;
    if (!N) return EE_OK;
    if (!set->maps) return ee_fail(EE_ERR_INPUT, "'margin' trains on maps (the target-free loss has none)");
    double t0 = ee_now();
    float *z = malloc(sizeof(float) * (size_t)N * 2), *A = malloc(sizeof(float) * (size_t)N * T);
    EeStatus st = EE_OK;
    if (!z || !A) st = ee_fail(EE_ERR_NOMEM, "out of memory for the signed maps (%d x %d)", N, T);
    EeDevice dev;
    if (!st) st = ee_device_resolve(topt->device, &dev);
    if (!st) st = ee_model_predict_precision(clf, &set->in, z, 0, dev, topt->precision);
    if (!st) {
        memcpy(A, set->maps, sizeof(float) * (size_t)N * T);
        int32_t *tg = malloc(sizeof(int32_t) * N);
        if (!tg) st = ee_fail(EE_ERR_NOMEM, "out of memory");
        else {
            for (int i = 0; i < N; i++) tg[i] = ee_argmax(z + (size_t)i * 2, 2);
            ee_margin_sign(N, T, tg, A);
            free(tg);
        }
    }
    free(z);
    if (st) free(A);
    else *out = A;
    if (!st && info) {
        info->forward += N;
        info->seconds += ee_now() - t0;
    }
    return st;
}
