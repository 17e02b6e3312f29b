/* mexfn.h: a function handle as the model of the attribution gateways:
 * the callback that evaluates it on batches of perturbed rows
 * (mexcallback.cc) and the handle form of ee_sv (mexfn.c). */
#ifndef EE_MEXFN_H
#define EE_MEXFN_H

#include "mexutils.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context of EeScoreFn for an Octave function handle. */
typedef struct {
    const mxArray *fh;   /* the handle (prhs[0]) */
    struct EeFeval *ev;  /* the argument array kept from call to call and
                            f's last outputs (mexfeval.cc), made on the
                            first call, freed by ee_mx_fn_release */
    int failed;          /* f itself raised an error (-> ee:callbackError) */
    int outputs;         /* outputs f is asked for when only its scores are
                            needed: 2 where f gives its gradient too (ee_ig),
                            so that f = @(x) deal (y, g) works; else 1 */
    double seconds_f;    /* wall time inside f */
} EeMxFn;

/* EeScoreFn's eval for ctx = EeMxFn: hands the rows to f (rows NULL: they
 * are in the array ee_mx_fn_columns returned), checks what f
 * returns (a real M x C or M x 1 double or single matrix; ee:badInput
 * naming the call otherwise), and turns an error raised by f into a
 * status whose message carries f's message and identifier (fn->failed
 * set) and Ctrl-C inside f into EE_ERR_INTERRUPTED. No Octave exception
 * leaves it. */
EeStatus ee_mx_fn_eval(void *ctx, const double *rows, int M, int F, long call, const double **scores,
                       int *C);
/* EeScoreFn's columns for ctx = EeMxFn: the M x F array the next call
 * hands to f, for libcore to fill column-major (no further copy); NULL
 * when it cannot be allocated. */
double *ee_mx_fn_columns(void *ctx, int M, int F);
/* EeGradFn's eval for ctx = EeMxFn: [y, g] = f (rows), g the M x F
 * (one score) or M x F x C gradients; the same checks and errors. */
EeStatus ee_mx_fn_eval_grad(void *ctx, const double *rows, int M, int F, long call, const double **scores,
                            const double **grads, int *C);
/* Frees the arrays fn holds (call once libcore has returned). */
void ee_mx_fn_release(EeMxFn *fn);

/* ee_sv (@f, X, ...) and ee_ig (@f, X, ...): the handle forms (mexfn.c). */
void ee_mx_sv_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
void ee_mx_ig_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
/* ee_lime (@f, X, ...) and ee_occlusion (@f, X, ...) (mexfn.c). */
void ee_mx_lime_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
void ee_mx_occlusion_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
/* ee_faithfulness (@f, X, A, ...) (mexfn.c). */
void ee_mx_faithfulness_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
/* What every mexFunction of a gateway with a handle form does first:
 * refuses (ee:notSupported, without touching the running call's state) a
 * call made from inside the f of a running handle-form call (the two
 * would share the gateway's buffers and interrupt hook); refuses fewer
 * than min_in arguments (ee:badInput, the usage line); hands a function
 * handle as the first argument to fn_form. Returns whether fn_form ran
 * (then the call is done). */
typedef void EeMxGateway(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
int ee_mx_fn_gateway(const char *gateway, const char *usage, int min_in, EeMxGateway *fn_form, int nlhs,
                     mxArray *plhs[], int nrhs, const mxArray *prhs[]);

#ifdef __cplusplus
}
#endif
#endif
