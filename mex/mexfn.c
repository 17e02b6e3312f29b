/* mexfn.c: the handle forms: ee_sv (@f, X, ...) (Shapley value sampling,
 * exact, KernelSHAP), ee_lime, ee_occlusion, ee_ig (@f, X, ...) and
 * ee_faithfulness (@f, X, A, ...) of a model given as a function handle
 * (see their .m files). Reads the options, hands libcore's ee_sv_fn /
 * ee_coalition_fn / ee_ig_fn / ee_faithfulness_fn a
 * callback that calls f (mexcallback.cc), and maps what f did
 * wrong to ee:callbackError / ee:badInput / ee:interrupted after libcore
 * has freed its buffers. */
#include "mexfn.h"
#include "mexattr.h"

#include <math.h>
#include <string.h>

/* The options of the perturbation methods' handle forms (ee_sv, ee_lime,
 * ee_occlusion): one list, so one reader; each gateway accepts its own
 * subset (fn_allowed). */
enum { F_SAMPLES, F_SEED, F_EXACT, F_BASELINE, F_BACKGROUND, F_GROUPS, F_TARGET, F_ROWS, F_BATCH, F_VERBOSE,
       F_METHOD, F_COALITIONS, F_WEIGHTS, F_PAIRED, F_WIDTH, F_RIDGE, NFOPT };
static const char *const fopt_names[NFOPT] = {"samples", "seed", "exact", "baseline", "background", "groups",
                                              "target", "rows", "batch", "verbose", "method", "coalitions",
                                              "weights", "paired", "width", "ridge"};

/* ee_mx_dense_rows with int sizes (each below 2^31). */
static double *dense_rows(const mxArray *a, const char *what, int *rows, int *cols)
{
    size_t r, c;
    double *x = ee_mx_dense_rows(a, what, &r, &c);
    *rows = (int)r;
    *cols = (int)c;
    return x;
}

/* 'groups': F integers >= 0 (0: the column is no player). */
static int32_t *read_groups(const mxArray *v, int F)
{
    if (!(mxIsNumeric(v) || mxIsLogical(v)) || mxIsComplex(v) || mxIsSparse(v) ||
        mxGetNumberOfElements(v) != (size_t)F || (mxGetM(v) > 1 && mxGetN(v) > 1))
        ee_mx_error("ee:badInput", "'groups' must be a vector of %d player ids (one per column of X), got %s %zux%zu",
                    F, mxGetClassName(v), mxGetM(v), mxGetN(v));
    int *g = ee_mx_malloc(sizeof(int) * (F + 1), "'groups'");
    int32_t *ids = ee_mx_malloc(sizeof(int32_t) * (F + 1), "'groups'");
    ee_mx_int_vector(v, "'groups'", 0, 0x7fffffff, g, F);
    for (int f = 0; f < F; f++) ids[f] = g[f];
    return ids;
}

/* 'target': 'argmax', one class for all rows, or one per row (checked
 * against the number of scores once f has returned them). */
static const int32_t *read_target(const mxArray *v, int N)
{
    if (!v) return NULL;
    if (mxIsChar(v)) {
        static const char *const names[] = {"argmax"};
        ee_mx_choice(v, "'target'", names, 1);
        return NULL;
    }
    if (mxGetNumberOfElements(v) == 1 && N != 1) {
        int32_t *tg = ee_mx_malloc(sizeof(int32_t) * (N + 1), "'target'");
        int t = ee_mx_int(v, "'target'", 1, 100000);
        for (int i = 0; i < N; i++) tg[i] = t - 1;
        return tg;
    }
    return ee_mx_labels(v, "'target'", N, 0, NULL);
}

/* set while libcore runs f: a gateway called from inside f must not run */
static int running_f;

int ee_mx_fn_gateway(const char *gateway, const char *usage, int min_in, EeMxGateway *fn_form, int nlhs,
                     mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    /* not ee_mx_error: its cleanup would free the running call's buffers */
    if (running_f)
        mexErrMsgIdAndTxt("ee:notSupported", "%s cannot be called from inside the model function of a running %s call",
                          gateway, gateway);
    if (nrhs < min_in) ee_mx_error("ee:badInput", "usage: %s", usage);
    if (!mxIsClass(prhs[0], "function_handle")) return 0;
    fn_form(nlhs, plhs, nrhs, prhs);
    return 1;
}

