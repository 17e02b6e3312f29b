/* refmodel.h: an independent double-precision implementation of the
 * models of MODELS.md (transformer, cnn, mlp, and the explainer heads),
 * reading the weights only through the public exchange format
 * (ee_param_get: column-major, documented shapes). It shares no code with
 * libcore; the C tests compare libcore's float32 results and gradients
 * against it (test_models.c) and compute reference attributions with it
 * (test_attr.c). Header-only: each test includes it once. Its checks of
 * the model's parameter set (present, documented shapes) are bookkeeping
 * (REQUIRE): they fail a test, but are not counted as its passes. */
#ifndef EE_REFMODEL_H
#define EE_REFMODEL_H

#include "check.h"
#include "gradcheck.h"
#include "ee.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef struct {
    EeConfig c;
    int np;
    /* per tensor, np of each (sized from ee_model_nparams: the public API
     * has no maximum to size them by) */
    double **p;                 /* exchange order (column-major) */
    size_t *count;
    char (*name)[48];
    int *pad_row;
    /* parameter indices */
    int etok, epos, lng, lnb, enc[64][16], wp, bp, wc, bc, hw, hb;
    int cw[EE_MAX_WIDTHS], cb[EE_MAX_WIDTHS];
    int fw[EE_MAX_HIDDEN + 1], fb[EE_MAX_HIDDEN + 1];
    /* explainers: feature tensors (-1 without features), and what the
     * caller sets before each row: its features (T x k, row-major, NULL =
     * zeros) and its ids (for the output mask; NULL = every output) */
    int nfeat, fsc, fwt, fv;
    const double *row_feats;
    const int32_t *row_ids;
    /* transformer: the last layer's [CLS] query's attention (H x T, written
     * by every forward) and a factor on the value of position vs_t in head
     * vs_h at layer vs_l (vs_t < 0: none), whose derivative is that value's
     * path score */
    double clsP[8 * 64];
    int vs_t, vs_h, vs_l;
    double vs_scale;
    /* scratch */
    double *s_x, *s_q, *s_k, *s_v, *s_ctx, *s_tmp, *s_z, *s_e;
    /* smallest distance to a ReLU kink or a max tie in the forwards since
     * the last reset */
    double margin;
    /* forwards since the last reset in which fewer than 2 units of a hidden
     * layer (mlp) or fewer than 2 pooled filters (cnn) were positive: such a
     * row passes little or no gradient, which would make the checks weak */
    int weak;
} Ref;

static const char *enc_names[16] = {"Wq", "bq", "Wk", "bk", "Wv", "bv", "Wo", "bo",
                                    "ln1_g", "ln1_b", "W1", "b1", "W2", "b2", "ln2_g", "ln2_b"};

static int need_param(const EeModel *m, const char *group, int index, const char *field, int d0, int d1,
                      int d2)
{
    int i = ee_model_find_param(m, group, index, field);
    REQUIRE(i >= 0, "parameter %s%s%s(%d) missing", group ? group : "", group ? "." : "", field, index);
    if (i < 0) return -1;
    EeParamInfo info;
    ee_model_param_info(m, i, &info);
    int ok = info.dims[0] == d0 && info.dims[1] == d1 && (info.ndims == 2 ? d2 == 1 : info.dims[2] == d2);
    REQUIRE(ok, "%s: exchange dims %d x %d x %d, MODELS.md says %d x %d x %d", field, info.dims[0],
          info.dims[1], info.ndims > 2 ? info.dims[2] : 1, d0, d1, d2);
    return i;
}

/* Reads every tensor of m (in exchange order) and resolves the indices of
 * the documented names, checking their documented shapes. */
