/* train.c: minibatch training shared by classifiers (cross-entropy on class
 * labels) and Empirical Explainers (MSE on attribution maps, or the
 * target-free Shapley-kernel loss of kernel.c on coalition values): seeded
 * shuffling, Adam, dropout, per-epoch validation, early stopping that
 * keeps the best weights, and a progress line with rate and ETA. */
#include "../models/model_impl.h"
#include "prior.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ee_schedule_names[EE_SCHEDULE_COUNT] = {"constant", "cosine"};

void ee_train_options_defaults(EeTrainOptions *o, EeKind kind, EeHead head)
{
    memset(o, 0, sizeof *o);
    o->epochs = 10;
    o->patience = 3;
    o->seed = 1;
    o->verbose = 1;
    o->device = EE_DEVICE_AUTO;
    switch (kind) {
    case EE_KIND_TRANSFORMER:
        o->batch = 32; o->lr = 5e-4f; o->dropout = 0.1f;
        break;
    case EE_KIND_CNN:
        o->batch = 50; o->lr = 1e-3f; o->dropout = 0.5f;
        break;
    case EE_KIND_MLP:
        o->batch = 32; o->lr = 1e-3f; o->dropout = 0.0f; o->epochs = 50;
        break;
    }
    if (head != EE_HEAD_CLASSIFIER) {
        o->lr = 1e-3f; o->dropout = 0.0f; o->epochs = 20;
        o->standardize = 1;
        o->schedule = EE_SCHEDULE_COSINE;
    }
}

void ee_history_free(EeHistory *h)
{
    if (!h) return;
    free(h->train_loss);
    free(h->valid_loss);
    free(h->valid_metric);
    free(h->prior_penalty);
    memset(h, 0, sizeof *h);
}

#define say(o, ...) ee_say((o)->verbose, (o)->print, (o)->print_ctx, __VA_ARGS__)

