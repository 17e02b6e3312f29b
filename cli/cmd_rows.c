/* cmd_rows.c: the row-parallel commands: ee predict, ig, sv, explain,
 * gradient, faithfulness, occlusion and lime.
 * Each reads its models and rows as the gateways do (mex/ee_predict.c,
 * ee_ig.c, ee_sv.c, ee_explain.c), cuts the rows into chunks (shards.h),
 * computes its share of the chunks with one libcore call per chunk (SV:
 * per run of consecutive rows, keyed by the row's index in the data
 * variable, as the gateway's 'rows' option does), and rank 0 writes the
 * merged result: the variables the gateway returns, plus `rows` (the
 * 1-based rows of the data variable) and `data` (its file and variable). */
#include "common.h"
#include "data.h"
#include "matfile.h"
#include "models.h"
#include "shards.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef enum { CMD_PREDICT, CMD_IG, CMD_SV, CMD_EXPLAIN, CMD_FAITH, CMD_GRAD, CMD_OCCL, CMD_LIME } RowCmd;

/* ---- options ---------------------------------------------------------------- */
#define COMMON_OPTS(MODEL_KIND, MODEL_HELP)                                                                    \
    {"model", MODEL_KIND, "FILE", MODEL_HELP},                                                                 \
    {"data", EE_OPT_VALUE, "FILE", "the data: a .mat file in the layout of doc/API.md"},                      \
    {"var", EE_OPT_VALUE, "NAME", "the variable of --data that holds the rows (default tokens)"},             \
    {"rows", EE_OPT_VALUE, "ROWS", "rows of --var, 1-based: A:B, A, lists (1:10,20:30), train/valid/test "    \
                                   "(the file's split) or all (default)"},                                    \
    {"out", EE_OPT_VALUE, "FILE", "the result (.mat), written when every row is done"},                       \
    {"batch", EE_OPT_VALUE, "N", "rows per model pass (default: automatic)"},                                 \
    {"device", EE_OPT_VALUE, "auto|cpu|gpu", "where to compute (default auto); under MPI each rank takes "    \
                                             "the GPU of its local rank"},                                    \
    {"precision", EE_OPT_VALUE, "fp32|tf32|bf16", "matrix products in fp32 (default) or on a GPU's tensor "  \
                                                   "cores (doc/GPU.md)"},                                     \
    {"chunk", EE_OPT_VALUE, "N", "rows per checkpointed chunk (default: sv 16, ig, gradient and faithfulness 64, "      \
                                 "predict and explain 1024)"},                                                            \
    {"shards", EE_OPT_VALUE, "DIR", "folder of the checkpoint shards, seen by every rank (default "           \
                                    "OUT.shards); a restarted run resumes from it"},                          \
    {"verbose", EE_OPT_BOOL, "", "progress lines with rate and ETA on stderr (default true)"},                 \
    {"quiet", EE_OPT_BOOL, "", "no progress lines (--verbose false)"}

static const EeOptSpec predict_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"mask", EE_OPT_VALUE, "NAME", "a logical N x T variable of --data: the positions attended to "
                                   "(default: not PAD)"},
};
static const EeOptSpec ig_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"steps", EE_OPT_VALUE, "S", "interpolation nodes (default 20)"},
    {"method", EE_OPT_VALUE, "NAME", "gausslegendre (default), riemann_right, riemann_left, riemann_middle, "
                                     "riemann_trapezoid, xgrad or gradxinput"},
    {"baseline", EE_OPT_VALUE, "pad|zero|NAME", "pad (default), zero, or an N x T id variable of --data"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
    {"incremental", EE_OPT_BOOL, "", "the cnn's shortcuts on the CPU (default true; see help ee_ig)"},
};
static const EeOptSpec sv_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"samples", EE_OPT_VALUE, "S", "permutations per sequence (default 20)"},
    {"seed", EE_OPT_VALUE, "K", "generator seed (default 1); row i draws from its own stream"},
    {"permutations", EE_OPT_VALUE, "NAME", "a 1 x N cell variable of --data: explicit permutations per row "
                                           "(overrides --samples and --seed)"},
    {"baseline", EE_OPT_VALUE, "pad|NAME", "pad (default) or an N x T id variable of --data"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
    {"exact", EE_OPT_BOOL, "", "exact Shapley values from all 2^n coalitions (n <= 12)"},
    {"incremental", EE_OPT_BOOL, "", "the CPU shortcuts of the samplers (default true; see help ee_sv)"},
    {"method", EE_OPT_VALUE, "NAME", "sampling (default), exact, or kernelshap (--samples coalitions per row, "
                                     "default 2 n + 2048; any model kind)"},
    {"paired", EE_OPT_BOOL, "", "kernelshap: each drawn coalition followed by its complement"},
};
static const EeOptSpec occl_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"window", EE_OPT_VALUE, "W", "real tokens (features) per occluded window (default 1)"},
    {"stride", EE_OPT_VALUE, "S", "step between windows (default 1; --window 1 --stride 1: feature ablation)"},
    {"incremental", EE_OPT_BOOL, "", "the CPU shortcuts (default true; see help ee_occlusion)"},
    {"baseline", EE_OPT_VALUE, "pad|NAME", "pad (default) or an N x T id variable of --data"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
};
static const EeOptSpec lime_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"samples", EE_OPT_VALUE, "S", "coalitions per row (default 2 n + 2048)"},
    {"seed", EE_OPT_VALUE, "K", "generator seed (default 1); row i draws from its own stream"},
    {"width", EE_OPT_VALUE, "X", "the kernel width (default 1)"},
    {"ridge", EE_OPT_VALUE, "X", "penalty on the coefficients (default 0)"},
    {"incremental", EE_OPT_BOOL, "", "the CPU shortcuts (default true; see help ee_lime)"},
    {"baseline", EE_OPT_VALUE, "pad|NAME", "pad (default) or an N x T id variable of --data"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
};
static const EeOptSpec explain_opts[] = {
    COMMON_OPTS(EE_OPT_MULTI, "an explainer (.mat with one struct, or a struct array / cell of them); "
                              "repeat it for an ensemble"),
};

static const EeOptSpec faith_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"maps", EE_OPT_VALUE, "FILE", "the attribution maps (.mat, e.g. written by ee ig / ee sv): one row per "
                                   "selected row, or one per row of --var"},
    {"maps-var", EE_OPT_VALUE, "NAME", "the variable of --maps that holds them (default A)"},
    {"steps", EE_OPT_VALUE, "K", "points of the deletion and insertion curves: round(q n / K) players, "
                                 "q = 0..K (default 20; 0: every count)"},
    {"logodds", EE_OPT_VALUE, "P", "the log-odds drop with P % of the players removed (default 20)"},
    {"score", EE_OPT_VALUE, "NAME", "probability (default: softmax of the target class) or logit"},
    {"infidelity", EE_OPT_VALUE, "M", "random subsets per row for the infidelity (default 0: not computed)"},
    {"seed", EE_OPT_VALUE, "K", "of the infidelity's subsets and the sensitivity's perturbations (default 1); "
                                "row i draws from its own streams"},
    {"baseline", EE_OPT_VALUE, "pad|NAME", "pad (default) or an N x T id variable of --data"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
    {"sensitivity", EE_OPT_VALUE, "NAME", "sensitivity-max of a gradient method: saliency, saliency_abs, "
                                          "saliency_l2, gradxinput or ig (default: not computed)"},
    {"sensitivity_samples", EE_OPT_VALUE, "N", "its perturbations per row (default 10)"},
    {"radius", EE_OPT_VALUE, "R", "their half-width on the embedding output (default 0.02)"},
    {"sensitivity_steps", EE_OPT_VALUE, "S", "--sensitivity ig: its Gauss-Legendre nodes (default 20)"},
};

static const EeOptSpec grad_opts[] = {
    COMMON_OPTS(EE_OPT_VALUE, "the classifier: a .mat file with one model struct"),
    {"method", EE_OPT_VALUE, "NAME", "saliency (default), saliency_abs, saliency_l2, gradxinput, ig, "
                                     "gradientshap or deeplift (mlp and cnn, CPU)"},
    {"noise", EE_OPT_VALUE, "NAME", "none (default), smoothgrad, smoothgrad_sq or vargrad"},
    {"samples", EE_OPT_VALUE, "N", "noise samples, or gradientshap's samples (default 10)"},
    {"stdev", EE_OPT_VALUE, "S", "the noise's standard deviation (default 0.15; gradientshap 0)"},
    {"seed", EE_OPT_VALUE, "K", "generator seed (default 1); row i draws from its own streams"},
    {"steps", EE_OPT_VALUE, "S", "ig: interpolation nodes (default 20)"},
    {"rule", EE_OPT_VALUE, "NAME", "ig: gausslegendre (default), riemann_right, riemann_left, riemann_middle, "
                                   "riemann_trapezoid"},
    {"baseline", EE_OPT_VALUE, "pad|zero|NAME", "ig and deeplift: pad (default), zero, or an N x T id variable of --data"},
    {"background", EE_OPT_VALUE, "NAME", "gradientshap: a K x T id (K x D) variable of --data to draw "
                                         "baselines from"},
    {"target", EE_OPT_VALUE, "argmax|K|NAME", "argmax (default), one class for every row, or a variable of "
                                              "--data with a class per row"},
};

