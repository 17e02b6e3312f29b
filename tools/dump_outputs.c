/* dump_outputs.c: every output of libcore on random models (predictions,
 * IG by each CPU path, SV incremental and full-pass with variances, exact
 * Shapley values, occlusion windows and feature ablation on the cnns and
 * the transformer (incremental and full-pass), KernelSHAP and LIME on the cnns (products
 * and full passes: equal to float rounding, not bits), explainer features of every kind,
 * ee_explain of both designs, training of each kind), one file
 * DIR/<name>.bin each, for the
 * bit-for-bit comparison of two builds that claims "same bits":
 *
 *   for th in 1 2; do
 *     OMP_NUM_THREADS=$th old/tools/dump_outputs /tmp/a.$th
 *     OMP_NUM_THREADS=$th new/tools/dump_outputs /tmp/b.$th
 *     for f in $(ls /tmp/a.$th); do cmp -s /tmp/a.$th/$f /tmp/b.$th/$f || echo "$f differs"; done
 *   done
 *
 * The directory must exist. Shapes are the benchmark's (d = 64, 4 heads,
 * ffn 256; cnn widths 3/4/5 with 100 filters) at T = 48. */
#include "ee.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static EeRng rng;
static const char *dir;

static void put(const char *name, const void *p, size_t bytes)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fwrite(p, 1, bytes, f);
    fclose(f);
}

#define OK(x) do { EeStatus s_ = (x); if (s_) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ee_last_error()); exit(1); } } while (0)

static EeModel *make(EeKind kind, int T, int bias, int d)
{
    EeConfig c;
    ee_config_defaults(&c, kind);
    c.classes = 3;
    c.bias = bias;
    if (kind == EE_KIND_TRANSFORMER) { c.vocab = 60; c.T = T; c.d = d; c.heads = 4; c.layers = 2; c.ffn = 4 * d; }
    if (kind == EE_KIND_CNN) { c.vocab = 60; c.T = T; c.d = d; c.filters = 100; c.nwidths = 3; c.widths[0] = 3; c.widths[1] = 4; c.widths[2] = 5; }
    if (kind == EE_KIND_MLP) { c.D = 37; c.nhidden = 2; c.hidden[0] = 100; c.hidden[1] = 20; }
    EeModel *m;
    OK(ee_model_new(&c, &m));
    ee_model_init(m, 5);
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        float *w = malloc(sizeof(float) * pi.count);
        for (size_t k = 0; k < pi.count; k++) w[k] = (float)(0.3 * ee_rng_normal(&rng));
        if (!strcmp(pi.field, "E_tok"))
            for (int q = 0; q < pi.dims[1]; q++) w[(size_t)q * pi.dims[0]] = 0;
        if (strstr(pi.field, "_g"))
            for (size_t k = 0; k < pi.count; k++) w[k] += 1.0f;
        OK(ee_param_set(m, i, w, pi.count));
        free(w);
    }
    return m;
}

static int32_t *ids_of(int N, int T, int maxlen)
{
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)N * T);
    for (int i = 0; i < N; i++) {
        int len = 1 + (int)ee_rng_below(&rng, (uint64_t)(maxlen < T - 2 ? maxlen : T - 2));
        for (int t = 0; t < T; t++)
            ids[(size_t)i * T + t] = t == 0 ? EE_CLS : t == len + 1 ? EE_SEP : t <= len ? 4 + (int)ee_rng_below(&rng, 56) : EE_PAD;
    }
    return ids;
}

static void weights(const char *name, EeModel *m)
{
    size_t n = ee_model_size(m), off = 0;
    float *w = malloc(sizeof(float) * n);
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        ee_param_get(m, i, w + off, pi.count);
        off += pi.count;
    }
    put(name, w, sizeof(float) * off);
    free(w);
}

static void attr_info(const char *name, const EeAttrInfo *info, int N, int T)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%s_info", name);
    size_t sz = (size_t)N * (4 + 4 * 3) + (info->variance ? (size_t)N * T * 4 : 0);
    char *b = malloc(sz), *p = b;
    memcpy(p, info->target, 4 * N); p += 4 * N;
    memcpy(p, info->fx, 4 * N); p += 4 * N;
    memcpy(p, info->fbaseline, 4 * N); p += 4 * N;
    memcpy(p, info->delta, 4 * N); p += 4 * N;
    if (info->variance) memcpy(p, info->variance, (size_t)N * T * 4);
    put(nm, b, sz);
    free(b);
}

static void attr(const char *name, EeModel *m, const EeInput *in, int T, int sv, int full, int steps, EeIgMethod meth)
{
    int N = in->n;
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.steps = steps; o.full_passes = full; o.method = meth; o.seed = 3;
    if (!in->ids) o.baseline = EE_BASELINE_ZERO;
    float *A = malloc(sizeof(float) * N * T);
    int32_t *tg = malloc(4 * N);
    float *fx = malloc(4 * N), *fb = malloc(4 * N), *de = malloc(4 * N), *var = sv == 1 ? malloc(4 * (size_t)N * T) : NULL;
    EeAttrInfo info = {.target = tg, .fx = fx, .fbaseline = fb, .delta = de, .variance = var};
    if (sv == 2) OK(ee_shapley_exact(m, in, &o, A, &info));
    else OK(sv ? ee_sv_attribute(m, in, &o, A, &info) : ee_ig_attribute(m, in, &o, A, &info));
    put(name, A, sizeof(float) * N * T);
    if (sv == 2) { memset(de, 0, 4 * N); }
    attr_info(name, &info, N, T);
    free(A); free(tg); free(fx); free(fb); free(de); free(var);
}

