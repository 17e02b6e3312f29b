/* mexfeat.c: Empirical Explainers of a model given as a function handle
 * (see ee_train.m and ee_explain.m, "function handles"). Training: the
 * maps come from the handle methods themselves (ee_sv, ee_ig, called as
 * Octave functions so their options and checks are theirs) or from the
 * caller; libcore trains an mlp explainer (ee_feature_explainer_new) on
 * the players' values by MSE. Applying: one forward pass, then, given f,
 * the efficiency shift, then the players' values spread over their
 * columns as ee_sv (@f) spreads them. */
#include "mexfeat.h"
#include "mexfn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { T_VALIDATION, T_EPOCHS, T_LR, T_BATCH, T_PATIENCE, T_SEED, T_SCHEDULE, T_STANDARDIZE, T_VERBOSE,
       T_HIDDEN, T_GROUPS, T_BASELINE, T_BACKGROUND, T_OPTIONS, T_SCALE_INPUTS, NTOPT };
static const char *const topt_names[NTOPT] = {"validation", "epochs", "lr", "batch", "patience", "seed",
                                              "schedule", "standardize", "verbose", "hidden", "groups",
                                              "baseline", "background", "options", "scale_inputs"};

/* METHOD names: the handle methods whose maps an explainer can learn. */
enum { M_SV, M_EXACT, M_KERNELSHAP, M_IG, M_GIVEN };
static const char *const method_names[] = {"sv", "exact", "kernelshap", "ig", "given"};

static void destroy(void *p) { mxDestroyArray(p); }

/* 'groups': F player ids >= 0, as ee_sv (@f) reads them. NULL: none. */
static int32_t *groups_of(const mxArray *v, int F, const char *what)
{
    if (!v || mxIsEmpty(v)) return NULL;
    if (mxGetNumberOfElements(v) != (size_t)F || (mxGetM(v) > 1 && mxGetN(v) > 1))
        ee_mx_error("ee:badInput", "%s must be a vector of %d player ids (one per column of X)", what, F);
    int *g = ee_mx_malloc(sizeof(int) * (F + 1), what);
    int32_t *ids = ee_mx_malloc(sizeof(int32_t) * (F + 1), what);
    ee_mx_int_vector(v, what, 0, 0x7fffffff, g, F);
    for (int f = 0; f < F; f++) ids[f] = g[f];
    return ids;
}

/* Player index (0-based) of each column, -1 for id 0, and each player's
 * column count; the players are the distinct positive ids in ascending
 * order (ee_fn_players). */
static void player_index(const int32_t *groups, int F, int P, int *col_player, int *size)
{
    memset(size, 0, sizeof(int) * P);
    if (!groups) {
        for (int f = 0; f < F; f++) { col_player[f] = f; size[f] = 1; }
        return;
    }
    int *ids = ee_mx_malloc(sizeof(int) * (F + 1), "the players");
    int n = 0;
    for (int f = 0; f < F; f++) { /* sorted distinct positive ids */
        int g = groups[f], k = 0;
        if (g <= 0) continue;
        while (k < n && ids[k] < g) k++;
        if (k < n && ids[k] == g) continue;
        memmove(ids + k + 1, ids + k, sizeof(int) * (n - k));
        ids[k] = g;
        n++;
    }
    for (int f = 0; f < F; f++) {
        col_player[f] = -1;
        for (int k = 0; k < n && groups[f] > 0; k++)
            if (ids[k] == groups[f]) { col_player[f] = k; size[k]++; break; }
    }
}

/* The method's own options that the check's one-sample run sets itself
 * (its sample count, seed and rule); the others (target, batch, ...) keep
 * the definition of the maps and are passed on. */
static int sample_option(const mxArray *nm)
{
    static const char *const own[] = {"samples", "seed", "steps", "method", "exact", "permutations",
                                      "paired", "coalitions", "weights", "verbose"};
    char buf[16] = "";
    if (!nm || !mxIsChar(nm) || mxGetNumberOfElements(nm) >= sizeof buf) return 0;
    mxGetString(nm, buf, sizeof buf);
    for (size_t j = 0; j < sizeof own / sizeof *own; j++)
        if (!strcasecmp(buf, own[j])) return 1;
    return 0;
}

