/* sensitivity.c: Captum's sensitivity-max of a gradient map (doc/MODELS.md,
 * "Sensitivity-max"): how far the map moves when the input moves a
 * little, the largest over n perturbations x' of x of
 * ||A(x') - A(x)|| / ||A(x)||.
 *
 * The perturbations live where the gradient maps are taken, on the
 * embedding-layer output (the features of an mlp): uniform noise in
 * [-r, r] on every attended element. A(x') is then the map of the noisy
 * point, which is what ee_gradient's noise tunnel computes for one sample
 * of given noise; so the perturbed maps are one ee_gradient_attribute
 * call on the rows repeated n times with that noise, and every pass of
 * them is the model's own (any backend, any batch). */
#include "attr_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the stream of perturbation k of row i: (seed, i, 2^32 0x534D + k) */
#define EE_SENS_STREAM (0x534Dull << 32)

/* perturbations held at once, in floats of noise (64 MiB): rows are done
 * in chunks below it */
#define SENS_CHUNK_FLOATS (16L << 20)

static EeStatus check(const EeModel *m, const EeGradOptions *g, int samples, double radius)
{
    if (!m || !g) return ee_fail(EE_ERR_INPUT, "sensitivity: missing argument");
    if ((unsigned)g->method >= EE_GRAD_METHOD_COUNT) return ee_fail(EE_ERR_INPUT, "sensitivity: unknown method %d", (int)g->method);
    if (g->method == EE_GRAD_GRADIENTSHAP)
        return ee_fail(EE_ERR_UNSUPPORTED, "sensitivity of gradientshap is not supported: its own draws would differ "
                       "between x and each perturbation");
    if (g->noise != EE_NOISE_NONE)
        return ee_fail(EE_ERR_UNSUPPORTED, "sensitivity of a noise tunnel is not supported (its noise and the "
                       "perturbations would share the input)");
    if (samples < 1 || samples > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "sensitivity: the perturbations per row must be in 1..%d, got %d", 1 << 20, samples);
    if (!(radius >= 0) || !isfinite(radius))
        return ee_fail(EE_ERR_INPUT, "sensitivity: 'radius' must be finite and >= 0, got %g", radius);
    return EE_OK;
}

/* Perturbation k of row i: W floats r (2u - 1), u uniform, one per element
 * in order whatever is used, 0 where the row is not attended. */
static void draw(const EeModel *m, const EeInput *in, const EeAttrOptions *o, double radius, int i, int k, float *z,
                 uint8_t *mask)
{
    const EeConfig *c = &m->cfg;
    int token = ee_is_token_model(c), W = token ? c->T * c->d : c->D;
    EeRng r;
    ee_rng_stream(&r, o->seed, (uint64_t)(o->row_offset + i), EE_SENS_STREAM + (uint64_t)k);
    for (int q = 0; q < W; q++) z[q] = (float)(radius * (2 * ee_rng_uniform(&r) - 1));
    if (!token) return;
    ee_attr_row_mask(m, in, i, mask);
    for (int t = 0; t < c->T; t++)
        if (!mask[t]) memset(z + (size_t)t * c->d, 0, sizeof(float) * c->d);
}