/* A coalition method's values and info (as for attr), dumped under name. */
static void coalition_dump(const char *name, EeModel *m, const EeInput *in, int T, const EeAttrOptions *o,
                           const EeCoalitionModelOptions *c)
{
    int N = in->n;
    float *A = malloc(sizeof(float) * N * T);
    int32_t *tg = malloc(4 * N);
    float *fx = malloc(4 * N), *fb = malloc(4 * N), *de = malloc(4 * N);
    EeAttrInfo info = {.target = tg, .fx = fx, .fbaseline = fb, .delta = de};
    OK(ee_coalition_attribute(m, in, o, c, A, &info));
    put(name, A, sizeof(float) * N * T);
    attr_info(name, &info, N, T);
    free(A); free(tg); free(fx); free(fb); free(de);
}

/* Occlusion with windows of w tokens and stride s (w = s = 1: feature
 * ablation); the values and the info as for attr. */
static void occl(const char *name, EeModel *m, const EeInput *in, int T, int w, int s, int full)
{
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.full_passes = full;
    EeCoalitionModelOptions c = {.m = {.kind = EE_COAL_OCCLUSION}, .window = w, .stride = s};
    coalition_dump(name, m, in, T, &o, &c);
}

/* KernelSHAP or LIME with `samples` drawn coalitions (seed 3); the cnn's
 * per-position products and the full passes agree to float rounding only,
 * so compare the two of one build rather than two builds' bits. */
