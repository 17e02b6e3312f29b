/* prior.h: the attribution prior of ee_train (inside libcore; the trainer
 * and tests/c/test_prior.c use it). */
#ifndef EE_PRIOR_H
#define EE_PRIOR_H

#include "../models/model_impl.h"

typedef struct EePrior EePrior;

/* Whether model m can train with a prior (a bias-free mlp classifier
 * without dropout); EE_ERR_UNSUPPORTED with the reason otherwise,
 * EE_ERR_INPUT for a mask with NaN/Inf or a negative or non-finite weight. */
EeStatus ee_prior_check(const EeModel *m, const float *mask, float weight, float dropout);

/* Buffers for batches of up to r->Bmax rows; mask: D floats (copied). */
EeStatus ee_prior_new(EeRun *r, const float *mask, float weight, EePrior **out);
void ee_prior_free(EePrior *p);

/* After a training forward pass of the run on the B rows x (host, B x D)
 * with 0-based labels y: adds to r->g the exact gradient, with the
 * activation pattern held fixed, of
 *     P = weight / B * sum_b || mask .* x_b .* grad_x f_{y_b}(x_b) ||^2
 * (the X-Gradient of each row's label logit) and sets *penalty = P.
 * It overwrites the run's input and kept activations (the trainer calls it
 * after the loss's own backward). */
EeStatus ee_prior_step(EePrior *p, const float *x, const int32_t *y, int B, double *penalty);

#endif