/* The players' values of X by METHOD, through the method's own gateway:
 * N x P row-major floats (ee_sv with groups: its info.players). With
 * one_sample, the cheapest run of the method instead, for ee_train's check:
 * Shapley Value Sampling with one permutation (another seed than the
 * maps', so the two runs are independent) for the Shapley methods, IG with
 * one Gauss-Legendre node for 'ig'. */
static float *method_maps(int method, const mxArray *fh, const mxArray *X, const EeMxOpt *o, int P, int grouped,
                          int verbose, int one_sample, int *N)
{
    mxArray *args[64];
    int n = 0;
    args[n++] = (mxArray *)fh;
    args[n++] = (mxArray *)X;
    if (one_sample) {
        args[n++] = mxCreateString(method == M_IG ? "steps" : "samples");
        args[n++] = mxCreateDoubleScalar(1);
        if (method != M_IG) {
            args[n++] = mxCreateString("seed");
            args[n++] = mxCreateDoubleScalar(0x5eed);
        }
    } else if (method == M_EXACT) {
        args[n++] = mxCreateString("exact");
        args[n++] = mxCreateLogicalScalar(1);
    } else if (method == M_KERNELSHAP) {
        args[n++] = mxCreateString("method");
        args[n++] = mxCreateString("kernelshap");
    }
    static const int pass[] = {T_GROUPS, T_BASELINE, T_BACKGROUND};
    for (int k = 0; k < 3; k++)
        if (o[pass[k]].value && !mxIsEmpty(o[pass[k]].value)) {
            args[n++] = mxCreateString(topt_names[pass[k]]);
            args[n++] = (mxArray *)o[pass[k]].value;
        }
    const mxArray *extra = o[T_OPTIONS].value;
    int quiet_given = 0;
    if (extra)
        for (size_t k = 0; k + 1 < mxGetNumberOfElements(extra); k += 2) {
            const mxArray *nm = mxGetCell(extra, (mwIndex)k);
            if (one_sample && sample_option(nm)) continue;
            char buf[8] = "";
            if (nm && mxIsChar(nm) && mxGetNumberOfElements(nm) < sizeof buf) mxGetString(nm, buf, sizeof buf);
            quiet_given |= !strcasecmp(buf, "verbose");
            args[n++] = mxGetCell(extra, (mwIndex)k);
            args[n++] = mxGetCell(extra, (mwIndex)k + 1);
        }
    if (!quiet_given) { /* ee_train's 'verbose' is the method's too */
        args[n++] = mxCreateString("verbose");
        args[n++] = mxCreateLogicalScalar(verbose && !one_sample);
    }
    mxArray *out[2] = {NULL, NULL};
    /* an error of the method (or of f inside it) ends this call with its own id */
    mexCallMATLAB(2, out, n, args, method == M_IG ? "ee_ig" : "ee_sv");
    ee_mx_defer(destroy, out[0]);
    ee_mx_defer(destroy, out[1]);
    const mxArray *A = out[0];
    if (grouped) {
        A = mxIsStruct(out[1]) ? mxGetField(out[1], 0, "players") : NULL;
        if (!A) ee_mx_error("ee:badInput", "ee_sv returned no info.players");
    }
    size_t r, c;
    double *d = ee_mx_dense_rows(A, "the method's maps", &r, &c);
    if (c != (size_t)P) ee_mx_error("ee:badInput", "the method returned %zu values per row, expected %d players", c, P);
    float *maps = ee_mx_malloc(sizeof(float) * (r * c + 1), "the maps");
    for (size_t q = 0; q < r * c; q++) maps[q] = (float)d[q];
    *N = (int)r;
    return maps;
}

/* Given maps: N x P, or N x F when the players are groups (ee_sv (@f)'s
 * spread A: a player's value is the sum over its columns). */
static float *given_maps(const mxArray *A, const char *what, int N, int F, int P, const int *col_player)
{
    size_t r, c;
    double *d = ee_mx_dense_rows(A, what, &r, &c);
    if (r != (size_t)N || !(c == (size_t)P || c == (size_t)F))
        ee_mx_error("ee:badInput", "%s must be %dx%d (one value per player)%s, got %zux%zu", what, N, P,
                    P != F ? " or N x F (ee_sv's spread maps)" : "", r, c);
    float *maps = ee_mx_malloc(sizeof(float) * ((size_t)N * P + 1), what);
    for (int i = 0; i < N; i++)
        for (int p = 0; p < P; p++) {
            if (c == (size_t)P) { maps[(size_t)i * P + p] = (float)d[(size_t)i * P + p]; continue; }
            double s = 0;
            for (int f = 0; f < F; f++)
                if (col_player[f] == p) s += d[(size_t)i * F + f];
            maps[(size_t)i * P + p] = (float)s;
        }
    return maps;
}

