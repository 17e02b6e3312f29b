/* cuda_optime.cu: the event pairs and totals behind cuda_optime.cuh. */
#include "cuda_common.cuh"
#include "cuda_backend.h"
#include "cuda_optime.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS (sizeof(EeBackend) / sizeof(void *) + 1)
#define PAIRS 4096

static int g_on = -1;
static const char *g_name[OPS];
static double g_ms[OPS];
static long g_count[OPS];
static cudaEvent_t g_ev[2 * PAIRS];
static size_t g_op[PAIRS];
static int g_used, g_open;

int eecu_optime_on(void)
{
    if (g_on < 0) {
        const char *e = getenv("EE_CUDA_OPTIME");
        g_on = e && *e && strcmp(e, "0") != 0;
    }
    return g_on;
}

void eecu_optime_name(size_t op, const char *name)
{
    size_t k = op / sizeof(void *);
    if (k < OPS) g_name[k] = name;
}

/* reads every recorded pair into the totals */
static void drain(void)
{
    if (!g_used) return;
    EECU_CK(cudaEventSynchronize(g_ev[2 * g_used - 1]));
    for (int i = 0; i < g_used; i++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, g_ev[2 * i], g_ev[2 * i + 1]) == cudaSuccess) {
            size_t k = g_op[i] / sizeof(void *);
            g_ms[k] += ms;
            g_count[k]++;
        } else {
            cudaGetLastError();
        }
    }
    g_used = 0;
}

void eecu_optime_begin(void)
{
    if (g_open++) return; /* an op inside an op (e.g. zero in attention_cls_bwd) counts to the outer */
    if (g_used == PAIRS) drain();
    if (!g_ev[2 * g_used]) {
        EECU_CK(cudaEventCreate(&g_ev[2 * g_used]));
        EECU_CK(cudaEventCreate(&g_ev[2 * g_used + 1]));
    }
    EECU_CK(cudaEventRecord(g_ev[2 * g_used], EECU_STREAM));
}

void eecu_optime_end(size_t op)
{
    if (--g_open) return;
    EECU_CK(cudaEventRecord(g_ev[2 * g_used + 1], EECU_STREAM));
    g_op[g_used++] = op;
}

extern "C" void ee_cuda_optime_report(const char *title)
{
    if (eecu_optime_on() <= 0) return;
    drain();
    double total = 0;
    for (size_t k = 0; k < OPS; k++) total += g_ms[k];
    if (!title) { /* clear only */
        memset(g_ms, 0, sizeof g_ms);
        memset(g_count, 0, sizeof g_count);
        return;
    }
    printf("  op times (%s): %.1f ms in ops\n", title, total);
    for (;;) { /* largest first */
        size_t best = OPS;
        for (size_t k = 0; k < OPS; k++)
            if (g_count[k] && (best == OPS || g_ms[k] > g_ms[best])) best = k;
        if (best == OPS) break;
        printf("    %-18s %9.2f ms %5.1f %%  %8ld calls  %8.2f us/call\n", g_name[best] ? g_name[best] : "?",
               g_ms[best], total > 0 ? 100 * g_ms[best] / total : 0, g_count[best],
               1e3 * g_ms[best] / g_count[best]);
        g_count[best] = 0;
        g_ms[best] = 0;
    }
}
