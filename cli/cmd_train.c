/* cmd_train.c: ee train and ee train-explainer: the gateway ee_train
 * (mex/ee_train.c) from files. The same options under the same names,
 * the same checks, the same libcore calls, and the model struct with the
 * fields the gateway returns (kind, sizes, weights, format, settings,
 * history, vocab_words / class_names, classifier, explains), saved as
 * variable `model`. Training runs in one process. */
#include "common.h"
#include "data.h"
#include "models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOPTS(a) ((int)(sizeof a / sizeof *a))

#define TRAIN_OPTS                                                                                             \
    {"data", EE_OPT_VALUE, "FILE", "the data: a .mat file in the layout of doc/API.md"},                      \
    {"var", EE_OPT_VALUE, "NAME", "the variable of --data with the training rows (default tokens)"},          \
    {"rows", EE_OPT_VALUE, "ROWS", "training rows of --var, 1-based: A:B, lists, train/valid/test or all "    \
                                   "(default)"},                                                              \
    {"out", EE_OPT_VALUE, "FILE", "the model (.mat, variable model)"},                                        \
    {"epochs", EE_OPT_VALUE, "N", "passes over the training rows"},                                           \
    {"lr", EE_OPT_VALUE, "X", "Adam's learning rate"},                                                        \
    {"batch", EE_OPT_VALUE, "N", "rows per step"},                                                            \
    {"patience", EE_OPT_VALUE, "N", "epochs without a better validation loss before stopping"},              \
    {"seed", EE_OPT_VALUE, "K", "seed of the initialisation, shuffling and dropout (default 1)"},            \
    {"dropout", EE_OPT_VALUE, "P", "dropout probability while training"},                                     \
    {"schedule", EE_OPT_VALUE, "constant|cosine", "learning rate over the run"},                              \
    {"freeze", EE_OPT_VALUE, "none|embeddings|encoder", "keep the embeddings (and the encoder but its last layer) as they are"},                        \
    {"device", EE_OPT_VALUE, "auto|cpu|gpu", "where to train (default auto)"},                                \
    {"precision", EE_OPT_VALUE, "fp32|tf32|bf16", "matrix products in fp32 (default) or on a GPU's tensor cores"}, \
    {"verbose", EE_OPT_BOOL, "", "a progress line per epoch on stderr (default true)"},                      \
    {"quiet", EE_OPT_BOOL, "", "no progress lines (--verbose false)"}

static const EeOptSpec train_opts[] = {
    {"spec", EE_OPT_VALUE, "KIND", "transformer, cnn or mlp"},
    {"kind", EE_OPT_VALUE, "KIND", "the same as --spec (the spec struct's field)"},
    TRAIN_OPTS,
    {"labels", EE_OPT_VALUE, "NAME", "the variable of --data with the class labels (default labels)"},
    {"validation", EE_OPT_VALUE, "ROWS", "validation rows of --var (e.g. valid): early stopping, best epoch kept"},
    {"d", EE_OPT_VALUE, "N", "embedding width (transformer, cnn)"},
    {"heads", EE_OPT_VALUE, "N", "attention heads (transformer)"},
    {"layers", EE_OPT_VALUE, "N", "encoder layers (transformer)"},
    {"ffn", EE_OPT_VALUE, "N", "feed-forward width (transformer)"},
    {"filters", EE_OPT_VALUE, "N", "filters per width (cnn)"},
    {"widths", EE_OPT_VALUE, "LIST", "filter widths, e.g. 3,4,5 (cnn)"},
    {"hidden", EE_OPT_VALUE, "LIST", "hidden layer widths, e.g. 64 (mlp)"},
    {"bias", EE_OPT_BOOL, "", "false: the bias-free cnn/mlp (X-DNN)"},
    {"classes", EE_OPT_VALUE, "C|NAME", "number of classes, or a cell variable of --data with the class names "
                                        "(stored as class_names)"},
    {"vocab", EE_OPT_VALUE, "V|NAME", "vocabulary size, or a cell variable of --data with the words (e.g. "
                                      "vocab; stored as vocab_words)"},
};

