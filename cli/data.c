/* data.c: the data file of a command (see data.h). The checks and their
 * messages follow the gateways' (mex/mexutils.c), with the file and the
 * variable named instead of the argument. */
#include "data.h"
#include "ee_text.h"
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

EeStatus ee_data_open(const char *path, const char *var, EeData *d)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->var = var ? var : "tokens";
    EeStatus st = ee_matin_open(path, &d->file);
    if (st) return st;
    if ((st = ee_matin_var(d->file, d->var, &d->X))) return st;
    char what[512];
    snprintf(what, sizeof what, "%s: %s", path, d->var);
    if ((st = ee_mv_numeric(d->X, what))) return st;
    if (d->X->rank != 2)
        return ee_fail(EE_ERR_INPUT, "%s must be a 2-D matrix (one row per sequence), got %d dimensions", what,
                       d->X->rank);
    d->N = (long)ee_mv_rows(d->X);
    d->W = (long)ee_mv_cols(d->X);
    return EE_OK;
}

void ee_data_close(EeData *d)
{
    ee_matin_close(d->file);
    memset(d, 0, sizeof *d);
}

/* ---- rows ------------------------------------------------------------------- */
static EeStatus split_rows(EeData *d, const char *name, const char *opt, long **rows, long *n)
{
    matvar_t *s;
    EeStatus st = ee_matin_var(d->file, "split", &s);
    if (st) return ee_fail(EE_ERR_INPUT, "--%s %s names a split, but %s", opt, name, ee_last_error());
    matvar_t *f = ee_mv_field(s, name, 0);
    char what[512];
    snprintf(what, sizeof what, "%s: split.%s", d->path, name);
    if (!f) return ee_fail(EE_ERR_INPUT, "%s is missing (--%s %s)", what, opt, name);
    if ((st = ee_mv_numeric(f, what))) return st;
    long m = (long)ee_mv_numel(f);
    long *r = ee_xmalloc(sizeof(long) * (size_t)(m ? m : 1));
    for (long i = 0; i < m; i++) {
        double v = ee_mv_at(f, (size_t)i);
        if (!(v >= 1 && v <= d->N) || v != floor(v)) {
            free(r);
            return ee_fail(EE_ERR_INPUT, "%s(%ld) = %g is not a row of %s (1..%ld)", what, i + 1, v, d->var, d->N);
        }
        r[i] = (long)v - 1;
    }
    *rows = r;
    *n = m;
    return EE_OK;
}

EeStatus ee_data_rows(EeData *d, const char *spec, const char *opt, long **rows, long *n)
{
    *rows = NULL;
    *n = 0;
    if (!spec || ee_str_ieq(spec, "all")) {
        long *r = ee_xmalloc(sizeof(long) * (size_t)(d->N ? d->N : 1));
        for (long i = 0; i < d->N; i++) r[i] = i;
        *rows = r;
        *n = d->N;
        return EE_OK;
    }
    if (isalpha((unsigned char)spec[0])) return split_rows(d, spec, opt, rows, n);
    /* ranges and single rows, comma-separated */
    long cap = 16, m = 0;
    long *r = ee_xmalloc(sizeof(long) * (size_t)cap);
    /* strictly A or A:B items joined by single commas, digits only: no
     * sign, no blank, no empty item ('', '1,', '+1', ' 5' are refused) */
    const char *p = spec;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p)) goto bad;
        errno = 0;
        long a = strtol(p, &end, 10), b = a;
        if (errno) goto bad;
        if (*end == ':') {
            const char *q = end + 1;
            if (!isdigit((unsigned char)*q)) goto bad;
            b = strtol(q, &end, 10);
            if (errno) goto bad;
        }
        if (*end && *end != ',') goto bad;
        if (a < 1 || b > d->N || a > b) {
            free(r);
            return ee_fail(EE_ERR_INPUT, "--%s %s is out of range: %s in %s has %ld rows (rows are 1-based, "
                           "A:B with A <= B)", opt, spec, d->var, d->path, d->N);
        }
        for (long i = a; i <= b; i++) {
            if (m == cap) {
                cap *= 2;
                long *g = realloc(r, sizeof(long) * (size_t)cap);
                if (!g) { free(r); return ee_fail(EE_ERR_NOMEM, "out of memory reading --%s", opt); }
                r = g;
            }
            r[m++] = i - 1;
        }
        if (!*end) break;
        p = end + 1;
    }
    *rows = r;
    *n = m;
    return EE_OK;