#define NOPTS(a) ((int)(sizeof a / sizeof *a))

/* ---- the job ---------------------------------------------------------------- */
typedef struct {
    RowCmd cmd;
    const char *name;
    const EePar *par;
    EeOpts o;
    int verbose;
    EeModels models;
    EeData data;
    long *rows, n;          /* selection: indices into the data variable */
    int token, T, W;        /* W: values per row of the input (T or D) */
    int32_t *ids;           /* n x T, 0-based */
    float *x;               /* n x D (mlp) */
    uint8_t *mask;          /* predict */
    EeAttrOptions a;
    int32_t *bids, *target; /* per selected row */
    int32_t **perms;
    float *maps;            /* faithfulness: n x W, the selected rows' maps */
    EeFaithOptions f;
    int sens, sens_n;       /* faithfulness --sensitivity: its method in g, n perturbations */
    double radius;
    EeGradOptions g;        /* gradient (its background owned here) */
    int exact;
    int coal;                   /* occlusion, lime, sv --method kernelshap */
    EeCoalitionModelOptions ck;
    int batch;
    EeDevice dev;
    EePrecision prec;
    EeShards sh;
    uint64_t key;
} Job;

static void job_free(Job *j)
{
    ee_models_free(&j->models);
    ee_data_close(&j->data);
    free(j->rows);
    free(j->ids);
    free(j->x);
    free(j->mask);
    free(j->bids);
    free(j->target);
    for (long i = 0; j->perms && i < j->n; i++) free(j->perms[i]);
    free(j->perms);
    free(j->maps);
    free((void *)j->g.background_ids);
    free((void *)j->g.background_x);
    ee_shards_free(&j->sh);
}

static EeModel *model0(const Job *j) { return j->models.m[0]; }

/* The last position a row needs (its active length), 1 for dense rows. */
static int active_length(const Job *j, long i)
{
    if (!j->token) return 1;
    const int32_t *r = j->ids + (size_t)i * j->T;
    int L = j->T;
    while (L > 1 && r[L - 1] == EE_PAD) L--;
    return L;
}

/* What a row costs, for spreading chunks over the ranks: model passes
 * times the positions they run on (SV makes 1 + s n passes, n the real
 * tokens; IG 2 s). */
static double row_cost(const Job *j, long i)
{
    double L = active_length(j, i);
    if (j->coal) {
        int n = j->token ? ee_count_real(j->ids + (size_t)i * j->T, j->T) : j->W;
        long k = ee_coalition_model_count(&j->ck, n);
        return (2.0 + (k > 0 ? k : 0)) * L;
    }
    switch (j->cmd) {
    case CMD_SV: {
        int n = ee_count_real(j->ids + (size_t)i * j->T, j->T);
        return (1.0 + (double)j->a.steps * n) * L;
    }
    case CMD_IG: return 2.0 * j->a.steps * L;
    case CMD_FAITH: /* and the sensitivity: 1 + n maps of 2 passes (ig: 2 s) */
        return (2.0 * (j->token ? ee_count_real(j->ids + (size_t)i * j->T, j->T) : j->W) + j->f.infidelity_samples +
                (j->sens ? (1.0 + j->sens_n) * (j->g.method == EE_GRAD_IG ? 2.0 * j->a.steps : 2.0) : 0)) * L;
    case CMD_GRAD: /* passes per sample: ig 2 s, deeplift 3 (the row and its reference forward, 1 backward) */
        return j->g.samples * (j->g.method == EE_GRAD_IG ? 2.0 * j->a.steps : j->g.method == EE_GRAD_DEEPLIFT ? 3.0 : 2.0) * L;
    default: return L;
    }
}

/* ---- reading the options ------------------------------------------------------------ */
static EeStatus read_rows_and_inputs(Job *j)
{
    const EeConfig *c = ee_model_config(model0(j));
    const char *path;
    EeStatus st = ee_cli_need(&j->o, "data", &path);
    if (st) return st;
    if ((st = ee_data_open(path, ee_opt(&j->o, "var"), &j->data))) return st;
    if ((st = ee_data_rows(&j->data, ee_opt(&j->o, "rows"), "rows", &j->rows, &j->n))) return st;
    j->token = c->kind != EE_KIND_MLP;
    j->T = c->T;
    if (j->token) {
        j->W = c->T;
        return ee_data_tokens(&j->data, j->rows, j->n, c->T, c->vocab, &j->ids);
    }
    j->W = c->D;
    return ee_data_dense(&j->data, j->rows, j->n, c->D, &j->x);
}

static EeStatus read_target(Job *j)
{
    const char *v = ee_opt(&j->o, "target");
    if (!v || ee_str_ieq(v, "argmax")) return EE_OK;
    return ee_data_target(&j->data, v, j->rows, j->n, ee_model_config(model0(j))->classes, &j->target);
}

static EeStatus read_baseline(Job *j, int allow_zero)
{
    const EeConfig *c = ee_model_config(model0(j));
    j->a.baseline = j->token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
    const char *v = ee_opt(&j->o, "baseline");
    if (!v) return EE_OK;
    const char *pad = ee_baseline_names[EE_BASELINE_PAD], *zero = ee_baseline_names[EE_BASELINE_ZERO];
    if (ee_str_ieq(v, pad) || (allow_zero && ee_str_ieq(v, zero))) {
        j->a.baseline = ee_str_ieq(v, zero) ? EE_BASELINE_ZERO : EE_BASELINE_PAD;
        if (!j->token && j->a.baseline != EE_BASELINE_ZERO)
            return ee_fail(EE_ERR_INPUT, "an mlp has dense inputs: only the 'zero' baseline applies");
        return EE_OK;
    }
    if (!j->token) return ee_fail(EE_ERR_INPUT, "an mlp has dense inputs: only the 'zero' baseline applies");
    if (!allow_zero && ee_str_ieq(v, zero))
        return ee_fail(EE_ERR_INPUT, "--baseline must be pad or an id variable of --data for sv, got 'zero'");
    j->a.baseline = EE_BASELINE_IDS;
    return ee_data_ids(&j->data, v, "baseline", j->rows, j->n, c->T, c->vocab, &j->bids);
}

static EeStatus setup_predict(Job *j)
{
    EeStatus st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models);
    if (st) return st;
    if ((st = read_rows_and_inputs(j))) return st;
    const char *mask = ee_opt(&j->o, "mask");
    if (mask && !j->token) return ee_fail(EE_ERR_INPUT, "--mask applies to token models only");
    if (mask) return ee_data_mask(&j->data, mask, j->rows, j->n, j->T, &j->mask);
    return EE_OK;
}

static EeStatus setup_ig(Job *j)
{
    EeStatus st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models);
    if (st) return st;
    if ((st = read_rows_and_inputs(j))) return st;
    int method = 0;
    if ((st = ee_opt_choice(&j->o, "method", ee_ig_method_names, EE_IG_METHOD_COUNT, &method))) return st;
    j->a.method = (EeIgMethod)method;
    int onegrad = j->a.method == EE_IG_XGRAD || j->a.method == EE_IG_GRADXINPUT;
    const char *mname = ee_ig_method_names[j->a.method];
    if (ee_opt_given(&j->o, "steps")) {
        if (onegrad) return ee_fail(EE_ERR_INPUT, "--steps does not apply to %s (one gradient)", mname);
        if ((st = ee_opt_int(&j->o, "steps", 1, 1 << 20, &j->a.steps))) return st;
    }
    if (onegrad) {
        j->a.steps = 1;
        if (ee_opt_given(&j->o, "baseline"))
            return ee_fail(EE_ERR_INPUT, "%s has no baseline option (%s)", mname,
                           j->a.method == EE_IG_XGRAD ? "it equals IG with the zero baseline" : "one gradient at the input");
    }
    if ((st = read_baseline(j, 1))) return st;
    if (onegrad) j->a.baseline = EE_BASELINE_ZERO;
    int incremental = 1;
    if ((st = ee_opt_bool(&j->o, "incremental", &incremental))) return st;
    j->a.full_passes = !incremental;
    return read_target(j);
}

static EeStatus setup_coal(Job *j, EeCoalitionKind kind);