static void fmt_time(double s, char *buf, size_t n)
{
    if (!isfinite(s) || s < 0) snprintf(buf, n, "?");
    else if (s < 90) snprintf(buf, n, "%.0fs", s);
    else if (s < 5400) snprintf(buf, n, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
    else snprintf(buf, n, "%.0fh%02.0fm", floor(s / 3600), fmod(floor(s / 60), 60));
}

typedef struct {
    EeRun *r;
    const EeBackend *be;
    const EeConfig *c;
    int classifier, outs, feats;
    double map_scale;             /* explainers: targets are divided by it */
    int32_t *h_ids, *d_labels, *h_labels;
    uint8_t *h_mask;
    float *h_x, *h_maps, *h_feats, *d_maps, *d_dout;
    /* the kernel loss: the batch's outputs and gradient on the host */
    float *h_out, *h_dout;
    double *h_phi, *h_grad;
    int *h_pos;
    /* a step's rows split by length (split_by_length): each training
     * row's active length (fixed: found once), the step's rows in order of
     * it, the groups' ends, and the split's scratch */
    int *row_len, *s_idx, *s_end, *s_runend, *s_runlen, *s_count, *s_from;
    double *s_cost;
} Trainer;

/* Values per row of an explainer's training maps: T positions of a token
 * explainer, the P players of a feature-vector explainer (mlp). */
static int map_width(const EeConfig *c)
{
    return ee_is_token_model(c) ? c->T : ee_config_outputs(c);
}

/* Gathers rows idx[0..nb) of a dataset into the run (and the targets). */
static EeStatus load_batch(Trainer *t, const EeDataset *ds, const int *idx, int nb)
{
    const EeConfig *c = t->c;
    int T = c->T, token = ee_is_token_model(c), MW = map_width(c);
    for (int i = 0; i < nb; i++) {
        size_t s = (size_t)idx[i];
        if (token) {
            memcpy(t->h_ids + (size_t)i * T, ds->in.ids + s * T, sizeof(int32_t) * T);
            if (ds->in.mask) memcpy(t->h_mask + (size_t)i * T, ds->in.mask + s * T, T);
        } else {
            memcpy(t->h_x + (size_t)i * c->D, ds->in.x + s * c->D, sizeof(float) * c->D);
        }
        if (t->classifier) t->h_labels[i] = ds->labels[s];
        else if (ds->maps)
            for (int k = 0; k < MW; k++)
                t->h_maps[(size_t)i * MW + k] = (float)(ds->maps[s * MW + k] / t->map_scale);
        if (t->feats)
            memcpy(t->h_feats + (size_t)i * T * t->feats, ds->in.feats + s * T * t->feats,
                   sizeof(float) * T * t->feats);
    }
    EeStatus st = ee_run_set_input(t->r, token ? t->h_ids : NULL,
                                   token && ds->in.mask ? t->h_mask : NULL, token ? NULL : t->h_x, nb);
    if (!st && t->feats) st = ee_run_set_features(t->r, t->h_feats, nb);
    if (st) return st;
    if (t->classifier) t->be->upload(t->d_labels, t->h_labels, sizeof(int32_t) * nb);
    else if (ds->maps) t->be->upload(t->d_maps, t->h_maps, sizeof(float) * (size_t)nb * MW);
    return EE_OK;
}

static int predicted(const EeConfig *c, int32_t id);

/* The kernel loss of the batch's rows idx[0..nb) (kernel.c), in the
 * standardised unit like the MSE: each row's ee_kernel_loss of its real
 * tokens' outputs, plus the squares of its outputs at the other predicted
 * positions (0 in every Shapley map), over nb T; its gradient into d_dout. */
static float kernel_batch_loss(Trainer *t, const EeDataset *ds, const int *idx, int nb, int want_grad)
{
    const EeKernelTargets *kt = ds->kernel;
    int T = t->c->T;
    double ms = t->map_scale, total = 0;
    t->be->download(t->h_out, t->r->out, sizeof(float) * (size_t)nb * T);
    for (int i = 0; i < nb; i++) {
        size_t s = (size_t)idx[i];
        const int32_t *ids = ds->in.ids + s * T;
        const float *out = t->h_out + (size_t)i * T;
        float *dout = t->h_dout + (size_t)i * T;
        int n = 0;
        for (int p = 0; p < T; p++) {
            dout[p] = 0;
            if (!EE_IS_SPECIAL(ids[p])) {
                t->h_pos[n] = p;
                t->h_phi[n++] = (double)out[p] * ms;
            } else if (predicted(t->c, ids[p])) {
                double y = (double)out[p] * ms;
                total += y * y;
                dout[p] = (float)(2 * y * ms);
            }
        }
        total += ee_kernel_loss(n, t->h_phi, kt->total[s], kt->K, kt->words, kt->coal + s * kt->K * kt->words,
                                kt->value + s * kt->K, kt->weight ? kt->weight + s * kt->K : NULL, t->h_grad);
        for (int j = 0; j < n; j++) dout[t->h_pos[j]] = (float)(t->h_grad[j] * ms);
    }
    /* the loss in units of ms^2 per position; dout = d loss / d out */
    double denom = (double)nb * T * ms * ms;
    if (want_grad) {
        for (size_t q = 0; q < (size_t)nb * T; q++) t->h_dout[q] = (float)(t->h_dout[q] / denom);
        t->be->upload(t->d_dout, t->h_dout, sizeof(float) * (size_t)nb * T);
    }
    return (float)(total / denom);
}

/* Loss of the current forward output; writes dout when want_grad. */
static float batch_loss(Trainer *t, const EeDataset *ds, const int *idx, int nb, int want_grad)
{
    float loss = 0;
    if (!t->classifier && ds->kernel && !ds->maps) return kernel_batch_loss(t, ds, idx, nb, want_grad);
    if (t->classifier)
        t->be->softmax_xent(t->r->out, t->d_labels, t->d_dout, &loss, nb, t->outs);
    else
        t->be->mse(t->r->out, t->d_maps, want_grad ? t->d_dout : NULL, &loss, nb, t->outs);
    return loss;
}

/* ---- a step's rows in groups of similar length ----
 * A pass runs at the active length of its longest row, so a step over
 * random rows of mixed lengths (glosses of 3 to 32 tokens, fortunes of 5
 * to 64) spends much of its time on padding.  Where a step's rows are
 * independent of each other (an explainer without dropout, whose masks
 * follow a row's place in the batch, and without an attribution prior,
 * which reads the whole batch's pass), the step runs them in groups of
 * similar length, each at its own active length, and adds up their
 * gradients: the gradient of the whole batch (each loss is a sum over
 * rows; only the order of the floating-point sums changes).  On the CPU
 * only: there a pass costs about its positions' work, on a GPU mostly its
 * launches.  The groups minimise an estimated cost: per group a fixed
 * SPLIT_PASS_POSITIONS positions' worth (the ops' fixed cost in a forward
 * and a backward pass), plus rows x L x (1 + L / (6 d)) for the
 * transformer (attention's 2 L d products per position beside the 12 d^2
 * of its projections) or rows x L for the cnn. */
#define SPLIT_PASS_POSITIONS 128 /* measured: 64 to 256 within noise (2 threads, glosses) */

static int split_applies(const Trainer *t, const EeTrainOptions *opt, const EePrior *prior)
{
    return !opt->whole_batches && !t->classifier && !(opt->dropout > 0) && !prior && ee_is_token_model(t->c) &&
           t->be->device == EE_DEVICE_CPU;
}

/* Rows idx[0..nb) by active length into t->s_idx (stable), cut into
 * groups: group g is s_idx[s_end[g-1] .. s_end[g]), s_end[-1] = 0.
 * Returns the number of groups.  A cut inside a run of equal lengths
 * only adds a pass, so the cuts are chosen among the ends of the lengths'
 * runs: O(min(nb, T)^2) per step. */
static int split_by_length(Trainer *t, const int *idx, int nb)
{
    const EeConfig *c = t->c;
    int T = c->T, *count = t->s_count; /* per length, then the end of its rows */
    memset(count, 0, sizeof(int) * (T + 2));
    for (int i = 0; i < nb; i++) count[t->row_len[idx[i]] + 1]++;
    for (int L = 1; L <= T; L++) count[L + 1] += count[L];
    for (int i = 0; i < nb; i++) t->s_idx[count[t->row_len[idx[i]]]++] = idx[i];
    /* the runs: m ends e[k] (rows [e[k-1], e[k]) have length len[k]) */
    int m = 0, *e = t->s_runend, *len = t->s_runlen;
    for (int L = 1, prev = 0; L <= T; L++)
        if (count[L] > prev) {
            e[m] = count[L];
            len[m++] = L;
            prev = count[L];
        }
    double quad = c->kind == EE_KIND_TRANSFORMER ? 1.0 / (6.0 * c->d) : 0.0;
    int *from = t->s_from;
    double *cost = t->s_cost; /* cost[k + 1]: the best split of the first k + 1 runs */
    cost[0] = 0;
    for (int k = 0; k < m; k++) { /* runs j..k as the last group, at run k's length */
        double L = len[k], per_row = L * (1 + L * quad);
        cost[k + 1] = INFINITY;
        for (int j = 0; j <= k; j++) {
            double v = cost[j] + SPLIT_PASS_POSITIONS + (e[k] - (j ? e[j - 1] : 0)) * per_row;
            if (v < cost[k + 1]) { cost[k + 1] = v; from[k + 1] = j; }
        }
    }
    int ng = 0;
    for (int k = m; k > 0; k = from[k]) ng++;
    for (int k = m, g = ng - 1; k > 0; k = from[k]) t->s_end[g--] = e[k - 1];
    return ng;
}

/* One step's gradient of rows idx[0..nb) into t->r->g (zeroed from W0 on)
 * and their mean loss into *loss, in groups by length where split; a
 * non-finite *loss where the loss diverged (no gradient then).  With an
 * attribution prior its penalty (ee_prior_step) into *pen.  Adds the
 * forward and backward passes it ran to *passes. */
static EeStatus step_gradient(Trainer *t, const EeDataset *ds, const int *idx, int nb, int split, size_t W0,
                              EePrior *prior, float *loss, double *pen, long *passes)
{
    int ng = 1;
    const int *rows = idx;
    if (split) {
        ng = split_by_length(t, idx, nb);
        rows = t->s_idx;
    } else {
        t->s_end[0] = nb;
    }
    t->be->zero(t->r->g + W0, sizeof(float) * (t->r->m->total - W0));
    double sum = 0;
    *pen = 0;
    for (int g = 0, i0 = 0; g < ng; i0 = t->s_end[g++]) {
        int gn = t->s_end[g] - i0;
        EeStatus st = load_batch(t, ds, rows + i0, gn);
        if (st) return st;
        ee_run_embed(t->r, gn);
        ee_run_forward(t->r, gn, 1);
        float lg = batch_loss(t, ds, rows + i0, gn, 1);
        if (!isfinite(lg)) {
            *loss = lg;
            return EE_OK;
        }
        sum += (double)lg * gn;
        if (gn < nb) t->be->scale((size_t)gn * t->outs, (float)gn / (float)nb, t->d_dout);
        ee_run_backward(t->r, gn, t->d_dout, 1, 1);
        if (prior && (st = ee_prior_step(prior, t->h_x, t->h_labels, gn, pen))) /* after the loss's backward: */
            return st;                                                       /* it overwrites the kept activations */
        ee_run_embed_backward(t->r, gn);
        ++*passes;
    }
    *loss = (float)(sum / nb);
    return EE_OK;
}

/* Mean loss and metric (accuracy for classifiers, MSE for explainers). */
static EeStatus evaluate(Trainer *t, const EeDataset *ds, double *loss, double *metric)
{
    int B = t->r->Bmax, n = ds->in.n, correct = 0;
    double total = 0;
    int *idx = malloc(sizeof(int) * (size_t)B);
    float *out = malloc(sizeof(float) * (size_t)B * t->outs);
    if (!idx || !out) { free(idx); free(out); return ee_fail(EE_ERR_NOMEM, "out of memory"); }
    EeStatus st = EE_OK;
    for (int i0 = 0; i0 < n && !st; i0 += B) {
        int nb = n - i0 < B ? n - i0 : B;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during training");
            break;
        }
        for (int i = 0; i < nb; i++) idx[i] = i0 + i;
        if ((st = load_batch(t, ds, idx, nb))) break;
        ee_run_embed(t->r, nb);
        ee_run_forward(t->r, nb, 0);
        total += (double)batch_loss(t, ds, idx, nb, 0) * nb * t->map_scale * t->map_scale;
        if (t->classifier) {
            t->be->download(out, t->r->out, sizeof(float) * (size_t)nb * t->outs);
            for (int i = 0; i < nb; i++) {
                int best = ee_argmax(out + (size_t)i * t->outs, t->outs);
                correct += best == t->h_labels[i];
            }
        }
    }
    free(idx);
    free(out);
    *loss = total / (n ? n : 1);
    *metric = t->classifier ? (double)correct / (n ? n : 1) : *loss;
    return st;
}