static const EeOptSpec expl_opts[] = {
    {"model", EE_OPT_VALUE, "FILE", "the classifier to explain (.mat with one model struct)"},
    TRAIN_OPTS,
    {"targets", EE_OPT_VALUE, "FILE|METHOD", "the training maps: a file from ee ig / ee sv (variables A and rows; "
                                             "every training row must be in it), or a method of ee_train (clf, X, "
                                             "METHOD) to compute them with its defaults: ig, sv, saliency, "
                                             "saliency_abs, saliency_l2, gradxinput, deeplift (not on a transformer), "
                                             "smoothgrad, smoothgrad_sq, vargrad, occlusion, kernelshap, lime"},
    {"validation", EE_OPT_VALUE, "ROWS", "validation rows (of --validation-var): early stopping"},
    {"validation-var", EE_OPT_VALUE, "NAME", "the variable of --data with the validation rows (default --var)"},
    {"validation-targets", EE_OPT_VALUE, "FILE", "maps of the validation rows (default: --targets)"},
    {"steps", EE_OPT_VALUE, "S", "steps / samples of the maps computed with --targets ig|sv (default 20), "
                                 "coalitions per row with kernelshap|lime (default 2 n + 2048)"},
    {"head", EE_OPT_VALUE, "token|flat", "the explainer's head (default token)"},
    {"inputs", EE_OPT_VALUE, "NAME", "gradient_ends (default), occlusion (default with --targets sv, occlusion, kernelshap, lime), path, "
                                     "attention, attention_top, gradient, gradient_vector or tokens"},
    {"attend", EE_OPT_VALUE, "tokens|all", "keys attended (default tokens for the token head)"},
    {"outputs", EE_OPT_VALUE, "auto|tokens|all", "outputs fixed at 0 on [CLS], [SEP] and PAD (default auto)"},
    {"design", EE_OPT_VALUE, "default|paper", "paper: the paper's design (flat head, tokens, every position)"},
    {"layers", EE_OPT_VALUE, "N", "the explainer keeps the first N of its transformer classifier's encoder layers "
                                  "(default all; fewer cost less per explanation)"},
    {"standardize", EE_OPT_BOOL, "", "train on maps divided by their RMS (default true)"},
    {"efficiency", EE_OPT_BOOL, "", "project each map so that it sums to f(x) - f(baseline) (default true with "
                                    "gradient inputs and zero outputs on special tokens, for maps that sum to it)"},
    {"margin", EE_OPT_BOOL, "", "a binary classifier's explainer learns one map for both classes, signed toward "
                                "the second, and each explanation takes the sign of the class (default false)"},
    {"explains", EE_OPT_VALUE, "K=V,...", "what the explainer imitates, e.g. method=sv,steps=20 (stored in "
                                          "explains)"},
};

static int want_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

/* The start both training commands share: the help (printed by rank 0; then
 * *helped is set and nothing else is done), the refusal under several ranks
 * (training is not split; hint: what to run under MPI instead, or ""), and
 * the options parsed into o. */
static EeStatus one_process_start(int argc, char **argv, const EePar *par, const char *cmd, const char *usage,
                                  const char *about, const EeOptSpec *spec, int nspec, const char *hint, EeOpts *o,
                                  int *helped)
{
    *helped = want_help(argc, argv);
    if (*helped) {
        if (par->rank == 0) ee_cmd_help(stdout, usage, about, spec, nspec);
        return EE_OK;
    }
    if (par->size > 1)
        return ee_fail(EE_ERR_UNSUPPORTED, "ee %s runs in one process (training is not split across ranks): "
                       "start it without mpirun/srun%s", cmd, hint);
    return ee_opts_parse(o, cmd, spec, nspec, argc, argv);
}

/* ---- what the classifier and the explainer share ------------------------------------------ */
static EeStatus read_train_options(const EeOpts *o, int explainer, EeTrainOptions *t)
{
    EeStatus st;
    if ((st = ee_opt_int(o, "epochs", 1, 1000000, &t->epochs))) return st;
    double lr = t->lr;
    if ((st = ee_opt_double(o, "lr", 0, 10, &lr))) return st;
    t->lr = (float)lr;
    if ((st = ee_opt_int(o, "batch", 1, 1 << 20, &t->batch))) return st;
    if ((st = ee_opt_int(o, "patience", 0, 1000000, &t->patience))) return st;
    int seed = (int)t->seed;
    if ((st = ee_opt_int(o, "seed", 0, 0x7fffffff, &seed))) return st;
    t->seed = (uint64_t)seed;
    const char *v = ee_opt(o, "dropout");
    if (v) {
        double p;
        if (!ee_str_double(v, &p) || !(p >= 0 && p < 1))
            return ee_fail(EE_ERR_INPUT, "--dropout must be a number in [0, 1), got '%s'", v);
        t->dropout = (float)p;
    }
    if ((st = ee_cli_verbose(o, &t->verbose))) return st;
    int k = (int)t->schedule;
    if ((st = ee_opt_choice(o, "schedule", ee_schedule_names, EE_SCHEDULE_COUNT, &k))) return st;
    t->schedule = (EeSchedule)k;
    int stdz = t->standardize;
    if (explainer && (st = ee_opt_bool(o, "standardize", &stdz))) return st;
    t->standardize = stdz;
    if ((st = ee_opt_choice(o, "freeze", ee_freeze_names, EE_FREEZE_COUNT, &t->freeze_embeddings))) return st;
    t->print = ee_cli_print;
    return EE_OK;
}