static EeStatus setup_sv(Job *j)
{
    static const char *const methods[] = {"sampling", "exact", "kernelshap"};
    int method = 0;
    EeStatus st = ee_opt_choice(&j->o, "method", methods, 3, &method);
    if (st) return st;
    if (method == 2) {
        if (ee_opt_given(&j->o, "exact") || ee_opt_given(&j->o, "permutations"))
            return ee_fail(EE_ERR_INPUT, "--exact and --permutations are options of Shapley sampling, not of --method "
                           "kernelshap");
        return setup_coal(j, EE_COAL_KERNELSHAP);
    }
    if (ee_opt_given(&j->o, "paired")) return ee_fail(EE_ERR_INPUT, "--paired applies to --method kernelshap");
    if ((st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models))) return st;
    if (ee_model_config(model0(j))->kind == EE_KIND_MLP)
        return ee_fail(EE_ERR_UNSUPPORTED, "Shapley sampling is defined for token models (transformer, cnn), not mlp");
    if ((st = read_rows_and_inputs(j))) return st;
    if ((st = ee_opt_bool(&j->o, "exact", &j->exact))) return st;
    if (method == 1) {
        if (ee_opt_given(&j->o, "exact") && !j->exact)
            return ee_fail(EE_ERR_INPUT, "--method exact and --exact false exclude each other");
        j->exact = 1;
    }
    if (method == 0 && j->exact && ee_opt_given(&j->o, "method"))
        return ee_fail(EE_ERR_INPUT, "--method sampling and --exact exclude each other");
    if ((st = ee_opt_int(&j->o, "samples", 1, 1 << 20, &j->a.steps))) return st;
    int seed = (int)j->a.seed;
    if ((st = ee_opt_int(&j->o, "seed", 0, 0x7fffffff, &seed))) return st;
    j->a.seed = (uint64_t)seed;
    if ((st = read_baseline(j, 0))) return st;
    if ((st = read_target(j))) return st;
    int incremental = 1;
    if ((st = ee_opt_bool(&j->o, "incremental", &incremental))) return st;
    j->a.full_passes = !incremental;
    const char *p = ee_opt(&j->o, "permutations");
    if (p) {
        if (j->exact) return ee_fail(EE_ERR_INPUT, "--permutations and --exact exclude each other");
        if ((st = ee_data_permutations(&j->data, p, j->rows, j->n, j->ids, j->T, &j->perms, &j->a.steps))) return st;
    }
    return EE_OK;
}

/* occlusion, lime and sv --method kernelshap (any model kind): the
 * gateway's options (mex/mexcoal.c); the coalitions are drawn, not given */
static EeStatus setup_coal(Job *j, EeCoalitionKind kind)
{
    EeStatus st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models);
    if (st) return st;
    if ((st = read_rows_and_inputs(j))) return st;
    j->coal = 1;
    memset(&j->ck, 0, sizeof j->ck);
    j->ck.m.kind = kind;
    if (kind == EE_COAL_OCCLUSION) {
        if ((st = ee_opt_int(&j->o, "window", 1, j->W, &j->ck.window))) return st;
        if ((st = ee_opt_int(&j->o, "stride", 1, j->W, &j->ck.stride))) return st;
    } else {
        if ((st = ee_opt_int(&j->o, "samples", 1, 1 << 24, &j->ck.m.samples))) return st;
        int seed = (int)j->a.seed;
        if ((st = ee_opt_int(&j->o, "seed", 0, 0x7fffffff, &seed))) return st;
        j->a.seed = (uint64_t)seed;
    }
    if (kind == EE_COAL_KERNELSHAP && (st = ee_opt_bool(&j->o, "paired", &j->ck.m.paired))) return st;
    if (kind == EE_COAL_LIME) {
        if ((st = ee_opt_double(&j->o, "width", -1e308, 1e308, &j->ck.m.width))) return st;
        if (ee_opt_given(&j->o, "width") && !(j->ck.m.width > 0 && isfinite(j->ck.m.width)))
            return ee_fail(EE_ERR_INPUT, "--width must be > 0, got %g", j->ck.m.width);
        if ((st = ee_opt_double(&j->o, "ridge", -1e308, 1e308, &j->ck.m.ridge))) return st;
        if (!(j->ck.m.ridge >= 0 && isfinite(j->ck.m.ridge)))
            return ee_fail(EE_ERR_INPUT, "--ridge must be >= 0, got %g", j->ck.m.ridge);
    }
    int incremental = 1;
    if ((st = ee_opt_bool(&j->o, "incremental", &incremental))) return st;
    j->a.full_passes = !incremental;
    if ((st = read_baseline(j, 0))) return st;
    return read_target(j);
}

static EeStatus setup_explain(Job *j)
{
    const char *const *paths;
    int np = ee_opt_values(&j->o, "model", &paths);
    if (!np) return ee_fail(EE_ERR_INPUT, "--model is required (see ee explain --help)");
    EeStatus st = ee_models_explainers(paths, np, &j->models);
    if (st) return st;
    return read_rows_and_inputs(j);
}

/* --maps: one row per selected row (in the order of the selection), or
 * one per row of --var (taken at the selected rows) */
static EeStatus read_maps(Job *j)
{
    const char *path, *var = ee_opt(&j->o, "maps-var") ? ee_opt(&j->o, "maps-var") : "A";
    EeStatus st = ee_cli_need(&j->o, "maps", &path);
    if (st) return st;
    EeMatIn *f;
    if ((st = ee_matin_open(path, &f))) return st;
    matvar_t *v;
    char what[512];
    snprintf(what, sizeof what, "%s: %s", path, var);
    if (!(st = ee_matin_var(f, var, &v)) && !(st = ee_mv_numeric(v, what))) {
        long R = v->rank == 2 ? (long)ee_mv_rows(v) : -1, Cn = (long)ee_mv_cols(v);
        int whole = R == j->data.N && R != j->n;
        if (v->rank != 2 || Cn != j->W || (R != j->n && R != j->data.N))
            st = ee_fail(EE_ERR_INPUT, "%s must be %ldx%d (one row per selected row) or %ldx%d (one per row of %s), "
                         "got %s%ldx%ld", what, j->n, j->W, j->data.N, j->W, j->data.var,
                         v->rank != 2 ? "an array of more dimensions, " : "", R, Cn);
        else {
            j->maps = ee_xmalloc(sizeof(float) * ((size_t)j->n * j->W + 1));
            for (long i = 0; i < j->n; i++)
                for (int t = 0; t < j->W; t++) {
                    long r = whole ? j->rows[i] : i;
                    j->maps[(size_t)i * j->W + t] = (float)ee_mv_at(v, (size_t)r + (size_t)R * t);
                }
        }
    }
    ee_matin_close(f);
    return st;
}

static EeStatus setup_faith(Job *j)
{
    EeStatus st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models);
    if (st) return st;
    if ((st = read_rows_and_inputs(j))) return st;
    ee_faith_options_defaults(&j->f);
    if ((st = ee_opt_int(&j->o, "steps", 0, 1 << 20, &j->f.steps))) return st;
    if ((st = ee_opt_int(&j->o, "logodds", 1, 100, &j->f.logodds_percent))) return st;
    int score = 0;
    if ((st = ee_opt_choice(&j->o, "score", ee_faith_score_names, EE_FAITH_SCORE_COUNT, &score))) return st;
    j->f.score = (EeFaithScore)score;
    if ((st = ee_opt_int(&j->o, "infidelity", 0, 1 << 20, &j->f.infidelity_samples))) return st;
    /* sensitivity-max of a gradient method (the gateway's rules, mex/ee_faithfulness.c) */
    ee_grad_options_defaults(&j->g);
    j->sens = ee_opt_given(&j->o, "sensitivity");
    j->sens_n = 10; /* Captum's defaults: 10 perturbations of radius 0.02 */
    j->radius = 0.02;
    static const char *const sens_opts[] = {"sensitivity_samples", "radius", "sensitivity_steps"};
    if (j->sens) {
        int v = 0; /* the methods of ee_gradient that map x deterministically (not gradientshap, deeplift) */
        if ((st = ee_opt_choice(&j->o, "sensitivity", ee_grad_method_names, EE_GRAD_GRADIENTSHAP, &v))) return st;
        j->g.method = (EeGradMethod)v;
        if ((st = ee_opt_int(&j->o, "sensitivity_samples", 1, 1 << 20, &j->sens_n))) return st;
        if ((st = ee_opt_double(&j->o, "radius", -1e308, 1e308, &j->radius))) return st;
        if (!(j->radius >= 0))
            return ee_fail(EE_ERR_INPUT, "--radius (of the perturbations) must be finite and >= 0, got %g", j->radius);
    } else
        for (int k = 0; k < 3; k++)
            if (ee_opt_given(&j->o, sens_opts[k]))
                return ee_fail(EE_ERR_INPUT, "--%s applies to --sensitivity (a gradient method)", sens_opts[k]);
    if (ee_opt_given(&j->o, "sensitivity_steps")) {
        if (j->g.method != EE_GRAD_IG) return ee_fail(EE_ERR_INPUT, "--sensitivity_steps applies to --sensitivity ig");
        if ((st = ee_opt_int(&j->o, "sensitivity_steps", 1, 1 << 20, &j->a.steps))) return st;
    }
    if (ee_opt_given(&j->o, "seed") && !j->f.infidelity_samples && !j->sens)
        return ee_fail(EE_ERR_INPUT, "--seed applies to the infidelity's subsets (--infidelity > 0) and to the "
                       "--sensitivity perturbations");
    int seed = (int)j->a.seed;
    if ((st = ee_opt_int(&j->o, "seed", 0, 0x7fffffff, &seed))) return st;
    j->a.seed = (uint64_t)seed;
    if ((st = read_baseline(j, 0))) return st;
    if ((st = read_target(j))) return st;
    return read_maps(j);
}

