/* run.c: binding a model to a backend for a batch size: device weights,
 * gradients, inputs, embedding output and its gradient. The kind's own
 * activations are allocated by its EeKindOps.alloc. */
#include "model_impl.h"

#include <stdlib.h>
#include <string.h>

/* A 128-bit key of the weights' bytes, for the backend's resident copies:
 * two multiply-xor lanes per 1 MiB block (blocks in parallel), folded in
 * block order, so the key does not depend on the thread count. Not a
 * cryptographic hash: it tells models apart, it does not defend against
 * a crafted collision (two models whose weights differ and whose keys
 * agree would share a device copy). */
static void weights_key(const float *w, size_t bytes, uint64_t key[2])
{
    enum { BLOCK = 1 << 17 }; /* 64-bit words per block: 1 MiB */
    const unsigned char *p = (const unsigned char *)w;
    size_t words = bytes / 8, nblocks = (words + BLOCK - 1) / BLOCK;
    uint64_t k0 = 0x243f6a8885a308d3u ^ bytes, k1 = 0x13198a2e03707344u;
    uint64_t(*part)[2] = nblocks > 0 ? malloc(sizeof *part * nblocks) : NULL;
    if (nblocks > 0 && !part) { key[0] = key[1] = 0; return; } /* 0: no key, no sharing */
    #pragma omp parallel for if (nblocks > 4) schedule(static)
    for (size_t b = 0; b < nblocks; b++) {
        uint64_t a = 0x9e3779b97f4a7c15u + b, c = 0xc2b2ae3d27d4eb4fu ^ b;
        size_t end = (b + 1) * BLOCK < words ? (b + 1) * BLOCK : words;
        for (size_t i = b * BLOCK; i < end; i++) {
            uint64_t x;
            memcpy(&x, p + 8 * i, 8);
            a = (a ^ x) * 0x100000001b3u;
            a ^= a >> 29;
            c = (c + x) * 0xff51afd7ed558ccdu;
            c = (c << 31) | (c >> 33);
        }
        part[b][0] = a;
        part[b][1] = c;
    }
    for (size_t b = 0; b < nblocks; b++) {
        k0 = (k0 ^ part[b][0]) * 0x9e3779b97f4a7c15u;
        k0 ^= k0 >> 31;
        k1 = (k1 + part[b][1]) * 0xc4ceb9fe1a85ec53u;
        k1 ^= k1 >> 33;
    }
    for (size_t i = words * 8; i < bytes; i++) k0 = (k0 ^ p[i]) * 0x100000001b3u;
    free(part);
    key[0] = k0 | 1; /* never the "no key" 0 */
    key[1] = k1;
}

EeStatus ee_run_new(EeModel *m, const EeBackend *be, int Bmax, int keep, int with_grads,
                    EeRun **out)
{
    *out = NULL;
    if (!be) return ee_fail(EE_ERR_NODEVICE, "no backend for the requested device");
    if (Bmax < 1) Bmax = 1;
    EeRun *r = calloc(1, sizeof *r);
    if (!r) return ee_fail(EE_ERR_NOMEM, "out of memory");
    const EeConfig *c = &m->cfg;
    r->m = m;
    r->be = be;
    r->Bmax = Bmax;
    r->keep = keep;
    r->in_width = ee_is_token_model(c) ? c->T * c->d : c->D;
    r->T = ee_is_token_model(c) ? c->T : 1;
    int fail = 0;
    size_t W = m->total * sizeof(float);
    if (be->host_memory) {
        r->w = m->w; /* the model's host buffer is the backend's memory */
    } else if (!with_grads && be->weights_acquire) {
        /* a run that only reads its weights shares the backend's resident
         * copy of the same bytes, kept between calls: a loop of small
         * calls does not upload the model again each time */
        uint64_t key[2];
        weights_key(m->w, W, key);
        r->w = key[0] ? be->weights_acquire(m->w, W, key) : NULL;
        r->w_shared = r->w != NULL;
        if (!r->w) {
            r->w = ee_run_alloc(r, W, &fail);
            if (!fail) be->upload(r->w, m->w, W);
        }
    } else {
        r->w = ee_run_alloc(r, W, &fail);
        if (!fail) be->upload(r->w, m->w, W);
    }
    if (with_grads) r->g = ee_run_alloc(r, W, &fail);
    size_t rows = (size_t)Bmax;
    if (ee_is_token_model(c)) {
        r->ids = ee_run_alloc(r, rows * c->T * sizeof(int32_t), &fail);
        r->mask = ee_run_alloc(r, rows * c->T, &fail);
    }
    r->e = ee_run_alloc(r, rows * r->in_width * sizeof(float), &fail);
    /* the gradient at e: only a full backward writes it */
    if (keep == EE_KEEP_FULL) r->de = ee_run_alloc(r, rows * r->in_width * sizeof(float), &fail);
    r->out = ee_run_alloc(r, rows * ee_config_outputs(c) * sizeof(float), &fail);
    int k = ee_config_features(c);
    if (k) r->feats = ee_run_alloc(r, rows * c->T * k * sizeof(float), &fail);
    if (k && c->kind == EE_KIND_CNN && !(r->real_host = malloc(rows * c->T))) fail = 1;
    if (c->head != EE_HEAD_CLASSIFIER && (c->attend_tokens || c->zero_special))
        r->omask = ee_run_alloc(r, rows * c->T, &fail);
    if (!fail && ee_kind_ops(c->kind)->alloc(r)) fail = 1;
    if (fail) {
        ee_run_free(r);
        return ee_fail(EE_ERR_NOMEM, "out of %s memory for a batch of %d rows",
                       be->device == EE_DEVICE_GPU ? "GPU" : "host", Bmax);
    }
    *out = r;
    return EE_OK;
}

