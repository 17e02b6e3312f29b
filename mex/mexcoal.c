/* mexcoal.c: the coalition methods of a built-in model (see mexcoal.h):
 * the options of each gateway, the per-row coalition sets, the memory
 * budget, one ee_coalition_attribute call per run of consecutive rows
 * (keyed by its first row, so that a row's draw does not depend on the
 * selection), and the info struct. */
#include "mexcoal.h"
#include "mexattr.h"

#include <math.h>
#include <string.h>
#include <strings.h>

enum { C_SAMPLES, C_SEED, C_BASELINE, C_TARGET, C_BATCH, C_DEVICE, C_PRECISION, C_VERBOSE, C_ROWS, C_WINDOW,
       C_STRIDE, C_COALITIONS, C_WEIGHTS, C_PAIRED, C_WIDTH, C_RIDGE, C_METHOD, C_INCREMENTAL, NCOPT };
static const char *const copt_names[NCOPT] = {"samples", "seed", "baseline", "target", "batch", "device",
                                              "precision", "verbose", "rows", "window", "stride", "coalitions",
                                              "weights", "paired", "width", "ridge", "method",
                                              "incremental"};

int ee_mx_option_is(int nrhs, const mxArray *prhs[], int first, const char *name, const char *value)
{
    for (int i = first; i + 1 < nrhs; i += 2) {
        char buf[64];
        if (!mxIsChar(prhs[i]) || mxGetString(prhs[i], buf, sizeof buf) || strcasecmp(buf, name)) continue;
        if (!mxIsChar(prhs[i + 1]) || mxGetString(prhs[i + 1], buf, sizeof buf)) return 0;
        return !strcasecmp(buf, value);
    }
    return 0;
}

/* cell{i}: a K x n 0/1 matrix (logical or numeric), row i's coalitions */
static uint8_t *read_row_coalitions(const mxArray *p, int i, int n, long *K)
{
    if (!p || !(mxIsNumeric(p) || mxIsLogical(p)) || mxIsComplex(p) || mxIsSparse(p) ||
        mxGetNumberOfDimensions(p) != 2 || mxGetN(p) != (size_t)n || mxGetM(p) < 1)
        ee_mx_error("ee:badInput", "'coalitions'{%d} must be a K x %d logical matrix (one column per player of row %d, "
                    "K >= 1), got %s %zux%zu", i + 1, n, i + 1, p ? mxGetClassName(p) : "nothing",
                    p ? mxGetM(p) : 0, p ? mxGetN(p) : 0);
    size_t m = mxGetM(p);
    if (m > 0x7fffffff / (size_t)n) ee_mx_error("ee:badInput", "'coalitions'{%d} is too large", i + 1);
    uint8_t *Z = ee_mx_malloc(m * n + 1, "'coalitions'");
    for (size_t k = 0; k < m; k++)
        for (int j = 0; j < n; j++) {
            size_t at = k + m * j;
            double val;
            switch (mxGetClassID(p)) {
            case mxLOGICAL_CLASS: val = mxGetLogicals(p)[at] != 0; break;
            case mxDOUBLE_CLASS: val = mxGetPr(p)[at]; break;
            case mxSINGLE_CLASS: val = ((const float *)mxGetData(p))[at]; break;
            case mxINT32_CLASS: val = ((const int32_t *)mxGetData(p))[at]; break;
            case mxUINT8_CLASS: val = ((const uint8_t *)mxGetData(p))[at]; break;
            default: ee_mx_error("ee:badInput", "'coalitions'{%d} must be logical, double, single, int32 or uint8", i + 1);
            }
            if (val != 0 && val != 1)
                ee_mx_error("ee:badInput", "'coalitions'{%d}(%zu,%d) = %g: a coalition holds 0 (absent) or 1 (present)",
                            i + 1, k + 1, j + 1, val);
            Z[k * n + j] = val == 1;
        }
    *K = (long)m;
    return Z;
}

static double *read_row_weights(const mxArray *p, int i, long K)
{
    if (!p || !mxIsDouble(p) || mxIsComplex(p) || mxIsSparse(p) || mxGetNumberOfElements(p) != (size_t)K ||
        (mxGetM(p) != 1 && mxGetN(p) != 1))
        ee_mx_error("ee:badInput", "'weights'{%d} must be a double vector of %ld values (one per coalition of row %d)",
                    i + 1, K, i + 1);
    double *w = ee_mx_malloc(sizeof(double) * (K + 1), "'weights'");
    for (long k = 0; k < K; k++) {
        w[k] = mxGetPr(p)[k];
        if (!(w[k] >= 0) || !isfinite(w[k]))
            ee_mx_error("ee:badInput", "'weights'{%d}(%ld) = %g: weights must be finite and >= 0", i + 1, k + 1, w[k]);
    }
    return w;
}

