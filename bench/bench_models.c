/* bench_models.c: forward and forward+backward throughput of each
 * classifier (sequences/s, GFLOP/s) next to the OpenBLAS SGEMM rate
 * measured in the same run. Not a test: numbers depend on the machine.
 *
 * Sizes (issue 2): batch 64, T = 128, d = 64, 2 layers, 4 heads, ffn 256,
 * vocab 20000, 2 classes; cnn widths 3/4/5 with 100 filters; mlp on
 * D = 1024 inputs with hidden [256 256], and the bias-free Fashion-MNIST
 * mlp (784-512-256-10, batch 128; `bench_models mlp` prints the mlp rows
 * alone). Sequences are full length (no PAD), so the nominal FLOP count
 * is the work actually needed. */
#include "ee.h"
#include "ee_model_io.h"
#include "models/model_impl.h"
#include "bench_stats.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Median seconds of `reps` runs of fn(ctx) after one warm-up. */
static double time_median(void (*fn)(void *), void *ctx, int reps)
{
    double t[64];
    fn(ctx);
    for (int i = 0; i < reps; i++) {
        double t0 = ee_now();
        fn(ctx);
        t[i] = ee_now() - t0;
    }
    return bench_median(t, reps);
}

typedef struct { int n; float *a, *b, *c; } GemmCtx;
static void run_gemm(void *p)
{
    GemmCtx *g = p;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->n, g->n, g->n, 1.0f, g->a, g->n, g->b,
                g->n, 0.0f, g->c, g->n);
}

typedef struct { EeRun *r; int B; float *dout; int backward; } PassCtx;
static void run_pass(void *p)
{
    PassCtx *c = p;
    ee_run_embed(c->r, c->B);
    ee_run_forward(c->r, c->B, 0);
    if (c->backward) {
        ee_run_backward(c->r, c->B, c->dout, 1, 1);
        ee_run_embed_backward(c->r, c->B);
    }
}

/* Forward FLOPs of one sequence of L positions (multiply-adds count 2). */
static double forward_flops_len(const EeConfig *c, int L)
{
    double T = L, d = c->d;
    switch (c->kind) {
    case EE_KIND_TRANSFORMER: {
        double layer = 2 * T * d * d * 4      /* q k v o projections */
                       + 2 * T * T * d * 2    /* scores and context */
                       + 2 * T * d * c->ffn * 2;
        return c->layers * layer + 2 * d * d + 2 * d * c->classes;
    }
    case EE_KIND_CNN: {
        double f = 0;
        for (int k = 0; k < c->nwidths; k++) f += 2 * T * c->widths[k] * d * c->filters;
        return f + 2.0 * c->nwidths * c->filters * c->classes;
    }
    case EE_KIND_MLP: {
        double f = 0, prev = c->D;
        for (int i = 0; i < c->nhidden; i++) { f += 2 * prev * c->hidden[i]; prev = c->hidden[i]; }
        return f + 2 * prev * c->classes;
    }
    }
    return 0;
}

static double forward_flops(const EeConfig *c) { return forward_flops_len(c, c->T); }

