/* features.c: what an Empirical Explainer reads from the classifier it
 * explains (one forward and one backward pass per row: the gradient x
 * input features of ee.h, and f at the pad baseline for efficiency), and
 * ee_explain, which computes them when the explainers need them, runs the
 * explainers (an ensemble's mean), signs a margin explainer's maps
 * (margin.c) and applies efficiency. Rows go through in order of length,
 * so that the rows sharing a pass have similar active lengths; results
 * return in the caller's order. The passes at the baselines are in
 * baseline_pass.c. */
#include "explainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sum_q (x - b)_q g_q in double: one token's gradient x input score. */
static double grad_x_input(const float *x, const float *b, const float *g, int d)
{
    double sum = 0;
    for (int q = 0; q < d; q++) sum += ((double)x[q] - b[q]) * g[q];
    return sum;
}

/* Row j of a batch into F's row, for the inputs that read
 * the attention's value paths at the top only (EE_INPUTS_ATTENTION_TOP):
 * column 1 + h the last layer's [CLS] attention in head h, 1 + H + h its
 * value-path score; the rest 0 (column 0, the baseline end's score, comes
 * after). Returns 0 when a value read is not finite. */
static int top_row(float *row, const float *vp, int L, int T, int k, int H, int VP, int vp_last)
{
    int ok = 1;
    memset(row, 0, sizeof(float) * T * k);
    for (int t = 0; t < L; t++) {
        const float *v = vp + (size_t)t * VP;
        for (int h = 0; h < H; h++) {
            ok &= isfinite(v[h]) && isfinite(v[vp_last + h]);
            row[(size_t)t * k + 1 + h] = v[h];
            row[(size_t)t * k + 1 + H + h] = v[vp_last + h];
        }
    }
    return ok;
}

/* Features per token of an explainer of clf that reads `inputs` (what
 * ee_config_features says of such an explainer). */
static int features_of(EeInputs inputs, const EeConfig *clf)
{
    EeConfig e = *clf;
    e.head = EE_HEAD_TOKEN;
    e.inputs = inputs;
    return ee_config_features(&e);
}

/* The rows order[i0 .. i0 + nb) of in into the batch buffers: their ids,
 * masks and, where h_bids is not NULL, baseline ids (T each). */
static void gather_batch(const EeModel *m, const EeInput *in, const EeAttrOptions *o, const int *order, int i0,
                         int nb, int32_t *h_ids, uint8_t *h_mask, int32_t *h_bids)
{
    int T = m->cfg.T;
    for (int j = 0; j < nb; j++) {
        int i = order[i0 + j];
        memcpy(h_ids + (size_t)j * T, in->ids + (size_t)i * T, sizeof(int32_t) * T);
        ee_attr_row_mask(m, in, i, h_mask + (size_t)j * T);
        if (h_bids) ee_attr_row_baseline(m, in, o, i, h_bids + (size_t)j * T);
    }
}

/* baseline_end_features of batch row j (row i of the input): one chain
 * per position in a fixed order, as grad_x_input's, whichever thread
 * computes it; four positions' chains run side by side (each in its own
 * order: the same bits, without the wait of one chain's additions on the
 * next). */
static void baseline_end_row(float *F, int k, int col, int i, int j, const float *h_ex, const float *h_eb,
                             const float *G, const int *gidx, int T, int L, int d)
{
    size_t Wl = (size_t)L * d;
    const float *g = G + (size_t)gidx[i] * T * d, *x = h_ex + (size_t)j * Wl, *b = h_eb + (size_t)j * Wl;
    float *f = F + (size_t)i * T * k + col;
    int t = 0;
    for (; t + 4 <= L; t += 4) {
        size_t a = (size_t)t * d;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int q = 0; q < d; q++) {
            s0 += ((double)x[a + q] - b[a + q]) * g[a + q];
            s1 += ((double)x[a + d + q] - b[a + d + q]) * g[a + d + q];
            s2 += ((double)x[a + 2 * d + q] - b[a + 2 * d + q]) * g[a + 2 * d + q];
            s3 += ((double)x[a + 3 * d + q] - b[a + 3 * d + q]) * g[a + 3 * d + q];
        }
        f[(size_t)t * k] = (float)s0;
        f[(size_t)(t + 1) * k] = (float)s1;
        f[(size_t)(t + 2) * k] = (float)s2;
        f[(size_t)(t + 3) * k] = (float)s3;
    }
    for (; t < L; t++)
        f[(size_t)t * k] = (float)grad_x_input(x + (size_t)t * d, b + (size_t)t * d, g + (size_t)t * d, d);
}

