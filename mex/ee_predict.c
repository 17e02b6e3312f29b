/* ee_predict.c: MEX gateway. Class labels and logits of a classifier
 * (see ee_predict.m). */
#include "mexutils.h"

enum { O_MASK, O_BATCH, O_DEVICE, O_PRECISION, NOPT };
static const char *const opt_names[NOPT] = {"mask", "batch", "device", "precision"};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [labels, logits] = ee_predict(model, X, ...)");
    EeMxOpt o[NOPT];
    ee_mx_start("ee_predict", nlhs, nrhs, prhs, 2, opt_names, o, NOPT);
    EeModel *m = ee_mx_model(prhs[0], "model");
    const EeConfig *c = ee_model_config(m);
    if (c->head != EE_HEAD_CLASSIFIER)
        ee_mx_error("ee:badModel", "this model is an Empirical Explainer; use ee_explain");
    EeInput in = {0};
    if (c->kind == EE_KIND_MLP) {
        in.x = ee_mx_dense(prhs[1], "X", c->D, &in.n);
        if (o[O_MASK].value) ee_mx_error("ee:badInput", "'mask' applies to token models only");
    } else {
        in.ids = ee_mx_tokens(prhs[1], "X", c->T, c->vocab, &in.n);
        if (o[O_MASK].value) in.mask = ee_mx_mask(o[O_MASK].value, "'mask'", in.n, c->T);
    }
    int batch = o[O_BATCH].value ? ee_mx_int(o[O_BATCH].value, "'batch'", 1, 1 << 20) : 0;
    EeDevice dev = ee_mx_device(o[O_DEVICE].value);
    EePrecision prec = ee_mx_precision(o[O_PRECISION].value);
    int C = c->classes;
    ee_mx_budget(ee_predict_bytes(m, in.n, batch, dev) + 2.0 * in.n * C * sizeof(float) + 4.0 * in.n, "the call");
    float *logits = ee_mx_malloc(sizeof(float) * ((size_t)in.n * C + 1), "the logits");
    EeStatus st = ee_model_predict_precision(m, &in, logits, batch, dev, prec);
    if (st) ee_mx_fail(st);
    mxArray *labels = mxCreateNumericMatrix((size_t)in.n, 1, mxINT32_CLASS, mxREAL);
    int32_t *lab = mxGetData(labels);
    for (int i = 0; i < in.n; i++) lab[i] = ee_argmax(logits + (size_t)i * C, C) + 1;
    plhs[0] = labels;
    if (nlhs > 1) plhs[1] = ee_mx_single_matrix(logits, in.n, C);
    ee_mx_cleanup();
}
