/* gradient.c: the gradient maps (saliency, signed and absolute, gradient x
 * input, IG) and the noise tunnel over them (SmoothGrad, SmoothGrad-
 * squared, VarGrad), doc/MODELS.md "Gradient maps and the noise tunnel".
 *
 * Every map is made of units (row i, noise sample k): the embedding-layer
 * output of the row plus the sample's Gaussian noise, e~ = e_x + z_ik,
 * and, for IG, the s nodes of its path from the baseline e_b to e~. A
 * unit's gradients (one forward and one backward pass per node) reduce to
 * one score per token a_ik(t); the map aggregates a_ik over k. The units
 * of all rows, in order of length, fill passes of whole units, so no
 * gradient waits in memory for a later pass. The noise of unit (i, k) is
 * drawn from its own stream (doc/RANDOM.md): any batch, row split or
 * thread count gives the same noise, and the caller may ask for it (or
 * give its own) to check the map from outside. Composed of the model's
 * own passes (embed, forward, backward), so every backend computes it;
 * DeepLIFT's unit is its point and its reference side by side in one
 * pass, and its backward pass the model's rescale rule
 * (ee_run_deeplift_backward: the mlp and the cnn on the CPU). */
#include "attr_common.h"
#include "../models/run_size.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ee_grad_method_names[EE_GRAD_METHOD_COUNT] = {"saliency", "saliency_abs", "saliency_l2",
                                                                "gradxinput", "ig", "gradientshap", "deeplift"};
const char *const ee_noise_names[EE_NOISE_COUNT] = {"none", "smoothgrad", "smoothgrad_sq", "vargrad"};

void ee_grad_options_defaults(EeGradOptions *g)
{
    memset(g, 0, sizeof *g);
    g->method = EE_GRAD_SALIENCY;
    g->noise = EE_NOISE_NONE;
    g->samples = 1;
}

/* The noise of unit (i, k), W floats (T x d position-major, or D): sigma
 * times standard normals from the stream (seed, row, 2^32 + k), one draw
 * per element in order whatever is used, 0 where the row is not attended;
 * for gradientshap (K > 0) then its background row and a from the same
 * stream. */
static void draw_noise(const EeModel *m, const EeInput *in, const EeAttrOptions *o, double sigma, int i, int k,
                       float *z, int K, int *b, double *alpha)
{
    const EeConfig *c = &m->cfg;
    int token = ee_is_token_model(c), W = token ? c->T * c->d : c->D;
    EeRng r;
    ee_rng_stream(&r, o->seed, (uint64_t)(o->row_offset + i), (1ULL << 32) + (uint64_t)k);
    for (int q = 0; q < W; q++) z[q] = (float)(sigma * ee_rng_normal(&r));
    if (K > 0) { /* gradientshap: the background row and the point on its path */
        *b = (int)ee_rng_below(&r, (uint64_t)K);
        *alpha = ee_rng_uniform(&r);
    }
    if (!token) return;
    uint8_t mask[4096];
    uint8_t *mk = c->T <= 4096 ? mask : malloc((size_t)c->T);
    if (!mk) return; /* the caller's buffers are checked; T > 4096 is beyond any config */
    ee_attr_row_mask(m, in, i, mk);
    for (int t = 0; t < c->T; t++)
        if (!mk[t]) memset(z + (size_t)t * c->d, 0, sizeof(float) * c->d);
    if (mk != mask) free(mk);
}

typedef struct {
    EeModel *m;
    const EeInput *in;
    const EeGradOptions *g;
    const EeAttrOptions *o;
    float *A;
    EeAttrInfo *info;
} Job;