bad:
    free(r);
    return ee_fail(EE_ERR_INPUT, "--%s must be rows such as 1:100, 7, 1:10,20:30, or train/valid/test/all, "
                   "got '%s'", opt, spec);
}

/* ---- arrays of the rows ---------------------------------------------------------------- */
/* A numeric variable with one row per row of X and `cols` columns. */
static EeStatus per_row(EeData *d, const char *var, long cols, matvar_t **out, char *what, size_t wn)
{
    snprintf(what, wn, "%s: %s", d->path, var);
    EeStatus st = ee_matin_var(d->file, var, out);
    if (st) return st;
    if ((st = ee_mv_numeric(*out, what))) return st;
    if ((*out)->rank != 2 || (long)ee_mv_rows(*out) != d->N || (cols >= 0 && (long)ee_mv_cols(*out) != cols))
        return ee_fail(EE_ERR_INPUT, "%s must be %ldx%ld (one row per row of %s), got %zux%zu", what, d->N,
                       cols >= 0 ? cols : (long)ee_mv_cols(*out), d->var, ee_mv_rows(*out), ee_mv_cols(*out));
    return EE_OK;
}

static EeStatus ids_of(matvar_t *v, const char *what, long N, const long *rows, long n, int T, int V,
                       int32_t **ids)
{
    if (v->class_type != MAT_C_INT32 && v->class_type != MAT_C_DOUBLE)
        return ee_fail(EE_ERR_INPUT, "%s must be an int32 matrix of token ids, got %s", what, ee_mv_class_name(v));
    int32_t *o = malloc(sizeof(int32_t) * ((size_t)n * T + 1));
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s (%ld x %d ids)", what, n, T);
    for (long i = 0; i < n; i++)
        for (int t = 0; t < T; t++) {
            double x = ee_mv_at(v, (size_t)rows[i] + (size_t)N * t);
            if (!(x >= 1) || x != floor(x) || (V > 0 && x > V) || x > 0x7fffffff) {
                free(o);
                return ee_fail(EE_ERR_INPUT, "%s(%ld,%d) = %g is not a token id in 1..%d", what, rows[i] + 1,
                               t + 1, x, V > 0 ? V : 0x7fffffff);
            }
            o[(size_t)i * T + t] = (int32_t)x - 1;
        }
    *ids = o;
    return EE_OK;
}

EeStatus ee_data_tokens(EeData *d, const long *rows, long n, int T, int V, int32_t **ids)
{
    char what[512];
    snprintf(what, sizeof what, "%s: %s", d->path, d->var);
    if (d->W != T)
        return ee_fail(EE_ERR_INPUT, "%s has %ld columns but the model's T is %d", what, d->W, T);
    return ids_of(d->X, what, d->N, rows, n, T, V, ids);
}

static EeStatus floats_of(matvar_t *v, const char *what, long N, const long *rows, long n, long cols,
                          float **out)
{
    if (v->class_type != MAT_C_SINGLE && v->class_type != MAT_C_DOUBLE)
        return ee_fail(EE_ERR_INPUT, "%s must be a real single or double matrix, got %s", what, ee_mv_class_name(v));
    float *o = malloc(sizeof(float) * ((size_t)n * cols + 1));
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what);
    for (long i = 0; i < n; i++)
        for (long c = 0; c < cols; c++) {
            double x = ee_mv_at(v, (size_t)rows[i] + (size_t)N * c);
            if (!isfinite(x)) {
                free(o);
                return ee_fail(EE_ERR_INPUT, "%s(%ld,%ld) is NaN or Inf", what, rows[i] + 1, c + 1);
            }
            o[(size_t)i * cols + c] = (float)x;
        }
    *out = o;
    return EE_OK;
}

EeStatus ee_data_dense(EeData *d, const long *rows, long n, int D, float **x)
{
    char what[512];
    snprintf(what, sizeof what, "%s: %s", d->path, d->var);
    if (d->W != D) return ee_fail(EE_ERR_INPUT, "%s has %ld columns but the model expects D = %d", what, d->W, D);
    return floats_of(d->X, what, d->N, rows, n, D, x);
}

