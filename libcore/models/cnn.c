/* cnn.c: the Kim-style text CNN of MODELS.md: token embeddings, one
 * convolution per width (cross-correlation, zero padding at the end),
 * ReLU, max over the valid positions, a linear classifier. bias = false
 * removes every bias and makes the network nonnegatively homogeneous.
 * Its explainer (MODELS.md "Empirical Explainer on the cnn") keeps the
 * embedding and the convolutions and replaces the max over time and the
 * classifier by the token head: position t's output reads H(t), the
 * ReLU'd windows starting at t of every width (the values the classifier
 * max-pools), plus the explainer features as the transformer's head adds
 * them. */
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
    if (c->head == EE_HEAD_CLASSIFIER) {
        ee_param_add(m, NULL, 0, "Wc", EE_INIT_UNIFORM_FANIN, K * F, 2, K * F, c->classes, 1);
        if (c->bias) ee_param_add(m, NULL, 0, "bc", EE_INIT_UNIFORM_FANIN, K * F, 2, 1, c->classes, 1);
        return;
    }
    /* the token head (ee_config_check refuses the flat one) has its bias
     * whatever cfg->bias says: that option is the classifier's */
    ee_param_add(m, NULL, 0, "head_W", EE_INIT_UNIFORM_FANIN, K * F, 2, K * F, 1, 1);
    ee_param_add(m, NULL, 0, "head_b", EE_INIT_ZERO, 0, 2, 1, 1, 1);
    /* the features as on the transformer (transformer.c): divided by the
     * frozen feat_scale, added to the convolutions' input (F feat_W) and to
     * the output (F feat_v), both zero at the start */
    int k = ee_config_features(c);
    if (k) {
        int sc = ee_param_add(m, NULL, 0, "feat_scale", EE_INIT_ONE, 0, 2, 1, k, 1);
        m->p[sc].frozen = 1;
        ee_param_add(m, NULL, 0, "feat_W", EE_INIT_ZERO, 0, 2, k, d, 1);
        ee_param_add(m, NULL, 0, "feat_v", EE_INIT_ZERO, 0, 2, k, 1, 1);
    }
}

/* The explainer's tensors after the convolutions: head_W, head_b, then
 * feat_scale, feat_W, feat_v with features (-1 without). */
static int feat_W(const EeConfig *c) { return ee_config_features(c) ? head0(c) + 3 : -1; }
static int feat_v(const EeConfig *c) { return ee_config_features(c) ? head0(c) + 4 : -1; }

typedef struct {
    float *out[EE_MAX_WIDTHS];     /* conv pre-activations [B][T][F]; the
                                      explainer's H: ReLU'd (and dropped out)
                                      in place */
    int32_t *arg[EE_MAX_WIDTHS];   /* max-over-time winners [B][F] */
    float *pooled;                 /* [B][K*F] */
    uint8_t *keep;                 /* dropout on pooled */
    float *dpooled;
    /* explainer */
    float *x0;                     /* e + F feat_W [B][T][d] (with features) */
    float *y;                      /* token outputs at the active length [B*T] */
    uint8_t *keep_h[EE_MAX_WIDTHS];/* dropout on H */
    float *gy, *gm, *dh;           /* backward: dy [B*T], masked dout [B*cfg.T], dH [B*T*F] */
} CnnAct;

static EeStatus cnn_alloc(EeRun *r)
{
    const EeConfig *c = &r->m->cfg;
    CnnAct *a = calloc(1, sizeof *a);
    if (!a) return EE_ERR_NOMEM;
    r->kind = a;
    size_t B = r->Bmax, T = c->T, F = c->filters, KF = (size_t)c->nwidths * F;
    int fail = 0;
    if (c->head != EE_HEAD_CLASSIFIER) {
        for (int k = 0; k < c->nwidths; k++) {
            a->out[k] = ee_run_alloc(r, B * T * F * sizeof(float), &fail);
            if (r->keep) a->keep_h[k] = ee_run_alloc(r, B * T * F, &fail);
        }
        if (ee_config_features(c)) a->x0 = ee_run_alloc(r, B * T * c->d * sizeof(float), &fail);
        a->y = ee_run_alloc(r, B * T * sizeof(float), &fail);
        if (r->keep) {
            a->gy = ee_run_alloc(r, B * T * sizeof(float), &fail);
            a->gm = ee_run_alloc(r, B * T * sizeof(float), &fail);
            a->dh = ee_run_alloc(r, B * T * F * sizeof(float), &fail);
        }
        return fail ? EE_ERR_NOMEM : EE_OK;
    }
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
        r->be->release(a->keep_h[k]);
    }
    r->be->release(a->pooled);
    r->be->release(a->keep);
    r->be->release(a->dpooled);
    r->be->release(a->x0);
    r->be->release(a->y);
    r->be->release(a->gy);
    r->be->release(a->gm);
    r->be->release(a->dh);
    free(a);
    r->kind = NULL;
}

static void cnn_embed(EeRun *r, int B)
{
    const EeConfig *c = &r->m->cfg;
    r->be->embed_fwd(r->ids, ee_run_w(r, P_ETOK), NULL, r->e, B, r->T, c->d);
}

/* The dropout stream of width k's H (explainer). */
static uint64_t h_seed(const EeRun *r, int k) { return ee_hash64(r->dropout_seed ^ ee_hash64(0xe7u + (uint64_t)k)); }

