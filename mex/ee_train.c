/* ee_train.c: MEX gateway. Trains a classifier from class labels, or an
 * Empirical Explainer from attribution maps (see ee_train.m). */
#include "mexutils.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    O_VALIDATION, O_EPOCHS, O_LR, O_BATCH, O_PATIENCE, O_SEED, O_DROPOUT, O_HEAD, O_DEVICE,
    O_VERBOSE, O_D, O_HEADS, O_LAYERS, O_FFN, O_FILTERS, O_WIDTHS, O_HIDDEN, O_BIAS, O_CLASSES,
    O_VOCAB, O_KIND, O_EXPLAINS, NOPT
};
static const char *const opt_names[NOPT] = {
    "validation", "epochs", "lr", "batch", "patience", "seed", "dropout", "head", "device",
    "verbose", "d", "heads", "layers", "ffn", "filters", "widths", "hidden", "bias", "classes",
    "vocab", "kind", "explains"};

/* A size may come from the spec struct or from a name/value option. */
static const mxArray *size_field(const mxArray *spec, const EeMxOpt *o, int k)
{
    if (o[k].value) return o[k].value;
    if (spec && mxIsStruct(spec)) return mxGetField(spec, 0, opt_names[k]);
    return NULL;
}

static void read_spec(const mxArray *spec, const EeMxOpt *o, EeConfig *c)
{
    static const char *const kinds[] = {"transformer", "cnn", "mlp"};
    const mxArray *kind = NULL;
    if (mxIsChar(spec)) kind = spec;
    else if (mxIsStruct(spec) && mxGetNumberOfElements(spec) == 1) kind = mxGetField(spec, 0, "kind");
    else ee_mx_error("ee:badInput", "SPEC must be a kind name, a spec struct or a trained classifier");
    if (mxIsStruct(spec)) { /* every field of a spec must be known */
        for (int f = 0; f < mxGetNumberOfFields(spec); f++) {
            const char *name = mxGetFieldNameByNumber(spec, f);
            int known = !strcmp(name, "kind");
            for (int k = O_D; k <= O_VOCAB; k++) known |= !strcmp(name, opt_names[k]);
            if (!known)
                ee_mx_error("ee:badInput", "unknown spec field '%s' (kind and the sizes: d, heads, layers, ffn, "
                            "filters, widths, hidden, bias, classes, vocab)", name);
        }
    }
    /* the 'kind' option names the kind too: it must agree with SPEC's */
    const mxArray *kopt = o[O_KIND].value;
    if (!kind && !kopt) ee_mx_error("ee:badInput", "the spec struct needs a field 'kind'");
    int k = ee_mx_choice(kind ? kind : kopt, "kind", kinds, 3);
    if (kind && kopt) {
        int ko = ee_mx_choice(kopt, "'kind'", kinds, 3);
        if (ko != k)
            ee_mx_error("ee:badInput", "'kind' is '%s' but SPEC says '%s': give the kind once", kinds[ko], kinds[k]);
    }
    ee_config_defaults(c, (EeKind)k);
    const mxArray *v;
    if ((v = size_field(spec, o, O_D))) c->d = ee_mx_int(v, "d", 1, 1 << 14);
    if ((v = size_field(spec, o, O_HEADS))) c->heads = ee_mx_int(v, "heads", 1, 1 << 14);
    if ((v = size_field(spec, o, O_LAYERS))) c->layers = ee_mx_int(v, "layers", 0, 64);
    if ((v = size_field(spec, o, O_FFN))) c->ffn = ee_mx_int(v, "ffn", 1, 1 << 16);
    if ((v = size_field(spec, o, O_FILTERS))) c->filters = ee_mx_int(v, "filters", 1, 1 << 16);
    if ((v = size_field(spec, o, O_WIDTHS)))
        c->nwidths = ee_mx_int_vector(v, "widths", 1, 1 << 16, c->widths, EE_MAX_WIDTHS);
    if ((v = size_field(spec, o, O_HIDDEN)))
        c->nhidden = ee_mx_int_vector(v, "hidden", 1, 1 << 16, c->hidden, EE_MAX_HIDDEN);
    if ((v = size_field(spec, o, O_BIAS))) c->bias = ee_mx_bool(v, "bias");
    if ((v = size_field(spec, o, O_CLASSES))) c->classes = ee_mx_int(v, "classes", 2, 100000);
    if ((v = size_field(spec, o, O_VOCAB))) c->vocab = ee_mx_int(v, "vocab", 5, 1 << 24);
}

