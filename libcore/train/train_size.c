/* train_size.c: the host memory ee_train (train.c) takes, for the budget
 * the gateways check before training: the run with its gradients and
 * kept activations (measured, run_size.c), Adam's two moments, the best
 * weights, the staging of a batch, the shuffled order and the history.
 * Kept beside train.c: a buffer added there belongs here too. */
#include "../models/run_size.h"

double ee_train_bytes(const EeModel *m, int n_train, int n_valid, const EeTrainOptions *o)
{
    const EeConfig *c = &m->cfg;
    EeDevice dev = o->device;
    if (dev == EE_DEVICE_AUTO) dev = ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU;
    int B = o->batch < n_train ? o->batch : n_train;
    if (B < 1) B = 1;
    double W = (double)m->total * sizeof(float), T = ee_is_token_model(c) ? c->T : 1;
    double outs = ee_config_outputs(c), D = c->kind == EE_KIND_MLP ? c->D : 1;
    double bytes = ee_run_bytes((EeModel *)m, dev, B, 1, 1);
    if (dev == EE_DEVICE_CPU) bytes += 2 * W + B * (4.0 + T * 4 + outs * 4); /* Adam, labels, maps, dout */
    bytes += n_valid > 0 ? W : 0;                                            /* best weights */
    bytes += B * (T * 4 + T + D * 4 + 4 + T * 4);                            /* host staging */
    bytes += (double)n_train * sizeof(int) + 3.0 * o->epochs * sizeof(float);
    bytes += B * (4.0 + outs * 4);                                           /* validation */
    if (o->prior_mask) /* prior.c: mask^2, g and U (host), the one-hot rows (host and run), penalties */
        bytes += D * 4 + B * (2 * D * 4 + 2 * outs * 4) + o->epochs * sizeof(float);
    return bytes;
}
