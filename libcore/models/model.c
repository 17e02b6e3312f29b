/* model.c: model configuration, the parameter table with its layout
 * conversions and views, initialisation, and the check of inputs: what
 * the kinds (transformer.c, cnn.c, mlp.c) build on. It calls no kind:
 * kinds.c picks a kind's operations and builds models and explainers with
 * them; runs are in run.c, prediction in predict.c (above run.c). */
#include "model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- configuration ------------------------------------------------------ */
const char *const ee_kind_names[EE_KIND_COUNT] = {"transformer", "cnn", "mlp"};
const char *const ee_head_names[EE_HEAD_COUNT] = {"classifier", "flat", "token"};

const char *ee_kind_name(EeKind k) { return (unsigned)k < EE_KIND_COUNT ? ee_kind_names[k] : "?"; }
const char *ee_head_name(EeHead h) { return (unsigned)h < EE_HEAD_COUNT ? ee_head_names[h] : "?"; }

const char *const ee_attend_names[EE_ATTEND_COUNT] = {"all", "tokens"};

int ee_head_from_name(const char *name, EeHead *h)
{
    for (int i = 0; i < EE_HEAD_COUNT; i++)
        if (name && strcmp(name, ee_head_names[i]) == 0) { *h = (EeHead)i; return 1; }
    return 0;
}

int ee_kind_from_name(const char *name, EeKind *k)
{
    for (int i = 0; i < EE_KIND_COUNT; i++)
        if (name && strcmp(name, ee_kind_names[i]) == 0) { *k = (EeKind)i; return 1; }
    return 0;
}

int ee_is_token_model(const EeConfig *cfg) { return cfg->kind != EE_KIND_MLP; }

const char *const ee_inputs_names[EE_INPUTS_COUNT] = {"tokens", "gradient", "gradient_vector", "gradient_ends",
                                                        "occlusion", "path", "attention", "attention_top"};
const char *const ee_freeze_names[EE_FREEZE_COUNT] = {"none", "embeddings", "encoder"};
const char *ee_inputs_name(EeInputs i) { return (unsigned)i < EE_INPUTS_COUNT ? ee_inputs_names[i] : "?"; }
int ee_inputs_from_name(const char *name, EeInputs *i)
{
    for (int k = 0; k < EE_INPUTS_COUNT; k++)
        if (name && strcmp(name, ee_inputs_names[k]) == 0) { *i = (EeInputs)k; return 1; }
    return 0;
}

int ee_config_features(const EeConfig *cfg)
{
    if (cfg->head == EE_HEAD_CLASSIFIER) return 0;
    switch (cfg->inputs) {
    case EE_INPUTS_GRADIENT: return 1;
    case EE_INPUTS_GRADIENT_VECTOR: return 1 + cfg->d;
    case EE_INPUTS_GRADIENT_ENDS: return 2;
    case EE_INPUTS_OCCLUSION: return 4;
    case EE_INPUTS_PATH: return 2 + EE_PATH_NODES;
    case EE_INPUTS_ATTENTION: return 2 + cfg->heads + cfg->layers * cfg->heads;
    case EE_INPUTS_ATTENTION_TOP: return 1 + 2 * cfg->heads;
    default: return 0;
    }
}

int ee_config_reads_classifier(const EeConfig *cfg)
{
    return cfg->head != EE_HEAD_CLASSIFIER && (ee_config_features(cfg) || cfg->margin);
}

int ee_config_outputs(const EeConfig *cfg)
{
    /* a feature-vector explainer (mlp, head flat) has one output per player,
     * held in classes */
    return cfg->head == EE_HEAD_CLASSIFIER || cfg->kind == EE_KIND_MLP ? cfg->classes : cfg->T;
}

int ee_config_homogeneous(const EeConfig *cfg)
{
    return cfg->head == EE_HEAD_CLASSIFIER && !cfg->bias &&
           (cfg->kind == EE_KIND_CNN || cfg->kind == EE_KIND_MLP);
}

