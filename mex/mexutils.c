/* mexutils.c: shared gateway helpers (see mexutils.h). Every conversion checks
 * class, realness, size, range and finiteness before reading an element;
 * every error goes through ee_mx_error, which releases the call's libcore
 * objects and restores the caller's BLAS threads before raising. */
#include "mexutils.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* ---- errors and cleanup ------------------------------------------------------ */
#define MAX_DEFER 64
static struct { void (*fn)(void *); void *p; } deferred[MAX_DEFER];
static int ndeferred;
static int in_core;

/* Releases the GPU handles, the kept models and baselines when Octave
 * unloads the gateway. */
static void at_exit(void)
{
    ee_kept_models_clear();
    ee_baseline_cache_clear();
    ee_shutdown();
}

void ee_mx_begin(void)
{
    static int registered;
    if (!registered) { mexAtExit(at_exit); registered = 1; }
    /* a previous call that Octave ended with its own error (not through
     * ee_mx_error) left its resources here: release them now */
    if (ndeferred || in_core) ee_mx_cleanup();
    ee_threads_enter();
    in_core = 1;
    ee_mx_interrupt_clear();
    ee_set_interrupt(ee_mx_interrupt_poll, NULL);
}

void *ee_mx_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        ee_mx_error("ee:outOfMemory", "out of memory allocating %.1f MB for %s", bytes / 1048576.0, what);
    ee_mx_defer(free, p);
    return p;
}

void ee_mx_budget(double bytes, const char *what)
{
    EeStatus st = ee_memory_check(bytes, what);
    if (st) ee_mx_fail(st);
}

void ee_mx_defer(void (*fn)(void *), void *p)
{
    if (ndeferred < MAX_DEFER) {
        deferred[ndeferred].fn = fn;
        deferred[ndeferred].p = p;
        ndeferred++;
    } else {
        fn(p); /* cannot track it: release now rather than leak */
        ee_mx_error("ee:outOfMemory", "a call holds more than %d buffers", MAX_DEFER);
    }
}

int ee_mx_mark(void) { return ndeferred; }

void ee_mx_release_to(int mark)
{
    while (ndeferred > mark && ndeferred > 0) {
        ndeferred--;
        deferred[ndeferred].fn(deferred[ndeferred].p);
    }
}

void ee_mx_cleanup(void)
{
    while (ndeferred > 0) {
        ndeferred--;
        deferred[ndeferred].fn(deferred[ndeferred].p);
    }
    if (in_core) { ee_threads_leave(); in_core = 0; }
    ee_set_interrupt(NULL, NULL);
}

void ee_mx_error(const char *id, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int failed_in_core = in_core;
    ee_mx_cleanup();
#if defined(__GLIBC__)
    /* A call that failed or was interrupted inside libcore freed what it
     * had allocated, but glibc keeps freed blocks of the OpenMP threads'
     * malloc arenas: without the trim the process stays megabytes larger
     * after each Ctrl-C (a few ms, on the error path only). */
    if (failed_in_core) malloc_trim(0);
#endif
    mexErrMsgIdAndTxt(id, "%s", msg);
    for (;;) {} /* not reached: mexErrMsgIdAndTxt does not return */
}

void ee_mx_fail(EeStatus st)
{
    if (st == EE_OK) return;
    char msg[1024];
    if (st == EE_ERR_INTERRUPTED)
        snprintf(msg, sizeof msg, "%s (Ctrl-C); nothing was returned", ee_last_error());
    else
        snprintf(msg, sizeof msg, "%s", ee_last_error());
    ee_mx_error(ee_status_id(st), "%s", msg);
}

/* ---- options ------------------------------------------------------------------- */
static int iequal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

void ee_mx_start(const char *gateway, int nlhs, int nrhs, const mxArray *prhs[], int first,
                 const char *const *names, EeMxOpt *o, int nopt)
{
    if (nlhs > 2) ee_mx_error("ee:badInput", "%s returns at most two outputs", gateway);
    ee_mx_begin();
    ee_mx_parse_options(names, nrhs, prhs, first, o, nopt);
}