static inline void ref_load(Ref *r, const EeModel *m)
{
    memset(r, 0, sizeof *r);
    r->vs_t = -1; /* no factor on a value */
    r->vs_scale = 1;
    r->c = *ee_model_config(m);
    const EeConfig *c = &r->c;
    r->np = ee_model_nparams(m);
    size_t np1 = (size_t)r->np + 1;   /* + 1: never a zero-byte request */
    r->p = gc_alloc(sizeof *r->p * np1);
    r->count = gc_alloc(sizeof *r->count * np1);
    r->name = gc_alloc(sizeof *r->name * np1);
    r->pad_row = gc_alloc(sizeof *r->pad_row * np1);
    for (int i = 0; i < r->np; i++) {
        EeParamInfo info;
        ee_model_param_info(m, i, &info);
        r->count[i] = info.count;
        if (info.group)
            snprintf(r->name[i], sizeof r->name[i], "%.16s(%d).%.16s", info.group, info.index + 1, info.field);
        else
            snprintf(r->name[i], sizeof r->name[i], "%.32s", info.field);
        r->pad_row[i] = strcmp(info.field, "E_tok") == 0;
        float *buf = gc_alloc(info.count * sizeof(float));
        CHECK_OK(ee_param_get(m, i, buf, info.count));
        r->p[i] = gc_alloc(info.count * sizeof(double));
        gc_f2d(buf, r->p[i], info.count);
        free(buf);
    }
    int T = c->T, d = c->d, C = c->classes, mx = 1;
    switch (c->kind) {
    case EE_KIND_TRANSFORMER:
        r->etok = need_param(m, NULL, 0, "E_tok", c->vocab, d, 1);
        r->epos = need_param(m, NULL, 0, "E_pos", T, d, 1);
        r->lng = need_param(m, NULL, 0, "ln_emb_g", 1, d, 1);
        r->lnb = need_param(m, NULL, 0, "ln_emb_b", 1, d, 1);
        for (int l = 0; l < c->layers; l++)
            for (int k = 0; k < 16; k++) {
                const char *n = enc_names[k];
                int a = 1, b = d;
                if (n[0] == 'W') a = d;
                if (!strcmp(n, "W1")) { a = d; b = c->ffn; }
                if (!strcmp(n, "b1")) b = c->ffn;
                if (!strcmp(n, "W2")) { a = c->ffn; b = d; }
                r->enc[l][k] = need_param(m, "encoder", l, n, a, b, 1);
            }
        if (c->head == EE_HEAD_CLASSIFIER) {
            r->wp = need_param(m, NULL, 0, "Wp", d, d, 1);
            r->bp = need_param(m, NULL, 0, "bp", 1, d, 1);
            r->wc = need_param(m, NULL, 0, "Wc", d, C, 1);
            r->bc = need_param(m, NULL, 0, "bc", 1, C, 1);
        } else if (c->head == EE_HEAD_FLAT) {
            r->hw = need_param(m, NULL, 0, "head_W", T * d, T, 1);
            r->hb = need_param(m, NULL, 0, "head_b", 1, T, 1);
        } else {
            r->hw = need_param(m, NULL, 0, "head_W", d, 1, 1);
            r->hb = need_param(m, NULL, 0, "head_b", 1, 1, 1);
        }
        r->fsc = r->fwt = r->fv = -1;
        r->nfeat = c->head == EE_HEAD_CLASSIFIER ? 0 : c->inputs == EE_INPUTS_GRADIENT ? 1 :
                   c->inputs == EE_INPUTS_GRADIENT_VECTOR ? 1 + d : 0;
        if (r->nfeat) {
            r->fsc = need_param(m, NULL, 0, "feat_scale", 1, r->nfeat, 1);
            r->fwt = need_param(m, NULL, 0, "feat_W", r->nfeat, d, 1);
            r->fv = need_param(m, NULL, 0, "feat_v", r->nfeat, 1, 1);
        }
        mx = T * (d > c->ffn ? d : c->ffn);
        break;
    case EE_KIND_CNN:
        r->etok = need_param(m, NULL, 0, "E_tok", c->vocab, d, 1);
        for (int k = 0; k < c->nwidths; k++) {
            r->cw[k] = need_param(m, "conv", k, "W", c->widths[k], d, c->filters);
            r->cb[k] = c->bias ? need_param(m, "conv", k, "b", 1, c->filters, 1) : -1;
            if (!c->bias) REQUIRE(ee_model_find_param(m, "conv", k, "b") < 0, "bias-free cnn has conv.b");
        }
        r->fsc = r->fwt = r->fv = -1;
        r->nfeat = 0;
        if (c->head == EE_HEAD_CLASSIFIER) {
            r->wc = need_param(m, NULL, 0, "Wc", c->nwidths * c->filters, C, 1);
            r->bc = c->bias ? need_param(m, NULL, 0, "bc", 1, C, 1) : -1;
            if (!c->bias) REQUIRE(ee_model_find_param(m, NULL, 0, "bc") < 0, "bias-free cnn has bc");
        } else { /* the token head on H(t), K F values per position */
            r->hw = need_param(m, NULL, 0, "head_W", c->nwidths * c->filters, 1, 1);
            r->hb = need_param(m, NULL, 0, "head_b", 1, 1, 1);
            r->nfeat = c->inputs == EE_INPUTS_GRADIENT ? 1 : c->inputs == EE_INPUTS_GRADIENT_VECTOR ? 1 + d
                       : c->inputs == EE_INPUTS_GRADIENT_ENDS ? 2 : c->inputs == EE_INPUTS_OCCLUSION ? 4 : 0;
            if (r->nfeat) {
                r->fsc = need_param(m, NULL, 0, "feat_scale", 1, r->nfeat, 1);
                r->fwt = need_param(m, NULL, 0, "feat_W", r->nfeat, d, 1);
                r->fv = need_param(m, NULL, 0, "feat_v", r->nfeat, 1, 1);
            }
        }
        mx = T * d + c->nwidths * c->filters;
        break;
    case EE_KIND_MLP: {
        int n[EE_MAX_HIDDEN + 2];
        n[0] = c->D;
        for (int i = 0; i < c->nhidden; i++) n[i + 1] = c->hidden[i];
        n[c->nhidden + 1] = C;
        for (int i = 0; i <= c->nhidden; i++) {
            r->fw[i] = need_param(m, "fc", i, "W", n[i], n[i + 1], 1);
            r->fb[i] = c->bias ? need_param(m, "fc", i, "b", 1, n[i + 1], 1) : -1;
            if (n[i] > mx) mx = n[i];
            if (n[i + 1] > mx) mx = n[i + 1];
        }
        break;
    }
    }
    r->s_x = gc_alloc(sizeof(double) * mx);
    r->s_q = gc_alloc(sizeof(double) * mx);
    r->s_k = gc_alloc(sizeof(double) * mx);
    r->s_v = gc_alloc(sizeof(double) * mx);
    r->s_ctx = gc_alloc(sizeof(double) * mx);
    r->s_tmp = gc_alloc(sizeof(double) * mx);
    r->s_z = gc_alloc(sizeof(double) * mx);
    r->s_e = gc_alloc(sizeof(double) * mx);
    r->margin = INFINITY;
}