static matvar_t *history_struct(const EeHistory *h, int classifier)
{
    matvar_t *s = ee_mv_struct();
    int n = h->epochs_run < 4096 ? h->epochs_run : 4096; /* as the gateway */
    double buf[4096];
    const float *rows[3] = {h->train_loss, h->valid_loss, h->valid_metric};
    const char *names[3] = {"train_loss", "valid_loss", classifier ? "valid_accuracy" : "valid_mse"};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n; i++) buf[i] = rows[k][i];
        ee_mv_set(s, names[k], 0, ee_mv_row(buf, n));
    }
    ee_mv_set(s, "epochs_run", 0, ee_mv_scalar(h->epochs_run));
    ee_mv_set(s, "best_epoch", 0, ee_mv_scalar(h->best_epoch));
    ee_mv_set(s, "stopped_early", 0, ee_mv_logical(h->stopped_early != 0));
    ee_mv_set(s, "seconds", 0, ee_mv_scalar(h->seconds));
    return s;
}

static matvar_t *settings_struct(const EeTrainOptions *t, EeDevice dev, int explainer)
{
    matvar_t *s = ee_mv_struct();
    ee_mv_set(s, "epochs", 0, ee_mv_scalar(t->epochs));
    ee_mv_set(s, "lr", 0, ee_mv_scalar(t->lr));
    ee_mv_set(s, "schedule", 0, ee_mv_char(ee_schedule_names[t->schedule]));
    ee_mv_set(s, "freeze", 0, ee_mv_char(ee_freeze_names[t->freeze_embeddings]));
    if (explainer) ee_mv_set(s, "standardize", 0, ee_mv_logical(t->standardize != 0));
    ee_mv_set(s, "batch", 0, ee_mv_scalar(t->batch));
    ee_mv_set(s, "patience", 0, ee_mv_scalar(t->patience));
    ee_mv_set(s, "seed", 0, ee_mv_scalar((double)t->seed));
    ee_mv_set(s, "dropout", 0, ee_mv_scalar(t->dropout));
    ee_mv_set(s, "device", 0, ee_mv_char(ee_device_names[dev == EE_DEVICE_GPU ? EE_DEVICE_GPU : EE_DEVICE_CPU]));
    return s;
}

/* A 1 x n copy of a cell of words (what the gateway stores). */
static matvar_t *words_row(const matvar_t *cell)
{
    int n = (int)ee_mv_numel(cell);
    matvar_t *r = ee_mv_cell_row(n);
    for (int i = 0; i < n; i++) ee_mv_cell_set(r, i, ee_mv_copy(ee_mv_cell((matvar_t *)cell, (size_t)i)));
    return r;
}

/* The training and validation rows of one variable. */
typedef struct {
    EeDataset set;
    int32_t *ids, *labels;
    float *x, *maps, *feats;
    long *rows, n;
} Part;

static void part_free(Part *p)
{
    free(p->ids);
    free(p->labels);
    free(p->x);
    free(p->maps);
    free(p->feats);
    free(p->rows);
    memset(p, 0, sizeof *p);
}

static EeStatus read_part(EeData *d, const char *spec, const char *opt, const EeConfig *c, Part *p)
{
    EeStatus st = ee_data_rows(d, spec, opt, &p->rows, &p->n);
    if (st) return st;
    p->set.in.n = (int)p->n;
    if (c->kind == EE_KIND_MLP) {
        if ((st = ee_data_dense(d, p->rows, p->n, c->D, &p->x))) return st;
        p->set.in.x = p->x;
    } else {
        if ((st = ee_data_tokens(d, p->rows, p->n, c->T, c->vocab, &p->ids))) return st;
        p->set.in.ids = p->ids;
    }
    return EE_OK;
}

static EeStatus finish(const char *out, const EeModel *m, matvar_t *extra[], const char *const extra_names[],
                       int nextra)
{
    matvar_t *s;
    EeStatus st = ee_mv_model(m, &s);
    if (st) return st;
    for (int k = 0; k < nextra; k++)
        if (extra[k]) ee_mv_set(s, extra_names[k], 0, extra[k]);
    const char *names[1] = {"model"};
    return ee_mat_write(out, names, &s, 1);
}