void ee_mx_parse_options(const char *const *names, int nrhs, const mxArray *prhs[], int first,
                         EeMxOpt *opts, int nopts)
{
    for (int k = 0; k < nopts; k++) { opts[k].name = names[k]; opts[k].value = NULL; }
    if ((nrhs - first) % 2)
        ee_mx_error("ee:badInput", "options must come in name/value pairs (got an odd count)");
    for (int i = first; i < nrhs; i += 2) {
        if (!mxIsChar(prhs[i]))
            ee_mx_error("ee:badInput", "argument %d must be an option name (char)", i + 1);
        char name[64];
        if (mxGetString(prhs[i], name, sizeof name))
            ee_mx_error("ee:badInput", "option name at argument %d is too long", i + 1);
        /* mxGetString stops at a NUL: the whole name must be compared,
         * or ['steps' char(0) 'x'] would be taken for 'steps' */
        if (strlen(name) != mxGetNumberOfElements(prhs[i]))
            ee_mx_error("ee:badInput", "option name at argument %d has a NUL character inside", i + 1);
        int k;
        for (k = 0; k < nopts; k++)
            if (iequal(name, opts[k].name)) break;
        if (k == nopts) {
            char list[512] = "";
            for (int j = 0; j < nopts; j++) {
                strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, opts[j].name, sizeof list - strlen(list) - 1);
            }
            ee_mx_error("ee:badInput", "unknown option '%s' (valid: %s)", name, list);
        }
        /* a second value would silently win over a first that nobody checked */
        if (opts[k].value)
            ee_mx_error("ee:badInput", "option '%s' given twice (again at argument %d); give it once",
                        opts[k].name, i + 1);
        opts[k].value = prhs[i + 1];
    }
}

static int is_real_numeric(const mxArray *a)
{
    return (mxIsNumeric(a) || mxIsLogical(a)) && !mxIsComplex(a) && !mxIsSparse(a);
}

/* Element i of a real numeric/logical array as double. */
static double get_elem(const mxArray *a, size_t i)
{
    const void *d = mxGetData(a);
    switch (mxGetClassID(a)) {
    case mxDOUBLE_CLASS: return ((const double *)d)[i];
    case mxSINGLE_CLASS: return ((const float *)d)[i];
    case mxINT8_CLASS: return ((const int8_t *)d)[i];
    case mxUINT8_CLASS: return ((const uint8_t *)d)[i];
    case mxINT16_CLASS: return ((const int16_t *)d)[i];
    case mxUINT16_CLASS: return ((const uint16_t *)d)[i];
    case mxINT32_CLASS: return ((const int32_t *)d)[i];
    case mxUINT32_CLASS: return ((const uint32_t *)d)[i];
    case mxINT64_CLASS: return (double)((const int64_t *)d)[i];
    case mxUINT64_CLASS: return (double)((const uint64_t *)d)[i];
    case mxLOGICAL_CLASS: return ((const mxLogical *)d)[i];
    default: return NAN;
    }
}

/* A finite real scalar; logical only where a truth value is meant (true
 * as a count or a rate is a mistake, not 1). */
static double scalar(const mxArray *a, const char *what, int logical_ok)
{
    if (!is_real_numeric(a) || (mxIsLogical(a) && !logical_ok) || mxGetNumberOfElements(a) != 1)
        ee_mx_error("ee:badInput", "%s must be a real numeric scalar, got %s with %zu elements", what,
                    mxGetClassName(a), mxGetNumberOfElements(a));
    double v = get_elem(a, 0);
    if (!isfinite(v)) ee_mx_error("ee:badInput", "%s must be finite, got %g", what, v);
    return v;
}

double ee_mx_scalar(const mxArray *a, const char *what) { return scalar(a, what, 0); }

int ee_mx_int(const mxArray *a, const char *what, long lo, long hi)
{
    double v = scalar(a, what, 0);
    if (v != floor(v) || v < lo || v > hi)
        ee_mx_error("ee:badInput", "%s must be an integer in [%ld, %ld], got %g", what, lo, hi, v);
    return (int)v;
}

int ee_mx_bool(const mxArray *a, const char *what)
{
    double v = scalar(a, what, 1);
    if (v != 0 && v != 1) ee_mx_error("ee:badInput", "%s must be true or false, got %g", what, v);
    return v != 0;
}

