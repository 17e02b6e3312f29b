/* cnn.c: the Kim-style text CNN of MODELS.md: token embeddings, one
 * convolution per width (cross-correlation, zero padding at the end),
 * ReLU, max over the valid positions, a linear classifier. bias = false
 * removes every bias and makes the network nonnegatively homogeneous. */
#include "layers.h"
#include "model_impl.h"

#include <stdlib.h>
#include <string.h>

enum { P_ETOK = 0, P_CONV };

/* Parameter index of conv k's weights and bias (bias only with cfg->bias). */
static int conv_w(const EeConfig *c, int k) { return P_CONV + k * (c->bias ? 2 : 1); }
static int conv_b(const EeConfig *c, int k) { return c->bias ? conv_w(c, k) + 1 : -1; }
static int head0(const EeConfig *c) { return P_CONV + c->nwidths * (c->bias ? 2 : 1); }

static void cnn_register(EeModel *m)
{
    const EeConfig *c = &m->cfg;
    int d = c->d, F = c->filters, K = c->nwidths;
    int e = ee_param_add(m, NULL, 0, "E_tok", EE_INIT_NORMAL, 0, 2, c->vocab, d, 1);
    m->p[e].pad_row = 1;
    for (int k = 0; k < K; k++) {
        int w = c->widths[k];
        ee_param_add(m, "conv", k, "W", EE_INIT_UNIFORM_FANIN, w * d, 3, w, d, F);
        if (c->bias) ee_param_add(m, "conv", k, "b", EE_INIT_UNIFORM_FANIN, w * d, 2, 1, F, 1);
    }
    ee_param_add(m, NULL, 0, "Wc", EE_INIT_UNIFORM_FANIN, K * F, 2, K * F, c->classes, 1);
    if (c->bias) ee_param_add(m, NULL, 0, "bc", EE_INIT_UNIFORM_FANIN, K * F, 2, 1, c->classes, 1);
}

typedef struct {
    float *out[EE_MAX_WIDTHS];     /* conv pre-activations [B][T][F] */
    int32_t *arg[EE_MAX_WIDTHS];   /* max-over-time winners [B][F] */
    float *pooled;                 /* [B][K*F] */
    uint8_t *keep;                 /* dropout on pooled */
    float *dpooled;
} CnnAct;

static EeStatus cnn_alloc(EeRun *r)
{
    const EeConfig *c = &r->m->cfg;
    CnnAct *a = calloc(1, sizeof *a);
    if (!a) return EE_ERR_NOMEM;
    r->kind = a;
    size_t B = r->Bmax, T = c->T, F = c->filters, KF = (size_t)c->nwidths * F;
    int fail = 0;
    for (int k = 0; k < c->nwidths; k++) {
        a->out[k] = ee_run_alloc(r, B * T * F * sizeof(float), &fail);
        a->arg[k] = ee_run_alloc(r, B * F * sizeof(int32_t), &fail);
    }
    a->pooled = ee_run_alloc(r, B * KF * sizeof(float), &fail);
    if (r->keep) {
        a->keep = ee_run_alloc(r, B * KF, &fail);
        a->dpooled = ee_run_alloc(r, B * KF * sizeof(float), &fail);
    }
    return fail ? EE_ERR_NOMEM : EE_OK;
}

static void cnn_release(EeRun *r)
{
    CnnAct *a = r->kind;
    for (int k = 0; k < r->m->cfg.nwidths; k++) {
        r->be->release(a->out[k]);
        r->be->release(a->arg[k]);
    }
    r->be->release(a->pooled);
    r->be->release(a->keep);
    r->be->release(a->dpooled);
    free(a);
    r->kind = NULL;
}

static void cnn_embed(EeRun *r, int B)
{
    const EeConfig *c = &r->m->cfg;
    r->be->embed_fwd(r->ids, ee_run_w(r, P_ETOK), NULL, r->e, B, r->T, c->d);
}

static void cnn_forward(EeRun *r, int B, int train)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, KF = c->nwidths * F;
    for (int k = 0; k < c->nwidths; k++) {
        int b = conv_b(c, k);
        be->conv_fwd(r->e, ee_run_w(r, conv_w(c, k)), b >= 0 ? ee_run_w(r, b) : NULL, a->out[k], B,
                     r->T, c->d, c->widths[k], F);
        be->maxpool_fwd(a->out[k], r->mask, a->pooled, a->arg[k], B, r->T, F, KF, k * F);
    }
    if (r->dropout_on > 0)
        be->dropout_fwd(a->pooled, a->keep, (size_t)B * KF, r->dropout_on, ee_hash64(r->dropout_seed));
    int h = head0(c);
    ee_linear_fwd(be, a->pooled, ee_run_w(r, h), c->bias ? ee_run_w(r, h + 1) : NULL, r->out, B,
                  KF, c->classes);
}