static EeStatus check_dataset(const EeModel *m, const EeDataset *ds, const char *what, int classifier)
{
    if (!ds || ds->in.n == 0) return EE_OK;
    EeStatus st = ee_input_check(m, &ds->in);
    if (st) return ee_fail(st, "%s data: %s", what, ee_last_error());
    const EeConfig *c = &m->cfg;
    for (int i = 0; i < ds->in.n; i++) {
        if (classifier) {
            if (!ds->labels || ds->labels[i] < 0 || ds->labels[i] >= c->classes)
                return ee_fail(EE_ERR_INPUT, "%s label at row %d must be in 1..%d", what, i + 1, c->classes);
        } else if (!ds->maps) {
            const EeKernelTargets *kt = ds->kernel;
            if (!kt || kt->K < 1 || kt->words < ee_kernel_words(ee_count_real(ds->in.ids + (size_t)i * c->T, c->T)))
                return ee_fail(EE_ERR_INPUT, "%s data: neither attribution maps nor coalition values", what);
            if (!isfinite(kt->total[i]))
                return ee_fail(EE_ERR_INPUT, "%s coalition values have NaN or Inf at row %d", what, i + 1);
            for (int k = 0; k < kt->K; k++)
                if (!isfinite(kt->value[(size_t)i * kt->K + k]) || (kt->weight && !(kt->weight[(size_t)i * kt->K + k] >= 0)))
                    return ee_fail(EE_ERR_INPUT, "%s coalition values or weights bad at row %d", what, i + 1);
        } else {
            for (int t = 0; t < map_width(c); t++)
                if (!isfinite(ds->maps[(size_t)i * map_width(c) + t]))
                    return ee_fail(EE_ERR_INPUT, "%s attribution map has NaN or Inf at row %d", what, i + 1);
        }
    }
    return EE_OK;
}

