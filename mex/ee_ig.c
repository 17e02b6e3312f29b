/* ee_ig.c: MEX gateway. Integrated Gradients and X-Gradient (see ee_ig.m);
 * a function handle as the model goes to mexfn.c. */
#include "mexattr.h"
#include "mexfn.h"

#include <string.h>

enum { O_STEPS, O_METHOD, O_BASELINE, O_TARGET, O_BATCH, O_DEVICE, O_PRECISION, O_VERBOSE, O_ROWS, O_INCREMENTAL,
       NOPT };
static const char *const opt_names[NOPT] = {"steps", "method", "baseline", "target", "batch",
                                            "device", "precision", "verbose", "rows", "incremental"};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    /* any model, as a function: mexfn.c */
    if (ee_mx_fn_gateway("ee_ig", "[A, info] = ee_ig(model, X, ...)", 2, ee_mx_ig_fn, nlhs, plhs, nrhs, prhs)) return;
    EeMxOpt o[NOPT];
    EeInput all;
    EeModel *m = ee_mx_attr_start("ee_ig", nlhs, nrhs, prhs, 2, opt_names, o, NOPT, NULL, &all);
    const EeConfig *c = ee_model_config(m);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.print = ee_mx_print;
    if (o[O_METHOD].value) a.method = (EeIgMethod)ee_mx_choice(o[O_METHOD].value, "'method'", ee_ig_method_names,
                                                                   EE_IG_METHOD_COUNT);
    int onegrad = a.method == EE_IG_XGRAD || a.method == EE_IG_GRADXINPUT;
    if (o[O_STEPS].value) {
        if (onegrad) ee_mx_error("ee:badInput", "'steps' does not apply to xgrad or gradxinput (one gradient)");
        a.steps = ee_mx_int(o[O_STEPS].value, "'steps'", 1, 1 << 20);
    }
    if (onegrad) {
        a.steps = 1;
        if (o[O_BASELINE].value) ee_mx_error("ee:badInput", "xgrad and gradxinput have no baseline option (one gradient at the input)");
    }
    ee_mx_attr_baseline(o[O_BASELINE].value, m, all.n, 1, &a);
    if (onegrad) a.baseline = EE_BASELINE_ZERO;
    ee_mx_attr_target(o[O_TARGET].value, m, all.n, &a);
    ee_mx_attr_exec(o[O_BATCH].value, o[O_DEVICE].value, o[O_PRECISION].value, o[O_VERBOSE].value, &a);
    if (o[O_INCREMENTAL].value) a.full_passes = !ee_mx_bool(o[O_INCREMENTAL].value, "'incremental'");
    int nrows;
    int *rows = ee_mx_attr_rows(o[O_ROWS].value, all.n, &nrows);

    /* gather the selected rows (IG is deterministic: no stream keys);
     * first the budget: the rows' copies, the sampler, the maps twice
     * (ours and Octave's) and the info arrays */
    int token = c->kind != EE_KIND_MLP, W = token ? c->T : c->D;
    ee_mx_budget((double)nrows * W * 4 * (2 + (a.baseline_ids != NULL) + 2) + 40.0 * nrows +
                     ee_ig_bytes(m, nrows, &a), "the call");
    EeInput in = {.n = nrows};
    int32_t *ids = token ? ee_mx_malloc(sizeof(int32_t) * ((size_t)nrows * W + 1), "the rows of X") : NULL;
    float *x = token ? NULL : ee_mx_malloc(sizeof(float) * ((size_t)nrows * W + 1), "the rows of X");
    int32_t *bids = a.baseline_ids ? ee_mx_malloc(sizeof(int32_t) * ((size_t)nrows * W + 1), "the baseline rows") : NULL;
    int32_t *tg = a.target ? ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "the targets") : NULL;
    for (int i = 0; i < nrows; i++) {
        if (token) memcpy(ids + (size_t)i * W, all.ids + (size_t)rows[i] * W, sizeof(int32_t) * W);
        else memcpy(x + (size_t)i * W, all.x + (size_t)rows[i] * W, sizeof(float) * W);
        if (bids) memcpy(bids + (size_t)i * W, a.baseline_ids + (size_t)rows[i] * W, sizeof(int32_t) * W);
        if (tg) tg[i] = a.target[rows[i]];
    }
    in.ids = ids;
    in.x = x;
    a.baseline_ids = bids;
    a.target = tg;

    float *A = ee_mx_malloc(sizeof(float) * ((size_t)nrows * W + 1), "the attributions");
    EeAttrInfo info = ee_mx_attr_info_new(nrows, 1);
    EeStatus st = ee_ig_attribute(m, &in, &a, A, &info);
    if (st) ee_mx_fail(st);
    plhs[0] = ee_mx_single_matrix(A, nrows, W);
    if (nlhs > 1) plhs[1] = ee_mx_attr_info(&info, nrows, ee_ig_method_names[a.method], a.steps, 1);
    ee_mx_cleanup();
}