char *ee_mx_string(const mxArray *a, const char *what)
{
    if (!mxIsChar(a) || (mxGetM(a) > 1 && mxGetNumberOfElements(a) > 0))
        ee_mx_error("ee:badInput", "%s must be a char row", what);
    /* our own copy (Octave 7 never frees mxArrayToString's), freed when the call ends */
    size_t n = mxGetNumberOfElements(a);
    char *s = ee_mx_malloc(n + 1, what);
    if (mxGetString(a, s, n + 1)) ee_mx_error("ee:badInput", "%s: cannot read the string", what);
    for (char *p = s; *p; p++) *p = (char)tolower((unsigned char)*p);
    return s;
}

int ee_mx_choice(const mxArray *a, const char *what, const char *const *choices, int n)
{
    char *s = ee_mx_string(a, what);
    for (int i = 0; i < n; i++)
        if (!strcmp(s, choices[i])) return i;
    char list[512] = "";
    for (int i = 0; i < n; i++) {
        strncat(list, i ? "', '" : "'", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    char got[128];
    snprintf(got, sizeof got, "%s", s);
    ee_mx_error("ee:badInput", "%s must be one of %s', got '%s'", what, list, got);
}

EeDevice ee_mx_device(const mxArray *a)
{
    if (!a) return EE_DEVICE_AUTO;
    return (EeDevice)ee_mx_choice(a, "'device'", ee_device_names, EE_DEVICE_COUNT);
}

EePrecision ee_mx_precision(const mxArray *a)
{
    if (!a) return EE_PRECISION_FP32;
    return (EePrecision)ee_mx_choice(a, "'precision'", ee_precision_names, EE_PRECISION_COUNT);
}

int ee_mx_int_vector(const mxArray *a, const char *what, long lo, long hi, int *out, int maxn)
{
    if (!is_real_numeric(a) || mxIsLogical(a) || (mxGetM(a) > 1 && mxGetN(a) > 1) ||
        mxGetNumberOfDimensions(a) > 2)
        ee_mx_error("ee:badInput", "%s must be a numeric vector, got %s", what, mxGetClassName(a));
    size_t n = mxGetNumberOfElements(a);
    if (n > (size_t)maxn) ee_mx_error("ee:badInput", "%s has %zu elements, at most %d allowed", what, n, maxn);
    for (size_t i = 0; i < n; i++) {
        double v = get_elem(a, i);
        if (!isfinite(v) || v != floor(v) || v < lo || v > hi)
            ee_mx_error("ee:badInput", "%s(%zu) must be an integer in [%ld, %ld], got %g", what, i + 1, lo,
                        hi, v);
        out[i] = (int)v;
    }
    return (int)n;
}

/* ---- data ---------------------------------------------------------------------- */
static void check_matrix(const mxArray *a, const char *what)
{
    if (mxGetNumberOfDimensions(a) != 2)
        ee_mx_error("ee:badInput", "%s must be a 2-D matrix, got %d dimensions", what,
                    (int)mxGetNumberOfDimensions(a));
}

int32_t *ee_mx_tokens(const mxArray *a, const char *what, int T_model, int V, int *N)
{
    if (!mxIsInt32(a) && !mxIsDouble(a))
        ee_mx_error("ee:badInput", "%s must be an int32 matrix of token ids, got %s", what, mxGetClassName(a));
    if (mxIsComplex(a) || mxIsSparse(a)) ee_mx_error("ee:badInput", "%s must be real and full", what);
    check_matrix(a, what);
    size_t n = mxGetM(a), T = mxGetN(a);
    if (T_model > 0 && T != (size_t)T_model)
        ee_mx_error("ee:badInput", "%s has %zu columns but the model's T is %d", what, T, T_model);
    if (n > 0x7fffffff / (T ? T : 1)) ee_mx_error("ee:badInput", "%s is too large", what);
    int32_t *ids = ee_mx_malloc(sizeof(int32_t) * (n * T + 1), what);
    const int is32 = mxIsInt32(a);
    const int32_t *d32 = is32 ? mxGetData(a) : NULL;
    const double *dd = is32 ? NULL : mxGetData(a);
    for (size_t t = 0; t < T; t++)
        for (size_t i = 0; i < n; i++) {
            double v = is32 ? d32[i + n * t] : dd[i + n * t];
            if (!(v >= 1) || v != floor(v) || (V > 0 && v > V) || v > 0x7fffffff)
                ee_mx_error("ee:badInput", "%s(%zu,%zu) = %g is not a token id in 1..%d", what, i + 1, t + 1, v,
                            V > 0 ? V : 0x7fffffff);
            ids[i * T + t] = (int32_t)v - 1;
        }
    *N = (int)n;
    return ids;
}

uint8_t *ee_mx_mask(const mxArray *a, const char *what, int N, int T)
{
    if (!is_real_numeric(a)) ee_mx_error("ee:badInput", "%s must be a logical matrix", what);
    check_matrix(a, what);
    if (mxGetM(a) != (size_t)N || mxGetN(a) != (size_t)T)
        ee_mx_error("ee:badInput", "%s must be %dx%d, got %zux%zu", what, N, T, mxGetM(a), mxGetN(a));
    uint8_t *m = ee_mx_malloc((size_t)N * T + 1, what);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < N; i++) {
            double v = get_elem(a, (size_t)i + (size_t)N * t);
            if (v != 0 && v != 1)
                ee_mx_error("ee:badInput", "%s(%d,%d) must be true or false, got %g", what, i + 1, t + 1, v);
            m[(size_t)i * T + t] = v != 0;
        }
    return m;
}

static float *float_rows(const mxArray *a, const char *what, size_t n, size_t cols)
{
    float *x = ee_mx_malloc(sizeof(float) * (n * cols + 1), what);
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < n; i++) {
            double v = get_elem(a, i + n * c);
            if (!isfinite(v))
                ee_mx_error("ee:badInput", "%s(%zu,%zu) is NaN or Inf", what, i + 1, c + 1);
            x[i * cols + c] = (float)v;
        }
    return x;
}