static inline void ref_free(Ref *r)
{
    for (int i = 0; i < r->np; i++) free(r->p[i]);
    free(r->p); free(r->count); free(r->name); free(r->pad_row);
    free(r->s_x); free(r->s_q); free(r->s_k); free(r->s_v); free(r->s_ctx); free(r->s_tmp);
    free(r->s_z); free(r->s_e);
}

/* y (rows x b) = x (rows x a, row-major) * W (a x b, column-major) + bias (1 x b or NULL) */
static void lin(const double *x, int rows, int a, const double *W, const double *bias, int b, double *y)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < b; j++) {
            double s = bias ? bias[j] : 0;
            for (int i = 0; i < a; i++) s += x[r * a + i] * W[i + (size_t)a * j];
            y[r * b + j] = s;
        }
}

/* LayerNorm of each row, biased variance, eps 1e-5 */
static void ln_rows(const double *x, int rows, int n, const double *g, const double *b, double *y)
{
    for (int r = 0; r < rows; r++) {
        const double *xr = x + r * n;
        double mu = 0, v = 0;
        for (int c = 0; c < n; c++) mu += xr[c];
        mu /= n;
        for (int c = 0; c < n; c++) v += (xr[c] - mu) * (xr[c] - mu);
        v /= n;
        double rs = 1 / sqrt(v + 1e-5);
        for (int c = 0; c < n; c++) y[r * n + c] = (xr[c] - mu) * rs * g[c] + b[c];
    }
}