/* What both handle forms do first: at most two outputs, the options
 * after (f, X), and X as N x F row-major doubles with F >= 1. */
static double *fn_begin(const char *gateway, int nlhs, int nrhs, const mxArray *prhs[], const char *const *names,
                        EeMxOpt *o, int nopt, int *N, int *F)
{
    ee_mx_start(gateway, nlhs, nrhs, prhs, 2, names, o, nopt);
    /* libcore runs no BLAS here; f runs with the caller's BLAS threads */
    ee_threads_leave();
    double *X = dense_rows(prhs[1], "X", N, F);
    if (*F < 1) ee_mx_error("ee:badInput", "X must have at least one column (one per feature)");
    return X;
}

/* 'baseline': a 1 x F row, or a scalar for every column. */
static double *baseline_row(const mxArray *v, int F)
{
    int r, cols;
    double *row = dense_rows(v, "'baseline'", &r, &cols);
    if (r * cols == 1 && F > 1) { /* one value for every column */
        double *full = ee_mx_malloc(sizeof(double) * F, "'baseline'");
        for (int f = 0; f < F; f++) full[f] = row[0];
        row = full;
    } else if (r != 1 || cols != F) {
        ee_mx_error("ee:badInput", "'baseline' must be a 1 x %d row (one value per column of X) or a scalar, got %dx%d",
                    F, r, cols);
    }
    return row;
}

/* The players of a handle's columns and what absent means, from the
 * options 'baseline', 'background' (K x F rows) and 'groups' (NULL when
 * not given: a zero baseline, every column a player); *P the players. */
static EeFnPlayers read_players(const mxArray *baseline, const mxArray *background, const mxArray *groups, int F,
                                int *P)
{
    EeFnPlayers pl = {.F = F, .K = 1};
    if (baseline && background)
        ee_mx_error("ee:badInput", "'baseline' and 'background' exclude each other (a baseline is a background of one row)");
    if (baseline) pl.background = baseline_row(baseline, F);
    if (background) {
        int r, cols;
        pl.background = dense_rows(background, "'background'", &r, &cols);
        if (r < 1 || cols != F)
            ee_mx_error("ee:badInput", "'background' must be K x %d (K >= 1 rows of the columns of X), got %dx%d", F, r, cols);
        pl.K = r;
    }
    if (groups) pl.groups = read_groups(groups, F);
    *P = ee_fn_players(pl.groups, F);
    if (*P < 0) ee_mx_error("ee:badInput", "'groups' must hold player ids >= 0");
    return pl;
}

/* Before libcore's first call of f, the handle fh: from here to fn_end a
 * gateway called from inside f is refused (ee_mx_fn_gateway). */
static void fn_calls_begin(EeMxFn *fn, const mxArray *fh)
{
    *fn = (EeMxFn){.fh = fh};
    running_f = 1;
}

/* A run's counts and times (part) added to the call's (info). */
static void fn_info_add(EeFnInfo *info, const EeFnInfo *part)
{
    info->rows += part->rows;
    info->calls += part->calls;
    info->seconds += part->seconds;
    info->seconds_eval += part->seconds_eval;
}

/* libcore has returned (no Octave error crosses it: mexcallback.cc) and
 * freed its buffers: release f's arrays, then report what went wrong. */
static void fn_end(EeMxFn *fn, EeStatus st)
{
    running_f = 0;
    ee_mx_fn_release(fn);
    if (st && fn->failed) ee_mx_error("ee:callbackError", "%s", ee_last_error());
    if (st) ee_mx_fail(st);
}

/* The per-row results libcore fills (EeFnInfo) for nrows rows. */
static void info_arrays(int nrows, int32_t **target, double **fx, double **fbase, double **delta)
{
    *target = ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "info");
    *fx = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
    *fbase = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
    *delta = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
}

/* The info struct's per-row fields both forms return first (target 1-based). */
static mxArray *info_rows(const int32_t *target, const double *fx, const double *fbase, const double *delta,
                          int nrows)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    double *t = ee_mx_malloc(sizeof(double) * (nrows + 1), "info");
    for (int i = 0; i < nrows; i++) t[i] = target[i] + 1;
    ee_mx_set(s, "target", ee_mx_double_vector(t, nrows));
    ee_mx_set(s, "fx", ee_mx_double_vector(fx, nrows));
    ee_mx_set(s, "fbaseline", ee_mx_double_vector(fbase, nrows));
    ee_mx_set(s, "delta", ee_mx_double_vector(delta, nrows));
    return s;
}

