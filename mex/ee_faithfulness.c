/* ee_faithfulness.c: MEX gateway. The faithfulness of attribution maps to
 * a classifier: ERASER comprehensiveness and sufficiency, deletion and
 * insertion curves and areas, the log-odds drop (see ee_faithfulness.m;
 * the measures are computed by libcore's ee_faithfulness). */
#include "mexattr.h"
#include "mexfn.h"

#include <string.h>

enum { O_STEPS, O_LOGODDS, O_SCORE, O_INFIDELITY, O_SEED, O_BASELINE, O_TARGET, O_BATCH, O_DEVICE, O_PRECISION,
       O_VERBOSE, O_ROWS, O_SENS, O_SENS_SAMPLES, O_RADIUS, O_SENS_STEPS, NOPT };
static const char *const opt_names[NOPT] = {"steps", "logodds", "score", "infidelity", "seed", "baseline", "target",
                                            "batch", "device", "precision", "verbose", "rows", "sensitivity",
                                            "sensitivity_samples", "radius", "sensitivity_steps"};

static double *col(int n, const char *what) { return ee_mx_malloc(sizeof(double) * ((size_t)n + 1), what); }

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    /* any model, as a function: mexfn.c (which refuses a second output too) */
    if (ee_mx_fn_gateway("ee_faithfulness", "F = ee_faithfulness(model, X, A, ...)", 3, ee_mx_faithfulness_fn, nlhs,
                         plhs, nrhs, prhs))
        return;
    if (nlhs > 1) ee_mx_error("ee:badInput", "ee_faithfulness returns one output (a struct)");
    EeMxOpt o[NOPT];
    EeInput all;
    EeModel *m = ee_mx_attr_start("ee_faithfulness", nlhs, nrhs, prhs, 3, opt_names, o, NOPT, NULL, &all);
    const EeConfig *c = ee_model_config(m);
    int token = c->kind != EE_KIND_MLP, W = token ? c->T : c->D;
    const float *Aall = ee_mx_maps(prhs[2], "A", all.n, W);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.print = ee_mx_print;
    EeFaithOptions f;
    ee_faith_options_defaults(&f);
    if (o[O_STEPS].value) f.steps = ee_mx_int(o[O_STEPS].value, "'steps'", 0, 1 << 20);
    if (o[O_LOGODDS].value) f.logodds_percent = ee_mx_int(o[O_LOGODDS].value, "'logodds'", 1, 100);
    if (o[O_SCORE].value)
        f.score = (EeFaithScore)ee_mx_choice(o[O_SCORE].value, "'score'", ee_faith_score_names, EE_FAITH_SCORE_COUNT);
    if (o[O_INFIDELITY].value) f.infidelity_samples = ee_mx_int(o[O_INFIDELITY].value, "'infidelity'", 0, 1 << 20);
    /* sensitivity-max of a gradient method: its perturbations and, for ig, its quadrature */
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    int sens = o[O_SENS].value != NULL, sens_n = 10;
    double radius = 0.02; /* Captum's defaults: 10 perturbations of radius 0.02 */
    if (sens) {
        /* the methods of ee_gradient that map x deterministically (not gradientshap) */
        g.method = (EeGradMethod)ee_mx_choice(o[O_SENS].value, "'sensitivity'", ee_grad_method_names, EE_GRAD_GRADIENTSHAP);
        if (o[O_SENS_SAMPLES].value) sens_n = ee_mx_int(o[O_SENS_SAMPLES].value, "'sensitivity_samples'", 1, 1 << 20);
        if (o[O_RADIUS].value) {
            radius = ee_mx_scalar(o[O_RADIUS].value, "'radius'");
            if (!(radius >= 0) || !mxIsFinite(radius))
                ee_mx_error("ee:badInput", "'radius' (of the perturbations) must be finite and >= 0, got %g", radius);
        }
    } else {
        for (int k = O_SENS_SAMPLES; k <= O_SENS_STEPS; k++)
            if (o[k].value) ee_mx_error("ee:badInput", "'%s' applies to 'sensitivity' (a gradient method)", opt_names[k]);
    }
    if (o[O_SENS_STEPS].value) {
        if (g.method != EE_GRAD_IG) ee_mx_error("ee:badInput", "'sensitivity_steps' applies to 'sensitivity', 'ig'");
        a.steps = ee_mx_int(o[O_SENS_STEPS].value, "'sensitivity_steps'", 1, 1 << 20);
    }
    if (o[O_SEED].value) {
        if (!f.infidelity_samples && !sens)
            ee_mx_error("ee:badInput", "'seed' applies to the infidelity's subsets ('infidelity' > 0) and to the "
                        "'sensitivity' perturbations");
        a.seed = (uint64_t)ee_mx_int(o[O_SEED].value, "'seed'", 0, 0x7fffffff);
    }
    ee_mx_attr_baseline(o[O_BASELINE].value, m, all.n, 0, &a);
    ee_mx_attr_target(o[O_TARGET].value, m, all.n, &a);
    ee_mx_attr_exec(o[O_BATCH].value, o[O_DEVICE].value, o[O_PRECISION].value, o[O_VERBOSE].value, &a);
    int nrows;
    int *rows = ee_mx_attr_rows(o[O_ROWS].value, all.n, &nrows);

    /* the budget: the measure (over all rows of X, a bound for the
     * selection), the selected rows' copies (ids or x, baseline, maps),
     * the results twice (ours and Octave's) */
    int K = f.steps, NB = EE_FAITH_BINS;
    double out_per_row = 8.0 * (5 + 2 * NB + 2 * (K ? K + 1 : 0) + 4) + 8;
    double sbytes = sens ? ee_sensitivity_bytes(m, all.n, &g, &a, sens_n) : 0;
    ee_mx_budget(ee_faithfulness_bytes(m, &all, &a, &f) + sbytes + (double)nrows * W * 4 * 3 + 2 * out_per_row * nrows,
                 "the call");
    int32_t *ids = token ? ee_mx_malloc(sizeof(int32_t) * ((size_t)nrows * W + 1), "the rows of X") : NULL;
    float *x = token ? NULL : ee_mx_malloc(sizeof(float) * ((size_t)nrows * W + 1), "the rows of X");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)nrows * W + 1), "the rows of A");
    int32_t *bids = a.baseline_ids ? ee_mx_malloc(sizeof(int32_t) * ((size_t)nrows * W + 1), "the baseline rows") : NULL;
    int32_t *tg = a.target ? ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "the targets") : NULL;
    for (int i = 0; i < nrows; i++) {
        size_t src = (size_t)rows[i] * W, dst = (size_t)i * W;
        if (token) memcpy(ids + dst, all.ids + src, sizeof(int32_t) * W);
        else memcpy(x + dst, all.x + src, sizeof(float) * W);
        memcpy(A + dst, Aall + src, sizeof(float) * W);
        if (bids) memcpy(bids + dst, a.baseline_ids + src, sizeof(int32_t) * W);
        if (tg) tg[i] = a.target[rows[i]];
    }
    a.baseline_ids = bids;
    a.target = tg;

    EeFaithResult r = ee_mx_faith_result(nrows, K);
    double *smax = sens ? col(nrows, "F") : NULL;
    long spasses = 0;
    double ssec = 0;
    /* one call per maximal run of consecutive rows, keyed by its offset in
     * X (the infidelity's subsets are drawn from the rows' streams) */
    for (int i0 = 0; i0 < nrows;) {
        EeAttrOptions s;
        int i1 = ee_mx_attr_run(rows, nrows, i0, &a, &s);
        size_t o0 = (size_t)i0 * W;
        EeInput part = {.n = i1 - i0, .ids = ids ? ids + o0 : NULL, .x = x ? x + o0 : NULL};
        if (bids) s.baseline_ids = bids + o0;
        if (tg) s.target = tg + i0;
        EeFaithResult q = ee_mx_faith_from(&r, i0, K);
        EeStatus st = ee_faithfulness(m, &part, A + o0, &s, &f, &q);
        if (st) ee_mx_fail(st);
        r.forward += q.forward;
        r.seconds += q.seconds;
        if (sens) {
            EeAttrInfo si = {0};
            if ((st = ee_sensitivity_max(m, &part, &g, &s, sens_n, radius, NULL, NULL, smax + i0, &si))) ee_mx_fail(st);
            spasses += si.forward + si.backward;
            ssec += si.seconds;
        }
        i0 = i1;
    }

    mxArray *s = ee_mx_faith_struct(&r, nrows, K, 1, f.infidelity_samples != 0);
    ee_mx_set(s, "score", mxCreateString(ee_faith_score_names[f.score]));
    ee_mx_set(s, "steps", mxCreateDoubleScalar(K));
    ee_mx_set(s, "logodds", mxCreateDoubleScalar(f.logodds_percent));
    if (f.infidelity_samples) {
        ee_mx_set(s, "infidelity_samples", mxCreateDoubleScalar(f.infidelity_samples));
        ee_mx_set(s, "seed", mxCreateDoubleScalar((double)a.seed));
    }
    if (sens) {
        ee_mx_set(s, "sensitivity_max", ee_mx_double_vector(smax, nrows));
        ee_mx_set(s, "sensitivity", mxCreateString(ee_grad_method_names[g.method]));
        ee_mx_set(s, "sensitivity_samples", mxCreateDoubleScalar(sens_n));
        ee_mx_set(s, "radius", mxCreateDoubleScalar(radius));
        if (g.method == EE_GRAD_IG) ee_mx_set(s, "sensitivity_steps", mxCreateDoubleScalar(a.steps));
        ee_mx_set(s, "sensitivity_passes", mxCreateDoubleScalar((double)spasses));
        ee_mx_set(s, "sensitivity_seconds", mxCreateDoubleScalar(ssec));
        if (!f.infidelity_samples) ee_mx_set(s, "seed", mxCreateDoubleScalar((double)a.seed));
    }
    ee_mx_set(s, "passes", mxCreateDoubleScalar((double)r.forward));
    ee_mx_set(s, "seconds", mxCreateDoubleScalar(r.seconds));
    plhs[0] = s;
    ee_mx_cleanup();
}
