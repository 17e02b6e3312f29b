/* spec.c: the Empirical Explainer's design in one place: the designs and
 * their defaults, the names the front ends' options use, the rule that
 * picks the inputs from the target maps, the outputs and efficiency
 * decided from the maps (ee_explainer_design: the gateways and cli/ee
 * hand it what the caller named and nothing else), and the explainer
 * built from its classifier (ee_explainer_new). doc/FIGURE5_LOG.md has the
 * measurements behind the default design. */
#include "explainer.h"

#include <stdlib.h>
#include <string.h>

const char *const ee_design_names[EE_DESIGN_COUNT] = {"default", "paper"};
const char *const ee_outputs_names[EE_OUTPUTS_COUNT] = {"auto", "tokens", "all"};

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

void ee_explainer_choices_init(EeExplainerChoices *c)
{
    c->design = EE_DESIGN_DEFAULT;
    c->head = c->inputs = c->attend = c->outputs = c->efficiency = -1;
    c->margin = 0;
    c->layers = 0;
}

/* 'outputs' 'auto': 'tokens' when the training maps are 0 at [CLS], [SEP]
 * and PAD (the pad baseline gives them 0), else 'all' (e.g. IG with the
 * zero baseline credits [CLS] and [SEP]); no maps (the kernel loss trains
 * on Shapley coalition values with the pad baseline): 'tokens'. */
static int maps_zero_special(const int32_t *ids, const float *A, long n, int T)
{
    if (!A) return 1;
    for (size_t q = 0; q < (size_t)n * T; q++)
        if (EE_IS_SPECIAL(ids[q]) && A[q] != 0.0f) return 0;
    return 1;
}

EeStatus ee_explainer_design(const EeExplainerChoices *c, EeMapsSource maps, const int32_t *ids, const float *A,
                             long n, int T, EeExplainerSpec *s)
{
    if ((unsigned)c->design >= EE_DESIGN_COUNT) return ee_fail(EE_ERR_INPUT, "unknown explainer design %d", c->design);
    if (c->head != -1 && c->head != EE_HEAD_FLAT && c->head != EE_HEAD_TOKEN)
        return ee_fail(EE_ERR_INPUT, "explainer head must be 'flat' or 'token'");
    if (c->inputs < -1 || c->inputs >= EE_INPUTS_COUNT)
        return ee_fail(EE_ERR_INPUT, "unknown explainer inputs %d", c->inputs);
    if (c->attend < -1 || c->attend >= EE_ATTEND_COUNT || c->outputs < -1 || c->outputs >= EE_OUTPUTS_COUNT ||
        c->efficiency < -1 || c->efficiency > 1 || c->margin < 0 || c->margin > 1)
        return ee_fail(EE_ERR_INPUT, "explainer 'attend', 'outputs', 'efficiency' or 'margin' out of range");
    if (c->layers < 0) return ee_fail(EE_ERR_INPUT, "explainer 'layers' must be at least 1 (%d)", c->layers);
    if (c->design == EE_DESIGN_PAPER) ee_explainer_spec_paper(s);
    else ee_explainer_spec_default(s);
    if (c->head != -1) s->head = (EeHead)c->head;
    if (s->head == EE_HEAD_FLAT) s->attend_tokens = 0; /* it reads every position */
    if (c->inputs != -1) s->inputs = (EeInputs)c->inputs;
    if (c->attend != -1) s->attend_tokens = c->attend;
    ee_explainer_spec_for_maps(s, maps == EE_MAPS_SV, c->inputs != -1);
    /* the design's outputs: 'auto' where it zeroes the special tokens, else 'all' */
    int outputs = c->outputs != -1 ? c->outputs : s->zero_special ? EE_OUTPUTS_AUTO : EE_OUTPUTS_ALL;
    s->zero_special = outputs == EE_OUTPUTS_AUTO ? maps_zero_special(ids, A, n, T) : outputs == EE_OUTPUTS_TOKENS;
    /* efficiency: by default where it applies (features, pad-baseline maps) */
    s->efficiency = c->efficiency != -1 ? c->efficiency : s->efficiency && s->inputs && s->zero_special;
    s->layers = c->layers;
    s->margin = c->margin;
    return EE_OK;
}

EeStatus ee_model_make_explainer(const EeModel *clf, EeHead head, uint64_t seed, EeModel **out)
{
    EeExplainerSpec s;
    ee_explainer_spec_paper(&s);
    s.head = head;
    return ee_explainer_new(clf, &s, seed, out);
}

/* The configuration of clf's explainer of design spec (ee_config_check
 * decides whether the kind has it). */
static EeStatus explainer_config(const EeModel *clf, const EeExplainerSpec *spec, EeConfig *cfg)
{
    if (clf->cfg.head != EE_HEAD_CLASSIFIER)
        return ee_fail(EE_ERR_MODEL, "an explainer is built from a classifier, not from an explainer");
    if (clf->cfg.kind == EE_KIND_MLP)
        return ee_fail(EE_ERR_UNSUPPORTED, "explainers are defined for token models (transformer, cnn), not mlp");
    if (spec->head != EE_HEAD_FLAT && spec->head != EE_HEAD_TOKEN)
        return ee_fail(EE_ERR_INPUT, "explainer head must be 'flat' or 'token'");
    if (spec->layers < 0) return ee_fail(EE_ERR_INPUT, "explainer 'layers' must be at least 1 (%d)", spec->layers);
    if (spec->layers && clf->cfg.kind != EE_KIND_TRANSFORMER)
        return ee_fail(EE_ERR_UNSUPPORTED, "explainer 'layers' applies to a transformer's explainer (its encoder's layers)");
    if (spec->layers > clf->cfg.layers)
        return ee_fail(EE_ERR_INPUT, "explainer 'layers' %d: the explainer keeps the first of its classifier's %d layers",
                       spec->layers, clf->cfg.layers);
    *cfg = clf->cfg;
    if (spec->layers) cfg->layers = spec->layers;
    cfg->head = spec->head;
    cfg->inputs = spec->inputs;
    cfg->attend_tokens = spec->attend_tokens != 0;
    cfg->zero_special = spec->zero_special != 0;
    cfg->efficiency = spec->efficiency != 0;
    cfg->margin = spec->margin != 0;
    if (cfg->margin && clf->cfg.classes != 2)
        return ee_fail(EE_ERR_INPUT, "'margin' explains a binary classifier (this one has %d classes)",
                       clf->cfg.classes);
    return EE_OK;
}

EeStatus ee_explainer_check_choices(const EeModel *clf, const EeExplainerChoices *c, EeMapsSource maps)
{
    EeExplainerSpec s;
    EeConfig cfg;
    EeStatus st = ee_explainer_design(c, maps, NULL, NULL, 0, clf->cfg.T, &s);
    if (!st) st = explainer_config(clf, &s, &cfg);
    if (!st) st = ee_config_check(&cfg);
    return st;
}

EeStatus ee_explainer_new(const EeModel *clf, const EeExplainerSpec *spec, uint64_t seed,
                          EeModel **out)
{
    *out = NULL;
    EeConfig cfg;
    EeStatus st = explainer_config(clf, spec, &cfg);
    if (st) return st;
    EeModel *m;
    st = ee_model_new(&cfg, &m);
    if (st) return st;
    ee_model_init(m, seed);
    /* Copy every tensor that the classifier has under the same name: the
     * embedding module and the encoder (its first spec->layers layers).
     * The head is new. */
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
