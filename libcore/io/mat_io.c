/* mat_io.c: the one reader of .mat files (ee_mat.h): a file is checked
 * (mat_check.c) before matio opens it, and nothing in a matvar_t is used
 * before its class, size and data have been checked. Also the model as a
 * struct (ee_mv_model) and the helpers the C tests use. */
#include "../ee_mat.h"
#include "../ee_model_io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* matio reports problems through a log function that by default prints
 * to stderr: keep its last message for ours instead. */
static char matio_message[256];
static void matio_log(int level, char *message)
{
    (void)level;
    snprintf(matio_message, sizeof matio_message, "%s", message ? message : "");
}

void ee_mat_quiet(void)
{
    static int done;
    if (!done) {
        Mat_LogInitFunc("ee", matio_log);
        done = 1;
    }
    matio_message[0] = 0;
}

const char *ee_mat_message(void) { return matio_message; }

/* ---- reading ---------------------------------------------------------------- */
#define EE_MATIN_VARS 64

typedef struct EeMvSource EeMvSource;

struct EeMatIn {
    char *path;
    mat_t *mat;
    matvar_t *vars[EE_MATIN_VARS];
    int nvars;
    /* what the C tests' helpers (ee_mat_double, ee_mat_struct_source)
     * hand out, freed with the file */
    void *bufs[64];
    int nbufs;
    EeMvSource *sources[8];
    int nsources;
};

static void source_free(EeMvSource *k);