float *ee_mx_dense(const mxArray *a, const char *what, int D, int *N)
{
    if (!(mxIsSingle(a) || mxIsDouble(a)) || mxIsComplex(a) || mxIsSparse(a))
        ee_mx_error("ee:badInput", "%s must be a real single or double matrix, got %s", what, mxGetClassName(a));
    check_matrix(a, what);
    if (D > 0 && mxGetN(a) != (size_t)D)
        ee_mx_error("ee:badInput", "%s has %zu columns but the model expects D = %d", what, mxGetN(a), D);
    *N = (int)mxGetM(a);
    return float_rows(a, what, mxGetM(a), mxGetN(a));
}

int32_t *ee_mx_labels(const mxArray *a, const char *what, int N, int C, int *maxlabel)
{
    if (!is_real_numeric(a) || mxIsLogical(a))
        ee_mx_error("ee:badInput", "%s must be a numeric vector of class indices", what);
    if ((mxGetM(a) != 1 && mxGetN(a) != 1) || mxGetNumberOfElements(a) != (size_t)N)
        ee_mx_error("ee:badInput", "%s must be a vector with one class index per row of X (%d), got %zux%zu",
                    what, N, mxGetM(a), mxGetN(a));
    int32_t *y = ee_mx_malloc(sizeof(int32_t) * (N ? N : 1), what);
    int mx = 0;
    for (int i = 0; i < N; i++) {
        double v = get_elem(a, i);
        if (!(v >= 1) || v != floor(v) || (C > 0 && v > C) || v > 100000)
            ee_mx_error("ee:badInput", "%s(%d) = %g is not a class index in 1..%d", what, i + 1, v,
                        C > 0 ? C : 100000);
        y[i] = (int32_t)v - 1;
        if ((int)v > mx) mx = (int)v;
    }
    if (maxlabel) *maxlabel = mx;
    return y;
}

float *ee_mx_maps(const mxArray *a, const char *what, int N, int T)
{
    if (!(mxIsSingle(a) || mxIsDouble(a)) || mxIsComplex(a) || mxIsSparse(a))
        ee_mx_error("ee:badInput", "%s must be a real single matrix of attributions", what);
    check_matrix(a, what);
    if (mxGetM(a) != (size_t)N || mxGetN(a) != (size_t)T)
        ee_mx_error("ee:badInput", "%s must be %dx%d (one score per token of X), got %zux%zu", what, N, T,
                    mxGetM(a), mxGetN(a));
    return float_rows(a, what, (size_t)N, (size_t)T);
}