/* F[t][col] of every row: sum_d (e_x - e_b) g_b, g_b the gradient at the
 * row's baseline (table G, entry gidx[i]; column 1 of the inputs that read
 * both ends, 0 of EE_INPUTS_ATTENTION_TOP); the embeddings are looked up
 * again (no model pass). */
static EeStatus baseline_end_features(EeRun *r, const EeInput *in, const EeAttrOptions *o, const int *order,
                                      const float *G, const int *gidx, float *F, int k, int col)
{
    const EeModel *m = r->m;
    const EeBackend *be = r->be;
    int N = in->n, T = m->cfg.T, d = m->cfg.d, B = r->Bmax;
    int32_t *h_ids = malloc(sizeof(int32_t) * (size_t)B * T), *h_bids = malloc(sizeof(int32_t) * (size_t)B * T);
    uint8_t *h_mask = malloc((size_t)B * T);
    float *h_ex = ee_host_alloc(sizeof(float) * (size_t)B * T * d), *h_eb = ee_host_alloc(sizeof(float) * (size_t)B * T * d);
    EeStatus st = EE_OK;
    if (!h_ids || !h_bids || !h_mask || !h_ex || !h_eb) st = ee_fail(EE_ERR_NOMEM, "out of memory");
    for (int i0 = 0; i0 < N && !st; i0 += B) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing explainer features"); break; }
        int nb = N - i0 < B ? N - i0 : B;
        gather_batch(m, in, o, order, i0, nb, h_ids, h_mask, h_bids);
        int L = ee_run_needed_len(r, h_ids, h_mask, nb), Lb = ee_run_needed_len(r, h_bids, h_mask, nb);
        if (Lb > L) L = Lb;
        size_t Wl = (size_t)L * d;
        if ((st = ee_run_set_input_len(r, h_bids, h_mask, NULL, nb, L))) break;
        ee_run_embed(r, nb);
        be->download(h_eb, r->e, sizeof(float) * nb * Wl);
        if ((st = ee_run_set_input_len(r, h_ids, h_mask, NULL, nb, L))) break;
        ee_run_embed(r, nb);
        be->download(h_ex, r->e, sizeof(float) * nb * Wl);
        if (ee_team_worth((size_t)nb * Wl, 16384)) { /* rows on the team where worth it: nb Wl products */
            #pragma omp parallel for schedule(static)
            for (int j = 0; j < nb; j++) baseline_end_row(F, k, col, order[i0 + j], j, h_ex, h_eb, G, gidx, T, L, d);
        } else {
            for (int j = 0; j < nb; j++) baseline_end_row(F, k, col, order[i0 + j], j, h_ex, h_eb, G, gidx, T, L, d);
        }
    }
    free(h_ids); free(h_bids); free(h_mask);
    ee_host_free(h_ex); ee_host_free(h_eb);
    return st;
}

