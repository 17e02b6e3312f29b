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
       T_HIDDEN, T_GROUPS, T_BASELINE, T_BACKGROUND, T_OPTIONS, T_SCALE_INPUTS, T_PER_CLASS, NTOPT };
static const char *const topt_names[NTOPT] = {"validation", "epochs", "lr", "batch", "patience", "seed",
                                              "schedule", "standardize", "verbose", "hidden", "groups",
                                              "baseline", "background", "options", "scale_inputs", "per_class"};

/* The most classes for which an explainer of a classifier learns one map
 * per class by default (the maps cost one run of the method per class). */
#define EE_PER_CLASS_MAX 16
/* The optimizer steps an explainer of a function handle trains for by
 * default, whatever the number of rows: epochs = this / batches per epoch,
 * within [EE_FN_EPOCHS_MIN, EE_FN_EPOCHS_MAX]. */
#define EE_FN_STEPS 5000
#define EE_FN_EPOCHS_MIN 20
#define EE_FN_EPOCHS_MAX 500

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

/* The option name nm (a char array) in buf, "" when it is none or too long. */
static void option_name(const mxArray *nm, char *buf, size_t size)
{
    buf[0] = 0;
    if (nm && mxIsChar(nm) && mxGetNumberOfElements(nm) < size) mxGetString(nm, buf, size);
}

/* 1 when the cell of name/value pairs 'options' names opt. */
static int options_name(const mxArray *options, const char *opt)
{
    char buf[16];
    for (size_t k = 0; options && k + 1 < mxGetNumberOfElements(options); k += 2) {
        option_name(mxGetCell(options, (mwIndex)k), buf, sizeof buf);
        if (!strcasecmp(buf, opt)) return 1;
    }
    return 0;
}

/* The method's own options that the check's one-sample run sets itself
 * (its sample count, seed and rule); the others (target, batch, ...) keep
 * the definition of the maps and are passed on. */
static int sample_option(const mxArray *nm)
{
    static const char *const own[] = {"samples", "seed", "steps", "method", "exact", "permutations",
                                      "paired", "coalitions", "weights", "verbose"};
    char buf[16];
    option_name(nm, buf, sizeof buf);
    for (size_t j = 0; j < sizeof own / sizeof *own; j++)
        if (!strcasecmp(buf, own[j])) return 1;
    return 0;
}

/* The players' values of X by METHOD, through the method's own gateway:
 * N x P row-major floats (ee_sv with groups: its info.players). With
 * one_sample, the cheapest run of the method instead, for ee_train's check:
 * Shapley Value Sampling with one permutation (another seed than the
 * maps', so the two runs are independent) for the Shapley methods, IG with
 * one Gauss-Legendre node for 'ig'. target >= 1: the maps of that class
 * (the method's 'target') instead of the class f predicts. */