/* ---- outputs ------------------------------------------------------------------- */
mxArray *ee_mx_single_matrix(const float *src, int rows, int cols)
{
    mxArray *a = mxCreateNumericMatrix((size_t)rows, (size_t)cols, mxSINGLE_CLASS, mxREAL);
    float *d = mxGetData(a);
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < cols; c++) d[i + (size_t)rows * c] = src[(size_t)i * cols + c];
    return a;
}

mxArray *ee_mx_double_matrix(const double *src, int rows, int cols)
{
    mxArray *a = mxCreateDoubleMatrix((size_t)rows, (size_t)cols, mxREAL);
    double *d = mxGetPr(a);
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < cols; c++) d[i + (size_t)rows * c] = src[(size_t)i * cols + c];
    return a;
}

mxArray *ee_mx_double_vector(const double *v, int n)
{
    mxArray *a = mxCreateDoubleMatrix((size_t)n, 1, mxREAL);
    if (n) memcpy(mxGetPr(a), v, sizeof(double) * n);
    return a;
}

mxArray *ee_mx_row(const double *v, int n)
{
    mxArray *a = mxCreateDoubleMatrix(n ? 1 : 0, (size_t)n, mxREAL);
    if (n) memcpy(mxGetPr(a), v, sizeof(double) * n);
    return a;
}

#define EE_CHECK_NEGLIGIBLE 1e-4

static double rows_mse(const float *E, const float *A, long n, int W)
{
    double total = 0;
    for (long i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < W; j++) {
            double d = (E ? (double)E[(size_t)i * W + j] : 0.0) - (double)A[(size_t)i * W + j];
            row += d * d;
        }
        total += row / (W ? W : 1);
    }
    return n ? total / n : NAN;
}

mxArray *ee_mx_check_struct(const float *E, const float *A, const float *S, long n, int W, const char *rows,
                            const char *sampled, EeMxCheck *chk)
{
    chk->explainer = rows_mse(E, A, n, W);
    chk->zero = rows_mse(NULL, A, n, W);
    chk->sampled = S ? rows_mse(S, A, n, W) : NAN;
    /* (NaN compares false: an explainer with a NaN error is weak) */
    /* (an error below EE_CHECK_NEGLIGIBLE of the maps' mean square shows in
     * no figure: where one sample of the method is exact, as SV and IG are
     * on an additive model, such an explainer is not called weak) */
    int beats_zero = chk->explainer < chk->zero;
    int beats_sampled = !S || chk->explainer < chk->sampled || chk->explainer < EE_CHECK_NEGLIGIBLE * chk->zero;
    chk->weak = !(beats_zero && beats_sampled);
    chk->message[0] = 0;
    char also[160] = "";
    if (!beats_zero && !beats_sampled) snprintf(also, sizeof also, ", nor below %s's (%.4g)", sampled, chk->sampled);
    if (!beats_zero)
        snprintf(chk->message, sizeof chk->message,
                 "the explainer's MSE on the %ld %s rows, %.4g, is not below a map of zeros' (%.4g)%s: "
                 "it explains them worse than no explanation at all (see help ee_explain, \"Reading the check\")",
                 n, rows, chk->explainer, chk->zero, also);
    else if (!beats_sampled)
        snprintf(chk->message, sizeof chk->message,
                 "the explainer's MSE on the %ld %s rows, %.4g, is not below %s's (%.4g): the "
                 "cheapest run of the method explains them better (see help ee_explain, \"Reading the check\")",
                 n, rows, chk->explainer, sampled, chk->sampled);
    mxArray *c = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_set(c, "rows", mxCreateString(rows));
    ee_mx_set(c, "n", mxCreateDoubleScalar((double)n));
    ee_mx_set(c, "explainer_mse", mxCreateDoubleScalar(chk->explainer));
    ee_mx_set(c, "zero_mse", mxCreateDoubleScalar(chk->zero));
    ee_mx_set(c, "sampled_mse", mxCreateDoubleScalar(chk->sampled));
    ee_mx_set(c, "sampled", mxCreateString(S ? sampled : ""));
    ee_mx_set(c, "weak", mxCreateLogicalScalar(chk->weak != 0));
    return c;
}

void ee_mx_check_warn(const EeMxCheck *chk)
{
    if (chk->weak) mexWarnMsgIdAndTxt("ee:weakExplainer", "%s", chk->message);
}

