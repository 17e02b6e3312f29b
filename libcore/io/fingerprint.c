/* fingerprint.c: the weight fingerprint of the exchange format: an
 * explainer stores its classifier's (explains.classifier) and every
 * front end (the gateways, cli/ee) checks it before reading features from
 * a classifier. */
#include "../ee_model_io.h"
#include "../models/model_impl.h"
#include "model_source.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a is one multiply per byte, each waiting for the last: 8 ms for a
 * classifier of 1.4 M weights, which ee_explain fingerprints on every call
 * (a sixth of a call on 150 glosses). The last fingerprints computed are
 * kept, keyed by the weights' layout and a hash of the same weights taken
 * in 8 independent lanes (each a multiply-xor chain over 32-bit words, so
 * about 16 times faster); a key that matches gives the fingerprint
 * without the byte chain. Per thread, so that no lock is needed. */
#define FP_LANES 8
#define FP_KEPT 4
typedef struct {
    uint64_t key; /* mixes the layout and the count too */
    uint64_t fnv;
} FpEntry;
static _Thread_local FpEntry kept[FP_KEPT];
static _Thread_local int n_kept, next_slot;

static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* The key of n floats of the given layout: their 32-bit words in FP_LANES
 * interleaved FNV-style chains, mixed with the layout. */
static uint64_t lanes_key(uint64_t layout, const float *w, size_t n)
{
    uint64_t lane[FP_LANES];
    for (int l = 0; l < FP_LANES; l++) lane[l] = 0xcbf29ce484222325ULL + (uint64_t)l;
    size_t q = 0;
    for (; q + FP_LANES <= n; q += FP_LANES) /* the lanes side by side: vectorised */
        for (int l = 0; l < FP_LANES; l++) {
            uint32_t v;
            memcpy(&v, w + q + l, sizeof v);
            lane[l] = (lane[l] ^ v) * 0x100000001b3ULL;
        }
    for (; q < n; q++) {
        uint32_t v;
        memcpy(&v, w + q, sizeof v);
        lane[q % FP_LANES] = (lane[q % FP_LANES] ^ v) * 0x100000001b3ULL;
    }
    uint64_t key = mix64(layout ^ (uint64_t)n);
    for (int l = 0; l < FP_LANES; l++) key = mix64(key ^ lane[l]);
    return key;
}

/* A frozen model's fingerprint, remembered on it: a gateway's kept
 * classifier is fingerprinted twice a call (the check against the
 * explainer's explains.classifier, the kept baselines' key), and each
 * lanes key reads every weight (1.7 ms on the glosses' 5.5 MB). */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

void ee_model_freeze(EeModel *m)
{
    pthread_mutex_lock(&memo_lock);
    m->frozen = 1;
    m->fp_known = 0;
    pthread_mutex_unlock(&memo_lock);
}

static int remembered(const EeModel *m, uint64_t *h)
{
    int known = 0;
    pthread_mutex_lock(&memo_lock);
    if (m->frozen && m->fp_known) {
        *h = m->fp;
        known = 1;
    }
    pthread_mutex_unlock(&memo_lock);
    return known;
}

static void remember(const EeModel *m, uint64_t h)
{
    pthread_mutex_lock(&memo_lock);
    if (m->frozen) {
        EeModel *w = (EeModel *)m; /* the memo only: the weights stay as they are */
        w->fp = h;
        w->fp_known = 1;
    }
    pthread_mutex_unlock(&memo_lock);
}

EeStatus ee_model_fingerprint(const EeModel *m, char *out, size_t n)
{
    uint64_t h = 0;
    if (remembered(m, &h)) {
        snprintf(out, n, "%016llx", (unsigned long long)h);
        return EE_OK;
    }
    int np = ee_model_nparams(m);
    size_t total = m->total;
    uint64_t layout = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < np; i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        for (int a = 0; a < pi.ndims; a++) layout = mix64(layout ^ (uint64_t)pi.dims[a]);
        layout = mix64(layout ^ ((uint64_t)pi.ndims << 32) ^ (uint64_t)i);
    }
    /* the key reads the weights where they are (internal order, one
     * array): gathering them in exchange order is a transpose of every
     * matrix, needed only for FNV-1a on a miss */
    uint64_t key = lanes_key(layout, m->w, total);
    int found = 0;
    for (int e = 0; e < n_kept && !found; e++)
        if (kept[e].key == key) {
            h = kept[e].fnv;
            found = 1;
        }
    if (!found) {
        float *all = ee_host_alloc(sizeof(float) * (total ? total : 1));
        if (!all) return ee_fail(EE_ERR_NOMEM, "out of memory fingerprinting a model");
        size_t at = 0;
        for (int i = 0; i < np; i++) {
            EeParamInfo pi;
            ee_model_param_info(m, i, &pi);
            ee_param_get(m, i, all + at, pi.count);
            at += pi.count;
        }
        h = 0xcbf29ce484222325ULL;
        const unsigned char *b = (const unsigned char *)all;
        for (size_t k = 0; k < total * sizeof(float); k++) h = (h ^ b[k]) * 0x100000001b3ULL;
        ee_host_free(all);
        kept[next_slot] = (FpEntry){key, h};
        next_slot = (next_slot + 1) % FP_KEPT;
        if (n_kept < FP_KEPT) n_kept++;
    }
    remember(m, h);
    snprintf(out, n, "%016llx", (unsigned long long)h);
    return EE_OK;
}