/* --background: a K x T id (K x D dense) variable of --data, any K >= 1 */
static EeStatus read_background(Job *j, const char *var)
{
    const EeConfig *c = ee_model_config(model0(j));
    matvar_t *v;
    char what[512];
    snprintf(what, sizeof what, "%s: %s", j->data.path, var);
    EeStatus st = ee_matin_var(j->data.file, var, &v);
    if (st || (st = ee_mv_numeric(v, what))) return ee_fail(st, "--background: %s", ee_last_error());
    long K = (long)ee_mv_rows(v), cols = (long)ee_mv_cols(v);
    if (v->rank != 2 || K < 1 || cols != j->W)
        return ee_fail(EE_ERR_INPUT, "--background %s must be K x %d (rows of %s), got %ldx%ld", what, j->W,
                       j->token ? "token ids" : "features", K, cols);
    int32_t *ids = j->token ? ee_xmalloc(sizeof(int32_t) * (size_t)K * cols) : NULL;
    float *x = j->token ? NULL : ee_xmalloc(sizeof(float) * (size_t)K * cols);
    for (long k = 0; k < K; k++)
        for (long t = 0; t < cols; t++) {
            double val = ee_mv_at(v, (size_t)k + (size_t)K * t);
            if (j->token ? !(val >= 1 && val <= c->vocab && val == floor(val)) : !isfinite(val)) {
                free(ids);
                free(x);
                return ee_fail(EE_ERR_INPUT, "--background %s(%ld,%ld) = %g is not %s", what, k + 1, t + 1, val,
                               j->token ? "a token id in the vocabulary" : "finite");
            }
            if (j->token) ids[k * cols + t] = (int32_t)val - 1;
            else x[k * cols + t] = (float)val;
        }
    j->g.background_ids = ids;
    j->g.background_x = x;
    j->g.K = (int)K;
    return EE_OK;
}

static EeStatus setup_grad(Job *j)
{
    EeStatus st = ee_models_classifier(ee_opt(&j->o, "model"), &j->models);
    if (st) return st;
    if ((st = read_rows_and_inputs(j))) return st;
    ee_grad_options_defaults(&j->g);
    int v = 0;
    if ((st = ee_opt_choice(&j->o, "method", ee_grad_method_names, EE_GRAD_METHOD_COUNT, &v))) return st;
    j->g.method = (EeGradMethod)v;
    v = 0;
    if ((st = ee_opt_choice(&j->o, "noise", ee_noise_names, EE_NOISE_COUNT, &v))) return st;
    j->g.noise = (EeNoiseKind)v;
    int shap = j->g.method == EE_GRAD_GRADIENTSHAP, ig = j->g.method == EE_GRAD_IG, dl = j->g.method == EE_GRAD_DEEPLIFT;
    int tunnel = j->g.noise != EE_NOISE_NONE || shap;
    /* the gateway's rules (mex/ee_gradient.c) */
    if (shap && j->g.noise != EE_NOISE_NONE)
        return ee_fail(EE_ERR_INPUT, "gradientshap averages its own samples: --noise must be none (its noise is --stdev)");
    static const char *const tunnel_opts[] = {"samples", "stdev", "seed"}, *const ig_opts_[] = {"steps", "rule", "baseline"};
    for (int k = 0; k < 3; k++) {
        if (!tunnel && ee_opt_given(&j->o, tunnel_opts[k]))
            return ee_fail(EE_ERR_INPUT, "--%s applies to a noise tunnel (--noise smoothgrad, smoothgrad_sq or vargrad) "
                           "or gradientshap", tunnel_opts[k]);
        if (!ig && !(dl && k == 2) && ee_opt_given(&j->o, ig_opts_[k]))
            return ee_fail(EE_ERR_INPUT, "--%s applies to --method ig%s only", ig_opts_[k], k == 2 ? " and deeplift" : "");
    }
    if (shap != (ee_opt(&j->o, "background") != NULL))
        return ee_fail(EE_ERR_INPUT, shap ? "gradientshap needs --background" : "--background applies to --method gradientshap only");
    if (tunnel) j->g.samples = 10;
    j->g.stdev = shap ? 0 : 0.15;
    if ((st = ee_opt_int(&j->o, "samples", 1, 1 << 20, &j->g.samples))) return st;
    if ((st = ee_opt_double(&j->o, "stdev", -1e308, 1e308, &j->g.stdev))) return st;
    if (j->g.stdev < 0) return ee_fail(EE_ERR_INPUT, "--stdev must be >= 0 (a standard deviation), got %g", j->g.stdev);
    int seed = (int)j->a.seed;
    if ((st = ee_opt_int(&j->o, "seed", 0, 0x7fffffff, &seed))) return st;
    j->a.seed = (uint64_t)seed;
    if ((st = ee_opt_int(&j->o, "steps", 1, 1 << 20, &j->a.steps))) return st;
    v = 0;
    if ((st = ee_opt_choice(&j->o, "rule", ee_ig_method_names, EE_IG_XGRAD, &v))) return st;
    j->a.method = (EeIgMethod)v;
    if ((st = read_baseline(j, 1))) return st;
    if ((st = read_target(j))) return st;
    if (shap) return read_background(j, ee_opt(&j->o, "background"));
    return EE_OK;
}

/* ---- the job key: everything that changes a number --------------------------------------- */
static EeStatus job_key(Job *j)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    ee_key_str(&h, j->name);
    for (int k = 0; k < j->models.K; k++) {
        char fp[32];
        EeStatus st = ee_model_fingerprint(j->models.m[k], fp, sizeof fp);
        if (st) return st;
        ee_key_str(&h, fp);
    }
    if (j->models.clf) {
        char fp[32];
        EeStatus st = ee_model_fingerprint(j->models.clf, fp, sizeof fp);
        if (st) return st;
        ee_key_str(&h, fp);
    }
    ee_key_add(&h, &j->n, sizeof j->n);
    ee_key_add(&h, j->rows, sizeof(long) * (size_t)j->n);
    if (j->ids) ee_key_add(&h, j->ids, sizeof(int32_t) * (size_t)j->n * j->T);
    if (j->x) ee_key_add(&h, j->x, sizeof(float) * (size_t)j->n * j->W);
    if (j->mask) ee_key_add(&h, j->mask, (size_t)j->n * j->T);
    if (j->bids) ee_key_add(&h, j->bids, sizeof(int32_t) * (size_t)j->n * j->T);
    if (j->target) ee_key_add(&h, j->target, sizeof(int32_t) * (size_t)j->n);
    if (j->cmd == CMD_GRAD) {
        long go[] = {j->g.method, j->g.noise, j->g.samples, j->g.K};
        ee_key_add(&h, go, sizeof go);
        ee_key_add(&h, &j->g.stdev, sizeof j->g.stdev);
        if (j->g.background_ids) ee_key_add(&h, j->g.background_ids, sizeof(int32_t) * (size_t)j->g.K * j->W);
        if (j->g.background_x) ee_key_add(&h, j->g.background_x, sizeof(float) * (size_t)j->g.K * j->W);
    }
    if (j->maps) {
        ee_key_add(&h, j->maps, sizeof(float) * (size_t)j->n * j->W);
        long fo[] = {j->f.steps, j->f.logodds_percent, j->f.score, j->f.infidelity_samples, j->sens, j->sens_n,
                     j->sens ? (long)j->g.method : -1L};
        ee_key_add(&h, fo, sizeof fo);
        ee_key_add(&h, &j->radius, sizeof j->radius);
    }
    for (long i = 0; j->perms && i < j->n; i++)
        if (j->perms[i])
            ee_key_add(&h, j->perms[i], sizeof(int32_t) * (size_t)j->a.steps * ee_count_real(j->ids + (size_t)i * j->T, j->T));
    if (j->coal) {
        long co[] = {j->ck.m.kind, j->ck.m.samples, j->ck.m.paired, j->ck.window, j->ck.stride};
        ee_key_add(&h, co, sizeof co);
        ee_key_add(&h, &j->ck.m.width, sizeof j->ck.m.width);
        ee_key_add(&h, &j->ck.m.ridge, sizeof j->ck.m.ridge);
    }
    long opts[] = {j->a.steps, j->a.method, j->a.baseline, (long)j->a.seed, j->a.full_passes, j->exact, j->batch,
                   j->dev, j->perms != NULL, j->prec};
    ee_key_add(&h, opts, sizeof opts);
    j->key = h;
    return EE_OK;
}

/* The run of consecutive data rows that starts at row i0 of the chunk (its
 * first row f, n rows): its end, its input and its options, keyed by its
 * first data row. The commands that draw from the rows' own streams (sv,
 * faithfulness, gradient) make one call per such run. */
static long row_run(const Job *j, long f, long n, long i0, const EeAttrOptions *a, EeInput *r, EeAttrOptions *s)
{
    long i1 = i0 + 1;
    while (i1 < n && j->rows[f + i1] == j->rows[f + i1 - 1] + 1) i1++;
    long g = f + i0;
    *r = (EeInput){.n = (int)(i1 - i0)};
    if (j->ids) r->ids = j->ids + (size_t)g * j->T;
    if (j->x) r->x = j->x + (size_t)g * j->W;
    *s = *a;
    s->row_offset = j->rows[g];
    if (j->bids) s->baseline_ids = j->bids + (size_t)g * j->T;
    if (j->target) s->target = j->target + g;
    return i1;
}

