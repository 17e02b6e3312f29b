/* matfile.c: .mat files for cli/ee (see matfile.h). A file read here may
 * come from anywhere, so nothing in a matvar_t is used before its class,
 * size and data have been checked. */
#include "matfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *ee_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "ee: out of memory (asked for %zu bytes)\n", n);
        exit(6);
    }
    return p;
}

void *ee_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "ee: out of memory (asked for %zu x %zu bytes)\n", n, size);
        exit(6);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(ee_xmalloc(n), s, n);
}

/* matio reports problems through a log function that by default prints
 * to stderr: keep its last message for ours instead. */
static char matio_message[256];
static void matio_log(int level, char *message)
{
    (void)level;
    snprintf(matio_message, sizeof matio_message, "%s", message ? message : "");
}

static void quiet_matio(void)
{
    static int done;
    if (!done) {
        Mat_LogInitFunc("ee", matio_log);
        done = 1;
    }
}

/* ---- reading ---------------------------------------------------------------- */
#define EE_MATIN_VARS 64

struct EeMatIn {
    char *path;
    mat_t *mat;
    matvar_t *vars[EE_MATIN_VARS];
    int nvars;
};

EeStatus ee_matin_open(const char *path, EeMatIn **out)
{
    *out = NULL;
    quiet_matio();
    FILE *probe = fopen(path, "rb");
    if (!probe) return ee_fail(EE_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    fclose(probe);
    matio_message[0] = 0;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return ee_fail(EE_ERR_IO, "'%s' is not a MAT file (v5/v7, as Octave's save -v7 writes)%s%s", path,
                       matio_message[0] ? ": " : "", matio_message);
    EeMatIn *f = ee_xcalloc(1, sizeof *f);
    f->path = xstrdup(path);
    f->mat = mat;
    *out = f;
    return EE_OK;
}

void ee_matin_close(EeMatIn *f)
{
    if (!f) return;
    for (int i = 0; i < f->nvars; i++) Mat_VarFree(f->vars[i]);
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
size_t ee_mv_numel(const matvar_t *v)
{
    size_t n = 1;
    for (int i = 0; i < v->rank; i++) n *= v->dims[i];
    return v->rank > 0 ? n : 0;
}

size_t ee_mv_rows(const matvar_t *v) { return v->rank > 0 ? v->dims[0] : 0; }

size_t ee_mv_cols(const matvar_t *v)
{
    size_t r = ee_mv_rows(v);
    return r ? ee_mv_numel(v) / r : (v->rank > 1 ? v->dims[1] : 0);
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

matvar_t *ee_mv_field(matvar_t *s, const char *field, size_t index)
{
    if (!s || s->class_type != MAT_C_STRUCT || index >= ee_mv_numel(s)) return NULL;
    return Mat_VarGetStructFieldByName(s, field, index);
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
    char *o = ee_xmalloc(4 * n + 1);
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

/* ---- a struct as a field source ------------------------------------------------- */
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

EeStatus ee_mv_source(matvar_t *s, size_t index, EeFieldSource *src, EeMvSource **keep)
{
    if (!s || s->class_type != MAT_C_STRUCT || index >= ee_mv_numel(s))
        return ee_fail(EE_ERR_MODEL, "expected a model struct, got %s", s ? ee_mv_class_name(s) : "nothing");
    EeMvSource *k = ee_xcalloc(1, sizeof *k);
    k->s = s;
    k->index = index;
    src->ctx = k;
    src->get = src_get;
    src->group_len = src_group_len;
    *keep = k;
    return EE_OK;
}

void ee_mv_source_free(EeMvSource *k)
{
    if (!k) return;
    for (int i = 0; i < k->nstrings; i++) free(k->strings[i]);
    free(k->strings);
    free(k);
}

/* ---- builders ---------------------------------------------------------------------- */
static matvar_t *must(matvar_t *v)
{
    if (!v) {
        fprintf(stderr, "ee: out of memory building an output variable\n");
        exit(6);
    }
    return v;
}

matvar_t *ee_mv_char(const char *s)
{
    size_t dims[2] = {1, strlen(s)};
    return must(Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UINT8, 2, dims, (void *)s, 0));
}

matvar_t *ee_mv_scalar(double v)
{
    size_t dims[2] = {1, 1};
    return must(Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &v, 0));
}

matvar_t *ee_mv_logical(int v)
{
    size_t dims[2] = {1, 1};
    uint8_t b = v != 0;
    return must(Mat_VarCreate(NULL, MAT_C_UINT8, MAT_T_UINT8, 2, dims, &b, MAT_F_LOGICAL));
}

matvar_t *ee_mv_row(const double *v, int n)
{
    size_t dims[2] = {n ? 1 : 0, (size_t)n};
    double dummy = 0;
    return must(Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, n ? (void *)v : &dummy, 0));
}

matvar_t *ee_mv_col(const double *v, long n)
{
    size_t dims[2] = {(size_t)n, 1};
    double dummy = 0;
    return must(Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, n ? (void *)v : &dummy, 0));
}