/* The gateways' subsets of fopt_names: ee_sv's handle form, ee_lime,
 * ee_occlusion. An option of another method is refused by name, so a
 * mistaken one does not pass silently. */
static const int sv_opts[] = {F_SAMPLES, F_SEED, F_EXACT, F_BASELINE, F_BACKGROUND, F_GROUPS, F_TARGET, F_ROWS,
                              F_BATCH, F_VERBOSE, F_METHOD, F_COALITIONS, F_WEIGHTS, F_PAIRED, -1};
static const int lime_opts[] = {F_SAMPLES, F_SEED, F_BASELINE, F_BACKGROUND, F_GROUPS, F_TARGET, F_ROWS,
                                F_BATCH, F_VERBOSE, F_COALITIONS, F_WEIGHTS, F_WIDTH, F_RIDGE, -1};
static const int occlusion_opts[] = {F_BASELINE, F_BACKGROUND, F_GROUPS, F_TARGET, F_ROWS, F_BATCH, F_VERBOSE, -1};

static void fn_allowed(const char *gateway, const EeMxOpt *o, const int *allowed)
{
    for (int k = 0; k < NFOPT; k++) {
        if (!o[k].value) continue;
        int ok = 0;
        for (const int *a = allowed; *a >= 0; a++) ok |= *a == k;
        if (ok) continue;
        char list[512] = "";
        for (const int *a = allowed; *a >= 0; a++) {
            strncat(list, a == allowed ? "" : ", ", sizeof list - strlen(list) - 1);
            strncat(list, fopt_names[*a], sizeof list - strlen(list) - 1);
        }
        ee_mx_error("ee:badInput", "option '%s' does not apply to %s of a function handle (valid: %s)", fopt_names[k],
                    gateway, list);
    }
}

/* 'coalitions': n x P, logical or numeric 0/1, the same for every row. */
static uint8_t *read_coalitions(const mxArray *v, int P, long *n)
{
    if (!(mxIsNumeric(v) || mxIsLogical(v)) || mxIsComplex(v) || mxIsSparse(v) || mxGetNumberOfDimensions(v) != 2 ||
        mxGetN(v) != (size_t)P || mxGetM(v) < 1)
        ee_mx_error("ee:badInput", "'coalitions' must be an n x %d logical matrix (one column per player, n >= 1), "
                    "got %s %zux%zu", P, mxGetClassName(v), mxGetM(v), mxGetN(v));
    size_t m = mxGetM(v);
    if (m > 0x7fffffff / (size_t)(P ? P : 1)) ee_mx_error("ee:badInput", "'coalitions' is too large");
    uint8_t *Z = ee_mx_malloc(m * P + 1, "'coalitions'");
    mxArray *d = NULL;
    const double *x = NULL;
    if (mxIsLogical(v)) {
        const mxLogical *l = mxGetLogicals(v);
        for (size_t i = 0; i < m; i++)
            for (int p = 0; p < P; p++) Z[i * P + p] = l[i + m * p] != 0;
    } else {
        if (!mxIsDouble(v)) {
            mxArray *in = (mxArray *)v;
            if (mexCallMATLAB(1, &d, 1, &in, "double")) ee_mx_error("ee:badInput", "'coalitions' cannot be read");
        }
        x = mxGetPr(d ? d : v);
        for (size_t i = 0; i < m; i++)
            for (int p = 0; p < P; p++) {
                double val = x[i + m * p];
                if (val != 0 && val != 1)
                    ee_mx_error("ee:badInput", "'coalitions'(%zu,%d) = %g: a coalition holds 0 (absent) or 1 (present)",
                                i + 1, p + 1, val);
                Z[i * P + p] = val == 1;
            }
        if (d) mxDestroyArray(d);
    }
    *n = (long)m;
    return Z;
}

/* 'weights': n values >= 0, one per coalition. */
static double *read_weights(const mxArray *v, long n)
{
    int r, c;
    double *w = dense_rows(v, "'weights'", &r, &c);
    if ((long)r * c != n || (r != 1 && c != 1))
        ee_mx_error("ee:badInput", "'weights' must be a vector of %ld values (one per row of 'coalitions'), got %dx%d", n,
                    r, c);
    for (long j = 0; j < n; j++)
        if (!(w[j] >= 0)) ee_mx_error("ee:badInput", "'weights'(%ld) = %g: weights must be >= 0", j + 1, w[j]);
    return w;
}

