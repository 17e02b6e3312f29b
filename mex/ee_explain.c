/* ee_explain.c: MEX gateway. Attribution maps predicted by an Empirical
 * Explainer in one forward pass (see ee_explain.m). */
#include "mexutils.h"

enum { O_BATCH, O_DEVICE, NOPT };
static const char *const opt_names[NOPT] = {"batch", "device"};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_explain(explainer, X, ...)");
    if (nlhs > 2) ee_mx_error("ee:badInput", "ee_explain returns at most two outputs");
    ee_mx_begin();
    EeMxOpt o[NOPT];
    ee_mx_parse_options(opt_names, nrhs, prhs, 2, o, NOPT);
    EeModel *m = ee_mx_model(prhs[0], "explainer");
    const EeConfig *c = ee_model_config(m);
    if (c->head == EE_HEAD_CLASSIFIER)
        ee_mx_error("ee:badModel", "this model is a classifier, not an Empirical Explainer: "
                    "train one with ee_train(classifier, X, A), or explain it with ee_ig / ee_sv");
    EeInput in = {0};
    in.ids = ee_mx_tokens(prhs[1], "X", c->T, c->vocab, &in.n);
    int batch = o[O_BATCH].value ? ee_mx_int(o[O_BATCH].value, "'batch'", 1, 1 << 20) : 0;
    EeDevice dev = ee_mx_device(o[O_DEVICE].value);
    /* the passes, the maps, and the output array Octave gets */
    ee_mx_budget(ee_predict_bytes(m, in.n, batch, dev) + 2.0 * in.n * c->T * sizeof(float), "the call");
    float *A = ee_mx_malloc(sizeof(float) * ((size_t)in.n * c->T + 1), "the maps");
    double t0 = ee_now();
    EeStatus st = ee_model_predict(m, &in, A, batch, dev);
    if (st) ee_mx_fail(st);
    double secs = ee_now() - t0;
    plhs[0] = ee_mx_single_matrix(A, in.n, c->T);
    if (nlhs > 1) {
        mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
        ee_mx_set(s, "passes", mxCreateDoubleScalar(in.n));
        ee_mx_set(s, "seconds", mxCreateDoubleScalar(secs));
        plhs[1] = s;
    }
    ee_mx_cleanup();
}
