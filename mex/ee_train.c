/* ee_train.c: MEX gateway. Trains a classifier from class labels, or an
 * Empirical Explainer from attribution maps (see ee_train.m). */
#include "mexfeat.h"
#include "mextext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    O_VALIDATION, O_EPOCHS, O_LR, O_BATCH, O_PATIENCE, O_SEED, O_DROPOUT, O_SCHEDULE, O_DEVICE, O_PRECISION,
    O_VERBOSE, O_D, O_HEADS, O_LAYERS, O_FFN, O_FILTERS, O_WIDTHS, O_HIDDEN, O_BIAS, O_CLASSES,
    O_VOCAB, O_KIND, O_FREEZE,
    /* explainers only */
    O_HEAD, O_EXPLAINS, O_DESIGN, O_INPUTS, O_ATTEND, O_OUTPUTS, O_EFFICIENCY, O_STANDARDIZE, O_STEPS,
    O_LOSS, O_COALITIONS, O_MARGIN,
    /* classifiers only */
    O_PRIOR, NOPT
};
static const char *const opt_names[NOPT] = {
    "validation", "epochs", "lr", "batch", "patience", "seed", "dropout", "schedule", "device", "precision",
    "verbose", "d", "heads", "layers", "ffn", "filters", "widths", "hidden", "bias", "classes",
    "vocab", "kind", "freeze", "head", "explains", "design", "inputs", "attend", "outputs", "efficiency", "standardize", "steps",
    "loss", "coalitions", "margin", "prior"};

/* A size may come from the spec struct or from a name/value option. */
static const mxArray *size_field(const mxArray *spec, const EeMxOpt *o, int k)
{
    if (o[k].value) return o[k].value;
    if (spec && mxIsStruct(spec)) return mxGetField(spec, 0, opt_names[k]);
    return NULL;
}

