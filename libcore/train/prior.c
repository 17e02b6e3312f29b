/* prior.c: training with an attribution prior (ee_train's 'prior'): the
 * penalty weight * ||mask .* A(x)||^2 per row, A the X-Gradient of the
 * label's logit, for bias-free ReLU mlps, where the X-Gradient is IG with
 * the zero baseline (X-DNN paper, Sec. 4.3): one gradient, not s.
 *
 * Its gradient with respect to the weights, exactly (the activation pattern
 * held fixed, as it is almost everywhere): with g = grad_x f_y(x),
 *     P = w/B sum_b sum_j m_j^2 x_bj^2 g_bj^2,   dP = <U, dg>,
 *     U = 2 w/B m^2 .* x^2 .* g   (held fixed).
 * With the pattern fixed the network is linear in its input, so
 * <U, g> = f_y of that linear network at U, and dP/dW is that linear
 * network's parameter gradient at U for the output e_y. Per step: one
 * backward for g, one forward of the linear network, one backward for the
 * weights; about two passes more than plain training. */
#include "prior.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct EePrior {
    EeRun *r;
    float weight;
    float *m2;           /* mask^2, D */
    float *g, *u;        /* host B x D */
    float *onehot;       /* host B x C */
    float *d_onehot;     /* device B x C */
};

EeStatus ee_prior_check(const EeModel *m, const float *mask, float weight, float dropout)
{
    const EeConfig *c = &m->cfg;
    if (c->kind != EE_KIND_MLP || c->head != EE_HEAD_CLASSIFIER || c->bias)
        return ee_fail(EE_ERR_UNSUPPORTED,
                       "an attribution prior needs a bias-free mlp classifier (its X-Gradient is IG), not a %s%s",
                       ee_kind_name(c->kind), c->bias ? " with biases" : "");
    if (dropout > 0)
        return ee_fail(EE_ERR_UNSUPPORTED, "an attribution prior trains without dropout (got %g)", (double)dropout);
    if (!(weight >= 0) || !isfinite(weight))
        return ee_fail(EE_ERR_INPUT, "the prior's weight must be finite and >= 0, got %g", (double)weight);
    for (int j = 0; j < c->D; j++)
        if (!isfinite(mask[j]))
            return ee_fail(EE_ERR_INPUT, "the prior's mask has NaN or Inf at %d", j + 1);
    return EE_OK;
}

EeStatus ee_prior_new(EeRun *r, const float *mask, float weight, EePrior **out)
{
    *out = NULL;
    const EeConfig *c = &r->m->cfg;
    if (!r->keep || !ee_kind_ops(c->kind)->linearized_forward)
        return ee_fail(EE_ERR_UNSUPPORTED, "this run cannot train with an attribution prior");
    EePrior *p = calloc(1, sizeof *p);
    if (!p) return ee_fail(EE_ERR_NOMEM, "out of memory");
    size_t B = (size_t)r->Bmax, D = (size_t)c->D, C = (size_t)c->classes;
    int fail = 0;
    p->r = r;
    p->weight = weight;
    p->m2 = malloc(sizeof(float) * D);
    p->g = malloc(sizeof(float) * B * D);
    p->u = malloc(sizeof(float) * B * D);
    p->onehot = calloc(B * C, sizeof(float));
    p->d_onehot = ee_run_alloc(r, sizeof(float) * B * C, &fail);
    if (fail || !p->m2 || !p->g || !p->u || !p->onehot) {
        ee_prior_free(p);
        return ee_fail(EE_ERR_NOMEM, "out of memory for the attribution prior");
    }
    for (size_t j = 0; j < D; j++) p->m2[j] = mask[j] * mask[j];
    *out = p;
    return EE_OK;
}

void ee_prior_free(EePrior *p)
{
    if (!p) return;
    if (p->r) p->r->be->release(p->d_onehot);
    free(p->m2);
    free(p->g);
    free(p->u);
    free(p->onehot);
    free(p);
}

EeStatus ee_prior_step(EePrior *p, const float *x, const int32_t *y, int B, double *penalty)
{
    EeRun *r = p->r;
    const EeBackend *be = r->be;
    const EeConfig *c = &r->m->cfg;
    size_t D = (size_t)c->D, C = (size_t)c->classes;
    if (B < 1 || B > r->Bmax) return ee_fail(EE_ERR_INPUT, "prior: %d rows for a run of %d", B, r->Bmax);
    memset(p->onehot, 0, sizeof(float) * (size_t)B * C);
    for (int b = 0; b < B; b++) p->onehot[(size_t)b * C + (size_t)y[b]] = 1.0f;
    be->upload(p->d_onehot, p->onehot, sizeof(float) * (size_t)B * C);
    /* g = grad_x f_y(x): the pattern of the forward pass just run */
    ee_run_backward(r, B, p->d_onehot, 1, 0);
    be->download(p->g, r->de, sizeof(float) * (size_t)B * D);
    double pen = 0, s = 2.0 * p->weight / B;
    for (size_t q = 0; q < (size_t)B * D; q++) {
        double xm = (double)x[q] * x[q] * p->m2[q % D], g = p->g[q];
        pen += xm * g * g;
        p->u[q] = (float)(s * xm * g);
    }
    *penalty = p->weight * pen / B;
    /* the linear network at U, then its parameter gradient for e_y, added to r->g */
    be->upload(r->e, p->u, sizeof(float) * (size_t)B * D);
    ee_kind_ops(c->kind)->linearized_forward(r, B);
    ee_run_backward(r, B, p->d_onehot, 0, 1);
    return EE_OK;
}