/* ---- ee train ------------------------------------------------------------------------------- */
EeStatus ee_cmd_train(int argc, char **argv, const EePar *par)
{
    EeOpts o;
    int helped;
    EeStatus st = one_process_start(
        argc, argv, par, "train",
        "usage: ee train --spec transformer|cnn|mlp --data D.mat [--rows A:B] [options] --out MODEL.mat",
        "Trains a classifier on rows of --var with the labels of --labels (ee_train (spec, X, y, ...)).\n"
        "Defaults per kind as in help ee_train; sizes left open come from the data (T, D,\n"
        "vocab = the largest id, classes = the largest label). Runs in one process.",
        train_opts, NOPTS(train_opts), "", &o, &helped);
    if (st || helped) return st;
    const char *out, *path, *kind = ee_opt(&o, "spec");
    if ((st = ee_cli_need(&o, "out", &out)) || (st = ee_cli_out_file(out)) || (st = ee_cli_need(&o, "data", &path)))
        return st;
    if (kind && ee_opt(&o, "kind") && !ee_str_ieq(kind, ee_opt(&o, "kind")))
        return ee_fail(EE_ERR_INPUT, "--spec %s and --kind %s disagree", kind, ee_opt(&o, "kind"));
    if (!kind) kind = ee_opt(&o, "kind");
    if (!kind) return ee_fail(EE_ERR_INPUT, "--spec is required: transformer, cnn or mlp (see ee train --help)");
    int ki = -1;
    for (int i = 0; i < EE_KIND_COUNT; i++)
        if (ee_str_ieq(kind, ee_kind_names[i])) ki = i;
    if (ki < 0) return ee_fail(EE_ERR_INPUT, "--spec must be one of transformer, cnn, mlp, got '%s'", kind);
    EeKind k = (EeKind)ki;
    EeConfig cfg;
    ee_config_defaults(&cfg, k);
    if ((st = ee_opt_int(&o, "d", 1, 1 << 14, &cfg.d)) || (st = ee_opt_int(&o, "heads", 1, 1 << 14, &cfg.heads)) ||
        (st = ee_opt_int(&o, "layers", 0, 64, &cfg.layers)) || (st = ee_opt_int(&o, "ffn", 1, 1 << 16, &cfg.ffn)) ||
        (st = ee_opt_int(&o, "filters", 1, 1 << 16, &cfg.filters)) ||
        (st = ee_opt_ints(&o, "widths", 1, 1 << 16, cfg.widths, EE_MAX_WIDTHS, &cfg.nwidths)) ||
        (st = ee_opt_ints(&o, "hidden", 1, 1 << 16, cfg.hidden, EE_MAX_HIDDEN, &cfg.nhidden)) ||
        (st = ee_opt_bool(&o, "bias", &cfg.bias)))
        return st;

    EeData d;
    Part train = {0}, valid = {0};
    EeModel *m = NULL;
    EeHistory hist;
    int have_hist = 0;
    matvar_t *vocab_cell = NULL, *class_cell = NULL;
    if ((st = ee_data_open(path, ee_opt(&o, "var"), &d))) goto done;
    /* classes and vocab: a size, or a cell variable of the words / names */
    const char *v;
    long num;
    if ((v = ee_opt(&o, "classes"))) {
        if (ee_str_long(v, &num)) {
            if (num < 2 || num > 100000) { st = ee_fail(EE_ERR_INPUT, "--classes must be an integer in [2, 100000], got '%s'", v); goto done; }
            cfg.classes = (int)num;
        } else if ((st = ee_data_words(&d, v, 0, &class_cell, &cfg.classes))) goto done;
    }
    if ((v = ee_opt(&o, "vocab"))) {
        if (ee_str_long(v, &num)) {
            if (num < 5 || num > (1 << 24)) { st = ee_fail(EE_ERR_INPUT, "--vocab must be an integer in [5, 16777216], got '%s'", v); goto done; }
            cfg.vocab = (int)num;
        } else if ((st = ee_data_words(&d, v, 1, &vocab_cell, &cfg.vocab))) goto done;
    }
    /* sizes from the data where the options leave them open */
    if (k == EE_KIND_MLP) cfg.D = (int)d.W;
    else cfg.T = (int)d.W;
    int vocab_given = cfg.vocab > 0;
    if ((st = read_part(&d, ee_opt(&o, "rows"), "rows", &cfg, &train))) goto done;
    if (k != EE_KIND_MLP && !vocab_given) {
        int mx = 0;
        for (size_t q = 0; q < (size_t)train.n * cfg.T; q++)
            if (train.ids[q] + 1 > mx) mx = train.ids[q] + 1;
        cfg.vocab = mx < 5 ? 5 : mx;
    }
    const char *lab = ee_opt(&o, "labels") ? ee_opt(&o, "labels") : "labels";
    int maxlabel = 0;
    if ((st = ee_data_labels(&d, lab, train.rows, train.n, cfg.classes, &train.labels, &maxlabel))) goto done;
    train.set.labels = train.labels;
    if (cfg.classes == 0) cfg.classes = maxlabel < 2 ? 2 : maxlabel;
    if ((st = ee_model_new(&cfg, &m))) goto done;
    EeTrainOptions topt;
    ee_train_options_defaults(&topt, cfg.kind, cfg.head);
    if ((st = read_train_options(&o, 0, &topt))) goto done;
    ee_model_init(m, topt.seed);
    if ((v = ee_opt(&o, "validation"))) {
        if ((st = read_part(&d, v, "validation", &cfg, &valid))) goto done;
        if ((st = ee_data_labels(&d, lab, valid.rows, valid.n, cfg.classes, &valid.labels, NULL))) goto done;
        valid.set.labels = valid.labels;
    }
    for (long i = 0; i < train.n; i++)
        if (train.labels[i] >= cfg.classes) {
            st = ee_fail(EE_ERR_INPUT, "%s: %s(%ld) = %d exceeds --classes = %d", path, lab, train.rows[i] + 1,
                         train.labels[i] + 1, cfg.classes);
            goto done;
        }
    EeDevice want, dev;
    EePrecision prec;
    if ((st = ee_cli_device(&o, par, &want, &dev, &prec))) goto done;
    topt.device = want;
    topt.precision = prec;
    if ((st = ee_train(m, &train.set, valid.n ? &valid.set : NULL, &topt, &hist))) goto done;
    have_hist = 1;
    matvar_t *extra[] = {ee_mv_char("ee-model-1"), settings_struct(&topt, dev, 0), history_struct(&hist, 1),
                         vocab_cell ? words_row(vocab_cell) : NULL, class_cell ? words_row(class_cell) : NULL};
    const char *const names[] = {"format", "settings", "history", "vocab_words", "class_names"};
    st = finish(out, m, extra, names, 5);
    if (!st && topt.verbose) fprintf(stderr, "ee train: %s model -> %s\n", ee_kind_name(cfg.kind), out);
done:
    if (have_hist) ee_history_free(&hist);
    ee_model_free(m);
    part_free(&train);
    part_free(&valid);
    ee_data_close(&d);
    return st;
}