static void read_spec(const mxArray *spec, const EeMxOpt *o, EeConfig *c)
{
    const char *const *kinds = ee_kind_names;
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
    int k = ee_mx_choice(kind ? kind : kopt, "kind", kinds, EE_KIND_COUNT);
    if (kind && kopt) {
        int ko = ee_mx_choice(kopt, "'kind'", kinds, EE_KIND_COUNT);
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
    /* classes and vocab: a size, or the names / words themselves (stored by store_words) */
    if ((v = size_field(spec, o, O_CLASSES)))
        c->classes = mxIsCell(v) ? ee_mx_names(v, "classes", 2) : ee_mx_int(v, "classes", 2, 100000);
    if ((v = size_field(spec, o, O_VOCAB)))
        c->vocab = mxIsCell(v) ? ee_vocab_size(ee_mx_vocab(v, "vocab", "ee:badInput"))
                               : ee_mx_int(v, "vocab", 5, 1 << 24);
}

/* Class names and vocabulary words given as cells are kept in the model
 * (class_names, vocab_words: doc/MODEL_FORMAT.md); an explainer keeps its
 * classifier's. */
static void store_words(mxArray *out, const mxArray *src, const EeMxOpt *o, int explainer)
{
    const mxArray *v;
    if (explainer) {
        if ((v = mxGetField(src, 0, "vocab_words"))) ee_mx_set(out, "vocab_words", mxDuplicateArray(v));
        if ((v = mxGetField(src, 0, "class_names"))) ee_mx_set(out, "class_names", mxDuplicateArray(v));
        return;
    }
    if ((v = size_field(src, o, O_VOCAB)) && mxIsCell(v)) ee_mx_set(out, "vocab_words", ee_mx_words_row(v));
    if ((v = size_field(src, o, O_CLASSES)) && mxIsCell(v)) ee_mx_set(out, "class_names", ee_mx_words_row(v));
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
    if ((v = o[O_SCHEDULE].value))
        t->schedule = (EeSchedule)ee_mx_choice(v, "'schedule'", ee_schedule_names, EE_SCHEDULE_COUNT);
    if ((v = o[O_STANDARDIZE].value)) t->standardize = ee_mx_bool(v, "'standardize'");
    if ((v = o[O_FREEZE].value)) t->freeze_embeddings = ee_mx_choice(v, "'freeze'", ee_freeze_names, EE_FREEZE_COUNT);
    t->device = ee_mx_device(o[O_DEVICE].value);
    t->precision = ee_mx_precision(o[O_PRECISION].value);
    t->print = ee_mx_print;
}

/* What the caller named of the explainer's design ('design', 'head',
 * 'inputs', 'attend', 'outputs', 'efficiency', 'margin', 'layers'); libcore decides the rest
 * (ee_explainer_design) once the maps are known. */
static void read_design(const EeMxOpt *o, EeExplainerChoices *c)
{
    const mxArray *v;
    ee_explainer_choices_init(c);
    if ((v = o[O_DESIGN].value)) c->design = (EeDesign)ee_mx_choice(v, "'design'", ee_design_names, EE_DESIGN_COUNT);
    if ((v = o[O_HEAD].value)) /* the explainer heads: those after the classifier's */
        c->head = EE_HEAD_FLAT + ee_mx_choice(v, "'head'", ee_head_names + EE_HEAD_FLAT, EE_HEAD_COUNT - EE_HEAD_FLAT);
    if ((v = o[O_INPUTS].value)) c->inputs = ee_mx_choice(v, "'inputs'", ee_inputs_names, EE_INPUTS_COUNT);
    if ((v = o[O_ATTEND].value)) c->attend = ee_mx_choice(v, "'attend'", ee_attend_names, EE_ATTEND_COUNT);
    if ((v = o[O_OUTPUTS].value)) c->outputs = ee_mx_choice(v, "'outputs'", ee_outputs_names, EE_OUTPUTS_COUNT);
    if ((v = o[O_EFFICIENCY].value)) c->efficiency = ee_mx_bool(v, "'efficiency'");
    if ((v = o[O_MARGIN].value)) c->margin = ee_mx_bool(v, "'margin'");
    if ((v = o[O_LAYERS].value)) c->layers = ee_mx_int(v, "'layers'", 1, 64);
}

/* Attribution maps of X for an explainer: given (N x T), or computed here
 * when A names a method of libcore's table (ee_map_method_maps: 'ig',
 * Gauss-Legendre IG with the pad baseline; 'sv', Shapley Value Sampling,
 * seed 1; the methods of ee_gradient but gradientshap, which needs a
 * background, with its defaults; occlusion, kernelshap, lime with their
 * gateways' defaults), with 'steps' samples for ig, sv (default 20),
 * kernelshap and lime (coalitions per row, default 2 n + 2048). *method
 * gets 0 (given) or 1 + its index in ee_map_method_names. */
static float *explainer_maps(EeModel *clf, const mxArray *A, const EeInput *in, const char *what,
                             const EeMxOpt *o, int verbose, int *method)
{
    const EeConfig *c = ee_model_config(clf);
    if (!mxIsChar(A)) {
        if (o[O_STEPS].value) ee_mx_error("ee:badInput", "'steps' applies when ee_train computes the maps ('ig' or 'sv')");
        *method = 0;
        return ee_mx_maps(A, what, in->n, c->T);
    }
    int k = ee_mx_choice(A, what, ee_map_method_names, EE_MAP_METHOD_COUNT);
    *method = 1 + k;
    if (c->kind == EE_KIND_MLP) /* its maps are N x D; the explainers read tokens (T = 0 here) */
        ee_mx_error("ee:notSupported", "ee_train computes maps for explainers of token classifiers, not of an mlp "
                    "(ee_train (@f, X, ...) explains a function of feature vectors)");
    long max = ee_map_method_max_samples(k), samples = 0;
    if (!max && o[O_STEPS].value)
        ee_mx_error("ee:badInput", "'steps' applies when ee_train computes IG, SV, KernelSHAP or LIME maps, not %s",
                    ee_map_method_names[k]);
    if (o[O_STEPS].value) samples = ee_mx_int(o[O_STEPS].value, "'steps'", 1, (int)max);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.verbose = verbose;
    a.print = ee_mx_print;
    a.device = ee_mx_device(o[O_DEVICE].value);
    a.precision = ee_mx_precision(o[O_PRECISION].value);
    float *maps = ee_mx_malloc(sizeof(float) * ((size_t)in->n * c->T + 1), "the maps");
    ee_mx_budget(ee_map_method_bytes(clf, k, in, &a, samples), "the maps");
    EeStatus st = ee_map_method_maps(clf, k, in, &a, samples, maps, NULL);
    if (st) ee_mx_fail(st);
    return maps;
}

/* 'loss', 'shapley_kernel' named (else 'mse'). */
static int kernel_loss(const EeMxOpt *o)
{
    static const char *const losses[] = {"mse", "shapley_kernel"};
    return o[O_LOSS].value ? ee_mx_choice(o[O_LOSS].value, "'loss'", losses, 2) : 0;
}

/* 'loss', 'shapley_kernel' (A must be 'sv'): no maps for X; instead K
 * ('coalitions', default 32) coalitions per row drawn from the Shapley
 * kernel (seed 1, or 'seed') and their values from masked classifier
 * passes (ee_kernel_values), into *kt. Returns 1 when the loss is the
 * kernel's, 0 for 'mse' (the default), which takes no 'coalitions'. */
static int kernel_targets(EeModel *clf, const mxArray *A, const EeInput *in, const EeMxOpt *o, int verbose,
                          EeKernelTargets *kt)
{
    if (!kernel_loss(o)) {
        if (o[O_COALITIONS].value) ee_mx_error("ee:badInput", "'coalitions' applies to 'loss', 'shapley_kernel'");
        return 0;
    }
    if (!mxIsChar(A) || ee_mx_choice(A, "A", (const char *const[]){"sv", "ig"}, 2) != 0)
        ee_mx_error("ee:badInput", "'loss', 'shapley_kernel' trains a Shapley explainer: A must be 'sv'");
    const EeConfig *c = ee_model_config(clf);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.verbose = verbose;
    a.print = ee_mx_print;
    a.seed = o[O_SEED].value ? (uint64_t)ee_mx_int(o[O_SEED].value, "'seed'", 0, 0x7fffffff) : 1;
    a.device = ee_mx_device(o[O_DEVICE].value);
    a.precision = ee_mx_precision(o[O_PRECISION].value);
    kt->K = o[O_COALITIONS].value ? ee_mx_int(o[O_COALITIONS].value, "'coalitions'", 1, 1 << 16) : 32;
    kt->words = ee_kernel_words(c->T);
    size_t cells = (size_t)in->n * kt->K;
    ee_mx_budget((double)cells * (kt->words * sizeof(uint64_t) + sizeof(float)), "the coalitions");
    kt->coal = ee_mx_malloc(sizeof(uint64_t) * (cells * kt->words + 1), "the coalitions");
    kt->value = ee_mx_malloc(sizeof(float) * (cells + 1), "the coalition values");
    kt->total = ee_mx_malloc(sizeof(float) * ((size_t)in->n + 1), "the coalition values");
    EeStatus st = ee_kernel_values(clf, in, &a, kt, 1);
    if (st) ee_mx_fail(st);
    return 1;
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
    if (h->prior_penalty) ee_mx_set(s, "prior_penalty", epoch_row(h->prior_penalty, n));
    return s;
}

static mxArray *settings_struct(const EeTrainOptions *t, EeDevice dev, int explainer)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_set(s, "epochs", mxCreateDoubleScalar(t->epochs));
    ee_mx_set(s, "lr", mxCreateDoubleScalar(t->lr));
    ee_mx_set(s, "schedule", mxCreateString(ee_schedule_names[t->schedule]));
    ee_mx_set(s, "freeze", mxCreateString(ee_freeze_names[t->freeze_embeddings]));
    if (explainer) ee_mx_set(s, "standardize", mxCreateLogicalScalar(t->standardize != 0));
    ee_mx_set(s, "batch", mxCreateDoubleScalar(t->batch));
    ee_mx_set(s, "patience", mxCreateDoubleScalar(t->patience));
    ee_mx_set(s, "seed", mxCreateDoubleScalar((double)t->seed));
    ee_mx_set(s, "dropout", mxCreateDoubleScalar(t->dropout));
    ee_mx_set(s, "device", mxCreateString(ee_device_names[dev == EE_DEVICE_GPU ? EE_DEVICE_GPU : EE_DEVICE_CPU]));
    if (t->prior_mask) ee_mx_set(s, "prior_weight", mxCreateDoubleScalar(t->prior_weight));
    return s;
}

