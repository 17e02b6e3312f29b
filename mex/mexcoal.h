/* mexcoal.h: the coalition methods (occlusion, feature ablation,
 * KernelSHAP, LIME) of a built-in token model or mlp, as ee_occlusion,
 * ee_lime and ee_sv (..., 'method', 'kernelshap') take them (mexcoal.c);
 * a function handle as the model goes to mexfn.c instead. */
#ifndef EE_MEXCOAL_H
#define EE_MEXCOAL_H

#include "mexutils.h"

/* The whole call of `gateway` for a model struct in prhs[0]. */
void ee_mx_coalition_model(const char *gateway, EeCoalitionKind kind, int nlhs, mxArray *plhs[], int nrhs,
                           const mxArray *prhs[]);
/* Whether the name/value options from prhs[first] on hold 'method' with
 * the value `value` (case-insensitive), so that ee_sv can route its
 * 'kernelshap' here before its own parsing. */
int ee_mx_option_is(int nrhs, const mxArray *prhs[], int first, const char *name, const char *value);

#endif