void ee_run_free(EeRun *r)
{
    if (!r) return;
    const EeBackend *be = r->be;
    if (r->kind) ee_kind_ops(r->m->cfg.kind)->release(r);
    if (r->w_shared) be->weights_release(r->w);
    else if (r->w != r->m->w) be->release(r->w);
    be->release(r->g);
    be->release(r->ids);
    be->release(r->mask);
    be->release(r->e);
    be->release(r->de);
    be->release(r->out);
    be->release(r->feats);
    be->release(r->omask);
    free(r->real_host);
    free(r);
}

int ee_run_needed_len(const EeRun *r, const int32_t *ids, const uint8_t *mask, int B)
{
    const EeConfig *c = &r->m->cfg;
    if (!ee_is_token_model(c)) return 1;
    /* the flat head reads every position's state; an explainer that
     * attends everywhere computes them all */
    if (c->head != EE_HEAD_CLASSIFIER && (c->head == EE_HEAD_FLAT || !c->attend_tokens)) return c->T;
    int L = 1;
    for (int i = 0; i < B; i++) {
        const int32_t *row = ids + (size_t)i * c->T;
        const uint8_t *mk = mask ? mask + (size_t)i * c->T : NULL;
        for (int t = c->T - 1; t >= L; t--) {
            int attended = mk && c->head == EE_HEAD_CLASSIFIER ? mk[t] != 0 : row[t] != EE_PAD;
            int needed = attended || (c->kind == EE_KIND_CNN && row[t] != EE_PAD);
            if (needed) { L = t + 1; break; }
        }
    }
    return L;
}

EeStatus ee_run_set_input_len(EeRun *r, const int32_t *ids, const uint8_t *mask, const float *x,
                              int B, int L)
{
    const EeConfig *c = &r->m->cfg;
    if (B > r->Bmax) return ee_fail(EE_ERR_INPUT, "batch of %d rows exceeds the run's %d", B, r->Bmax);
    if (!ee_is_token_model(c)) {
        r->be->upload(r->e, x, sizeof(float) * (size_t)B * c->D);
        return EE_OK;
    }
    if (L < 1 || L > c->T) return ee_fail(EE_ERR_INPUT, "active length %d outside 1..%d", L, c->T);
    r->T = L;
    size_t n = (size_t)B * L, nT = (size_t)B * c->T;
    int32_t *hi = malloc(sizeof(int32_t) * n);
    uint8_t *hm = malloc(n), *ho = r->omask ? malloc(nT) : NULL;
    if (!hi || !hm || (r->omask && !ho)) {
        free(hi);
        free(hm);
        free(ho);
        return ee_fail(EE_ERR_NOMEM, "out of memory");
    }
    /* Attention masks: the classifier's from the caller (id != PAD by
     * default); an explainer's from its design alone (every position, or
     * the non-PAD ones). Explainer outputs: predicted at the non-PAD (or
     * the real, non-special) positions, 0 elsewhere. */
    int expl = c->head != EE_HEAD_CLASSIFIER;
    for (int i = 0; i < B; i++)
        for (int t = 0; t < L; t++) {
            size_t k = (size_t)i * c->T + t, o = (size_t)i * L + t;
            hi[o] = ids[k];
            if (expl) hm[o] = c->attend_tokens ? ids[k] != EE_PAD : 1;
            else hm[o] = mask ? mask[k] != 0 : ids[k] != EE_PAD;
        }
    if (ho)
        for (size_t k = 0; k < nT; k++)
            ho[k] = c->zero_special ? !EE_IS_SPECIAL(ids[k]) : ids[k] != EE_PAD;
    if (r->real_host)
        for (size_t q = 0; q < n; q++) r->real_host[q] = hi[q] != EE_PAD;
    r->be->upload(r->ids, hi, sizeof(int32_t) * n);
    r->be->upload(r->mask, hm, n);
    if (ho) r->be->upload(r->omask, ho, nT);
    free(hi);
    free(hm);
    free(ho);
    return EE_OK;
}