enum { FN_SAMPLING, FN_EXACT, FN_KERNELSHAP, FN_LIME, FN_OCCLUSION };
static const char *const fn_method_names[] = {"sampling", "exact", "kernelshap", "lime", "occlusion"};

/* The handle form of ee_sv (methods sampling, exact, kernelshap), ee_lime
 * and ee_occlusion: players, absent values, targets and rows read alike,
 * then ee_sv_fn or ee_coalition_fn over each run of consecutive rows. */
static void fn_attribute(const char *gateway, int method, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    EeMxOpt o[NFOPT];
    int N, F;
    double *X = fn_begin(gateway, nlhs, nrhs, prhs, fopt_names, o, NFOPT, &N, &F);
    fn_allowed(gateway, o, method == FN_LIME ? lime_opts : method == FN_OCCLUSION ? occlusion_opts : sv_opts);
    EeAttrOptions a;
    int exact = ee_mx_attr_sampling(o[F_EXACT].value, o[F_SAMPLES].value, o[F_SEED].value, &a);
    if (method == FN_SAMPLING && o[F_METHOD].value) {
        static const char *const sv_methods[] = {"sampling", "exact", "kernelshap"};
        method = ee_mx_choice(o[F_METHOD].value, "'method'", sv_methods, 3);
        if (o[F_EXACT].value && method != (exact ? FN_EXACT : FN_SAMPLING))
            ee_mx_error("ee:badInput", "'exact', %s contradicts 'method', '%s'", exact ? "true" : "false",
                        fn_method_names[method]);
    } else if (method == FN_SAMPLING && exact) {
        method = FN_EXACT;
    }
    if (method != FN_KERNELSHAP && method != FN_LIME)
        for (int k = F_COALITIONS; k <= F_PAIRED; k++)
            if (o[k].value)
                ee_mx_error("ee:badInput", "'%s' applies to 'method', 'kernelshap' (and 'coalitions', 'weights' to "
                            "ee_lime)", fopt_names[k]);
    if (o[F_BATCH].value) a.batch = ee_mx_int(o[F_BATCH].value, "'batch'", 1, 1 << 20);
    if (o[F_VERBOSE].value) a.verbose = ee_mx_bool(o[F_VERBOSE].value, "'verbose'");
    a.target = read_target(o[F_TARGET].value, N);

    int P;
    EeFnPlayers pl = read_players(o[F_BASELINE].value, o[F_BACKGROUND].value, o[F_GROUPS].value, F, &P);
    if (method == FN_EXACT && P > EE_FN_EXACT_MAX)
        ee_mx_error("ee:badInput", "'exact' enumerates 2^P coalitions: X has %d players (at most %d; use sampling or 'groups')",
                    P, EE_FN_EXACT_MAX);

    /* the coalition methods' options */
    int coal = method >= FN_KERNELSHAP;
    EeCoalitionOptions co = {.kind = method == FN_KERNELSHAP ? EE_COAL_KERNELSHAP
                                     : method == FN_LIME   ? EE_COAL_LIME
                                                           : EE_COAL_OCCLUSION};
    /* default: SHAP's KernelExplainer's 'auto' count, 2 P + 2048 */
    co.samples = o[F_SAMPLES].value ? a.steps : 2 * P + 2048;
    if (o[F_PAIRED].value) co.paired = ee_mx_bool(o[F_PAIRED].value, "'paired'");
    if (o[F_COALITIONS].value) {
        if (o[F_SAMPLES].value || o[F_SEED].value || co.paired)
            ee_mx_error("ee:badInput", "'coalitions' replaces the drawn ones: no 'samples', 'seed' or 'paired' with it");
        co.coalitions = read_coalitions(o[F_COALITIONS].value, P, &co.n);
    }
    if (o[F_WEIGHTS].value) {
        if (!co.coalitions) ee_mx_error("ee:badInput", "'weights' are the weights of given 'coalitions'");
        co.weights = read_weights(o[F_WEIGHTS].value, co.n);
    }
    if (o[F_WIDTH].value) {
        co.width = ee_mx_scalar(o[F_WIDTH].value, "'width'");
        if (!(co.width > 0) || !isfinite(co.width)) ee_mx_error("ee:badInput", "'width' must be > 0, got %g", co.width);
    }
    if (o[F_RIDGE].value) {
        co.ridge = ee_mx_scalar(o[F_RIDGE].value, "'ridge'");
        if (!(co.ridge >= 0) || !isfinite(co.ridge)) ee_mx_error("ee:badInput", "'ridge' must be >= 0, got %g", co.ridge);
    }
    int nrows;
    int *rows = ee_mx_attr_rows(o[F_ROWS].value, N, &nrows);

    double bytes = coal ? ee_coalition_fn_bytes(N, F, P, pl.K, &a, &co) : ee_sv_fn_bytes(N, F, P, pl.K, &a, exact);
    ee_mx_budget(bytes + 16.0 * nrows * F + 48.0 * nrows * (P + 4), "the call");
    double *A = ee_mx_malloc(sizeof(double) * ((size_t)nrows * F + 1), "the attributions");
    double *players = ee_mx_malloc(sizeof(double) * ((size_t)nrows * P + 1), "info.players");
    double *var = nlhs > 1 && method == FN_SAMPLING
                      ? ee_mx_malloc(sizeof(double) * ((size_t)nrows * P + 1), "info.variance") : NULL;
    int32_t *target;
    double *fx, *fe, *delta;
    info_arrays(nrows, &target, &fx, &fe, &delta);

    EeMxFn fn;
    /* the samplers write the perturbed rows straight into f's argument */
    EeScoreFn sf = {ee_mx_fn_eval, &fn, ee_mx_fn_columns};
    EeFnInfo info = {0};
    EeStatus st = EE_OK;
    /* one call per maximal run of consecutive rows, keyed by its offset in X */
    fn_calls_begin(&fn, prhs[0]);
    for (int i0 = 0; i0 < nrows && !st;) {
        EeAttrOptions s;
        int i1 = ee_mx_attr_run(rows, nrows, i0, &a, &s), r0 = rows[i0], n = i1 - i0;
        if (a.target) s.target = a.target + r0;
        EeFnInfo part = {target + i0, fx + i0, fe + i0, delta + i0, players + (size_t)i0 * P,
                         var ? var + (size_t)i0 * P : NULL, 0, 0, 0, 0};
        st = coal ? ee_coalition_fn(&sf, X + (size_t)r0 * F, n, &pl, &s, &co, A + (size_t)i0 * F, &part)
                  : ee_sv_fn(&sf, X + (size_t)r0 * F, n, &pl, &s, exact, A + (size_t)i0 * F, &part);
        fn_info_add(&info, &part);
        i0 = i1;
    }
    fn_end(&fn, st);

    plhs[0] = ee_mx_double_matrix(A, nrows, F);
    if (nlhs > 1) {
        mxArray *s = info_rows(target, fx, fe, delta, nrows);
        ee_mx_set(s, "players", ee_mx_double_matrix(players, nrows, P));
        if (var) ee_mx_set(s, "variance", ee_mx_double_matrix(var, nrows, P));
        ee_mx_set(s, "passes", mxCreateDoubleScalar((double)info.rows));
        ee_mx_set(s, "calls", mxCreateDoubleScalar((double)info.calls));
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(info.seconds));
        ee_mx_set(s, "seconds_f", mxCreateDoubleScalar(fn.seconds_f));
        ee_mx_set(s, "seconds_callback", mxCreateDoubleScalar(info.seconds_eval));
        ee_mx_set(s, "method", mxCreateString(fn_method_names[method]));
        /* permutations (sampling), coalitions per row (kernelshap, lime), 0 */
        double steps = method == FN_SAMPLING ? a.steps : coal && P > 0 ? (double)ee_coalition_count(&co, P) : 0;
        ee_mx_set(s, method == FN_SAMPLING || method == FN_EXACT ? "steps" : "coalitions", mxCreateDoubleScalar(steps));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}

