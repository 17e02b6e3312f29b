/* train.c: minibatch training shared by classifiers (cross-entropy on class
 * labels) and Empirical Explainers (MSE on attribution maps): seeded
 * shuffling, Adam, dropout, per-epoch validation, early stopping that
 * keeps the best weights, and a progress line with rate and ETA. */
#include "../models/model_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (head != EE_HEAD_CLASSIFIER) { o->lr = 1e-3f; o->dropout = 0.0f; o->epochs = 20; }
}

void ee_history_free(EeHistory *h)
{
    if (!h) return;
    free(h->train_loss);
    free(h->valid_loss);
    free(h->valid_metric);
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
    int classifier, outs;
    int32_t *h_ids, *d_labels, *h_labels;
    uint8_t *h_mask;
    float *h_x, *h_maps, *d_maps, *d_dout;
} Trainer;

/* Gathers rows idx[0..nb) of a dataset into the run (and the targets). */
static EeStatus load_batch(Trainer *t, const EeDataset *ds, const int *idx, int nb)
{
    const EeConfig *c = t->c;
    int T = c->T, token = ee_is_token_model(c);
    for (int i = 0; i < nb; i++) {
        size_t s = (size_t)idx[i];
        if (token) {
            memcpy(t->h_ids + (size_t)i * T, ds->in.ids + s * T, sizeof(int32_t) * T);
            if (ds->in.mask) memcpy(t->h_mask + (size_t)i * T, ds->in.mask + s * T, T);
        } else {
            memcpy(t->h_x + (size_t)i * c->D, ds->in.x + s * c->D, sizeof(float) * c->D);
        }
        if (t->classifier) t->h_labels[i] = ds->labels[s];
        else memcpy(t->h_maps + (size_t)i * T, ds->maps + s * T, sizeof(float) * T);
    }
    EeStatus st = ee_run_set_input(t->r, token ? t->h_ids : NULL,
                                   token && ds->in.mask ? t->h_mask : NULL, token ? NULL : t->h_x, nb);
    if (st) return st;
    if (t->classifier) t->be->upload(t->d_labels, t->h_labels, sizeof(int32_t) * nb);
    else t->be->upload(t->d_maps, t->h_maps, sizeof(float) * (size_t)nb * T);
    return EE_OK;
}

