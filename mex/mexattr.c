/* mexattr.c: shared option handling of the attribution gateways. */
#include "mexattr.h"

#include <string.h>

void ee_mx_attr_inputs(const mxArray *X, const EeModel *m, EeInput *in)
{
    const EeConfig *c = ee_model_config(m);
    memset(in, 0, sizeof *in);
    if (c->kind == EE_KIND_MLP) in->x = ee_mx_dense(X, "X", c->D, &in->n);
    else in->ids = ee_mx_tokens(X, "X", c->T, c->vocab, &in->n);
}

EeModel *ee_mx_attr_start(const char *gateway, int nlhs, int nrhs, const mxArray *prhs[], int first,
                          const char *const *names, EeMxOpt *o, int nopt, const char *mlp_refusal, EeInput *all)
{
    ee_mx_start(gateway, nlhs, nrhs, prhs, first, names, o, nopt);
    EeModel *m = ee_mx_model(prhs[0], "model");
    if (mlp_refusal && ee_model_config(m)->kind == EE_KIND_MLP) ee_mx_error("ee:notSupported", "%s", mlp_refusal);
    ee_mx_attr_inputs(prhs[1], m, all);
    return m;
}

void ee_mx_attr_baseline(const mxArray *v, const EeModel *m, int N, int allow_zero, EeAttrOptions *o)
{
    const EeConfig *c = ee_model_config(m);
    o->baseline = c->kind == EE_KIND_MLP ? EE_BASELINE_ZERO : EE_BASELINE_PAD;
    if (!v) return;
    if (mxIsChar(v)) {
        /* pad, and zero where it applies (IG): the names before it */
        int n = allow_zero ? EE_BASELINE_NAMED : EE_BASELINE_ZERO;
        o->baseline = (EeBaseline)ee_mx_choice(v, "'baseline'", ee_baseline_names, n);
        if (c->kind == EE_KIND_MLP && o->baseline != EE_BASELINE_ZERO)
            ee_mx_error("ee:badInput", "an mlp has dense inputs: only the 'zero' baseline applies");
        return;
    }
    if (c->kind == EE_KIND_MLP)
        ee_mx_error("ee:badInput", "an mlp has dense inputs: only the 'zero' baseline applies");
    int n;
    o->baseline_ids = ee_mx_tokens(v, "'baseline'", c->T, c->vocab, &n);
    if (n != N) ee_mx_error("ee:badInput", "'baseline' must have one row per row of X (%d), got %d", N, n);
    o->baseline = EE_BASELINE_IDS;
}

void ee_mx_attr_target(const mxArray *v, const EeModel *m, int N, EeAttrOptions *o)
{
    o->target = NULL;
    if (!v) return;
    if (mxIsChar(v)) {
        static const char *const names[] = {"argmax"};
        ee_mx_choice(v, "'target'", names, 1);
        return;
    }
    int C = ee_model_config(m)->classes;
    if (mxGetNumberOfElements(v) == 1 && N != 1) { /* one class for every row */
        int t = ee_mx_int(v, "'target'", 1, C);
        int32_t *tg = ee_mx_malloc(sizeof(int32_t) * (N + 1), "'target'");
        for (int i = 0; i < N; i++) tg[i] = t - 1;
        o->target = tg;
        return;
    }
    o->target = ee_mx_labels(v, "'target'", N, C, NULL);
}

int *ee_mx_attr_rows(const mxArray *v, int N, int *count)
{
    int *rows;
    if (!v) {
        rows = ee_mx_malloc(sizeof(int) * (N + 1), "'rows'");
        for (int i = 0; i < N; i++) rows[i] = i;
        *count = N;
        return rows;
    }
    size_t n = mxGetNumberOfElements(v);
    if (mxIsLogical(v)) { /* a mask over the rows of X, as X(mask,:) reads it */
        if (n != (size_t)N || (mxGetM(v) > 1 && mxGetN(v) > 1))
            ee_mx_error("ee:badInput", "'rows' as a logical mask must be a vector of %d elements (one per row of X), got %zux%zu",
                        N, mxGetM(v), mxGetN(v));
        const mxLogical *mk = mxGetLogicals(v);
        rows = ee_mx_malloc(sizeof(int) * (n + 1), "'rows'");
        int c = 0;
        for (int i = 0; i < N; i++)
            if (mk[i]) rows[c++] = i;
        *count = c;
        return rows;
    }
    rows = ee_mx_malloc(sizeof(int) * (n + 1), "'rows'");
    *count = ee_mx_int_vector(v, "'rows'", 1, N, rows, (int)n);
    for (int i = 0; i < *count; i++) rows[i]--;
    return rows;
}

