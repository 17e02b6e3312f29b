/* mexattr.h: what ee_ig and ee_sv share: baseline and target options,
 * row ranges, and the info struct. */
#ifndef EE_MEXATTR_H
#define EE_MEXATTR_H

#include "mexutils.h"

/* 'baseline': 'pad' | 'zero' | int32 N x T ids; 'target': 'argmax' | N-vector. */
void ee_mx_attr_baseline(const mxArray *v, const EeModel *m, int N, int allow_zero,
                         EeAttrOptions *o);
void ee_mx_attr_target(const mxArray *v, const EeModel *m, int N, EeAttrOptions *o);
/* 'rows': 1-based row indices into X (default all); returns count. */
int *ee_mx_attr_rows(const mxArray *v, int N, int *count);
/* The run of consecutive rows of X that starts at rows[i0]: returns its
 * end (one past); *s is a with the run's row offset (the gateways make one
 * call per run, keyed by its first row, so that a row's random streams do
 * not depend on the selection). */
int ee_mx_attr_run(const int *rows, int nrows, int i0, const EeAttrOptions *a, EeAttrOptions *s);
/* ee_mx_attr_run on rows that stay where they are in X: also the run's
 * rows of all (W values a row: token ids or an mlp's features) in *in, and
 * in *s its rows of a's baseline ids (W a row) and targets. */
int ee_mx_attr_run_rows(const int *rows, int nrows, int i0, const EeInput *all, int W, const EeAttrOptions *a,
                        EeAttrOptions *s, EeInput *in);
/* The info's per-row arrays for nrows rows, on the call's memory: target
 * and fx, and with completeness (f(baseline) and the sum's gap) fbaseline
 * and delta (NULL without). */
EeAttrInfo ee_mx_attr_info_new(int nrows, int completeness);
/* info's per-row arrays from row i0 on (the NULL ones NULL), the totals 0. */
EeAttrInfo ee_mx_attr_info_from(const EeAttrInfo *info, int i0);
/* 'batch', 'device', 'precision', 'verbose' (NULL when not given) into a. */
void ee_mx_attr_exec(const mxArray *batch, const mxArray *device, const mxArray *precision, const mxArray *verbose,
                     EeAttrOptions *a);
/* Reads X for an attribution (token ids or dense). */
void ee_mx_attr_inputs(const mxArray *X, const EeModel *m, EeInput *in);
/* The start the gateways of a model struct share: ee_mx_start (at most
 * two outputs, the call begun, the options from prhs[first] on parsed
 * into o; gateway names the call), the model of prhs[0]
 * (refused with ee:notSupported and mlp_refusal when it is an mlp and
 * mlp_refusal is not NULL), then the rows of prhs[1] read into all. */
EeModel *ee_mx_attr_start(const char *gateway, int nlhs, int nrhs, const mxArray *prhs[], int first,
                          const char *const *names, EeMxOpt *o, int nopt, const char *mlp_refusal, EeInput *all);
/* The defaults of a Shapley call and its sampling options ('exact',
 * 'samples', 'seed'; NULL when not given), read in that order as both
 * forms of ee_sv take them; returns 'exact'. */
int ee_mx_attr_sampling(const mxArray *exact, const mxArray *samples, const mxArray *seed, EeAttrOptions *a);
/* The info struct returned by ee_ig / ee_sv. */
mxArray *ee_mx_attr_info(const EeAttrInfo *info, int N, const char *method, int steps, int with_delta);

#endif