void ee_mx_sv_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    fn_attribute("ee_sv", FN_SAMPLING, nlhs, plhs, nrhs, prhs);
}

void ee_mx_lime_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    fn_attribute("ee_lime", FN_LIME, nlhs, plhs, nrhs, prhs);
}

void ee_mx_occlusion_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    fn_attribute("ee_occlusion", FN_OCCLUSION, nlhs, plhs, nrhs, prhs);
}

enum { G_STEPS, G_METHOD, G_BASELINE, G_TARGET, G_ROWS, G_BATCH, G_VERBOSE, G_GRADIENT, G_STEP, G_BACKGROUND,
       G_SAMPLES, G_SEED, NGOPT };
static const char *const gopt_names[NGOPT] = {"steps", "method", "baseline", "target", "rows", "batch",
                                              "verbose", "gradient", "step", "background", "samples", "seed"};

void ee_mx_ig_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    EeMxOpt o[NGOPT];
    int N, F;
    double *X = fn_begin("ee_ig", nlhs, nrhs, prhs, gopt_names, o, NGOPT, &N, &F);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.print = ee_mx_print;
    if (o[G_METHOD].value)
        a.method = (EeIgMethod)ee_mx_choice(o[G_METHOD].value, "'method'", ee_ig_method_names, EE_IG_METHOD_COUNT);
    if (a.method == EE_IG_XGRAD)
        ee_mx_error("ee:notSupported", "'xgrad' is defined for bias-free ReLU networks; for a function use 'gradxinput'");
    int one = a.method == EE_IG_GRADXINPUT;
    if (o[G_STEPS].value) {
        if (one) ee_mx_error("ee:badInput", "'steps' does not apply to gradxinput (one gradient)");
        a.steps = ee_mx_int(o[G_STEPS].value, "'steps'", 1, 1 << 20);
    }
    if (one) a.steps = 1;
    if (o[G_BATCH].value) a.batch = ee_mx_int(o[G_BATCH].value, "'batch'", 1, 1 << 20);
    if (o[G_VERBOSE].value) a.verbose = ee_mx_bool(o[G_VERBOSE].value, "'verbose'");
    static const char *const grad_names[] = {"function", "fd"};
    int fd = o[G_GRADIENT].value ? ee_mx_choice(o[G_GRADIENT].value, "'gradient'", grad_names, 2) : 0;
    double h = 1e-4;
    if (o[G_STEP].value) {
        if (!fd) ee_mx_error("ee:badInput", "'step' applies to 'gradient', 'fd' (central differences)");
        h = ee_mx_scalar(o[G_STEP].value, "'step'");
        if (!(h > 0)) ee_mx_error("ee:badInput", "'step' must be > 0, got %g", h);
    }
    double *b = NULL;
    int K = 0, m = 0;
    if (o[G_BASELINE].value) {
        if (one) ee_mx_error("ee:badInput", "gradxinput has no baseline option (one gradient at the input)");
        b = baseline_row(o[G_BASELINE].value, F);
        K = 1;
    }
    /* expected gradients: the baselines are the background's rows, all or drawn */
    if (o[G_BACKGROUND].value) {
        if (one) ee_mx_error("ee:badInput", "gradxinput has no baseline, so no 'background' (one gradient at the input)");
        if (b) ee_mx_error("ee:badInput", "'baseline' and 'background' exclude each other (a baseline is a background of one row)");
        int cols;
        b = dense_rows(o[G_BACKGROUND].value, "'background'", &K, &cols);
        if (K < 1 || cols != F)
            ee_mx_error("ee:badInput", "'background' must be K x %d (K >= 1 rows of the columns of X), got %dx%d", F, K, cols);
    }
    if ((o[G_SAMPLES].value || o[G_SEED].value) && !o[G_BACKGROUND].value)
        ee_mx_error("ee:badInput", "'samples' and 'seed' draw baselines from a 'background'");
    if (o[G_SAMPLES].value) m = ee_mx_int(o[G_SAMPLES].value, "'samples'", 1, 1 << 20);
    if (o[G_SEED].value) a.seed = (uint64_t)ee_mx_int(o[G_SEED].value, "'seed'", 0, 0x7fffffff);
    const int32_t *tg_all = read_target(o[G_TARGET].value, N);
    int nrows;
    int *rows = ee_mx_attr_rows(o[G_ROWS].value, N, &nrows);
    /* the selected rows, in order (their runs of consecutive rows are the calls below) */
    double B = a.batch > 0 ? a.batch : 1024;
    ee_mx_budget(8.0 * nrows * F * 6 + B * F * 8 + 64.0 * nrows + 4.0 * nrows * (m ? m : K) + 8.0 * K * (F + 8), "the call");
    double *Xs = ee_mx_malloc(sizeof(double) * ((size_t)nrows * F + 1), "the rows of X");
    int32_t *tg = tg_all ? ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "'target'") : NULL;
    for (int i = 0; i < nrows; i++) {
        memcpy(Xs + (size_t)i * F, X + (size_t)rows[i] * F, sizeof(double) * F);
        if (tg) tg[i] = tg_all[rows[i]];
    }
    a.target = tg;
    double *A = ee_mx_malloc(sizeof(double) * ((size_t)nrows * F + 1), "the attributions");
    int32_t *target;
    double *fx, *fb, *delta;
    info_arrays(nrows, &target, &fx, &fb, &delta);

    EeMxFn fn;
    EeScoreFn sf = {ee_mx_fn_eval, &fn, NULL}; /* ee_ig_fn copies its rows: no columns hook */
    EeGradFn gf = {ee_mx_fn_eval_grad, &fn};
    EeFnInfo info = {0};
    EeStatus st = EE_OK;
    fn_calls_begin(&fn, prhs[0]);
    fn.outputs = fd ? 1 : 2;
    /* one call per maximal run of consecutive rows, keyed by its offset in X
     * (the stream of a row's drawn baselines) */
    for (int i0 = 0; i0 < nrows && !st;) {
        EeAttrOptions s;
        int i1 = ee_mx_attr_run(rows, nrows, i0, &a, &s);
        if (tg) s.target = tg + i0;
        EeFnInfo part = {.target = target + i0, .fx = fx + i0, .fempty = fb + i0, .delta = delta + i0};
        st = ee_eg_fn(&sf, fd ? NULL : &gf, Xs + (size_t)i0 * F, i1 - i0, F, b, K, m, &s, h, A + (size_t)i0 * F, &part);
        fn_info_add(&info, &part);
        i0 = i1;
    }
    fn_end(&fn, st);

    plhs[0] = ee_mx_double_matrix(A, nrows, F);
    if (nlhs > 1) {
        mxArray *s = info_rows(target, fx, fb, delta, nrows);
        ee_mx_set(s, "passes", mxCreateDoubleScalar((double)info.rows));
        ee_mx_set(s, "calls", mxCreateDoubleScalar((double)info.calls));
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(info.seconds));
        ee_mx_set(s, "seconds_callback", mxCreateDoubleScalar(info.seconds_eval));
        ee_mx_set(s, "seconds_f", mxCreateDoubleScalar(fn.seconds_f));
        ee_mx_set(s, "method", mxCreateString(ee_ig_method_names[a.method]));
        ee_mx_set(s, "steps", mxCreateDoubleScalar(a.steps));
        ee_mx_set(s, "gradient", mxCreateString(fd ? "fd" : "function"));
        if (fd) ee_mx_set(s, "step", mxCreateDoubleScalar(h));
        if (o[G_BACKGROUND].value) ee_mx_set(s, "baselines", mxCreateDoubleScalar(m ? m : K));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}