EeStatus ee_data_labels(EeData *d, const char *var, const long *rows, long n, int C, int32_t **y, int *maxlabel)
{
    char what[512];
    snprintf(what, sizeof what, "%s: %s", d->path, var);
    matvar_t *v;
    EeStatus st = ee_matin_var(d->file, var, &v);
    if (st) return st;
    if ((st = ee_mv_numeric(v, what))) return st;
    if (v->isLogical) return ee_fail(EE_ERR_INPUT, "%s must be a numeric vector of class indices, got logical", what);
    if ((ee_mv_rows(v) != 1 && ee_mv_cols(v) != 1) || (long)ee_mv_numel(v) != d->N)
        return ee_fail(EE_ERR_INPUT, "%s must be a vector with one class index per row of %s (%ld), got %zux%zu",
                       what, d->var, d->N, ee_mv_rows(v), ee_mv_cols(v));
    int32_t *o = malloc(sizeof(int32_t) * ((size_t)n + 1));
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what);
    int mx = 0;
    for (long i = 0; i < n; i++) {
        double x = ee_mv_at(v, (size_t)rows[i]);
        if (!(x >= 1) || x != floor(x) || (C > 0 && x > C) || x > 100000) {
            free(o);
            return ee_fail(EE_ERR_INPUT, "%s(%ld) = %g is not a class index in 1..%d", what, rows[i] + 1, x,
                           C > 0 ? C : 100000);
        }
        o[i] = (int32_t)x - 1;
        if ((int)x > mx) mx = (int)x;
    }
    *y = o;
    if (maxlabel) *maxlabel = mx;
    return EE_OK;
}

EeStatus ee_data_mask(EeData *d, const char *var, const long *rows, long n, int T, uint8_t **mask)
{
    char what[512];
    matvar_t *v;
    EeStatus st = per_row(d, var, T, &v, what, sizeof what);
    if (st) return st;
    uint8_t *o = malloc((size_t)n * T + 1);
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what);
    for (long i = 0; i < n; i++)
        for (int t = 0; t < T; t++) {
            double x = ee_mv_at(v, (size_t)rows[i] + (size_t)d->N * t);
            if (x != 0 && x != 1) {
                free(o);
                return ee_fail(EE_ERR_INPUT, "%s(%ld,%d) must be true or false, got %g", what, rows[i] + 1, t + 1, x);
            }
            o[(size_t)i * T + t] = x != 0;
        }
    *mask = o;
    return EE_OK;
}

EeStatus ee_data_ids(EeData *d, const char *var, const char *what_opt, const long *rows, long n, int T, int V,
                     int32_t **ids)
{
    char what[512];
    matvar_t *v;
    EeStatus st = per_row(d, var, T, &v, what, sizeof what);
    if (st) return ee_fail(st, "--%s: %s", what_opt, ee_last_error());
    return ids_of(v, what, d->N, rows, n, T, V, ids);
}

EeStatus ee_data_target(EeData *d, const char *spec, const long *rows, long n, int C, int32_t **target)
{
    long k;
    if (ee_str_long(spec, &k)) { /* one class for every row */
        if (k < 1 || k > C)
            return ee_fail(EE_ERR_INPUT, "--target must be 'argmax', a class index in 1..%d or a variable of %s, "
                           "got '%s'", C, d->path, spec);
        int32_t *o = malloc(sizeof(int32_t) * ((size_t)n + 1));
        if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory");
        for (long i = 0; i < n; i++) o[i] = (int32_t)k - 1;
        *target = o;
        return EE_OK;
    }
    EeStatus st = ee_data_labels(d, spec, rows, n, C, target, NULL);
    if (st) return ee_fail(st, "--target %s: %s", spec, ee_last_error());
    return EE_OK;
}