/* Embedding module of one sequence: e (T x d, row-major) */
static void ref_embed(Ref *r, const int32_t *ids, double *e)
{
    const EeConfig *c = &r->c;
    int T = c->T, d = c->d, V = c->vocab;
    const double *Et = r->p[r->etok];
    for (int t = 0; t < T; t++)
        for (int k = 0; k < d; k++) {
            double v = Et[ids[t] + (size_t)V * k];
            if (c->kind == EE_KIND_TRANSFORMER) v += r->p[r->epos][t + (size_t)T * k];
            e[t * d + k] = v;
        }
    if (c->kind == EE_KIND_TRANSFORMER) ln_rows(e, T, d, r->p[r->lng], r->p[r->lnb], e);
}

static void ref_transformer(Ref *r, const double *e, const uint8_t *mask, double *out)
{
    const EeConfig *c = &r->c;
    int T = c->T, d = c->d, H = c->heads, dh = d / H, f = c->ffn;
    double *x = r->s_x, *q = r->s_q, *k = r->s_k, *v = r->s_v, *ctx = r->s_ctx, *tmp = r->s_tmp, *z = r->s_z;
    memcpy(x, e, sizeof(double) * T * d);
    /* explainer features: x0 = e + (F / feat_scale) feat_W */
    int K = r->nfeat;
    if (K && r->row_feats)
        for (int t = 0; t < T; t++)
            for (int j = 0; j < d; j++)
                for (int q2 = 0; q2 < K; q2++)
                    x[t * d + j] += r->row_feats[t * K + q2] / r->p[r->fsc][q2] * r->p[r->fwt][q2 + (size_t)K * j];
    for (int l = 0; l < c->layers; l++) {
        double **P = r->p;
        const int *ix = r->enc[l];
        lin(x, T, d, P[ix[0]], P[ix[1]], d, q);
        lin(x, T, d, P[ix[2]], P[ix[3]], d, k);
        lin(x, T, d, P[ix[4]], P[ix[5]], d, v);
        int last = l == c->layers - 1;
        if (l == r->vs_l && r->vs_t >= 0)
            for (int a = 0; a < dh; a++) v[r->vs_t * d + r->vs_h * dh + a] *= r->vs_scale;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                double s[256], mx = -INFINITY, sum = 0;
                for (int j = 0; j < T; j++) {
                    double dot = 0;
                    for (int a = 0; a < dh; a++) dot += q[i * d + h * dh + a] * k[j * d + h * dh + a];
                    s[j] = mask[j] ? dot / sqrt((double)dh) : -INFINITY;
                    mx = fmax(mx, s[j]);
                }
                for (int j = 0; j < T; j++) { s[j] = exp(s[j] - mx); sum += s[j]; }
                if (last && i == 0 && H * T <= 8 * 64)
                    for (int j = 0; j < T; j++) r->clsP[h * T + j] = s[j] / sum;
                for (int a = 0; a < dh; a++) {
                    double acc = 0;
                    for (int j = 0; j < T; j++) acc += s[j] / sum * v[j * d + h * dh + a];
                    ctx[i * d + h * dh + a] = acc;
                }
            }
        lin(ctx, T, d, P[ix[6]], P[ix[7]], d, tmp);
        for (int i = 0; i < T * d; i++) tmp[i] += x[i];
        ln_rows(tmp, T, d, P[ix[8]], P[ix[9]], x);          /* x1 */
        lin(x, T, d, P[ix[10]], P[ix[11]], f, z);
        for (int i = 0; i < T * f; i++) z[i] = 0.5 * z[i] * (1 + erf(z[i] / sqrt(2.0)));
        lin(z, T, f, P[ix[12]], P[ix[13]], d, tmp);
        for (int i = 0; i < T * d; i++) tmp[i] += x[i];
        ln_rows(tmp, T, d, P[ix[14]], P[ix[15]], x);        /* x2 */
    }
    switch (c->head) {
    case EE_HEAD_CLASSIFIER: {
        double p[1024];
        lin(x, 1, d, r->p[r->wp], r->p[r->bp], d, p);        /* [CLS] row */
        for (int i = 0; i < d; i++) p[i] = tanh(p[i]);
        lin(p, 1, d, r->p[r->wc], r->p[r->bc], c->classes, out);
        break;
    }
    case EE_HEAD_FLAT: {
        /* y = vec(H) W + b, vec column-major over H (T x d): element t + T*k */
        const double *W = r->p[r->hw], *b = r->p[r->hb];
        size_t Td = (size_t)T * d;
        for (int j = 0; j < T; j++) {
            double s = b[j];
            for (int t = 0; t < T; t++)
                for (int kk = 0; kk < d; kk++) s += x[t * d + kk] * W[(t + (size_t)T * kk) + Td * j];
            out[j] = s;
        }
        break;
    }
    case EE_HEAD_TOKEN:
        for (int t = 0; t < T; t++) {
            double s = r->p[r->hb][0];
            for (int kk = 0; kk < d; kk++) s += x[t * d + kk] * r->p[r->hw][kk];
            out[t] = s;
        }
        break;
    }
    if (c->head == EE_HEAD_CLASSIFIER) return;
    /* explainer: out_t += (F_t / feat_scale) feat_v; 0 where not predicted
     * (PAD when attending to tokens, every special token with zero_special) */
    for (int t = 0; t < T; t++) {
        if (K && r->row_feats)
            for (int q2 = 0; q2 < K; q2++) out[t] += r->row_feats[t * K + q2] / r->p[r->fsc][q2] * r->p[r->fv][q2];
        if (!r->row_ids) continue;
        int32_t id = r->row_ids[t];
        if ((c->zero_special && EE_IS_SPECIAL(id)) || (c->attend_tokens && id == EE_PAD)) out[t] = 0;
    }
}

