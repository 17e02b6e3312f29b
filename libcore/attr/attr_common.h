/* attr_common.h: what the attribution samplers share: option checks,
 * original masks and baselines, a batched forward evaluator, progress. */
#ifndef EE_ATTR_COMMON_H
#define EE_ATTR_COMMON_H

#include "../models/model_impl.h"

/* Validates options against the model and input (targets, baseline ids). */
EeStatus ee_attr_check(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int for_sv);

/* Original attention mask of row i (1 = attended), from in->mask or id != PAD. */
void ee_attr_row_mask(const EeModel *m, const EeInput *in, int i, uint8_t *mask);
/* Baseline ids of row i for the pad / ids baselines. */
void ee_attr_row_baseline(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int i,
                          int32_t *ids);

/* Rate/ETA progress printer, at most one line every 2 s. */
typedef struct {
    const EeAttrOptions *o;
    const char *what;
    const char *unit; /* what is counted: "sequences" (token rows), "rows" (feature vectors) */
    double t0, last;
    long total;
} EeProgress;
void ee_progress_start(EeProgress *p, const EeAttrOptions *o, const char *what, long total);
/* The same for rows of feature vectors (the handle methods): "rows". */
void ee_progress_start_rows(EeProgress *p, const EeAttrOptions *o, const char *what, long total);
void ee_progress_tick(EeProgress *p, long done);
/* The same where the sequences' costs differ: the ETA from the work done
 * (e.g. passes) out of work_total, not from the count of sequences. */
void ee_progress_tick_work(EeProgress *p, long done, double work, double work_total);
void ee_progress_end(EeProgress *p, long done, long passes);

/* Runs fn with the options' batch (or the device's default) and, on the
 * GPU, halves the batch while fn runs out of memory: a batch that does not
 * fit is split, not refused (ee_fit_batch, models/predict.c). */
typedef EeStatus (*EeAttrFn)(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                             EeAttrInfo *info);
EeStatus ee_attr_fit_batch(EeAttrFn fn, EeModel *m, const EeInput *in, const EeAttrOptions *o,
                           float *A, EeAttrInfo *info);

/* Forward logits of B token rows (row-major ids and masks, host) into
 * out (host, B x classes). */
EeStatus ee_attr_logits(EeRun *r, const int32_t *ids, const uint8_t *mask, int B, float *out);

/* Targets and f(x) of every row (argmax when o->target is NULL). */
EeStatus ee_attr_targets(EeRun *r, const EeInput *in, const EeAttrOptions *o, int32_t *target,
                         float *fx);

/* SV's permutation k of the n features of row `row` (the row's index in
 * the caller's full data): Fisher-Yates on the stream (seed, row, k),
 * doc/RANDOM.md. The one definition of the draw, shared by the token
 * models' sampler (sv.c) and the function's (sv_fn.c). */
void ee_sv_permutation(uint64_t seed, long row, int k, int n, int *perm);

/* Checks what a model callback returned in call `call` for M rows: C
 * scores per row (equal to *C_known once that is set; it is set here),
 * all finite, and with F > 0 the M x F x C gradients g, all finite.
 * EE_ERR_INPUT naming the call, the row and the score otherwise. */
EeStatus ee_fn_check(long call, int M, int F, const double *y, const double *g, int C, int *C_known);

/* The callback models' results into info (NULL: none): ee_fn_info_rows
 * copies the N targets and f(x) (a call that succeeded), ee_fn_info_totals
 * the counts and times (every call, from t0 = ee_now() at its start). */
void ee_fn_info_rows(EeFnInfo *info, int N, const int32_t *target, const double *fx);
void ee_fn_info_totals(EeFnInfo *info, long rows, long calls, double seconds_eval, double t0);

/* The transformer on the CPU with its layer-0 projections reused
 * (tf_cache.c): ee_tf_cache_fill writes row i's cache (ee_tf_cache_floats
 * floats: embedding outputs and layer-0 q, k, v of the input and of the
 * baseline; any r of the model); ee_tf_cached_logits runs nb coalition rows
 * (each position the input's or the baseline's token) of rows row_i[j]
 * whose caches are cache[j], and writes their logits. Used where
 * ee_tf_cache_applies: a transformer of more than one layer, a backend
 * with host memory, o->full_passes 0. */
#define EE_TF_CACHE_BATCH_MAX 4096
int ee_tf_cache_applies(const EeRun *r, const EeAttrOptions *o);
/* the same rule before a run exists (memory estimates): host_memory of the
 * backend that will run it */