/* ---- one chunk ------------------------------------------------------------------------------ */
static EeStatus run_chunk(Job *j, const EeChunk *k, void **out, long *fwd, long *bwd, double *secs)
{
    long f = k->first, n = k->n;
    EeInput in = {.n = (int)n};
    if (j->ids) in.ids = j->ids + (size_t)f * j->T;
    if (j->x) in.x = j->x + (size_t)f * j->W;
    EeAttrOptions a = j->a;
    a.verbose = 0;
    a.batch = j->batch;
    a.device = j->dev;
    a.precision = j->prec;
    if (j->bids) a.baseline_ids = j->bids + (size_t)f * j->T;
    if (j->target) a.target = j->target + f;
    double t0 = ee_now(), fsecs = 0;
    EeStatus st = EE_OK;
    if (j->coal) {
        /* one call per run of consecutive data rows, keyed by its first, as for sv */
        for (long i0 = 0; i0 < n && !st;) {
            EeInput r;
            EeAttrOptions s;
            long i1 = row_run(j, f, n, i0, &a, &r, &s);
            EeAttrInfo part = {(int32_t *)out[1] + i0, (float *)out[2] + i0, (float *)out[3] + i0,
                               (float *)out[4] + i0, 0, 0, 0, NULL, 0};
            st = ee_coalition_attribute(model0(j), &r, &s, &j->ck, (float *)out[0] + (size_t)i0 * j->W, &part);
            for (long i = i0; i < i1 && !st; i++) {
                int np = ee_coalition_players(model0(j), &r, (int)(i - i0));
                ((int32_t *)out[5])[i] = np ? (int32_t)ee_coalition_model_count(&j->ck, np) : 0;
            }
            *fwd += part.forward;
            i0 = i1;
        }
        *secs = ee_now() - t0;
        return st;
    }
    switch (j->cmd) {
    case CMD_PREDICT:
        if (j->mask) in.mask = j->mask + (size_t)f * j->T;
        st = ee_model_predict_precision(model0(j), &in, out[0], j->batch, j->dev, j->prec);
        *fwd = n;
        break;
    case CMD_IG: {
        EeAttrInfo info = {.target = out[1], .fx = out[2], .fbaseline = out[3], .delta = out[4]};
        st = ee_ig_attribute(model0(j), &in, &a, out[0], &info);
        *fwd = info.forward;
        *bwd = info.backward;
        break;
    }
    case CMD_SV: {
        /* one call per run of consecutive data rows, keyed by its first */
        for (long i0 = 0; i0 < n && !st;) {
            EeInput r;
            EeAttrOptions s;
            long i1 = row_run(j, f, n, i0, &a, &r, &s), g = f + i0;
            if (j->perms) s.perms = (const int32_t *const *)(j->perms + g);
            EeAttrInfo part = {(int32_t *)out[1] + i0, (float *)out[2] + i0, (float *)out[3] + i0,
                               (float *)out[4] + i0, 0, 0, 0, j->exact ? NULL : (float *)out[5] + (size_t)i0 * j->T, 0};
            st = j->exact ? ee_shapley_exact(model0(j), &r, &s, (float *)out[0] + (size_t)i0 * j->T, &part)
                          : ee_sv_attribute(model0(j), &r, &s, (float *)out[0] + (size_t)i0 * j->T, &part);
            *fwd += part.forward;
            i0 = i1;
        }
        if (!st && j->exact) /* exact values: delta is the rounding of the sum (as ee_sv) */
            for (long i = 0; i < n; i++) {
                double sum = 0;
                for (int t = 0; t < j->T; t++) sum += ((float *)out[0])[(size_t)i * j->T + t];
                ((float *)out[4])[i] = (float)(sum - ((double)((float *)out[2])[i] - ((float *)out[3])[i]));
            }
        break;
    }
    case CMD_FAITH: {
        /* doubles travel through the shards as pairs of 4-byte values:
         * out[0] per row the 9 measures, out[1] the 2 x 5 bins, out[2] the
         * two curves, out[3] the target, out[4] the players */
        int K = j->f.steps, NB = EE_FAITH_BINS;
        double *v = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1) * (10 + 2 * NB + 2 * (K + 1)));
        double *smax = v + (size_t)n * (9 + 2 * NB + 2 * (K + 1)), spasses = 0, ssecs = 0;
        double *col9[9], *bins = v + (size_t)9 * n, *curves = bins + (size_t)2 * NB * n;
        for (int q = 0; q < 9; q++) col9[q] = v + (size_t)q * n;
        EeFaithResult res = {col9[0], col9[1], col9[2], col9[3], col9[4], bins, bins + (size_t)NB * n,
                             K ? curves : NULL, K ? curves + (size_t)(K + 1) * n : NULL, out[3], out[4], col9[5], col9[6],
                             col9[7], col9[8], 0, 0};
        /* one call per run of consecutive data rows, keyed by its first (the
         * infidelity's subsets are drawn from the rows' streams), as for sv */
        for (long i0 = 0; i0 < n && !st;) {
            EeInput r;
            EeAttrOptions s;
            long i1 = row_run(j, f, n, i0, &a, &r, &s), g = f + i0;
            EeFaithResult q = {res.comprehensiveness + i0, res.sufficiency + i0, res.deletion_auc + i0,
                               res.insertion_auc + i0, res.log_odds_drop + i0, res.comp_bins + (size_t)i0 * NB,
                               res.suff_bins + (size_t)i0 * NB, K ? res.deletion_curve + (size_t)i0 * (K + 1) : NULL,
                               K ? res.insertion_curve + (size_t)i0 * (K + 1) : NULL, (int32_t *)out[3] + i0,
                               (int32_t *)out[4] + i0, res.fx + i0, res.fbaseline + i0, res.infidelity + i0, res.infidelity_normalized + i0, 0, 0};
            st = ee_faithfulness(model0(j), &r, j->maps + (size_t)g * j->W, &s, &j->f, &q);
            *fwd += q.forward;
            fsecs += q.seconds;
            if (!st && j->sens) { /* its passes and seconds are counted apart, as the gateway counts them */
                EeAttrInfo si = {0};
                st = ee_sensitivity_max(model0(j), &r, &j->g, &s, j->sens_n, j->radius, NULL, NULL, smax + i0, &si);
                spasses += si.forward + si.backward;
                ssecs += si.seconds;
            }
            i0 = i1;
        }
        for (long i = 0; i < n && !st; i++) {
            double *m = (double *)out[0] + (size_t)i * 9, *b = (double *)out[1] + (size_t)i * 2 * NB;
            for (int q = 0; q < 9; q++) m[q] = col9[q][i];
            memcpy(b, res.comp_bins + (size_t)i * NB, sizeof(double) * NB);
            memcpy(b + NB, res.suff_bins + (size_t)i * NB, sizeof(double) * NB);
            if (K) {
                double *c = (double *)out[2] + (size_t)i * 2 * (K + 1);
                memcpy(c, res.deletion_curve + (size_t)i * (K + 1), sizeof(double) * (K + 1));
                memcpy(c + K + 1, res.insertion_curve + (size_t)i * (K + 1), sizeof(double) * (K + 1));
            }
            if (j->sens) { /* per row its sensitivity; the chunk's passes and seconds on its first row */
                double *sv = (double *)out[5] + (size_t)i * 3;
                sv[0] = smax[i];
                sv[1] = i ? 0 : spasses;
                sv[2] = i ? 0 : ssecs;
            }
        }
        free(v);
        *secs = fsecs; /* the measures' own seconds (F.seconds), as the gateway's */
        return st;
    }
    case CMD_GRAD: {
        /* one call per run of consecutive data rows, keyed by its first (the
         * noise streams are the rows'), as for sv */
        int shap = j->g.method == EE_GRAD_GRADIENTSHAP, ns = j->g.samples;
        for (long i0 = 0; i0 < n && !st;) {
            EeInput r;
            EeAttrOptions s;
            long i1 = row_run(j, f, n, i0, &a, &r, &s);
            EeGradOptions gs = j->g;
            if (shap) {
                gs.drawn_baseline = (int32_t *)out[3] + (size_t)i0 * ns;
                gs.drawn_alpha = (float *)out[4] + (size_t)i0 * ns;
            }
            int dl = j->g.method == EE_GRAD_DEEPLIFT;
            EeAttrInfo part = {(int32_t *)out[1] + i0, (float *)out[2] + i0, dl ? (float *)out[3] + i0 : NULL,
                               dl ? (float *)out[4] + i0 : NULL, 0, 0, 0, NULL, 0};
            st = ee_gradient_attribute(model0(j), &r, &gs, &s, (float *)out[0] + (size_t)i0 * j->W, &part);
            *fwd += part.forward;
            *bwd += part.backward;
            i0 = i1;
        }
        break;
    }
    case CMD_EXPLAIN: {
        EeAttrInfo info = {.target = j->models.clf ? out[1] : NULL};
        st = ee_explain(j->models.m, j->models.K, j->models.clf, &in, &a, out[0], &info);
        *fwd = info.forward;
        *bwd = info.backward;
        break;
    }
    default: break; /* occlusion, lime: above */
    }
    *secs = ee_now() - t0;
    return st;
}

/* ---- the output ------------------------------------------------------------------------------ */
static matvar_t *double_col_of(const void *src, int is_int, long n, int plus)
{
    double *d = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++) d[i] = (is_int ? ((const int32_t *)src)[i] : ((const float *)src)[i]) + plus;
    matvar_t *v = ee_mv_col(d, n);
    free(d);
    return v;
}