EeStatus ee_matin_open(const char *path, EeMatIn **out)
{
    *out = NULL;
    ee_mat_quiet();
    FILE *probe = fopen(path, "rb");
    if (!probe) return ee_fail(EE_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    fclose(probe);
    /* matio trusts the sizes in a file: the whole structure is checked
     * first (mat_check.c), compressed variables inflated and verified */
    EeStatus st = ee_mat5_check(path);
    if (st) return st;
    matio_message[0] = 0;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return ee_fail(EE_ERR_IO, "'%s' is not a MAT file (v5/v7, as Octave's save -v7 writes)%s%s", path,
                       matio_message[0] ? ": " : "", matio_message);
    EeMatIn *f = calloc(1, sizeof *f);
    if (f) f->path = strdup(path);
    if (!f || !f->path) {
        free(f);
        Mat_Close(mat);
        return ee_fail(EE_ERR_NOMEM, "out of memory opening '%s'", path);
    }
    f->mat = mat;
    *out = f;
    return EE_OK;
}

void ee_matin_close(EeMatIn *f)
{
    if (!f) return;
    for (int i = 0; i < f->nvars; i++) Mat_VarFree(f->vars[i]);
    for (int i = 0; i < f->nbufs; i++) free(f->bufs[i]);
    for (int i = 0; i < f->nsources; i++) source_free(f->sources[i]);
    Mat_Close(f->mat);
    free(f->path);
    free(f);
}


static void list_vars(EeMatIn *f, char *buf, size_t n)
{
    size_t count = 0;
    char **names = Mat_GetDir(f->mat, &count);
    buf[0] = 0;
    for (size_t i = 0; names && i < count && strlen(buf) + 40 < n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%.32s", i ? ", " : "", names[i] ? names[i] : "?");
    }
    if (!count) snprintf(buf, n, "none");
}

static matvar_t *cached(EeMatIn *f, const char *name)
{
    for (int i = 0; i < f->nvars; i++)
        if (f->vars[i]->name && !strcmp(f->vars[i]->name, name)) return f->vars[i];
    return NULL;
}

int ee_matin_has(EeMatIn *f, const char *name)
{
    if (cached(f, name)) return 1;
    matvar_t *v = Mat_VarReadInfo(f->mat, name);
    if (v) Mat_VarFree(v);
    return v != NULL;
}

EeStatus ee_matin_var(EeMatIn *f, const char *name, matvar_t **out)
{
    *out = cached(f, name);
    if (*out) return EE_OK;
    if (f->nvars >= EE_MATIN_VARS)
        return ee_fail(EE_ERR_IO, "%s: more than %d variables asked for", f->path, EE_MATIN_VARS);
    matio_message[0] = 0;
    matvar_t *v = Mat_VarRead(f->mat, name);
    if (!v) {
        char names[512];
        list_vars(f, names, sizeof names);
        if (ee_matin_has(f, name))
            return ee_fail(EE_ERR_IO, "%s: variable '%s' cannot be read%s%s", f->path, name,
                           matio_message[0] ? ": " : "", matio_message);
        return ee_fail(EE_ERR_IO, "%s: variable '%s' is missing (variables: %s)", f->path, name, names);
    }
    f->vars[f->nvars++] = v;
    *out = v;
    return EE_OK;
}

EeStatus ee_matin_only_model(EeMatIn *f, matvar_t **out, const char **name)
{
    size_t count = 0;
    char **names = Mat_GetDir(f->mat, &count);
    const char *found = NULL;
    int nfound = 0;
    for (size_t i = 0; names && i < count; i++) {
        matvar_t *info = names[i] ? Mat_VarReadInfo(f->mat, names[i]) : NULL;
        if (!info) continue;
        if (info->class_type == MAT_C_STRUCT || info->class_type == MAT_C_CELL) {
            if (!nfound) found = names[i];
            nfound++;
        }
        Mat_VarFree(info);
    }
    if (nfound != 1) {
        char list[512];
        list_vars(f, list, sizeof list);
        return ee_fail(EE_ERR_MODEL, "%s must hold one model struct (as ee_train returns it), found %d struct "
                       "variables (variables: %s)", f->path, nfound, list);
    }
    *name = found;
    return ee_matin_var(f, found, out);
}

/* ---- checks and element access ------------------------------------------------ */
/* The number of elements; 0 for a variable without dimensions (the
 * structure check bounds the product, so it cannot overflow here). */
size_t ee_mv_numel(const matvar_t *v)
{
    if (!v || v->rank <= 0 || !v->dims) return 0;
    size_t n = 1;
    for (int i = 0; i < v->rank; i++) n *= v->dims[i];
    return n;
}

size_t ee_mv_rows(const matvar_t *v) { return v->rank > 0 && v->dims ? v->dims[0] : 0; }

size_t ee_mv_cols(const matvar_t *v)
{
    size_t r = ee_mv_rows(v);
    return r ? ee_mv_numel(v) / r : (v->rank > 1 && v->dims ? v->dims[1] : 0);
}

static size_t class_bytes(enum matio_classes c)
{
    switch (c) {
    case MAT_C_DOUBLE: case MAT_C_INT64: case MAT_C_UINT64: return 8;
    case MAT_C_SINGLE: case MAT_C_INT32: case MAT_C_UINT32: return 4;
    case MAT_C_INT16: case MAT_C_UINT16: return 2;
    case MAT_C_INT8: case MAT_C_UINT8: return 1;
    default: return 0;
    }
}

const char *ee_mv_class_name(const matvar_t *v)
{
    if (v->isLogical) return "logical";
    switch (v->class_type) {
    case MAT_C_DOUBLE: return "double";
    case MAT_C_SINGLE: return "single";
    case MAT_C_INT8: return "int8";
    case MAT_C_UINT8: return "uint8";
    case MAT_C_INT16: return "int16";
    case MAT_C_UINT16: return "uint16";
    case MAT_C_INT32: return "int32";
    case MAT_C_UINT32: return "uint32";
    case MAT_C_INT64: return "int64";
    case MAT_C_UINT64: return "uint64";
    case MAT_C_CHAR: return "char";
    case MAT_C_CELL: return "cell";
    case MAT_C_STRUCT: return "struct";
    case MAT_C_SPARSE: return "sparse";
    default: return "an unsupported class";
    }
}

/* numeric data present in full, in the class's own element type */
static int numeric_ok(const matvar_t *v)
{
    size_t b = class_bytes(v->class_type);
    if (!b || v->isComplex || v->rank < 1 || v->rank > 8) return 0;
    size_t n = ee_mv_numel(v);
    if (n == 0) return 1;
    return v->data && (size_t)v->data_size == b && v->nbytes >= n * b;
}

EeStatus ee_mv_numeric(const matvar_t *v, const char *what)
{
    if (v->isComplex) return ee_fail(EE_ERR_INPUT, "%s must be real, got a complex array", what);
    if (!class_bytes(v->class_type))
        return ee_fail(EE_ERR_INPUT, "%s must be a numeric array, got %s", what, ee_mv_class_name(v));
    if (!numeric_ok(v)) return ee_fail(EE_ERR_IO, "%s: its data is incomplete or damaged", what);
    return EE_OK;
}

double ee_mv_at(const matvar_t *v, size_t i)
{
    const void *d = v->data;
    switch (v->class_type) {
    case MAT_C_DOUBLE: return ((const double *)d)[i];
    case MAT_C_SINGLE: return ((const float *)d)[i];
    case MAT_C_INT8: return ((const int8_t *)d)[i];
    case MAT_C_UINT8: return ((const uint8_t *)d)[i];
    case MAT_C_INT16: return ((const int16_t *)d)[i];
    case MAT_C_UINT16: return ((const uint16_t *)d)[i];
    case MAT_C_INT32: return ((const int32_t *)d)[i];
    case MAT_C_UINT32: return ((const uint32_t *)d)[i];
    case MAT_C_INT64: return (double)((const int64_t *)d)[i];
    case MAT_C_UINT64: return (double)((const uint64_t *)d)[i];
    default: return 0.0 / 0.0;
    }
}

/* Element k of `per` of element i of a cell or struct, when the container
 * was read completely (matio's own accessors trust it). */
static matvar_t *element(matvar_t *v, size_t i, size_t per, size_t k)
{
    size_t n = ee_mv_numel(v);
    if (i >= n || k >= per || !v->data || n > SIZE_MAX / sizeof(matvar_t *) / per) return NULL;
    if (v->nbytes / sizeof(matvar_t *) < n * per) return NULL;
    return ((matvar_t **)v->data)[i * per + k];
}

matvar_t *ee_mv_field(matvar_t *s, const char *field, size_t index)
{
    if (!s || s->class_type != MAT_C_STRUCT) return NULL;
    unsigned nf = Mat_VarGetNumberOfFields(s);
    char *const *names = Mat_VarGetStructFieldnames(s);
    if (!nf || !names) return NULL;
    for (unsigned k = 0; k < nf; k++)
        if (names[k] && !strcmp(names[k], field)) return element(s, index, nf, k);
    return NULL;
}

matvar_t *ee_mv_cell(matvar_t *c, size_t i)
{
    if (!c || c->class_type != MAT_C_CELL) return NULL;
    return element(c, i, 1, 0);
}

/* Appends code point c as UTF-8. */
static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xc0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | c >> 12); o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | c >> 18); o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