void ee_mx_train_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    ee_mx_begin();
    EeMxOpt o[NTOPT];
    ee_mx_parse_options(topt_names, nrhs, prhs, 3, o, NTOPT);
    const mxArray *fh = prhs[0], *X = prhs[1], *M = prhs[2];
    if (!(mxIsSingle(X) || mxIsDouble(X)) || mxGetNumberOfDimensions(X) != 2 || mxGetN(X) < 1)
        ee_mx_error("ee:badInput", "X must be a real N x F matrix (F >= 1 features), got %s", mxGetClassName(X));
    int F = (int)mxGetN(X);
    int32_t *groups = groups_of(o[T_GROUPS].value, F, "'groups'");
    int P = ee_fn_players(groups, F);
    if (P < 1) ee_mx_error("ee:badInput", "'groups' must name at least one player (ids >= 1)");
    int *col_player = ee_mx_malloc(sizeof(int) * (F + 1), "the players"), *size = ee_mx_malloc(sizeof(int) * (P + 1), "the players");
    player_index(groups, F, P, col_player, size);
    if (o[T_OPTIONS].value && !mxIsCell(o[T_OPTIONS].value))
        ee_mx_error("ee:badInput", "'options' must be a cell of the method's name/value options");
    if (o[T_OPTIONS].value && mxGetNumberOfElements(o[T_OPTIONS].value) > 48)
        ee_mx_error("ee:badInput", "'options' has more than 48 elements");
    if (o[T_OPTIONS].value && mxGetNumberOfElements(o[T_OPTIONS].value) % 2)
        ee_mx_error("ee:badInput", "'options' must hold name/value pairs (it has %zu elements)",
                    (size_t)mxGetNumberOfElements(o[T_OPTIONS].value));
    if (o[T_OPTIONS].value) /* the players and the absent values are recorded: give them once, here */
        for (size_t k = 0; k < mxGetNumberOfElements(o[T_OPTIONS].value); k += 2) {
            const mxArray *nm = mxGetCell(o[T_OPTIONS].value, (mwIndex)k);
            static const char *const own[] = {"groups", "baseline", "background"};
            char buf[16] = "";
            if (nm && mxIsChar(nm) && mxGetNumberOfElements(nm) < sizeof buf) mxGetString(nm, buf, sizeof buf);
            for (int j = 0; j < 3; j++)
                if (!strcmp(buf, own[j]))
                    ee_mx_error("ee:badInput", "give '%s' as ee_train's own option, not inside 'options' (the "
                                "explainer records it)", own[j]);
        }
    if (o[T_BASELINE].value && o[T_BACKGROUND].value)
        ee_mx_error("ee:badInput", "'baseline' and 'background' exclude each other");

    int method = M_GIVEN;
    if (mxIsChar(M)) method = ee_mx_choice(M, "METHOD", method_names, M_GIVEN);
    if (method == M_IG && groups)
        ee_mx_error("ee:badInput", "'groups' applies to 'sv', 'exact' and 'kernelshap', not 'ig' (its values are per column)");
    if (method == M_GIVEN && o[T_OPTIONS].value)
        ee_mx_error("ee:badInput", "'options' are the method's: they apply when METHOD is 'sv', 'exact', 'kernelshap' or 'ig'");

    int verbose = o[T_VERBOSE].value ? ee_mx_bool(o[T_VERBOSE].value, "'verbose'") : 1;
    int scale_inputs = o[T_SCALE_INPUTS].value ? ee_mx_bool(o[T_SCALE_INPUTS].value, "'scale_inputs'") : 1;
    EeDataset train = {0}, valid = {0};
    train.in.x = ee_mx_dense(X, "X", F, &train.in.n);
    if (method == M_GIVEN) {
        train.maps = given_maps(M, "A", train.in.n, F, P, col_player);
    } else {
        int n;
        train.maps = method_maps(method, fh, X, o, P, groups != NULL, verbose, 0, &n);
    }
    if (o[T_VALIDATION].value) { /* {Xv, Av}, or {Xv} when the maps are computed here */
        const mxArray *v = o[T_VALIDATION].value;
        size_t nv = mxIsCell(v) ? mxGetNumberOfElements(v) : 0;
        if (!(nv == 2 || (nv == 1 && method != M_GIVEN)))
            ee_mx_error("ee:badInput", "'validation' must be a cell {Xv, Av}%s", method != M_GIVEN ? " or {Xv}" : "");
        valid.in.x = ee_mx_dense(mxGetCell(v, 0), "validation Xv", F, &valid.in.n);
        if (nv == 2) {
            valid.maps = given_maps(mxGetCell(v, 1), "validation Av", valid.in.n, F, P, col_player);
        } else {
            int n;
            valid.maps = method_maps(method, fh, mxGetCell(v, 0), o, P, groups != NULL, verbose, 0, &n);
        }
    }
    /* the inputs scaled column by column (the training rows' statistics,
     * kept in the explainer for ee_explain); the rows as given stay for
     * the check's one-sample run */
    double *center = ee_mx_malloc(sizeof(double) * F, "the input scaling");
    double *scale = ee_mx_malloc(sizeof(double) * F, "the input scaling");
    double *squash = ee_mx_malloc(sizeof(double) * F, "the input scaling");
    if (scale_inputs) {
        EeStatus sst = ee_input_scale_fit(train.in.x, train.in.n, F, center, scale, squash);
        if (sst) ee_mx_fail(sst);
        EeDataset *sets[2] = {&train, &valid};
        for (int q = 0; q < 2; q++) {
            if (!sets[q]->in.n) continue;
            float *z = ee_mx_malloc(sizeof(float) * ((size_t)sets[q]->in.n * F + 1), "the scaled inputs");
            ee_input_scale_apply(center, scale, squash, sets[q]->in.x, sets[q]->in.n, F, z);
            sets[q]->in.x = z;
        }
    }

    int hidden[EE_MAX_HIDDEN] = {256, 256}, nhidden = 2;
    if (o[T_HIDDEN].value)
        nhidden = mxIsEmpty(o[T_HIDDEN].value) ? 0
                                                : ee_mx_int_vector(o[T_HIDDEN].value, "'hidden'", 1, 1 << 16, hidden, EE_MAX_HIDDEN);
    int seed = o[T_SEED].value ? ee_mx_int(o[T_SEED].value, "'seed'", 0, 0x7fffffff) : 1;
    EeModel *m;
    EeStatus st = ee_feature_explainer_new(F, P, nhidden, hidden, (uint64_t)seed, &m);
    if (st) ee_mx_fail(st);
    ee_mx_defer((void (*)(void *))ee_model_free, m);
    const EeConfig *cfg = ee_model_config(m);

    EeTrainOptions t;
    ee_train_options_defaults(&t, cfg->kind, cfg->head);
    const mxArray *v;
    if ((v = o[T_EPOCHS].value)) t.epochs = ee_mx_int(v, "'epochs'", 1, 1000000);
    if ((v = o[T_LR].value)) {
        double lr = ee_mx_scalar(v, "'lr'");
        if (!(lr > 0 && lr < 10)) ee_mx_error("ee:badInput", "'lr' must be in (0, 10), got %g", lr);
        t.lr = (float)lr;
    }
    if ((v = o[T_BATCH].value)) t.batch = ee_mx_int(v, "'batch'", 1, 1 << 20);
    if ((v = o[T_PATIENCE].value)) t.patience = ee_mx_int(v, "'patience'", 0, 1000000);
    t.seed = (uint64_t)seed;
    if ((v = o[T_SCHEDULE].value))
        t.schedule = (EeSchedule)ee_mx_choice(v, "'schedule'", ee_schedule_names, EE_SCHEDULE_COUNT);
    if ((v = o[T_STANDARDIZE].value)) t.standardize = ee_mx_bool(v, "'standardize'");
    t.verbose = verbose;
    t.device = EE_DEVICE_CPU; /* a small mlp: the GPU would not pay */
    t.print = ee_mx_print;
    ee_mx_budget(ee_train_bytes(m, train.in.n, valid.in.n, &t) + ee_model_bytes(cfg), "training");
    EeHistory hist;
    st = ee_train(m, &train, valid.in.n ? &valid : NULL, &t, &hist);
    if (st) ee_mx_fail(st);
    ee_mx_defer((void (*)(void *))ee_history_free, &hist);

    /* the check: the explainer against a map of zeros and the method's
     * cheapest run, on the validation rows (else the training rows) */
    const EeDataset *chk_set = valid.in.n ? &valid : &train;
    const mxArray *chk_X = valid.in.n ? mxGetCell(o[T_VALIDATION].value, 0) : X;
    float *chk_E = ee_mx_malloc(sizeof(float) * ((size_t)chk_set->in.n * P + 1), "the check");
    ee_mx_budget(ee_predict_bytes(m, chk_set->in.n, 0, EE_DEVICE_CPU), "the check");
    if ((st = ee_model_predict(m, &chk_set->in, chk_E, 0, EE_DEVICE_CPU))) ee_mx_fail(st);
    float *chk_S = NULL;
    if (method != M_GIVEN) {
        int n;
        chk_S = method_maps(method, fh, chk_X, o, P, groups != NULL, 0, 1, &n);
    }
    EeMxCheck chk;
    mxArray *check = ee_mx_check_struct(chk_E, chk_set->maps, chk_S, chk_set->in.n, P,
                                        valid.in.n ? "validation" : "training",
                                        method == M_IG ? "IG at s = 1" : "SV at s = 1", &chk);

    mxArray *out = ee_mx_model_struct(m);
    ee_mx_set(out, "format", mxCreateString("ee-model-1"));
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_set(s, "epochs", mxCreateDoubleScalar(t.epochs));
    ee_mx_set(s, "lr", mxCreateDoubleScalar(t.lr));
    ee_mx_set(s, "schedule", mxCreateString(ee_schedule_names[t.schedule]));
    ee_mx_set(s, "standardize", mxCreateLogicalScalar(t.standardize != 0));
    ee_mx_set(s, "batch", mxCreateDoubleScalar(t.batch));
    ee_mx_set(s, "patience", mxCreateDoubleScalar(t.patience));
    ee_mx_set(s, "seed", mxCreateDoubleScalar(seed));
    ee_mx_set(s, "scale_inputs", mxCreateLogicalScalar(scale_inputs != 0));
    ee_mx_set(out, "settings", s);
    mxArray *h = mxCreateStructMatrix(1, 1, 0, NULL);
    mxArray *tl = mxCreateDoubleMatrix(1, (size_t)hist.epochs_run, mxREAL), *vl = mxCreateDoubleMatrix(1, (size_t)hist.epochs_run, mxREAL);
    for (int e = 0; e < hist.epochs_run; e++) {
        mxGetPr(tl)[e] = hist.train_loss[e];
        mxGetPr(vl)[e] = valid.in.n ? hist.valid_loss[e] : NAN;
    }
    ee_mx_set(h, "train_loss", tl);
    ee_mx_set(h, "valid_mse", vl);
    ee_mx_set(h, "epochs_run", mxCreateDoubleScalar(hist.epochs_run));
    ee_mx_set(h, "best_epoch", mxCreateDoubleScalar(hist.best_epoch));
    ee_mx_set(h, "seconds", mxCreateDoubleScalar(hist.seconds));
    ee_mx_set(h, "check", check);
    ee_mx_set(out, "history", h);
    if (scale_inputs) { /* applied by ee_explain before the explainer's pass */
        mxArray *sc = mxCreateStructMatrix(1, 1, 0, NULL);
        ee_mx_set(sc, "center", ee_mx_row(center, F));
        ee_mx_set(sc, "scale", ee_mx_row(scale, F));
        ee_mx_set(sc, "squash", ee_mx_row(squash, F));
        ee_mx_set(out, "input_scaling", sc);
    }

    /* what it explains: everything ee_explain needs to apply it and to
     * project onto efficiency (the players and the absent values) */
    mxArray *e = mxCreateStructMatrix(1, 1, 0, NULL);
    mxArray *fname = NULL, *farg = (mxArray *)fh;
    if (mexCallMATLAB(1, &fname, 1, &farg, "func2str") == 0 && fname) ee_mx_set(e, "function", fname);
    ee_mx_set(e, "method", mxCreateString(method_names[method]));
    ee_mx_set(e, "features", mxCreateDoubleScalar(F));
    ee_mx_set(e, "players", mxCreateDoubleScalar(P));
    mxArray *g = mxCreateDoubleMatrix(groups ? 1 : 0, groups ? (size_t)F : 0, mxREAL);
    for (int f = 0; groups && f < F; f++) mxGetPr(g)[f] = groups[f];
    ee_mx_set(e, "groups", g);
    ee_mx_set(e, "baseline", o[T_BASELINE].value ? mxDuplicateArray(o[T_BASELINE].value) : mxCreateDoubleMatrix(0, 0, mxREAL));
    ee_mx_set(e, "background", o[T_BACKGROUND].value ? mxDuplicateArray(o[T_BACKGROUND].value) : mxCreateDoubleMatrix(0, 0, mxREAL));
    ee_mx_set(e, "options", o[T_OPTIONS].value ? mxDuplicateArray(o[T_OPTIONS].value) : mxCreateCellMatrix(1, 0));
    ee_mx_set(out, "explains", e);
    (void)nlhs;
    plhs[0] = out;
    ee_mx_cleanup();
    ee_mx_check_warn(&chk);
}

