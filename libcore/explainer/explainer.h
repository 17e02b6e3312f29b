/* explainer.h: what the files of libcore/explainer/ share (the Empirical
 * Explainer module: its design and defaults in spec.c, its features in
 * features.c and occlusion_features.c, the classifier at the baselines in
 * baseline_pass.c and baseline_cache.c, the margin explainers in margin.c,
 * ee_explain in features.c). The public calls are in ee.h. */
#ifndef EE_EXPLAINER_H
#define EE_EXPLAINER_H

#include "../attr/attr_common.h"

/* The occlusion features of EE_INPUTS_OCCLUSION (occlusion_features.c)
 * into slots 2 and 3 of F (N x T x k), for the targets tgt, rows taken in
 * `order`; *fwd counts the passes (2 n + 2 per row of n real tokens). */
EeStatus ee_occlusion_features(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int *order,
                               const int32_t *tgt, float *F, int k, long *fwd);

/* The classifier at each row's pad baseline (baseline_pass.c, where it is
 * described): the target's logit (and its gradient, with G), or with
 * target NULL every class's logits, each distinct baseline evaluated once
 * and kept across calls under model_key (not 0). */
EeStatus ee_baseline_pass(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int32_t *target,
                          uint64_t model_key, float *fb, float *zb, float **G, int *gidx, long *fwd, long *bwd,
                          long *kept);

/* A margin explainer (margin.c): the class of each row its map A (N x T,
 * signed toward the second class) says the binary classifier clf
 * predicts, from the map's sum and the classifier's margin at the row's
 * pad baseline (info gets the passes: forward, kept); and the maps signed
 * for the classes tg (negated where tg is the first class). */
EeStatus ee_margin_classes(EeModel *clf, const EeInput *in, const EeAttrOptions *o, const float *A, int32_t *tg,
                           EeAttrInfo *info);
void ee_margin_sign(int N, int T, const int32_t *tg, float *A);

/* The baselines' logits and gradients kept across calls (baseline_cache.c).
 * The model key: of a classifier's weight fingerprint and the device and
 * precision of the passes; never 0. row: the caller's hash of the row,
 * mask and target (the slot; all three are compared in full). An entry
 * holds the C logits at the baseline and, with d > 0, the T x d gradient
 * of the target's logit (d 0, target -1: the logits alone). get copies
 * them into grad and z and returns 1, or returns 0 when it has none; put
 * keeps one (or not, without memory). */
EeStatus ee_baseline_cache_model_key(const EeModel *clf, EeDevice device, EePrecision precision, uint64_t *key);
int ee_baseline_cache_get(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                          int target, float *grad, float *z, int C);
void ee_baseline_cache_put(uint64_t model, uint64_t row, const int32_t *ids, const uint8_t *mask, int T, int d,
                           int target, const float *grad, const float *z, int C);

#endif