/* Loss of the current forward output; writes dout when want_grad. */
static float batch_loss(Trainer *t, int nb, int want_grad)
{
    float loss = 0;
    if (t->classifier)
        t->be->softmax_xent(t->r->out, t->d_labels, t->d_dout, &loss, nb, t->outs);
    else
        t->be->mse(t->r->out, t->d_maps, want_grad ? t->d_dout : NULL, &loss, nb, t->outs);
    return loss;
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
        total += (double)batch_loss(t, nb, 0) * nb;
        if (t->classifier) {
            t->be->download(out, t->r->out, sizeof(float) * (size_t)nb * t->outs);
            for (int i = 0; i < nb; i++) {
                int best = 0;
                for (int k = 1; k < t->outs; k++)
                    if (out[(size_t)i * t->outs + k] > out[(size_t)i * t->outs + best]) best = k;
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
        } else {
            for (int t = 0; t < c->T; t++)
                if (!isfinite(ds->maps[(size_t)i * c->T + t]))
                    return ee_fail(EE_ERR_INPUT, "%s attribution map has NaN or Inf at row %d", what, i + 1);
        }
    }
    return EE_OK;
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
        !(opt->dropout >= 0 && opt->dropout < 1) || opt->patience < 0)
        return ee_fail(EE_ERR_INPUT, "bad training options (epochs >= 1, batch >= 1, lr > 0, 0 <= dropout < 1, patience >= 0)");
    EeDevice dev;
    if ((st = ee_device_resolve(opt->device, &dev))) return st;

    int n = train->in.n, B = opt->batch < n ? opt->batch : n;
    int nv = valid ? valid->in.n : 0;
    Trainer t = {0};
    t.c = c;
    t.classifier = classifier;
    t.outs = ee_config_outputs(c);
    t.be = ee_backend_for(dev);
    if ((st = ee_run_new(m, t.be, B, 1, 1, &t.r))) return st;
    t.r->dropout = opt->dropout;
    size_t T = ee_is_token_model(c) ? (size_t)c->T : 0;
    int fail = 0;
    t.h_ids = malloc(sizeof(int32_t) * B * (T ? T : 1));
    t.h_mask = malloc((size_t)B * (T ? T : 1));
    t.h_x = malloc(sizeof(float) * B * (size_t)(c->kind == EE_KIND_MLP ? c->D : 1));
    t.h_labels = malloc(sizeof(int32_t) * B);
    t.h_maps = malloc(sizeof(float) * B * (T ? T : 1));
    t.d_labels = ee_run_alloc(t.r, sizeof(int32_t) * B, &fail);
    t.d_maps = ee_run_alloc(t.r, sizeof(float) * B * (T ? T : 1), &fail);
    t.d_dout = ee_run_alloc(t.r, sizeof(float) * B * t.outs, &fail);
    size_t W = m->total;
    float *adam_m = ee_run_alloc(t.r, sizeof(float) * W, &fail);
    float *adam_v = ee_run_alloc(t.r, sizeof(float) * W, &fail);
    float *best = nv ? malloc(sizeof(float) * W) : NULL;
    int *order = malloc(sizeof(int) * n);
    hist->train_loss = calloc((size_t)opt->epochs, sizeof(float));
    hist->valid_loss = calloc((size_t)opt->epochs, sizeof(float));
    hist->valid_metric = calloc((size_t)opt->epochs, sizeof(float));
    if (fail || !t.h_ids || !t.h_mask || !t.h_x || !t.h_labels || !t.h_maps || (nv && !best) ||
        !order || !hist->train_loss || !hist->valid_loss || !hist->valid_metric) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory setting up training");
        goto done;
    }

    double t0 = ee_now(), last_print = t0, best_loss = INFINITY;
    int steps_per_epoch = (n + B - 1) / B, step = 0, since_best = 0;
    long total_steps = (long)steps_per_epoch * opt->epochs;
    say(opt, "training %s%s%s: %d rows, %d validation, %zu weights, batch %d, lr %g, %d epochs, %s",
        ee_kind_name(c->kind), classifier ? "" : " explainer head ", classifier ? "" : ee_head_name(c->head),
        n, nv, W, B, (double)opt->lr, opt->epochs, t.be->name);
    for (int ep = 0; ep < opt->epochs && !st; ep++) {
        EeRng rng;
        ee_rng_stream(&rng, opt->seed, 0x7a17ULL, (uint64_t)ep + 1);
        ee_rng_permutation(&rng, n, order);
        double ep_loss = 0;
        for (int b0 = 0; b0 < n; b0 += B) {
            int nb = n - b0 < B ? n - b0 : B;
            if ((st = load_batch(&t, train, order + b0, nb))) break;
            t.r->dropout_seed = ee_hash64(opt->seed ^ ee_hash64((uint64_t)step + 0x5eed));
            ee_run_embed(t.r, nb);
            ee_run_forward(t.r, nb, 1);
            float loss = batch_loss(&t, nb, 1);
            if (!isfinite(loss)) {
                st = ee_fail(EE_ERR_INPUT, "training diverged (loss %g at epoch %d); lower 'lr'",
                             (double)loss, ep + 1);
                break;
            }
            ep_loss += (double)loss * nb;
            t.be->zero(t.r->g, sizeof(float) * W);
            ee_run_backward(t.r, nb, t.d_dout, 1, 1);
            ee_run_embed_backward(t.r, nb);
            ee_run_drop_pad_grads(t.r);
            step++;
            t.be->adam(t.r->w, t.r->g, adam_m, adam_v, W, opt->lr, 0.9f, 0.999f, 1e-8f, step);
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
        if (classifier)
            say(opt, "epoch %d/%d  train loss %.4f  valid loss %.4f  valid acc %.4f  (%s)", ep + 1,
                opt->epochs, ep_loss / n, vloss, vmetric, el);
        else
            say(opt, "epoch %d/%d  train MSE %.4g  valid MSE %.4g  (%s)", ep + 1, opt->epochs,
                ep_loss / n, vloss, el);
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
    }
    hist->seconds = ee_now() - t0;
    if (!st) st = ee_backend_check(t.be);
done:
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
    free(best);
    free(order);
    if (st) ee_history_free(hist);
    return st;
}