static EeStatus write_result(Job *j, const char *out)
{
    EeShards *s = &j->sh;
    const EeConfig *c = ee_model_config(model0(j));
    long n = j->n;
    double *r = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++) r[i] = (double)j->rows[i] + 1;
    matvar_t *rows = ee_mv_col(r, n);
    free(r);
    const char *names[5];
    matvar_t *vars[5];
    int nv = 0;
    if (j->cmd == CMD_FAITH) {
        /* the struct ee_faithfulness returns, field for field */
        int K = j->f.steps, NB = EE_FAITH_BINS;
        const double *m = s->data[0], *b = s->data[1], *cv = s->data[2];
        double *tmp = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1) * (2 * NB + 2 * (K + 1)));
        int ninf = j->f.infidelity_samples;
        matvar_t *F = ee_mv_struct();
        static const char *const names7[5] = {"comprehensiveness", "sufficiency", "deletion_auc", "insertion_auc",
                                              "log_odds_drop"};
        for (int q = 0; q < 5; q++) {
            for (long i = 0; i < n; i++) tmp[i] = m[(size_t)i * 9 + q];
            ee_mv_set(F, names7[q], 0, ee_mv_col(tmp, n));
        }
        if (ninf) {
            for (long i = 0; i < n; i++) tmp[i] = m[(size_t)i * 9 + 7];
            ee_mv_set(F, "infidelity", 0, ee_mv_col(tmp, n));
            for (long i = 0; i < n; i++) tmp[i] = m[(size_t)i * 9 + 8];
            ee_mv_set(F, "infidelity_normalized", 0, ee_mv_col(tmp, n));
        }
        for (int h = 0; h < 2; h++) {
            for (long i = 0; i < n; i++) memcpy(tmp + (size_t)i * NB, b + (size_t)i * 2 * NB + h * NB, sizeof(double) * NB);
            ee_mv_set(F, h ? "sufficiency_bins" : "comprehensiveness_bins", 0, ee_mv_double_rows(tmp, n, NB));
        }
        double bins[EE_FAITH_BINS];
        for (int k = 0; k < NB; k++) bins[k] = ee_faith_bins[k];
        ee_mv_set(F, "bins", 0, ee_mv_row(bins, NB));
        for (int h = 0; K && h < 2; h++) {
            for (long i = 0; i < n; i++)
                memcpy(tmp + (size_t)i * (K + 1), cv + (size_t)i * 2 * (K + 1) + h * (K + 1), sizeof(double) * (K + 1));
            ee_mv_set(F, h ? "insertion_curve" : "deletion_curve", 0, ee_mv_double_rows(tmp, n, K + 1));
        }
        ee_mv_set(F, "target", 0, double_col_of(s->data[3], 1, n, 1));
        ee_mv_set(F, "players", 0, double_col_of(s->data[4], 1, n, 0));
        for (int q = 5; q < 7; q++) {
            for (long i = 0; i < n; i++) tmp[i] = m[(size_t)i * 9 + q];
            ee_mv_set(F, q == 5 ? "fx" : "fbaseline", 0, ee_mv_col(tmp, n));
        }
        ee_mv_set(F, "score", 0, ee_mv_char(ee_faith_score_names[j->f.score]));
        ee_mv_set(F, "steps", 0, ee_mv_scalar(K));
        ee_mv_set(F, "logodds", 0, ee_mv_scalar(j->f.logodds_percent));
        if (ninf) {
            ee_mv_set(F, "infidelity_samples", 0, ee_mv_scalar(ninf));
            ee_mv_set(F, "seed", 0, ee_mv_scalar((double)j->a.seed));
        }
        if (j->sens) { /* the fields of 'sensitivity', in the gateway's order */
            const double *sv = s->data[5];
            double sp = 0, ss = 0;
            for (long i = 0; i < n; i++) {
                tmp[i] = sv[(size_t)i * 3];
                sp += sv[(size_t)i * 3 + 1];
                ss += sv[(size_t)i * 3 + 2];
            }
            ee_mv_set(F, "sensitivity_max", 0, ee_mv_col(tmp, n));
            ee_mv_set(F, "sensitivity", 0, ee_mv_char(ee_grad_method_names[j->g.method]));
            ee_mv_set(F, "sensitivity_samples", 0, ee_mv_scalar(j->sens_n));
            ee_mv_set(F, "radius", 0, ee_mv_scalar(j->radius));
            if (j->g.method == EE_GRAD_IG) ee_mv_set(F, "sensitivity_steps", 0, ee_mv_scalar(j->a.steps));
            ee_mv_set(F, "sensitivity_passes", 0, ee_mv_scalar(sp));
            ee_mv_set(F, "sensitivity_seconds", 0, ee_mv_scalar(ss));
            if (!ninf) ee_mv_set(F, "seed", 0, ee_mv_scalar((double)j->a.seed));
        }
        ee_mv_set(F, "passes", 0, ee_mv_scalar((double)s->forward));
        ee_mv_set(F, "seconds", 0, ee_mv_scalar(s->seconds));
        free(tmp);
        names[nv] = "F", vars[nv++] = F;
    } else if (j->cmd == CMD_PREDICT) {
        int C = c->classes;
        const float *lg = s->data[0];
        int32_t *lab = ee_xmalloc(sizeof(int32_t) * (size_t)(n ? n : 1));
        for (long i = 0; i < n; i++) lab[i] = ee_argmax(lg + (size_t)i * C, C) + 1; /* ties to the lowest class */
        names[nv] = "labels", vars[nv++] = ee_mv_int32_col(lab, n);
        names[nv] = "logits", vars[nv++] = ee_mv_single_rows(lg, n, C);
        free(lab);
    } else {
        names[nv] = "A", vars[nv++] = ee_mv_single_rows(s->data[0], n, j->W);
        matvar_t *info = ee_mv_struct();
        if (j->cmd == CMD_GRAD) { /* the info of ee_gradient, field for field */
            int ig = j->g.method == EE_GRAD_IG, ns = j->g.samples;
            ee_mv_set(info, "target", 0, double_col_of(s->data[1], 1, n, 1));
            ee_mv_set(info, "fx", 0, double_col_of(s->data[2], 0, n, 0));
            if (j->g.method == EE_GRAD_DEEPLIFT) {
                ee_mv_set(info, "fbaseline", 0, double_col_of(s->data[3], 0, n, 0));
                ee_mv_set(info, "delta", 0, double_col_of(s->data[4], 0, n, 0));
            }
            ee_mv_set(info, "passes", 0, ee_mv_scalar((double)(s->forward + s->backward)));
            ee_mv_set(info, "forward_passes", 0, ee_mv_scalar((double)s->forward));
            ee_mv_set(info, "backward_passes", 0, ee_mv_scalar((double)s->backward));
            ee_mv_set(info, "seconds", 0, ee_mv_scalar(s->seconds));
            ee_mv_set(info, "method", 0, ee_mv_char(ee_grad_method_names[j->g.method]));
            ee_mv_set(info, "steps", 0, ee_mv_scalar(ig ? j->a.steps : 1));
            ee_mv_set(info, "noise", 0, ee_mv_char(ee_noise_names[j->g.noise]));
            ee_mv_set(info, "samples", 0, ee_mv_scalar(ns));
            ee_mv_set(info, "stdev", 0, ee_mv_scalar(j->g.noise != EE_NOISE_NONE || j->g.method == EE_GRAD_GRADIENTSHAP ? j->g.stdev : 0));
            ee_mv_set(info, "seed", 0, ee_mv_scalar((double)j->a.seed));
            if (ig) ee_mv_set(info, "rule", 0, ee_mv_char(ee_ig_method_names[j->a.method]));
            if (j->g.method == EE_GRAD_GRADIENTSHAP) { /* ns x n, as the gateway */
                double *br = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1) * ns), *al = ee_xmalloc(sizeof(double) * (size_t)(n ? n : 1) * ns);
                for (long i = 0; i < n; i++) /* sample k of row i at (k, i) */
                    for (int k = 0; k < ns; k++) {
                        br[(size_t)k * n + i] = ((const int32_t *)s->data[3])[(size_t)i * ns + k] + 1;
                        al[(size_t)k * n + i] = ((const float *)s->data[4])[(size_t)i * ns + k];
                    }
                ee_mv_set(info, "background_row", 0, ee_mv_double_rows(br, ns, n));
                ee_mv_set(info, "alpha", 0, ee_mv_double_rows(al, ns, n));
                free(br);
                free(al);
            }
        } else if (j->cmd == CMD_EXPLAIN) {
            ee_mv_set(info, "passes", 0, ee_mv_scalar((double)(s->forward + s->backward)));
            ee_mv_set(info, "forward_passes", 0, ee_mv_scalar((double)s->forward));
            ee_mv_set(info, "backward_passes", 0, ee_mv_scalar((double)s->backward));
            ee_mv_set(info, "members", 0, ee_mv_scalar(j->models.K));
            ee_mv_set(info, "inputs", 0, ee_mv_char(ee_inputs_name(c->inputs)));
            if (j->models.clf) ee_mv_set(info, "target", 0, double_col_of(s->data[1], 1, n, 1));
            ee_mv_set(info, "seconds", 0, ee_mv_scalar(s->seconds));
        } else {
            ee_mv_set(info, "target", 0, double_col_of(s->data[1], 1, n, 1));
            ee_mv_set(info, "fx", 0, double_col_of(s->data[2], 0, n, 0));
            ee_mv_set(info, "fbaseline", 0, double_col_of(s->data[3], 0, n, 0));
            ee_mv_set(info, "delta", 0, double_col_of(s->data[4], 0, n, 0));
            ee_mv_set(info, "passes", 0, ee_mv_scalar((double)(s->forward + s->backward)));
            ee_mv_set(info, "forward_passes", 0, ee_mv_scalar((double)s->forward));
            ee_mv_set(info, "backward_passes", 0, ee_mv_scalar((double)s->backward));
            ee_mv_set(info, "seconds", 0, ee_mv_scalar(s->seconds));
            const char *method = j->cmd == CMD_IG ? ee_ig_method_names[j->a.method]
                                 : j->coal        ? (j->ck.m.kind == EE_COAL_OCCLUSION ? "occlusion"
                                                     : j->ck.m.kind == EE_COAL_LIME    ? "lime"
                                                                                       : "kernelshap")
                                 : j->exact       ? "exact"
                                 : j->perms       ? "permutations"
                                                  : "sampling";
            ee_mv_set(info, "method", 0, ee_mv_char(method));
            ee_mv_set(info, "steps", 0, ee_mv_scalar(j->coal ? 1 : j->a.steps));
            if (j->cmd == CMD_SV && !j->exact && !j->coal)
                ee_mv_set(info, "variance", 0, ee_mv_single_rows(s->data[5], n, j->T));
            if (j->coal) { /* the fields ee_occlusion, ee_lime and ee_sv's kernelshap add */
                ee_mv_set(info, "coalitions", 0, double_col_of(s->data[5], 1, n, 0));
                if (j->ck.m.kind == EE_COAL_OCCLUSION) {
                    ee_mv_set(info, "window", 0, ee_mv_scalar(j->ck.window ? j->ck.window : 1));
                    ee_mv_set(info, "stride", 0, ee_mv_scalar(j->ck.stride ? j->ck.stride : 1));
                }
            }
        }
        names[nv] = "info", vars[nv++] = info;
    }
    names[nv] = "rows", vars[nv++] = rows;
    /* where the rows came from (ee train-explainer checks the variable) */
    matvar_t *src = ee_mv_struct();
    ee_mv_set(src, "file", 0, ee_mv_char(j->data.path));
    ee_mv_set(src, "var", 0, ee_mv_char(j->data.var));
    names[nv] = "data", vars[nv++] = src;
    return ee_mat_write(out, names, vars, nv);
}