/* Whether position t of a row is predicted by an explainer (its output is
 * not fixed at 0), as ee_run_set_input decides. */
static int predicted(const EeConfig *c, int32_t id)
{
    if (c->zero_special) return !EE_IS_SPECIAL(id);
    if (c->attend_tokens) return id != EE_PAD;
    return 1;
}

/* The RMS of the training maps over the predicted positions: the unit the
 * optimiser sees (1 when there is nothing to measure). */
static double map_rms(const EeConfig *c, const EeDataset *ds)
{
    double ss = 0;
    size_t n = 0;
    int token = ee_is_token_model(c);
    for (size_t q = 0; q < (size_t)ds->in.n * map_width(c); q++)
        if (!token || predicted(c, ds->in.ids[q])) { /* a feature explainer predicts every player */
            ss += (double)ds->maps[q] * ds->maps[q];
            n++;
        }
    double rms = n ? sqrt(ss / n) : 0;
    return rms > 0 && isfinite(rms) ? rms : 1.0;
}

/* The kernel loss's unit, as map_rms's without maps: the RMS of
 * b(S) / sqrt(|S|) over the rows' non-empty coalitions (for independent
 * token values of RMS r it is about r). */
static double kernel_rms(const EeConfig *c, const EeDataset *ds)
{
    const EeKernelTargets *kt = ds->kernel;
    double ss = 0;
    size_t n = 0;
    for (size_t i = 0; i < (size_t)ds->in.n; i++)
        for (int k = 0; k < kt->K; k++) {
            const uint64_t *S = kt->coal + (i * kt->K + k) * kt->words;
            int m = 0;
            for (int w = 0; w < kt->words; w++) m += __builtin_popcountll(S[w]);
            if (!m) continue;
            double b = kt->value[i * kt->K + k];
            ss += b * b / m;
            n++;
        }
    double rms = n ? sqrt(ss / n) : 0;
    return rms > 0 && isfinite(rms) ? rms : 1.0;
}

/* feat_scale := the RMS of each feature over the attended positions of the
 * training rows, so the features enter at unit scale. */
static void fit_feature_scale(EeModel *m, const EeDataset *ds)
{
    const EeConfig *c = &m->cfg;
    int k = ee_config_features(c), si = ee_model_find_param(m, NULL, 0, "feat_scale");
    if (!k || si < 0) return;
    float *scale = m->w + m->p[si].offset;
    for (int j = 0; j < k; j++) {
        double ss = 0;
        size_t n = 0;
        for (size_t q = 0; q < (size_t)ds->in.n * c->T; q++)
            if (ds->in.ids[q] != EE_PAD) {
                double f = ds->in.feats[q * k + j];
                ss += f * f;
                n++;
            }
        double rms = n ? sqrt(ss / n) : 0;
        scale[j] = rms > 0 && isfinite(rms) ? (float)rms : 1.0f;
    }
}

