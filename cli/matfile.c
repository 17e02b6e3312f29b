/* matfile.c: the .mat files cli/ee writes (see matfile.h); reading is
 * libcore's (ee_mat.h). */
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

/* A rows x cols matrix of elements of `size` bytes, row-major in src, as a
 * new column-major variable of class cls / type t. */
static matvar_t *matrix_of_rows(const void *src, size_t size, long rows, long cols, enum matio_classes cls,
                                enum matio_types t)
{
    size_t dims[2] = {(size_t)rows, (size_t)cols};
    size_t n = (size_t)rows * (size_t)cols;
    char *d = ee_xmalloc(size * (n ? n : 1));
    const char *s = src;
    for (long i = 0; i < rows; i++)
        for (long c = 0; c < cols; c++)
            memcpy(d + size * (i + (size_t)rows * c), s + size * ((size_t)i * cols + c), size);
    /* the variable takes the buffer (matio frees it with the variable) */
    matvar_t *v = must(Mat_VarCreate(NULL, cls, t, 2, dims, d, MAT_F_DONT_COPY_DATA));
    v->mem_conserve = 0;
    return v;
}

matvar_t *ee_mv_double_rows(const double *src, long rows, long cols)
{
    return matrix_of_rows(src, sizeof(double), rows, cols, MAT_C_DOUBLE, MAT_T_DOUBLE);
}

matvar_t *ee_mv_single_rows(const float *src, long rows, long cols)
{
    return matrix_of_rows(src, sizeof(float), rows, cols, MAT_C_SINGLE, MAT_T_SINGLE);
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
    ee_mat_quiet();
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
                         ee_mat_message()[0] ? ": " : "", ee_mat_message());
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
