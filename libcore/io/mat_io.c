/* mat_io.c: .mat files through matio: reading arrays, cells and model
 * structs (as an EeFieldSource), and writing a model struct. */
#include "model_io.h"

#include <matio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 64

struct EeMatFile {
    mat_t *mat;
    matvar_t *vars[MAX_VARS];
    int nvars;
    /* converted buffers owned by the file */
    void *bufs[1024];
    int nbufs;
};

EeStatus ee_mat_open(const char *path, EeMatFile **out)
{
    *out = NULL;
    /* matio trusts the sizes in a file: check them first (mat_check.c) */
    EeStatus st = ee_mat5_check(path);
    if (st) return st;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat) return ee_fail(EE_ERR_IO, "cannot open '%s' as a .mat file", path);
    EeMatFile *f = calloc(1, sizeof *f);
    if (!f) {
        Mat_Close(mat);
        return ee_fail(EE_ERR_NOMEM, "out of memory");
    }
    f->mat = mat;
    *out = f;
    return EE_OK;
}

void ee_mat_close(EeMatFile *f)
{
    if (!f) return;
    for (int i = 0; i < f->nvars; i++) Mat_VarFree(f->vars[i]);
    for (int i = 0; i < f->nbufs; i++) free(f->bufs[i]);
    Mat_Close(f->mat);
    free(f);
}

static matvar_t *var(EeMatFile *f, const char *name)
{
    for (int i = 0; i < f->nvars; i++)
        if (f->vars[i]->name && !strcmp(f->vars[i]->name, name)) return f->vars[i];
    if (f->nvars >= MAX_VARS) return NULL;
    matvar_t *v = Mat_VarRead(f->mat, name);
    if (v) f->vars[f->nvars++] = v;
    return v;
}

static void *keep(EeMatFile *f, void *p)
{
    if (!p || f->nbufs >= (int)(sizeof f->bufs / sizeof *f->bufs)) {
        free(p);
        return NULL;
    }
    return f->bufs[f->nbufs++] = p;
}

/* Elements of a variable; 0 (and *ok = 0) when its dimensions are absent
 * or their product overflows (a damaged file). */
static size_t numel_ok(const matvar_t *v, int *ok)
{
    *ok = 0;
    if (!v || v->rank < 0 || (v->rank > 0 && !v->dims)) return 0;
    size_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i] && n > SIZE_MAX / v->dims[i]) return 0;
        n *= v->dims[i];
    }
    *ok = 1;
    return n;
}

static size_t numel(const matvar_t *v)
{
    int ok;
    return numel_ok(v, &ok);
}

/* Bytes per element of a numeric or char class as matio keeps it after
 * reading (it converts numeric data to the class's type); 0 for others. */
static int class_size(const matvar_t *v)
{
    switch (v->class_type) {
    case MAT_C_DOUBLE: return 8;
    case MAT_C_SINGLE: case MAT_C_INT32: return 4;
    case MAT_C_UINT8: case MAT_C_INT8: return 1;
    case MAT_C_CHAR: return v->data_size == 2 ? 2 : 1;
    default: return 0;
    }
}

/* Whether the data of a real numeric or char variable is all there: a
 * partly read variable has NULL or short data. */
static int data_ok(const matvar_t *v, size_t *n)
{
    int ok, es = class_size(v);
    *n = numel_ok(v, &ok);
    if (!ok || !es || v->isComplex || v->data_size != es) return 0;
    if (*n == 0) return 1;
    return v->data && v->nbytes / (size_t)es >= *n;
}

/* Numeric / logical array converted to a double buffer owned by f. */
static const double *as_double(EeMatFile *f, matvar_t *v, size_t *rows, size_t *cols)
{
    size_t n;
    if (!v || v->class_type == MAT_C_CHAR || !data_ok(v, &n)) return NULL;
    double *d = keep(f, malloc(sizeof(double) * (n ? n : 1)));
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) {
        switch (v->class_type) {
        case MAT_C_DOUBLE: d[i] = ((const double *)v->data)[i]; break;
        case MAT_C_SINGLE: d[i] = ((const float *)v->data)[i]; break;
        case MAT_C_INT32: d[i] = ((const int32_t *)v->data)[i]; break;
        case MAT_C_UINT8: d[i] = ((const uint8_t *)v->data)[i]; break;
        case MAT_C_INT8: d[i] = ((const int8_t *)v->data)[i]; break;
        default: return NULL;
        }
    }
    *rows = v->rank > 0 ? v->dims[0] : 1;
    *cols = n / (*rows ? *rows : 1);
    return d;
}