int ee_mx_is_feature_explainer(const mxArray *a)
{
    if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1) return 0;
    const mxArray *k = mxGetField(a, 0, "kind"), *h = mxGetField(a, 0, "head");
    char kb[8] = "", hb[8] = "";
    if (!k || !h || !mxIsChar(k) || !mxIsChar(h) || mxGetNumberOfElements(k) >= sizeof kb ||
        mxGetNumberOfElements(h) >= sizeof hb)
        return 0;
    mxGetString(k, kb, sizeof kb);
    mxGetString(h, hb, sizeof hb);
    return !strcmp(kb, "mlp") && strcmp(hb, "classifier");
}

enum { X_MODEL, X_TARGET, X_BATCH, NXOPT };
static const char *const xopt_names[NXOPT] = {"model", "target", "batch"};

/* f's scores of n row-major rows of F values: M x C column-major, copied
 * (f's own arrays are released before anything can raise an error). */
static double *scores_of(const mxArray *fh, const double *rows, int n, int F, long call, int *C)
{
    EeMxFn fn = {.fh = fh};
    const double *sc;
    EeStatus st = ee_mx_fn_eval(&fn, rows, n, F, call, &sc, C);
    double *copy = NULL;
    if (!st) {
        copy = malloc(sizeof(double) * ((size_t)n * *C + 1));
        if (copy) memcpy(copy, sc, sizeof(double) * (size_t)n * *C);
    }
    int failed = fn.failed;
    ee_mx_fn_release(&fn);
    if (st && failed) ee_mx_error("ee:callbackError", "%s", ee_last_error());
    if (st) ee_mx_fail(st);
    if (!copy) ee_mx_error("ee:outOfMemory", "out of memory copying f's scores");
    ee_mx_defer(free, copy);
    return copy;
}