/* The cnn's explainer (MODELS.md): x0(t) = e(t) + (F(t) / feat_scale) feat_W
 * at the non-PAD positions (e(t) alone at PAD), H(t) = relu(window of
 * every width starting at t, zeros past T), out(t) = H(t) head_W + head_b
 * + (F(t) / feat_scale) feat_v at the non-PAD positions (not special ones
 * with zero_special), 0 elsewhere. Margins: the pre-activations of the
 * predicted positions. */
static void ref_cnn_explainer(Ref *r, const double *e, double *out)
{
    const EeConfig *c = &r->c;
    int T = c->T, d = c->d, F = c->filters, K = c->nwidths, nf = r->nfeat;
    double *x = r->s_x;
    memcpy(x, e, sizeof(double) * T * d);
    const int32_t *ids = r->row_ids;
    for (int t = 0; t < T; t++) {
        int real = !ids || ids[t] != EE_PAD;
        if (nf && r->row_feats && real)
            for (int j = 0; j < d; j++)
                for (int q = 0; q < nf; q++)
                    x[t * d + j] += r->row_feats[t * nf + q] / r->p[r->fsc][q] * r->p[r->fwt][q + (size_t)nf * j];
    }
    for (int t = 0; t < T; t++) {
        int32_t id = ids ? ids[t] : 4;
        int predicted = id != EE_PAD && !(c->zero_special && EE_IS_SPECIAL(id));
        double y = r->p[r->hb][0];
        int alive = 0;
        for (int k = 0; k < K; k++) {
            int w = c->widths[k];
            const double *W = r->p[r->cw[k]];
            for (int f = 0; f < F; f++) {
                double s = c->bias ? r->p[r->cb[k]][f] : 0;
                for (int j = 0; j < w && t + j < T; j++)
                    for (int a = 0; a < d; a++) s += x[(t + j) * d + a] * W[j + (size_t)w * (a + (size_t)d * f)];
                if (predicted) r->margin = fmin(r->margin, fabs(s));
                alive += s > 0;
                if (s > 0) y += s * r->p[r->hw][k * F + f];
            }
        }
        if (predicted && !alive) r->weak++; /* a position without a live unit passes no gradient */
        if (nf && r->row_feats)
            for (int q = 0; q < nf; q++) y += r->row_feats[t * nf + q] / r->p[r->fsc][q] * r->p[r->fv][q];
        out[t] = predicted ? y : 0;
    }
}