EeStatus ee_explainer_features(EeModel *clf, EeInputs inputs, const EeInput *in,
                               const EeAttrOptions *o, float *F, EeAttrInfo *info)
{
    const EeConfig *c = &clf->cfg;
    if (!ee_is_token_model(c))
        return ee_fail(EE_ERR_UNSUPPORTED, "explainer features are defined for token models");
    int k = features_of(inputs, c);
    if (!k) return ee_fail(EE_ERR_INPUT, "explainer inputs '%s' read no features", ee_inputs_name(inputs));
    EeStatus st = ee_attr_check(clf, in, o, 0);
    if (st) return st;
    EeDevice dev;
    const EeBackend *be;
    if ((st = ee_backend_resolve(o->device, o->precision, &dev, &be))) return st;
    int N = in->n, T = c->T, d = c->d, C = c->classes;
    int B = o->batch > 0 ? o->batch : ee_default_batch(c, dev);
    if (B > N) B = N > 0 ? N : 1;
    /* top: the forward pass and the backward through the last layer's
     * [CLS] row only; the score at x (the full backward) is not read, so
     * neither its buffers nor the run's for every position's gradient
     * are allocated */
    int top = inputs == EE_INPUTS_ATTENTION_TOP, att = inputs == EE_INPUTS_ATTENTION || top;
    EeRun *r = NULL;
    if ((st = ee_run_new(clf, be, B, top ? EE_KEEP_TOP : EE_KEEP_FULL, 0, &r))) return st;
    int fail = 0;
    size_t W = (size_t)T * d;
    float *ex = top ? NULL : ee_run_alloc(r, sizeof(float) * B * W, &fail);
    float *eb = top ? NULL : ee_run_alloc(r, sizeof(float) * B * W, &fail);
    float *d_dout = ee_run_alloc(r, sizeof(float) * B * C, &fail);
    /* rows by length (their last non-PAD position, which the progress line
     * counts as their work) */
    int *len = malloc(sizeof(int) * (N ? N : 1)), *order = malloc(sizeof(int) * (N ? N : 1));
    if (len && order) ee_rows_by_length(in->ids, NULL, N, T, order, len);
    int32_t *h_ids = malloc(sizeof(int32_t) * B * T), *h_bids = malloc(sizeof(int32_t) * B * T);
    uint8_t *h_mask = malloc((size_t)B * T);
    float *h_out = malloc(sizeof(float) * B * C), *h_dout = malloc(sizeof(float) * B * C);
    /* the staging rows from the CPU backend's kept mappings: from malloc a
     * C program faulted them in on every call (half a megabyte each on
     * the glosses), unless something earlier in the process had raised
     * malloc's threshold for mapping (issue 19) */
    float *h_ex = top ? NULL : ee_host_alloc(sizeof(float) * B * W);
    float *h_eb = top ? NULL : ee_host_alloc(sizeof(float) * B * W);
    float *h_g = top ? NULL : ee_host_alloc(sizeof(float) * B * W);
    int32_t *tgt = malloc(sizeof(int32_t) * (N ? N : 1));
    int ends = inputs == EE_INPUTS_GRADIENT_ENDS || inputs == EE_INPUTS_OCCLUSION || inputs == EE_INPUTS_PATH || att;
    /* value_path's row: the last layer's [CLS] attention (H), then each
     * layer's value-path scores (L H); all of them features of 'attention',
     * the first H and the last layer's H of 'attention_top' */
    int H = c->heads, VP = att ? H + c->layers * H : 0, vp_last = H + (c->layers - 1) * H;
    float *h_vp = VP ? ee_host_alloc(sizeof(float) * (size_t)B * T * VP) : NULL;
    int *gidx = ends ? malloc(sizeof(int) * (N ? N : 1)) : NULL;
    float *G = NULL;
    if (ends && o->baseline == EE_BASELINE_ZERO) {
        st = ee_fail(EE_ERR_INPUT, "the baseline end of the path and occlusion need the pad baseline");
        goto done;
    }
    double path_alpha[EE_PATH_NODES], path_w[EE_PATH_NODES];
    if (inputs == EE_INPUTS_PATH && (st = ee_ig_nodes(EE_IG_GAUSSLEGENDRE, EE_PATH_NODES, path_alpha, path_w)))
        goto done;
    if (att && (c->kind != EE_KIND_TRANSFORMER || c->layers < 1)) {
        st = ee_fail(EE_ERR_UNSUPPORTED, "inputs 'attention' read a transformer classifier's last encoder layer");
        goto done;
    }
    if (fail || !order || !len || !h_ids || !h_bids || !h_mask || !h_out || !h_dout || (!top && (!h_ex || !h_eb || !h_g)) || !tgt ||
        (ends && !gidx) || (VP && !h_vp)) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for explainer features (batch %d)", B);
        goto done;
    }
    double t0 = ee_now();
    /* the baselines' gradients are kept across calls under the
     * classifier's fingerprint (baseline_cache.c) */
    uint64_t model_key = 0;
    if (ends && (st = ee_baseline_cache_model_key(clf, dev, o->precision, &model_key))) goto done;
    long fwd = 0, bwd = 0, kept = 0;
    EeProgress prog;
    ee_progress_start(&prog, o, "gradient features", N);
    /* rows come shortest first: the ETA goes by positions, not rows */
    double work = 0, work_total = 0;
    for (int i = 0; i < N; i++) work_total += len[i];
    for (int i0 = 0; i0 < N && !st; i0 += B) {
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing explainer features"); break; }
        int nb = N - i0 < B ? N - i0 : B;
        gather_batch(clf, in, o, order, i0, nb, h_ids, h_mask, o->baseline != EE_BASELINE_ZERO ? h_bids : NULL);
        int L = ee_run_needed_len(r, h_ids, h_mask, nb);
        if (o->baseline != EE_BASELINE_ZERO) {
            int Lb = ee_run_needed_len(r, h_bids, h_mask, nb);
            if (Lb > L) L = Lb;
        }
        size_t Wl = (size_t)L * d;
        /* e_b, then e_x (left in r->e for the pass) */
        if (top) {
            /* neither is read here: the baseline end's score comes after */
        } else if (o->baseline == EE_BASELINE_ZERO) {
            be->zero(eb, sizeof(float) * nb * Wl);
        } else {
            if ((st = ee_run_set_input_len(r, h_bids, h_mask, NULL, nb, L))) break;
            ee_run_embed(r, nb);
            be->copy(eb, r->e, sizeof(float) * nb * Wl);
        }
        if ((st = ee_run_set_input_len(r, h_ids, h_mask, NULL, nb, L))) break;
        ee_run_embed(r, nb);
        if (!top) be->copy(ex, r->e, sizeof(float) * nb * Wl);
        ee_run_forward(r, nb, 0);
        be->download(h_out, r->out, sizeof(float) * nb * C);
        memset(h_dout, 0, sizeof(float) * nb * C);
        for (int j = 0; j < nb; j++) {
            int i = order[i0 + j];
            const float *z = h_out + (size_t)j * C;
            int t = o->target ? o->target[i] : ee_argmax(z, C);
            h_dout[(size_t)j * C + t] = 1.0f;
            tgt[i] = t;
            if (info && info->target) info->target[i] = t;
            if (info && info->fx) info->fx[i] = z[t];
        }
        be->upload(d_dout, h_dout, sizeof(float) * nb * C);
        r->value_path = h_vp; /* NULL but for the attention inputs */
        ee_run_backward(r, nb, d_dout, !top, 0); /* top: the run stops after the last layer's [CLS] row */
        r->value_path = NULL;
        fwd += nb;
        bwd += nb; /* top: through the last layer's [CLS] row only, counted as a backward pass */
        /* the value paths are NaN where value_path_scores lacked memory
         * (a device's); checked on the columns read (top: the lower
         * layers' are not written) */
        int vp_ok = 1;
        if (top) { /* rows on the team where worth it (one row's copies each) */
            if (ee_team_worth((size_t)nb * T * k, 16384)) {
                #pragma omp parallel for schedule(static) reduction(&& : vp_ok)
                for (int j = 0; j < nb; j++)
                    vp_ok = top_row(F + (size_t)order[i0 + j] * T * k, h_vp + (size_t)j * L * VP, L, T, k, H, VP, vp_last) && vp_ok;
            } else {
                for (int j = 0; j < nb; j++)
                    vp_ok = top_row(F + (size_t)order[i0 + j] * T * k, h_vp + (size_t)j * L * VP, L, T, k, H, VP, vp_last) && vp_ok;
            }
        } else {
            for (size_t q = 0; q < (size_t)nb * L && VP && vp_ok; q++)
                for (int col = 0; col < VP; col++) vp_ok = vp_ok && isfinite(h_vp[q * VP + col]);
        }
        if (!vp_ok) {
            st = ee_fail(EE_ERR_NOMEM, "out of memory for the attention features");
            break;
        }
        if (!top) {
            be->download(h_ex, ex, sizeof(float) * nb * Wl);
            be->download(h_eb, eb, sizeof(float) * nb * Wl);
            be->download(h_g, r->de, sizeof(float) * nb * Wl);
            for (int j = 0; j < nb; j++) {
                float *row = F + (size_t)order[i0 + j] * T * k;
                memset(row, 0, sizeof(float) * T * k);
                for (int t = 0; t < L; t++) {
                    const float *x = h_ex + (size_t)j * Wl + (size_t)t * d;
                    const float *b = h_eb + (size_t)j * Wl + (size_t)t * d;
                    const float *g = h_g + (size_t)j * Wl + (size_t)t * d;
                    float *f = row + (size_t)t * k;
                    double sum = 0;
                    for (int q = 0; q < d; q++) {
                        double term = ((double)x[q] - b[q]) * g[q];
                        sum += term;
                        if (k == 1 + d && !ends) f[1 + q] = (float)term;
                    }
                    f[0] = (float)sum;
                    for (int q = 0; q < VP; q++) f[2 + q] = h_vp[((size_t)j * L + t) * VP + q];
                }
            }
        }
        if (inputs == EE_INPUTS_PATH) {
            /* the gradient at the Gauss-Legendre nodes inside the path,
             * target (d_dout, as uploaded for x) and mask as at x; e_x is
             * on the host now, so ex becomes e_x - e_b */
            float *diff = ex;
            be->axpy((size_t)nb * Wl, -1.0f, eb, diff);
            for (int p = 0; p < EE_PATH_NODES; p++) {
                be->copy(r->e, eb, sizeof(float) * nb * Wl);
                be->axpy((size_t)nb * Wl, (float)path_alpha[p], diff, r->e);
                ee_run_forward(r, nb, 0);
                ee_run_backward(r, nb, d_dout, 1, 0);
                fwd += nb;
                bwd += nb;
                be->download(h_g, r->de, sizeof(float) * nb * Wl);
                for (int j = 0; j < nb; j++) {
                    float *row = F + (size_t)order[i0 + j] * T * k;
                    for (int t = 0; t < L; t++) {
                        size_t at = (size_t)j * Wl + (size_t)t * d;
                        row[(size_t)t * k + 2 + p] = (float)grad_x_input(h_ex + at, h_eb + at, h_g + at, d);
                    }
                }
            }
        }
        for (int j = 0; j < nb; j++) work += len[order[i0 + j]];
        ee_progress_tick_work(&prog, i0 + nb, work, work_total);
    }
    ee_progress_end(&prog, N, fwd + bwd);
    float *fb = info && info->fbaseline && o->baseline != EE_BASELINE_ZERO ? info->fbaseline : NULL;
    if (!st && (fb || ends)) st = ee_baseline_pass(r, in, o, tgt, model_key, fb, NULL, ends ? &G : NULL, gidx, &fwd, &bwd, &kept);
    if (!st && ends) st = baseline_end_features(r, in, o, order, G, gidx, F, k, top ? 0 : 1);
    if (!st && inputs == EE_INPUTS_OCCLUSION) st = ee_occlusion_features(r, in, o, order, tgt, F, k, &fwd);
    if (!st) st = ee_backend_check(be);
    if (!st && info) {
        info->forward += fwd;
        info->backward += bwd;
        info->kept += kept;
        info->seconds += ee_now() - t0;
    }