static EeStatus check(const Job *J)
{
    const EeGradOptions *g = J->g;
    const EeConfig *c = &J->m->cfg;
    EeAttrOptions o = *J->o;
    if (g->method == EE_GRAD_DEEPLIFT && c->kind == EE_KIND_TRANSFORMER)
        return ee_fail(EE_ERR_UNSUPPORTED, "deeplift is defined on the mlp and the cnn, not on the transformer "
                                           "(doc/MODELS.md, \"DeepLIFT\")");
    if (g->method == EE_GRAD_DEEPLIFT) o.steps = 1; /* ig's baseline, one node */
    else if (g->method != EE_GRAD_IG) {
        o.steps = 1;
        o.baseline = ee_is_token_model(c) ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
        o.baseline_ids = NULL;
    }
    EeStatus st = ee_attr_check(J->m, J->in, &o, 0);
    if (st) return st;
    if ((unsigned)g->method >= EE_GRAD_METHOD_COUNT) return ee_fail(EE_ERR_INPUT, "unknown gradient method %d", (int)g->method);
    if ((unsigned)g->noise >= EE_NOISE_COUNT) return ee_fail(EE_ERR_INPUT, "unknown 'noise' %d", (int)g->noise);
    int shap = g->method == EE_GRAD_GRADIENTSHAP;
    if (shap) {
        /* its own sampling: the mean over n samples, with optional noise */
        if (g->noise != EE_NOISE_NONE)
            return ee_fail(EE_ERR_INPUT, "gradientshap averages its own samples: 'noise' must be none (its noise is 'stdev')");
        if (g->K < 1 || (ee_is_token_model(c) ? !g->background_ids : !g->background_x))
            return ee_fail(EE_ERR_INPUT, "gradientshap needs a 'background' set of at least one row");
        if (ee_is_token_model(c)) {
            for (size_t q = 0; q < (size_t)g->K * c->T; q++)
                if (g->background_ids[q] < 0 || g->background_ids[q] >= c->vocab)
                    return ee_fail(EE_ERR_INPUT, "'background'(%zu,%zu) = %d is not a token id in 1..%d", q / c->T + 1,
                                   q % c->T + 1, g->background_ids[q] + 1, c->vocab);
        } else
            for (size_t q = 0; q < (size_t)g->K * c->D; q++)
                if (!isfinite(g->background_x[q]))
                    return ee_fail(EE_ERR_INPUT, "'background'(%zu,%zu) is not finite", q / c->D + 1, q % c->D + 1);
    } else if (g->noise == EE_NOISE_NONE && g->samples != 1)
        return ee_fail(EE_ERR_INPUT, "'samples' applies to a noise tunnel ('noise' smoothgrad, smoothgrad_sq or vargrad)");
    if (g->samples < 1 || g->samples > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "'samples' must be in 1..%d, got %d", 1 << 20, g->samples);
    if (!(g->stdev >= 0) || !isfinite(g->stdev))
        return ee_fail(EE_ERR_INPUT, "'stdev' (the noise's standard deviation) must be finite and >= 0, got %g", g->stdev);
    if (g->given && g->noise == EE_NOISE_NONE && !shap) return ee_fail(EE_ERR_INPUT, "given noise needs a noise tunnel");
    if (g->given) {
        int W = ee_is_token_model(c) ? c->T * c->d : c->D;
        for (size_t q = 0; q < (size_t)J->in->n * g->samples * W; q++)
            if (!isfinite(g->given[q])) return ee_fail(EE_ERR_INPUT, "the given noise is not finite at element %zu", q + 1);
    }
    return EE_OK;
}

/* One unit's token scores from its accumulated gradient acc (L x per),
 * its point e~ (for gradient x input) and its difference e~ - e_b (IG). */