/* ---- ee train-explainer --------------------------------------------------------------------------- */
/* A margin explainer trains on its maps signed toward the second class
 * (ee_explainer_margin_maps): they replace the part's own. */
static EeStatus sign_margin_maps(EeModel *clf, Part *p, const EeTrainOptions *topt, EeAttrInfo *info)
{
    float *signed_maps = NULL;
    EeStatus st = ee_explainer_margin_maps(clf, &p->set, topt, &signed_maps, info);
    if (st || !signed_maps) return st;
    free(p->maps);
    p->maps = signed_maps;
    p->set.maps = signed_maps;
    return EE_OK;
}

/* Maps of rows of variable `var` from a file of ee ig / ee sv (A, rows,
 * and the data variable they were computed on). */
static EeStatus maps_from_file(const char *file, const char *var, const Part *p, int T, float **maps)
{
    EeMatIn *f;
    EeStatus st = ee_matin_open(file, &f);
    if (st) return st;
    matvar_t *A, *rows, *src;
    char what[600];
    if ((st = ee_matin_var(f, "A", &A)) || (st = ee_matin_var(f, "rows", &rows))) goto done;
    snprintf(what, sizeof what, "%s: A", file);
    if ((st = ee_mv_numeric(A, what))) goto done;
    if (A->class_type != MAT_C_SINGLE && A->class_type != MAT_C_DOUBLE) {
        st = ee_fail(EE_ERR_INPUT, "%s must be a single matrix of attribution maps, got %s", what, ee_mv_class_name(A));
        goto done;
    }
    long N = (long)ee_mv_rows(A);
    if (A->rank != 2 || (long)ee_mv_cols(A) != T) {
        st = ee_fail(EE_ERR_INPUT, "%s must be N x %d (one score per token of the classifier's T), got %zux%zu",
                     what, T, ee_mv_rows(A), ee_mv_cols(A));
        goto done;
    }
    snprintf(what, sizeof what, "%s: rows", file);
    if ((st = ee_mv_numeric(rows, what))) goto done;
    if ((long)ee_mv_numel(rows) != N) {
        st = ee_fail(EE_ERR_INPUT, "%s must hold one row index per row of A (%ld), got %zu", what, N, ee_mv_numel(rows));
        goto done;
    }
    /* a file that says which variable it explains must explain this one */
    matvar_t *dv = ee_matin_has(f, "data") && !ee_matin_var(f, "data", &src) ? ee_mv_field(src, "var", 0) : NULL;
    char *dname = NULL;
    size_t len;
    if (dv && !ee_mv_text(dv, "", &dname, &len) && strcmp(dname, var)) {
        st = ee_fail(EE_ERR_INPUT, "%s holds maps of rows of variable '%s', but these rows are of '%s'", file, dname, var);
        free(dname);
        goto done;
    }
    free(dname);
    /* where each row of the file is: a table over the data rows */
    long maxrow = 0;
    for (long i = 0; i < p->n; i++) if (p->rows[i] + 1 > maxrow) maxrow = p->rows[i] + 1;
    long *at = ee_xmalloc(sizeof(long) * (size_t)(maxrow + 1));
    for (long r = 0; r <= maxrow; r++) at[r] = -1;
    for (long i = 0; i < N; i++) {
        double r = ee_mv_at(rows, (size_t)i);
        if (r >= 1 && r <= maxrow && r == floor(r)) at[(long)r - 1] = i;
    }
    float *o = ee_xmalloc(sizeof(float) * ((size_t)p->n * T + 1));
    for (long i = 0; i < p->n && !st; i++) {
        long q = at[p->rows[i]];
        if (q < 0) {
            st = ee_fail(EE_ERR_INPUT, "%s has no map of row %ld of %s (compute it with ee ig / ee sv --rows)", file,
                         p->rows[i] + 1, var);
            break;
        }
        for (int t = 0; t < T && !st; t++) {
            double x = ee_mv_at(A, (size_t)q + (size_t)N * t);
            if (!isfinite(x)) st = ee_fail(EE_ERR_INPUT, "%s: A(%ld,%d) is NaN or Inf", file, q + 1, t + 1);
            o[(size_t)i * T + t] = (float)x;
        }
    }
    free(at);
    if (st) free(o);
    else *maps = o;
done:
    ee_matin_close(f);
    return st;
}