matvar_t *ee_mv_int32_col(const int32_t *v, long n)
{
    size_t dims[2] = {(size_t)n, 1};
    int32_t dummy = 0;
    return must(Mat_VarCreate(NULL, MAT_C_INT32, MAT_T_INT32, 2, dims, n ? (void *)v : &dummy, 0));
}

matvar_t *ee_mv_double_rows(const double *src, long rows, long cols)
{
    size_t dims[2] = {(size_t)rows, (size_t)cols};
    size_t n = (size_t)rows * (size_t)cols;
    double *d = ee_xmalloc(sizeof(double) * (n ? n : 1));
    for (long i = 0; i < rows; i++)
        for (long c = 0; c < cols; c++) d[i + (size_t)rows * c] = src[(size_t)i * cols + c];
    matvar_t *v = must(Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, d, MAT_F_DONT_COPY_DATA));
    v->mem_conserve = 0;
    return v;
}

matvar_t *ee_mv_single_rows(const float *src, long rows, long cols)
{
    size_t dims[2] = {(size_t)rows, (size_t)cols};
    size_t n = (size_t)rows * (size_t)cols;
    float *d = ee_xmalloc(sizeof(float) * (n ? n : 1));
    for (long i = 0; i < rows; i++)
        for (long c = 0; c < cols; c++) d[i + (size_t)rows * c] = src[(size_t)i * cols + c];
    /* the variable takes the buffer (matio frees it with the variable) */
    matvar_t *v = must(Mat_VarCreate(NULL, MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, d, MAT_F_DONT_COPY_DATA));
    v->mem_conserve = 0;
    return v;
}

matvar_t *ee_mv_struct_array(int n)
{
    size_t dims[2] = {1, (size_t)n};
    return must(Mat_VarCreateStruct2(NULL, 2, dims, NULL));
}

matvar_t *ee_mv_struct(void) { return ee_mv_struct_array(1); }

matvar_t *ee_mv_cell_row(int n)
{
    size_t dims[2] = {1, (size_t)n};
    matvar_t **cells = ee_xcalloc((size_t)n, sizeof *cells);
    matvar_t *c = must(Mat_VarCreate(NULL, MAT_C_CELL, MAT_T_CELL, 2, dims, cells, MAT_F_DONT_COPY_DATA));
    c->mem_conserve = 0;
    return c;
}

void ee_mv_cell_set(matvar_t *cell, int i, matvar_t *v)
{
    matvar_t *old = Mat_VarSetCell(cell, i, v);
    if (old) Mat_VarFree(old);
}

matvar_t *ee_mv_copy(const matvar_t *v) { return must(Mat_VarDuplicate(v, 1)); }

void ee_mv_set(matvar_t *s, const char *name, size_t index, matvar_t *v)
{
    char *const *names = Mat_VarGetStructFieldnames(s);
    unsigned nf = Mat_VarGetNumberOfFields(s);
    int have = 0;
    for (unsigned i = 0; i < nf; i++) have |= names && names[i] && !strcmp(names[i], name);
    if (!have && Mat_VarAddStructField(s, name)) {
        fprintf(stderr, "ee: cannot add field '%s' to an output struct\n", name);
        exit(6);
    }
    /* matio names a field's variable after the field */
    free(v->name);
    v->name = xstrdup(name);
    matvar_t *old = Mat_VarSetStructFieldByName(s, name, index, v);
    if (old) Mat_VarFree(old);
}

/* The sink of ee_model_save: fields in the order the gateways add them. */
static void put_char(void *ctx, const char *f, const char *v) { ee_mv_set(ctx, f, 0, ee_mv_char(v)); }
static void put_scalar(void *ctx, const char *f, double v) { ee_mv_set(ctx, f, 0, ee_mv_scalar(v)); }
static void put_logical(void *ctx, const char *f, int v) { ee_mv_set(ctx, f, 0, ee_mv_logical(v)); }
static void put_row(void *ctx, const char *f, const double *v, int n) { ee_mv_set(ctx, f, 0, ee_mv_row(v, n)); }
static void put_group(void *ctx, const char *g, int len) { ee_mv_set(ctx, g, 0, ee_mv_struct_array(len)); }

