/* ee_occlusion.c: MEX gateway. Leave-one-out occlusion of a model given as a function
 * handle (see ee_occlusion.m; the work is mexfn.c's, shared with ee_sv's handle
 * form).
 * A model struct (transformer, cnn, mlp) goes to mexcoal.c. */
#include "mexcoal.h"
#include "mexfn.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (ee_mx_fn_gateway("ee_occlusion", "[A, info] = ee_occlusion(model or f, X, ...)", 2, ee_mx_occlusion_fn, nlhs, plhs, nrhs, prhs))
        return;
    ee_mx_coalition_model("ee_occlusion", EE_COAL_OCCLUSION, nlhs, plhs, nrhs, prhs); /* a built-in model (mexcoal.c) */
}