static void unit_scores(EeGradMethod method, const double *acc, const float *et, const float *eb, int L, int per,
                        double *a)
{
    for (int t = 0; t < L; t++) {
        double s = 0;
        const double *g = acc + (size_t)t * per;
        const float *x = et + (size_t)t * per, *b = eb ? eb + (size_t)t * per : NULL;
        for (int q = 0; q < per; q++) switch (method) {
            case EE_GRAD_SALIENCY: s += g[q]; break;
            case EE_GRAD_SALIENCY_ABS: s += fabs(g[q]); break;
            case EE_GRAD_SALIENCY_L2: s += g[q] * g[q]; break;
            case EE_GRAD_GRADXINPUT: s += (double)x[q] * g[q]; break;
            case EE_GRAD_IG:
            case EE_GRAD_DEEPLIFT:
            case EE_GRAD_GRADIENTSHAP: s += ((double)x[q] - (b ? b[q] : 0)) * g[q]; break;
            }
        a[t] = method == EE_GRAD_SALIENCY_L2 ? sqrt(s) : s;
    }
}

static EeStatus run(void *ctx, int Bwant)
{
    Job *J = ctx;
    EeModel *m = J->m;
    const EeInput *in = J->in;
    const EeGradOptions *g = J->g;
    const EeConfig *c = &m->cfg;
    EeAttrOptions o = *J->o;
    int ig = g->method == EE_GRAD_IG, shap = g->method == EE_GRAD_GRADIENTSHAP, K = shap ? g->K : 0;
    int dl = g->method == EE_GRAD_DEEPLIFT; /* a unit: its point and its reference, rows u and nu + u of a pass */
    int tunnel = g->noise != EE_NOISE_NONE || shap; /* noise is drawn (shap: stdev may be 0) */
    if (!ig) {
        o.steps = 1;
        o.method = EE_IG_GRADXINPUT; /* one node: a = 1, w = 1 */
    }
    int token = ee_is_token_model(c), T = token ? c->T : 1, d = token ? c->d : 1, C = c->classes, N = in->n;
    int per = token ? d : 1, cols = token ? T : c->D, Wfull = token ? T * d : c->D;
    int s = o.steps, n = g->samples, rows_per_unit = dl ? 2 : s;
    int zero_base = !shap && (!token || o.baseline == EE_BASELINE_ZERO);
    double *alpha = malloc(sizeof(double) * s), *wts = malloc(sizeof(double) * s);
    EeStatus st = EE_OK;
    if (!alpha || !wts) { free(alpha); free(wts); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    if ((st = ee_ig_nodes(o.method, s, alpha, wts))) { free(alpha); free(wts); return st; }
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o.device, o.precision, &dev, &be))) { free(alpha); free(wts); return st; }
    if (dl && (!be->relu_rescale_bwd || !be->pool_rescale_bwd)) {
        free(alpha); free(wts);
        return ee_fail(EE_ERR_UNSUPPORTED, "deeplift needs the rescale rule, which the %s backend does not have", be->name);
    }
    /* units per pass: whole units of s rows (deeplift: 2) */
    int U = Bwant / rows_per_unit > 0 ? Bwant / rows_per_unit : 1;
    long units = (long)N * n;
    if (U > units) U = (int)(units > 0 ? units : 1);
    /* whole units fit even when one is larger than the batch asked for */
    int B = N < Bwant ? N : Bwant;
    if (B < U * rows_per_unit) B = U * rows_per_unit;
    if (B < 1) B = 1;
    EeRun *r = NULL;
    if ((st = ee_run_new(m, be, B, EE_KEEP_FULL, 0, &r))) { free(alpha); free(wts); return st; }
    int fail = 0;
    float *d_dout = ee_run_alloc(r, sizeof(float) * (size_t)B * C, &fail);
    int *order = malloc(sizeof(int) * (N ? N : 1));
    int32_t *tgt = malloc(sizeof(int32_t) * (N ? N : 1));
    float *fx = malloc(sizeof(float) * (N ? N : 1));
    int32_t *h_ids = token ? malloc(sizeof(int32_t) * (size_t)2 * B * T) : NULL;
    uint8_t *h_mask = token ? malloc((size_t)2 * B * T) : NULL;
    /* the buffers of B or U rows of T x d: tens of MB, kept between calls (ee_host_alloc) */
    size_t b_rows = sizeof(float) * (size_t)B * Wfull, u_rows = sizeof(float) * (size_t)U * Wfull;
    float *h_e = ee_host_alloc(b_rows), *h_de = ee_host_alloc(b_rows);
    float *h_out = malloc(sizeof(float) * (size_t)B * C), *h_dout = malloc(sizeof(float) * (size_t)B * C);
    /* per unit of the pass: its row's e_x and e_b (L x per), its noise and e~ */
    float *ux = ee_host_alloc(u_rows), *ub = ee_host_alloc(u_rows), *uz = ee_host_alloc(u_rows), *ue = ee_host_alloc(u_rows);
    double *acc = malloc(sizeof(double) * (size_t)Wfull), *a = malloc(sizeof(double) * (size_t)cols);
    int *ubase = malloc(sizeof(int) * (size_t)U);       /* gradientshap: each unit's background row */
    double *ualpha = malloc(sizeof(double) * (size_t)U); /* and its point on the path */
    double *S1 = calloc((size_t)N * cols + 1, sizeof(double)), *S2 = calloc((size_t)N * cols + 1, sizeof(double));
    /* VarGrad: Welford's running mean and sum of squared deviations (a
     * variance that is never below 0, where E a^2 - (E a)^2 can round so) */
    int var = g->noise == EE_NOISE_VARGRAD;
    double *Wm = var ? calloc((size_t)N * cols + 1, sizeof(double)) : NULL;
    double *Wv = var ? calloc((size_t)N * cols + 1, sizeof(double)) : NULL;
    /* deeplift: each row's mean f(e~_k) and f(e_b), for completeness */
    double *Fx = dl ? calloc((size_t)N + 1, sizeof(double)) : NULL, *Fb = dl ? calloc((size_t)N + 1, sizeof(double)) : NULL;
    if (fail || !order || !tgt || !fx || (token && (!h_ids || !h_mask)) || !h_e || !h_de || !h_out || !h_dout || !ux ||
        !ub || !uz || !ue || !acc || !a || !S1 || !S2 || !ubase || !ualpha || (var && (!Wm || !Wv)) || (dl && (!Fx || !Fb))) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for gradient maps (batch %d)", B);
        goto done;
    }
    double t0 = ee_now();
    long fwd = 0, bwd = 0;
    if (token) ee_rows_by_length(in->ids, in->mask, N, T, order, NULL);
    else
        for (int i = 0; i < N; i++) order[i] = i;
    /* targets: the rows in passes of their own */
    for (int q0 = 0; q0 < N && !st; q0 += B) {
        int nb = N - q0 < B ? N - q0 : B;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing gradient maps");
            break;
        }
        for (int k = 0; k < nb; k++) {
            int i = order[q0 + k];
            if (token) {
                memcpy(h_ids + (size_t)k * T, in->ids + (size_t)i * T, sizeof(int32_t) * T);
                ee_attr_row_mask(m, in, i, h_mask + (size_t)k * T);
            } else
                memcpy(h_e + (size_t)k * Wfull, in->x + (size_t)i * Wfull, sizeof(float) * Wfull);
        }
        if ((st = ee_run_set_input(r, h_ids, h_mask, token ? NULL : h_e, nb))) break;
        ee_run_embed(r, nb);
        ee_run_forward(r, nb, 0);
        be->download(h_out, r->out, sizeof(float) * (size_t)nb * C);
        for (int k = 0; k < nb; k++) {
            int i = order[q0 + k];
            tgt[i] = o.target ? o.target[i] : ee_argmax(h_out + (size_t)k * C, C);
            fx[i] = h_out[(size_t)k * C + tgt[i]];
        }
        fwd += nb;
    }
    EeProgress prog;
    ee_progress_start(&prog, &o, ee_grad_method_names[g->method], N);
    for (long u0 = 0; u0 < units && !st; u0 += U) {
        int nu = units - u0 < U ? (int)(units - u0) : U;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing gradient maps");
            break;
        }
        /* each unit's noise (and, gradientshap, background row and a) */
        for (int u = 0; u < nu; u++) {
            int i = order[(u0 + u) / n], k = (int)((u0 + u) % n);
            float *z = uz + (size_t)u * Wfull;
            if (!tunnel) memset(z, 0, sizeof(float) * Wfull);
            else draw_noise(m, in, &o, g->stdev, i, k, z, K, &ubase[u], &ualpha[u]);
            if (g->given) memcpy(z, g->given + ((size_t)i * n + k) * Wfull, sizeof(float) * Wfull);
            if (g->drawn && tunnel) memcpy(g->drawn + ((size_t)i * n + k) * Wfull, z, sizeof(float) * Wfull);
            if (shap && g->drawn_baseline) g->drawn_baseline[(size_t)i * n + k] = ubase[u];
            if (shap && g->drawn_alpha) g->drawn_alpha[(size_t)i * n + k] = (float)ualpha[u];
        }
        /* the pass's rows and baselines, for its active length */
        int L = 1;
        if (token) {
            for (int u = 0; u < nu; u++) {
                int i = order[(u0 + u) / n];
                memcpy(h_ids + (size_t)u * T, in->ids + (size_t)i * T, sizeof(int32_t) * T);
                ee_attr_row_mask(m, in, i, h_mask + (size_t)u * T);
                if (shap) { /* x's real tokens from the background row (ee_ig's ids baseline) */
                    const int32_t *x = in->ids + (size_t)i * T, *bg = g->background_ids + (size_t)ubase[u] * T;
                    int32_t *dst = h_ids + (size_t)(nu + u) * T;
                    for (int t = 0; t < T; t++) dst[t] = EE_IS_SPECIAL(x[t]) ? x[t] : bg[t];
                } else
                    ee_attr_row_baseline(m, in, &o, i, h_ids + (size_t)(nu + u) * T);
                memcpy(h_mask + (size_t)(nu + u) * T, h_mask + (size_t)u * T, (size_t)T);
                for (int t = 0; t < T; t++)
                    if (h_mask[(size_t)u * T + t] && t + 1 > L) L = t + 1;
            }
            int need = ee_run_needed_len(r, h_ids, h_mask, 2 * nu);
            if (need > L) L = need;
            /* the cnn's windows that start at the last attended positions
             * reach into the pads after them, whose gradient a saliency map
             * reads: the full length, so that no pass cuts them off */
            if (c->kind == EE_KIND_CNN) L = T;
        }
        int Wl = token ? L * d : Wfull; /* floats per row in this pass */
        /* e_x and e_b of every unit (the embedding alone, not a model pass) */
        if (token) {
            if ((st = ee_run_set_input_len(r, h_ids, h_mask, NULL, nu, L))) break;
            ee_run_embed(r, nu);
            be->download(ux, r->e, sizeof(float) * (size_t)nu * Wl);
            if (zero_base) memset(ub, 0, sizeof(float) * (size_t)nu * Wl);
            else {
                if ((st = ee_run_set_input_len(r, h_ids + (size_t)nu * T, h_mask + (size_t)nu * T, NULL, nu, L))) break;
                ee_run_embed(r, nu);
                be->download(ub, r->e, sizeof(float) * (size_t)nu * Wl);
            }
        } else {
            for (int u = 0; u < nu; u++) {
                memcpy(ux + (size_t)u * Wl, in->x + (size_t)order[(u0 + u) / n] * Wfull, sizeof(float) * Wfull);
                if (shap) memcpy(ub + (size_t)u * Wl, g->background_x + (size_t)ubase[u] * Wfull, sizeof(float) * Wfull);
                else memset(ub + (size_t)u * Wl, 0, sizeof(float) * Wl);
            }
        }
        /* each unit's point e~ = e_x + z */
        for (int u = 0; u < nu; u++)
            for (int q = 0; q < Wl; q++) ue[(size_t)u * Wl + q] = ux[(size_t)u * Wl + q] + uz[(size_t)u * Wfull + q];
        /* the pass: unit u's node p is row u s + p, at e_b + a_p (e~ - e_b);
         * deeplift's point e~ is row u, its reference e_b row nu + u */
        int nb = dl ? 2 * nu : nu * s;
        for (int j = 0; j < nb; j++) {
            int u = dl ? j % nu : j / s, p = dl ? 0 : j % s;
            if (dl) {
                memcpy(h_e + (size_t)j * Wl, (j < nu ? ue : ub) + (size_t)u * Wl, sizeof(float) * Wl);
                continue;
            }
            const float *et = ue + (size_t)u * Wl, *eb = ub + (size_t)u * Wl;
            float *dst = h_e + (size_t)j * Wl;
            double at = shap ? ualpha[u] : alpha[p];
            for (int q = 0; q < Wl; q++) dst[q] = ig || shap ? (float)(eb[q] + at * ((double)et[q] - eb[q])) : et[q];
        }
        if (token) {
            /* every row of the pass under its unit's ids and mask */
            for (int j = 0; j < nb; j++) {
                int u = dl ? j % nu : j / s, i = order[(u0 + u) / n];
                memcpy(h_ids + (size_t)j * T, in->ids + (size_t)i * T, sizeof(int32_t) * T);
                ee_attr_row_mask(m, in, i, h_mask + (size_t)j * T);
            }
            if ((st = ee_run_set_input_len(r, h_ids, h_mask, NULL, nb, L))) break;
            be->upload(r->e, h_e, sizeof(float) * (size_t)nb * Wl);
        } else if ((st = ee_run_set_input_len(r, NULL, NULL, h_e, nb, 1)))
            break;
        ee_run_forward(r, nb, 0);
        int nbw = dl ? nu : nb; /* rows whose gradient (multipliers) is taken */
        if (dl) { /* the target's f at each point and reference */
            be->download(h_out, r->out, sizeof(float) * (size_t)nb * C);
            for (int u = 0; u < nu; u++) {
                int i = order[(u0 + u) / n];
                Fx[i] += h_out[(size_t)u * C + tgt[i]] / (double)n;
                Fb[i] = h_out[(size_t)(nu + u) * C + tgt[i]];
            }
        }
        memset(h_dout, 0, sizeof(float) * (size_t)nbw * C);
        for (int j = 0; j < nbw; j++) h_dout[(size_t)j * C + tgt[order[(u0 + j / s) / n]]] = 1.0f;
        be->upload(d_dout, h_dout, sizeof(float) * (size_t)nbw * C);
        if (dl) {
            if ((st = ee_run_deeplift_backward(r, nu, d_dout))) break;
        } else
            ee_run_backward(r, nb, d_dout, 1, 0);
        be->download(h_de, r->de, sizeof(float) * (size_t)nbw * Wl);
        fwd += nb;
        bwd += nbw;
        for (int u = 0; u < nu; u++) {
            int i = order[(u0 + u) / n];
            for (int q = 0; q < Wl; q++) acc[q] = 0;
            for (int p = 0; p < s; p++) {
                const float *de = h_de + ((size_t)u * s + p) * Wl;
                for (int q = 0; q < Wl; q++) acc[q] += wts[p] * de[q];
            }
            int active = token ? L : cols;
            unit_scores(g->method, acc, ue + (size_t)u * Wl, ig || shap || dl ? ub + (size_t)u * Wl : NULL, active, per, a);
            for (int t = 0; t < active; t++) {
                S1[(size_t)i * cols + t] += a[t];
                S2[(size_t)i * cols + t] += a[t] * a[t];
            }
            if (var) { /* a row's units come in the order of k */
                double cnt = (double)((u0 + u) % n + 1);
                for (int t = 0; t < cols; t++) {
                    double at = t < active ? a[t] : 0, *mu = &Wm[(size_t)i * cols + t];
                    double dlt = at - *mu;
                    *mu += dlt / cnt;
                    Wv[(size_t)i * cols + t] += dlt * (at - *mu);
                }
            }
        }
        ee_progress_tick(&prog, (long)((u0 + nu) / n));
    }
    ee_progress_end(&prog, N, fwd + bwd);
    if (!st) st = ee_backend_check(be);
    if (!st) {
        for (size_t q = 0; q < (size_t)N * cols; q++) {
            double m1 = S1[q] / n, m2 = S2[q] / n;
            double v = g->noise == EE_NOISE_SMOOTHGRAD_SQ ? m2 : var ? Wv[q] / n : m1;
            J->A[q] = (float)v;
        }
        EeAttrInfo *info = J->info;
        if (info) {
            if (info->target) memcpy(info->target, tgt, sizeof(int32_t) * N);
            if (info->fx) memcpy(info->fx, fx, sizeof(float) * N);
            if (dl)
                for (int i = 0; i < N; i++) {
                    double sum = 0;
                    for (int t = 0; t < cols; t++) sum += J->A[(size_t)i * cols + t];
                    if (info->fbaseline) info->fbaseline[i] = (float)Fb[i];
                    if (info->delta)
                        info->delta[i] = g->noise == EE_NOISE_NONE || g->noise == EE_NOISE_SMOOTHGRAD
                                             ? (float)(sum - (Fx[i] - Fb[i])) : NAN;
                }
            info->forward = fwd;
            info->backward = bwd;
            info->seconds = ee_now() - t0;
        }
    }