static float *method_maps(int method, const mxArray *fh, const mxArray *X, const EeMxOpt *o, int P, int grouped,
                          int verbose, int one_sample, int target, int *N)
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
    if (target >= 1) {
        args[n++] = mxCreateString("target");
        args[n++] = mxCreateDoubleScalar(target);
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
            char buf[8];
            option_name(nm, buf, sizeof buf);
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

static double *scores_of(const mxArray *fh, const double *rows, int n, int F, long call, int *C);

/* The maps of X for C classes (C = 1: of the class f predicts): N x (C P)
 * row-major floats, row i's class c at ((i C) + c) P. */
static float *class_maps(int method, const mxArray *fh, const mxArray *X, const EeMxOpt *o, int P, int grouped,
                         int verbose, int C, int N)
{
    int n;
    if (C == 1) return method_maps(method, fh, X, o, P, grouped, verbose, 0, 0, &n);
    float *all = ee_mx_malloc(sizeof(float) * ((size_t)N * C * P + 1), "the maps");
    for (int c = 0; c < C; c++) {
        if (verbose) {
            char line[64];
            snprintf(line, sizeof line, "ee_train: the maps of class %d of %d\n", c + 1, C);
            ee_mx_print_line(line);
        }
        int mark = ee_mx_mark(); /* each class's run released before the next */
        float *one = method_maps(method, fh, X, o, P, grouped, verbose, 0, c + 1, &n);
        for (int i = 0; i < N; i++) memcpy(all + ((size_t)i * C + c) * P, one + (size_t)i * P, sizeof(float) * P);
        ee_mx_release_to(mark);
    }
    return all;
}

/* The absent values as ee_sv (@f) makes them: the background rows, else
 * the baseline row (a scalar for every column), else a row of zeros; K x F
 * row-major. */
static double *absent_rows(const mxArray *baseline, const mxArray *background, int F, size_t *K, const char *what)
{
    size_t kc = (size_t)F;
    double *bg;
    *K = 1;
    if (background && !mxIsEmpty(background)) {
        bg = ee_mx_dense_rows(background, what, K, &kc);
    } else if (baseline && !mxIsEmpty(baseline)) {
        size_t r;
        bg = ee_mx_dense_rows(baseline, what, &r, &kc);
        if (r * kc == 1 && F > 1) { /* a scalar for every column */
            double v0 = bg[0];
            bg = ee_mx_malloc(sizeof(double) * F, what);
            for (int f = 0; f < F; f++) bg[f] = v0;
            kc = (size_t)F;
        } else if (r != 1) {
            kc = 0;
        }
    } else {
        bg = ee_mx_malloc(sizeof(double) * F, what);
        memset(bg, 0, sizeof(double) * F);
    }
    if (kc != (size_t)F || *K < 1) ee_mx_error("ee:badModel", "%s must have %d columns", what, F);
    return bg;
}

/* v(empty) of each of the C classes: f's mean over the absent values' rows. */
static double *empty_values(const mxArray *fh, const mxArray *baseline, const mxArray *background, int F, int C,
                            const char *what)
{
    size_t K;
    double *bg = absent_rows(baseline, background, F, &K, what);
    int C0;
    const double *s0 = scores_of(fh, bg, (int)K, F, 0, &C0);
    if (C0 != C) ee_mx_error("ee:badInput", "f returned %d scores for the absent values and %d for X", C0, C);
    double *v = ee_mx_malloc(sizeof(double) * C, what);
    for (int c = 0; c < C; c++) {
        double sum = 0;
        for (size_t q = 0; q < K; q++) sum += s0[q + K * c];
        v[c] = sum / K;
    }
    return v;
}

/* Each row's class of highest score (0-based), scores N x C column-major. */
static void argmax_rows(const double *sc, int N, int C, int32_t *t)
{
    for (int i = 0; i < N; i++) {
        int best = 0;
        for (int j = 1; j < C; j++)
            if (sc[i + (size_t)N * j] > sc[i + (size_t)N * best]) best = j;
        t[i] = best;
    }
}

/* f's scores as an explainer of one map per class reads them from its own
 * maps (efficiency: a class's map sums to f_c(x) - v_c(empty)): v_c(empty)
 * plus the sum of class c's map; N x C column-major. */
static double *estimated_scores(const float *maps, int N, int P, int C, const double *fempty)
{
    double *sc = ee_mx_malloc(sizeof(double) * ((size_t)N * C + 1), "the classes");
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            double sum = fempty[c];
            for (int p = 0; p < P; p++) sum += maps[((size_t)i * C + c) * P + p];
            sc[i + (size_t)N * c] = sum;
        }
    return sc;
}

/* Row i's map of class t[i] out of the explainer's Cm maps per row (Cm = 1:
 * its one map), N x P doubles in phi; with sx (f's scores, N x C column-
 * major) and v0 (v(empty) per class), shifted equally over the players so
 * that it sums to f_t(x) - v0_t, delta (may be NULL) the sum's excess
 * before the shift. */
