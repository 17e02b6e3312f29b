/* memsource.h: a model struct held in memory as a list of fields, both an
 * EeFieldSink (ee_model_save writes into it) and an EeFieldSource
 * (ee_model_load reads from it), so that tests and the fuzz target can
 * damage a valid model field by field and hand it to the validating
 * loader without Octave or a file. Header-only. */
#ifndef EE_MEMSOURCE_H
#define EE_MEMSOURCE_H

#include "ee_model_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_MAX 1200

typedef struct {
    char group[16];  /* "" for top-level fields */
    int index;
    char field[16];
    EeValue v;       /* v.data owned (malloc) */
} MsField;

typedef struct {
    MsField f[MS_MAX];
    int n;
    struct { char name[16]; long len; } groups[8];
    int ngroups;
} MemSource;

static MsField *ms_find(MemSource *s, const char *group, int index, const char *field)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->f[i].group, group ? group : "") && s->f[i].index == index &&
            !strcmp(s->f[i].field, field))
            return &s->f[i];
    return NULL;
}

/* Sets (adding if needed) a field to a copy of n elements of `bytes`
 * bytes each, with the given class and dims. */
static MsField *ms_put(MemSource *s, const char *group, int index, const char *field, EeValClass cls,
                       int ndims, const size_t *dims, const void *data, size_t elsize)
{
    MsField *f = ms_find(s, group, index, field);
    if (!f) {
        if (s->n >= MS_MAX) return NULL;
        f = &s->f[s->n++];
        memset(f, 0, sizeof *f);
        snprintf(f->group, sizeof f->group, "%s", group ? group : "");
        f->index = index;
        snprintf(f->field, sizeof f->field, "%s", field);
    }
    free((void *)f->v.data);
    memset(&f->v, 0, sizeof f->v);
    f->v.cls = cls;
    f->v.ndims = ndims;
    f->v.numel = 1;
    for (int i = 0; i < ndims && i < 8; i++) { f->v.dims[i] = dims[i]; f->v.numel *= dims[i]; }
    size_t bytes = f->v.numel * elsize;
    void *copy = malloc(bytes ? bytes : 1);
    if (copy && bytes) memcpy(copy, data, bytes);
    f->v.data = copy;
    return f;
}

static void ms_remove(MemSource *s, MsField *f)
{
    free((void *)f->v.data);
    *f = s->f[--s->n];
}

static void ms_free(MemSource *s)
{
    for (int i = 0; i < s->n; i++) free((void *)s->f[i].v.data);
    s->n = 0;
    s->ngroups = 0;
}

/* ---- the sink ---- */
static void ms_put_char(void *ctx, const char *field, const char *value)
{
    size_t dims[2] = {1, strlen(value)};
    ms_put(ctx, NULL, 0, field, EE_VAL_CHAR, 2, dims, value, 1);
}
static void ms_put_scalar(void *ctx, const char *field, double value)
{
    size_t dims[2] = {1, 1};
    ms_put(ctx, NULL, 0, field, EE_VAL_DOUBLE, 2, dims, &value, sizeof value);
}
static void ms_put_logical(void *ctx, const char *field, int value)
{
    size_t dims[2] = {1, 1};
    uint8_t b = value != 0;
    ms_put(ctx, NULL, 0, field, EE_VAL_LOGICAL, 2, dims, &b, 1);
}
static void ms_put_row(void *ctx, const char *field, const double *v, int n)
{
    size_t dims[2] = {n ? 1u : 0u, (size_t)n};
    ms_put(ctx, NULL, 0, field, EE_VAL_DOUBLE, 2, dims, v, sizeof(double));
}
static void ms_put_group(void *ctx, const char *group, int len)
{
    MemSource *s = ctx;
    if (s->ngroups >= 8) return;
    snprintf(s->groups[s->ngroups].name, sizeof s->groups[0].name, "%s", group);
    s->groups[s->ngroups++].len = len;
}
static void ms_put_single(void *ctx, const char *group, int index, const char *field, int ndims,
                          const int *d, const float *data)
{
    size_t dims[3] = {(size_t)d[0], (size_t)d[1], ndims > 2 ? (size_t)d[2] : 1};
    ms_put(ctx, group, index, field, EE_VAL_SINGLE, ndims, dims, data, sizeof(float));
}

/* ---- the source ---- */
static int ms_get(void *ctx, const char *group, int index, const char *field, EeValue *out)
{
    MsField *f = ms_find(ctx, group, index, field);
    if (!f) return 0;
    *out = f->v;
    return 1;
}
static long ms_group_len(void *ctx, const char *group)
{
    MemSource *s = ctx;
    for (int i = 0; i < s->ngroups; i++)
        if (!strcmp(s->groups[i].name, group)) return s->groups[i].len;
    return -1;
}

static EeStatus ms_from_model(MemSource *s, const EeModel *m)
{
    memset(s, 0, sizeof *s);
    EeFieldSink sink = {s, ms_put_char, ms_put_scalar, ms_put_logical, ms_put_row, ms_put_group, ms_put_single};
    return ee_model_save(m, &sink);
}

static EeFieldSource ms_source(MemSource *s)
{
    EeFieldSource src = {s, ms_get, ms_group_len};
    return src;
}

#endif