static void put_single(void *ctx, const char *group, int index, const char *field, int ndims,
                       const int *d, const float *data)
{
    size_t dims[3] = {(size_t)d[0], (size_t)d[1], ndims > 2 ? (size_t)d[2] : 1};
    float dummy = 0;
    size_t n = dims[0] * dims[1] * dims[2];
    matvar_t *v = must(Mat_VarCreate(NULL, MAT_C_SINGLE, MAT_T_SINGLE, ndims, dims, n ? (void *)data : &dummy, 0));
    if (!group) { ee_mv_set(ctx, field, 0, v); return; }
    ee_mv_set(Mat_VarGetStructFieldByName(ctx, group, 0), field, (size_t)index, v);
}

EeStatus ee_mv_model(const EeModel *m, matvar_t **out)
{
    matvar_t *s = ee_mv_struct();
    EeFieldSink sink = {s, put_char, put_scalar, put_logical, put_row, put_group, put_single};
    EeStatus st = ee_model_save(m, &sink);
    if (st) { Mat_VarFree(s); return st; }
    *out = s;
    return EE_OK;
}

/* ---- writing ------------------------------------------------------------------------ */
/* Bytes a variable takes in a MAT v5 file, roughly (headers left out). */
static size_t var_bytes(const matvar_t *v)
{
    if (!v) return 0;
    if (v->class_type == MAT_C_CELL || v->class_type == MAT_C_STRUCT) {
        size_t n = v->class_type == MAT_C_CELL ? ee_mv_numel(v) : ee_mv_numel(v) * Mat_VarGetNumberOfFields((matvar_t *)v);
        matvar_t **c = v->data;
        size_t sum = 0;
        for (size_t i = 0; c && i < n; i++) sum += var_bytes(c[i]) + 64;
        return sum;
    }
    return v->nbytes;
}

EeStatus ee_mat_target_ok(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb)) {
        if (errno == ENOENT) return EE_OK;
        return ee_fail(EE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
    if (S_ISREG(sb.st_mode)) return EE_OK;
    const char *what = S_ISDIR(sb.st_mode)                         ? "a folder"
                       : S_ISLNK(sb.st_mode)                       ? "a symbolic link"
                       : S_ISFIFO(sb.st_mode)                      ? "a FIFO"
                       : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                       : S_ISSOCK(sb.st_mode)                      ? "a socket"
                                                                   : "not a regular file";
    return ee_fail(EE_ERR_IO, "will not write '%s': it is %s; ee writes a result only to a new or a regular "
                   "file", path, what);
}

/* The temporary file being written, for ee_mat_abandon (a signal). */
static char pending[4096];
static volatile sig_atomic_t have_pending;

void ee_mat_abandon(void)
{
    if (have_pending) unlink(pending);
}

EeStatus ee_mat_write(const char *path, const char *const *names, matvar_t **vars, int n)
{
    quiet_matio();
    EeStatus st = EE_OK;
    for (int i = 0; i < n && !st; i++)
        if (var_bytes(vars[i]) > ((size_t)1 << 31) - 4096)
            st = ee_fail(EE_ERR_IO, "%s: variable '%s' would take %.2f GiB; a MAT v5 file holds at most 2 GiB "
                         "per variable: split the rows (--rows) into several runs", path, names[i],
                         var_bytes(vars[i]) / 1073741824.0);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    mat_t *mat = NULL;
    memcpy(pending, tmp, sizeof pending);
    have_pending = 1;
    if (!st) {
        /* a fixed header (matio's default carries the date), so that equal
         * results give equal files */
        mat = Mat_CreateVer(tmp, "MATLAB 5.0 MAT-file, written by ee (Empirical Explainers) " PACKAGE_VERSION,
                            MAT_FT_MAT5);
        if (!mat) st = ee_fail(EE_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
    }
    for (int i = 0; i < n && !st; i++) {
        free(vars[i]->name);
        vars[i]->name = xstrdup(names[i]);
        if (Mat_VarWrite(mat, vars[i], MAT_COMPRESSION_NONE))
            st = ee_fail(EE_ERR_IO, "cannot write variable '%s' to '%s'%s%s", names[i], tmp,
                         matio_message[0] ? ": " : "", matio_message);
    }
    if (mat && Mat_Close(mat) && !st) st = ee_fail(EE_ERR_IO, "cannot close '%s'", tmp);
    if (!st) { /* on disk before it gets its name */
        int fd = open(tmp, O_RDONLY);
        if (fd < 0 || fsync(fd)) st = ee_fail(EE_ERR_IO, "cannot flush '%s': %s", tmp, strerror(errno));
        if (fd >= 0) close(fd);
    }
    /* the target may have changed since the options were read */
    if (!st) st = ee_mat_target_ok(path);
    if (!st && rename(tmp, path)) st = ee_fail(EE_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (st) unlink(tmp);
    have_pending = 0;
    for (int i = 0; i < n; i++) Mat_VarFree(vars[i]);
    return st;
}