/* Maps of a part computed here by libcore's table of map methods
 * (ee_map_method_maps: the method's defaults, as ee_train (clf, X, METHOD)
 * computes them; samples 0: the method's own count), keyed by the row's
 * place among the part's rows, as the gateway does for its X. */
static EeStatus maps_computed(EeModel *clf, int method, long samples, EeDevice dev, EePrecision prec, int verbose,
                              Part *p)
{
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.verbose = verbose;
    a.print = ee_cli_print;
    a.device = dev;
    a.precision = prec;
    p->maps = malloc(sizeof(float) * ((size_t)p->n * ee_model_config(clf)->T + 1));
    if (!p->maps) return ee_fail(EE_ERR_NOMEM, "out of memory for %ld maps", p->n);
    return ee_map_method_maps(clf, method, &p->set.in, &a, samples, p->maps, NULL);
}

/* --targets METHOD: the method's index in ee_map_method_names, or -1 for a
 * file; a value that is neither an existing file nor a method is refused. */
static EeStatus targets_method(const char *targets, int *method)
{
    *method = -1;
    for (int k = 0; k < EE_MAP_METHOD_COUNT; k++)
        if (ee_str_ieq(targets, ee_map_method_names[k])) *method = k;
    if (*method >= 0) return EE_OK;
    FILE *f = fopen(targets, "rb");
    if (f) {
        fclose(f);
        return EE_OK;
    }
    char list[256] = "";
    for (int k = 0; k < EE_MAP_METHOD_COUNT; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", ee_map_method_names[k]);
    return ee_fail(EE_ERR_INPUT, "--targets '%s' is neither a file of maps nor a method (%s)", targets, list);
}

/* What the caller named of the explainer's design (as the gateway's
 * read_design); libcore decides the rest (ee_explainer_design). */
static EeStatus read_design(const EeOpts *o, EeExplainerChoices *c)
{
    ee_explainer_choices_init(c);
    int k = EE_DESIGN_DEFAULT;
    EeStatus st = ee_opt_choice(o, "design", ee_design_names, EE_DESIGN_COUNT, &k);
    if (st) return st;
    c->design = (EeDesign)k;
    /* the explainer heads: those after the classifier's */
    if (ee_opt_given(o, "head")) {
        if ((st = ee_opt_choice(o, "head", ee_head_names + EE_HEAD_FLAT, EE_HEAD_COUNT - EE_HEAD_FLAT, &k)))
            return st;
        c->head = EE_HEAD_FLAT + k;
    }
    /* the readers leave -1 (not given) as it is */
    if ((st = ee_opt_choice(o, "inputs", ee_inputs_names, EE_INPUTS_COUNT, &c->inputs)) ||
        (st = ee_opt_choice(o, "attend", ee_attend_names, EE_ATTEND_COUNT, &c->attend)) ||
        (st = ee_opt_choice(o, "outputs", ee_outputs_names, EE_OUTPUTS_COUNT, &c->outputs)))
        return st;
    if ((st = ee_opt_bool(o, "efficiency", &c->efficiency))) return st;
    if ((st = ee_opt_bool(o, "margin", &c->margin))) return st;
    return ee_opt_int(o, "layers", 1, 64, &c->layers);
}

/* --explains KEY=VALUE,...: numbers as double, the rest as char. */
static EeStatus explains_struct(const char *spec, matvar_t **out)
{
    matvar_t *s = ee_mv_struct();
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        int ok = eq && eq > item;
        for (char *c = item; ok && c < eq; c++) ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                                     (c > item && ((*c >= '0' && *c <= '9') || *c == '_'));
        if (!ok) {
            Mat_VarFree(s);
            return ee_fail(EE_ERR_INPUT, "--explains must be NAME=VALUE pairs such as method=sv,steps=20 (NAME a "
                           "field name), got '%s'", spec);
        }
        *eq = 0;
        double x;
        ee_mv_set(s, item, 0, ee_str_double(eq + 1, &x) ? ee_mv_scalar(x) : ee_mv_char(eq + 1));
    }
    *out = s;
    return EE_OK;
}

