/* kinds.c: the table of model kinds and what needs it to build a model:
 * ee_model_new (a kind registers its tensors) and the explainers of
 * functions of feature vectors (a token model's explainer is built in
 * libcore/explainer/spec.c). Above model.c and the kinds (transformer.c,
 * cnn.c, mlp.c), which call nothing here: the kinds plug in through their
 * EeKindOps tables. */
#include "model_impl.h"

#include <stdlib.h>

const EeKindOps *ee_kind_ops(EeKind k)
{
    switch (k) {
    case EE_KIND_TRANSFORMER: return &ee_transformer_ops;
    case EE_KIND_CNN: return &ee_cnn_ops;
    case EE_KIND_MLP: return &ee_mlp_ops;
    }
    return NULL;
}

EeStatus ee_model_new(const EeConfig *cfg, EeModel **out)
{
    *out = NULL;
    EeStatus st = ee_config_check(cfg);
    if (st) return st;
    EeModel *m = calloc(1, sizeof *m);
    if (!m) return ee_fail(EE_ERR_NOMEM, "out of memory allocating a model");
    m->cfg = *cfg;
    ee_kind_ops(cfg->kind)->register_params(m);
    if (m->overflow) {
        free(m);
        return ee_fail(EE_ERR_MODEL, "a %s with these sizes has more than %d tensors", ee_kind_name(cfg->kind),
                       EE_MAX_PARAMS);
    }
    /* a CPU backend buffer (its kept mappings), not calloc: every call of a
     * front end builds its models afresh, and in a process whose malloc
     * maps such blocks (cli/ee, a C program; Octave has mostly raised the
     * threshold) the first touch of a fresh 5.5 MB weight array (the
     * glosses' classifier) faulted in 1,400 pages: 17 ms a load, against
     * 1.5 ms now (issue 19) */
    m->w = ee_backend_cpu()->alloc(sizeof(float) * (m->total ? m->total : 1)); /* zero-filled */
    if (!m->w) {
        size_t total = m->total;
        free(m);
        return ee_fail(EE_ERR_NOMEM, "out of memory allocating %zu weights", total);
    }
    *out = m;
    return EE_OK;
}

/* ---- explainers of functions of feature vectors ------------------------------ */
int ee_is_feature_explainer(const EeConfig *cfg)
{
    return cfg->kind == EE_KIND_MLP && cfg->head != EE_HEAD_CLASSIFIER;
}

EeStatus ee_feature_explainer_new(int D, int P, int nhidden, const int *hidden, uint64_t seed, EeModel **out)
{
    *out = NULL;
    if (nhidden < 0 || nhidden > EE_MAX_HIDDEN || (nhidden && !hidden))
        return ee_fail(EE_ERR_INPUT, "an mlp explainer has 0 to %d hidden layers, got %d", EE_MAX_HIDDEN, nhidden);
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_MLP);
    cfg.head = EE_HEAD_FLAT;
    cfg.D = D;
    cfg.classes = P;
    cfg.nhidden = nhidden;
    for (int i = 0; i < nhidden; i++) cfg.hidden[i] = hidden[i];
    EeModel *m;
    EeStatus st = ee_model_new(&cfg, &m); /* checks D, P and the widths */
    if (st) return st;
    ee_model_init(m, seed);
    *out = m;
    return EE_OK;
}
