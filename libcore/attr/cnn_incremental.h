/* cnn_incremental.h: the cnn classifier evaluated one coalition change at
 * a time on the CPU (cnn_incremental.c): Shapley sampling adds one token
 * per step (sv.c) and recomputes only the convolution windows it touches;
 * the coalition methods (KernelSHAP, LIME, occlusion: cnn_coalitions.c)
 * share its pieces. */
#ifndef EE_CNN_INCREMENTAL_H
#define EE_CNN_INCREMENTAL_H

#include "attr_common.h"

typedef struct {
    EeCnnView w;          /* the classifier's weights */
    int L;                /* the sequence's active length */
    const EeBackend *be;  /* the CPU backend: its products */
} CnnView;

/* out[t0..t1] of width k from embeddings e [L][d] (zero past L). */
void ee_cnn_windows(const CnnView *v, int k, const float *e, int t0, int t1, float *scratch, float *out);
/* out[0..L-1] of width k for the tokens ids (embedding rows, zero past
 * L): a window whose ids are the previous window's is that row copied
 * (the same data, the same chain), so a baseline of one token repeated
 * costs a few windows. scratch: L * w_k * d floats; map: L ints. */
void ee_cnn_windows_ids(const CnnView *v, int k, const int32_t *ids, float *scratch, int *map, float *out);
/* The pre-activations of width k of M windows given as rows of A (each
 * w_k * d floats, its embeddings in order) into out [M][F]: the bias and
 * then the backend's product, the chains of ee_cnn_windows (a row's bits
 * depend on its own data alone, whatever M). */
void ee_cnn_rows(const CnnView *v, int k, const float *A, int M, float *out);
/* The running maxima of width k's pre-activations out [L][F] over the
 * attended positions: pre[t][f] over the positions before t, suf[t][f]
 * over t and after (t = 0..L, each [L+1][F]; -inf over none; NaN never
 * wins). With them, a change of the windows t0..t1 gives each filter's
 * maximum from pre[t0], the new windows and suf[t1 + 1]. */
void ee_cnn_running_max(const CnnView *v, const float *out, const uint8_t *mask, float *pre, float *suf);
/* The max over the attended positions of filter f's pre-activations and
 * where it is (-1: none above -inf). */
void ee_cnn_max_scan(const CnnView *v, const float *out, const uint8_t *mask, int f, float *best, int *arg);
/* The same after the windows t0..t1 changed. */
void ee_cnn_max_update(const CnnView *v, const float *out, const uint8_t *mask, int t0, int t1, float *best,
                       int *arg);
/* Target logit from each width's maxima (summed in the order k, f). */
float ee_cnn_value(const CnnView *v, const float *best, int tg);

/* cnn_coalitions.c: the values of any coalitions (KernelSHAP, LIME,
 * occlusion's windows) on the CPU from per-position products, no full pass
 * per coalition: row i's coalitions first[i] .. first[i+1]-1 (bits,
 * `words` each) into value, with each row's target, f(x) and v(empty) (a
 * coalition with no player present takes v(empty); with `occlusion`, one
 * with no player absent takes NaN: no occlusion window); what names the
 * method in messages. The values are a full pass's up to float rounding. */
EeStatus ee_cnn_coalition_values(EeModel *m, const EeBackend *be, const EeInput *in, const EeAttrOptions *o,
                                 const char *what, int occlusion, const long *first, const uint64_t *coal,
                                 int words, int32_t *target, float *fx, float *value, float *vempty);
/* Whether the cnn's widths suit it: a window's presence bits are read
 * as one 64-bit word (widths up to EE_CNN_COALITION_WMAX). */
#define EE_CNN_COALITION_WMAX 57
int ee_cnn_coalition_fits(const EeModel *m);
/* Host bytes of ee_cnn_coalition_values's buffers beside the caller's
 * (each thread's per-row products and coalition scratch), for the
 * memory budget of ee_coalition_attribute_bytes. */
double ee_cnn_coalition_bytes(const EeModel *m);
/* The calls of ee_cnn_coalition_values so far (the tests' proof that the
 * path ran). */
long ee_cnn_coalition_calls(void);

#endif