EeStatus ee_cmd_train_explainer(int argc, char **argv, const EePar *par)
{
    EeOpts o;
    int helped;
    EeStatus st = one_process_start(
        argc, argv, par, "train-explainer",
        "usage: ee train-explainer --model CLF.mat --data D.mat --targets A.mat|METHOD [options] --out E.mat",
        "Trains an Empirical Explainer of a classifier on rows of --var and their maps\n"
        "(ee_train (classifier, X, A, ...)): from a file of ee ig / ee sv, or computed here\n"
        "by a method of ee_train (classifier, X, METHOD, ...), bit for bit as the gateway.\n"
        "Defaults as in help ee_train (20 epochs, lr 1e-3, cosine schedule). Runs in one process.",
        expl_opts, NOPTS(expl_opts), "; compute the targets with ee sv / ee ig under MPI", &o, &helped);
    if (st || helped) return st;
    const char *out, *path, *mpath, *targets;
    if ((st = ee_cli_need(&o, "out", &out)) || (st = ee_cli_out_file(out)) || (st = ee_cli_need(&o, "data", &path)) ||
        (st = ee_cli_need(&o, "model", &mpath)) || (st = ee_cli_need(&o, "targets", &targets)))
        return st;
    EeModels ms;
    EeData d;
    memset(&d, 0, sizeof d);
    Part train = {0}, valid = {0};
    EeModel *m = NULL;
    EeHistory hist;
    int have_hist = 0;
    matvar_t *explains = NULL;
    if ((st = ee_models_classifier(mpath, &ms))) goto done;
    EeModel *clf = ms.m[0];
    EeExplainerChoices choices;
    if ((st = read_design(&o, &choices))) goto done;
    /* a design the classifier's kind has not (e.g. the flat head on a
     * cnn) is refused before any map is computed, as the gateway does */
    if ((st = ee_explainer_check_choices(clf, &choices, EE_MAPS_GIVEN))) goto done;
    int seed = 1;
    if ((st = ee_opt_int(&o, "seed", 0, 0x7fffffff, &seed))) goto done;
    char fingerprint[32];
    if ((st = ee_model_fingerprint(clf, fingerprint, sizeof fingerprint))) goto done;
    EeConfig cfg = *ee_model_config(clf);
    if ((st = ee_data_open(path, ee_opt(&o, "var"), &d))) goto done;
    if ((st = read_part(&d, ee_opt(&o, "rows"), "rows", &cfg, &train))) goto done;
    int verbose;
    if ((st = ee_cli_verbose(&o, &verbose))) goto done;
    EeDevice want, dev;
    EePrecision prec;
    if ((st = ee_cli_device(&o, par, &want, &dev, &prec))) goto done;
    /* the maps: a file, or computed here by the method named */
    int method;
    long steps = 0;
    if ((st = targets_method(targets, &method))) goto done;
    if (choices.margin && method >= 0 && !ee_map_method_signed(method)) {
        st = ee_fail(EE_ERR_INPUT, "--margin signs maps that flip with the explained class; %s maps do not",
                     ee_map_method_names[method]);
        goto done;
    }
    if (ee_opt_given(&o, "steps")) {
        long max = method >= 0 ? ee_map_method_max_samples(method) : 0;
        if (!max) {
            st = ee_fail(EE_ERR_INPUT, "--steps applies when the maps are computed here with --targets ig, sv, "
                         "kernelshap or lime%s%s", method >= 0 ? ", not " : "",
                         method >= 0 ? ee_map_method_names[method] : "");
            goto done;
        }
        int v;
        if ((st = ee_opt_int(&o, "steps", 1, (int)max, &v))) goto done;
        steps = v;
    }
    if (method >= 0 && cfg.kind == EE_KIND_MLP) { /* its maps are N x D; the explainers read tokens */
        st = ee_fail(EE_ERR_UNSUPPORTED, "--targets %s computes maps for explainers of token classifiers, not of an "
                     "mlp", ee_map_method_names[method]);
        goto done;
    }
    if (method >= 0) st = maps_computed(clf, method, steps, want, prec, verbose, &train);
    else st = maps_from_file(targets, d.var, &train, cfg.T, &train.maps);
    if (st) goto done;
    train.set.maps = train.maps;
    const char *vrows = ee_opt(&o, "validation"), *vvar = ee_opt(&o, "validation-var"),
               *vtargets = ee_opt(&o, "validation-targets");
    if (!vrows && (vvar || vtargets)) {
        st = ee_fail(EE_ERR_INPUT, "--%s needs --validation (the rows)", vvar ? "validation-var" : "validation-targets");
        goto done;
    }
    EeData vd;
    memset(&vd, 0, sizeof vd);
    if (vrows) {
        EeData *src = &d;
        if (vvar && strcmp(vvar, d.var)) {
            if ((st = ee_data_open(path, vvar, &vd))) goto done;
            src = &vd;
        }
        st = read_part(src, vrows, "validation", &cfg, &valid);
        if (!st) {
            if (method >= 0 && !vtargets) st = maps_computed(clf, method, steps, want, prec, verbose, &valid);
            else st = maps_from_file(vtargets ? vtargets : targets, src->var, &valid, cfg.T, &valid.maps);
        }
        valid.set.maps = valid.maps;
        ee_data_close(&vd);
        if (st) goto done;
    }
    /* efficiency by default only for maps that sum to f(x) - f(baseline),
     * as the gateway decides */
    if (method >= 0 && !ee_map_method_complete(method) && choices.efficiency == -1) choices.efficiency = 0;
    EeExplainerSpec spec;
    if ((st = ee_explainer_design(&choices, method >= 0 ? ee_map_method_source(method) : EE_MAPS_GIVEN, train.ids,
                                  train.maps, train.n, cfg.T, &spec)))
        goto done;
    if ((st = ee_explainer_new(clf, &spec, (uint64_t)seed, &m))) goto done;
    cfg = *ee_model_config(m);
    EeTrainOptions topt;
    ee_train_options_defaults(&topt, cfg.kind, cfg.head);
    if ((st = read_train_options(&o, 1, &topt))) goto done;
    topt.device = want;
    topt.precision = prec;
    if (ee_opt_given(&o, "explains") && (st = explains_struct(ee_opt(&o, "explains"), &explains))) goto done;
    /* an explainer that reads the classifier's gradient: its features for
     * every training and validation row */
    int nfeat = ee_config_features(&cfg);
    EeAttrInfo finfo = {0};
    float *F[2];
    st = ee_explainer_train_features(clf, &cfg, &train.set, &valid.set, &topt, F, &finfo);
    train.feats = F[0];
    valid.feats = F[1];
    if (st) goto done;
    EeAttrInfo minfo = {0};
    if (cfg.margin &&
        ((st = sign_margin_maps(clf, &train, &topt, &minfo)) || (st = sign_margin_maps(clf, &valid, &topt, &minfo))))
        goto done;
    if ((st = ee_train(m, &train.set, valid.n ? &valid.set : NULL, &topt, &hist))) goto done;
    have_hist = 1;
    matvar_t *hs = history_struct(&hist, 0);
    if (nfeat) {
        ee_mv_set(hs, "feature_passes", 0, ee_mv_scalar((double)(finfo.forward + finfo.backward)));
        ee_mv_set(hs, "feature_seconds", 0, ee_mv_scalar(finfo.seconds));
    }
    if (cfg.margin) { /* the classifier's pass per row that signs its map (as the gateway) */
        ee_mv_set(hs, "margin_passes", 0, ee_mv_scalar((double)minfo.forward));
        ee_mv_set(hs, "margin_seconds", 0, ee_mv_scalar(minfo.seconds));
    }
    /* what the explainer imitates: --explains, or how the maps were made
     * here, plus the fingerprint of the classifier's weights */
    if (!explains) {
        explains = ee_mv_struct();
        if (method >= 0) { /* the method and what defines its maps beyond the name */
            ee_mv_set(explains, "method", 0, ee_mv_char(ee_map_method_names[method]));
            const char *names[8];
            double values[8];
            int n = ee_map_method_settings(method, steps, names, values);
            for (int i = 0; i < n; i++) ee_mv_set(explains, names[i], 0, ee_mv_scalar(values[i]));
        }
    }
    ee_mv_set(explains, "classifier", 0, ee_mv_char(fingerprint));
    matvar_t *vw = ee_mv_field(ms.s[0], "vocab_words", 0), *cn = ee_mv_field(ms.s[0], "class_names", 0);
    matvar_t *extra[] = {ee_mv_char("ee-model-1"), settings_struct(&topt, dev, 1), hs,
                         vw ? ee_mv_copy(vw) : NULL, cn ? ee_mv_copy(cn) : NULL,
                         ee_config_reads_classifier(&cfg) ? ee_mv_copy(ms.s[0]) : NULL, explains};
    const char *const names[] = {"format", "settings", "history", "vocab_words", "class_names", "classifier", "explains"};
    explains = NULL;
    st = finish(out, m, extra, names, 7);
    if (!st && topt.verbose) fprintf(stderr, "ee train-explainer: %s head explainer -> %s\n", ee_head_name(cfg.head), out);
done:
    if (explains) Mat_VarFree(explains);
    if (have_hist) ee_history_free(&hist);
    ee_model_free(m);
    part_free(&train);
    part_free(&valid);
    ee_data_close(&d);
    ee_models_free(&ms);
    return st;
}