const double *ee_mat_double(EeMatFile *f, const char *name, size_t *rows, size_t *cols)
{
    return as_double(f, var(f, name), rows, cols);
}

/* Element i of a cell or field k of element i of a struct, checking that
 * the container was read completely (matio's own accessors trust it). */
static matvar_t *element(matvar_t *v, size_t i, size_t per, size_t k)
{
    int ok;
    size_t n = numel_ok(v, &ok);
    if (!ok || i >= n || k >= per || !v->data || n > SIZE_MAX / per / sizeof(matvar_t *)) return NULL;
    if (v->nbytes / sizeof(matvar_t *) < n * per) return NULL;
    return ((matvar_t **)v->data)[i * per + k];
}

const double *ee_mat_cell_double(EeMatFile *f, const char *name, int i, size_t *rows, size_t *cols)
{
    matvar_t *v = var(f, name);
    if (!v || v->class_type != MAT_C_CELL || i < 0) return NULL;
    return as_double(f, element(v, (size_t)i, 1, 0), rows, cols);
}

/* Field `name` of element `index` of struct s, NULL if absent or damaged. */
static matvar_t *field_of(matvar_t *s, const char *name, size_t index)
{
    if (!s || s->class_type != MAT_C_STRUCT) return NULL;
    unsigned nf = Mat_VarGetNumberOfFields(s);
    char *const *names = Mat_VarGetStructFieldnames(s);
    if (!nf || !names) return NULL;
    for (unsigned k = 0; k < nf; k++)
        if (names[k] && !strcmp(names[k], name)) return element(s, index, nf, k);
    return NULL;
}

/* ---- struct variable as a field source ------------------------------------ */
typedef struct {
    EeMatFile *f;
    matvar_t *root;
} StructCtx;

static int to_value(EeMatFile *f, matvar_t *v, EeValue *out)
{
    memset(out, 0, sizeof *out);
    if (!v) return 0;
    out->cls = EE_VAL_OTHER;
    int ok;
    out->numel = numel_ok(v, &ok);
    if (!ok) return 1;
    out->ndims = v->rank < 8 ? v->rank : 8;
    for (int i = 0; i < out->ndims; i++) out->dims[i] = v->dims[i];
    size_t n;
    if (!data_ok(v, &n)) return 1; /* wrong class, complex, or data missing */
    out->data = v->data;
    switch (v->class_type) {
    case MAT_C_DOUBLE: out->cls = EE_VAL_DOUBLE; break;
    case MAT_C_SINGLE: out->cls = EE_VAL_SINGLE; break;
    case MAT_C_INT32: out->cls = EE_VAL_INT32; break;
    case MAT_C_UINT8:
        out->cls = v->isLogical ? EE_VAL_LOGICAL : EE_VAL_OTHER;
        break;
    case MAT_C_CHAR: {
        /* matio keeps chars as 8- or 16-bit units: narrow to bytes */
        char *str = keep(f, malloc(n + 1));
        if (!str) { out->cls = EE_VAL_OTHER; out->data = NULL; return 1; }
        for (size_t i = 0; i < n; i++) {
            unsigned u = v->data_size == 2 ? ((const uint16_t *)v->data)[i] : ((const uint8_t *)v->data)[i];
            str[i] = (char)(u < 128 ? u : '?');
        }
        str[n] = 0;
        out->data = str;
        out->cls = EE_VAL_CHAR;
        break;
    }
    default: out->cls = EE_VAL_OTHER; out->data = NULL;
    }
    return 1;
}

static int src_get(void *ctx, const char *group, int index, const char *field, EeValue *out)
{
    StructCtx *c = ctx;
    if (group) {
        matvar_t *g = field_of(c->root, group, 0);
        if (!g || g->class_type != MAT_C_STRUCT || index < 0 || (size_t)index >= numel(g)) return 0;
        return to_value(c->f, field_of(g, field, (size_t)index), out);
    }
    return to_value(c->f, field_of(c->root, field, 0), out);
}

