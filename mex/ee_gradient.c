/* ee_gradient.c: MEX gateway. Gradient maps of a classifier (saliency,
 * gradient x input, IG, GradientSHAP, DeepLIFT) and the noise tunnel over them (SmoothGrad,
 * SmoothGrad-squared, VarGrad); see ee_gradient.m. libcore's
 * ee_gradient_attribute computes them. */
#include "mexattr.h"

#include <string.h>

enum { O_METHOD, O_NOISE, O_SAMPLES, O_STDEV, O_SEED, O_NOISE_VALUES, O_RETURN_NOISE, O_STEPS, O_RULE, O_BASELINE,
       O_BACKGROUND, O_TARGET, O_BATCH, O_DEVICE, O_PRECISION, O_VERBOSE, O_ROWS, NOPT };
static const char *const opt_names[NOPT] = {"method", "noise", "samples", "stdev", "seed", "noise_values",
                                            "return_noise", "steps", "rule", "baseline", "background", "target",
                                            "batch", "device", "precision", "verbose", "rows"};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_gradient(model, X, ...)");
    EeMxOpt o[NOPT];
    EeInput all;
    EeModel *m = ee_mx_attr_start("ee_gradient", nlhs, nrhs, prhs, 2, opt_names, o, NOPT, NULL, &all);
    const EeConfig *c = ee_model_config(m);
    int token = c->kind != EE_KIND_MLP, cols = token ? c->T : c->D, W = token ? c->T * c->d : c->D;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.stdev = 0.15;
    if (o[O_METHOD].value)
        g.method = (EeGradMethod)ee_mx_choice(o[O_METHOD].value, "'method'", ee_grad_method_names, EE_GRAD_METHOD_COUNT);
    if (o[O_NOISE].value) g.noise = (EeNoiseKind)ee_mx_choice(o[O_NOISE].value, "'noise'", ee_noise_names, EE_NOISE_COUNT);
    int shap = g.method == EE_GRAD_GRADIENTSHAP;
    if (shap && g.noise != EE_NOISE_NONE)
        ee_mx_error("ee:badInput", "gradientshap averages its own samples: 'noise' must be none (its noise is 'stdev')");
    if (!shap && o[O_BACKGROUND].value) ee_mx_error("ee:badInput", "'background' applies to the method 'gradientshap' only");
    if (shap && !o[O_BACKGROUND].value)
        ee_mx_error("ee:badInput", "gradientshap needs 'background': rows of %s to draw its baselines from",
                    token ? "token ids (K x T)" : "features (K x D)");
    /* the samples are drawn: a noise tunnel, or gradientshap (its noise is
     * optional, stdev 0 by default as in Captum) */
    int tunnel = g.noise != EE_NOISE_NONE || shap;
    if (shap) g.stdev = 0;
    if (!tunnel)
        for (int k = O_SAMPLES; k <= O_RETURN_NOISE; k++)
            if (o[k].value)
                ee_mx_error("ee:badInput", "'%s' applies to a noise tunnel ('noise' smoothgrad, smoothgrad_sq or vargrad)",
                            opt_names[k]);
    if (tunnel) g.samples = 10;
    if (o[O_SAMPLES].value) g.samples = ee_mx_int(o[O_SAMPLES].value, "'samples'", 1, 1 << 20);
    if (o[O_STDEV].value) {
        g.stdev = ee_mx_scalar(o[O_STDEV].value, "'stdev'");
        if (!(g.stdev >= 0) || !mxIsFinite(g.stdev))
            ee_mx_error("ee:badInput", "'stdev' (the noise's standard deviation) must be finite and >= 0, got %g", g.stdev);
    }
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.print = ee_mx_print;
    if (o[O_SEED].value) a.seed = (uint64_t)ee_mx_int(o[O_SEED].value, "'seed'", 0, 0x7fffffff);
    int ig = g.method == EE_GRAD_IG, dl = g.method == EE_GRAD_DEEPLIFT;
    if (!ig)
        for (int k = O_STEPS; k <= O_BASELINE; k++)
            if (o[k].value && !(dl && k == O_BASELINE))
                ee_mx_error("ee:badInput", "'%s' applies to the method%s only", opt_names[k],
                            k == O_BASELINE ? "s 'ig' and 'deeplift'" : " 'ig'");
    if (o[O_STEPS].value) a.steps = ee_mx_int(o[O_STEPS].value, "'steps'", 1, 1 << 20);
    if (o[O_RULE].value) {
        /* IG's quadrature rules: ee_ig's methods before xgrad */
        a.method = (EeIgMethod)ee_mx_choice(o[O_RULE].value, "'rule'", ee_ig_method_names, EE_IG_XGRAD);
        if (a.method != EE_IG_GAUSSLEGENDRE && a.steps < 2)
            ee_mx_error("ee:badInput", "the Riemann rules need 'steps' >= 2, got %d", a.steps);
    }
    ee_mx_attr_baseline(o[O_BASELINE].value, m, all.n, 1, &a);
    ee_mx_attr_target(o[O_TARGET].value, m, all.n, &a);
    ee_mx_attr_exec(o[O_BATCH].value, o[O_DEVICE].value, o[O_PRECISION].value, o[O_VERBOSE].value, &a);
    int ret_noise = o[O_RETURN_NOISE].value ? ee_mx_bool(o[O_RETURN_NOISE].value, "'return_noise'") : 0;
    if (shap) {
        int K;
        if (token) g.background_ids = ee_mx_tokens(o[O_BACKGROUND].value, "'background'", c->T, c->vocab, &K);
        else g.background_x = ee_mx_dense(o[O_BACKGROUND].value, "'background'", c->D, &K);
        if (K < 1) ee_mx_error("ee:badInput", "'background' must have at least one row");
        g.K = K;
    }
    int nrows;
    int *rows = ee_mx_attr_rows(o[O_ROWS].value, all.n, &nrows);
    size_t noise_count = (size_t)nrows * g.samples * W;
    /* given noise: W x n x rows, as info.noise_values returns it */
    const float *given = NULL;
    if (o[O_NOISE_VALUES].value) {
        const mxArray *v = o[O_NOISE_VALUES].value;
        if (!(mxIsSingle(v) || mxIsDouble(v)) || mxIsComplex(v) || mxIsSparse(v))
            ee_mx_error("ee:badInput", "'noise_values' must be a real single or double array");
        if (mxGetNumberOfElements(v) != noise_count)
            ee_mx_error("ee:badInput", "'noise_values' must have %d x %d x %d elements (%s x samples x rows), got %zu",
                        W, g.samples, nrows, token ? "d T" : "D", mxGetNumberOfElements(v));
        float *gv = ee_mx_malloc(sizeof(float) * (noise_count + 1), "'noise_values'");
        for (size_t q = 0; q < noise_count; q++) {
            double val = mxIsSingle(v) ? ((const float *)mxGetData(v))[q] : ((const double *)mxGetData(v))[q];
            if (!mxIsFinite(val)) ee_mx_error("ee:badInput", "'noise_values'(%zu) is %g: the noise must be finite", q + 1, val);
            gv[q] = (float)val;
        }
        given = gv;
    }
    ee_mx_budget(ee_gradient_bytes(m, nrows, &g, &a) + 8.0 * nrows * cols + 40.0 * nrows +
                     (ret_noise || given ? 8.0 * noise_count : 0), "the call");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)nrows * cols + 1), "the attributions");
    float *noise = ret_noise ? ee_mx_malloc(sizeof(float) * (noise_count + 1), "info.noise_values") : NULL;
    int32_t *bdrawn = shap ? ee_mx_malloc(sizeof(int32_t) * ((size_t)nrows * g.samples + 1), "info.background_row") : NULL;
    float *adrawn = shap ? ee_mx_malloc(sizeof(float) * ((size_t)nrows * g.samples + 1), "info.alpha") : NULL;
    EeAttrInfo info = ee_mx_attr_info_new(nrows, dl); /* deeplift: completeness, f(reference) and the gap */
    long fwd = 0, bwd = 0;
    double secs = 0;
    /* one call per maximal run of consecutive rows, keyed by its offset in
     * X (the noise streams are the rows'), as ee_sv does */
    for (int i0 = 0; i0 < nrows;) {
        EeAttrOptions s;
        EeInput in;
        int i1 = ee_mx_attr_run_rows(rows, nrows, i0, &all, cols, &a, &s, &in);
        EeGradOptions gs = g;
        size_t per_row = (size_t)g.samples * W;
        if (given) gs.given = given + (size_t)i0 * per_row;
        if (noise) gs.drawn = noise + (size_t)i0 * per_row;
        if (shap) {
            gs.drawn_baseline = bdrawn + (size_t)i0 * g.samples;
            gs.drawn_alpha = adrawn + (size_t)i0 * g.samples;
        }
        EeAttrInfo part = ee_mx_attr_info_from(&info, i0);
        EeStatus st = ee_gradient_attribute(m, &in, &gs, &s, A + (size_t)i0 * cols, &part);
        if (st) ee_mx_fail(st);
        fwd += part.forward;
        bwd += part.backward;
        secs += part.seconds;
        i0 = i1;
    }
    plhs[0] = ee_mx_single_matrix(A, nrows, cols);
    if (nlhs > 1) {
        /* ee_ig's info; fbaseline and delta for deeplift (completeness) */
        mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
        double *tv = ee_mx_malloc(sizeof(double) * (nrows + 1), "info"), *fv = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
        for (int i = 0; i < nrows; i++) {
            tv[i] = info.target[i] + 1;
            fv[i] = info.fx[i];
        }
        ee_mx_set(s, "target", ee_mx_double_vector(tv, nrows));
        ee_mx_set(s, "fx", ee_mx_double_vector(fv, nrows));
        if (dl) {
            double *bv = ee_mx_malloc(sizeof(double) * (nrows + 1), "info"), *dv = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
            for (int i = 0; i < nrows; i++) {
                bv[i] = info.fbaseline[i];
                dv[i] = info.delta[i];
            }
            ee_mx_set(s, "fbaseline", ee_mx_double_vector(bv, nrows));
            ee_mx_set(s, "delta", ee_mx_double_vector(dv, nrows));
        }
        ee_mx_set(s, "passes", mxCreateDoubleScalar((double)(fwd + bwd)));
        ee_mx_set(s, "forward_passes", mxCreateDoubleScalar((double)fwd));
        ee_mx_set(s, "backward_passes", mxCreateDoubleScalar((double)bwd));
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(secs));
        ee_mx_set(s, "method", mxCreateString(ee_grad_method_names[g.method]));
        ee_mx_set(s, "steps", mxCreateDoubleScalar(ig ? a.steps : 1));
        ee_mx_set(s, "noise", mxCreateString(ee_noise_names[g.noise]));
        ee_mx_set(s, "samples", mxCreateDoubleScalar(g.samples));
        ee_mx_set(s, "stdev", mxCreateDoubleScalar(tunnel ? g.stdev : 0));
        ee_mx_set(s, "seed", mxCreateDoubleScalar((double)a.seed));
        if (ig) ee_mx_set(s, "rule", mxCreateString(ee_ig_method_names[a.method]));
        if (shap) { /* n x N: sample k of row i used background row (1-based) and a */
            mxArray *br = mxCreateDoubleMatrix((size_t)g.samples, (size_t)nrows, mxREAL);
            mxArray *al = mxCreateDoubleMatrix((size_t)g.samples, (size_t)nrows, mxREAL);
            for (size_t q = 0; q < (size_t)nrows * g.samples; q++) {
                mxGetPr(br)[q] = bdrawn[q] + 1;
                mxGetPr(al)[q] = adrawn[q];
            }
            ee_mx_set(s, "background_row", br);
            ee_mx_set(s, "alpha", al);
        }
        if (noise) {
            mwSize dims[3] = {(mwSize)W, (mwSize)g.samples, (mwSize)nrows};
            mxArray *z = mxCreateNumericArray(3, dims, mxSINGLE_CLASS, mxREAL);
            memcpy(mxGetData(z), noise, sizeof(float) * noise_count);
            ee_mx_set(s, "noise_values", z);
        }
        plhs[1] = s;
    }
    ee_mx_cleanup();
}
