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

/* The baselines' logits and gradients kept across calls (baseline_cache.c).
 * The model key: of a classifier's fingerprint (ee_model_fingerprint) and
 * the device and precision of the passes; never 0. row: the caller's hash
 * of the row, mask and target (the slot; all three are compared in full).
 * get copies an entry's T x d gradient into grad and its logit into *f
 * and returns 1, or returns 0 when it has none; put keeps one (or not,
 * without memory). */
uint64_t ee_baseline_cache_model_key(const char *fingerprint, int device, int precision);
int ee_baseline_cache_get(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                          int target, float *grad, float *f);
void ee_baseline_cache_put(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                           int target, const float *grad, float f);

#endif
