/* run_size.c: how much host memory a run and a prediction take. A run is
 * measured rather than estimated: ee_run_new builds it on a copy of the
 * CPU backend whose alloc counts the bytes asked and hands back a pointer
 * nobody may touch (a kind's alloc only allocates; nothing is written
 * before the first pass), so the count follows every change of the
 * kinds' buffers without a second formula to keep in step. */
#include "run_size.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local double counted;
static char untouchable[64];

static void *count_alloc(size_t bytes)
{
    counted += (double)bytes;
    return untouchable;
}
static void count_release(void *p) { (void)p; }

double ee_run_bytes(EeModel *m, EeDevice dev, int Bmax, int keep, int with_grads)
{
    if (dev == EE_DEVICE_GPU) return 0;
    EeBackend be = *ee_backend_cpu();
    be.alloc = be.alloc_scratch = count_alloc;
    be.release = count_release;
    counted = 0;
    EeRun *r = NULL;
    if (ee_run_new(m, &be, Bmax, keep, with_grads, &r)) return 1e300; /* cannot even be described */
    ee_run_free(r);
    const EeConfig *c = &m->cfg;
    double staging = ee_is_token_model(c) ? (double)(Bmax < 1 ? 1 : Bmax) * c->T * 5 : 0;
    return counted + staging + 4096.0 * 8; /* the kind's small host structs */
}

double ee_model_bytes(const EeConfig *cfg)
{
    EeModel *shell = calloc(1, sizeof *shell);
    if (!shell) return 1e300;
    shell->cfg = *cfg;
    ee_kind_ops(cfg->kind)->register_params(shell);
    double bytes = shell->overflow ? 1e300 : (double)shell->total * sizeof(float) + sizeof *shell;
    free(shell);
    return bytes;
}

double ee_predict_bytes(const EeModel *m, int n, int batch, EeDevice dev)
{
    if (n <= 0) return 0;
    if (dev == EE_DEVICE_AUTO) dev = ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU;
    if (dev == EE_DEVICE_GPU) return 0; /* the passes live on the device */
    /* the CPU's automatic batch of ee_model_predict (model.c) */
    const EeConfig *c = &m->cfg;
    int B = batch > 0 ? batch : !ee_is_token_model(c) ? 1024 : c->kind == EE_KIND_TRANSFORMER ? 64 : 256;
    if (B > n) B = n;
    return ee_run_bytes((EeModel *)m, dev, B, 0, 0);
}