void ee_mx_set(mxArray *s, const char *name, mxArray *v)
{
    int k = mxGetFieldNumber(s, name);
    if (k < 0) k = mxAddField(s, name);
    mxArray *old = mxGetFieldByNumber(s, 0, k);
    if (old) mxDestroyArray(old);
    mxSetFieldByNumber(s, 0, k, v);
}

/* ---- models ------------------------------------------------------------------------ */
/* The model struct as a field source. Only the class is asked of a value
 * before its data: a struct read from a corrupted file can hold undefined
 * elements, on which Octave's mxGetData panics. Char data is copied into
 * buffers of the source (mxArrayToString's are not freed by Octave 7),
 * released when the load ends. */
#define SRC_MAX_STRINGS 16
typedef struct {
    const mxArray *s;
    char *str[SRC_MAX_STRINGS];
    int nstr;
} MxSource;

static int to_value(MxSource *src, const mxArray *a, EeValue *v)
{
    memset(v, 0, sizeof *v);
    if (!a) return 0;
    size_t nd = mxGetNumberOfDimensions(a);
    const mwSize *dims = mxGetDimensions(a);
    v->ndims = nd < 8 ? (int)nd : 8;
    for (int i = 0; i < v->ndims; i++) v->dims[i] = dims[i];
    v->numel = mxGetNumberOfElements(a);
    v->cls = EE_VAL_OTHER;
    if (mxIsComplex(a) || mxIsSparse(a) || nd > 8) return 1;
    switch (mxGetClassID(a)) {
    case mxDOUBLE_CLASS: v->cls = EE_VAL_DOUBLE; break;
    case mxSINGLE_CLASS: v->cls = EE_VAL_SINGLE; break;
    case mxINT32_CLASS: v->cls = EE_VAL_INT32; break;
    case mxLOGICAL_CLASS: v->cls = EE_VAL_LOGICAL; break;
    case mxCHAR_CLASS: {
        /* every character, NULs included (the loader refuses those) */
        if (src->nstr >= SRC_MAX_STRINGS || v->numel > 4096) return 1;
        char *buf = malloc(v->numel + 1);
        if (!buf) return 1;
        src->str[src->nstr++] = buf;
        if (mxGetString(a, buf, v->numel + 1)) return 1;
        v->data = buf;
        v->cls = EE_VAL_CHAR;
        return 1;
    }
    default: return 1; /* includes undefined elements (unknown class) */
    }
    v->data = mxGetData(a);
    if (!v->data && v->numel) v->cls = EE_VAL_OTHER;
    return 1;
}

static int src_get(void *ctx, const char *group, int index, const char *field, EeValue *out)
{
    MxSource *src = ctx;
    if (!group) return to_value(src, mxGetField(src->s, 0, field), out);
    const mxArray *g = mxGetField(src->s, 0, group);
    if (!g || !mxIsStruct(g) || index < 0 || (size_t)index >= mxGetNumberOfElements(g)) return 0;
    return to_value(src, mxGetField(g, (mwIndex)index, field), out);
}

static long src_group_len(void *ctx, const char *group)
{
    const mxArray *g = mxGetField(((MxSource *)ctx)->s, 0, group);
    if (!g || !mxIsStruct(g)) return -1;
    return (long)mxGetNumberOfElements(g);
}

static void release_model(void *p) { ee_model_release(p); }

EeModel *ee_mx_model(const mxArray *a, const char *what)
{
    if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1)
        ee_mx_error("ee:badModel", "%s must be a scalar model struct (as returned by ee_train), got %s", what,
                    mxGetClassName(a));
    MxSource ms = {a, {NULL}, 0};
    EeFieldSource src = {&ms, src_get, src_group_len};
    EeModel *m = NULL;
    /* kept between calls (a session explains with the same structs again
     * and again): shared, so no gateway writes a model it gets here */
    EeStatus st = ee_model_acquire(&src, what, &m);
    for (int i = 0; i < ms.nstr; i++) free(ms.str[i]);
    if (st) ee_mx_fail(st);
    ee_mx_defer(release_model, m);
    return m;
}

int ee_mx_is_model(const mxArray *a)
{
    return mxIsStruct(a) && mxGetNumberOfElements(a) == 1 && mxGetField(a, 0, "kind") &&
           (mxGetField(a, 0, "E_tok") || mxGetField(a, 0, "fc"));
}