/* The explainer's start from the least-squares linear map of its features
 * to the (standardised) training maps over the predicted positions: feat_v
 * and head_b from the normal equations (a tiny ridge keeps them solvable),
 * head_W zero. Adam moves a weight by about lr per step, so a few hundred
 * steps could not reach this map from zero; from here, training only has to
 * learn what the features miss. */
static EeStatus fit_feature_map(EeModel *m, const EeDataset *ds, double map_scale)
{
    const EeConfig *c = &m->cfg;
    int k = ee_config_features(c), K = k + 1, T = c->T;
    int si = ee_model_find_param(m, NULL, 0, "feat_scale"), vi = ee_model_find_param(m, NULL, 0, "feat_v");
    int wi = ee_model_find_param(m, NULL, 0, "head_W"), bi = ee_model_find_param(m, NULL, 0, "head_b");
    if (!k || si < 0 || vi < 0 || wi < 0 || bi < 0) return EE_OK;
    const float *scale = m->w + m->p[si].offset;
    double *G = calloc((size_t)K * K + K + K, sizeof(double)), *r = G + (size_t)K * K, *z = r + K;
    if (!G) return ee_fail(EE_ERR_NOMEM, "out of memory");
    for (size_t q = 0; q < (size_t)ds->in.n * T; q++) {
        if (!predicted(c, ds->in.ids[q])) continue;
        for (int j = 0; j < k; j++) z[j] = ds->in.feats[q * k + j] / scale[j];
        z[k] = 1.0; /* the bias */
        double a = ds->maps[q] / map_scale;
        for (int i = 0; i < K; i++) {
            r[i] += z[i] * a;
            for (int j = 0; j <= i; j++) G[(size_t)i * K + j] += z[i] * z[j];
        }
    }
    double tr = 0;
    for (int i = 0; i < K; i++) tr += G[(size_t)i * K + i];
    for (int i = 0; i < K; i++) G[(size_t)i * K + i] += 1e-6 * (tr / K + 1e-12);
    /* Cholesky (lower triangle), then two triangular solves into r */
    int ok = 1;
    for (int j = 0; j < K && ok; j++) {
        double d = G[(size_t)j * K + j];
        for (int q = 0; q < j; q++) d -= G[(size_t)j * K + q] * G[(size_t)j * K + q];
        if (!(d > 0)) { ok = 0; break; }
        G[(size_t)j * K + j] = sqrt(d);
        for (int i = j + 1; i < K; i++) {
            double v = G[(size_t)i * K + j];
            for (int q = 0; q < j; q++) v -= G[(size_t)i * K + q] * G[(size_t)j * K + q];
            G[(size_t)i * K + j] = v / G[(size_t)j * K + j];
        }
    }
    if (ok) {
        for (int i = 0; i < K; i++) {
            double v = r[i];
            for (int q = 0; q < i; q++) v -= G[(size_t)i * K + q] * r[q];
            r[i] = v / G[(size_t)i * K + i];
        }
        for (int i = K - 1; i >= 0; i--) {
            double v = r[i];
            for (int q = i + 1; q < K; q++) v -= G[(size_t)q * K + i] * r[q];
            r[i] = v / G[(size_t)i * K + i];
        }
        float *v = m->w + m->p[vi].offset, *b = m->w + m->p[bi].offset;
        for (int j = 0; j < k; j++) v[j] = (float)r[j];
        for (size_t q = 0; q < m->p[bi].count; q++) b[q] = (float)r[k];
        memset(m->w + m->p[wi].offset, 0, sizeof(float) * m->p[wi].count);
    }
    free(G);
    return EE_OK;
}

/* The explainer was trained on maps / s: its outputs scale by s when every
 * term of the head does (the head's weights, its bias and the features'
 * direct path). */
static void fold_map_scale(EeModel *m, double s)
{
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        /* a feature explainer (mlp): its head is the last linear layer */
        int last_fc = ee_is_feature_explainer(&m->cfg) && !strcmp(p->group, "fc") && p->index == m->cfg.nhidden;
        if (!last_fc && (p->group[0] || (strncmp(p->field, "head_", 5) && strcmp(p->field, "feat_v")))) continue;
        float *w = m->w + p->offset;
        for (size_t k = 0; k < p->count; k++) w[k] = (float)(w[k] * s);
    }
}

/* Whether parameter p stays as it is at freeze level `level` (1: the
 * embedding module, token and position tables and their LayerNorm; 2: also
 * every encoder layer but the last). */