done:
    be->release(ex);
    be->release(eb);
    be->release(d_dout);
    ee_run_free(r);
    free(order); free(len); free(h_ids); free(h_bids); free(h_mask); free(h_out); free(h_dout);
    ee_host_free(h_ex); ee_host_free(h_eb); ee_host_free(h_g); ee_host_free(h_vp);
    free(tgt); free(gidx); free(G);
    return st;
}

EeStatus ee_explainer_train_features(EeModel *clf, const EeConfig *ecfg, EeDataset *train,
                                     EeDataset *valid, const EeTrainOptions *topt, float *feats[2],
                                     EeAttrInfo *info)
{
    feats[0] = feats[1] = NULL;
    int k = ee_config_features(ecfg);
    if (!k) return EE_OK;
    EeAttrOptions fo;
    ee_attr_options_defaults(&fo);
    fo.device = topt->device;
    fo.precision = topt->precision;
    fo.verbose = topt->verbose;
    fo.print = topt->print;
    fo.print_ctx = topt->print_ctx;
    EeDataset *sets[2] = {train, valid};
    EeStatus st = EE_OK;
    for (int q = 0; q < 2 && !st; q++) {
        if (!sets[q] || !sets[q]->in.n) continue;
        feats[q] = malloc(sizeof(float) * (size_t)sets[q]->in.n * ecfg->T * k);
        if (!feats[q]) st = ee_fail(EE_ERR_NOMEM, "out of memory for the explainer's features");
        else st = ee_explainer_features(clf, ecfg->inputs, &sets[q]->in, &fo, feats[q], info);
        sets[q]->in.feats = feats[q];
    }
    if (st)
        for (int q = 0; q < 2; q++) {
            if (sets[q] && sets[q]->in.feats == feats[q]) sets[q]->in.feats = NULL;
            free(feats[q]);
            feats[q] = NULL;
        }
    return st;
}