/* explainer.input_scaling (from ee_train: center, scale, squash, 1 x F
 * each), checked
 * as untrusted, applied to the rows in place of the caller's; absent: the
 * explainer reads the rows as they are ('scale_inputs', false). */
static void scale_rows(const mxArray *sc, int F, EeInput *in)
{
    if (!sc) return;
    if (!mxIsStruct(sc) || mxGetNumberOfElements(sc) != 1)
        ee_mx_error("ee:badModel", "explainer.input_scaling must be a struct (center, scale, squash)");
    const mxArray *c = mxGetField(sc, 0, "center"), *k = mxGetField(sc, 0, "scale"), *q = mxGetField(sc, 0, "squash");
    if (!c || !k || !q)
        ee_mx_error("ee:badModel", "explainer.input_scaling needs the fields center, scale and squash");
    size_t r, n;
    double *center = ee_mx_dense_rows(c, "explainer.input_scaling.center", &r, &n);
    if (r * n != (size_t)F) ee_mx_error("ee:badModel", "explainer.input_scaling.center must have %d values", F);
    double *scale = ee_mx_dense_rows(k, "explainer.input_scaling.scale", &r, &n);
    if (r * n != (size_t)F) ee_mx_error("ee:badModel", "explainer.input_scaling.scale must have %d values", F);
    for (int f = 0; f < F; f++)
        if (!(scale[f] > 0))
            ee_mx_error("ee:badModel", "explainer.input_scaling.scale(%d) must be above 0, got %g", f + 1, scale[f]);
    if (!(mxIsDouble(q) || mxIsSingle(q)) || mxIsComplex(q) || mxIsSparse(q) || mxGetNumberOfElements(q) != (size_t)F)
        ee_mx_error("ee:badModel", "explainer.input_scaling.squash must have %d values", F);
    double *squash = ee_mx_malloc(sizeof(double) * F, "the input scaling");
    for (int f = 0; f < F; f++) {
        squash[f] = mxIsDouble(q) ? mxGetPr(q)[f] : ((const float *)mxGetData(q))[f];
        if (!(squash[f] > 0))
            ee_mx_error("ee:badModel", "explainer.input_scaling.squash(%d) must be above 0 (Inf: none), got %g", f + 1,
                        squash[f]);
    }
    float *z = ee_mx_malloc(sizeof(float) * ((size_t)in->n * F + 1), "the scaled inputs");
    ee_input_scale_apply(center, scale, squash, in->x, in->n, F, z);
    for (size_t i = 0; i < (size_t)in->n * F; i++)
        if (!isfinite(z[i])) ee_mx_error("ee:badInput", "X(%zu,%zu) is outside the explainer's input scaling",
                                         i / F + 1, i % F + 1);
    in->x = z;
}

