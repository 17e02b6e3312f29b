/* ee_sv.c: MEX gateway. Shapley Value Sampling and exact Shapley values
 * of a token model (see ee_sv.m); a function handle as the model goes to
 * mexfn.c. */
#include "mexattr.h"
#include "mexcoal.h"
#include "mexfn.h"

#include <string.h>

enum { O_SAMPLES, O_SEED, O_PERMS, O_BASELINE, O_TARGET, O_BATCH, O_DEVICE, O_PRECISION, O_VERBOSE, O_ROWS,
       O_EXACT, O_INCREMENTAL, O_METHOD, NOPT };
static const char *const opt_names[NOPT] = {"samples", "seed", "permutations", "baseline",
                                            "target", "batch", "device", "precision", "verbose", "rows", "exact",
                                            "incremental", "method"};

/* 'permutations': 1 x N cell, cell i an s x n_i matrix of permutations of
 * 1..n_i. One buffer holds them all (a buffer per row would run into the
 * gateway's cap on buffers for long X): a first pass checks the shapes and
 * sums the sizes, the second converts the values. */
static const int32_t **read_perms(const mxArray *v, const EeInput *in, int T, int *steps)
{
    if (!mxIsCell(v) || mxGetNumberOfElements(v) != (size_t)in->n)
        ee_mx_error("ee:badInput", "'permutations' must be a cell with one matrix per row of X (%d)", in->n);
    int s = -1;
    size_t total = 0;
    for (int i = 0; i < in->n; i++) {
        const mxArray *p = mxGetCell(v, i);
        int n = ee_count_real(in->ids + (size_t)i * T, T);
        if (!p || !(mxIsNumeric(p)) || mxIsComplex(p) || mxIsSparse(p) || mxGetNumberOfDimensions(p) != 2)
            ee_mx_error("ee:badInput", "permutations{%d} must be a numeric s x %d matrix", i + 1, n);
        if (mxGetClassID(p) != mxDOUBLE_CLASS && mxGetClassID(p) != mxSINGLE_CLASS && mxGetClassID(p) != mxINT32_CLASS)
            ee_mx_error("ee:badInput", "permutations{%d} must be double, single or int32", i + 1);
        int rows = (int)mxGetM(p), cols = (int)mxGetN(p);
        if (n == 0) continue;
        if (cols != n)
            ee_mx_error("ee:badInput", "permutations{%d} must have %d columns (the real tokens of row %d), got %d",
                        i + 1, n, i + 1, cols);
        if (s < 0) s = rows;
        if (rows != s || rows < 1)
            ee_mx_error("ee:badInput", "every permutations{i} must have the same number of rows (samples), >= 1");
        total += (size_t)rows * cols;
    }
    const int32_t **perms = ee_mx_malloc(sizeof(int32_t *) * (in->n + 1), "'permutations'");
    int32_t *q = ee_mx_malloc(sizeof(int32_t) * (total + 1), "'permutations'");
    for (int i = 0; i < in->n; i++) {
        const mxArray *p = mxGetCell(v, i);
        int rows = (int)mxGetM(p), n = ee_count_real(in->ids + (size_t)i * T, T);
        if (n == 0) { perms[i] = NULL; continue; }
        /* values 1..n; libcore checks that each row is a permutation */
        for (int k = 0; k < rows; k++)
            for (int j = 0; j < n; j++) {
                size_t idx = (size_t)k + (size_t)rows * j;
                double val;
                switch (mxGetClassID(p)) {
                case mxDOUBLE_CLASS: val = ((const double *)mxGetData(p))[idx]; break;
                case mxSINGLE_CLASS: val = ((const float *)mxGetData(p))[idx]; break;
                default: val = ((const int32_t *)mxGetData(p))[idx]; break;
                }
                if (!(val >= 1 && val <= n) || val != (double)(int)val)
                    ee_mx_error("ee:badInput", "permutations{%d}(%d,%d) = %g is not in 1..%d", i + 1, k + 1, j + 1, val, n);
                q[(size_t)k * n + j] = (int32_t)val - 1;
            }
        perms[i] = q;
        q += (size_t)rows * n;
    }
    *steps = s < 0 ? 1 : s;
    return perms;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    /* any model, as a function: mexfn.c */
    if (ee_mx_fn_gateway("ee_sv", "[A, info] = ee_sv(model, X, ...)", 2, ee_mx_sv_fn, nlhs, plhs, nrhs, prhs)) return;
    if (ee_mx_option_is(nrhs, prhs, 2, "method", "kernelshap")) { /* KernelSHAP (mexcoal.c) */
        ee_mx_coalition_model("ee_sv", EE_COAL_KERNELSHAP, nlhs, plhs, nrhs, prhs);
        return;
    }
    EeMxOpt o[NOPT];
    EeInput all;
    EeModel *m = ee_mx_attr_start("ee_sv", nlhs, nrhs, prhs, 2, opt_names, o, NOPT,
                                  "Shapley sampling is defined for token models (transformer, cnn), not mlp", &all);
    const EeConfig *c = ee_model_config(m);
    EeAttrOptions a;
    int exact = ee_mx_attr_sampling(o[O_EXACT].value, o[O_SAMPLES].value, o[O_SEED].value, &a);
    if (o[O_METHOD].value) { /* 'kernelshap' went to mexcoal.c above */
        static const char *const methods[] = {"sampling", "exact", "kernelshap"};
        int k = ee_mx_choice(o[O_METHOD].value, "'method'", methods, 3);
        if (k == 1) exact = 1;
        if (k == 0 && exact) ee_mx_error("ee:badInput", "'method', 'sampling' and 'exact', true exclude each other");
    }
    ee_mx_attr_baseline(o[O_BASELINE].value, m, all.n, 0, &a);
    ee_mx_attr_target(o[O_TARGET].value, m, all.n, &a);
    ee_mx_attr_exec(o[O_BATCH].value, o[O_DEVICE].value, o[O_PRECISION].value, o[O_VERBOSE].value, &a);
    if (o[O_INCREMENTAL].value) a.full_passes = !ee_mx_bool(o[O_INCREMENTAL].value, "'incremental'");
    int nrows;
    int *rows = ee_mx_attr_rows(o[O_ROWS].value, all.n, &nrows);
    const int32_t **perms = NULL;
    if (o[O_PERMS].value) {
        if (exact) ee_mx_error("ee:badInput", "'permutations' and 'exact' exclude each other");
        perms = read_perms(o[O_PERMS].value, &all, c->T, &a.steps);
    }
    int T = c->T;
    /* the budget: the sampler (estimated over all rows of X, a bound for
     * any run of them), the maps twice (ours and Octave's) and the info */
    ee_mx_budget(ee_sv_bytes(m, &all, &a, exact) + 8.0 * nrows * T + 40.0 * nrows, "the call");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)nrows * T + 1), "the attributions");
    EeAttrInfo info = ee_mx_attr_info_new(nrows, 1);
    /* the per-permutation variance, when the caller asks for info */
    float *var = nlhs > 1 && !exact ? ee_mx_malloc(sizeof(float) * ((size_t)nrows * T + 1), "info.variance") : NULL;
    /* one call per maximal run of consecutive rows, keyed by its offset in X */
    for (int i0 = 0; i0 < nrows;) {
        EeAttrOptions s;
        EeInput in;
        int i1 = ee_mx_attr_run_rows(rows, nrows, i0, &all, T, &a, &s, &in);
        if (perms) s.perms = perms + rows[i0];
        EeAttrInfo part = ee_mx_attr_info_from(&info, i0);
        part.variance = var ? var + (size_t)i0 * T : NULL;
        EeStatus st = exact ? ee_shapley_exact(m, &in, &s, A + (size_t)i0 * T, &part)
                            : ee_sv_attribute(m, &in, &s, A + (size_t)i0 * T, &part);
        if (st) ee_mx_fail(st);
        info.forward += part.forward;
        info.seconds += part.seconds;
        i0 = i1;
    }
    if (exact) /* exact values have no sampling delta beyond rounding */
        for (int i = 0; i < nrows; i++) {
            double sum = 0;
            for (int t = 0; t < T; t++) sum += A[(size_t)i * T + t];
            info.delta[i] = (float)(sum - ((double)info.fx[i] - info.fbaseline[i]));
        }
    plhs[0] = ee_mx_single_matrix(A, nrows, T);
    if (nlhs > 1) {
        plhs[1] = ee_mx_attr_info(&info, nrows, exact ? "exact" : perms ? "permutations" : "sampling", a.steps, 1);
        if (var) ee_mx_set(plhs[1], "variance", ee_mx_single_matrix(var, nrows, T));
    }
    ee_mx_cleanup();
}