void ee_config_defaults(EeConfig *cfg, EeKind kind)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = kind;
    cfg->head = EE_HEAD_CLASSIFIER;
    cfg->bias = 1;
    switch (kind) {
    case EE_KIND_TRANSFORMER:
        cfg->d = 64; cfg->heads = 4; cfg->layers = 2; cfg->ffn = 256;
        break;
    case EE_KIND_CNN:
        cfg->d = 64; cfg->filters = 100; cfg->nwidths = 3;
        cfg->widths[0] = 3; cfg->widths[1] = 4; cfg->widths[2] = 5;
        break;
    case EE_KIND_MLP:
        cfg->nhidden = 1; cfg->hidden[0] = 64;
        break;
    }
}

#define CHECK_RANGE(v, lo, hi, what)                                                   \
    do {                                                                               \
        if ((v) < (lo) || (v) > (hi))                                                  \
            return ee_fail(EE_ERR_MODEL, "%s must be in [%d, %d], got %d", what, (lo), \
                           (hi), (v));                                                 \
    } while (0)

/* Every weight of a configuration (in double: the sizes may be hostile). */
static double config_weights(const EeConfig *c)
{
    double d = c->d, w = 0;
    switch (c->kind) {
    case EE_KIND_TRANSFORMER:
        w = (double)c->vocab * d + (double)c->T * d + 2 * d;
        w += (double)c->layers * (4 * d * d + 9 * d + 2 * d * c->ffn + c->ffn);
        if (c->head == EE_HEAD_CLASSIFIER) w += d * d + d + d * c->classes + c->classes;
        else if (c->head == EE_HEAD_FLAT) w += (double)c->T * d * c->T + c->T;
        else w += d + 1;
        break;
    case EE_KIND_CNN: {
        /* the classifier's Wc, bc or the token head's head_W, head_b */
        double outs = c->head == EE_HEAD_CLASSIFIER ? c->classes : 1;
        w = (double)c->vocab * d + (double)c->nwidths * c->filters * (outs + c->bias);
        for (int k = 0; k < c->nwidths && k < EE_MAX_WIDTHS; k++) w += (double)c->widths[k] * d * c->filters;
        w += c->head != EE_HEAD_CLASSIFIER || c->bias ? outs : 0;
        break;
    }
    case EE_KIND_MLP: {
        double prev = c->D;
        for (int i = 0; i <= c->nhidden && i <= EE_MAX_HIDDEN; i++) {
            double next = i < c->nhidden ? c->hidden[i] : c->classes;
            w += prev * next + (c->bias ? next : 0);
            prev = next;
        }
        break;
    }
    }
    return w;
}