static void ref_cnn(Ref *r, const double *e, const uint8_t *mask, double *out)
{
    const EeConfig *c = &r->c;
    int T = c->T, d = c->d, F = c->filters, K = c->nwidths;
    double *zf = r->s_z;
    if (c->head != EE_HEAD_CLASSIFIER) {
        ref_cnn_explainer(r, e, out);
        return;
    }
    for (int k = 0; k < K; k++) {
        int w = c->widths[k];
        const double *W = r->p[r->cw[k]];
        for (int f = 0; f < F; f++) {
            double best = -INFINITY, second = -INFINITY;
            for (int t = 0; t < T; t++) {
                if (!mask[t]) continue;
                double s = c->bias ? r->p[r->cb[k]][f] : 0;
                for (int j = 0; j < w && t + j < T; j++)
                    for (int a = 0; a < d; a++) s += e[(t + j) * d + a] * W[j + (size_t)w * (a + (size_t)d * f)];
                if (s > best) { second = best; best = s; }
                else if (s > second) second = s;
            }
            /* relu(max): distance to the kink and to the runner-up */
            r->margin = fmin(r->margin, fabs(best));
            if (second > -INFINITY) r->margin = fmin(r->margin, best - second);
            zf[k * F + f] = best > 0 ? best : 0;
        }
    }
    int alive = 0;
    for (int i = 0; i < K * F; i++) alive += zf[i] > 0;
    r->weak += alive < 2;
    lin(zf, 1, K * F, r->p[r->wc], c->bias ? r->p[r->bc] : NULL, c->classes, out);
}

static void ref_mlp(Ref *r, const double *x0, double *out)
{
    const EeConfig *c = &r->c;
    double *a = r->s_x, *b = r->s_tmp;
    int n0 = c->D;
    memcpy(a, x0, sizeof(double) * n0);
    for (int i = 0; i <= c->nhidden; i++) {
        int n1 = i == c->nhidden ? c->classes : c->hidden[i];
        lin(a, 1, n0, r->p[r->fw[i]], c->bias ? r->p[r->fb[i]] : NULL, n1, i == c->nhidden ? out : b);
        if (i == c->nhidden) break;
        int alive = 0;
        for (int j = 0; j < n1; j++) {
            r->margin = fmin(r->margin, fabs(b[j]));
            a[j] = b[j] > 0 ? b[j] : 0;
            alive += b[j] > 0;
        }
        r->weak += alive < (n1 < 2 ? n1 : 2);
        n0 = n1;
    }
}

/* Outputs of one row from the embedding-layer output e (T x d) or x. */
static void ref_net(Ref *r, const double *e, const uint8_t *mask, double *out)
{
    switch (r->c.kind) {
    case EE_KIND_TRANSFORMER: ref_transformer(r, e, mask, out); break;
    case EE_KIND_CNN: ref_cnn(r, e, mask, out); break;
    case EE_KIND_MLP: ref_mlp(r, e, out); break;
    }
}

/* The logits of one row in double: token ids through the embedding under
 * the mask (the attended positions), or the dense x of an mlp. */