/* 'coalitions' (and 'weights'): a cell with one entry per row of X */
static void read_coalition_cells(const mxArray *cz, const mxArray *cw, const EeModel *m, const EeInput *all,
                                 EeCoalitionModelOptions *c)
{
    int N = all->n;
    if (!mxIsCell(cz) || mxGetNumberOfElements(cz) != (size_t)N)
        ee_mx_error("ee:badInput", "'coalitions' must be a cell with one K x n matrix per row of X (%d)", N);
    if (cw && (!mxIsCell(cw) || mxGetNumberOfElements(cw) != (size_t)N))
        ee_mx_error("ee:badInput", "'weights' must be a cell with one vector per row of X (%d)", N);
    uint8_t **Z = ee_mx_malloc(sizeof(uint8_t *) * (N + 1), "'coalitions'");
    double **W = cw ? ee_mx_malloc(sizeof(double *) * (N + 1), "'weights'") : NULL;
    long *K = ee_mx_malloc(sizeof(long) * (N + 1), "'coalitions'");
    for (int i = 0; i < N; i++) {
        int n = ee_coalition_players(m, all, i);
        Z[i] = NULL;
        K[i] = 0;
        if (W) W[i] = NULL;
        if (n == 0) continue;
        Z[i] = read_row_coalitions(mxGetCell(cz, i), i, n, &K[i]);
        if (W) W[i] = read_row_weights(mxGetCell(cw, i), i, K[i]);
    }
    c->coalitions = (const uint8_t *const *)Z;
    c->count = K;
    c->weights = (const double *const *)W;
}

static const char *kind_name(EeCoalitionKind k)
{
    return k == EE_COAL_KERNELSHAP ? "kernelshap" : k == EE_COAL_LIME ? "lime" : "occlusion";
}