void ee_mx_explain_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nlhs > 2) ee_mx_error("ee:badInput", "ee_explain returns at most two outputs");
    ee_mx_begin();
    EeMxOpt o[NXOPT];
    ee_mx_parse_options(xopt_names, nrhs, prhs, 2, o, NXOPT);
    const mxArray *E = prhs[0];
    EeModel *m = ee_mx_model(E, "explainer");
    const EeConfig *c = ee_model_config(m);
    if (!ee_is_feature_explainer(c)) ee_mx_error("ee:badModel", "explainer is not an mlp explainer");
    int F = c->D, P = c->classes;
    const mxArray *ex = mxGetField(E, 0, "explains");
    if (!ex || !mxIsStruct(ex) || mxGetNumberOfElements(ex) != 1)
        ee_mx_error("ee:badModel", "explainer.explains is missing: train it with ee_train (@f, X, ...)");
    int32_t *groups = groups_of(mxGetField(ex, 0, "groups"), F, "explainer.explains.groups");
    if (ee_fn_players(groups, F) != P)
        ee_mx_error("ee:badModel", "explainer.explains.groups names %d players but the explainer has %d outputs",
                    ee_fn_players(groups, F), P);
    int *col_player = ee_mx_malloc(sizeof(int) * (F + 1), "the players"), *size = ee_mx_malloc(sizeof(int) * (P + 1), "the players");
    player_index(groups, F, P, col_player, size);

    EeInput in = {0};
    in.x = ee_mx_dense(prhs[1], "X", F, &in.n);
    scale_rows(mxGetField(E, 0, "input_scaling"), F, &in);
    int N = in.n, batch = o[X_BATCH].value ? ee_mx_int(o[X_BATCH].value, "'batch'", 1, 1 << 20) : 0;
    ee_mx_budget(ee_predict_bytes(m, N, batch, EE_DEVICE_CPU) + 24.0 * N * (P + F + 4), "the call");
    float *out = ee_mx_malloc(sizeof(float) * ((size_t)N * P + 1), "the maps");
    double t0 = ee_now();
    EeStatus st = ee_model_predict(m, &in, out, batch, EE_DEVICE_CPU);
    if (st) ee_mx_fail(st);
    double *phi = ee_mx_malloc(sizeof(double) * ((size_t)N * P + 1), "the maps");
    for (size_t q = 0; q < (size_t)N * P; q++) phi[q] = out[q];

    /* efficiency: shift each row's players equally so that they sum to
     * f(x) - v(empty) at the target, v(empty) the mean of f over the
     * recorded background rows (the baseline row; zeros when neither) */
    double *fx = NULL, *f0 = NULL, *delta = NULL, *tg = NULL;
    if (o[X_MODEL].value) {
        const mxArray *fh = o[X_MODEL].value;
        if (!mxIsClass(fh, "function_handle"))
            ee_mx_error("ee:badInput", "'model' must be the function handle the explainer explains, got %s",
                        mxGetClassName(fh));
        size_t K = 1, kc = (size_t)F;
        double *bg = NULL;
        const mxArray *b = mxGetField(ex, 0, "baseline"), *k = mxGetField(ex, 0, "background");
        if (k && !mxIsEmpty(k)) bg = ee_mx_dense_rows(k, "explainer.explains.background", &K, &kc);
        else if (b && !mxIsEmpty(b)) {
            size_t r;
            bg = ee_mx_dense_rows(b, "explainer.explains.baseline", &r, &kc);
            if (r * kc == 1 && F > 1) { /* a scalar for every column */
                double v0 = bg[0];
                bg = ee_mx_malloc(sizeof(double) * F, "the baseline");
                for (int f = 0; f < F; f++) bg[f] = v0;
                kc = (size_t)F;
            }
            K = 1;
        } else {
            bg = ee_mx_malloc(sizeof(double) * F, "the baseline");
            memset(bg, 0, sizeof(double) * F);
        }
        if (kc != (size_t)F || K < 1) ee_mx_error("ee:badModel", "explainer.explains: the absent values must have %d columns", F);
        size_t xr, xc;
        double *Xd = ee_mx_dense_rows(prhs[1], "X", &xr, &xc);
        ee_threads_leave(); /* f runs with the caller's BLAS threads */
        int C, C0;
        const double *sx = scores_of(fh, Xd, N, F, 1, &C);
        fx = ee_mx_malloc(sizeof(double) * (N + 1), "info.fx");
        tg = ee_mx_malloc(sizeof(double) * (N + 1), "info.target");
        int32_t *t = ee_mx_malloc(sizeof(int32_t) * (N + 1), "info.target");
        const mxArray *tv = o[X_TARGET].value;
        /* 'target': 'argmax' (default), one class for every row, or one per row */
        int one = -1;
        if (tv && mxIsChar(tv)) {
            static const char *const names[] = {"argmax"};
            ee_mx_choice(tv, "'target'", names, 1);
            tv = NULL;
        } else if (tv && mxGetNumberOfElements(tv) == 1 && N != 1) {
            one = ee_mx_int(tv, "'target'", 1, C) - 1;
        } else if (tv) {
            int32_t *given = ee_mx_labels(tv, "'target'", N, C, NULL);
            memcpy(t, given, sizeof(int32_t) * N);
        }
        for (int i = 0; i < N; i++) {
            if (!tv) {
                int best = 0;
                for (int j = 1; j < C; j++)
                    if (sx[i + (size_t)N * j] > sx[i + (size_t)N * best]) best = j;
                t[i] = best;
            } else if (one >= 0) {
                t[i] = one;
            }
            fx[i] = sx[i + (size_t)N * t[i]];
            tg[i] = t[i] + 1;
        }
        const double *s0 = scores_of(fh, bg, (int)K, F, 2, &C0);
        if (C0 != C) {
            ee_mx_error("ee:badInput", "f returned %d scores for the baseline rows and %d for X", C0, C);
        }
        f0 = ee_mx_malloc(sizeof(double) * (N + 1), "info.fbaseline");
        delta = ee_mx_malloc(sizeof(double) * (N + 1), "info.delta");
        for (int i = 0; i < N; i++) {
            double v = 0, sum = 0;
            for (size_t q = 0; q < K; q++) v += s0[q + K * t[i]];
            f0[i] = v / K;
            for (int p = 0; p < P; p++) sum += phi[(size_t)i * P + p];
            delta[i] = sum - (fx[i] - f0[i]);
            for (int p = 0; p < P; p++) phi[(size_t)i * P + p] -= delta[i] / P;
        }
    } else if (o[X_TARGET].value) {
        ee_mx_error("ee:badInput", "'target' applies with 'model' (the efficiency projection)");
    }
    double secs = ee_now() - t0;

    /* the players' values spread over their columns, as ee_sv (@f) spreads them */
    mxArray *A = mxCreateDoubleMatrix((size_t)N, (size_t)F, mxREAL);
    double *a = mxGetPr(A);
    for (int i = 0; i < N; i++)
        for (int f = 0; f < F; f++) {
            int p = col_player[f];
            a[i + (size_t)N * f] = p < 0 ? 0 : phi[(size_t)i * P + p] / size[p];
        }
    plhs[0] = A;
    if (nlhs > 1) {
        mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
        mxArray *pl = mxCreateDoubleMatrix((size_t)N, (size_t)P, mxREAL);
        for (int i = 0; i < N; i++)
            for (int p = 0; p < P; p++) mxGetPr(pl)[i + (size_t)N * p] = phi[(size_t)i * P + p];
        ee_mx_set(s, "players", pl);
        ee_mx_set(s, "projected", mxCreateLogicalScalar(fx != NULL));
        if (fx) {
            ee_mx_set(s, "target", ee_mx_double_vector(tg, N));
            ee_mx_set(s, "fx", ee_mx_double_vector(fx, N));
            ee_mx_set(s, "fbaseline", ee_mx_double_vector(f0, N));
            ee_mx_set(s, "delta", ee_mx_double_vector(delta, N));
        }
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(secs));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}