EeStatus ee_mv_text(const matvar_t *v, const char *what, char **utf8, size_t *len)
{
    *utf8 = NULL;
    if (v->class_type != MAT_C_CHAR || v->rank != 2 || (v->dims[0] > 1 && ee_mv_numel(v) > 0))
        return ee_fail(EE_ERR_INPUT, "%s must be a char row, got %s", what, ee_mv_class_name(v));
    size_t n = ee_mv_numel(v);
    /* Octave stores text as UTF-16 code units; matio's own files as bytes */
    size_t unit = v->data_type == MAT_T_UINT16 || v->data_type == MAT_T_UTF16 || v->data_type == MAT_T_INT16 ? 2
                  : v->data_type == MAT_T_UTF32 || v->data_type == MAT_T_UINT32 ? 4 : 1;
    if (n && (!v->data || v->nbytes < n * unit))
        return ee_fail(EE_ERR_IO, "%s: its text is incomplete or damaged", what);
    if (n > (SIZE_MAX - 1) / 4) return ee_fail(EE_ERR_NOMEM, "%s: text too long", what);
    char *o = malloc(4 * n + 1);
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c;
        if (unit == 1) { o[k++] = ((const char *)v->data)[i]; continue; }
        if (unit == 4) c = ((const uint32_t *)v->data)[i];
        else {
            c = ((const uint16_t *)v->data)[i];
            unsigned lo = i + 1 < n ? ((const uint16_t *)v->data)[i + 1] : 0;
            if (c >= 0xd800 && c < 0xdc00 && lo >= 0xdc00 && lo < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                i++;
            } else if (c >= 0xd800 && c < 0xe000) c = 0xfffd; /* a lone surrogate */
        }
        if (c > 0x10ffff) c = 0xfffd;
        k += put_utf8(o + k, c);
    }
    o[k] = 0;
    *utf8 = o;
    *len = k;
    return EE_OK;
}