EeStatus ee_config_check(const EeConfig *c)
{
    if ((unsigned)c->kind > EE_KIND_MLP) return ee_fail(EE_ERR_MODEL, "unknown model kind %d", c->kind);
    if ((unsigned)c->head > EE_HEAD_TOKEN) return ee_fail(EE_ERR_MODEL, "unknown head %d", c->head);
    /* explainers: the transformer's heads, the cnn's token head, or an mlp
     * with head 'flat' (the explainer of a function of feature vectors: D
     * features in, one attribution per player out, nothing else to its
     * design) */
    int fexpl = c->head != EE_HEAD_CLASSIFIER && c->kind == EE_KIND_MLP;
    if (c->head != EE_HEAD_CLASSIFIER && c->kind == EE_KIND_CNN) {
        /* the cnn has no attention: its explainer reads the non-PAD positions
         * (PAD ones as zeros, as the classifier's padding) and predicts
         * them, which is what attend 'tokens' means on the transformer */
        if (c->head != EE_HEAD_TOKEN)
            return ee_fail(EE_ERR_UNSUPPORTED, "the cnn's explainer has the token head only (the flat head, e.g. "
                           "design 'paper', is implemented on the transformer)");
        if (!c->attend_tokens)
            return ee_fail(EE_ERR_UNSUPPORTED, "'attend' applies to the transformer: the cnn's explainer reads the "
                           "non-PAD positions only (attend 'tokens')");
        if (c->inputs == EE_INPUTS_ATTENTION || c->inputs == EE_INPUTS_ATTENTION_TOP)
            return ee_fail(EE_ERR_UNSUPPORTED, "inputs '%s' read a transformer classifier's attention, not a cnn's",
                           ee_inputs_name(c->inputs));
    }
    if (fexpl && (c->head != EE_HEAD_FLAT || c->inputs || c->attend_tokens || c->zero_special || c->efficiency))
        return ee_fail(EE_ERR_MODEL, "an mlp explainer has head 'flat' and no inputs, attend, zero_special or efficiency");
    if ((unsigned)c->inputs >= EE_INPUTS_COUNT)
        return ee_fail(EE_ERR_MODEL, "unknown explainer inputs %d", (int)c->inputs);
    if (c->head == EE_HEAD_CLASSIFIER && (c->inputs || c->attend_tokens || c->zero_special || c->efficiency))
        return ee_fail(EE_ERR_MODEL, "inputs, attend, zero_special and efficiency apply to explainers only");
    if (c->margin && (c->margin != 1 || c->head == EE_HEAD_CLASSIFIER || fexpl || c->classes != 2))
        return ee_fail(EE_ERR_MODEL, "margin applies to the explainer of a binary token classifier (classes %d)",
                       c->classes);
    if (c->efficiency && (c->efficiency != 1 || !c->inputs || !c->zero_special))
        return ee_fail(EE_ERR_MODEL, "efficiency needs an explainer that reads the classifier (inputs 'gradient') "
                       "and fixes [CLS]/[SEP]/PAD at 0");
    if ((c->attend_tokens != 0 && c->attend_tokens != 1) || (c->zero_special != 0 && c->zero_special != 1))
        return ee_fail(EE_ERR_MODEL, "attend_tokens and zero_special must be 0 or 1");
    /* the flat head reads the state of every position, and an encoder that
     * attends to the tokens only leaves the PAD positions' states undefined */
    if (c->head == EE_HEAD_FLAT && c->attend_tokens)
        return ee_fail(EE_ERR_MODEL, "the flat head reads every position: it needs attend 'all'");
    CHECK_RANGE(c->classes, fexpl ? 1 : 2, 100000, fexpl ? "players (outputs)" : "classes");
    if (c->kind == EE_KIND_MLP) {
        CHECK_RANGE(c->D, 1, 1 << 24, "D");
        CHECK_RANGE(c->nhidden, 0, EE_MAX_HIDDEN, "number of hidden layers");
        for (int i = 0; i < c->nhidden; i++) CHECK_RANGE(c->hidden[i], 1, 1 << 16, "hidden width");
        if (config_weights(c) > 2e9)
            return ee_fail(EE_ERR_MODEL, "model too large (%.3g weights, at most 2e9)", config_weights(c));
        return EE_OK;
    }
    CHECK_RANGE(c->vocab, 5, 1 << 24, "vocab");
    CHECK_RANGE(c->T, 2, 1 << 16, "T");
    CHECK_RANGE(c->d, 1, 1 << 14, "d");
    if (c->kind == EE_KIND_TRANSFORMER) {
        if (!c->bias) return ee_fail(EE_ERR_MODEL, "the transformer has no bias-free variant");
        CHECK_RANGE(c->heads, 1, c->d, "heads");
        if (c->d % c->heads)
            return ee_fail(EE_ERR_MODEL, "d (%d) must be a multiple of heads (%d)", c->d, c->heads);
        CHECK_RANGE(c->layers, 0, 64, "layers");
        if ((c->inputs == EE_INPUTS_ATTENTION || c->inputs == EE_INPUTS_ATTENTION_TOP) && c->layers < 1)
            return ee_fail(EE_ERR_MODEL, "inputs '%s' read the classifier's last encoder layer: it needs "
                           "at least one", ee_inputs_name(c->inputs));
        CHECK_RANGE(c->ffn, 1, 1 << 16, "ffn");
    } else {
        CHECK_RANGE(c->filters, 1, 1 << 16, "filters");
        CHECK_RANGE(c->nwidths, 1, EE_MAX_WIDTHS, "number of widths");
        for (int i = 0; i < c->nwidths; i++) CHECK_RANGE(c->widths[i], 1, c->T, "width");
    }
    /* Guard against sizes whose products overflow the indexing (what fits
     * in memory is the gateways' budget, doc/DESIGN_NOTES.md). */
    double params = config_weights(c);
    if (params > 2e9) return ee_fail(EE_ERR_MODEL, "model too large (%.3g weights, at most 2e9)", params);
    return EE_OK;
}