static int frozen_at(const EeModel *m, const EeParam *p, int level)
{
    static const char *const names[] = {"E_tok", "E_pos", "ln_emb_g", "ln_emb_b"};
    if (level < 1) return 0;
    if (!p->group[0]) {
        for (int k = 0; k < 4; k++)
            if (!strcmp(p->field, names[k])) return 1;
        return 0;
    }
    return level >= 2 && !strcmp(p->group, "encoder") && p->index < m->cfg.layers - 1;
}

/* Zero the gradients of the encoder layers that stay frozen (level 2):
 * Adam then leaves them as they are. The embedding module's are never
 * written (EeRun.embed_frozen). */
static void drop_frozen_grads(EeRun *r, int level)
{
    const EeModel *m = r->m;
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        if (p->group[0] && frozen_at(m, p, level)) r->be->zero(ee_run_g(r, i), sizeof(float) * p->count);
    }
}

/* The first weight that trains: the frozen parameters at `level` come
 * first in the layout (the embedding module, then the lower encoder
 * layers), so Adam and the per-step zeroing of the gradients skip them
 * (0 when some frozen one lies past a trained one). Exact: a frozen
 * weight's gradient is 0, so Adam's moments stay 0 and its step is 0. On
 * the glosses' explainers the token table is 93 % of the weights. */
static size_t trained_from(const EeModel *m, int level)
{
    size_t from = m->total;
    for (int i = 0; i < m->np; i++)
        if (!frozen_at(m, &m->p[i], level) && m->p[i].offset < from) from = m->p[i].offset;
    for (int i = 0; i < m->np; i++)
        if (frozen_at(m, &m->p[i], level) && m->p[i].offset > from) return 0;
    return from;
}

/* Learning rate of step (1-based) out of total. */
static float step_lr(const EeTrainOptions *o, long step, long total)
{
    if (o->schedule != EE_SCHEDULE_COSINE || total < 2) return o->lr;
    long warm = total / 20 > 0 ? total / 20 : 1;
    if (step <= warm) return o->lr * (float)step / (float)warm;
    double x = (double)(step - warm) / (double)(total - warm); /* 0..1 */
    double lo = o->lr / 20.0;
    return (float)(lo + 0.5 * (o->lr - lo) * (1.0 + cos(3.14159265358979323846 * x)));
}