static inline void ref_logits(Ref *r, const int32_t *ids, const uint8_t *mask, const double *x, double *out)
{
    if (r->c.kind == EE_KIND_MLP) {
        ref_net(r, x, NULL, out);
        return;
    }
    double *e = malloc(sizeof(double) * r->c.T * r->c.d);
    ref_embed(r, ids, e);
    ref_net(r, e, mask, out);
    free(e);
}

/* ---- fixtures of the tests that compare libcore against the reference ---- */

/* A small config of `kind`, 3 classes: the token kinds with a vocabulary of
 * 30 and length T, the mlp with D inputs and hidden layers h0 and h1. */
static inline void refm_config(EeConfig *c, EeKind kind, int T, int D, int h0, int h1)
{
    ee_config_defaults(c, kind);
    c->classes = 3;
    if (kind == EE_KIND_TRANSFORMER) { c->vocab = 30; c->T = T; c->d = 8; c->heads = 2; c->layers = 2; c->ffn = 16; }
    if (kind == EE_KIND_CNN) { c->vocab = 30; c->T = T; c->d = 6; c->filters = 5; c->nwidths = 2; c->widths[0] = 2; c->widths[1] = 3; }
    if (kind == EE_KIND_MLP) { c->D = D; c->nhidden = 2; c->hidden[0] = h0; c->hidden[1] = h1; }
}

/* A model of config c whose weights are all nontrivial (biases and
 * LayerNorms too, so that no term of the reference goes untested): drawn
 * N(0, sd^2) from rng, in the exchange order, gains 1 + gain w with w
 * such a draw, the PAD embedding zero. seed: ee_model_init's, before the
 * draws. NULL when c is refused. */
static inline EeModel *refm_model_gains(const EeConfig *c, uint64_t seed, double sd, float gain, EeRng *rng)
{
    EeModel *m;
    if (ee_model_new(c, &m)) return NULL;
    ee_model_init(m, seed);
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        float *buf = malloc(sizeof(float) * pi.count);
        for (size_t k = 0; k < pi.count; k++) buf[k] = (float)(sd * ee_rng_normal(rng));
        if (!strcmp(pi.field, "E_tok"))
            for (int c2 = 0; c2 < pi.dims[1]; c2++) buf[(size_t)c2 * pi.dims[0]] = 0;
        if (strstr(pi.field, "_g"))
            for (size_t k = 0; k < pi.count; k++) buf[k] = 1.0f + gain * buf[k];
        ee_param_set(m, i, buf, pi.count);
        free(buf);
    }
    return m;
}

/* refm_model_gains with gains 1 + 0.2 w: close to 1, as trained ones. */
static inline EeModel *refm_model(const EeConfig *c, uint64_t seed, double sd, EeRng *rng)
{
    return refm_model_gains(c, seed, sd, 0.2f, rng);
}

/* N rows [CLS] tokens [SEP] PAD... of length T, real lengths lens[], the
 * tokens drawn uniformly from the 26 ordinary ids of the vocabulary of 30. */
static inline int32_t *refm_ids(int N, int T, const int *lens, EeRng *rng)
{
    int32_t *ids = malloc(sizeof(int32_t) * N * T);
    for (int i = 0; i < N; i++)
        for (int t = 0; t < T; t++)
            ids[i * T + t] = t == 0 ? EE_CLS : t == lens[i] + 1 ? EE_SEP : t <= lens[i] ? 4 + (int)ee_rng_below(rng, 26) : EE_PAD;
    return ids;
}

/* The target output of the reference at the point e: the function that
 * gc_fd1 differentiates, one coordinate of e at a time. */
typedef struct {
    Ref *r;
    const uint8_t *mask;
    double *e;
    int target;
} RefPoint;

static inline double ref_point_target(void *p)
{
    RefPoint *q = p;
    double out[8];
    ref_net(q->r, q->e, q->mask, out);
    return out[q->target];
}

#endif