EeStatus ee_run_set_features(EeRun *r, const float *feats, int B)
{
    const EeConfig *c = &r->m->cfg;
    int k = ee_config_features(c), L = r->T;
    if (!k) return EE_OK;
    if (B > r->Bmax) return ee_fail(EE_ERR_INPUT, "batch of %d rows exceeds the run's %d", B, r->Bmax);
    int si = ee_model_find_param(r->m, NULL, 0, "feat_scale");
    if (si < 0) return ee_fail(EE_ERR_MODEL, "explainer without feat_scale");
    const float *scale = r->m->w + r->m->p[si].offset; /* frozen: the host copy is current */
    size_t n = (size_t)B * L * k;
    float *h = malloc(sizeof(float) * (n ? n : 1));
    if (!h) return ee_fail(EE_ERR_NOMEM, "out of memory");
    for (int i = 0; i < B; i++)
        for (int t = 0; t < L; t++)
            for (int j = 0; j < k; j++)
                h[((size_t)i * L + t) * k + j] = r->real_host && !r->real_host[(size_t)i * L + t]
                                                     ? 0.0f /* the cnn reads a PAD position as zeros */
                                                     : feats[((size_t)i * c->T + t) * k + j] / scale[j];
    r->be->upload(r->feats, h, sizeof(float) * n);
    free(h);
    return EE_OK;
}

EeStatus ee_run_set_input(EeRun *r, const int32_t *ids, const uint8_t *mask, const float *x, int B)
{
    int L = ee_is_token_model(&r->m->cfg) ? ee_run_needed_len(r, ids, mask, B) : 1;
    return ee_run_set_input_len(r, ids, mask, x, B, L);
}

void ee_run_embed(EeRun *r, int B) { ee_kind_ops(r->m->cfg.kind)->embed(r, B); }

void ee_run_forward(EeRun *r, int B, int train)
{
    r->dropout_on = train && r->keep ? r->dropout : 0.0f;
    ee_kind_ops(r->m->cfg.kind)->forward(r, B, train);
    r->qkv0_given = r->ctx0_given = 0; /* apply to one pass */
}

void ee_run_backward(EeRun *r, int B, const float *dout, int need_de, int param_grads)
{
    ee_kind_ops(r->m->cfg.kind)->backward(r, B, dout, need_de, param_grads);
}

void ee_run_embed_backward(EeRun *r, int B) { ee_kind_ops(r->m->cfg.kind)->embed_backward(r, B); }

EeStatus ee_run_deeplift_backward(EeRun *r, int B, const float *dout)
{
    const EeKindOps *k = ee_kind_ops(r->m->cfg.kind);
    if (!k->deeplift_backward)
        return ee_fail(EE_ERR_UNSUPPORTED, "DeepLIFT is defined on the mlp and the cnn, not on a %s",
                       ee_kind_name(r->m->cfg.kind));
    if (!r->be->relu_rescale_bwd || !r->be->pool_rescale_bwd)
        return ee_fail(EE_ERR_UNSUPPORTED, "DeepLIFT needs the rescale rule, which the %s backend does not have",
                       r->be->name);
    if (2 * B > r->Bmax) return ee_fail(EE_ERR_INPUT, "DeepLIFT of %d rows needs a run of %d, this one has %d", B, 2 * B, r->Bmax);
    return k->deeplift_backward(r, B, dout);
}

void ee_run_pull_weights(EeRun *r)
{
    if (r->w != r->m->w) r->be->download(r->m->w, r->w, r->m->total * sizeof(float));
}

void ee_run_drop_fixed_grads(EeRun *r)
{
    if (!r->g) return;
    for (int i = 0; i < r->m->np; i++) {
        const EeParam *p = &r->m->p[i];
        if (p->frozen) r->be->zero(r->g + p->offset, sizeof(float) * p->count);
        else if (p->pad_row) r->be->zero(r->g + p->offset, sizeof(float) * p->dims[1]);
    }
}