/* ---- a struct as a field source, for libcore's model loader ------------------------------------------------- */
struct EeMvSource {
    matvar_t *s;
    size_t index;
    char **strings;
    int nstrings, cap;
};

static int to_value(EeMvSource *k, const matvar_t *v, EeValue *out)
{
    memset(out, 0, sizeof *out);
    if (!v) return 0;
    out->ndims = v->rank < 8 ? v->rank : 8;
    for (int i = 0; i < out->ndims; i++) out->dims[i] = v->dims[i];
    out->numel = ee_mv_numel(v);
    out->cls = EE_VAL_OTHER;
    if (v->class_type == MAT_C_CHAR) {
        char *s;
        size_t len;
        if (ee_mv_text(v, "", &s, &len)) return 1;
        if (k->nstrings == k->cap) {
            k->cap = k->cap ? 2 * k->cap : 16;
            char **grown = realloc(k->strings, sizeof *grown * (size_t)k->cap);
            if (!grown) { free(s); return 1; }
            k->strings = grown;
        }
        k->strings[k->nstrings++] = s;
        out->cls = EE_VAL_CHAR;
        out->data = s;
        out->numel = len;
        return 1;
    }
    if (!numeric_ok(v)) return 1;
    out->data = v->data;
    switch (v->class_type) {
    case MAT_C_DOUBLE: out->cls = EE_VAL_DOUBLE; break;
    case MAT_C_SINGLE: out->cls = EE_VAL_SINGLE; break;
    case MAT_C_INT32: out->cls = EE_VAL_INT32; break;
    case MAT_C_UINT8: out->cls = v->isLogical ? EE_VAL_LOGICAL : EE_VAL_OTHER; break;
    default: break;
    }
    return 1;
}

static int src_get(void *ctx, const char *group, int index, const char *field, EeValue *out)
{
    EeMvSource *k = ctx;
    if (!group) return to_value(k, ee_mv_field(k->s, field, k->index), out);
    matvar_t *g = ee_mv_field(k->s, group, k->index);
    if (!g || g->class_type != MAT_C_STRUCT || index < 0) return 0;
    return to_value(k, ee_mv_field(g, field, (size_t)index), out);
}

static long src_group_len(void *ctx, const char *group)
{
    EeMvSource *k = ctx;
    matvar_t *g = ee_mv_field(k->s, group, k->index);
    if (!g || g->class_type != MAT_C_STRUCT) return -1;
    return (long)ee_mv_numel(g);
}