static void history_free(void *p) { ee_history_free(p); }

/* 'prior', struct('mask', M, 'weight', lambda): M has D elements (any
 * shape, read in column-major order like a row of X, so a 28 x 28 image
 * mask of an upright image works as it is), lambda a scalar >= 0. Whether
 * the model can take a prior is libcore's decision (ee:notSupported). */
static void read_prior(const mxArray *v, const EeConfig *c, EeTrainOptions *t)
{
    if (!mxIsStruct(v) || mxGetNumberOfElements(v) != 1)
        ee_mx_error("ee:badInput", "'prior' must be a struct with fields mask and weight");
    for (int f = 0; f < mxGetNumberOfFields(v); f++) {
        const char *name = mxGetFieldNameByNumber(v, f);
        if (strcmp(name, "mask") && strcmp(name, "weight"))
            ee_mx_error("ee:badInput", "unknown field '%s' of 'prior' (mask, weight)", name);
    }
    const mxArray *m = mxGetField(v, 0, "mask"), *w = mxGetField(v, 0, "weight");
    if (!m || !w) ee_mx_error("ee:badInput", "'prior' needs the fields mask and weight");
    if (c->kind != EE_KIND_MLP)
        ee_mx_error("ee:notSupported", "'prior' needs a bias-free mlp (its X-Gradient is IG), not a %s",
                    ee_kind_name(c->kind));
    if (!(mxIsDouble(m) || mxIsSingle(m)) || mxIsComplex(m) || mxIsSparse(m) ||
        mxGetNumberOfElements(m) != (size_t)c->D)
        ee_mx_error("ee:badInput", "the prior's mask must be real single or double with D = %d elements, got %zu",
                    c->D, (size_t)mxGetNumberOfElements(m));
    double lambda = ee_mx_scalar(w, "the prior's weight");
    if (!(lambda >= 0) || !isfinite(lambda))
        ee_mx_error("ee:badInput", "the prior's weight must be finite and >= 0, got %g", lambda);
    float *mask = ee_mx_malloc(sizeof(float) * (size_t)c->D, "the prior's mask");
    for (int j = 0; j < c->D; j++) {
        double q = mxIsDouble(m) ? mxGetPr(m)[j] : ((const float *)mxGetData(m))[j];
        if (!isfinite(q)) ee_mx_error("ee:badInput", "the prior's mask has NaN or Inf at %d", j + 1);
        mask[j] = (float)q;
    }
    t->prior_mask = mask;
    t->prior_weight = (float)lambda;
}