EeStatus ee_train(EeModel *m, const EeDataset *train, const EeDataset *valid,
                  const EeTrainOptions *opt, EeHistory *hist)
{
    memset(hist, 0, sizeof *hist);
    const EeConfig *c = &m->cfg;
    int classifier = c->head == EE_HEAD_CLASSIFIER;
    EeStatus st;
    if ((st = check_dataset(m, train, "training", classifier))) return st;
    if ((st = check_dataset(m, valid, "validation", classifier))) return st;
    if (train->in.n < 1) return ee_fail(EE_ERR_INPUT, "no training rows");
    if (opt->epochs < 1 || opt->batch < 1 || !(opt->lr > 0) || !isfinite(opt->lr) ||
        !(opt->dropout >= 0 && opt->dropout < 1) || opt->patience < 0 ||
        (unsigned)opt->schedule > EE_SCHEDULE_COSINE || (unsigned)opt->freeze_embeddings > 2)
        return ee_fail(EE_ERR_INPUT, "bad training options (epochs >= 1, batch >= 1, lr > 0, 0 <= dropout < 1, patience >= 0, schedule constant or cosine, freeze 0..2)");
    if (opt->prior_mask && (st = ee_prior_check(m, opt->prior_mask, opt->prior_weight, opt->dropout)))
        return st;
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(opt->device, opt->precision, &dev, &be))) return st;

    int n = train->in.n, B = opt->batch < n ? opt->batch : n;
    int nv = valid ? valid->in.n : 0;
    Trainer t = {0};
    t.c = c;
    t.classifier = classifier;
    t.outs = ee_config_outputs(c);
    t.feats = ee_config_features(c);
    int kernel = !classifier && !train->maps;
    t.map_scale = classifier || !opt->standardize ? 1.0 : kernel ? kernel_rms(c, train) : map_rms(c, train);
    if (t.feats) {
        fit_feature_scale(m, train);
        /* without maps there is no least-squares start: the features' weights start at 0 */
        if (!kernel && (st = fit_feature_map(m, train, t.map_scale))) return st;
    }
    t.be = be;
    if ((st = ee_run_new(m, t.be, B, EE_KEEP_FULL, 1, &t.r))) return st;
    t.r->dropout = opt->dropout;
    size_t T = ee_is_token_model(c) ? (size_t)c->T : 0;
    int fail = 0;
    t.h_ids = malloc(sizeof(int32_t) * B * (T ? T : 1));
    t.h_mask = malloc((size_t)B * (T ? T : 1));
    t.h_x = malloc(sizeof(float) * B * (size_t)(c->kind == EE_KIND_MLP ? c->D : 1));
    t.h_labels = malloc(sizeof(int32_t) * B);
    t.h_maps = malloc(sizeof(float) * B * (size_t)map_width(c));
    t.h_feats = t.feats ? malloc(sizeof(float) * B * T * t.feats) : NULL;
    t.s_idx = malloc(sizeof(int) * B);
    t.s_end = malloc(sizeof(int) * B);
    t.s_runend = malloc(sizeof(int) * B);
    t.s_runlen = malloc(sizeof(int) * B);
    t.s_count = malloc(sizeof(int) * (T + 2));
    t.s_from = malloc(sizeof(int) * ((size_t)B + 1));
    t.s_cost = malloc(sizeof(double) * ((size_t)B + 1));
    if (!t.s_idx || !t.s_end || !t.s_runend || !t.s_runlen || !t.s_count || !t.s_from || !t.s_cost) fail = 1;
    if (kernel) {
        t.h_out = malloc(sizeof(float) * B * T);
        t.h_dout = malloc(sizeof(float) * B * T);
        t.h_phi = malloc(sizeof(double) * (T + 1));
        t.h_grad = malloc(sizeof(double) * (T + 1));
        t.h_pos = malloc(sizeof(int) * (T + 1));
        if (!t.h_out || !t.h_dout || !t.h_phi || !t.h_grad || !t.h_pos) fail = 1;
    }
    t.d_labels = ee_run_alloc(t.r, sizeof(int32_t) * B, &fail);
    t.d_maps = ee_run_alloc(t.r, sizeof(float) * B * (size_t)map_width(c), &fail);
    t.d_dout = ee_run_alloc(t.r, sizeof(float) * B * t.outs, &fail);
    size_t W = m->total;
    float *adam_m = ee_run_alloc(t.r, sizeof(float) * W, &fail);
    float *adam_v = ee_run_alloc(t.r, sizeof(float) * W, &fail);
    float *best = nv ? malloc(sizeof(float) * W) : NULL;
    int *order = malloc(sizeof(int) * n);
    hist->train_loss = calloc((size_t)opt->epochs, sizeof(float));
    hist->valid_loss = calloc((size_t)opt->epochs, sizeof(float));
    hist->valid_metric = calloc((size_t)opt->epochs, sizeof(float));
    EePrior *prior = NULL;
    if (opt->prior_mask) {
        hist->prior_penalty = calloc((size_t)opt->epochs, sizeof(float));
        if (!hist->prior_penalty) fail = 1;
        else if ((st = ee_prior_new(t.r, opt->prior_mask, opt->prior_weight, &prior))) goto done;
    }
    if (fail || !t.h_ids || !t.h_mask || !t.h_x || !t.h_labels || !t.h_maps || (nv && !best) ||
        (t.feats && !t.h_feats) ||
        !order || !hist->train_loss || !hist->valid_loss || !hist->valid_metric) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory setting up training");
        goto done;
    }

    /* the frozen embedding module's gradients are not computed, and the
     * frozen weights (a prefix) skip the zeroing and Adam */
    int freeze = opt->freeze_embeddings;
    t.r->embed_frozen = freeze >= 1;
    size_t W0 = trained_from(m, freeze);
    t.be->zero(t.r->g, sizeof(float) * W);
    int split = split_applies(&t, opt, prior);
    if (split) {
        if (!(t.row_len = malloc(sizeof(int) * n))) {
            st = ee_fail(EE_ERR_NOMEM, "out of memory setting up training");
            goto done;
        }
        for (int i = 0; i < n; i++)
            t.row_len[i] = ee_run_needed_len(t.r, train->in.ids + (size_t)i * T,
                                             train->in.mask ? train->in.mask + (size_t)i * T : NULL, 1);
    }

    double t0 = ee_now(), last_print = t0, best_loss = INFINITY;
    int steps_per_epoch = (n + B - 1) / B, step = 0, since_best = 0;
    long total_steps = (long)steps_per_epoch * opt->epochs;
    say(opt, "training %s%s%s%s%s: %d rows, %d validation, %zu weights, batch %d, lr %g%s, %d epochs, %s",
        ee_kind_name(c->kind), classifier ? "" : " explainer head ", classifier ? "" : ee_head_name(c->head),
        t.feats ? ", inputs " : "", t.feats ? ee_inputs_name(c->inputs) : "",
        n, nv, W, B, (double)opt->lr, opt->schedule == EE_SCHEDULE_COSINE ? " (cosine)" : "",
        opt->epochs, t.be->name);
    for (int ep = 0; ep < opt->epochs && !st; ep++) {
        EeRng rng;
        ee_rng_stream(&rng, opt->seed, 0x7a17ULL, (uint64_t)ep + 1);
        ee_rng_permutation(&rng, n, order);
        double ep_loss = 0, ep_prior = 0;
        for (int b0 = 0; b0 < n; b0 += B) {
            int nb = n - b0 < B ? n - b0 : B;
            t.r->dropout_seed = ee_hash64(opt->seed ^ ee_hash64((uint64_t)step + 0x5eed));
            float loss;
            double pen;
            if ((st = step_gradient(&t, train, order + b0, nb, split, W0, prior, &loss, &pen, &hist->passes))) break;
            if (!isfinite(loss)) {
                st = ee_fail(EE_ERR_INPUT, "training diverged (loss %g at epoch %d); lower 'lr'",
                             (double)loss, ep + 1);
                break;
            }
            ep_loss += (double)loss * nb * t.map_scale * t.map_scale;
            if (prior) ep_prior += pen * nb;
            ee_run_drop_fixed_grads(t.r);
            if (freeze >= 2) drop_frozen_grads(t.r, freeze);
            step++;
            t.be->adam(t.r->w + W0, t.r->g + W0, adam_m + W0, adam_v + W0, W - W0, step_lr(opt, step, total_steps),
                       0.9f, 0.999f, 1e-8f, step);
            double now = ee_now();
            if (opt->verbose && now - last_print >= 2.0) {
                double rate = (double)step * B / (now - t0);
                char eta[32];
                fmt_time((total_steps - step) * (now - t0) / step, eta, sizeof eta);
                say(opt, "  epoch %d/%d  batch %d/%d  loss %.4f  %.0f rows/s  ETA %s", ep + 1,
                    opt->epochs, b0 / B + 1, steps_per_epoch, ep_loss / (b0 + nb), rate, eta);
                last_print = now;
            }
            if ((opt->interrupt && opt->interrupt(opt->interrupt_ctx)) || ee_interrupted()) {
                st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during training");
                break;
            }
        }
        if (st) break;
        hist->train_loss[ep] = (float)(ep_loss / n);
        if (prior) hist->prior_penalty[ep] = (float)(ep_prior / n);
        hist->epochs_run = ep + 1;
        double vloss = NAN, vmetric = NAN;
        if (nv) {
            if ((st = evaluate(&t, valid, &vloss, &vmetric))) break;
            hist->valid_loss[ep] = (float)vloss;
            hist->valid_metric[ep] = (float)vmetric;
            if (vloss < best_loss) {
                best_loss = vloss;
                hist->best_epoch = ep + 1;
                since_best = 0;
                ee_run_pull_weights(t.r);
                memcpy(best, m->w, sizeof(float) * W);
            } else {
                since_best++;
            }
        } else {
            hist->best_epoch = ep + 1;
        }
        char el[32];
        fmt_time(ee_now() - t0, el, sizeof el);
        if (prior) say(opt, "epoch %d/%d  attribution prior %.4g (weight %g)", ep + 1, opt->epochs, ep_prior / n,
                       (double)opt->prior_weight);
        if (!nv)
            say(opt, "epoch %d/%d  train %s %.4g  (%s)", ep + 1, opt->epochs,
                classifier ? "loss" : kernel ? "kernel loss" : "MSE", ep_loss / n, el);
        else if (classifier)
            say(opt, "epoch %d/%d  train loss %.4f  valid loss %.4f  valid acc %.4f  (%s)", ep + 1,
                opt->epochs, ep_loss / n, vloss, vmetric, el);
        else
            say(opt, "epoch %d/%d  train %s %.4g  valid MSE %.4g  (%s)", ep + 1, opt->epochs,
                kernel ? "kernel loss" : "MSE", ep_loss / n, vloss, el);
        if (nv && since_best > opt->patience) {
            hist->stopped_early = 1;
            say(opt, "early stop: no improvement for %d epochs; keeping epoch %d", since_best,
                hist->best_epoch);
            break;
        }
    }
    if (!st) {
        if (nv) memcpy(m->w, best, sizeof(float) * W);
        else ee_run_pull_weights(t.r);
        if (t.map_scale != 1.0) fold_map_scale(m, t.map_scale);
    }
    hist->seconds = ee_now() - t0;
    if (!st) st = ee_backend_check(t.be);
done:
    ee_prior_free(prior);
    t.be->release(adam_m);
    t.be->release(adam_v);
    t.be->release(t.d_labels);
    t.be->release(t.d_maps);
    t.be->release(t.d_dout);
    ee_run_free(t.r);
    free(t.h_ids);
    free(t.h_mask);
    free(t.h_x);
    free(t.h_labels);
    free(t.h_maps);
    free(t.h_feats);
    free(t.h_out);
    free(t.h_dout);
    free(t.h_phi);
    free(t.h_grad);
    free(t.h_pos);
    free(t.row_len);
    free(t.s_idx);
    free(t.s_end);
    free(t.s_runend);
    free(t.s_runlen);
    free(t.s_count);
    free(t.s_from);
    free(t.s_cost);
    free(best);
    free(order);
    if (st) ee_history_free(hist);
    return st;
}