int ee_tf_cache_applies_to(const EeConfig *c, int host_memory, const EeAttrOptions *o);
/* A cache's parts, T x d floats each: embedding outputs, q, k, v of the
 * input (X) and of the baseline (B). */
enum { EE_TFC_EX, EE_TFC_EB, EE_TFC_QX, EE_TFC_QB, EE_TFC_KX, EE_TFC_KB, EE_TFC_VX, EE_TFC_VB, EE_TFC_N };
size_t ee_tf_cache_floats(const EeConfig *c);
/* Rows [0, nb) of dst[0 .. parts-1] (at the active length L: parts 0..3
 * = e, q, k, v) from the caches, each position the input's part where the
 * coalition row (ids) has the input's token, else the baseline's. */
void ee_tf_cache_copy(const EeConfig *c, const EeInput *in, const float *const *cache, const int *row_i,
                      const int32_t *ids, int nb, int L, int parts, float *const *dst);
EeStatus ee_tf_cache_fill(EeRun *r, const EeInput *in, const EeAttrOptions *o, int i, float *cache);
EeStatus ee_tf_cached_logits(EeRun *r, const EeInput *in, const float *const *cache, const int *row_i,
                             const int32_t *ids, const uint8_t *mask, int nb, float *out);

/* Occlusion on the transformer on the CPU (tf_incremental.c): a copy that
 * differs from its row in one window of positions gets layer 0's
 * attention from the row's (prefix and suffix sums over the keys, built
 * once per row by ee_tf_windows_new from its cache), then the rest of a
 * forward pass. ee_tf_window_logits: as ee_tf_cached_logits, from the
 * rows' windows[j] (each made from the cache of row row_i[j]). Used
 * under the conditions of the cache, for a classifier without explainer
 * features. ee_tf_window_calls: the calls so far (the tests' proof that
 * the path runs). ee_tf_windows_bytes: the host memory one row's holds. */
typedef struct EeTfWindows EeTfWindows;
EeStatus ee_tf_windows_new(const EeModel *m, const EeInput *in, int i, const float *cache, EeTfWindows **out);
void ee_tf_windows_free(EeTfWindows *w);
EeStatus ee_tf_window_logits(EeRun *r, const EeInput *in, const EeTfWindows *const *windows, const int *row_i,
                             const int32_t *ids, const uint8_t *mask, int nb, float *out);
long ee_tf_window_calls(void);
double ee_tf_windows_bytes(const EeConfig *c);
/* the models whose copies can take layer 0's attention from the row's: a
 * transformer classifier of 2 or more layers without explainer features */
int ee_tf_windows_apply(const EeConfig *c);

/* The values v(S) of coalitions of each row's players (kernel_values.c;
 * the one masked evaluator of target-free training and the coalition
 * methods): players are a token model's real tokens in position order
 * (absent: the baseline id under the row's own mask, as ee_sv) or an
 * mlp's D features (absent: 0); v(S) = the target's logit (o->target or
 * the argmax at x). One pass for f(x), one for v(empty) and one per
 * non-empty coalition, all rows' copies filling passes (o->batch) in
 * length order. */
typedef struct {
    int words;              /* uint64 words per coalition */
    const long *first;      /* N + 1: row i's coalitions are first[i] .. first[i + 1] - 1 */
    const uint64_t *coal;   /* first[N] x words: bit j = the row's player j present */
    float *value;           /* first[N]: v(S) (v(empty) for an empty S, f(x) for rows without players) */
    float *vempty, *fx;     /* N: v(empty), v(all) = f(x) */
    int32_t *target;        /* N */
    long passes;            /* written */
    int windows;            /* each coalition leaves out one window of the row's
                               players (occlusion): the transformer's layer-0
                               attention from the row's (tf_incremental.c) */
} EeMaskedValues;
EeStatus ee_masked_values(EeModel *clf, const EeInput *in, const EeAttrOptions *o, const char *what,
                          EeMaskedValues *mv);
/* Players of row i as ee_masked_values counts them. */
int ee_masked_players(const EeModel *m, const EeInput *in, int i);

/* faithfulness.c's pieces that faith_fn.c shares: which counts j of a
 * row of n players some measure reads (need[j] bit 1: the deletion copy,
 * bit 2: the insertion copy; lo the log-odds count; returns the copies to
 * evaluate), and row i's measures from D_j, I_j (j = 0..n) and the
 * log-odds at x and at lo (n = 0: every measure NaN). */
long ee_faith_mark_needed(char *need, int n, int K, int lo);
void ee_faith_row_metrics(EeFaithResult *res, const EeFaithOptions *f, int i, int n, const double *D, const double *I,
                          double lo_x, double lo_m);

#endif
