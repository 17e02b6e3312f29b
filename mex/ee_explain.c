/* ee_explain.c: MEX gateway. Attribution maps predicted by an Empirical
 * Explainer, or by an ensemble of them (the mean of their maps), in one
 * forward pass each; an explainer that reads the classifier's gradient,
 * or a margin explainer the classifier's margin at the baseline, gets it
 * from the classifier it carries (see ee_explain.m). */
#include "mexfeat.h"

#include <stdio.h>
#include <string.h>

enum { O_BATCH, O_DEVICE, O_PRECISION, NOPT };
static const char *const opt_names[NOPT] = {"batch", "device", "precision"};

static void destroy(void *p) { mxDestroyArray(p); }

/* Element j of a cell or struct array of explainers, as a scalar struct. */
static const mxArray *member(const mxArray *a, size_t j)
{
    if (mxIsCell(a)) {
        const mxArray *e = mxGetCell(a, (mwIndex)j);
        if (!e || !mxIsStruct(e) || mxGetNumberOfElements(e) != 1)
            ee_mx_error("ee:badModel", "explainer{%zu} must be a scalar model struct", j + 1);
        return e;
    }
    if (mxGetNumberOfElements(a) == 1) return a;
    int nf = mxGetNumberOfFields(a);
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_defer(destroy, s);
    for (int f = 0; f < nf; f++) {
        const mxArray *v = mxGetFieldByNumber(a, (mwIndex)j, f);
        int k = mxAddField(s, mxGetFieldNameByNumber(a, f));
        if (v) mxSetFieldByNumber(s, 0, k, mxDuplicateArray(v));
    }
    return s;
}

/* The fingerprint an explainer stores of the classifier it explains, into
 * buf ("" when absent). */