static EeStatus source(matvar_t *s, size_t index, EeFieldSource *src, EeMvSource **keep)
{
    if (!s || s->class_type != MAT_C_STRUCT || index >= ee_mv_numel(s))
        return ee_fail(EE_ERR_MODEL, "expected a model struct, got %s", s ? ee_mv_class_name(s) : "nothing");
    EeMvSource *k = calloc(1, sizeof *k);
    if (!k) return ee_fail(EE_ERR_NOMEM, "out of memory");
    k->s = s;
    k->index = index;
    src->ctx = k;
    src->get = src_get;
    src->group_len = src_group_len;
    *keep = k;
    return EE_OK;
}

static void source_free(EeMvSource *k)
{
    if (!k) return;
    for (int i = 0; i < k->nstrings; i++) free(k->strings[i]);
    free(k->strings);
    free(k);
}


EeStatus ee_mv_load_model(matvar_t *s, size_t index, const char *what, EeModel **out)
{
    *out = NULL;
    EeFieldSource src;
    EeMvSource *keep = NULL;
    EeStatus st = source(s, index, &src, &keep);
    if (st) return ee_fail(st, "%s: %s", what, ee_last_error());
    st = ee_model_load(&src, what, out);
    source_free(keep);
    return st;
}

const char *ee_matin_path(const EeMatIn *f) { return f->path; }

/* ---- the model as a struct --------------------------------------------------- */
/* The sink of ee_model_save: fields in the order the gateways add them;
 * a variable that cannot be built (memory) fails the whole struct. */
typedef struct {
    matvar_t *s;
    int fail;
} Sink;

static void set_field(Sink *c, matvar_t *s, const char *name, size_t index, matvar_t *v)
{
    if (!v || !s) { c->fail = 1; Mat_VarFree(v); return; }
    char *const *names = Mat_VarGetStructFieldnames(s);
    unsigned nf = Mat_VarGetNumberOfFields(s);
    int have = 0;
    for (unsigned i = 0; i < nf; i++) have |= names && names[i] && !strcmp(names[i], name);
    char *copy = strdup(name);
    if ((!have && Mat_VarAddStructField(s, name)) || !copy) { c->fail = 1; free(copy); Mat_VarFree(v); return; }
    /* matio names a field's variable after the field */
    free(v->name);
    v->name = copy;
    matvar_t *old = Mat_VarSetStructFieldByName(s, name, index, v);
    if (old) Mat_VarFree(old);
}

static void put_char(void *ctx, const char *f, const char *v)
{
    size_t dims[2] = {1, strlen(v)};
    set_field(ctx, ((Sink *)ctx)->s, f, 0, Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UINT8, 2, dims, (void *)v, 0));
}

static void put_scalar(void *ctx, const char *f, double v)
{
    size_t dims[2] = {1, 1};
    set_field(ctx, ((Sink *)ctx)->s, f, 0, Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &v, 0));
}

static void put_logical(void *ctx, const char *f, int v)
{
    size_t dims[2] = {1, 1};
    uint8_t b = v != 0;
    set_field(ctx, ((Sink *)ctx)->s, f, 0, Mat_VarCreate(NULL, MAT_C_UINT8, MAT_T_UINT8, 2, dims, &b, MAT_F_LOGICAL));
}

static void put_row(void *ctx, const char *f, const double *v, int n)
{
    size_t dims[2] = {n ? 1 : 0, (size_t)n};
    double dummy = 0;
    set_field(ctx, ((Sink *)ctx)->s, f, 0,
              Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, n ? (void *)v : &dummy, 0));
}

static void put_group(void *ctx, const char *g, int len)
{
    size_t dims[2] = {1, (size_t)len};
    set_field(ctx, ((Sink *)ctx)->s, g, 0, Mat_VarCreateStruct2(NULL, 2, dims, NULL));
}