/* ---- stopped from outside ----------------------------------------------------------------
 * A launcher that loses a rank (or Slurm at the time limit) stops the
 * others with SIGTERM; Ctrl-C sends SIGINT. Rank 0 says in one line what
 * is kept and how to go on; the result file is written only at the end,
 * so none is left behind. */
static char stop_message[1200];
static size_t stop_len;

static void on_stop(int sig)
{
    (void)sig;
    ee_mat_abandon(); /* the shards stay for resuming; a half-written result does not */
    if (stop_len) {
        ssize_t w = write(2, stop_message, stop_len);
        (void)w;
    }
    _exit(8);
}

static void catch_stop(const Job *j, const char *dir)
{
    if (j->par->rank == 0)
        stop_len = (size_t)snprintf(stop_message, sizeof stop_message,
                                    "ee %s: stopped before every row was done (a rank failed, or a signal); the "
                                    "finished chunks are kept in %s: the same command resumes from them\n",
                                    j->name, dir);
    if (stop_len >= sizeof stop_message) stop_len = sizeof stop_message - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* ---- the run ------------------------------------------------------------------------------------ */
static EeStatus setup(Job *j, int argc, char **argv, const EeOptSpec *spec, int nspec)
{
    EeStatus st = ee_opts_parse(&j->o, j->name, spec, nspec, argc, argv);
    if (st) return st;
    if ((st = ee_cli_verbose(&j->o, &j->verbose))) return st;
    const char *need;
    if ((st = ee_cli_need(&j->o, "out", &need)) || (st = ee_cli_out_file(need))) return st;
    if (j->cmd != CMD_EXPLAIN && (st = ee_cli_need(&j->o, "model", &need))) return st;
    ee_attr_options_defaults(&j->a);
    switch (j->cmd) {
    case CMD_PREDICT: st = setup_predict(j); break;
    case CMD_IG: st = setup_ig(j); break;
    case CMD_SV: st = setup_sv(j); break;
    case CMD_EXPLAIN: st = setup_explain(j); break;
    case CMD_FAITH: st = setup_faith(j); break;
    case CMD_GRAD: st = setup_grad(j); break;
    case CMD_OCCL: st = setup_coal(j, EE_COAL_OCCLUSION); break;
    case CMD_LIME: st = setup_coal(j, EE_COAL_LIME); break;
    }
    if (st) return st;
    if ((st = ee_opt_int(&j->o, "batch", 1, 1 << 20, &j->batch))) return st;
    EeDevice want;
    if ((st = ee_cli_device(&j->o, j->par, &want, &j->dev, &j->prec))) return st;
    /* DeepLIFT's rescale ops are the CPU's: auto means the CPU for it (the gateway's rule) */
    if (j->cmd == CMD_GRAD && j->g.method == EE_GRAD_DEEPLIFT && want == EE_DEVICE_AUTO) j->dev = EE_DEVICE_CPU;
    int chunk = j->cmd == CMD_SV || j->coal ? 16 : j->cmd == CMD_IG || j->cmd == CMD_FAITH || j->cmd == CMD_GRAD ? 64 : 1024;
    if ((st = ee_opt_int(&j->o, "chunk", 1, 1 << 24, &chunk))) return st;
    double *cost = ee_xmalloc(sizeof(double) * (size_t)(j->n ? j->n : 1));
    for (long i = 0; i < j->n; i++) cost[i] = row_cost(j, i);
    ee_shards_plan(&j->sh, j->par, cost, j->n, chunk);
    free(cost);
    EeShards *s = &j->sh;
    switch (j->cmd) {
    case CMD_PREDICT: ee_shards_column(s, "logits", 0, ee_model_config(model0(j))->classes); break;
    case CMD_EXPLAIN:
        ee_shards_column(s, "A", 0, j->T);
        if (j->models.clf) ee_shards_column(s, "target", 1, 1);
        break;
    case CMD_GRAD:
        ee_shards_column(s, "A", 0, j->W);
        ee_shards_column(s, "target", 1, 1);
        ee_shards_column(s, "fx", 0, 1);
        if (j->g.method == EE_GRAD_GRADIENTSHAP) {
            ee_shards_column(s, "background_row", 1, j->g.samples);
            ee_shards_column(s, "alpha", 0, j->g.samples);
        }
        if (j->g.method == EE_GRAD_DEEPLIFT) {
            ee_shards_column(s, "fbaseline", 0, 1);
            ee_shards_column(s, "delta", 0, 1);
        }
        break;
    case CMD_FAITH: /* doubles as pairs of 4-byte values (see run_chunk) */
        ee_shards_column(s, "measures", 1, 2 * 9);
        ee_shards_column(s, "bins", 1, 2 * 2 * EE_FAITH_BINS);
        ee_shards_column(s, "curves", 1, 2 * 2 * (j->f.steps + 1));
        ee_shards_column(s, "target", 1, 1);
        ee_shards_column(s, "players", 1, 1);
        if (j->sens) ee_shards_column(s, "sensitivity", 1, 2 * 3);
        break;
    default:
        ee_shards_column(s, "A", 0, j->W);
        ee_shards_column(s, "target", 1, 1);
        ee_shards_column(s, "fx", 0, 1);
        ee_shards_column(s, "fbaseline", 0, 1);
        ee_shards_column(s, "delta", 0, 1);
        if (j->cmd == CMD_SV && !j->exact && !j->coal) ee_shards_column(s, "variance", 0, j->T);
        if (j->coal) ee_shards_column(s, "coalitions", 1, 1);
    }
    return job_key(j);
}

static EeStatus compute(Job *j)
{
    EeShards *s = &j->sh;
    int *mine = ee_xmalloc(sizeof(int) * (size_t)(s->nchunks + 1));
    int nmine = ee_shards_mine(s, mine);
    long maxn = 1;
    double total = 0;
    for (int q = 0; q < nmine; q++) {
        if (s->chunks[mine[q]].n > maxn) maxn = s->chunks[mine[q]].n;
        total += s->chunks[mine[q]].cost;
    }
    void *out[EE_MAX_COLUMNS];
    for (int k = 0; k < s->ncols; k++) out[k] = ee_xcalloc((size_t)maxn * s->cols[k].width, 4);
    double t0 = ee_now(), last = t0, done_cost = 0;
    long done_rows = 0, my_rows = 0;
    for (int q = 0; q < nmine; q++) my_rows += s->chunks[mine[q]].n;
    EeStatus st = EE_OK;
    char who[32] = "";
    if (j->par->size > 1) snprintf(who, sizeof who, "rank 0 of %d: ", j->par->size);
    for (int q = 0; q < nmine && !st; q++) {
        const EeChunk *k = &s->chunks[mine[q]];
        long fwd = 0, bwd = 0;
        double secs = 0;
        st = run_chunk(j, k, out, &fwd, &bwd, &secs);
        if (st && st != EE_ERR_INTERRUPTED) { /* libcore counts the rows of its call: say which they are */
            char why[1024];
            snprintf(why, sizeof why, "%s", ee_last_error());
            st = ee_fail(st, "in rows %ld..%ld of %s: %s", j->rows[k->first] + 1, j->rows[k->first + k->n - 1] + 1,
                         j->data.var, why);
        }
        if (!st) st = ee_shards_append(s, mine[q], out, fwd, bwd, secs);
        done_rows += k->n;
        done_cost += k->cost;
        double now = ee_now();
        if (!st && (now - last >= 2.0 || q + 1 == nmine) && now > t0) {
            last = now;
            double eta = done_cost > 0 ? (total - done_cost) * (now - t0) / done_cost : 0;
            ee_cli_say(j->par, j->verbose, j->name, "%s%ld/%ld rows  %.1f rows/s  ETA %.0fs", who, done_rows, my_rows,
                       done_rows / (now - t0), eta);
        }
    }
    for (int k = 0; k < s->ncols; k++) free(out[k]);
    free(mine);
    return st;
}

static const char *const usage[] = {
    "usage: ee predict --model M.mat --data D.mat [--rows A:B] [options] --out P.mat",
    "usage: ee ig --model M.mat --data D.mat [--rows A:B] [--steps S] [--method M] [--baseline pad|zero] [options] --out A.mat",
    "usage: ee sv --model M.mat --data D.mat [--rows A:B] [--samples S] [--seed K] [options] --out A.mat",
    "usage: ee explain --model E.mat [--model E2.mat ...] --data D.mat [--rows A:B] [options] --out A.mat",
    "usage: ee faithfulness --model M.mat --data D.mat --maps A.mat [--rows A:B] [--steps K] [options] --out F.mat",
    "usage: ee gradient --model M.mat --data D.mat [--rows A:B] [--method M] [--noise N --samples S --stdev X] [options] --out A.mat",
    "usage: ee occlusion --model M.mat --data D.mat [--rows A:B] [--window W] [--stride S] [options] --out A.mat",
    "usage: ee lime --model M.mat --data D.mat [--rows A:B] [--samples S] [--seed K] [--width X] [--ridge X] [options] --out A.mat"};
static const char *const about[] = {
    "Class labels and logits of a classifier (ee_predict). Writes labels (N x 1 int32), logits (N x C single)\n"
    "and rows (the 1-based rows of --var).",
    "Integrated Gradients / X-Gradient of a classifier's target logit (ee_ig). Writes A (N x T single), info\n"
    "(as ee_ig returns it) and rows.",
    "Shapley Value Sampling of a token classifier (ee_sv). Row i of --var draws from its own stream, so any\n"
    "split of the rows (--rows, ranks, chunks) gives the numbers of one run. Writes A, info and rows.",
    "Maps of an Empirical Explainer, or the mean of an ensemble (ee_explain); an explainer that reads the\n"
    "classifier's gradient runs the classifier it carries. Writes A, info and rows.",
    "Faithfulness of attribution maps to a classifier (ee_faithfulness): ERASER comprehensiveness and\n"
    "sufficiency, deletion and insertion curves and areas, the log-odds drop, with --infidelity the infidelity\n"
    "and with --sensitivity the sensitivity-max of a gradient method (doc/MODELS.md). Writes F (the struct\n"
    "ee_faithfulness returns, the same bits) and rows.",
    "Gradient maps (saliency, gradient x input, IG, GradientSHAP) and the noise tunnel over them (ee_gradient).\n"
    "Row i of --var draws its noise from its own streams, so any split of the rows gives the numbers of one run.\n"
    "Writes A, info (as ee_gradient returns it, without noise_values) and rows.",
    "Occlusion of windows of --window real tokens (features) every --stride (ee_occlusion): a token's score is\n"
    "the mean over the windows that cover it of f(x) - f(x with the window replaced by the baseline);\n"
    "--window 1 --stride 1 is feature ablation (leave-one-out). Writes A, info and rows.",
    "LIME of a classifier (ee_lime): per row a weighted linear fit to the target logit on --samples coalitions\n"
    "of its real tokens (features), drawn from the row's own stream. Writes A, info and rows."};
static const char *const parallel =
    "\n\nUnder mpirun or srun the rows are cut into chunks, spread over the ranks by cost, and each rank\n"
    "appends its finished chunks to a shard in --shards; rank 0 writes --out when all are done. The same\n"
    "command restarted after a failure (with any number of ranks) computes only the chunks that are missing.";

static EeStatus run(RowCmd cmd, const char *name, const EeOptSpec *spec, int nspec, int argc, char **argv,
                    const EePar *par)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (par->rank == 0) {
                char text[2048];
                snprintf(text, sizeof text, "%s%s", about[cmd], parallel);
                ee_cmd_help(stdout, usage[cmd], text, spec, nspec);
            }
            return EE_OK;
        }
    Job j;
    memset(&j, 0, sizeof j);
    j.sh.fd = -1;
    j.cmd = cmd;
    j.name = name;
    j.par = par;
    double t0 = ee_now();
    EeStatus st = setup(&j, argc, argv, spec, nspec);
    if ((st = ee_par_agree(par, st))) { job_free(&j); return st; }
    /* every rank must be doing the same job: the same files, read alike,
     * and the same device kind */
    int mine = (int)(j.key & 0x7fffffff);
    if (ee_par_max(par, mine) != -ee_par_max(par, -mine)) {
        job_free(&j);
        return ee_fail(EE_ERR_INPUT, "the ranks do not agree on the job: the files differ between nodes, or "
                       "--device auto found a GPU on some nodes only (give --device)");
    }
    const char *out = ee_opt(&j.o, "out");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", ee_opt(&j.o, "shards") ? ee_opt(&j.o, "shards") : out);
    if (!ee_opt(&j.o, "shards")) strncat(dir, ".shards", sizeof dir - strlen(dir) - 1);
    if ((st = ee_shards_open(&j.sh, dir, j.key))) { job_free(&j); return st; }
    catch_stop(&j, dir);
    EeShards *s = &j.sh;
    ee_cli_say(par, j.verbose, name, "%ld rows of %s in %s, %d chunks of up to %ld rows, %d rank%s", j.n, j.data.var,
               j.data.path, s->nchunks, s->nchunks ? s->chunks[0].n : 0, par->size, par->size > 1 ? "s" : "");
    if (s->ndone_before)
        ee_cli_say(par, j.verbose, name, "resuming: %d of %d chunks already done in %s", s->ndone_before, s->nchunks, dir);
    st = ee_par_agree(par, compute(&j));
    /* bad input found by the work (a row all PAD, a mask all false, bad
     * permutations, too many tokens for --exact) fails again on every
     * rerun of this job: its chunks are no use, and a corrected command
     * must not meet them. Other failures (I/O, memory, a signal) keep
     * them for the rerun that resumes. */
    if ((st == EE_ERR_INPUT || st == EE_ERR_MODEL || st == EE_ERR_UNSUPPORTED) && par->rank == 0)
        ee_shards_remove(s);
    /* the CPU time of each rank's work (all its threads): how evenly the
     * ranks were loaded, whatever else ran on the machine */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    double cpu_max = ee_par_max_double(par, cpu), cpu_sum = ee_par_sum_double(par, cpu);
    if (!st && par->rank == 0) {
        st = ee_shards_merge(s);
        if (!st) st = write_result(&j, out);
    }
    st = ee_par_agree(par, st);
    if (!st && par->rank == 0) {
        ee_shards_remove(s);
        double secs = ee_now() - t0;
        char ranks[128] = "";
        if (par->size > 1)
            snprintf(ranks, sizeof ranks, "; CPU %.1f s over %d ranks, %.1f s on the busiest", cpu_sum, par->size, cpu_max);
        ee_cli_say(par, j.verbose, name, "%ld rows in %.1f s (%.1f rows/s, %ld model passes%s) -> %s", j.n, secs,
                   secs > 0 ? j.n / secs : 0.0, s->forward + s->backward, ranks, out);
    }
    job_free(&j);
    return st;
}