static void class_rows(const float *out, int N, int P, int Cm, const int32_t *t, const double *sx,
                       const double *v0, double *phi, double *delta)
{
    for (int i = 0; i < N; i++) {
        const float *src = out + ((size_t)i * Cm + (Cm > 1 ? t[i] : 0)) * P;
        double sum = 0;
        for (int p = 0; p < P; p++) sum += phi[(size_t)i * P + p] = src[p];
        if (!sx) continue;
        double d = sum - (sx[i + (size_t)N * t[i]] - v0[t[i]]);
        if (delta) delta[i] = d;
        for (int p = 0; p < P; p++) phi[(size_t)i * P + p] -= d / P;
    }
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
            char buf[16];
            option_name(nm, buf, sizeof buf);
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
    /* one map per class (the method run once per class) for a classifier
     * of a few classes whose maps are computed here: the map of the class
     * f predicts jumps where the prediction changes, each class's map is
     * as smooth as f */
    int C = 1, per_class = 0;
    const mxArray *extra = o[T_OPTIONS].value;
    if (method != M_GIVEN && train.in.n > 0) {
        size_t r0, c0;
        double *x0 = ee_mx_dense_rows(X, "X", &r0, &c0);
        (void)scores_of(fh, x0, 1, F, 0, &C);
        per_class = C >= 2 && C <= EE_PER_CLASS_MAX && !options_name(extra, "target");
    }
    if (o[T_PER_CLASS].value) {
        int want = ee_mx_bool(o[T_PER_CLASS].value, "'per_class'");
        if (want && (method == M_GIVEN || C < 2 || options_name(extra, "target")))
            ee_mx_error("ee:badInput", "'per_class' needs the maps computed here (METHOD), f with 2 or more scores "
                        "per row (it has %d) and no 'target' in 'options'", C);
        per_class = want;
    }
    int Cm = per_class ? C : 1; /* the maps per row */
    if (method == M_GIVEN) {
        train.maps = given_maps(M, "A", train.in.n, F, P, col_player);
    } else {
        train.maps = class_maps(method, fh, X, o, P, groups != NULL, verbose, Cm, train.in.n);
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
            valid.maps = class_maps(method, fh, mxGetCell(v, 0), o, P, groups != NULL, verbose, Cm, valid.in.n);
        }
    }
    /* v(empty) per class, kept for ee_explain: the efficiency projection
     * then calls f once (for X), and an explainer of one map per class
     * tells the class from its maps' sums */
    double *fempty = method != M_GIVEN
                         ? empty_values(fh, o[T_BASELINE].value, o[T_BACKGROUND].value, F, C, "the absent values")
                         : NULL;
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
    EeStatus st = ee_feature_explainer_new(F, P * Cm, nhidden, hidden, (uint64_t)seed, &m);
    if (st) ee_mx_fail(st);
    ee_mx_defer((void (*)(void *))ee_model_free, m);
    const EeConfig *cfg = ee_model_config(m);

    EeTrainOptions t;
    ee_train_options_defaults(&t, cfg->kind, cfg->head);
    /* as many optimizer steps for 90 rows as for 10000 (a fixed epoch count
     * leaves an explainer of few rows a few dozen steps) */
    const mxArray *v;
    if ((v = o[T_BATCH].value)) t.batch = ee_mx_int(v, "'batch'", 1, 1 << 20);
    long per_epoch = ((long)train.in.n + t.batch - 1) / t.batch;
    long ep = EE_FN_STEPS / (per_epoch > 0 ? per_epoch : 1);
    t.epochs = (int)(ep < EE_FN_EPOCHS_MIN ? EE_FN_EPOCHS_MIN : ep > EE_FN_EPOCHS_MAX ? EE_FN_EPOCHS_MAX : ep);
    t.patience = t.epochs / 10 > 3 ? t.epochs / 10 : 3;
    if ((v = o[T_EPOCHS].value)) t.epochs = ee_mx_int(v, "'epochs'", 1, 1000000);
    if ((v = o[T_LR].value)) {
        double lr = ee_mx_scalar(v, "'lr'");
        if (!(lr > 0 && lr < 10)) ee_mx_error("ee:badInput", "'lr' must be in (0, 10), got %g", lr);
        t.lr = (float)lr;
    }
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
     * cheapest run, on the validation rows (else the training rows); where
     * the maps are the method's of the class f predicts, the explainer's
     * as ee_explain with 'model', @f gives them (that class, efficiency) */
    const EeDataset *chk_set = valid.in.n ? &valid : &train;
    const mxArray *chk_X = valid.in.n ? mxGetCell(o[T_VALIDATION].value, 0) : X;
    int nchk = chk_set->in.n;
    float *chk_E = ee_mx_malloc(sizeof(float) * ((size_t)nchk * P * Cm + 1), "the check");
    ee_mx_budget(ee_predict_bytes(m, nchk, 0, EE_DEVICE_CPU), "the check");
    if ((st = ee_model_predict(m, &chk_set->in, chk_E, 0, EE_DEVICE_CPU))) ee_mx_fail(st);
    const float *chk_A = chk_set->maps;
    if (method != M_GIVEN && !options_name(extra, "target")) {
        /* the maps of the class f predicts, as ee_explain with 'model' gives them */
        size_t r, c;
        double *xd = ee_mx_dense_rows(chk_X, "the check's rows", &r, &c);
        int Cf;
        const double *sx = scores_of(fh, xd, nchk, F, 0, &Cf);
        if (Cf != C) ee_mx_error("ee:badInput", "f returned %d scores per row and then %d", C, Cf);
        const double *v0 = fempty;
        int32_t *t = ee_mx_malloc(sizeof(int32_t) * (nchk + 1), "the check");
        argmax_rows(sx, nchk, Cf, t);
        double *phi = ee_mx_malloc(sizeof(double) * ((size_t)nchk * P + 1), "the check");
        class_rows(chk_E, nchk, P, Cm, t, sx, v0, phi, NULL);
        float *a = ee_mx_malloc(sizeof(float) * ((size_t)nchk * P + 1), "the check");
        float *e = ee_mx_malloc(sizeof(float) * ((size_t)nchk * P + 1), "the check");
        for (int i = 0; i < nchk; i++)
            for (int p = 0; p < P; p++) {
                a[(size_t)i * P + p] = chk_A[((size_t)i * Cm + (Cm > 1 ? t[i] : 0)) * P + p];
                e[(size_t)i * P + p] = (float)phi[(size_t)i * P + p];
            }
        chk_A = a;
        chk_E = e;
    }
    float *chk_S = NULL;
    if (method != M_GIVEN) {
        int n;
        chk_S = method_maps(method, fh, chk_X, o, P, groups != NULL, 0, 1, 0, &n);
    }
    EeMxCheck chk;
    mxArray *check = ee_mx_check_struct(chk_E, chk_A, chk_S, nchk, P, valid.in.n ? "validation" : "training",
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
    ee_mx_set(s, "per_class", mxCreateLogicalScalar(per_class != 0));
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
    ee_mx_set(e, "classes", mxCreateDoubleScalar(Cm)); /* maps per row: P x classes outputs */
    if (fempty) ee_mx_set(e, "fempty", ee_mx_row(fempty, C));
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
    int F = c->D;
    const mxArray *ex = mxGetField(E, 0, "explains");
    if (!ex || !mxIsStruct(ex) || mxGetNumberOfElements(ex) != 1)
        ee_mx_error("ee:badModel", "explainer.explains is missing: train it with ee_train (@f, X, ...)");
    /* maps per row: one per class ('per_class'), else one (field absent in
     * explainers from before it) */
    int Cm = 1;
    const mxArray *cl = mxGetField(ex, 0, "classes");
    if (cl) {
        double k = (mxIsDouble(cl) && !mxIsComplex(cl) && mxGetNumberOfElements(cl) == 1) ? mxGetPr(cl)[0] : NAN;
        if (!(k >= 1 && k <= c->classes && k == floor(k)))
            ee_mx_error("ee:badModel", "explainer.explains.classes must be a whole number from 1 to %d", c->classes);
        Cm = (int)k;
    }
    if (c->classes % Cm)
        ee_mx_error("ee:badModel", "explainer.explains.classes (%d) must divide the explainer's %d outputs", Cm, c->classes);
    int P = c->classes / Cm;
    /* v(empty) per class of f, kept by ee_train when it computed the maps */
    double *fempty = NULL;
    int nfempty = 0;
    const mxArray *fe = mxGetField(ex, 0, "fempty");
    if (fe) {
        size_t r, n;
        fempty = ee_mx_dense_rows(fe, "explainer.explains.fempty", &r, &n);
        nfempty = (int)(r * n);
        if (nfempty < 1 || (Cm > 1 && nfempty != Cm))
            ee_mx_error("ee:badModel", "explainer.explains.fempty must have %s values (one per class)",
                        Cm > 1 ? "explains.classes" : "1 or more");
        for (int k = 0; k < nfempty; k++)
            if (!isfinite(fempty[k])) ee_mx_error("ee:badModel", "explainer.explains.fempty(%d) is NaN or Inf", k + 1);
    } else if (Cm > 1) {
        ee_mx_error("ee:badModel", "explainer.explains.fempty is missing (an explainer of one map per class)");
    }
    int32_t *groups = groups_of(mxGetField(ex, 0, "groups"), F, "explainer.explains.groups");
    if (ee_fn_players(groups, F) != P)
        ee_mx_error("ee:badModel", "explainer.explains.groups names %d players but the explainer has %d outputs%s",
                    ee_fn_players(groups, F), P, Cm > 1 ? " per class" : "");
    int *col_player = ee_mx_malloc(sizeof(int) * (F + 1), "the players"), *size = ee_mx_malloc(sizeof(int) * (P + 1), "the players");
    player_index(groups, F, P, col_player, size);

    EeInput in = {0};
    in.x = ee_mx_dense(prhs[1], "X", F, &in.n);
    scale_rows(mxGetField(E, 0, "input_scaling"), F, &in);
    int N = in.n, batch = o[X_BATCH].value ? ee_mx_int(o[X_BATCH].value, "'batch'", 1, 1 << 20) : 0;
    ee_mx_budget(ee_predict_bytes(m, N, batch, EE_DEVICE_CPU) + 24.0 * N * (P * Cm + F + 4), "the call");
    float *out = ee_mx_malloc(sizeof(float) * ((size_t)N * P * Cm + 1), "the maps");
    double t0 = ee_now();
    EeStatus st = ee_model_predict(m, &in, out, batch, EE_DEVICE_CPU);
    if (st) ee_mx_fail(st);

    /* the explained class of each row: 'target' given, else the class f
     * predicts ('model'), else (one map per class) the class the maps' sums
     * say f predicts */
    const mxArray *fh = o[X_MODEL].value;
    if (fh && !mxIsClass(fh, "function_handle"))
        ee_mx_error("ee:badInput", "'model' must be the function handle the explainer explains, got %s",
                    mxGetClassName(fh));
    const double *sx = NULL;
    double *Xd = NULL;
    int C = Cm;
    if (fh) {
        size_t xr, xc;
        Xd = ee_mx_dense_rows(prhs[1], "X", &xr, &xc);
        ee_threads_leave(); /* f runs with the caller's BLAS threads */
        sx = scores_of(fh, Xd, N, F, 1, &C);
        if (fempty && C != nfempty)
            ee_mx_error("ee:badInput", "f returns %d scores per row, but the explainer was trained on a function of %d",
                        C, nfempty);
    } else if (Cm > 1) {
        sx = estimated_scores(out, N, P, Cm, fempty);
    } else if (o[X_TARGET].value) {
        ee_mx_error("ee:badInput", "'target' applies with 'model' (the efficiency projection) or to an explainer of "
                    "one map per class");
    }
    int32_t *t = NULL;
    double *tg = NULL;
    if (sx) {
        t = ee_mx_malloc(sizeof(int32_t) * (N + 1), "info.target");
        tg = ee_mx_malloc(sizeof(double) * (N + 1), "info.target");
        const mxArray *tv = o[X_TARGET].value;
        /* 'target': 'argmax' (default), one class for every row, or one per row */
        if (tv && mxIsChar(tv)) {
            static const char *const names[] = {"argmax"};
            ee_mx_choice(tv, "'target'", names, 1);
            tv = NULL;
        }
        if (!tv) {
            argmax_rows(sx, N, C, t);
        } else if (mxGetNumberOfElements(tv) == 1 && N != 1) {
            int one = ee_mx_int(tv, "'target'", 1, C) - 1;
            for (int i = 0; i < N; i++) t[i] = one;
        } else {
            int32_t *given = ee_mx_labels(tv, "'target'", N, C, NULL);
            memcpy(t, given, sizeof(int32_t) * N);
        }
        for (int i = 0; i < N; i++) tg[i] = t[i] + 1;
    }
    /* efficiency (with 'model'): each row's players shifted equally so
     * that they sum to f(x) - v(empty) at the target, v(empty) the mean of
     * f over the recorded background rows (the baseline row; zeros when
     * neither) */
    double *fx = NULL, *f0 = NULL, *delta = NULL, *v0 = NULL;
    if (fh) {
        v0 = fempty ? fempty /* as ee_train found it: no call of f for the absent values */
                    : empty_values(fh, mxGetField(ex, 0, "baseline"), mxGetField(ex, 0, "background"), F, C,
                                   "explainer.explains' absent values");
        fx = ee_mx_malloc(sizeof(double) * (N + 1), "info.fx");
        f0 = ee_mx_malloc(sizeof(double) * (N + 1), "info.fbaseline");
        delta = ee_mx_malloc(sizeof(double) * (N + 1), "info.delta");
        for (int i = 0; i < N; i++) {
            fx[i] = sx[i + (size_t)N * t[i]];
            f0[i] = v0[t[i]];
        }
    }
    double *phi = ee_mx_malloc(sizeof(double) * ((size_t)N * P + 1), "the maps");
    class_rows(out, N, P, Cm, t, fh ? sx : NULL, v0, phi, delta);
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
        if (tg) ee_mx_set(s, "target", ee_mx_double_vector(tg, N));
        if (fx) {
            ee_mx_set(s, "fx", ee_mx_double_vector(fx, N));
            ee_mx_set(s, "fbaseline", ee_mx_double_vector(f0, N));
            ee_mx_set(s, "delta", ee_mx_double_vector(delta, N));
        }
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(secs));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}
