/* mlp.c: the dense-input classifier of MODELS.md: [Linear -> ReLU] x k ->
 * Linear. The input x itself is the "embedding output" e that IG and
 * X-Gradient attribute to. */
#include "layers.h"
#include "model_impl.h"

#include <stdlib.h>

static int width(const EeConfig *c, int i) /* n = [D hidden C] */
{
    return i == 0 ? c->D : i <= c->nhidden ? c->hidden[i - 1] : c->classes;
}
static int fc_w(const EeConfig *c, int i) { return i * (c->bias ? 2 : 1); }

static void mlp_register(EeModel *m)
{
    const EeConfig *c = &m->cfg;
    for (int i = 0; i <= c->nhidden; i++) {
        int a = width(c, i), b = width(c, i + 1);
        ee_param_add(m, "fc", i, "W", EE_INIT_UNIFORM_FANIN, a, 2, a, b, 1);
        if (c->bias) ee_param_add(m, "fc", i, "b", EE_INIT_UNIFORM_FANIN, a, 2, 1, b, 1);
    }
}

typedef struct {
    float *z[EE_MAX_HIDDEN + 1];   /* pre-activations of hidden layer i (1-based) */
    float *h[EE_MAX_HIDDEN + 1];   /* post-ReLU (dropout applied when training) */
    uint8_t *keep[EE_MAX_HIDDEN + 1];
    float *g1, *g2;                /* backward scratch, widest layer */
} MlpAct;

static int widest(const EeConfig *c)
{
    int w = c->D;
    for (int i = 1; i <= c->nhidden + 1; i++) if (width(c, i) > w) w = width(c, i);
    return w;
}

static EeStatus mlp_alloc(EeRun *r)
{
    const EeConfig *c = &r->m->cfg;
    MlpAct *a = calloc(1, sizeof *a);
    if (!a) return EE_ERR_NOMEM;
    r->kind = a;
    int fail = 0;
    size_t B = r->Bmax;
    for (int i = 1; i <= c->nhidden; i++) {
        size_t n = B * width(c, i);
        a->z[i] = ee_run_alloc(r, n * sizeof(float), &fail);
        a->h[i] = ee_run_alloc(r, n * sizeof(float), &fail);
        if (r->keep) a->keep[i] = ee_run_alloc(r, n, &fail);
    }
    if (r->keep) {
        a->g1 = ee_run_alloc(r, B * widest(c) * sizeof(float), &fail);
        a->g2 = ee_run_alloc(r, B * widest(c) * sizeof(float), &fail);
    }
    return fail ? EE_ERR_NOMEM : EE_OK;
}

static void mlp_release(EeRun *r)
{
    MlpAct *a = r->kind;
    for (int i = 1; i <= r->m->cfg.nhidden; i++) {
        r->be->release(a->z[i]);
        r->be->release(a->h[i]);
        r->be->release(a->keep[i]);
    }
    r->be->release(a->g1);
    r->be->release(a->g2);
    free(a);
    r->kind = NULL;
}

static void mlp_embed(EeRun *r, int B) { (void)r; (void)B; /* e = x, uploaded as is */ }

static void mlp_forward(EeRun *r, int B, int train)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    MlpAct *a = r->kind;
    const float *x = r->e;
    for (int i = 0; i <= c->nhidden; i++) {
        int n0 = width(c, i), n1 = width(c, i + 1);
        float *y = i == c->nhidden ? r->out : a->z[i + 1];
        ee_linear_fwd(be, x, ee_run_w(r, fc_w(c, i)), c->bias ? ee_run_w(r, fc_w(c, i) + 1) : NULL,
                      y, B, n0, n1);
        if (i == c->nhidden) break;
        be->relu_fwd(y, a->h[i + 1], (size_t)B * n1);
        if (r->dropout_on > 0)
            be->dropout_fwd(a->h[i + 1], a->keep[i + 1], (size_t)B * n1, r->dropout_on,
                            ee_hash64(r->dropout_seed ^ (uint64_t)i));
        x = a->h[i + 1];
    }
}

static void mlp_backward(EeRun *r, int B, const float *dout, int need_de, int param_grads)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    MlpAct *a = r->kind;
    int pg = param_grads && r->g;
    const float *g = dout;
    for (int i = c->nhidden; i >= 0; i--) {
        int n0 = width(c, i), n1 = width(c, i + 1);
        const float *x = i == 0 ? r->e : a->h[i];
        float *gx = i == 0 ? (need_de ? r->de : NULL) : (g == a->g1 ? a->g2 : a->g1);
        ee_linear_bwd(be, x, ee_run_w(r, fc_w(c, i)), g, gx, 0, pg ? ee_run_g(r, fc_w(c, i)) : NULL,
                      pg && c->bias ? ee_run_g(r, fc_w(c, i) + 1) : NULL, B, n0, n1);
        if (i == 0) break;
        if (r->dropout_on > 0) be->dropout_bwd(gx, a->keep[i], (size_t)B * n0, r->dropout_on);
        be->relu_bwd(a->z[i], gx, gx, (size_t)B * n0);
        g = gx;
    }
}

static void mlp_embed_backward(EeRun *r, int B) { (void)r; (void)B; /* no parameters */ }

/* h_i := relu'(z_i) .* (h_{i-1} W_i), h_0 = r->e: the hidden layers of the
 * network with the pattern of z fixed. mlp_backward then reads these h as
 * the layers' inputs and z for the pattern, as it would for the network. */
static void mlp_linearized_forward(EeRun *r, int B)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    MlpAct *a = r->kind;
    const float *x = r->e;
    for (int i = 0; i < c->nhidden; i++) {
        int n0 = width(c, i), n1 = width(c, i + 1);
        ee_linear_fwd(be, x, ee_run_w(r, fc_w(c, i)), NULL, a->g1, B, n0, n1);
        be->relu_bwd(a->z[i + 1], a->g1, a->h[i + 1], (size_t)B * n1);
        x = a->h[i + 1];
    }
}

/* DeepLIFT's backward pass: the linear layers pass the multipliers on as
 * a gradient would; each ReLU scales them by its rescale multiplier from
 * the pre-activations of the input (rows [0, B) of z) and of its
 * reference (rows [B, 2B)). */
static EeStatus mlp_deeplift_backward(EeRun *r, int B, const float *dout)
{
    const EeConfig *c = &r->m->cfg;
    const EeBackend *be = r->be;
    MlpAct *a = r->kind;
    if (!a->g1 || !a->g2) return ee_fail(EE_ERR_INPUT, "DeepLIFT needs a run that keeps its activations");
    const float *g = dout;
    for (int i = c->nhidden; i >= 0; i--) {
        int n0 = width(c, i), n1 = width(c, i + 1);
        float *gx = i == 0 ? r->de : (g == a->g1 ? a->g2 : a->g1);
        ee_linear_bwd(be, NULL, ee_run_w(r, fc_w(c, i)), g, gx, 0, NULL, NULL, B, n0, n1);
        if (i == 0) break;
        be->relu_rescale_bwd(a->z[i], a->z[i] + (size_t)B * n0, gx, gx, (size_t)B * n0);
        g = gx;
    }
    return EE_OK;
}

const EeKindOps ee_mlp_ops = {
    .register_params = mlp_register,
    .alloc = mlp_alloc,
    .release = mlp_release,
    .embed = mlp_embed,
    .forward = mlp_forward,
    .backward = mlp_backward,
    .embed_backward = mlp_embed_backward,
    .linearized_forward = mlp_linearized_forward,
    .deeplift_backward = mlp_deeplift_backward,
};
