/* kept_models.c: the models a front end loads on every call, kept between
 * calls. An Octave session that calls ee_explain (E, X) again and again
 * hands the gateway the same structs each time; loading them (every
 * weight checked and transposed into the internal order, into fresh
 * memory) and fingerprinting the classifier twice took 8.7 ms of a call
 * of 34 ms on 150 glosses (issue 19).
 *
 * An entry keeps the model, its configuration and a copy of the weights
 * as the source held them. A source is the entry's when its configuration
 * (read and checked as ee_model_load reads it, fields and dims included)
 * is the same bytes and every weight is the same bits (memcmp of 11 MB,
 * split between the threads); anything else loads afresh. So a changed
 * weight, field or size never reads an entry, whatever the source's
 * addresses are (Octave writes an array in place when nothing else
 * shares it).
 *
 * A kept model is shared by every caller that acquires it: none may write
 * it (the front ends only read their models). Its fingerprint is computed
 * once (ee_model_freeze). The entries hold at most KEPT_BYTES (both
 * copies) in at most KEPT_MAX models; the least recently acquired entry
 * that no one holds goes first, and a model that does not fit is handed
 * out unkept and freed on release. A mutex guards the table. */
#include "../ee_model_io.h"
#include "../models/model_impl.h"
#include "model_source.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KEPT_BYTES ((size_t)256 << 20)
#define KEPT_MAX 8

typedef struct {
    EeModel *m;
    EeConfig cfg;
    float *source;       /* the weights as the source held them, tensor after tensor */
    int users;           /* acquired and not yet released */
    unsigned long used;  /* when last acquired: the oldest goes first */
} Kept;

static Kept kept[KEPT_MAX];
static int n_kept;
static size_t kept_bytes;
static unsigned long clock_ticks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const void *tensor(const EeFieldSource *src, const EeParam *p)
{
    EeValue v;
    src->get(src->ctx, p->group[0] ? p->group : NULL, p->index, p->field, &v); /* checked by the caller */
    return v.data;
}

/* n bytes equal: memcmp, in chunks shared by the threads when n is large
 * (a glosses classifier's token table is 5 MB, compared on every call;
 * one core's memcmp reads it at well under the machine's bandwidth) */
#define SPLIT_BYTES ((size_t)1 << 20)
#define CHUNK_BYTES ((size_t)1 << 18)
static int same_bytes(const void *a, const void *b, size_t n)
{
    if (n < SPLIT_BYTES) return !memcmp(a, b, n);
    long chunks = (long)((n + CHUNK_BYTES - 1) / CHUNK_BYTES);
    int differ = 0;
#pragma omp parallel for schedule(static) reduction(| : differ)
    for (long c = 0; c < chunks; c++) {
        size_t at = (size_t)c * CHUNK_BYTES, len = n - at < CHUNK_BYTES ? n - at : CHUNK_BYTES;
        differ |= memcmp((const char *)a + at, (const char *)b + at, len) != 0;
    }
    return !differ;
}

static int same_source(const Kept *e, const EeConfig *cfg, const EeFieldSource *src)
{
    if (memcmp(&e->cfg, cfg, sizeof *cfg)) return 0;
    const float *at = e->source;
    for (int i = 0; i < e->m->np; i++) {
        const EeParam *p = &e->m->p[i];
        if (!same_bytes(tensor(src, p), at, sizeof(float) * p->count)) return 0;
        at += p->count;
    }
    return 1;
}

/* An entry's memory: the model's weights and the source's copy. */
static size_t entry_bytes(const EeModel *m) { return 2 * sizeof(float) * m->total; }

static void drop(int e) /* one that no one holds */
{
    kept_bytes -= entry_bytes(kept[e].m);
    ee_model_free(kept[e].m);
    free(kept[e].source);
    kept[e] = kept[--n_kept];
}

/* Keeps m, which the caller holds, if it fits (else it stays unkept). */
static void keep(EeModel *m, const EeConfig *cfg, const EeFieldSource *src)
{
    size_t bytes = entry_bytes(m);
    if (bytes > KEPT_BYTES / 2) return;
    float *source = malloc(sizeof(float) * (m->total ? m->total : 1));
    if (!source) return;
    float *at = source;
    for (int i = 0; i < m->np; i++) {
        memcpy(at, tensor(src, &m->p[i]), sizeof(float) * m->p[i].count);
        at += m->p[i].count;
    }
    pthread_mutex_lock(&lock);
    while (n_kept == KEPT_MAX || kept_bytes + bytes > KEPT_BYTES) {
        int oldest = -1;
        for (int e = 0; e < n_kept; e++)
            if (!kept[e].users && (oldest < 0 || kept[e].used < kept[oldest].used)) oldest = e;
        if (oldest < 0) break; /* every entry is held */
        drop(oldest);
    }
    int fits = n_kept < KEPT_MAX && kept_bytes + bytes <= KEPT_BYTES;
    if (fits) {
        Kept *e = &kept[n_kept++];
        e->m = m;
        memcpy(&e->cfg, cfg, sizeof *cfg); /* the bytes, padding included: compared with memcmp */
        e->source = source;
        e->users = 1;
        e->used = ++clock_ticks;
        kept_bytes += bytes;
        ee_model_freeze(m);
    }
    pthread_mutex_unlock(&lock);
    if (!fits) free(source);
}

EeStatus ee_model_acquire(const EeFieldSource *src, const char *what, EeModel **out)
{
    *out = NULL;
    EeConfig cfg;
    EeStatus st = ee_model_source_check(src, what, &cfg);
    if (st) return st;
    pthread_mutex_lock(&lock);
    for (int e = 0; e < n_kept; e++)
        if (same_source(&kept[e], &cfg, src)) {
            kept[e].users++;
            kept[e].used = ++clock_ticks;
            *out = kept[e].m;
            pthread_mutex_unlock(&lock);
            return EE_OK;
        }
    pthread_mutex_unlock(&lock);
    EeModel *m;
    if ((st = ee_model_source_weights(src, what, &cfg, &m))) return st;
    keep(m, &cfg, src);
    *out = m;
    return EE_OK;
}

void ee_model_release(EeModel *m)
{
    if (!m) return;
    pthread_mutex_lock(&lock);
    for (int e = 0; e < n_kept; e++)
        if (kept[e].m == m) {
            kept[e].users--;
            pthread_mutex_unlock(&lock);
            return;
        }
    pthread_mutex_unlock(&lock);
    ee_model_free(m); /* one that did not fit */
}

void ee_kept_models_clear(void)
{
    pthread_mutex_lock(&lock);
    for (int e = n_kept - 1; e >= 0; e--)
        if (!kept[e].users) drop(e);
    pthread_mutex_unlock(&lock);
}