static void cnn_backward(EeRun *r, int B, const float *dout, int need_de, int param_grads)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, KF = c->nwidths * F, T = r->T, d = c->d;
    int pg = param_grads && r->g;
    int h = head0(c);
    ee_linear_bwd(be, a->pooled, ee_run_w(r, h), dout, a->dpooled, 0, pg ? ee_run_g(r, h) : NULL,
                  pg && c->bias ? ee_run_g(r, h + 1) : NULL, B, KF, c->classes);
    if (r->dropout_on > 0) be->dropout_bwd(a->dpooled, a->keep, (size_t)B * KF, r->dropout_on);
    if (need_de) be->zero(r->de, sizeof(float) * (size_t)B * T * d);
    for (int k = 0; k < c->nwidths; k++) {
        int b = conv_b(c, k);
        /* only each filter's winning window passes a gradient */
        be->conv_pool_bwd(r->e, ee_run_w(r, conv_w(c, k)), a->dpooled, a->arg[k],
                          need_de ? r->de : NULL, pg ? ee_run_g(r, conv_w(c, k)) : NULL,
                          pg && b >= 0 ? ee_run_g(r, b) : NULL, B, T, d, c->widths[k], F, KF, k * F);
    }
}

static void cnn_embed_backward(EeRun *r, int B)
{
    const EeConfig *c = &r->m->cfg;
    if (!r->g) return;
    r->be->embed_bwd(r->ids, r->de, ee_run_g(r, P_ETOK), NULL, B, r->T, c->d);
}

/* DeepLIFT's backward pass: the classifier passes the multipliers of the
 * pooled features on; each width's ReLU and max over time rescale them
 * (pool_rescale_bwd, from the pre-activations of the inputs, rows [0, B),
 * and of their references, rows [B, 2B)) into multipliers of its
 * convolution's outputs, nonzero at the two maxima of each filter; the
 * convolution, linear, passes them on to e from those windows alone. */
static EeStatus cnn_deeplift_backward(EeRun *r, int B, const float *dout)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, KF = c->nwidths * F, T = r->T, d = c->d, h = head0(c);
    if (!a->dpooled) return ee_fail(EE_ERR_INPUT, "DeepLIFT needs a run that keeps its activations");
    int32_t *at = be->alloc(sizeof(int32_t) * 2 * (size_t)B * F);
    float *mult = be->alloc(sizeof(float) * 2 * (size_t)B * KF);
    if (!at || !mult) {
        be->release(at);
        be->release(mult);
        return ee_fail(EE_ERR_NOMEM, "out of memory for DeepLIFT's multipliers (%d rows)", B);
    }
    ee_linear_bwd(be, NULL, ee_run_w(r, h), dout, a->dpooled, 0, NULL, NULL, B, KF, c->classes);
    be->zero(r->de, sizeof(float) * (size_t)B * T * d);
    for (int k = 0; k < c->nwidths; k++) {
        be->pool_rescale_bwd(a->out[k], a->out[k] + (size_t)B * T * F, r->mask, a->dpooled, at, mult, B, T, F, KF, k * F);
        for (int p = 0; p < 2; p++) /* the input's maxima, then the reference's */
            be->conv_pool_bwd(r->e, ee_run_w(r, conv_w(c, k)), mult + (size_t)p * B * KF, at + (size_t)p * B * F, r->de,
                              NULL, NULL, B, T, d, c->widths[k], F, KF, k * F);
    }
    be->release(at);
    be->release(mult);
    return EE_OK;
}

EeStatus ee_cnn_view(const EeModel *m, const float *w, EeCnnView *v)
{
    const EeConfig *c = &m->cfg;
    memset(v, 0, sizeof *v);
    if (c->kind != EE_KIND_CNN || c->head != EE_HEAD_CLASSIFIER)
        return ee_fail(EE_ERR_MODEL, "a cnn classifier's weights asked of a %s", ee_kind_name(c->kind));
    v->K = c->nwidths;
    v->F = c->filters;
    v->d = c->d;
    v->C = c->classes;
    v->widths = c->widths;
    int fail = 0, h = head0(c);
    v->E = ee_param_view(m, w, P_ETOK, NULL, 0, "E_tok", &fail);
    for (int k = 0; k < c->nwidths; k++) {
        v->W[k] = ee_param_view(m, w, conv_w(c, k), "conv", k, "W", &fail);
        if (c->bias) v->b[k] = ee_param_view(m, w, conv_b(c, k), "conv", k, "b", &fail);
    }
    v->Wc = ee_param_view(m, w, h, NULL, 0, "Wc", &fail);
    if (c->bias) v->bc = ee_param_view(m, w, h + 1, NULL, 0, "bc", &fail);
    if (fail) return ee_fail(EE_ERR_MODEL, "a cnn whose tensors are not where its kind registers them");
    return EE_OK;
}

const EeKindOps ee_cnn_ops = {
    .register_params = cnn_register,
    .alloc = cnn_alloc,
    .release = cnn_release,
    .embed = cnn_embed,
    .forward = cnn_forward,
    .backward = cnn_backward,
    .embed_backward = cnn_embed_backward,
    .deeplift_backward = cnn_deeplift_backward,
};
