/* kinds.c: the table of model kinds and what needs it to build a model:
 * ee_model_new (a kind registers its tensors) and the explainers built
 * from classifiers. Above model.c and the kinds (transformer.c, cnn.c,
 * mlp.c), which call nothing here: the kinds plug in through their
 * EeKindOps tables. */
#include "model_impl.h"

#include <stdlib.h>
#include <string.h>

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
    m->w = calloc(m->total ? m->total : 1, sizeof(float));
    if (!m->w) {
        size_t total = m->total;
        free(m);
        return ee_fail(EE_ERR_NOMEM, "out of memory allocating %zu weights", total);
    }
    *out = m;
    return EE_OK;
}

/* ---- explainers ------------------------------------------------------------- */
void ee_explainer_spec_paper(EeExplainerSpec *s)
{
    memset(s, 0, sizeof *s);
    s->head = EE_HEAD_FLAT;
    s->inputs = EE_INPUTS_TOKENS;
}

void ee_explainer_spec_default(EeExplainerSpec *s)
{
    memset(s, 0, sizeof *s);
    s->head = EE_HEAD_TOKEN;
    s->inputs = EE_INPUTS_GRADIENT_ENDS;
    s->attend_tokens = 1;
    s->zero_special = 1;
    s->efficiency = 1;
}

void ee_explainer_spec_for_maps(EeExplainerSpec *s, int shapley, int inputs_given)
{
    if (shapley && !inputs_given && s->inputs == EE_INPUTS_GRADIENT_ENDS) s->inputs = EE_INPUTS_OCCLUSION;
}

EeStatus ee_model_make_explainer(const EeModel *clf, EeHead head, uint64_t seed, EeModel **out)
{
    EeExplainerSpec s;
    ee_explainer_spec_paper(&s);
    s.head = head;
    return ee_explainer_new(clf, &s, seed, out);
}

EeStatus ee_explainer_new(const EeModel *clf, const EeExplainerSpec *spec, uint64_t seed,
                          EeModel **out)
{
    *out = NULL;
    if (clf->cfg.head != EE_HEAD_CLASSIFIER)
        return ee_fail(EE_ERR_MODEL, "an explainer is built from a classifier, not from an explainer");
    if (clf->cfg.kind == EE_KIND_MLP)
        return ee_fail(EE_ERR_UNSUPPORTED, "explainers are defined for token models (transformer, cnn), not mlp");
    if (spec->head != EE_HEAD_FLAT && spec->head != EE_HEAD_TOKEN)
        return ee_fail(EE_ERR_INPUT, "explainer head must be 'flat' or 'token'");
    EeConfig cfg = clf->cfg;
    cfg.head = spec->head;
    cfg.inputs = spec->inputs;
    cfg.attend_tokens = spec->attend_tokens != 0;
    cfg.zero_special = spec->zero_special != 0;
    cfg.efficiency = spec->efficiency != 0;
    EeModel *m;
    EeStatus st = ee_model_new(&cfg, &m);
    if (st) return st;
    ee_model_init(m, seed);
    /* Copy every tensor that the classifier has under the same name: the
     * embedding module and the encoder. The head is new. */
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        int j = ee_model_find_param(clf, p->group, p->index, p->field);
        if (j >= 0 && clf->p[j].count == p->count && strncmp(p->field, "head_", 5) != 0 &&
            strncmp(p->field, "feat_", 5) != 0)
            memcpy(m->w + p->offset, clf->w + clf->p[j].offset, sizeof(float) * p->count);
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
