/* ee_lime.c: MEX gateway. LIME of a model given as a function
 * handle (see ee_lime.m; the work is mexfn.c's, shared with ee_sv's handle
 * form).
 * A model struct (transformer, cnn, mlp) goes to mexcoal.c. */
#include "mexcoal.h"
#include "mexfn.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (ee_mx_fn_gateway("ee_lime", "[A, info] = ee_lime(model or f, X, ...)", 2, ee_mx_lime_fn, nlhs, plhs, nrhs, prhs))
        return;
    ee_mx_coalition_model("ee_lime", EE_COAL_LIME, nlhs, plhs, nrhs, prhs); /* a built-in model (mexcoal.c) */
}
