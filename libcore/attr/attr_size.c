/* attr_size.c: the host memory the samplers (ig.c, sv.c) take, for the
 * budget the gateways check before they start: the run (measured,
 * run_size.c), the per-group or per-sequence buffers and the per-thread
 * scratch of the CPU paths. Kept beside ig.c and sv.c: a buffer added
 * there belongs here too. */
#include "attr_common.h"
#include "../models/run_size.h"

static EeDevice resolve(EeDevice d) { return d != EE_DEVICE_AUTO ? d : ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU; }

/* the samplers' host-side paths run where the backend's memory is the host's */
static int host_memory(EeDevice dev)
{
    const EeBackend *be = ee_backend_for(dev);
    return be && be->host_memory;
}

static double threads(void) { return ee_threads_count() > 0 ? ee_threads_count() : 1; }

double ee_ig_bytes(const EeModel *m, int n, const EeAttrOptions *o)
{
    const EeConfig *c = &m->cfg;
    EeDevice dev = resolve(o->device);
    int token = ee_is_token_model(c), s = o->method == EE_IG_XGRAD || o->method == EE_IG_GRADXINPUT ? 1 : o->steps;
    double T = token ? c->T : 1, Wd = token ? (double)c->T * c->d : c->D, C = c->classes, N = n;
    if (s < 1 || n < 1) return 0;
    /* ig_ordered's sorted copies of the inputs and results */
    double bytes = token ? N * (T * 13 + 28) : 0;
    if (c->kind == EE_KIND_CNN && host_memory(dev) && c->classes <= 64 && !o->full_passes) {
        double KF = (double)c->nwidths * c->filters;
        double per = 4 * Wd * 4 + 2 * T * KF * 4 + T * c->filters * 4 + 3 * KF * 4 + T * 5;
        return bytes + threads() * (per + 64.0 * 1024); /* + a packing strip per thread */
    }
    int R = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    int G = R / s > 0 ? R / s : 1;
    if (G > n) G = n;
    if (R > G * s) R = G * s;
    int Bmax = R > 2 * G ? R : 2 * G;
    bytes += ee_run_bytes((EeModel *)m, dev, Bmax, 1, 0);
    if (host_memory(dev)) bytes += 4 * G * Wd * 4 + Bmax * (C * 4 + 12); /* ex eb diff acc, dout, nodes */
    bytes += Bmax * (12 + T * 5 + 2 * C * 4) + 2 * G * Wd * 4 + 12 * N;      /* host staging */
    return bytes;
}

double ee_sv_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int exact)
{
    const EeConfig *c = &m->cfg;
    if (!ee_is_token_model(c) || in->n < 1) return 0;
    EeDevice dev = resolve(o->device);
    int T = c->T, s = exact ? 1 : o->steps;
    double N = in->n, C = c->classes, d = c->d;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    double nmax = 0, rows = N;
    for (int i = 0; i < in->n; i++) {
        int k = ee_count_real(in->ids + (size_t)i * T, T);
        if (k > nmax) nmax = k;
        rows += 1 + (double)s * k;
    }
    if (exact) rows = N * 4096;
    if (B > rows) B = (int)rows;
    if (B < 2) B = 2;
    double bytes = ee_run_bytes((EeModel *)m, dev, B, 0, 0);
    bytes += N * 16 + (double)B * (T * 5 + C * 4 + 8) + T * 5;
    if (exact) return bytes + 4096 * 8;
    /* sequences in flight: at most one per row of a batch, and one more */
    double inflight = N < B + 1 ? N : B + 1;
    double per = (nmax + 1) * 4 + 2 * ((double)s * nmax + 1) * 4;
    if (c->kind == EE_KIND_TRANSFORMER && host_memory(dev) && !o->full_passes && c->layers > 1)
        per += 8.0 * T * d * 4 + 2.0 * T * 5; /* embeddings and layer-0 q, k, v of input and baseline */
    bytes += inflight * per;
    if (c->kind == EE_KIND_CNN && host_memory(dev) && !o->full_passes) {
        double wmax = 1, KF = (double)c->nwidths * c->filters;
        for (int k = 0; k < c->nwidths; k++) if (c->widths[k] > wmax) wmax = c->widths[k];
        double seq = T * d * 4 + T * KF * 4 + (T > wmax ? T : wmax) * wmax * d * 4 + T * 5;
        bytes += seq + threads() * (T * d * 4 + T * KF * 4 + wmax * wmax * d * 4);
    }
    return bytes;
}