/* ---- parameter table --------------------------------------------------------- */
static int add_param(EeModel *m, const char *group, int index, const char *field, int init,
                     int fan_in, int ndims, const int *dims, int nl, const int *ldims)
{
    if (m->np >= EE_MAX_PARAMS) {
        /* callers index p[] with the result: hand them a slot that the
         * refused model never uses, and let ee_model_new fail */
        m->overflow = 1;
        return m->np - 1;
    }
    EeParam *p = &m->p[m->np];
    memset(p, 0, sizeof *p);
    snprintf(p->group, sizeof p->group, "%s", group ? group : "");
    p->index = index;
    snprintf(p->field, sizeof p->field, "%s", field);
    p->ndims = ndims;
    p->nl = nl;
    p->count = 1;
    for (int i = 0; i < ndims; i++) { p->dims[i] = dims[i]; p->count *= (size_t)dims[i]; }
    for (int i = 0; i < nl; i++) p->ldims[i] = ldims[i];
    p->init = init;
    p->fan_in = fan_in;
    p->offset = m->total;
    m->total += p->count;
    return m->np++;
}

int ee_param_add(EeModel *m, const char *group, int index, const char *field, int init,
                 int fan_in, int ndims, int d0, int d1, int d2)
{
    int dims[3] = {d0, d1, d2};
    return add_param(m, group, index, field, init, fan_in, ndims, dims, ndims, dims);
}

int ee_param_add_logical(EeModel *m, const char *group, int index, const char *field,
                         int init, int fan_in, int d0, int d1, int l0, int l1, int l2)
{
    int dims[3] = {d0, d1, 1}, ld[3] = {l0, l1, l2};
    return add_param(m, group, index, field, init, fan_in, 2, dims, 3, ld);
}

void ee_model_free(EeModel *m)
{
    if (!m) return;
    ee_backend_cpu()->release(m->w);
    free(m);
}

const EeConfig *ee_model_config(const EeModel *m) { return &m->cfg; }
int ee_model_nparams(const EeModel *m) { return m->np; }
size_t ee_model_size(const EeModel *m) { return m->total; }

void ee_model_param_info(const EeModel *m, int i, EeParamInfo *info)
{
    const EeParam *p = &m->p[i];
    info->group = p->group[0] ? p->group : NULL;
    info->index = p->index;
    info->field = p->field;
    info->ndims = p->ndims;
    for (int k = 0; k < 3; k++) info->dims[k] = k < p->ndims ? p->dims[k] : 1;
    info->count = p->count;
}

int ee_model_find_param(const EeModel *m, const char *group, int index, const char *field)
{
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        if (strcmp(p->group, group ? group : "") == 0 && p->index == index &&
            strcmp(p->field, field) == 0)
            return i;
    }
    return -1;
}

const float *ee_param_view(const EeModel *m, const float *w, int i, const char *group, int index,
                           const char *field, int *fail)
{
    const EeParam *p = i >= 0 && i < m->np ? &m->p[i] : NULL;
    if (!p || strcmp(p->group, group ? group : "") != 0 || p->index != index || strcmp(p->field, field) != 0) {
        *fail = 1;
        return NULL;
    }
    return w + p->offset;
}

