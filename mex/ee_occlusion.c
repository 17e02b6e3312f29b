/* ee_occlusion.c: MEX gateway. Leave-one-out occlusion of a model given as a function
 * handle (see ee_occlusion.m; the work is mexfn.c's, shared with ee_sv's handle
 * form).
 * A model struct (transformer, cnn, mlp) goes to mexcoal.c. */
#include "mexcoal.h"
#include "mexfn.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    ee_mx_fn_reentry_check("ee_occlusion");
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_occlusion(model or f, X, ...)");
    if (!mxIsClass(prhs[0], "function_handle")) { /* a built-in model (mexcoal.c) */
        ee_mx_coalition_model("ee_occlusion", EE_COAL_OCCLUSION, nlhs, plhs, nrhs, prhs);
        return;
    }
    ee_mx_occlusion_fn(nlhs, plhs, nrhs, prhs);
}