/* The explainer's forward: x0 = e + F feat_W (F zero at PAD: run.c), then
 * per width H_k = relu(conv_k(x0)) at the active length (windows past it
 * read zeros, as the classifier's), y = sum_k H_k head_W_k + head_b
 * (+ F feat_v), out = y at the active positions, 0 past them and where
 * omask is 0. */
static void expl_forward(EeRun *r, int B)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, T = r->T, d = c->d, R = B * T, kf = ee_config_features(c), h = head0(c);
    const float *x = r->e;
    if (kf) {
        be->copy(a->x0, r->e, sizeof(float) * (size_t)R * d);
        be->gemm(0, 0, R, d, kf, 1.0f, r->feats, kf, ee_run_w(r, feat_W(c)), d, 1.0f, a->x0, d);
        x = a->x0;
    }
    for (int k = 0; k < c->nwidths; k++) {
        int b = conv_b(c, k);
        size_t n = (size_t)R * F;
        be->conv_fwd(x, ee_run_w(r, conv_w(c, k)), b >= 0 ? ee_run_w(r, b) : NULL, a->out[k], B, T, d,
                     c->widths[k], F);
        be->relu_fwd(a->out[k], a->out[k], n);
        if (r->dropout_on > 0) be->dropout_fwd(a->out[k], a->keep_h[k], n, r->dropout_on, h_seed(r, k));
        be->gemm(0, 0, R, 1, F, 1.0f, a->out[k], F, ee_run_w(r, h) + (size_t)k * F, 1, k ? 1.0f : 0.0f, a->y, 1);
    }
    be->add_bias(a->y, ee_run_w(r, h + 1), R, 1);
    if (kf) be->gemm(0, 0, R, 1, kf, 1.0f, r->feats, kf, ee_run_w(r, feat_v(c)), 1, 1.0f, a->y, 1);
    if (T == c->T) {
        be->copy(r->out, a->y, sizeof(float) * R);
    } else {
        be->zero(r->out, sizeof(float) * (size_t)B * c->T);
        be->scatter_rows(a->y, r->out, c->T, B, T);
    }
    if (r->omask) be->mul_mask(r->out, r->omask, (size_t)B * c->T);
}

/* Its backward: from dout (B x cfg.T) through the mask and the head to
 * each H_k, the ReLU (and dropout), the convolution: r->de, the gradient
 * at x0, which is the gradient at e (cnn_embed_backward takes feat_W's
 * from it). */
static void expl_backward(EeRun *r, int B, const float *dout, int need_de, int pg)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, T = r->T, d = c->d, R = B * T, kf = ee_config_features(c), h = head0(c);
#define G(i) (pg ? ee_run_g(r, (i)) : NULL)
    if (r->omask) { /* masked outputs are constants: no gradient flows from them */
        be->copy(a->gm, dout, sizeof(float) * (size_t)B * c->T);
        be->mul_mask(a->gm, r->omask, (size_t)B * c->T);
        dout = a->gm;
    }
    const float *dy = dout;
    if (T < c->T) { /* the outputs of the active positions */
        be->gather_rows(dout, c->T, a->gy, B, T);
        dy = a->gy;
    }
    if (pg) {
        be->bias_grad(dy, G(h + 1), R, 1);
        if (kf) be->gemm(1, 0, kf, 1, R, 1.0f, r->feats, kf, dy, 1, 1.0f, G(feat_v(c)), 1);
    }
    if (need_de) be->zero(r->de, sizeof(float) * (size_t)R * d);
    if (!need_de && !pg) return;
    const float *x = kf ? a->x0 : r->e;
    for (int k = 0; k < c->nwidths; k++) {
        int b = conv_b(c, k);
        size_t n = (size_t)R * F;
        if (pg) /* head_W_k += H_k^T dy */
            be->gemm(1, 0, F, 1, R, 1.0f, a->out[k], F, dy, 1, 1.0f, G(h) + (size_t)k * F, 1);
        /* dH_k = dy head_W_k^T, through the dropout and the ReLU (H_k > 0
         * exactly where the pre-activation is and the unit was kept) */
        be->gemm(0, 0, R, F, 1, 1.0f, dy, 1, ee_run_w(r, h) + (size_t)k * F, F, 0.0f, a->dh, F);
        if (r->dropout_on > 0) be->dropout_bwd(a->dh, a->keep_h[k], n, r->dropout_on);
        be->relu_bwd(a->out[k], a->dh, a->dh, n);
        be->conv_bwd(x, ee_run_w(r, conv_w(c, k)), a->dh, need_de ? r->de : NULL, G(conv_w(c, k)),
                     pg && b >= 0 ? ee_run_g(r, b) : NULL, B, T, d, c->widths[k], F);
    }
#undef G
}

static void cnn_forward(EeRun *r, int B, int train)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    CnnAct *a = r->kind;
    int F = c->filters, KF = c->nwidths * F;
    if (c->head != EE_HEAD_CLASSIFIER) {
        expl_forward(r, B);
        return;
    }
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
    if (c->head != EE_HEAD_CLASSIFIER) {
        expl_backward(r, B, dout, need_de, pg);
        return;
    }
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
    int kf = ee_config_features(c);
    if (kf) /* r->de is the gradient at x0 = e + F feat_W: feat_W += F^T de */
        r->be->gemm(1, 0, kf, c->d, B * r->T, 1.0f, r->feats, kf, r->de, c->d, 1.0f, ee_run_g(r, feat_W(c)), c->d);
    if (!r->embed_frozen) r->be->embed_bwd(r->ids, r->de, ee_run_g(r, P_ETOK), NULL, B, r->T, c->d);
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