/* Copies one tensor between the exchange order (column-major over the
 * logical dims: the first index runs fastest) and the internal one
 * (row-major: the last runs fastest). Both are a0 rows by a1 a2 columns:
 * exchange column c = s1 + a1 s2 is internal column s1 a2 + s2, so the
 * copy is a transpose, done in square tiles: walking either order whole
 * strides the other by a row (the 20000 x 64 embedding of the glosses'
 * classifier took 20 ms a copy that way, a tenth of ee_explain's call on
 * 150 glosses; tiled, both sides stay in cache). to_internal: src is in
 * exchange order and dst internal, else the other way round. */
static void exchange_copy(const EeParam *p, const float *src, float *dst, int to_internal)
{
    enum { TILE = 32 };
    size_t a0 = (size_t)p->ldims[0], a1 = p->nl > 1 ? (size_t)p->ldims[1] : 1, a2 = p->nl > 2 ? (size_t)p->ldims[2] : 1;
    size_t cols = a1 * a2;
    for (size_t c0 = 0; c0 < cols; c0 += TILE)
        for (size_t r0 = 0; r0 < a0; r0 += TILE) {
            size_t c1 = c0 + TILE < cols ? c0 + TILE : cols, r1 = r0 + TILE < a0 ? r0 + TILE : a0;
            for (size_t c = c0; c < c1; c++) {
                size_t j = c % a1 * a2 + c / a1, k = c * a0; /* internal column, exchange column start */
                if (to_internal)
                    for (size_t r = r0; r < r1; r++) dst[r * cols + j] = src[k + r];
                else
                    for (size_t r = r0; r < r1; r++) dst[k + r] = src[r * cols + j];
            }
        }
}

EeStatus ee_param_set(EeModel *m, int i, const float *src, size_t count)
{
    if (i < 0 || i >= m->np) return ee_fail(EE_ERR_INPUT, "no parameter %d", i);
    EeParam *p = &m->p[i];
    if (count != p->count)
        return ee_fail(EE_ERR_MODEL, "%s%s%s has %zu elements, expected %zu", p->group,
                       p->group[0] ? "." : "", p->field, count, p->count);
    for (size_t k = 0; k < count; k++)
        if (!isfinite(src[k]))
            return ee_fail(EE_ERR_MODEL, "%s%s%s contains NaN or Inf (element %zu)", p->group,
                           p->group[0] ? "." : "", p->field, k + 1);
    if (p->pad_row) /* column-major V x d: row 0 is elements 0, V, 2V, ... */
        for (int c = 0; c < p->dims[1]; c++)
            if (src[(size_t)c * p->dims[0]] != 0.0f)
                return ee_fail(EE_ERR_MODEL, "%s: the [PAD] row (row 1) must be zero", p->field);
    exchange_copy(p, src, m->w + p->offset, 1);
    m->fp_known = 0; /* a remembered fingerprint (io/fingerprint.c) no longer holds */
    return EE_OK;
}

EeStatus ee_param_get(const EeModel *m, int i, float *dst, size_t count)
{
    if (i < 0 || i >= m->np) return ee_fail(EE_ERR_INPUT, "no parameter %d", i);
    const EeParam *p = &m->p[i];
    if (count != p->count) return ee_fail(EE_ERR_INPUT, "buffer size mismatch for %s", p->field);
    exchange_copy(p, m->w + p->offset, dst, 0);
    return EE_OK;
}

/* ---- initialisation ------------------------------------------------------ */
/* Each tensor draws from its own stream (seed, tensor index), so adding a
 * tensor never changes the others. Transformer weights follow BERT
 * (normal, std 0.02); cnn and mlp weights are uniform in +-1/sqrt(fan_in)
 * (PyTorch's default for linear and convolution layers); embeddings of the
 * cnn are normal with std 0.1. */
