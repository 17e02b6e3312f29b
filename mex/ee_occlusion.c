/* ee_occlusion.c: MEX gateway. Leave-one-out occlusion of a model given as a function
 * handle (see ee_occlusion.m; the work is mexfn.c's, shared with ee_sv's handle
 * form). The token models are not taken here. */
#include "mexfn.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    ee_mx_fn_reentry_check("ee_occlusion");
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_occlusion(f, X, ...)");
    if (!mxIsClass(prhs[0], "function_handle"))
        ee_mx_error("ee:notSupported", "ee_occlusion takes a model given as a function handle (@f); got %s",
                    mxGetClassName(prhs[0]));
    ee_mx_occlusion_fn(nlhs, plhs, nrhs, prhs);
}