static void explained_fingerprint(const mxArray *e, char *buf, size_t n)
{
    const mxArray *x = mxGetField(e, 0, "explains");
    const mxArray *f = x && mxIsStruct(x) && mxGetNumberOfElements(x) == 1 ? mxGetField(x, 0, "classifier") : NULL;
    buf[0] = 0;
    if (f && mxIsChar(f) && mxGetNumberOfElements(f) < n) mxGetString(f, buf, (mwSize)n);
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_explain(explainer, X, ...)");
    if (ee_mx_is_feature_explainer(prhs[0])) { /* the explainer of a function handle: mexfeat.c */
        ee_mx_explain_fn(nlhs, plhs, nrhs, prhs);
        return;
    }
    EeMxOpt o[NOPT];
    ee_mx_start("ee_explain", nlhs, nrhs, prhs, 2, opt_names, o, NOPT);
    const mxArray *E = prhs[0];
    if (!(mxIsCell(E) || mxIsStruct(E)) || mxGetNumberOfElements(E) < 1)
        ee_mx_error("ee:badModel", "the first argument must be an explainer struct (from ee_train), or a "
                    "struct array / cell array of them (an ensemble), got %s", mxGetClassName(E));
    size_t K = mxGetNumberOfElements(E);
    if (K > 1024) ee_mx_error("ee:badInput", "an ensemble of %zu explainers is more than 1024", K);
    EeModel **ex = ee_mx_malloc(sizeof(EeModel *) * K, "the ensemble");
    char fp0[64] = "";
    for (size_t j = 0; j < K; j++) {
        const mxArray *e = member(E, j);
        char what[32] = "explainer";
        if (K > 1) snprintf(what, sizeof what, "explainer(%zu)", j + 1);
        ex[j] = ee_mx_model(e, what);
        if (ee_model_config(ex[j])->head == EE_HEAD_CLASSIFIER)
            ee_mx_error("ee:badModel", "this model is a classifier, not an Empirical Explainer: "
                        "train one with ee_train(classifier, X, A), or explain it with ee_ig / ee_sv");
        char fp[64];
        explained_fingerprint(e, fp, sizeof fp);
        if (j == 0) {
            snprintf(fp0, sizeof fp0, "%s", fp);
            continue;
        }
        if (fp0[0] && fp[0] && strcmp(fp0, fp))
            ee_mx_error("ee:badModel", "the explainers of an ensemble must explain the same classifier");
    }
    const EeConfig *c = ee_model_config(ex[0]);
    /* an explainer that reads the classifier's gradient (or its margin)
     * carries the classifier; it must be the one it was trained on */
    EeModel *clf = NULL;
    if (ee_config_reads_classifier(c)) {
        const mxArray *e0 = member(E, 0);
        const mxArray *cs = mxGetField(e0, 0, "classifier");
        if (!cs && !ee_config_features(c))
            ee_mx_error("ee:badModel", "explainer.classifier is missing: a margin explainer carries the "
                        "classifier whose margin at the baseline decides each map's sign");
        if (!cs)
            ee_mx_error("ee:badModel", "explainer.classifier is missing: an explainer with inputs '%s' "
                        "carries the classifier it reads its features from", ee_inputs_name(c->inputs));
        clf = ee_mx_model(cs, "explainer.classifier");
        char fp[32];
        ee_mx_fingerprint(clf, fp, sizeof fp);
        if (!fp0[0] || strcmp(fp, fp0))
            ee_mx_error("ee:badModel", "explainer.classifier is not the classifier the explainer was trained "
                        "on (weight fingerprint %s, explains.classifier %s)", fp, fp0[0] ? fp0 : "missing");
    }
    EeInput in = {0};
    in.ids = ee_mx_tokens(prhs[1], "X", c->T, c->vocab, &in.n);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.verbose = 0;
    if (o[O_BATCH].value) a.batch = ee_mx_int(o[O_BATCH].value, "'batch'", 1, 1 << 20);
    a.device = ee_mx_device(o[O_DEVICE].value);
    a.precision = ee_mx_precision(o[O_PRECISION].value);
    /* the largest pass (an explainer's, or the classifier's forward and
     * backward for the features, as IG with one step needs), the features
     * twice (in input and in length order), the maps, the output array */
    double need = 0;
    for (size_t j = 0; j < K; j++) {
        double b = ee_predict_bytes(ex[j], in.n, a.batch, a.device);
        if (b > need) need = b;
    }
    int nf = ee_config_features(c);
    if (clf) {
        EeAttrOptions one = a;
        one.steps = 1;
        double b = ee_ig_bytes(clf, in.n, &one);
        if (b > need) need = b;
    }
    need += 2.0 * in.n * c->T * nf * sizeof(float) + (2.0 + (K > 1 ? 2 : 0)) * in.n * c->T * sizeof(float);
    ee_mx_budget(need, "the call");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)in.n * c->T + 1), "the maps");
    int32_t *target = ee_mx_malloc(sizeof(int32_t) * ((size_t)in.n + 1), "the targets");
    EeAttrInfo info = {.target = target};
    double t0 = ee_now();
    EeStatus st = ee_explain(ex, (int)K, clf, &in, &a, A, &info);
    if (st) ee_mx_fail(st);
    double secs = ee_now() - t0;
    plhs[0] = ee_mx_single_matrix(A, in.n, c->T);
    if (nlhs > 1) {
        mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
        ee_mx_set(s, "passes", mxCreateDoubleScalar((double)(info.forward + info.backward)));
        ee_mx_set(s, "forward_passes", mxCreateDoubleScalar((double)info.forward));
        ee_mx_set(s, "backward_passes", mxCreateDoubleScalar((double)info.backward));
        ee_mx_set(s, "members", mxCreateDoubleScalar((double)K));
        ee_mx_set(s, "inputs", mxCreateString(ee_inputs_name(c->inputs)));
        if (clf) {
            double *tg = ee_mx_malloc(sizeof(double) * ((size_t)in.n + 1), "info.target");
            for (int i = 0; i < in.n; i++) tg[i] = target[i] + 1;
            ee_mx_set(s, "target", ee_mx_double_vector(tg, in.n));
        }
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(secs));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}
