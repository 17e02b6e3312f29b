/* tf_cache.c: the transformer on the CPU with its layer-0 projections
 * reused (attr_common.h): a coalition takes each position's token from the
 * input or the baseline, so the embedding output and the first layer's q,
 * k, v of every position are one of two rows computed once per sequence; a
 * pass copies them in and starts at the first attention. Shared by
 * Shapley sampling (sv.c) and the coalition values (kernel_values.c). */
#include "attr_common.h"
#include "../models/layers.h"

#include <stdlib.h>
#include <string.h>

size_t ee_tf_cache_floats(const EeConfig *c) { return (size_t)c->T * c->d * EE_TFC_N; }

int ee_tf_cache_applies_to(const EeConfig *c, int host_memory, const EeAttrOptions *o)
{
    return c->kind == EE_KIND_TRANSFORMER && host_memory && !o->full_passes && c->layers > 1;
}

int ee_tf_cache_applies(const EeRun *r, const EeAttrOptions *o)
{
    return ee_tf_cache_applies_to(&r->m->cfg, r->be->host_memory, o);
}

EeStatus ee_tf_cache_fill(EeRun *r, const EeInput *in, const EeAttrOptions *o, int i, float *cache)
{
    EeModel *m = r->m;
    const EeConfig *c = &m->cfg;
    int T = c->T, d = c->d;
    size_t Td = (size_t)T * d;
    int32_t *ids = malloc(sizeof(int32_t) * T);
    uint8_t *mask = malloc((size_t)T);
    if (!ids || !mask) { free(ids); free(mask); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    memset(mask, 1, (size_t)T); /* the embedding module ignores the mask */
    EeStatus st = EE_OK;
    /* one row at a time, so that a run of any batch (even 1) can fill it;
     * a row's embedding is the same bits alone or beside another */
    for (int b = 0; b < 2 && !st; b++) {
        if (b == 0) memcpy(ids, in->ids + (size_t)i * T, sizeof(int32_t) * T);
        else ee_attr_row_baseline(m, in, o, i, ids);
        if (!(st = ee_run_set_input_len(r, ids, mask, NULL, 1, T))) {
            ee_run_embed(r, 1);
            memcpy(cache + (EE_TFC_EX + b) * Td, r->e, sizeof(float) * Td); /* EE_TFC_EX, EE_TFC_EB */
        }
    }
    free(ids);
    free(mask);
    if (st) return st;
    EeTfQkvView qkv;
    if ((st = ee_tf_qkv0_view(m, r->w, &qkv))) return st;
    /* both rows' projections in one product, read from the cache itself */
    for (int k = 0; k < 3; k++)
        ee_linear_fwd(r->be, cache + EE_TFC_EX * Td, qkv.W[k], qkv.b[k], cache + (EE_TFC_QX + 2 * k) * Td, 2 * T, d,
                      d);
    return EE_OK;
}

void ee_tf_cache_copy(const EeConfig *c, const EeInput *in, const float *const *cache, const int *row_i,
                      const int32_t *ids, int nb, int L, int parts, float *const *dst)
{
    int T = c->T, d = c->d;
    size_t Td = (size_t)T * d;
    /* megabytes per pass: copied by the whole team (the ops after it are) */
    #pragma omp parallel for schedule(static) if ((size_t)nb * L * d * parts > 262144)
    for (int j = 0; j < nb; j++) {
        const float *q = cache[j];
        const int32_t *x = in->ids + (size_t)row_i[j] * T, *row = ids + (size_t)j * T;
        for (int t = 0; t < L; t++) {
            int from_x = row[t] == x[t];
            for (int k = 0; k < parts; k++)
                memcpy(dst[k] + ((size_t)j * L + t) * d, q + (2 * k + !from_x) * Td + (size_t)t * d,
                       sizeof(float) * d);
        }
    }
}

EeStatus ee_tf_cached_logits(EeRun *r, const EeInput *in, const float *const *cache, const int *row_i,
                             const int32_t *ids, const uint8_t *mask, int nb, float *out)
{
    const EeConfig *c = &r->m->cfg;
    int L = ee_run_needed_len(r, ids, mask, nb);
    EeStatus st = ee_run_set_input_len(r, ids, mask, NULL, nb, L);
    if (st) return st;
    float *dq, *dk, *dv;
    ee_tf_layer0_qkv(r, &dq, &dk, &dv);
    float *dst[4] = {r->e, dq, dk, dv};
    ee_tf_cache_copy(c, in, cache, row_i, ids, nb, L, 4, dst);
    r->qkv0_given = 1;
    ee_run_forward(r, nb, 0);
    r->be->download(out, r->out, sizeof(float) * (size_t)nb * c->classes);
    return EE_OK;
}
