/* mexfeat.h: Empirical Explainers of a function of feature vectors (a
 * model given as a function handle): ee_train (@f, X, METHOD | A, ...)
 * and ee_explain of such an explainer (mexfeat.c). */
#ifndef EE_MEXFEAT_H
#define EE_MEXFEAT_H

#include "mexutils.h"

#ifdef __cplusplus
extern "C" {
#endif

/* expl = ee_train (@f, X, METHOD | A, ...) */
void ee_mx_train_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
/* 1 when a is a model struct of a feature-vector explainer (kind 'mlp',
 * head 'flat'): ee_explain hands it to ee_mx_explain_fn. */
int ee_mx_is_feature_explainer(const mxArray *a);
/* [A, info] = ee_explain (expl, X, 'model', @f, ...) */
void ee_mx_explain_fn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);

#ifdef __cplusplus
}
#endif
#endif