void ee_mx_fingerprint(const EeModel *m, char *out, size_t n)
{
    ee_mx_fail(ee_model_fingerprint(m, out, n));
}

/* Sink that builds an Octave struct. */
static void put_char(void *ctx, const char *f, const char *v) { ee_mx_set(ctx, f, mxCreateString(v)); }
static void put_scalar(void *ctx, const char *f, double v) { ee_mx_set(ctx, f, mxCreateDoubleScalar(v)); }
static void put_logical(void *ctx, const char *f, int v) { ee_mx_set(ctx, f, mxCreateLogicalScalar(v != 0)); }
static void put_row(void *ctx, const char *f, const double *v, int n) { ee_mx_set(ctx, f, ee_mx_row(v, n)); }
static void put_group(void *ctx, const char *g, int len)
{
    ee_mx_set(ctx, g, mxCreateStructMatrix(1, (size_t)len, 0, NULL));
}
static void put_single(void *ctx, const char *group, int index, const char *field, int ndims,
                       const int *d, const float *data)
{
    mwSize dims[3] = {(mwSize)d[0], (mwSize)d[1], ndims > 2 ? (mwSize)d[2] : 1};
    mxArray *a = mxCreateNumericArray((mwSize)ndims, dims, mxSINGLE_CLASS, mxREAL);
    size_t n = (size_t)dims[0] * dims[1] * dims[2];
    if (n) memcpy(mxGetData(a), data, sizeof(float) * n);
    if (!group) { ee_mx_set(ctx, field, a); return; }
    mxArray *g = mxGetField(ctx, 0, group);
    int k = mxGetFieldNumber(g, field);
    if (k < 0) k = mxAddField(g, field);
    mxSetFieldByNumber(g, (mwIndex)index, k, a);
}

mxArray *ee_mx_model_struct(const EeModel *m)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    EeFieldSink sink = {s, put_char, put_scalar, put_logical, put_row, put_group, put_single};
    EeStatus st = ee_model_save(m, &sink);
    if (st) {
        mxDestroyArray(s);
        ee_mx_fail(st);
    }
    return s;
}

/* ---- progress ------------------------------------------------------------------------ */
void ee_mx_print(void *ctx, const char *line)
{
    (void)ctx;
    ee_mx_print_line(line); /* never lets Octave's interrupt cross libcore */
}

double *ee_mx_dense_rows(const mxArray *a, const char *what, size_t *rows, size_t *cols)
{
    if (!(mxIsDouble(a) || mxIsSingle(a)) || mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) != 2)
        ee_mx_error("ee:badInput", "%s must be a real double or single matrix, got %s", what, mxGetClassName(a));
    size_t n = mxGetM(a), m = mxGetN(a);
    if (n > 0x7fffffff || m > 0x7fffffff || (m && n > ((size_t)1 << 40) / m))
        ee_mx_error("ee:badInput", "%s is too large", what);
    double *x = ee_mx_malloc(sizeof(double) * (n * m + 1), what);
    const double *d = mxIsDouble(a) ? mxGetPr(a) : NULL;
    const float *s = mxIsSingle(a) ? mxGetData(a) : NULL;
    for (size_t c = 0; c < m; c++)
        for (size_t i = 0; i < n; i++) {
            double v = d ? d[i + n * c] : s[i + n * c];
            if (!isfinite(v)) ee_mx_error("ee:badInput", "%s(%zu,%zu) is NaN or Inf", what, i + 1, c + 1);
            x[i * m + c] = v;
        }
    *rows = n;
    *cols = m;
    return x;
}

/* The per-row measures of ee_faithfulness, in the order both of its forms
 * (a model, a function handle) return them: the struct F with its first
 * fields; each form adds its own after them. log_odds: the model form's
 * log-odds drop; infidelity: the two infidelity columns; K: the curves'
 * steps (0: no curves). */
static double *faith_col(size_t n) { return ee_mx_malloc(sizeof(double) * (n + 1), "F"); }