static void coal(const char *name, EeModel *m, const EeInput *in, int T, EeCoalitionKind kind, int samples, int full)
{
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.full_passes = full; o.seed = 3;
    EeCoalitionModelOptions c = {.m = {.kind = kind, .samples = samples}};
    coalition_dump(name, m, in, T, &o, &c);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    dir = argv[1];
    ee_rng_seed(&rng, 11);
    const int T = 48, N = 10;
    EeModel *tf = make(EE_KIND_TRANSFORMER, T, 1, 64);
    EeModel *cnn = make(EE_KIND_CNN, T, 1, 64);
    EeModel *cnn0 = make(EE_KIND_CNN, T, 0, 64);
    EeModel *mlp = make(EE_KIND_MLP, 0, 1, 0);
    int32_t *ids = ids_of(N, T, T), *sids = ids_of(N, T, 8);
    EeInput in = {.n = N, .ids = ids}, sin = {.n = N, .ids = sids};
    float *x = malloc(sizeof(float) * N * 37);
    for (int i = 0; i < N * 37; i++) x[i] = (float)ee_rng_normal(&rng);
    EeInput xin = {.n = N, .x = x};
    float out[N * 64];
    OK(ee_model_predict(tf, &in, out, 0, EE_DEVICE_CPU)); put("predict_tf", out, 4 * N * 3);
    OK(ee_model_predict(cnn, &in, out, 0, EE_DEVICE_CPU)); put("predict_cnn", out, 4 * N * 3);
    OK(ee_model_predict(cnn0, &in, out, 0, EE_DEVICE_CPU)); put("predict_cnn0", out, 4 * N * 3);
    OK(ee_model_predict(mlp, &xin, out, 0, EE_DEVICE_CPU)); put("predict_mlp", out, 4 * N * 3);
    attr("ig_tf", tf, &in, T, 0, 0, 20, EE_IG_GAUSSLEGENDRE);
    attr("ig_cnn", cnn, &in, T, 0, 0, 20, EE_IG_GAUSSLEGENDRE);
    attr("ig_cnn_full", cnn, &in, T, 0, 1, 20, EE_IG_GAUSSLEGENDRE);
    attr("ig_cnn0_riemann", cnn0, &in, T, 0, 0, 7, EE_IG_RIEMANN_TRAPEZOID);
    attr("xgrad_cnn0", cnn0, &in, T, 0, 0, 1, EE_IG_XGRAD);
    attr("ig_mlp", mlp, &xin, 37, 0, 0, 20, EE_IG_GAUSSLEGENDRE);
    attr("sv_tf", tf, &in, T, 1, 0, 5, 0);
    attr("sv_tf_full", tf, &in, T, 1, 1, 3, 0);
    attr("sv_cnn", cnn, &in, T, 1, 0, 6, 0);
    attr("sv_cnn0", cnn0, &in, T, 1, 0, 6, 0);
    attr("sv_cnn_full", cnn, &in, T, 1, 1, 3, 0);
    attr("exact_tf", tf, &sin, T, 2, 0, 1, 0);
    attr("exact_cnn", cnn, &sin, T, 2, 0, 1, 0);
    /* occlusion: ablation, windows at the row's ends (the last one cut),
     * strides past 1; the bias-free cnn; the full-pass path */
    occl("ablation_cnn", cnn, &in, T, 1, 1, 0);
    occl("ablation_cnn0", cnn0, &in, T, 1, 1, 0);
    occl("ablation_cnn_short", cnn, &sin, T, 1, 1, 0);
    occl("occl_cnn_w3s1", cnn, &in, T, 3, 1, 0);
    occl("occl_cnn_w4s3", cnn, &in, T, 4, 3, 0);
    occl("occl_cnn0_w7s2", cnn0, &in, T, 7, 2, 0);
    occl("occl_cnn_w6s1_short", cnn, &sin, T, 6, 1, 0);
    occl("occl_cnn_w3s1_full", cnn, &in, T, 3, 1, 1);
    /* the transformer's: layer 0's attention from the row's (tf_incremental.c,
     * float rounding from the full passes, so compare two builds' bits or the
     * two of one build to rounding) and the full passes */
    occl("ablation_tf", tf, &in, T, 1, 1, 0);
    occl("ablation_tf_short", tf, &sin, T, 1, 1, 0);
    occl("occl_tf_w3s1", tf, &in, T, 3, 1, 0);
    occl("occl_tf_w4s3", tf, &in, T, 4, 3, 0);
    occl("occl_tf_w3s1_full", tf, &in, T, 3, 1, 1);
    /* KernelSHAP and LIME on the cnns: per-position products and full passes */
    coal("kernelshap_cnn", cnn, &in, T, EE_COAL_KERNELSHAP, 200, 0);
    coal("kernelshap_cnn_full", cnn, &in, T, EE_COAL_KERNELSHAP, 200, 1);
    coal("lime_cnn0_short", cnn0, &sin, T, EE_COAL_LIME, 100, 0);
    coal("lime_cnn0_short_full", cnn0, &sin, T, EE_COAL_LIME, 100, 1);
    /* features of each kind, for both token models */
    EeInputs kinds[] = {EE_INPUTS_GRADIENT, EE_INPUTS_GRADIENT_VECTOR, EE_INPUTS_GRADIENT_ENDS, EE_INPUTS_OCCLUSION, EE_INPUTS_PATH};
    EeModel *clfs[2] = {tf, cnn};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 5; k++) {
            EeConfig ec = *ee_model_config(clfs[c]);
            ec.head = EE_HEAD_TOKEN; ec.inputs = kinds[k];
            int nf = ee_config_features(&ec);
            float *F = malloc(sizeof(float) * N * T * nf);
            EeAttrOptions o;
            ee_attr_options_defaults(&o);
            o.verbose = 0; o.device = EE_DEVICE_CPU;
            OK(ee_explainer_features(clfs[c], kinds[k], &in, &o, F, NULL));
            char nm[64];
            snprintf(nm, sizeof nm, "features_%d_%d", c, k);
            put(nm, F, sizeof(float) * N * T * nf);
            free(F);
        }
    /* explain: the default design (occlusion features, efficiency) and the paper's */
    EeExplainerSpec sp;
    ee_explainer_spec_default(&sp);
    EeModel *ex, *exp2;
    OK(ee_explainer_new(tf, &sp, 4, &ex));
    ee_explainer_spec_paper(&sp);
    OK(ee_explainer_new(tf, &sp, 5, &exp2));
    {
        float *A = malloc(sizeof(float) * N * T);
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0; o.device = EE_DEVICE_CPU;
        OK(ee_explain(&ex, 1, tf, &in, &o, A, NULL)); put("explain_default", A, 4 * N * T);
        OK(ee_explain(&exp2, 1, NULL, &in, &o, A, NULL)); put("explain_paper", A, 4 * N * T);
        /* training: the classifier, the cnn, the mlp, the explainer on maps */
        int32_t labels[N];
        for (int i = 0; i < N; i++) labels[i] = (int32_t)ee_rng_below(&rng, 3);
        EeModel *ms[4] = {tf, cnn, mlp, exp2};
        const char *nm[4] = {"train_tf", "train_cnn", "train_mlp", "train_expl"};
        OK(ee_sv_attribute(tf, &in, &o, A, NULL));
        for (int k = 0; k < 4; k++) {
            const EeConfig *c = ee_model_config(ms[k]);
            EeDataset tr = {k == 2 ? xin : in, k == 3 ? NULL : labels, k == 3 ? A : NULL, NULL};
            EeDataset va = tr; va.in.n = 4;
            EeTrainOptions t;
            ee_train_options_defaults(&t, c->kind, c->head);
            t.epochs = 2; t.batch = 4; t.verbose = 0; t.device = EE_DEVICE_CPU;
            EeHistory h;
            OK(ee_train(ms[k], &tr, &va, &t, &h));
            put(nm[k], h.train_loss, sizeof(float) * h.epochs_run);
            ee_history_free(&h);
            char wn[64];
            snprintf(wn, sizeof wn, "%s_w", nm[k]);
            weights(wn, ms[k]);
        }
        free(A);
    }
    printf("dumped to %s\n", dir);
    return 0;
}