EeStatus ee_explain(EeModel *const *expl, int K, EeModel *clf, const EeInput *in,
                    const EeAttrOptions *o, float *A, EeAttrInfo *info)
{
    if (K < 1) return ee_fail(EE_ERR_INPUT, "no explainer given");
    const EeConfig *c = &expl[0]->cfg;
    for (int j = 0; j < K; j++) {
        const EeConfig *cj = &expl[j]->cfg;
        if (cj->head == EE_HEAD_CLASSIFIER)
            return ee_fail(EE_ERR_MODEL, "model %d is a classifier, not an Empirical Explainer", j + 1);
        if (cj->T != c->T || cj->vocab != c->vocab || cj->inputs != c->inputs || cj->efficiency != c->efficiency ||
            cj->margin != c->margin)
            return ee_fail(EE_ERR_MODEL, "the explainers of an ensemble must share T, vocab, inputs, "
                           "efficiency and margin (model %d differs from model 1)", j + 1);
    }
    int k = ee_config_features(c), N = in->n, T = c->T;
    if (ee_config_reads_classifier(c)) {
        if (!clf)
            return ee_fail(EE_ERR_MODEL, "this explainer reads %s of its classifier, which is missing",
                           k ? "the features" : "the baseline's margin");
        const EeConfig *cc = &clf->cfg;
        if (cc->head != EE_HEAD_CLASSIFIER || cc->T != T || cc->vocab != c->vocab ||
            features_of(c->inputs, cc) != k)
            return ee_fail(EE_ERR_MODEL, "the explainer's classifier does not fit it (T %d/%d, vocab %d/%d, "
                           "%d/%d features)", cc->T, T, cc->vocab, c->vocab, features_of(c->inputs, cc), k);
    }
    /* the ids are checked by the classifier (features) and by each explainer */
    if (N == 0) return EE_OK;
    EeStatus st = EE_OK;
    float *F = NULL, *Fp = NULL, *Ap = NULL, *fx = NULL, *fb = NULL;
    int32_t *tg = NULL;
    double *acc = NULL;
    int32_t *ids = NULL;
    int *order = NULL;
    double t0 = ee_now();
    int eff = k && c->efficiency;
    /* the explained class of each row: efficiency's f and a margin
     * explainer's sign need it */
    int classes = eff || c->margin;
    EeAttrOptions fo = *o;
    fo.verbose = 0;
    fo.baseline = EE_BASELINE_PAD;
    if (classes && !(tg = malloc(sizeof(int32_t) * N))) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (k) {
        F = ee_host_alloc(sizeof(float) * (size_t)N * T * k);
        if (eff) {
            fx = malloc(sizeof(float) * N);
            fb = malloc(sizeof(float) * N);
        }
        if (!F || (eff && (!fx || !fb))) {
            st = ee_fail(EE_ERR_NOMEM, "out of memory for %d x %d x %d explainer features", N, T, k);
            goto done;
        }
        EeAttrInfo fi = {.target = classes ? tg : info ? info->target : NULL, .fx = fx, .fbaseline = fb};
        if ((st = ee_explainer_features(clf, c->inputs, in, &fo, F, &fi))) goto done;
        if (info) {
            info->forward += fi.forward;
            info->backward += fi.backward;
            info->kept += fi.kept;
        }
    }
    /* the explainers in order of length (they may run at the active length) */
    order = malloc(sizeof(int) * (N ? N : 1));
    if (order) ee_rows_by_length(in->ids, NULL, N, T, order, NULL);
    ids = malloc(sizeof(int32_t) * (size_t)N * T);
    Ap = malloc(sizeof(float) * (size_t)N * T);
    acc = K > 1 ? calloc((size_t)N * T, sizeof(double)) : NULL;
    if (k) Fp = ee_host_alloc(sizeof(float) * (size_t)N * T * k);
    if (!order || !ids || !Ap || (K > 1 && !acc) || (k && !Fp)) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < N; i++) {
        memcpy(ids + (size_t)i * T, in->ids + (size_t)order[i] * T, sizeof(int32_t) * T);
        if (k) memcpy(Fp + (size_t)i * T * k, F + (size_t)order[i] * T * k, sizeof(float) * T * k);
    }
    EeInput x = {.n = N, .ids = ids, .feats = Fp};
    EeDevice dev;
    if ((st = ee_device_resolve(o->device, &dev))) goto done;
    /* an ensemble's map is the mean of its members' maps */
    for (int j = 0; j < K && !st; j++) {
        if ((st = ee_model_predict_precision(expl[j], &x, Ap, o->batch, dev, o->precision))) break;
        if (K > 1)
            for (size_t q = 0; q < (size_t)N * T; q++) acc[q] += Ap[q];
    }
    if (st) goto done;
    for (int i = 0; i < N; i++) {
        float *dst = A + (size_t)order[i] * T;
        if (K == 1) memcpy(dst, Ap + (size_t)i * T, sizeof(float) * T);
        else for (int t = 0; t < T; t++) dst[t] = (float)(acc[(size_t)i * T + t] / K);
    }
    /* a margin explainer's map is signed toward the second class: the
     * class explained (given, the features' argmax, or else the one the
     * map's sum and the baseline's margin say, margin.c) decides its sign */
    if (c->margin) {
        if (o->target) memcpy(tg, o->target, sizeof(int32_t) * N);
        else if (!k) {
            EeAttrInfo mi = {0};
            if ((st = ee_margin_classes(clf, in, &fo, A, tg, &mi))) goto done;
            if (info) {
                info->forward += mi.forward;
                info->kept += mi.kept;
            }
        }
        ee_margin_sign(N, T, tg, A);
    }
    if (classes && info && info->target) memcpy(info->target, tg, sizeof(int32_t) * N);
    /* efficiency: the real tokens' scores sum to f(x) - f(baseline), as
     * the pad-baseline attributions do (exactly for SV, up to the quadrature
     * error for IG): the map is projected onto that plane, which moves it
     * no farther from any map that satisfies it */
    if (eff)
        for (int i = 0; i < N; i++) {
            const int32_t *row = in->ids + (size_t)i * T;
            float *a = A + (size_t)i * T;
            double sum = 0;
            int n = 0;
            for (int t = 0; t < T; t++)
                if (!EE_IS_SPECIAL(row[t])) { sum += a[t]; n++; }
            if (!n) continue;
            double shift = ((double)fx[i] - fb[i] - sum) / n;
            for (int t = 0; t < T; t++)
                if (!EE_IS_SPECIAL(row[t])) a[t] = (float)(a[t] + shift);
        }
    if (info) {
        info->forward += (long)N * K;
        info->seconds = ee_now() - t0;
    }
done:
    ee_host_free(F); ee_host_free(Fp);
    free(Ap); free(acc); free(ids); free(order); free(tg); free(fx); free(fb);
    return st;
}