/* A model of cfg with seed-1 weights; exits on failure. */
static EeModel *new_model(const EeConfig *cfg)
{
    EeModel *m;
    if (ee_model_new(cfg, &m)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    ee_model_init(m, 1);
    return m;
}

/* The default attribution options, quiet, on the CPU. */
static EeAttrOptions cpu_options(void)
{
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.device = EE_DEVICE_CPU;
    return o;
}

static void bench_model(const char *label, const EeConfig *cfg, int B, double gemm_rate)
{
    EeModel *m = new_model(cfg);
    EeRun *r;
    if (ee_run_new(m, ee_backend_cpu(), B, 1, 1, &r)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    EeRng rng;
    ee_rng_seed(&rng, 42);
    int32_t *ids = NULL;
    float *x = NULL;
    if (ee_is_token_model(cfg)) {
        ids = malloc(sizeof(int32_t) * B * cfg->T);
        for (int i = 0; i < B; i++)
            for (int t = 0; t < cfg->T; t++)
                ids[i * cfg->T + t] = t == 0 ? EE_CLS : t == cfg->T - 1 ? EE_SEP
                                                      : 4 + (int)ee_rng_below(&rng, (uint64_t)cfg->vocab - 4);
    } else {
        x = malloc(sizeof(float) * B * cfg->D);
        for (int i = 0; i < B * cfg->D; i++) x[i] = (float)ee_rng_normal(&rng);
    }
    ee_run_set_input(r, ids, NULL, x, B);
    float *dout = calloc((size_t)B * cfg->classes, sizeof(float));
    for (int i = 0; i < B; i++) dout[i * cfg->classes] = 1.0f;
    double fl = forward_flops(cfg) * B;
    for (int bw = 0; bw <= 1; bw++) {
        PassCtx c = {r, B, dout, bw};
        double s = time_median(run_pass, &c, 9);
        double flops = bw ? 3 * fl : fl;
        printf("%-12s %-12s %10.0f %9.1f %8.1f%%\n", label, bw ? "fwd+bwd" : "forward", B / s,
               flops / s * 1e-9, 100 * flops / s * 1e-9 / gemm_rate);
    }
    ee_run_free(r);
    ee_model_free(m);
    free(ids);
    free(x);
    free(dout);
}

/* N random rows, [CLS] tokens [SEP] PAD..., whose length (with [CLS] and
 * [SEP]) is uniform over lmin..T. */
static int32_t *random_sequences_from(const EeConfig *c, int N, uint64_t seed, int lmin, double *total_len)
{
    EeRng rng;
    ee_rng_seed(&rng, seed);
    int32_t *ids = malloc(sizeof(int32_t) * N * c->T);
    *total_len = 0;
    for (int i = 0; i < N; i++) {
        int L = lmin + (int)ee_rng_below(&rng, (uint64_t)(c->T - lmin + 1));
        int32_t *r = ids + (size_t)i * c->T;
        for (int t = 0; t < c->T; t++)
            r[t] = t == 0 ? EE_CLS : t == L - 1 ? EE_SEP : t < L ? 4 + (int)ee_rng_below(&rng, (uint64_t)c->vocab - 4) : EE_PAD;
        *total_len += L;
    }
    return ids;
}

/* Lengths 32..T. */
static int32_t *random_sequences(const EeConfig *c, int N, uint64_t seed, double *total_len)
{
    return random_sequences_from(c, N, seed, 32, total_len);
}

/* IG (s = 20) and SV (s = 20) throughput; FLOPs counted at each
 * sequence's own length (the work a length-aware implementation needs). */
static void bench_attr(const char *label, const EeConfig *cfg, int n_ig, int n_sv, double gemm_rate)
{
    EeModel *m = new_model(cfg);
    for (int sv = 0; sv <= 1; sv++) {
        int N = sv ? n_sv : n_ig;
        double total_len;
        int32_t *ids = random_sequences(cfg, N, 7, &total_len);
        EeInput in = {.n = N, .ids = ids};
        EeAttrOptions o = cpu_options();
        float *A = malloc(sizeof(float) * N * cfg->T);
        EeAttrInfo info = {0};
        double flops = 0;
        for (int i = 0; i < N; i++) {
            int L = 0, n = ee_count_real(ids + (size_t)i * cfg->T, cfg->T);
            for (int t = 0; t < cfg->T; t++) L += ids[(size_t)i * cfg->T + t] != EE_PAD;
            double f = forward_flops_len(cfg, L);
            flops += sv ? f * (2 + 20.0 * n) : f * (2 + 3 * 20.0);
        }
        double t0 = ee_now();
        EeStatus st = sv ? ee_sv_attribute(m, &in, &o, A, &info) : ee_ig_attribute(m, &in, &o, A, &info);
        double sec = ee_now() - t0;
        if (st) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
        printf("%-12s %-12s %10.2f %9.1f %8.1f%%\n", label, sv ? "SV s=20" : "IG s=20", N / sec,
               flops / sec * 1e-9, 100 * flops / sec * 1e-9 / gemm_rate);
        free(A);
        free(ids);
    }
    ee_model_free(m);
}

/* Seconds of the fastest of 3 calls of a gradient method: a single call
 * times the faults of whatever memory the process's earlier calls left
 * (the rows compare builds and methods, not allocation histories). */
static double best_gradient(EeModel *m, const EeInput *in, const EeGradOptions *g, const EeAttrOptions *o, float *A,
                            EeAttrInfo *info)
{
    double sec = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = ee_now();
        if (ee_gradient_attribute(m, in, g, o, A, info)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
        if (ee_now() - t0 < sec) sec = ee_now() - t0;
    }
    return sec;
}

/* The faithfulness measures (of an IG map, 'steps' 20) and SmoothGrad
 * saliency (n = 10): sequences per second and model passes per sequence
 * (faithfulness: forward only, at the batch rate of ee_predict); each the
 * best of 3 calls. */
static void bench_faith_grad(const char *label, const EeConfig *cfg, int N, double gemm_rate)
{
    EeModel *m = new_model(cfg);
    double total_len;
    int32_t *ids = random_sequences(cfg, N, 7, &total_len);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o = cpu_options();
    float *A = malloc(sizeof(float) * N * cfg->T);
    double f = 0;
    for (int i = 0; i < N; i++) {
        int L = 0;
        for (int t = 0; t < cfg->T; t++) L += ids[(size_t)i * cfg->T + t] != EE_PAD;
        f += forward_flops_len(cfg, L) / N;
    }
    if (ee_ig_attribute(m, &in, &o, A, NULL)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    EeFaithOptions fo;
    ee_faith_options_defaults(&fo);
    EeFaithResult res = {0};
    double sec = 1e300;
    for (int rep = 0; rep < 3; rep++) { /* the best of 3, as for the coalition rows */
        double t0 = ee_now();
        if (ee_faithfulness(m, &in, A, &o, &fo, &res)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
        if (ee_now() - t0 < sec) sec = ee_now() - t0;
    }
    double fl = f * res.forward;
    printf("%-12s %-12s %10.2f %9.1f %8.1f%%   %.1f passes/seq\n", label, "faithful.", N / sec, fl / sec * 1e-9,
           100 * fl / sec * 1e-9 / gemm_rate, (double)res.forward / N);
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.noise = EE_NOISE_SMOOTHGRAD;
    g.samples = 10;
    g.stdev = 0.15;
    EeAttrInfo info = {0};
    sec = best_gradient(m, &in, &g, &o, A, &info);
    fl = f * (info.forward + 2.0 * info.backward);
    printf("%-12s %-12s %10.2f %9.1f %8.1f%%   %.1f passes/seq\n", label, "SmoothGr n10", N / sec, fl / sec * 1e-9,
           100 * fl / sec * 1e-9 / gemm_rate, (double)(info.forward + info.backward) / N);
    /* DeepLIFT (the cnn and the mlp) beside gradient x input, its one-gradient kin:
     * a pass of the row and its reference against one of the row */
    for (int k = 0; k < 2 && cfg->kind != EE_KIND_TRANSFORMER; k++) {
        ee_grad_options_defaults(&g);
        g.method = k ? EE_GRAD_DEEPLIFT : EE_GRAD_GRADXINPUT;
        sec = best_gradient(m, &in, &g, &o, A, &info);
        fl = f * (info.forward + 2.0 * info.backward);
        printf("%-12s %-12s %10.2f %9.1f %8.1f%%   %.1f passes/seq\n", label, k ? "DeepLIFT" : "grad x input", N / sec,
               fl / sec * 1e-9, 100 * fl / sec * 1e-9 / gemm_rate, (double)(info.forward + info.backward) / N);
    }
    free(A);
    free(ids);
    ee_model_free(m);
}

/* The coalition methods on the built-in model (feature ablation,
 * occlusion with 3-token windows, KernelSHAP and LIME with 256 coalitions)
 * against SV s = 20 on the same rows: sequences per second, model passes
 * per sequence and passes per second, and the ratio of the method's
 * passes per second to SV's (incremental CPU shortcuts on, the default,
 * and off). Each the best of 3 calls. FLOPs: each row's passes at its own
 * length. */
static void bench_coalitions(const char *label, const EeConfig *cfg, int N, double gemm_rate)
{
    EeModel *m = new_model(cfg);
    double total_len;
    int32_t *ids = random_sequences(cfg, N, 7, &total_len);
    EeInput in = {.n = N, .ids = ids};
    float *A = malloc(sizeof(float) * N * cfg->T);
    double sv_rate[2] = {0, 0};
    for (int full = 0; full <= 1; full++) {
        EeAttrOptions o = cpu_options();
        o.full_passes = full;
        for (int rep = 0; rep < 3; rep++) { /* the best of 3: the machine may be shared */
            EeAttrInfo info = {0};
            double t0 = ee_now();
            if (ee_sv_attribute(m, &in, &o, A, &info)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
            double rate = info.forward / (ee_now() - t0);
            if (rate > sv_rate[full]) sv_rate[full] = rate;
        }
    }
    static const struct { const char *name; EeCoalitionKind k; int w, s, samples; } runs[] = {
        {"ablation", EE_COAL_OCCLUSION, 1, 1, 0}, {"occl w3 s1", EE_COAL_OCCLUSION, 3, 1, 0},
        {"KernelSHAP256", EE_COAL_KERNELSHAP, 0, 0, 256}, {"LIME 256", EE_COAL_LIME, 0, 0, 256}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        EeAttrOptions o = cpu_options();
        EeCoalitionModelOptions c = {.m = {.kind = runs[r].k, .samples = runs[r].samples}, .window = runs[r].w,
                                     .stride = runs[r].s};
        double flops = 0;
        for (int i = 0; i < N; i++) {
            int L = 0, n = ee_count_real(ids + (size_t)i * cfg->T, cfg->T);
            for (int t = 0; t < cfg->T; t++) L += ids[(size_t)i * cfg->T + t] != EE_PAD;
            flops += forward_flops_len(cfg, L) * (2.0 + (double)ee_coalition_model_count(&c, n));
        }
        EeAttrInfo info = {0};
        double sec = 1e300;
        for (int rep = 0; rep < 3; rep++) { /* the best of 3, as for SV */
            double t0 = ee_now();
            if (ee_coalition_attribute(m, &in, &o, &c, A, &info)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
            if (ee_now() - t0 < sec) sec = ee_now() - t0;
        }
        double rate = info.forward / sec;
        printf("%-12s %-13s%10.2f %9.1f %8.1f%%   %.0f passes/seq, %.0f passes/s = %.2fx SV's (%.2fx SV full)\n",
               label, runs[r].name, N / sec, flops / sec * 1e-9, 100 * flops / sec * 1e-9 / gemm_rate,
               (double)info.forward / N, rate, rate / sv_rate[0], rate / sv_rate[1]);
    }
    printf("%-12s %-13s%10s %9s %9s   SV s=20: %.0f passes/s, %.0f with full passes\n", label, "(SV ref.)", "", "",
           "", sv_rate[0], sv_rate[1]);
    free(A);
    free(ids);
    ee_model_free(m);
}

/* Seconds of one call (the median of 3 after a warm-up). */
typedef struct { int what; EeModel *m, *expl; EeInput *in; EeAttrOptions *o; float *out; EeAttrInfo *info; } CallCtx;
static void run_call(void *p)
{
    CallCtx *c = p;
    EeStatus st = EE_OK;
    if (c->info) { c->info->forward = c->info->backward = 0; }
    switch (c->what) {
    case 0: st = ee_model_predict(c->m, c->in, c->out, 0, EE_DEVICE_CPU); break;
    case 1: st = ee_ig_attribute(c->m, c->in, c->o, c->out, c->info); break;
    case 2: st = ee_explain(&c->expl, 1, c->m, c->in, c->o, c->out, c->info); break;
    case 3: st = ee_explainer_features(c->m, EE_INPUTS_ATTENTION_TOP, c->in, c->o, c->out, c->info); break;
    }
    if (st) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
}

/* What every gateway call pays before its first pass: the model built from
 * its exchange-order tensors (as ee_model_load does from a struct) and its
 * fingerprint (ee_explain checks the classifier's). */
typedef struct { const EeConfig *cfg; float **w; int np; } LoadCtx;
static void run_load(void *p)
{
    LoadCtx *c = p;
    EeModel *m;
    char fp[32];
    if (ee_model_new(c->cfg, &m)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    for (int i = 0; i < c->np; i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        if (ee_param_set(m, i, c->w[i], pi.count)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    }
    if (ee_model_fingerprint(m, fp, sizeof fp)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
    ee_model_free(m);
}

static double time_load(const EeModel *m)
{
    LoadCtx c = {ee_model_config(m), NULL, ee_model_nparams(m)};
    c.w = malloc(sizeof(float *) * (size_t)c.np);
    for (int i = 0; i < c.np; i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        c.w[i] = malloc(sizeof(float) * pi.count);
        ee_param_get(m, i, c.w[i], pi.count);
    }
    double sec = time_median(run_load, &c, 5);
    for (int i = 0; i < c.np; i++) free(c.w[i]);
    free(c.w);
    return sec;
}

/* The cost of a model pass in each caller, on the same rows of real
 * lengths (issue 19: the explainer's passes and prediction against IG's
 * batched passes): seconds per row and per pass (forward or backward, as
 * info.passes counts them) of ee_model_predict, IG at several s and
 * ee_explain with the tokens-only, the gradient-ends, the attention and
 * the attention_top explainers (the last also with one encoder layer), and
 * what attention_top reads of the classifier alone (ee_explainer_features:
 * the time no head on those features can go below). Row lengths from
 * lmin to T. */
static void bench_passes(const char *label, const EeConfig *cfg, int N, int lmin)
{
    EeModel *m = new_model(cfg);
    double total_len;
    int32_t *ids = random_sequences_from(cfg, N, 11, lmin, &total_len);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o = cpu_options();
    EeConfig top = *cfg; /* an attention_top explainer's: its features per token */
    top.head = EE_HEAD_TOKEN;
    top.inputs = EE_INPUTS_ATTENTION_TOP;
    size_t kt = (size_t)cfg->T * ee_config_features(&top); /* out also holds the features */
    size_t per_row = kt > (size_t)cfg->classes ? kt : (size_t)cfg->classes;
    float *out = malloc(sizeof(float) * (size_t)N * per_row);
    EeAttrInfo info = {0};
    printf("%s: %d rows, mean length %.1f of T = %d\n", label, N, total_len / N, cfg->T);
    printf("  %-28s %12s %8s %12s %10s\n", "call", "ms per row", "passes", "ms per pass", "of IG s=20");
    CallCtx c = {0, m, NULL, &in, &o, out, &info};
    double ig20 = 0, ig5 = 0;
    int steps[] = {20, 1, 2, 5, 7};
    for (int k = 0; k < 5; k++) {
        o.steps = steps[k];
        c.what = 1;
        double sec = time_median(run_call, &c, 3);
        double passes = (double)(info.forward + info.backward) / N;
        double per = sec / N / passes;
        if (k == 0) ig20 = per;
        if (steps[k] == 5) ig5 = sec;
        char name[32];
        snprintf(name, sizeof name, "ee_ig s = %d", steps[k]);
        printf("  %-28s %12.3f %8.2f %12.4f %9.2fx\n", name, 1e3 * sec / N, passes, 1e3 * per, per / ig20);
    }
    c.what = 0;
    double sec = time_median(run_call, &c, 3);
    printf("  %-28s %12.3f %8.2f %12.4f %9.2fx\n", "ee_model_predict", 1e3 * sec / N, 1.0, 1e3 * sec / N,
           sec / N / ig20);
    sec = time_load(m);
    printf("  %-28s %12.3f %8s %12s %9.2fx   (per call, not per row)\n", "model load + fingerprint", 1e3 * sec, "",
           "", sec / ig20);
    o.steps = 20;
    /* the SV presets' attention_top, also with the first encoder layer only */
    EeInputs kinds[] = {EE_INPUTS_TOKENS, EE_INPUTS_GRADIENT_ENDS, EE_INPUTS_ATTENTION, EE_INPUTS_ATTENTION_TOP,
                        EE_INPUTS_ATTENTION_TOP};
    int layers[] = {0, 0, 0, 0, 1};
    for (int k = 0; k < 5; k++) {
        EeExplainerSpec spec;
        ee_explainer_spec_default(&spec);
        spec.inputs = kinds[k];
        spec.efficiency = kinds[k] != EE_INPUTS_TOKENS;
        spec.layers = layers[k];
        EeModel *e;
        if (ee_explainer_new(m, &spec, 3, &e)) { fprintf(stderr, "%s\n", ee_last_error()); exit(1); }
        c.what = 2;
        c.expl = e;
        sec = time_median(run_call, &c, 3);
        double passes = (double)(info.forward + info.backward) / N;
        char name[48];
        snprintf(name, sizeof name, "ee_explain (%s%s)", ee_inputs_name(kinds[k]), layers[k] ? ", 1 layer" : "");
        printf("  %-28s %12.3f %8.2f %12.4f %9.2fx\n", name, 1e3 * sec / N, passes, 1e3 * sec / N / passes,
               sec / N / passes / ig20);
        ee_model_free(e);
    }
    /* the features alone (at the pad baseline, the options' default): IG's
     * time at s = 5 over theirs bounds any head on them (issue 19: the IG
     * wordnet panel crosses at s = 5) */
    c.what = 3;
    sec = time_median(run_call, &c, 3);
    double passes = (double)(info.forward + info.backward) / N;
    printf("  %-28s %12.3f %8.2f %12.4f %9.2fx   (IG s=5 / this: %.1fx)\n", "attention_top features alone",
           1e3 * sec / N, passes, 1e3 * sec / N / passes, sec / N / passes / ig20, ig5 / sec);
    free(out);
    free(ids);
    ee_model_free(m);
}

/* The mlp rows: the shape of issue 2 (D = 1024, hidden [256 256], 2
 * classes, batch 64) and the Fashion-MNIST classifier of scripts/paper/xdnn_figures.m
 * (784-512-256-10, its training batch of 128). */
static void bench_mlp(double gemm)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_MLP);
    c.D = 1024; c.nhidden = 2; c.hidden[0] = c.hidden[1] = 256; c.classes = 2;
    bench_model("mlp", &c, 64, gemm);
    c.D = 784; c.hidden[0] = 512; c.hidden[1] = 256; c.classes = 10; c.bias = 0;
    bench_model("mlp fashion", &c, 128, gemm);
}

int main(int argc, char **argv)
{
    int only_attr = argc > 1 && !strcmp(argv[1], "attr");
    int only_mlp = argc > 1 && !strcmp(argv[1], "mlp");
    int only_passes = argc > 1 && !strcmp(argv[1], "passes");
    int only_coal = argc > 1 && !strcmp(argv[1], "coalitions"); /* the coalition rows of attr alone */
    int threads = ee_threads_count();
    /* GEMM reference: OpenBLAS with its own threads, as users would call it */
    GemmCtx g = {1536, NULL, NULL, NULL};
    size_t nn = (size_t)g.n * g.n;
    g.a = malloc(nn * sizeof(float));
    g.b = malloc(nn * sizeof(float));
    g.c = malloc(nn * sizeof(float));
    for (size_t i = 0; i < nn; i++) { g.a[i] = (float)(i % 7) * 0.1f; g.b[i] = (float)(i % 5) * 0.1f; }
    openblas_set_num_threads(threads);
    double gemm = 2.0 * g.n * g.n * g.n / time_median(run_gemm, &g, 7) * 1e-9;
    free(g.a); free(g.b); free(g.c);

    ee_threads_enter(); /* libcore's model: BLAS single-threaded, OpenMP outside */
    printf("threads: %d (OpenMP), OpenBLAS %s\n", threads, openblas_get_config());
    printf("OpenBLAS SGEMM %dx%dx%d, %d threads: %.1f GFLOP/s\n\n", g.n, g.n, g.n, threads, gemm);
    printf("GFLOP/s = FLOPs of the plain computation / time (work skipped because it\n"
           "changes no result, e.g. the classifier's last layer beyond [CLS], counts as done)\n\n");
    printf("%-12s %-12s %10s %9s %9s\n", "model", "pass", "seq/s", "GFLOP/s", "of GEMM");
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 20000; c.T = 128; c.classes = 2;
    EeConfig cc;
    ee_config_defaults(&cc, EE_KIND_CNN);
    cc.vocab = 20000; cc.T = 128; cc.classes = 2;
    if (only_coal) {
        /* `coalitions cnn`: the cnn's rows alone */
        if (argc < 3 || strcmp(argv[2], "cnn")) bench_coalitions("transformer", &c, 4, gemm);
        bench_coalitions("cnn", &cc, 16, gemm);
        ee_threads_leave();
        return 0;
    }
    if (only_attr) {
        bench_attr("transformer", &c, 64, 4, gemm);
        bench_attr("cnn", &cc, 256, 16, gemm);
        bench_faith_grad("transformer", &c, 64, gemm);
        bench_faith_grad("cnn", &cc, 256, gemm);
        bench_coalitions("transformer", &c, 4, gemm);
        bench_coalitions("cnn", &cc, 16, gemm);
        ee_threads_leave();
        return 0;
    }
    if (only_passes) {
        EeConfig sp = c; /* spam's shape: T 256, lengths 32..256 */
        sp.T = 256;
        bench_passes("transformer, T 256", &sp, 150, 32);
        sp.T = 32; /* wordnet's: glosses of 4 to 32 positions (mean 14.6 on the test glosses) */
        bench_passes("transformer, T 32", &sp, 600, 4);
        ee_threads_leave();
        return 0;
    }
    if (only_mlp) {
        bench_mlp(gemm);
        ee_threads_leave();
        return 0;
    }
    EeConfig ct = c; /* c is reused below for the cnn and the mlp */
    bench_model("transformer", &c, 64, gemm);
    ee_config_defaults(&c, EE_KIND_CNN);
    c.vocab = 20000; c.T = 128; c.classes = 2;
    bench_model("cnn", &c, 64, gemm);
    bench_mlp(gemm);
    printf("\nattributions (random lengths 32..128; FLOPs at each sequence's length)\n");
    bench_attr("transformer", &ct, 64, 4, gemm);
    bench_attr("cnn", &cc, 256, 16, gemm);
    bench_faith_grad("transformer", &ct, 64, gemm);
    bench_faith_grad("cnn", &cc, 256, gemm);
    bench_coalitions("transformer", &ct, 4, gemm);
    bench_coalitions("cnn", &cc, 16, gemm);
    ee_threads_leave();
    return 0;
}