EeFaithResult ee_mx_faith_result(int nrows, int K)
{
    size_t n = (size_t)nrows;
    EeFaithResult r = {0};
    r.comprehensiveness = faith_col(n);
    r.sufficiency = faith_col(n);
    r.deletion_auc = faith_col(n);
    r.insertion_auc = faith_col(n);
    r.log_odds_drop = faith_col(n);
    r.comp_bins = faith_col(n * EE_FAITH_BINS);
    r.suff_bins = faith_col(n * EE_FAITH_BINS);
    if (K) {
        r.deletion_curve = faith_col(n * (K + 1));
        r.insertion_curve = faith_col(n * (K + 1));
    }
    r.target = ee_mx_malloc(sizeof(int32_t) * (n + 1), "F");
    r.nreal = ee_mx_malloc(sizeof(int32_t) * (n + 1), "F");
    r.fx = faith_col(n);
    r.fbaseline = faith_col(n);
    r.infidelity = faith_col(n);
    r.infidelity_normalized = faith_col(n);
    return r;
}

EeFaithResult ee_mx_faith_from(const EeFaithResult *r, int i0, int K)
{
    size_t i = (size_t)i0;
    EeFaithResult q = {0};
    q.comprehensiveness = r->comprehensiveness + i;
    q.sufficiency = r->sufficiency + i;
    q.deletion_auc = r->deletion_auc + i;
    q.insertion_auc = r->insertion_auc + i;
    q.log_odds_drop = r->log_odds_drop + i;
    q.comp_bins = r->comp_bins + i * EE_FAITH_BINS;
    q.suff_bins = r->suff_bins + i * EE_FAITH_BINS;
    if (K) {
        q.deletion_curve = r->deletion_curve + i * (K + 1);
        q.insertion_curve = r->insertion_curve + i * (K + 1);
    }
    q.target = r->target + i;
    q.nreal = r->nreal + i;
    q.fx = r->fx + i;
    q.fbaseline = r->fbaseline + i;
    q.infidelity = r->infidelity + i;
    q.infidelity_normalized = r->infidelity_normalized + i;
    return q;
}

mxArray *ee_mx_faith_struct(const EeFaithResult *r, int nrows, int K, int log_odds, int infidelity)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    ee_mx_set(s, "comprehensiveness", ee_mx_double_vector(r->comprehensiveness, nrows));
    ee_mx_set(s, "sufficiency", ee_mx_double_vector(r->sufficiency, nrows));
    ee_mx_set(s, "deletion_auc", ee_mx_double_vector(r->deletion_auc, nrows));
    ee_mx_set(s, "insertion_auc", ee_mx_double_vector(r->insertion_auc, nrows));
    if (log_odds) ee_mx_set(s, "log_odds_drop", ee_mx_double_vector(r->log_odds_drop, nrows));
    if (infidelity) {
        ee_mx_set(s, "infidelity", ee_mx_double_vector(r->infidelity, nrows));
        ee_mx_set(s, "infidelity_normalized", ee_mx_double_vector(r->infidelity_normalized, nrows));
    }
    ee_mx_set(s, "comprehensiveness_bins", ee_mx_double_matrix(r->comp_bins, nrows, EE_FAITH_BINS));
    ee_mx_set(s, "sufficiency_bins", ee_mx_double_matrix(r->suff_bins, nrows, EE_FAITH_BINS));
    double bins[EE_FAITH_BINS];
    for (int k = 0; k < EE_FAITH_BINS; k++) bins[k] = ee_faith_bins[k];
    ee_mx_set(s, "bins", ee_mx_row(bins, EE_FAITH_BINS));
    if (K) {
        ee_mx_set(s, "deletion_curve", ee_mx_double_matrix(r->deletion_curve, nrows, K + 1));
        ee_mx_set(s, "insertion_curve", ee_mx_double_matrix(r->insertion_curve, nrows, K + 1));
    }
    double *t = ee_mx_malloc(sizeof(double) * ((size_t)nrows + 1), "F");
    double *p = ee_mx_malloc(sizeof(double) * ((size_t)nrows + 1), "F");
    for (int i = 0; i < nrows; i++) {
        t[i] = r->target[i] + 1;
        p[i] = r->nreal[i];
    }
    ee_mx_set(s, "target", ee_mx_double_vector(t, nrows));
    ee_mx_set(s, "players", ee_mx_double_vector(p, nrows));
    ee_mx_set(s, "fx", ee_mx_double_vector(r->fx, nrows));
    ee_mx_set(s, "fbaseline", ee_mx_double_vector(r->fbaseline, nrows));
    return s;
}