EeStatus ee_data_permutations(EeData *d, const char *var, const long *rows, long n, const int32_t *ids, int T,
                              int32_t ***perms, int *steps)
{
    char what[512];
    snprintf(what, sizeof what, "%s: %s", d->path, var);
    matvar_t *c;
    EeStatus st = ee_matin_var(d->file, var, &c);
    if (st) return st;
    if (c->class_type != MAT_C_CELL || (long)ee_mv_numel(c) != d->N || !c->data)
        return ee_fail(EE_ERR_INPUT, "%s must be a cell with one matrix per row of %s (%ld), got %s with %zu elements",
                       what, d->var, d->N, ee_mv_class_name(c), ee_mv_numel(c));
    int32_t **o = calloc((size_t)n + 1, sizeof *o);
    if (!o) return ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what);
    int s = -1;
    for (long i = 0; i < n; i++) {
        matvar_t *p = ee_mv_cell(c, (size_t)rows[i]);
        int nr = ee_count_real(ids + (size_t)i * T, T);
        char el[600];
        snprintf(el, sizeof el, "%s{%ld}", what, rows[i] + 1);
        if (!p || ee_mv_numeric(p, el) || p->rank != 2) {
            st = ee_fail(EE_ERR_INPUT, "%s must be a numeric s x %d matrix", el, nr);
            goto fail;
        }
        if (nr == 0) continue;
        long pr = (long)ee_mv_rows(p), pc = (long)ee_mv_cols(p);
        if (pc != nr) {
            st = ee_fail(EE_ERR_INPUT, "%s must have %d columns (the real tokens of row %ld), got %ld", el, nr,
                         rows[i] + 1, pc);
            goto fail;
        }
        if (s < 0) s = (int)pr;
        if (pr != s || pr < 1) {
            st = ee_fail(EE_ERR_INPUT, "every cell of %s must have the same number of rows (samples), >= 1; %s has %ld",
                         what, el, pr);
            goto fail;
        }
        o[i] = malloc(sizeof(int32_t) * ((size_t)pr * pc + 1));
        if (!o[i]) { st = ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what); goto fail; }
        for (long k = 0; k < pr; k++)
            for (long j = 0; j < pc; j++) {
                double x = ee_mv_at(p, (size_t)k + (size_t)pr * j);
                if (!(x >= 1 && x <= nr) || x != floor(x)) {
                    st = ee_fail(EE_ERR_INPUT, "%s(%ld,%ld) = %g is not in 1..%d", el, k + 1, j + 1, x, nr);
                    goto fail;
                }
                o[i][(size_t)k * pc + j] = (int32_t)x - 1;
            }
    }
    *perms = o;
    *steps = s < 0 ? 1 : s;
    return EE_OK;
fail:
    for (long i = 0; i < n; i++) free(o[i]);
    free(o);
    return st;
}

EeStatus ee_data_words(EeData *d, const char *var, int vocabulary, matvar_t **cell, int *count)
{
    char what[512];
    snprintf(what, sizeof what, "%s: %s", d->path, var);
    matvar_t *c;
    EeStatus st = ee_matin_var(d->file, var, &c);
    if (st) return st;
    if (c->class_type != MAT_C_CELL || c->rank != 2 || (c->dims[0] != 1 && c->dims[1] != 1) || !c->data)
        return ee_fail(EE_ERR_INPUT, "%s must be a 1 x n cell of %s, got %s", what,
                       vocabulary ? "words" : "names", ee_mv_class_name(c));
    int n = (int)ee_mv_numel(c);
    if (!vocabulary && n < 2) return ee_fail(EE_ERR_INPUT, "%s needs at least 2 names, got %d", what, n);
    if (n > (1 << 24)) return ee_fail(EE_ERR_INPUT, "%s has %d words, more than 2^24", what, n);
    char **w = calloc((size_t)n + 1, sizeof *w);
    size_t *len = calloc((size_t)n + 1, sizeof *len);
    EeWordCounts *seen = NULL;
    if (!w || !len || ee_counts_new(&seen)) { st = ee_fail(EE_ERR_NOMEM, "out of memory reading %s", what); goto done; }
    for (int i = 0; i < n && !st; i++) {
        matvar_t *e = ee_mv_cell(c, (size_t)i);
        char el[600];
        snprintf(el, sizeof el, "%s{%d}", what, i + 1);
        if (!e || ee_mv_text(e, el, &w[i], &len[i]) || len[i] == 0) {
            st = ee_fail(EE_ERR_INPUT, "%s must be a non-empty char row (a %s)", el, vocabulary ? "word" : "name");
            break;
        }
        if (!vocabulary) {
            if (ee_counts_add(seen, w[i], len[i])) st = ee_fail(EE_ERR_NOMEM, "out of memory");
            else if (ee_counts_types(seen) != i + 1)
                st = ee_fail(EE_ERR_INPUT, "%s ('%.*s') repeats an earlier name", el, (int)(len[i] > 40 ? 40 : len[i]), w[i]);
        }
    }
    if (!st && vocabulary) {
        EeVocab *v = NULL;
        if (ee_vocab_new((const char *const *)w, len, n, &v)) st = ee_fail(EE_ERR_INPUT, "%s: %s", what, ee_last_error());
        ee_vocab_free(v);
    }
done:
    for (int i = 0; w && i < n; i++) free(w[i]);
    free(w);
    free(len);
    ee_counts_free(seen);
    if (!st) {
        *cell = c;
        *count = n;
    }
    return st;
}
