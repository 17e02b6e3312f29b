/* explainer.h: what the files of libcore/explainer/ share (the Empirical
 * Explainer module: its design and defaults in spec.c, its features in
 * features.c and occlusion_features.c, ee_explain in features.c). The
 * public calls are in ee.h. */
#ifndef EE_EXPLAINER_H
#define EE_EXPLAINER_H

#include "../attr/attr_common.h"

/* The occlusion features of EE_INPUTS_OCCLUSION (occlusion_features.c)
 * into slots 2 and 3 of F (N x T x k), for the targets tgt, rows taken in
 * `order`; *fwd counts the passes (2 n + 2 per row of n real tokens). */
EeStatus ee_occlusion_features(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int *order,
                               const int32_t *tgt, float *F, int k, long *fwd);

#endif
