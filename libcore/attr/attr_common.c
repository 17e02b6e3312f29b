/* attr_common.c: shared pieces of the attribution samplers (see
 * attr_common.h). */
#include "attr_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ee_baseline_names[EE_BASELINE_NAMED] = {"pad", "zero"};

void ee_attr_options_defaults(EeAttrOptions *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 20;
    o->method = EE_IG_GAUSSLEGENDRE;
    o->baseline = EE_BASELINE_PAD;
    o->seed = 1;
    o->device = EE_DEVICE_AUTO;
    o->verbose = 1;
}

typedef struct {
    EeAttrFn fn;
    EeModel *m;
    const EeInput *in;
    const EeAttrOptions *o;
    float *A;
    EeAttrInfo *info;
} FitBatch;

static EeStatus fit_batch_fn(void *ctx, int B)
{
    FitBatch *f = ctx;
    EeAttrOptions opt = *f->o;
    opt.batch = B;
    return f->fn(f->m, f->in, &opt, f->A, f->info);
}

EeStatus ee_attr_fit_batch(EeAttrFn fn, EeModel *m, const EeInput *in, const EeAttrOptions *o,
                           float *A, EeAttrInfo *info)
{
    EeDevice dev;
    EeStatus st = ee_device_resolve(o->device, &dev);
    if (st) return st;
    FitBatch f = {fn, m, in, o, A, info};
    return ee_fit_batch(dev, &m->cfg, o->batch, fit_batch_fn, &f);
}

EeStatus ee_attr_check(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int for_sv)
{
    const EeConfig *c = &m->cfg;
    if (c->head != EE_HEAD_CLASSIFIER)
        return ee_fail(EE_ERR_MODEL, "attributions explain a classifier; this model is an Empirical Explainer");
    EeStatus st = ee_input_check(m, in);
    if (st) return st;
    if (o->steps < 1) return ee_fail(EE_ERR_INPUT, "the number of %s must be >= 1, got %d",
                                     for_sv ? "samples" : "steps", o->steps);
    if (o->batch < 0) return ee_fail(EE_ERR_INPUT, "'batch' must be >= 1");
    if (o->target)
        for (int i = 0; i < in->n; i++)
            if (o->target[i] < 0 || o->target[i] >= c->classes)
                return ee_fail(EE_ERR_INPUT, "target(%d) = %d is not a class in 1..%d", i + 1,
                               o->target[i] + 1, c->classes);
    if (!ee_is_token_model(c)) {
        if (for_sv) return ee_fail(EE_ERR_UNSUPPORTED, "Shapley sampling is defined for token models (transformer, cnn), not mlp");
        if (o->baseline != EE_BASELINE_ZERO)
            return ee_fail(EE_ERR_INPUT, "an mlp has dense inputs: only the 'zero' baseline applies");
        return EE_OK;
    }
    if (for_sv && o->baseline == EE_BASELINE_ZERO)
        return ee_fail(EE_ERR_INPUT, "the 'zero' baseline applies to IG only; SV replaces tokens by baseline ids");
    if (o->baseline == EE_BASELINE_IDS) {
        if (!o->baseline_ids) return ee_fail(EE_ERR_INPUT, "baseline ids missing");
        for (size_t k = 0; k < (size_t)in->n * c->T; k++)
            if (o->baseline_ids[k] < 0 || o->baseline_ids[k] >= c->vocab)
                return ee_fail(EE_ERR_INPUT, "baseline id %d at row %zu, column %zu is outside the vocabulary 1..%d",
                               o->baseline_ids[k] + 1, k / c->T + 1, k % c->T + 1, c->vocab);
    }
    return EE_OK;
}

void ee_attr_row_mask(const EeModel *m, const EeInput *in, int i, uint8_t *mask)
{
    int T = m->cfg.T;
    const int32_t *ids = in->ids + (size_t)i * T;
    for (int t = 0; t < T; t++)
        mask[t] = in->mask ? in->mask[(size_t)i * T + t] != 0 : ids[t] != EE_PAD;
}