static void init_param(EeModel *m, int i, uint64_t seed)
{
    EeParam *p = &m->p[i];
    float *w = m->w + p->offset;
    EeRng r;
    ee_rng_stream(&r, seed, (uint64_t)i, 0x1417);
    switch (p->init) {
    case EE_INIT_ZERO:
        memset(w, 0, sizeof(float) * p->count);
        break;
    case EE_INIT_ONE:
        for (size_t k = 0; k < p->count; k++) w[k] = 1.0f;
        break;
    case EE_INIT_NORMAL: {
        double sd = m->cfg.kind == EE_KIND_TRANSFORMER ? 0.02 : 0.1;
        for (size_t k = 0; k < p->count; k++) w[k] = (float)(sd * ee_rng_normal(&r));
        break;
    }
    case EE_INIT_UNIFORM_FANIN: {
        double b = 1.0 / sqrt((double)(p->fan_in > 0 ? p->fan_in : 1));
        for (size_t k = 0; k < p->count; k++) w[k] = (float)(b * (2.0 * ee_rng_uniform(&r) - 1.0));
        break;
    }
    }
    if (p->pad_row)
        for (int c = 0; c < p->dims[1]; c++) w[c] = 0.0f; /* row-major: row 0 */
}

void ee_model_init(EeModel *m, uint64_t seed)
{
    for (int i = 0; i < m->np; i++) init_param(m, i, seed);
}

/* ---- inputs ------------------------------------------------------------------ */
EeStatus ee_input_check(const EeModel *m, const EeInput *in)
{
    const EeConfig *c = &m->cfg;
    if (in->n < 0) return ee_fail(EE_ERR_INPUT, "negative number of rows");
    if (!ee_is_token_model(c)) {
        if (in->n && !in->x) return ee_fail(EE_ERR_INPUT, "dense input expected for an mlp");
        for (size_t k = 0; k < (size_t)in->n * c->D; k++)
            if (!isfinite(in->x[k]))
                return ee_fail(EE_ERR_INPUT, "X contains NaN or Inf at row %zu", k / c->D + 1);
        return EE_OK;
    }
    if (in->n && !in->ids) return ee_fail(EE_ERR_INPUT, "token ids expected");
    for (int i = 0; i < in->n; i++) {
        const int32_t *row = in->ids + (size_t)i * c->T;
        int any = 0;
        for (int t = 0; t < c->T; t++) {
            if (row[t] < 0 || row[t] >= c->vocab)
                return ee_fail(EE_ERR_INPUT,
                               "token id %d at row %d, column %d is outside the vocabulary 1..%d",
                               row[t] + 1, i + 1, t + 1, c->vocab);
            int att = in->mask ? in->mask[(size_t)i * c->T + t] != 0 : row[t] != EE_PAD;
            any |= att;
        }
        if (c->head != EE_HEAD_CLASSIFIER) { /* explainers set their own masks */
            int tokens = 0;
            for (int t = 0; t < c->T; t++) tokens |= row[t] != EE_PAD;
            if (c->attend_tokens && !tokens)
                return ee_fail(EE_ERR_INPUT, "row %d is all PAD: this explainer attends to tokens only", i + 1);
            continue;
        }
        if (!any) return ee_fail(EE_ERR_INPUT, "row %d attends to no position (all PAD or mask all false)", i + 1);
        if (c->kind == EE_KIND_TRANSFORMER) {
            int att0 = in->mask ? in->mask[(size_t)i * c->T] != 0 : row[0] != EE_PAD;
            if (!att0)
                return ee_fail(EE_ERR_INPUT, "row %d: position 1 ([CLS], pooled) must be attended", i + 1);
        }
    }
    int k = ee_config_features(c);
    if (k && in->n) {
        if (!in->feats)
            return ee_fail(EE_ERR_INPUT, "this explainer reads %s features of the classifier: "
                           "compute them with ee_explainer_features (ee_explain does)",
                           ee_inputs_name(c->inputs));
        for (size_t q = 0; q < (size_t)in->n * c->T * k; q++)
            if (!isfinite(in->feats[q]))
                return ee_fail(EE_ERR_INPUT, "explainer features contain NaN or Inf at row %zu",
                               q / ((size_t)c->T * k) + 1);
    }
    return EE_OK;
}

/* Number of real (non-special) tokens of a row (ee.h): here, below the
 * samplers and the trainer that both count them. */
int ee_count_real(const int32_t *ids, int T)
{
    int n = 0;
    for (int t = 0; t < T; t++) n += !EE_IS_SPECIAL(ids[t]);
    return n;
}