EeStatus ee_cmd_predict(int argc, char **argv, const EePar *par)
{
    return run(CMD_PREDICT, "predict", predict_opts, NOPTS(predict_opts), argc, argv, par);
}
EeStatus ee_cmd_ig(int argc, char **argv, const EePar *par)
{
    return run(CMD_IG, "ig", ig_opts, NOPTS(ig_opts), argc, argv, par);
}
EeStatus ee_cmd_sv(int argc, char **argv, const EePar *par)
{
    return run(CMD_SV, "sv", sv_opts, NOPTS(sv_opts), argc, argv, par);
}
EeStatus ee_cmd_explain(int argc, char **argv, const EePar *par)
{
    return run(CMD_EXPLAIN, "explain", explain_opts, NOPTS(explain_opts), argc, argv, par);
}
EeStatus ee_cmd_gradient(int argc, char **argv, const EePar *par)
{
    return run(CMD_GRAD, "gradient", grad_opts, NOPTS(grad_opts), argc, argv, par);
}
EeStatus ee_cmd_occlusion(int argc, char **argv, const EePar *par)
{
    return run(CMD_OCCL, "occlusion", occl_opts, NOPTS(occl_opts), argc, argv, par);
}
EeStatus ee_cmd_lime(int argc, char **argv, const EePar *par)
{
    return run(CMD_LIME, "lime", lime_opts, NOPTS(lime_opts), argc, argv, par);
}
EeStatus ee_cmd_faithfulness(int argc, char **argv, const EePar *par)
{
    return run(CMD_FAITH, "faithfulness", faith_opts, NOPTS(faith_opts), argc, argv, par);
}