static long src_group_len(void *ctx, const char *group)
{
    StructCtx *c = ctx;
    matvar_t *g = field_of(c->root, group, 0);
    int ok;
    if (!g || g->class_type != MAT_C_STRUCT) return -1;
    size_t n = numel_ok(g, &ok);
    return ok && n <= 0x7fffffff ? (long)n : -1;
}

EeStatus ee_mat_struct_source(EeMatFile *f, const char *name, EeFieldSource *src)
{
    matvar_t *v = var(f, name);
    if (!v || v->class_type != MAT_C_STRUCT || numel(v) != 1)
        return ee_fail(EE_ERR_IO, "variable '%s' is missing, damaged or not a scalar struct", name);
    StructCtx *c = keep(f, malloc(sizeof *c));
    if (!c) return ee_fail(EE_ERR_NOMEM, "out of memory");
    c->f = f;
    c->root = v;
    src->ctx = c;
    src->get = src_get;
    src->group_len = src_group_len;
    return EE_OK;
}

/* ---- writing a model ------------------------------------------------------- */
/* The sink collects fields into a matio struct; groups are struct arrays
 * whose elements are filled as their weights arrive. */
typedef struct {
    matvar_t *root;
    int fail;
} SinkCtx;

static void add_field(SinkCtx *c, const char *field, matvar_t *v)
{
    if (!v) { c->fail = 1; return; }
    Mat_VarAddStructField(c->root, field);
    Mat_VarSetStructFieldByName(c->root, field, 0, v);
}

static void put_char(void *ctx, const char *field, const char *value)
{
    size_t dims[2] = {1, strlen(value)};
    add_field(ctx, field, Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UINT8, 2, dims, (void *)value, 0));
}

static void put_scalar(void *ctx, const char *field, double value)
{
    size_t dims[2] = {1, 1};
    add_field(ctx, field, Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &value, 0));
}

static void put_logical(void *ctx, const char *field, int value)
{
    size_t dims[2] = {1, 1};
    uint8_t b = value != 0;
    add_field(ctx, field, Mat_VarCreate(NULL, MAT_C_UINT8, MAT_T_UINT8, 2, dims, &b, MAT_F_LOGICAL));
}

static void put_row(void *ctx, const char *field, const double *v, int n)
{
    size_t dims[2] = {n ? 1 : 0, (size_t)n};
    add_field(ctx, field, Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, (void *)v, 0));
}

static void put_group(void *ctx, const char *group, int len)
{
    size_t dims[2] = {1, (size_t)len};
    add_field(ctx, group, Mat_VarCreateStruct2(NULL, 2, dims, NULL));
}

static void put_single(void *ctx, const char *group, int index, const char *field, int ndims,
                       const int *d, const float *data)
{
    SinkCtx *c = ctx;
    size_t dims[3] = {(size_t)d[0], (size_t)d[1], ndims > 2 ? (size_t)d[2] : 1};
    matvar_t *v = Mat_VarCreate(NULL, MAT_C_SINGLE, MAT_T_SINGLE, ndims, dims, (void *)data, 0);
    if (!v) { c->fail = 1; return; }
    if (!group) { add_field(c, field, v); return; }
    matvar_t *g = Mat_VarGetStructFieldByName(c->root, group, 0);
    if (!g) { Mat_VarFree(v); c->fail = 1; return; }
    if (index == 0) Mat_VarAddStructField(g, field); /* element 0 comes first */
    Mat_VarSetStructFieldByName(g, field, (size_t)index, v);
}

EeStatus ee_mat_save_model(const char *path, const char *name, const EeModel *m)
{
    size_t dims[2] = {1, 1};
    SinkCtx c = {Mat_VarCreateStruct2(name, 2, dims, NULL), 0};
    if (!c.root) return ee_fail(EE_ERR_NOMEM, "out of memory");
    EeFieldSink s = {&c, put_char, put_scalar, put_logical, put_row, put_group, put_single};
    EeStatus st = ee_model_save(m, &s);
    if (!st && c.fail) st = ee_fail(EE_ERR_IO, "could not build the model struct for '%s'", path);
    if (!st) {
        mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT5);
        if (!mat) st = ee_fail(EE_ERR_IO, "cannot create '%s'", path);
        else {
            if (Mat_VarWrite(mat, c.root, MAT_COMPRESSION_NONE))
                st = ee_fail(EE_ERR_IO, "cannot write '%s'", path);
            Mat_Close(mat);
        }
    }
    Mat_VarFree(c.root);
    return st;
}