/* The trained explainer m on the check's rows (the validation rows, else
 * the first EE_CHECK_ROWS training rows) against their maps, a map of
 * zeros, and, where ee_train computed the maps with IG or a Shapley
 * method, the same method at s = 1 (SV with one permutation of another
 * seed than the maps'; IG with one node): history.check, and
 * ee:weakExplainer (after the call's cleanup) when m loses to either. */
#define EE_CHECK_ROWS 512
static mxArray *explainer_check(EeModel *m, EeModel *clf, const EeConfig *cfg, const EeInput *rows, int on_valid,
                                const float *maps, int maps_method, const EeMxOpt *o, EeMxCheck *chk)
{
    EeInput in = *rows;
    if (!on_valid && in.n > EE_CHECK_ROWS) in.n = EE_CHECK_ROWS;
    int T = cfg->T;
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.verbose = 0;
    a.device = ee_mx_device(o[O_DEVICE].value);
    a.precision = ee_mx_precision(o[O_PRECISION].value);
    float *E = ee_mx_malloc(sizeof(float) * ((size_t)in.n * T + 1), "the check");
    EeStatus st = ee_explain(&m, 1, ee_config_reads_classifier(cfg) ? clf : NULL, &in, &a, E, NULL);
    if (st) ee_mx_fail(st);
    float *S = NULL;
    int k = maps_method ? maps_method - 1 : -1;
    const char *what = "";
    if (k == EE_MAP_IG || k == EE_MAP_SV || k == EE_MAP_KERNELSHAP) {
        int sv = k != EE_MAP_IG;
        S = ee_mx_malloc(sizeof(float) * ((size_t)in.n * T + 1), "the check");
        a.seed = 0x5eed; /* (the maps' SV runs use seed 1) */
        if ((st = ee_map_method_maps(clf, sv ? EE_MAP_SV : EE_MAP_IG, &in, &a, 1, S, NULL))) ee_mx_fail(st);
        what = sv ? "SV at s = 1" : "IG at s = 1";
    }
    return ee_mx_check_struct(E, maps, S, in.n, T, on_valid ? "validation" : "training", what, chk);
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 3)
        ee_mx_error("ee:badInput", "usage: model = ee_train(spec, X, y, ...), expl = ee_train(model, X, A, ...) or expl = ee_train(@f, X, METHOD | A, ...)");
    if (nlhs > 1) ee_mx_error("ee:badInput", "ee_train returns one output");
    if (mxIsClass(prhs[0], "function_handle")) { /* expl = ee_train (@f, X, METHOD | A, ...): mexfeat.c */
        ee_mx_train_fn(nlhs, plhs, nrhs, prhs);
        return;
    }
    ee_mx_begin();
    EeMxOpt o[NOPT];
    ee_mx_parse_options(opt_names, nrhs, prhs, 3, o, NOPT);

    int explainer = ee_mx_is_model(prhs[0]);
    EeModel *m = NULL;
    char fingerprint[32] = "";
    EeConfig cfg;
    EeDataset train = {0}, valid = {0};
    EeKernelTargets kt = {0};
    EeStatus st;
    EeModel *clf = NULL;
    EeExplainerChoices choices;
    int maps_method = 0; /* explainers: 0 maps given, else 1 + the method's index in ee_map_method_names */
    if (explainer) {
        /* expl = ee_train(classifier, X, A, ...) */
        clf = ee_mx_model(prhs[0], "classifier");
        if (ee_model_config(clf)->head != EE_HEAD_CLASSIFIER)
            ee_mx_error("ee:badModel", "the first argument is an explainer; pass the classifier it should explain");
        read_design(o, &choices);
        /* a design the classifier's kind has not (e.g. the flat head on a
         * cnn) is refused before any map is computed */
        if ((st = ee_explainer_check_choices(clf, &choices, EE_MAPS_GIVEN))) ee_mx_fail(st);
        if (choices.margin && mxIsChar(prhs[2])) { /* a method named: its maps must flip with the class */
            char *name = mxArrayToString(prhs[2]);
            int k = name ? ee_map_method_find(name) : -1;
            mxFree(name);
            if (k >= 0 && !ee_map_method_signed(k))
                ee_mx_error("ee:badInput", "'margin' signs maps that flip with the explained class; %s maps do not",
                            ee_map_method_names[k]);
        }
        if (choices.margin && kernel_loss(o))
            ee_mx_error("ee:notSupported", "'margin' trains on maps signed by the classifier's class; "
                        "the loss 'shapley_kernel' trains on coalition values");
        int seed = o[O_SEED].value ? ee_mx_int(o[O_SEED].value, "'seed'", 0, 0x7fffffff) : 1;
        for (int k = O_D; k <= O_KIND; k++) /* ('layers' may keep fewer of the classifier's: read_design) */
            if (o[k].value && k != O_LAYERS)
                ee_mx_error("ee:badInput", "'%s' does not apply to an explainer: its kind and sizes are the classifier's",
                            opt_names[k]);
        ee_mx_fingerprint(clf, fingerprint, sizeof fingerprint);
        /* the classifier's config decides what the inputs look like; the
         * explainer is made once the outputs are decided from the maps */
        cfg = *ee_model_config(clf);
        read_inputs(prhs[1], "X", &cfg, &train.in);
        int verbose = o[O_VERBOSE].value ? ee_mx_bool(o[O_VERBOSE].value, "'verbose'") : 1;
        if (kernel_targets(clf, prhs[2], &train.in, o, verbose, &kt)) {
            train.kernel = &kt; /* the target-free loss: maps for the validation rows only */
            maps_method = 2;
        } else {
            train.maps = explainer_maps(clf, prhs[2], &train.in, "A", o, verbose, &maps_method);
        }
        if (o[O_VALIDATION].value) { /* {Xv, Av}, or {Xv} when the maps are computed here */
            const mxArray *v = o[O_VALIDATION].value;
            size_t nv = mxIsCell(v) ? mxGetNumberOfElements(v) : 0;
            if (!(nv == 2 || (nv == 1 && maps_method)))
                ee_mx_error("ee:badInput", "'validation' must be a cell {Xv, Av}%s", maps_method ? " or {Xv}" : "");
            read_inputs(mxGetCell(v, 0), "validation Xv", &cfg, &valid.in);
            if (nv == 2) valid.maps = ee_mx_maps(mxGetCell(v, 1), "validation Av", valid.in.n, cfg.T);
            else valid.maps = explainer_maps(clf, prhs[2], &valid.in, "A", o, verbose, &maps_method);
        }
        /* efficiency by default only for maps that sum to f(x) - f(baseline):
         * not the saliency maps and gradient x input of ee_gradient, not
         * occlusion or LIME */
        int complete = !maps_method || ee_map_method_complete(maps_method - 1);
        if (!complete && choices.efficiency == -1) choices.efficiency = 0;
        EeExplainerSpec spec;
        /* (the coalition methods' maps are read like Shapley maps) */
        EeMapsSource src = maps_method ? ee_map_method_source(maps_method - 1) : EE_MAPS_GIVEN;
        if ((st = ee_explainer_design(&choices, src, train.in.ids, train.maps, train.in.n, cfg.T, &spec)))
            ee_mx_fail(st);
        EeConfig ecfg = cfg;
        ecfg.head = spec.head;
        ecfg.inputs = spec.inputs;
        if (spec.layers) ecfg.layers = spec.layers;
        ee_mx_budget(ee_model_bytes(&ecfg), "the explainer's weights");
        if ((st = ee_explainer_new(clf, &spec, (uint64_t)seed, &m))) ee_mx_fail(st);
        ee_mx_defer((void (*)(void *))ee_model_free, m);
        cfg = *ee_model_config(m);
    } else {
        for (int k = O_HEAD; k < O_PRIOR; k++)
            if (o[k].value)
                ee_mx_error("ee:badInput", "'%s' applies to explainers (first argument a trained classifier)",
                            opt_names[k]);
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
    if (o[O_PRIOR].value) {
        if (explainer) ee_mx_error("ee:badInput", "'prior' applies to classifiers, not explainers");
        read_prior(o[O_PRIOR].value, &cfg, &topt);
    }
    if (!explainer) ee_model_init(m, topt.seed);

    if (o[O_VALIDATION].value && !explainer) {
        const mxArray *v = o[O_VALIDATION].value;
        if (!mxIsCell(v) || mxGetNumberOfElements(v) != 2)
            ee_mx_error("ee:badInput", "'validation' must be a cell {Xv, yv}");
        read_inputs(mxGetCell(v, 0), "validation Xv", &cfg, &valid.in);
        valid.labels = ee_mx_labels(mxGetCell(v, 1), "validation yv", valid.in.n, cfg.classes, NULL);
    }
    if (!explainer) /* labels beyond the classes given in the spec */
        for (int i = 0; i < train.in.n; i++)
            if (train.labels[i] >= cfg.classes)
                ee_mx_error("ee:badInput", "y(%d) = %d exceeds 'classes' = %d", i + 1,
                            train.labels[i] + 1, cfg.classes);

    EeDevice dev;
    if ((st = ee_device_resolve(topt.device, &dev)) || (st = ee_precision_check(dev, topt.precision))) ee_mx_fail(st);
    /* an explainer that reads the classifier's gradient: its features for
     * every training and validation row (one forward and backward each) */
    int nfeat = ee_config_features(&cfg);
    EeAttrInfo finfo = {0};
    if (nfeat) {
        EeAttrOptions bo; /* the passes' memory is that of IG with one step */
        ee_attr_options_defaults(&bo);
        bo.device = topt.device;
        bo.steps = 1;
        ee_mx_budget(ee_ig_bytes(clf, train.in.n, &bo) +
                     (double)(train.in.n + valid.in.n) * cfg.T * nfeat * sizeof(float), "the explainer's features");
        float *F[2];
        if ((st = ee_explainer_train_features(clf, &cfg, &train, &valid, &topt, F, &finfo))) ee_mx_fail(st);
        for (int k = 0; k < 2; k++) ee_mx_defer(free, F[k]);
    }
    /* the maps as the explained class's (the check compares ee_explain's
     * output with them; a margin explainer trains on signed copies) */
    const EeDataset *chk_set = valid.in.n ? &valid : &train;
    const float *chk_maps = chk_set->maps;
    /* a margin explainer trains on the maps signed toward the second class */
    EeAttrInfo minfo = {0};
    if (explainer && cfg.margin) {
        EeDataset *sets[2] = {&train, &valid};
        for (int q = 0; q < 2; q++) {
            float *signed_maps = NULL;
            if ((st = ee_explainer_margin_maps(clf, sets[q], &topt, &signed_maps, &minfo))) ee_mx_fail(st);
            if (!signed_maps) continue;
            ee_mx_defer(free, signed_maps);
            sets[q]->maps = signed_maps;
        }
    }
    /* training (gradients, Adam, activations, copies) and the returned
     * struct (a copy of every weight) */
    ee_mx_budget(ee_train_bytes(m, train.in.n, valid.in.n, &topt) + ee_model_bytes(&cfg), "training");
    EeHistory hist;
    st = ee_train(m, &train, valid.in.n ? &valid : NULL, &topt, &hist);
    if (st) ee_mx_fail(st);
    ee_mx_defer(history_free, &hist);

    EeMxCheck chk = {0};
    mxArray *check = explainer && chk_maps ? explainer_check(m, clf, &cfg, &chk_set->in, chk_set == &valid, chk_maps, maps_method, o, &chk) : NULL;

    mxArray *out = ee_mx_model_struct(m);
    ee_mx_set(out, "format", mxCreateString("ee-model-1"));
    ee_mx_set(out, "settings", settings_struct(&topt, dev, explainer));
    mxArray *hs = history_struct(&hist, !explainer);
    if (check) ee_mx_set(hs, "check", check);
    if (nfeat) { /* what the features cost (part of the explainer's training) */
        ee_mx_set(hs, "feature_passes", mxCreateDoubleScalar((double)(finfo.forward + finfo.backward)));
        ee_mx_set(hs, "feature_seconds", mxCreateDoubleScalar(finfo.seconds));
    }
    if (explainer && cfg.margin) { /* the classifier's pass per row that signs its map */
        ee_mx_set(hs, "margin_passes", mxCreateDoubleScalar((double)minfo.forward));
        ee_mx_set(hs, "margin_seconds", mxCreateDoubleScalar(minfo.seconds));
    }
    if (kt.K) { /* what the coalition values cost (part of the explainer's training) */
        ee_mx_set(hs, "coalition_passes", mxCreateDoubleScalar((double)kt.passes));
        ee_mx_set(hs, "coalition_seconds", mxCreateDoubleScalar(kt.seconds));
        mxArray *set = mxGetField(out, 0, "settings");
        ee_mx_set(set, "loss", mxCreateString("shapley_kernel"));
        ee_mx_set(set, "coalitions", mxCreateDoubleScalar(kt.K));
    }
    ee_mx_set(out, "history", hs);
    store_words(out, prhs[0], o, explainer);
    if (explainer && ee_config_reads_classifier(&cfg)) /* its features' or baseline's classifier */
        ee_mx_set(out, "classifier", mxDuplicateArray(prhs[0]));
    if (explainer) {
        /* what the explainer imitates: the caller's description (method,
         * steps, ...) plus the fingerprint of the classifier's weights */
        const mxArray *d = o[O_EXPLAINS].value;
        if (d && (!mxIsStruct(d) || mxGetNumberOfElements(d) != 1))
            ee_mx_error("ee:badInput", "'explains' must be a scalar struct (method, steps, ...)");
        mxArray *e = d ? mxDuplicateArray(d) : mxCreateStructMatrix(1, 1, 0, NULL);
        if (maps_method && !d) { /* the maps were computed here: say how (libcore's defaults) */
            ee_mx_set(e, "method", mxCreateString(ee_map_method_names[maps_method - 1]));
            const char *names[8];
            double values[8];
            long samples = o[O_STEPS].value ? (long)mxGetScalar(o[O_STEPS].value) : 0;
            int n = ee_map_method_settings(maps_method - 1, samples, names, values);
            for (int i = 0; i < n; i++) ee_mx_set(e, names[i], mxCreateDoubleScalar(values[i]));
        }
        ee_mx_set(e, "classifier", mxCreateString(fingerprint));
        ee_mx_set(out, "explains", e);
    } else if (o[O_EXPLAINS].value) {
        ee_mx_error("ee:badInput", "'explains' applies to explainers (first argument a trained classifier)");
    }
    plhs[0] = out;
    ee_mx_cleanup();
    ee_mx_check_warn(&chk);
}