void ee_mx_coalition_model(const char *gateway, EeCoalitionKind kind, int nlhs, mxArray *plhs[], int nrhs,
                           const mxArray *prhs[])
{
    EeMxOpt o[NCOPT];
    EeInput all;
    EeModel *m = ee_mx_attr_start(gateway, nlhs, nrhs, prhs, 2, copt_names, o, NCOPT, NULL, &all);
    /* each method's own options; another method's is refused by name */
    static const int occl_only[] = {C_WINDOW, C_STRIDE, -1}, fit_only[] = {C_SAMPLES, C_SEED, C_COALITIONS,
                                                                           C_WEIGHTS, -1};
    for (int k = 0; occl_only[k] >= 0; k++)
        if (o[occl_only[k]].value && kind != EE_COAL_OCCLUSION)
            ee_mx_error("ee:badInput", "'%s' is an option of ee_occlusion", copt_names[occl_only[k]]);
    for (int k = 0; fit_only[k] >= 0; k++)
        if (o[fit_only[k]].value && kind == EE_COAL_OCCLUSION)
            ee_mx_error("ee:badInput", "'%s' is an option of ee_lime and ee_sv's 'kernelshap', not of %s",
                        copt_names[fit_only[k]], gateway);
    if (o[C_PAIRED].value && kind != EE_COAL_KERNELSHAP)
        ee_mx_error("ee:badInput", "'paired' is an option of ee_sv's 'kernelshap'");
    if ((o[C_WIDTH].value || o[C_RIDGE].value) && kind != EE_COAL_LIME)
        ee_mx_error("ee:badInput", "'%s' is an option of ee_lime", o[C_WIDTH].value ? "width" : "ridge");
    if (o[C_METHOD].value && strcmp(gateway, "ee_sv"))
        ee_mx_error("ee:badInput", "'method' is an option of ee_sv");
    const EeConfig *cfg = ee_model_config(m);
    int W = cfg->kind != EE_KIND_MLP ? cfg->T : cfg->D; /* scores (and ids or features) a row */
    EeAttrOptions a;
    ee_mx_attr_sampling(NULL, NULL, o[C_SEED].value, &a);
    ee_mx_attr_baseline(o[C_BASELINE].value, m, all.n, 0, &a);
    ee_mx_attr_target(o[C_TARGET].value, m, all.n, &a);
    ee_mx_attr_exec(o[C_BATCH].value, o[C_DEVICE].value, o[C_PRECISION].value, o[C_VERBOSE].value, &a);
    if (o[C_INCREMENTAL].value) a.full_passes = !ee_mx_bool(o[C_INCREMENTAL].value, "'incremental'");
    EeCoalitionModelOptions c = {.m = {.kind = kind}};
    if (o[C_SAMPLES].value) c.m.samples = ee_mx_int(o[C_SAMPLES].value, "'samples'", 1, 1 << 24);
    if (o[C_PAIRED].value) c.m.paired = ee_mx_bool(o[C_PAIRED].value, "'paired'");
    if (o[C_WINDOW].value) c.window = ee_mx_int(o[C_WINDOW].value, "'window'", 1, W);
    if (o[C_STRIDE].value) c.stride = ee_mx_int(o[C_STRIDE].value, "'stride'", 1, W);
    if (o[C_WIDTH].value) {
        c.m.width = ee_mx_scalar(o[C_WIDTH].value, "'width'");
        if (!(c.m.width > 0) || !isfinite(c.m.width)) ee_mx_error("ee:badInput", "'width' must be > 0, got %g", c.m.width);
    }
    if (o[C_RIDGE].value) {
        c.m.ridge = ee_mx_scalar(o[C_RIDGE].value, "'ridge'");
        if (!(c.m.ridge >= 0) || !isfinite(c.m.ridge)) ee_mx_error("ee:badInput", "'ridge' must be >= 0, got %g", c.m.ridge);
    }
    if (o[C_COALITIONS].value) {
        if (o[C_SAMPLES].value || o[C_SEED].value || o[C_PAIRED].value)
            ee_mx_error("ee:badInput", "'coalitions' replaces the drawn ones: no 'samples', 'seed' or 'paired' with it");
        read_coalition_cells(o[C_COALITIONS].value, o[C_WEIGHTS].value, m, &all, &c);
    } else if (o[C_WEIGHTS].value) {
        ee_mx_error("ee:badInput", "'weights' are the weights of given 'coalitions'");
    }
    int nrows;
    int *rows = ee_mx_attr_rows(o[C_ROWS].value, all.n, &nrows);
    ee_mx_budget(ee_coalition_attribute_bytes(m, &all, &a, &c) + 8.0 * nrows * W + 48.0 * nrows, "the call");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)nrows * W + 1), "the attributions");
    EeAttrInfo info = ee_mx_attr_info_new(nrows, 1);
    double *count = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
    for (int i0 = 0; i0 < nrows;) {
        EeAttrOptions s;
        EeInput in;
        int i1 = ee_mx_attr_run_rows(rows, nrows, i0, &all, W, &a, &s, &in), r0 = rows[i0], n = i1 - i0;
        EeCoalitionModelOptions cs = c;
        if (c.coalitions) {
            cs.coalitions = c.coalitions + r0;
            cs.count = c.count + r0;
            if (c.weights) cs.weights = c.weights + r0;
        }
        EeAttrInfo part = ee_mx_attr_info_from(&info, i0);
        EeStatus st = ee_coalition_attribute(m, &in, &s, &cs, A + (size_t)i0 * W, &part);
        if (st) ee_mx_fail(st);
        for (int i = 0; i < n; i++) {
            int np = ee_coalition_players(m, &in, i);
            count[i0 + i] = c.coalitions ? (np ? (double)c.count[r0 + i] : 0)
                                         : np ? (double)ee_coalition_model_count(&c, np) : 0;
        }
        info.forward += part.forward;
        info.seconds += part.seconds;
        i0 = i1;
    }
    plhs[0] = ee_mx_single_matrix(A, nrows, W);
    if (nlhs > 1) {
        plhs[1] = ee_mx_attr_info(&info, nrows, kind_name(kind), 1, 1);
        ee_mx_set(plhs[1], "coalitions", ee_mx_double_vector(count, nrows));
        if (kind == EE_COAL_OCCLUSION) {
            ee_mx_set(plhs[1], "window", mxCreateDoubleScalar(c.window ? c.window : 1));
            ee_mx_set(plhs[1], "stride", mxCreateDoubleScalar(c.stride ? c.stride : 1));
        }
    }
    ee_mx_cleanup();
}