void ee_attr_row_baseline(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int i,
                          int32_t *b)
{
    int T = m->cfg.T;
    const int32_t *ids = in->ids + (size_t)i * T;
    for (int t = 0; t < T; t++) {
        if (EE_IS_SPECIAL(ids[t])) b[t] = ids[t]; /* feature 0 keeps its ids */
        else b[t] = o->baseline == EE_BASELINE_IDS ? o->baseline_ids[(size_t)i * T + t] : EE_PAD;
    }
}

#define say(o, ...) ee_say((o)->verbose, (o)->print, (o)->print_ctx, __VA_ARGS__)

void ee_progress_start(EeProgress *p, const EeAttrOptions *o, const char *what, long total)
{
    p->o = o;
    p->what = what;
    p->unit = "sequences";
    p->t0 = p->last = ee_now();
    p->total = total;
}

void ee_progress_start_rows(EeProgress *p, const EeAttrOptions *o, const char *what, long total)
{
    ee_progress_start(p, o, what, total);
    p->unit = "rows";
}

void ee_progress_tick(EeProgress *p, long done)
{
    ee_progress_tick_work(p, done, (double)done, (double)p->total);
}

void ee_progress_tick_work(EeProgress *p, long done, double work, double work_total)
{
    double now = ee_now();
    if (!p->o->verbose || now - p->last < 2.0 || done <= 0 || work <= 0) return;
    p->last = now;
    double el = now - p->t0;
    say(p->o, "  %s: %ld/%ld %s  %.1f %s/s  ETA %.0fs", p->what, done, p->total, p->unit, done / el,
        p->unit[0] == 's' ? "seq" : "rows", (work_total - work) * el / work);
}

void ee_progress_end(EeProgress *p, long done, long passes)
{
    double s = ee_now() - p->t0;
    if (p->o->verbose && s >= 2.0)
        say(p->o, "  %s: %ld %s in %.1fs (%.1f %s/s, %ld model passes)", p->what, done, p->unit, s,
            done / s, p->unit[0] == 's' ? "seq" : "rows", passes);
}

EeStatus ee_attr_logits(EeRun *r, const int32_t *ids, const uint8_t *mask, int B, float *out)
{
    EeStatus st = ee_run_set_input(r, ids, mask, NULL, B);
    if (st) return st;
    ee_run_embed(r, B);
    ee_run_forward(r, B, 0);
    r->be->download(out, r->out, sizeof(float) * (size_t)B * r->m->cfg.classes);
    return EE_OK;
}

EeStatus ee_attr_targets(EeRun *r, const EeInput *in, const EeAttrOptions *o, int32_t *target,
                         float *fx)
{
    int B = r->Bmax, C = r->m->cfg.classes;
    float *out = malloc(sizeof(float) * (size_t)B * C);
    if (!out) return ee_fail(EE_ERR_NOMEM, "out of memory");
    EeStatus st = EE_OK;
    /* f(x) in FP32 whatever the precision of the sampler's other passes
     * (the same device's FP32 table works on the same buffers) */
    const EeBackend *be = r->be;
    r->be = ee_backend_at(be->device, EE_PRECISION_FP32);
    for (int i0 = 0; i0 < in->n && !st; i0 += B) {
        int nb = in->n - i0 < B ? in->n - i0 : B;
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted while computing targets");
            break;
        }
        st = ee_run_predict(r, in, i0, nb, out);
        for (int i = 0; i < nb && !st; i++) {
            const float *z = out + (size_t)i * C;
            int t = o->target ? o->target[i0 + i] : ee_argmax(z, C);
            target[i0 + i] = t;
            fx[i0 + i] = z[t];
        }
    }
    r->be = be;
    free(out);
    return st;
}

void ee_fn_info_rows(EeFnInfo *info, int N, const int32_t *target, const double *fx)
{
    if (!info) return;
    if (info->target) memcpy(info->target, target, sizeof(int32_t) * N);
    if (info->fx) memcpy(info->fx, fx, sizeof(double) * N);
}

void ee_fn_info_totals(EeFnInfo *info, long rows, long calls, double seconds_eval, double t0)
{
    if (!info) return;
    info->rows = rows;
    info->calls = calls;
    info->seconds_eval = seconds_eval;
    info->seconds = ee_now() - t0;
}