static void put_single(void *ctx, const char *group, int index, const char *field, int ndims,
                       const int *d, const float *data)
{
    Sink *c = ctx;
    size_t dims[3] = {(size_t)d[0], (size_t)d[1], ndims > 2 ? (size_t)d[2] : 1};
    float dummy = 0;
    size_t n = dims[0] * dims[1] * dims[2];
    matvar_t *v = Mat_VarCreate(NULL, MAT_C_SINGLE, MAT_T_SINGLE, ndims, dims, n ? (void *)data : &dummy, 0);
    set_field(c, group ? Mat_VarGetStructFieldByName(c->s, group, 0) : c->s, field, group ? (size_t)index : 0, v);
}

EeStatus ee_mv_model(const EeModel *m, matvar_t **out)
{
    *out = NULL;
    size_t dims[2] = {1, 1};
    Sink c = {Mat_VarCreateStruct2(NULL, 2, dims, NULL), 0};
    if (!c.s) return ee_fail(EE_ERR_NOMEM, "out of memory building a model struct");
    EeFieldSink sink = {&c, put_char, put_scalar, put_logical, put_row, put_group, put_single};
    EeStatus st = ee_model_save(m, &sink);
    if (!st && c.fail) st = ee_fail(EE_ERR_NOMEM, "out of memory building a model struct");
    if (st) { Mat_VarFree(c.s); return st; }
    *out = c.s;
    return EE_OK;
}

EeStatus ee_mat_save_model(const char *path, const char *name, const EeModel *m)
{
    matvar_t *s;
    EeStatus st = ee_mv_model(m, &s);
    if (st) return st;
    free(s->name);
    s->name = strdup(name);
    mat_t *mat = s->name ? Mat_CreateVer(path, NULL, MAT_FT_MAT5) : NULL;
    if (!mat) st = ee_fail(EE_ERR_IO, "cannot create '%s'", path);
    else {
        if (Mat_VarWrite(mat, s, MAT_COMPRESSION_NONE)) st = ee_fail(EE_ERR_IO, "cannot write '%s'", path);
        Mat_Close(mat);
    }
    Mat_VarFree(s);
    return st;
}

/* ---- the C tests' helpers (ee_model_io.h) ------------------------------------------ */
static void *keep(EeMatIn *f, void *p)
{
    if (!p || f->nbufs >= (int)(sizeof f->bufs / sizeof *f->bufs)) {
        free(p);
        return NULL;
    }
    return f->bufs[f->nbufs++] = p;
}

static const double *as_double(EeMatIn *f, const matvar_t *v, size_t *rows, size_t *cols)
{
    if (!v || ee_mv_numeric(v, "")) return NULL;
    size_t n = ee_mv_numel(v);
    double *d = keep(f, malloc(sizeof(double) * (n ? n : 1)));
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) d[i] = ee_mv_at(v, i);
    *rows = ee_mv_rows(v);
    *cols = ee_mv_cols(v);
    return d;
}

const double *ee_mat_double(EeMatIn *f, const char *name, size_t *rows, size_t *cols)
{
    matvar_t *v;
    return ee_matin_var(f, name, &v) ? NULL : as_double(f, v, rows, cols);
}

const double *ee_mat_cell_double(EeMatIn *f, const char *name, int i, size_t *rows, size_t *cols)
{
    matvar_t *v;
    if (ee_matin_var(f, name, &v) || i < 0) return NULL;
    return as_double(f, ee_mv_cell(v, (size_t)i), rows, cols);
}

EeStatus ee_mat_struct_source(EeMatIn *f, const char *name, EeFieldSource *src)
{
    matvar_t *v;
    EeStatus st = ee_matin_var(f, name, &v);
    if (st) return st;
    if (v->class_type != MAT_C_STRUCT || ee_mv_numel(v) != 1)
        return ee_fail(EE_ERR_IO, "%s: variable '%s' is not a scalar struct", f->path, name);
    if (f->nsources >= (int)(sizeof f->sources / sizeof *f->sources))
        return ee_fail(EE_ERR_NOMEM, "too many sources");
    return source(v, 0, src, &f->sources[f->nsources++]);
}
