/* ee_lime.c: MEX gateway. LIME of a model given as a function
 * handle (see ee_lime.m; the work is mexfn.c's, shared with ee_sv's handle
 * form). The token models are not taken here. */
#include "mexfn.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    ee_mx_fn_reentry_check("ee_lime");
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [A, info] = ee_lime(f, X, ...)");
    if (!mxIsClass(prhs[0], "function_handle"))
        ee_mx_error("ee:notSupported", "ee_lime takes a model given as a function handle (@f); got %s",
                    mxGetClassName(prhs[0]));
    ee_mx_lime_fn(nlhs, plhs, nrhs, prhs);
}
