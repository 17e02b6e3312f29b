/* baseline_cache.c: a classifier's logits at a baseline row, and the
 * gradient of a target's logit there, kept across calls. With the pad baseline they depend only
 * on the classifier, the row's length and mask and the target, not on the
 * row's tokens: on the glosses (45 classes, lengths 4-32) the 150 test
 * rows had 125 distinct ones, and their passes were 40 % of an explainer's
 * call (issue 19). A process that explains rows of a classifier again
 * (a gateway call after the training's, or the next batch of rows) finds
 * them here instead of running them again.
 *
 * An entry is keyed by the classifier's weight fingerprint (FNV-1a of
 * every weight, with its layout), the device and precision of the passes,
 * and the baseline row, mask and target compared in full, so a changed
 * weight or another classifier never reads an entry of this one. The
 * cache holds at most CACHE_BYTES; when an entry would not fit, it is
 * emptied first. A mutex guards it: calls may come from several threads. */
#include "explainer.h"
#include "../ee_model_io.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_BYTES ((size_t)64 << 20)
#define CACHE_SLOTS 4096 /* open addressing; entries past 3/4 of it empty the cache */

typedef struct {
    uint64_t model, row; /* the classifier's key, the caller's hash of row, mask and target */
    int T, d, target, C;
    int32_t *ids;        /* T, then T mask bytes after them */
    float *grad;         /* T x d: the gradient at the embedding output (d 0: none) */
    float *z;            /* the C logits */
} Entry;

static Entry slots[CACHE_SLOTS];
static int used;
static size_t bytes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int same(const Entry *e, uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                int target, int C)
{
    return e->ids && e->model == model && e->row == row && e->T == T && e->d == d && e->target == target && e->C == C &&
           !memcmp(e->ids, ids, sizeof(int32_t) * T) && !memcmp((const uint8_t *)(e->ids + T), mask, (size_t)T);
}

static void clear_locked(void)
{
    for (int s = 0; s < CACHE_SLOTS; s++) {
        free(slots[s].ids);
        free(slots[s].grad);
        free(slots[s].z);
    }
    memset(slots, 0, sizeof slots);
    used = 0;
    bytes = 0;
}

EeStatus ee_baseline_cache_model_key(const EeModel *clf, EeDevice device, EePrecision precision, uint64_t *key)
{
    char fp[32];
    EeStatus st = ee_model_fingerprint(clf, fp, sizeof fp);
    if (st) return st;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = fp; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    h = (h ^ (uint64_t)(uint32_t)device) * 0x100000001b3ULL;
    h = (h ^ (uint64_t)(uint32_t)precision) * 0x100000001b3ULL;
    *key = h ? h : 1; /* 0 means "no cache" to the callers */
    return EE_OK;
}

int ee_baseline_cache_get(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                          int target, float *grad, float *z, int C)
{
    int hit = 0;
    pthread_mutex_lock(&lock);
    for (int s = (int)(row % CACHE_SLOTS), n = 0; slots[s].ids && n < CACHE_SLOTS; s = (s + 1) % CACHE_SLOTS, n++)
        if (same(&slots[s], model, row, ids, mask, T, d, target, C)) {
            if (d) memcpy(grad, slots[s].grad, sizeof(float) * (size_t)T * d);
            memcpy(z, slots[s].z, sizeof(float) * C);
            hit = 1;
            break;
        }
    pthread_mutex_unlock(&lock);
    return hit;
}

void ee_baseline_cache_put(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                           int target, const float *grad, const float *z, int C)
{
    size_t need = sizeof(int32_t) * T + (size_t)T + sizeof(float) * ((size_t)T * d + C);
    if (need > CACHE_BYTES) return;
    pthread_mutex_lock(&lock);
    if (bytes + need > CACHE_BYTES || used + 1 > CACHE_SLOTS * 3 / 4) clear_locked();
    int s = (int)(row % CACHE_SLOTS);
    while (slots[s].ids && !same(&slots[s], model, row, ids, mask, T, d, target, C)) s = (s + 1) % CACHE_SLOTS;
    if (!slots[s].ids) { /* a new entry (an equal one stays as it is) */
        Entry e = {model, row, T, d, target, C, malloc(sizeof(int32_t) * T + (size_t)T),
                   d ? malloc(sizeof(float) * (size_t)T * d) : NULL, malloc(sizeof(float) * C)};
        if (e.ids && (e.grad || !d) && e.z) {
            memcpy(e.ids, ids, sizeof(int32_t) * T);
            memcpy((uint8_t *)(e.ids + T), mask, (size_t)T);
            if (d) memcpy(e.grad, grad, sizeof(float) * (size_t)T * d);
            memcpy(e.z, z, sizeof(float) * C);
            slots[s] = e;
            used++;
            bytes += need;
        } else { /* no memory: the entry is not kept, nothing else changes */
            free(e.ids);
            free(e.grad);
            free(e.z);
        }
    }
    pthread_mutex_unlock(&lock);
}

void ee_baseline_cache_clear(void)
{
    pthread_mutex_lock(&lock);
    clear_locked();
    pthread_mutex_unlock(&lock);
}