EeStatus ee_sensitivity_max(EeModel *m, const EeInput *in, const EeGradOptions *g, const EeAttrOptions *o,
                            int samples, double radius, const float *given, float *drawn, double *sens,
                            EeAttrInfo *info)
{
    EeStatus st = check(m, g, samples, radius);
    if (st) return st;
    if (!in || !o || (in->n > 0 && !sens)) return ee_fail(EE_ERR_INPUT, "sensitivity: missing argument");
    const EeConfig *c = &m->cfg;
    int N = in->n, S = samples, token = ee_is_token_model(c), T = token ? c->T : 0;
    int cols = token ? c->T : c->D, W = token ? c->T * c->d : c->D;
    if (given)
        for (size_t q = 0; q < (size_t)N * S * W; q++)
            if (!isfinite(given[q])) return ee_fail(EE_ERR_INPUT, "the given perturbations are not finite at element %zu", q + 1);
    if (N == 0) return EE_OK;
    double t0 = ee_now();
    /* rows per chunk: their n copies' noise within SENS_CHUNK_FLOATS */
    long R = SENS_CHUNK_FLOATS / ((long)S * W);
    if (R < 1) R = 1;
    if (R > N) R = N;
    long RS = R * S;
    float *A0 = malloc(sizeof(float) * (size_t)N * cols);
    int32_t *tgt = malloc(sizeof(int32_t) * N);
    float *fx = malloc(sizeof(float) * N);
    float *z = malloc(sizeof(float) * (size_t)RS * W), *Ap = malloc(sizeof(float) * (size_t)RS * cols);
    int32_t *rt = malloc(sizeof(int32_t) * RS);
    int32_t *rids = token ? malloc(sizeof(int32_t) * (size_t)RS * T) : NULL;
    uint8_t *rmask = token ? malloc((size_t)RS * T) : NULL, *mk = token ? malloc((size_t)T) : NULL;
    int32_t *rbase = token && o->baseline == EE_BASELINE_IDS ? malloc(sizeof(int32_t) * (size_t)RS * T) : NULL;
    float *rx = token ? NULL : malloc(sizeof(float) * (size_t)RS * W);
    if (!A0 || !tgt || !fx || !z || !Ap || !rt || (token && (!rids || !rmask || !mk)) || (!token && !rx) ||
        (token && o->baseline == EE_BASELINE_IDS && !rbase)) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for sensitivity (%ld perturbed rows at once)", RS);
        goto done;
    }
    /* A(x), and the targets every perturbed map keeps */
    EeAttrInfo i0 = {.target = tgt, .fx = fx};
    if ((st = ee_gradient_attribute(m, in, g, o, A0, &i0))) goto done;
    long fwd = i0.forward, bwd = i0.backward;
    EeGradOptions gp = *g;
    gp.noise = EE_NOISE_SMOOTHGRAD; /* one sample of given noise: the map at e + z */
    gp.samples = 1;
    gp.stdev = 0;
    gp.given = z;
    gp.drawn = NULL;
    for (int r0 = 0; r0 < N && !st; r0 += (int)R) {
        int nr = N - r0 < R ? N - r0 : (int)R;
        for (int u = 0; u < nr * S; u++) {
            int i = r0 + u / S, k = u % S;
            float *zu = z + (size_t)u * W;
            if (given) memcpy(zu, given + ((size_t)i * S + k) * W, sizeof(float) * W);
            else draw(m, in, o, radius, i, k, zu, mk);
            if (drawn) memcpy(drawn + ((size_t)i * S + k) * W, zu, sizeof(float) * W);
            rt[u] = tgt[i];
            if (token) {
                memcpy(rids + (size_t)u * T, in->ids + (size_t)i * T, sizeof(int32_t) * T);
                ee_attr_row_mask(m, in, i, rmask + (size_t)u * T);
                if (rbase) memcpy(rbase + (size_t)u * T, o->baseline_ids + (size_t)i * T, sizeof(int32_t) * T);
            } else
                memcpy(rx + (size_t)u * W, in->x + (size_t)i * W, sizeof(float) * W);
        }
        EeInput rep = {.n = nr * S, .ids = rids, .mask = rmask, .x = rx};
        EeAttrOptions op = *o;
        op.target = rt;
        op.baseline_ids = rbase;
        op.row_offset = 0; /* nothing is drawn inside: the noise is given */
        EeAttrInfo ip = {0};
        if ((st = ee_gradient_attribute(m, &rep, &gp, &op, Ap, &ip))) break;
        fwd += ip.forward;
        bwd += ip.backward;
        /* max over k of the Frobenius norm of the change over that of A(x);
         * a zero A(x) divides by 1, as Captum does */
        for (int i = r0; i < r0 + nr; i++) {
            const float *a = A0 + (size_t)i * cols;
            double n0 = 0, best = 0;
            for (int t = 0; t < cols; t++) n0 += (double)a[t] * a[t];
            n0 = sqrt(n0);
            for (int k = 0; k < S; k++) {
                const float *b = Ap + ((size_t)(i - r0) * S + k) * cols;
                double dn = 0;
                for (int t = 0; t < cols; t++) dn += ((double)b[t] - a[t]) * ((double)b[t] - a[t]);
                dn = sqrt(dn) / (n0 > 0 ? n0 : 1);
                if (k == 0 || dn > best || isnan(dn)) best = dn;
            }
            sens[i] = best;
        }
    }
    if (!st && info) {
        if (info->target) memcpy(info->target, tgt, sizeof(int32_t) * N);
        if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
        info->forward = fwd;
        info->backward = bwd;
        info->seconds = ee_now() - t0;
    }
done:
    free(A0); free(tgt); free(fx); free(z); free(Ap); free(rt); free(rids); free(rmask); free(mk); free(rbase); free(rx);
    return st;
}

double ee_sensitivity_bytes(const EeModel *m, int n, const EeGradOptions *g, const EeAttrOptions *o, int samples)
{
    const EeConfig *c = &m->cfg;
    if (n < 1 || samples < 1) return 0;
    int token = ee_is_token_model(c), cols = token ? c->T : c->D, W = token ? c->T * c->d : c->D;
    long R = SENS_CHUNK_FLOATS / ((long)samples * W);
    if (R < 1) R = 1;
    if (R > n) R = n;
    double RS = (double)R * samples;
    EeGradOptions gp = *g;
    gp.noise = EE_NOISE_SMOOTHGRAD;
    gp.samples = 1;
    return ee_gradient_bytes(m, (int)(RS > n ? RS : n), &gp, o) + (double)n * (cols * 4.0 + 8) +
           RS * (W * 4.0 + cols * 4.0 + 4 + (token ? c->T * 9.0 : W * 4.0)) + (token ? c->T : 0);
}