static void read_train_options(const EeMxOpt *o, EeTrainOptions *t)
{
    const mxArray *v;
    if ((v = o[O_EPOCHS].value)) t->epochs = ee_mx_int(v, "'epochs'", 1, 1000000);
    if ((v = o[O_LR].value)) {
        double lr = ee_mx_scalar(v, "'lr'");
        if (!(lr > 0 && lr < 10)) ee_mx_error("ee:badInput", "'lr' must be in (0, 10), got %g", lr);
        t->lr = (float)lr;
    }
    if ((v = o[O_BATCH].value)) t->batch = ee_mx_int(v, "'batch'", 1, 1 << 20);
    if ((v = o[O_PATIENCE].value)) t->patience = ee_mx_int(v, "'patience'", 0, 1000000);
    if ((v = o[O_SEED].value)) t->seed = (uint64_t)ee_mx_int(v, "'seed'", 0, 0x7fffffff);
    if ((v = o[O_DROPOUT].value)) {
        double p = ee_mx_scalar(v, "'dropout'");
        if (!(p >= 0 && p < 1)) ee_mx_error("ee:badInput", "'dropout' must be in [0, 1), got %g", p);
        t->dropout = (float)p;
    }
    if ((v = o[O_VERBOSE].value)) t->verbose = ee_mx_bool(v, "'verbose'");
    t->device = ee_mx_device(o[O_DEVICE].value);
    t->print = ee_mx_print;
}

/* Reads X for a model config (token ids or dense rows). */
static void read_inputs(const mxArray *X, const char *what, const EeConfig *c, EeInput *in)
{
    memset(in, 0, sizeof *in);
    if (c->kind == EE_KIND_MLP) in->x = ee_mx_dense(X, what, c->D, &in->n);
    else in->ids = ee_mx_tokens(X, what, c->T, c->vocab, &in->n);
}

/* 1 x n double row of a per-epoch float record (every epoch run). */
static mxArray *epoch_row(const float *v, int n)
{
    mxArray *a = mxCreateDoubleMatrix(n ? 1 : 0, (size_t)n, mxREAL);
    double *p = mxGetPr(a);
    for (int i = 0; i < n; i++) p[i] = v[i];
    return a;
}

static mxArray *history_struct(const EeHistory *h, int classifier)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    int n = h->epochs_run;
    ee_mx_set(s, "train_loss", epoch_row(h->train_loss, n));
    ee_mx_set(s, "valid_loss", epoch_row(h->valid_loss, n));
    ee_mx_set(s, classifier ? "valid_accuracy" : "valid_mse", epoch_row(h->valid_metric, n));
    ee_mx_set(s, "epochs_run", mxCreateDoubleScalar(h->epochs_run));
    ee_mx_set(s, "best_epoch", mxCreateDoubleScalar(h->best_epoch));
    ee_mx_set(s, "stopped_early", mxCreateLogicalScalar(h->stopped_early != 0));
    ee_mx_set(s, "seconds", mxCreateDoubleScalar(h->seconds));
    return s;
}

static mxArray *settings_struct(const EeTrainOptions *t, EeDevice dev)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_set(s, "epochs", mxCreateDoubleScalar(t->epochs));
    ee_mx_set(s, "lr", mxCreateDoubleScalar(t->lr));
    ee_mx_set(s, "batch", mxCreateDoubleScalar(t->batch));
    ee_mx_set(s, "patience", mxCreateDoubleScalar(t->patience));
    ee_mx_set(s, "seed", mxCreateDoubleScalar((double)t->seed));
    ee_mx_set(s, "dropout", mxCreateDoubleScalar(t->dropout));
    ee_mx_set(s, "device", mxCreateString(dev == EE_DEVICE_GPU ? "gpu" : "cpu"));
    return s;
}