int ee_mx_attr_run(const int *rows, int nrows, int i0, const EeAttrOptions *a, EeAttrOptions *s)
{
    int i1 = i0 + 1;
    while (i1 < nrows && rows[i1] == rows[i1 - 1] + 1) i1++;
    *s = *a;
    s->row_offset = rows[i0];
    return i1;
}

int ee_mx_attr_run_rows(const int *rows, int nrows, int i0, const EeInput *all, int W, const EeAttrOptions *a,
                        EeAttrOptions *s, EeInput *in)
{
    int i1 = ee_mx_attr_run(rows, nrows, i0, a, s), r0 = rows[i0];
    size_t at = (size_t)r0 * W;
    *in = (EeInput){.n = i1 - i0, .ids = all->ids ? all->ids + at : NULL, .x = all->x ? all->x + at : NULL};
    if (a->baseline_ids) s->baseline_ids = a->baseline_ids + at;
    if (a->target) s->target = a->target + r0;
    return i1;
}

EeAttrInfo ee_mx_attr_info_new(int nrows, int completeness)
{
    EeAttrInfo info = {0};
    info.target = ee_mx_malloc(sizeof(int32_t) * (nrows + 1), "info");
    info.fx = ee_mx_malloc(sizeof(float) * (nrows + 1), "info");
    if (completeness) {
        info.fbaseline = ee_mx_malloc(sizeof(float) * (nrows + 1), "info");
        info.delta = ee_mx_malloc(sizeof(float) * (nrows + 1), "info");
    }
    return info;
}

EeAttrInfo ee_mx_attr_info_from(const EeAttrInfo *info, int i0)
{
    EeAttrInfo part = {0};
    part.target = info->target ? info->target + i0 : NULL;
    part.fx = info->fx ? info->fx + i0 : NULL;
    part.fbaseline = info->fbaseline ? info->fbaseline + i0 : NULL;
    part.delta = info->delta ? info->delta + i0 : NULL;
    return part;
}

void ee_mx_attr_exec(const mxArray *batch, const mxArray *device, const mxArray *precision, const mxArray *verbose,
                     EeAttrOptions *a)
{
    if (batch) a->batch = ee_mx_int(batch, "'batch'", 1, 1 << 20);
    a->device = ee_mx_device(device);
    a->precision = ee_mx_precision(precision);
    if (verbose) a->verbose = ee_mx_bool(verbose, "'verbose'");
}

mxArray *ee_mx_attr_info(const EeAttrInfo *info, int N, const char *method, int steps, int with_delta)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    mxArray *t = mxCreateDoubleMatrix((size_t)N, 1, mxREAL);
    double *tp = mxGetPr(t);
    for (int i = 0; i < N; i++) tp[i] = info->target[i] + 1;
    ee_mx_set(s, "target", t);
    const float *cols[3] = {info->fx, info->fbaseline, info->delta};
    const char *names[3] = {"fx", "fbaseline", "delta"};
    for (int k = 0; k < (with_delta ? 3 : 2); k++) {
        mxArray *a = mxCreateDoubleMatrix((size_t)N, 1, mxREAL);
        double *p = mxGetPr(a);
        for (int i = 0; i < N; i++) p[i] = cols[k][i];
        ee_mx_set(s, names[k], a);
    }
    ee_mx_set(s, "passes", mxCreateDoubleScalar((double)(info->forward + info->backward)));
    ee_mx_set(s, "forward_passes", mxCreateDoubleScalar((double)info->forward));
    ee_mx_set(s, "backward_passes", mxCreateDoubleScalar((double)info->backward));
    ee_mx_set(s, "seconds", mxCreateDoubleScalar(info->seconds));
    ee_mx_set(s, "method", mxCreateString(method));
    ee_mx_set(s, "steps", mxCreateDoubleScalar(steps));
    return s;
}

int ee_mx_attr_sampling(const mxArray *exact, const mxArray *samples, const mxArray *seed, EeAttrOptions *a)
{
    ee_attr_options_defaults(a);
    a->print = ee_mx_print;
    int ex = exact ? ee_mx_bool(exact, "'exact'") : 0;
    if (samples) a->steps = ee_mx_int(samples, "'samples'", 1, 1 << 20);
    if (seed) a->seed = (uint64_t)ee_mx_int(seed, "'seed'", 0, 0x7fffffff);
    return ex;
}
