/* mexutils.h: what every MEX gateway shares: errors with ee:* ids that free
 * the call's resources first, name/value options, validated conversion of
 * Octave arrays to libcore views, and model structs in both directions. */
#ifndef EE_MEXUTILS_H
#define EE_MEXUTILS_H

#include "mex.h"
#include "ee.h"
#include "ee_model_io.h"

/* ---- errors and cleanup ---------------------------------------------------- */
/* Registers a resource released when the gateway ends with an error (or
 * at ee_mx_cleanup). */
void ee_mx_defer(void (*fn)(void *), void *p);
/* The deferred resources held now, and the release of those deferred
 * after a mark (a loop that would otherwise hold one set per pass). */
int ee_mx_mark(void);
void ee_mx_release_to(int mark);
/* Releases deferred resources (normal exit). */
void ee_mx_cleanup(void);
/* Raises an Octave error with the status's id and libcore's message. */
void ee_mx_fail(EeStatus st);
/* Raises an error with an explicit id and formatted message. */
void ee_mx_error(const char *id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
/* Starts a call: releases what a previous call left behind when it
 * ended in an error raised by Octave itself (an mx* function that failed
 * to allocate), enters libcore's threading model, and installs the
 * interrupt poll (mexinterrupt.cc); undone by ee_mx_cleanup / errors. */
void ee_mx_begin(void);
/* malloc with the call's cleanup: freed when the gateway ends or fails;
 * ee:outOfMemory naming `what` when it cannot be had (mxMalloc would raise
 * an error without an id and skip the cleanup). */
void *ee_mx_malloc(size_t bytes, const char *what);
/* Refuses the call with ee:outOfMemory when `bytes` exceed the memory
 * budget (ee_memory_check): gateways call it with their estimate before
 * they allocate. */
void ee_mx_budget(double bytes, const char *what);

/* ---- interrupts (mexinterrupt.cc) ---------------------------------------------- */
int ee_mx_interrupt_poll(void *ctx);
void ee_mx_interrupt_clear(void);
void ee_mx_print_line(const char *line);

/* ---- options ---------------------------------------------------------------- */
typedef struct {
    const char *name;      /* canonical name, matched case-insensitively */
    const mxArray *value;  /* NULL when not given */
} EeMxOpt;

/* The start of a gateway's call, after its usage check: at most two
 * outputs (gateway: the call's name in the error), the call begun
 * (ee_mx_begin), the options from prhs[first] on parsed into o
 * (ee_mx_parse_options). */
void ee_mx_start(const char *gateway, int nlhs, int nrhs, const mxArray *prhs[], int first,
                 const char *const *names, EeMxOpt *o, int nopt);

/* Sets up opts from the option names, then parses prhs[first..nrhs) as
 * name/value pairs into it (unknown names, a missing value or a non-char
 * name are ee:badInput). */
void ee_mx_parse_options(const char *const *names, int nrhs, const mxArray *prhs[], int first,
                         EeMxOpt *opts, int nopts);

/* Typed readers: `what` names the argument in messages. */
double ee_mx_scalar(const mxArray *a, const char *what);
int ee_mx_int(const mxArray *a, const char *what, long lo, long hi);
int ee_mx_bool(const mxArray *a, const char *what);
/* Returns a mxMalloc'd lower-case string. */
char *ee_mx_string(const mxArray *a, const char *what);
/* Index of a string among choices (case-insensitive), or an error listing them. */
int ee_mx_choice(const mxArray *a, const char *what, const char *const *choices, int n);
EeDevice ee_mx_device(const mxArray *a);
/* 'precision' option: fp32 (absent) | tf32 | bf16 (ee:badInput otherwise). */
EePrecision ee_mx_precision(const mxArray *a);
/* Integer row vector; returns count. */
int ee_mx_int_vector(const mxArray *a, const char *what, long lo, long hi, int *out, int maxn);

/* ---- data ------------------------------------------------------------------- */
/* Token matrix N x T (int32, or integer-valued double), 1-based ids in
 * 1..V, converted to 0-based row-major (mxMalloc'd). T must equal T_model
 * when T_model > 0; V = 0 skips the range check. */
int32_t *ee_mx_tokens(const mxArray *a, const char *what, int T_model, int V, int *N);
/* Logical / numeric 0-1 mask N x T, row-major bytes (mxMalloc'd). */
uint8_t *ee_mx_mask(const mxArray *a, const char *what, int N, int T);
/* Dense N x D single/double matrix, finite, row-major float (mxMalloc'd). */
float *ee_mx_dense(const mxArray *a, const char *what, int D, int *N);
/* Class labels: N-vector of integers in 1..C (C = 0: any >= 1), 0-based. */
int32_t *ee_mx_labels(const mxArray *a, const char *what, int N, int C, int *maxlabel);
/* Attribution maps N x T (single/double, finite), row-major float. */
float *ee_mx_maps(const mxArray *a, const char *what, int N, int T);
/* A real, full, finite double or single matrix as row-major doubles (the
 * call's memory), its size in *rows x *cols; each side below 2^31. */
double *ee_mx_dense_rows(const mxArray *a, const char *what, size_t *rows, size_t *cols);

/* ---- outputs ------------------------------------------------------------------ */
/* Row-major float rows x cols -> new single Octave matrix (column-major). */
mxArray *ee_mx_single_matrix(const float *rowmajor, int rows, int cols);
/* Row-major double rows x cols -> new double Octave matrix (column-major). */
mxArray *ee_mx_double_matrix(const double *rowmajor, int rows, int cols);
mxArray *ee_mx_double_vector(const double *v, int n);  /* n x 1 */
mxArray *ee_mx_row(const double *v, int n);            /* 1 x n */
/* ee_faithfulness's per-row fields (mexutils.c), both forms' */
mxArray *ee_mx_faith_struct(const EeFaithResult *r, int nrows, int K, int log_odds, int infidelity);
/* The per-row arrays of ee_faithfulness's result for nrows rows, on the
 * call's memory (the curves only with K steps, K > 0). */
EeFaithResult ee_mx_faith_result(int nrows, int K);
/* r's per-row arrays from row i0 on (both forms call once per run of
 * rows), the totals 0. */
EeFaithResult ee_mx_faith_from(const EeFaithResult *r, int i0, int K);

/* ---- models -------------------------------------------------------------------- */
/* Loads and validates a model struct (ee:badModel on any defect). The
 * model is kept between calls and shared (ee_model_acquire): read it,
 * never write it; the call's cleanup gives it back. */
EeModel *ee_mx_model(const mxArray *a, const char *what);
/* True when a looks like a trained model struct (has kind and weights). */
int ee_mx_is_model(const mxArray *a);
/* FNV-1a over every weight of a model (16 hex digits): identifies the
 * classifier an explainer was trained to explain. */
void ee_mx_fingerprint(const EeModel *m, char *out, size_t n);
/* A model struct with kind, sizes and weights (plus fields added later). */
mxArray *ee_mx_model_struct(const EeModel *m);
/* Sets (adding if needed) field `name` of a scalar struct. */
void ee_mx_set(mxArray *s, const char *name, mxArray *v);

/* ---- an explainer's check against doing nothing ------------------------------- */
/* ee_train's measure of a trained explainer on n rows of W values each
 * (row-major): E its maps, A the targets, S the expensive explainer's
 * maps at s = 1 on the same rows (NULL: not measured). MSE per row over
 * the W values, averaged over the rows. weak: the explainer's MSE is not
 * below the zero map's, or not below S's while above 1e-4 of the zero
 * map's (an error that small shows in no figure). */
typedef struct {
    double explainer, zero, sampled;
    int weak;
    char message[400];
} EeMxCheck;
/* history.check: rows (what), n, explainer_mse, zero_mse, sampled_mse
 * (NaN when S is NULL), sampled (what S is), weak. */
mxArray *ee_mx_check_struct(const float *E, const float *A, const float *S, long n, int W, const char *rows,
                            const char *sampled, EeMxCheck *chk);
/* Raises the warning ee:weakExplainer when chk->weak; call it after
 * ee_mx_cleanup (a warning turned into an error must find nothing held). */
void ee_mx_check_warn(const EeMxCheck *chk);

/* ---- progress ------------------------------------------------------------------ */
void ee_mx_print(void *ctx, const char *line);

#endif