static void history_free(void *p) { ee_history_free(p); }

/* FNV-1a over every weight of a model: identifies the classifier an
 * explainer was trained to explain. */
static void model_fingerprint(const EeModel *m, char *out, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        float *buf = malloc(sizeof(float) * (pi.count + 1));
        if (!buf) ee_mx_error("ee:outOfMemory", "out of memory reading the classifier's %s", pi.field);
        ee_param_get(m, i, buf, pi.count);
        const unsigned char *b = (const unsigned char *)buf;
        for (size_t k = 0; k < pi.count * sizeof(float); k++) h = (h ^ b[k]) * 0x100000001b3ULL;
        free(buf);
    }
    snprintf(out, n, "%016llx", (unsigned long long)h);
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 3)
        ee_mx_error("ee:badInput", "usage: model = ee_train(spec, X, y, ...) or expl = ee_train(model, X, A, ...)");
    if (nlhs > 1) ee_mx_error("ee:badInput", "ee_train returns one output");
    ee_mx_begin();
    EeMxOpt o[NOPT];
    ee_mx_parse_options(opt_names, nrhs, prhs, 3, o, NOPT);

    int explainer = ee_mx_is_model(prhs[0]);
    EeModel *m = NULL;
    char fingerprint[32] = "";
    EeConfig cfg;
    EeDataset train = {0}, valid = {0};
    EeStatus st;
    if (explainer) {
        /* expl = ee_train(classifier, X, A, ...) */
        EeModel *clf = ee_mx_model(prhs[0], "classifier");
        static const char *const heads[] = {"flat", "token"};
        EeHead head = o[O_HEAD].value ? (EeHead)(1 + ee_mx_choice(o[O_HEAD].value, "'head'", heads, 2))
                                      : EE_HEAD_FLAT;
        if (ee_model_config(clf)->head != EE_HEAD_CLASSIFIER)
            ee_mx_error("ee:badModel", "the first argument is an explainer; pass the classifier it should explain");
        int seed = o[O_SEED].value ? ee_mx_int(o[O_SEED].value, "'seed'", 0, 0x7fffffff) : 1;
        for (int k = O_D; k <= O_KIND; k++)
            if (o[k].value)
                ee_mx_error("ee:badInput", "'%s' does not apply to an explainer: its kind and sizes are the classifier's",
                            opt_names[k]);
        model_fingerprint(clf, fingerprint, sizeof fingerprint);
        EeConfig ecfg = *ee_model_config(clf);
        ecfg.head = head;
        ee_mx_budget(ee_model_bytes(&ecfg), "the explainer's weights");
        if ((st = ee_model_make_explainer(clf, head, (uint64_t)seed, &m))) ee_mx_fail(st);
        ee_mx_defer((void (*)(void *))ee_model_free, m);
        cfg = *ee_model_config(m);
        read_inputs(prhs[1], "X", &cfg, &train.in);
        train.maps = ee_mx_maps(prhs[2], "A", train.in.n, cfg.T);
    } else {
        if (o[O_HEAD].value) ee_mx_error("ee:badInput", "'head' applies to explainers (first argument a trained classifier)");
        read_spec(prhs[0], o, &cfg);
        /* sizes from the data where the spec leaves them open */
        if (cfg.kind == EE_KIND_MLP) {
            if (!(mxIsSingle(prhs[1]) || mxIsDouble(prhs[1])) || mxGetNumberOfDimensions(prhs[1]) != 2)
                ee_mx_error("ee:badInput", "X of an mlp must be a single or double N x D matrix");
            cfg.D = (int)mxGetN(prhs[1]);
        } else {
            if (mxGetNumberOfDimensions(prhs[1]) != 2)
                ee_mx_error("ee:badInput", "X must be an N x T int32 matrix of token ids");
            cfg.T = (int)mxGetN(prhs[1]);
        }
        int vocab_given = cfg.vocab > 0;
        read_inputs(prhs[1], "X", &cfg, &train.in);
        if (cfg.kind != EE_KIND_MLP && !vocab_given) {
            int mx = 0;
            for (size_t k = 0; k < (size_t)train.in.n * cfg.T; k++)
                if (train.in.ids[k] + 1 > mx) mx = train.in.ids[k] + 1;
            cfg.vocab = mx < 5 ? 5 : mx;
        }
        int maxlabel = 0;
        train.labels = ee_mx_labels(prhs[2], "y", train.in.n, cfg.classes, &maxlabel);
        if (cfg.classes == 0) cfg.classes = maxlabel < 2 ? 2 : maxlabel;
        if ((st = ee_config_check(&cfg))) ee_mx_fail(st);
        ee_mx_budget(ee_model_bytes(&cfg), "the model's weights");
        if ((st = ee_model_new(&cfg, &m))) ee_mx_fail(st);
        ee_mx_defer((void (*)(void *))ee_model_free, m);
    }
    EeTrainOptions topt;
    ee_train_options_defaults(&topt, cfg.kind, cfg.head);
    read_train_options(o, &topt);
    if (!explainer) ee_model_init(m, topt.seed);

    if (o[O_VALIDATION].value) {
        const mxArray *v = o[O_VALIDATION].value;
        if (!mxIsCell(v) || mxGetNumberOfElements(v) != 2)
            ee_mx_error("ee:badInput", "'validation' must be a cell {Xv, %s}", explainer ? "Av" : "yv");
        read_inputs(mxGetCell(v, 0), "validation Xv", &cfg, &valid.in);
        if (explainer) valid.maps = ee_mx_maps(mxGetCell(v, 1), "validation Av", valid.in.n, cfg.T);
        else valid.labels = ee_mx_labels(mxGetCell(v, 1), "validation yv", valid.in.n, cfg.classes, NULL);
    }
    if (!explainer) /* labels beyond the classes given in the spec */
        for (int i = 0; i < train.in.n; i++)
            if (train.labels[i] >= cfg.classes)
                ee_mx_error("ee:badInput", "y(%d) = %d exceeds 'classes' = %d", i + 1,
                            train.labels[i] + 1, cfg.classes);

    EeDevice dev;
    if ((st = ee_device_resolve(topt.device, &dev))) ee_mx_fail(st);
    /* training (gradients, Adam, activations, copies) and the returned
     * struct (a copy of every weight) */
    ee_mx_budget(ee_train_bytes(m, train.in.n, valid.in.n, &topt) + ee_model_bytes(&cfg), "training");
    EeHistory hist;
    st = ee_train(m, &train, valid.in.n ? &valid : NULL, &topt, &hist);
    if (st) ee_mx_fail(st);
    ee_mx_defer(history_free, &hist);

    mxArray *out = ee_mx_model_struct(m);
    ee_mx_set(out, "format", mxCreateString("ee-model-1"));
    ee_mx_set(out, "settings", settings_struct(&topt, dev));
    ee_mx_set(out, "history", history_struct(&hist, !explainer));
    if (explainer) {
        /* what the explainer imitates: the caller's description (method,
         * steps, ...) plus the fingerprint of the classifier's weights */
        const mxArray *d = o[O_EXPLAINS].value;
        if (d && (!mxIsStruct(d) || mxGetNumberOfElements(d) != 1))
            ee_mx_error("ee:badInput", "'explains' must be a scalar struct (method, steps, ...)");
        mxArray *e = d ? mxDuplicateArray(d) : mxCreateStructMatrix(1, 1, 0, NULL);
        ee_mx_set(e, "classifier", mxCreateString(fingerprint));
        ee_mx_set(out, "explains", e);
    } else if (o[O_EXPLAINS].value) {
        ee_mx_error("ee:badInput", "'explains' applies to explainers (first argument a trained classifier)");
    }
    plhs[0] = out;
    ee_mx_cleanup();
}