/* ee_faithfulness (@f, X, A, ...): the faithfulness of maps of a function
 * (ee_faithfulness.m); players and absent values read as ee_sv's handle
 * form reads them, then ee_faithfulness_fn over each run of consecutive
 * rows. */
enum { Q_STEPS, Q_INFIDELITY, Q_SEED, Q_BASELINE, Q_BACKGROUND, Q_GROUPS, Q_TARGET, Q_ROWS, Q_BATCH, Q_VERBOSE, NQOPT };
static const char *const qopt_names[NQOPT] = {"steps", "infidelity", "seed", "baseline", "background", "groups",
                                              "target", "rows", "batch", "verbose"};

void ee_mx_faithfulness_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nlhs > 1) ee_mx_error("ee:badInput", "ee_faithfulness returns one output (a struct)");
    ee_mx_begin();
    ee_threads_leave(); /* as fn_begin: f runs with the caller's BLAS threads */
    EeMxOpt o[NQOPT];
    ee_mx_parse_options(qopt_names, nrhs, prhs, 3, o, NQOPT);
    int N, F, NA, FA;
    double *X = dense_rows(prhs[1], "X", &N, &F);
    if (F < 1) ee_mx_error("ee:badInput", "X must have at least one column (one per feature)");
    double *Aall = dense_rows(prhs[2], "A", &NA, &FA);
    EeFaithOptions fo;
    ee_faith_options_defaults(&fo);
    if (o[Q_STEPS].value) fo.steps = ee_mx_int(o[Q_STEPS].value, "'steps'", 0, 1 << 20);
    if (o[Q_INFIDELITY].value) fo.infidelity_samples = ee_mx_int(o[Q_INFIDELITY].value, "'infidelity'", 0, 1 << 20);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.print = ee_mx_print;
    if (o[Q_SEED].value) {
        if (!fo.infidelity_samples) ee_mx_error("ee:badInput", "'seed' applies to the infidelity's subsets ('infidelity' > 0)");
        a.seed = (uint64_t)ee_mx_int(o[Q_SEED].value, "'seed'", 0, 0x7fffffff);
    }
    if (o[Q_BATCH].value) a.batch = ee_mx_int(o[Q_BATCH].value, "'batch'", 1, 1 << 20);
    if (o[Q_VERBOSE].value) a.verbose = ee_mx_bool(o[Q_VERBOSE].value, "'verbose'");
    const int32_t *tg_all = read_target(o[Q_TARGET].value, N);
    int P;
    EeFnPlayers pl = read_players(o[Q_BASELINE].value, o[Q_BACKGROUND].value, o[Q_GROUPS].value, F, &P);
    if (NA != N || (FA != F && FA != P))
        ee_mx_error("ee:badInput", "A must be %d x %d (one score per column of X)%s, got %dx%d", N, F,
                    P != F ? " or N x P (one per player)" : "", NA, FA);
    int nrows;
    int *rows = ee_mx_attr_rows(o[Q_ROWS].value, N, &nrows);
    int K = fo.steps, NB = EE_FAITH_BINS;
    ee_mx_budget(ee_faithfulness_fn_bytes(N, F, P, pl.K, &a, &fo) + 8.0 * nrows * (F + FA) +
                 2 * 8.0 * nrows * (12 + 2 * NB + 2 * (K ? K + 1 : 0)), "the call");
    double *Xs = ee_mx_malloc(sizeof(double) * ((size_t)nrows * F + 1), "the rows of X");
    double *As = ee_mx_malloc(sizeof(double) * ((size_t)nrows * FA + 1), "the rows of A");
    int32_t *tg = tg_all ? ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "'target'") : NULL;
    for (int i = 0; i < nrows; i++) {
        memcpy(Xs + (size_t)i * F, X + (size_t)rows[i] * F, sizeof(double) * F);
        memcpy(As + (size_t)i * FA, Aall + (size_t)rows[i] * FA, sizeof(double) * FA);
        if (tg) tg[i] = tg_all[rows[i]];
    }
    EeFaithResult r = ee_mx_faith_result(nrows, K);
    EeMxFn fn;
    EeScoreFn sf = {ee_mx_fn_eval, &fn, NULL}; /* the measures' rows are copied in: no columns hook */
    EeFnInfo info = {0};
    EeStatus st = EE_OK;
    fn_calls_begin(&fn, prhs[0]);
    /* one call per maximal run of consecutive rows, keyed by its offset in X */
    for (int i0 = 0; i0 < nrows && !st;) {
        EeAttrOptions s;
        int i1 = ee_mx_attr_run(rows, nrows, i0, &a, &s);
        if (tg) s.target = tg + i0;
        EeFaithResult q = ee_mx_faith_from(&r, i0, K);
        EeFnInfo part = {0};
        st = ee_faithfulness_fn(&sf, Xs + (size_t)i0 * F, i1 - i0, &pl, As + (size_t)i0 * FA, FA, &s, &fo, &q, &part);
        fn_info_add(&info, &part);
        i0 = i1;
    }
    fn_end(&fn, st);

    mxArray *s = ee_mx_faith_struct(&r, nrows, K, 0, fo.infidelity_samples != 0);
    ee_mx_set(s, "score", mxCreateString("f"));
    ee_mx_set(s, "steps", mxCreateDoubleScalar(K));
    if (fo.infidelity_samples) {
        ee_mx_set(s, "infidelity_samples", mxCreateDoubleScalar(fo.infidelity_samples));
        ee_mx_set(s, "seed", mxCreateDoubleScalar((double)a.seed));
    }
    ee_mx_set(s, "passes", mxCreateDoubleScalar((double)info.rows));
    ee_mx_set(s, "calls", mxCreateDoubleScalar((double)info.calls));
    ee_mx_set(s, "seconds", mxCreateDoubleScalar(info.seconds));
    ee_mx_set(s, "seconds_f", mxCreateDoubleScalar(fn.seconds_f));
    plhs[0] = s;
    ee_mx_cleanup();
}