done:
    be->release(d_dout);
    ee_run_free(r);
    free(alpha); free(wts); free(order); free(tgt); free(fx); free(h_ids); free(h_mask);
    ee_host_free(h_e); ee_host_free(h_de); ee_host_free(ux); ee_host_free(ub); ee_host_free(uz); ee_host_free(ue);
    free(h_out); free(h_dout); free(acc); free(a); free(S1); free(S2);
    free(ubase); free(ualpha); free(Wm); free(Wv); free(Fx); free(Fb);
    return st;
}

EeStatus ee_gradient_attribute(EeModel *m, const EeInput *in, const EeGradOptions *g, const EeAttrOptions *o,
                               float *A, EeAttrInfo *info)
{
    Job J = {m, in, g, o, A, info};
    EeStatus st = check(&J);
    if (st) return st;
    if (in->n == 0) return EE_OK;
    EeDevice dev;
    if ((st = ee_device_resolve(o->device, &dev))) return st;
    return ee_fit_batch(dev, &m->cfg, o->batch, run, &J);
}

double ee_gradient_bytes(const EeModel *m, int n, const EeGradOptions *g, const EeAttrOptions *o)
{
    const EeConfig *c = &m->cfg;
    if (n < 1) return 0;
    EeDevice dev = o->device != EE_DEVICE_AUTO ? o->device
                   : ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU;
    int token = ee_is_token_model(c), T = token ? c->T : 1, W = token ? c->T * c->d : c->D, C = c->classes;
    int s = g->method == EE_GRAD_IG ? o->steps : g->method == EE_GRAD_DEEPLIFT ? 2 : 1;
    int Bw = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    int U = Bw / s > 0 ? Bw / s : 1;
    int B = n < Bw ? n : Bw;
    if (B < U * s) B = U * s;
    double bytes = ee_run_bytes((EeModel *)m, dev, B, 1, 0);
    bytes += (double)n * (12 + 2.0 * 8 * (token ? T : W)) + (double)B * (2 * T * 5 + 2 * W * 4 + 2 * C * 4);
    bytes += 4.0 * U * W * 4 + W * 8.0 + T * 8.0;
    return bytes;
}
