/* bench_gpu.c: the GPU side of issue 11's table. For the bench transformer
 * (d 64, 2 layers), a d 256 / 4-layer one, the BERT-base shape (d 768, 12
 * layers, 12 heads, ffn 3072) and the text cnn, at each precision (fp32,
 * tf32, bf16): IG s = 20, SV s = 20, a training epoch and explainer
 * inference in sequences per second, with the peak device memory of each
 * row; then each precision's error against the FP32 maps of the same GPU
 * (map relative error, IG completeness, SV efficiency). Workload as
 * tests/c/test_gpu's timing: vocabulary 20000, T 128, random non-PAD
 * lengths 32..128, 2 classes, random weights.
 *
 *   bench_gpu            every model
 *   bench_gpu small      the bench transformer and the cnn only
 *   bench_gpu cnn        the cnn only (e.g. with EE_CUDNN=0 against cuDNN)
 *   bench_gpu bert       the BERT-base shape only
 *   bench_gpu calls      a loop of small calls (one sequence each: predict,
 *                        IG s = 20, SV s = 20) on the bench transformer, the
 *                        BERT-base shape and the cnn, in calls per second:
 *                        the cost of each call's set-up (uploading the
 *                        weights, allocating); run it with EE_CUDA_RESIDENT=0
 *                        EE_CUDA_POOL=0 and without to compare
 *   bench_gpu tiny       tiny shapes and counts: checks this program (e.g.
 *                        under tests/gpu/emu), measures nothing
 *
 * Each rate comes from one timed call after a warm-up call of the same
 * shape, with enough sequences for about 1.5 s. Not a test: it prints.
 * With EE_CUDA_OPTIME=1 each row is followed by the device time per op of
 * the timed call (the rates then include the timing's own cost). */
#include "ee.h"
#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_tiny; /* `tiny`: small shapes, few rows, no timing worth reading */
#define ERR_ROWS 8 /* rows whose maps are compared across precisions */

static void die(const char *what)
{
    fprintf(stderr, "bench_gpu: %s: %s\n", what, ee_last_error());
    exit(1);
}

static int32_t *random_ids(const EeConfig *c, int n, uint64_t seed)
{
    EeRng rng;
    ee_rng_seed(&rng, seed);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)n * c->T);
    if (!ids) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int i = 0; i < n; i++) {
        int lo = c->T >= 64 ? 32 : 3;
        int L = lo + (int)ee_rng_below(&rng, (uint64_t)(c->T - lo + 1));
        for (int t = 0; t < c->T; t++)
            ids[(size_t)i * c->T + t] = t == 0 ? EE_CLS : t == L - 1 ? EE_SEP
                                        : t < L ? 4 + (int32_t)ee_rng_below(&rng, (uint64_t)(c->vocab - 4))
                                                : EE_PAD;
    }
    return ids;
}

/* One workload at one precision on n rows. */
typedef enum { W_IG, W_SV, W_TRAIN, W_EXPLAIN, W_COUNT } Work;
static const char *const work_names[W_COUNT] = {"IG s=20", "SV s=20", "train epoch", "explainer"};

typedef struct {
    EeModel *m, *ex;
    EePrecision p;
    float *maps;     /* n x T (IG/SV), kept for the error table */
    float fx[ERR_ROWS], delta[ERR_ROWS];
} Ctx;

static double run_once(Ctx *x, Work w, int n)
{
    const EeConfig *c = ee_model_config(x->m);
    int32_t *ids = random_ids(c, n, 7);
    EeInput in = {.n = n, .ids = ids};
    double t0 = ee_now(), sec;
    EeStatus st = EE_OK;
    if (w == W_IG || w == W_SV) {
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0;
        o.device = EE_DEVICE_GPU;
        o.precision = x->p;
        o.steps = 20;
        float *fx = malloc(sizeof(float) * n), *dl = malloc(sizeof(float) * n), *fb = malloc(sizeof(float) * n);
        int32_t *tg = malloc(sizeof(int32_t) * n);
        free(x->maps);
        x->maps = malloc(sizeof(float) * (size_t)n * c->T);
        EeAttrInfo info = {tg, fx, fb, dl, 0, 0, 0, NULL, 0};
        t0 = ee_now();
        st = w == W_SV ? ee_sv_attribute(x->m, &in, &o, x->maps, &info) : ee_ig_attribute(x->m, &in, &o, x->maps, &info);
        sec = ee_now() - t0;
        for (int i = 0; i < ERR_ROWS && i < n; i++) { x->fx[i] = fx[i]; x->delta[i] = dl[i]; }
        free(fx); free(dl); free(fb); free(tg);
    } else if (w == W_TRAIN) {
        EeTrainOptions o;
        ee_train_options_defaults(&o, c->kind, EE_HEAD_CLASSIFIER);
        o.epochs = 1;
        o.verbose = 0;
        o.device = EE_DEVICE_GPU;
        o.precision = x->p;
        int32_t *y = malloc(sizeof(int32_t) * n);
        for (int i = 0; i < n; i++) y[i] = ids[(size_t)i * c->T + 1] % c->classes;
        EeDataset tr = {in, y, NULL, NULL}, va = {{0}, NULL, NULL, NULL};
        EeModel *fresh = NULL; /* the benchmarked model keeps its weights for the maps */
        if (ee_model_new(c, &fresh)) die("model");
        ee_model_init(fresh, 6);
        EeHistory h = {0};
        t0 = ee_now();
        st = ee_train(fresh, &tr, &va, &o, &h);
        sec = ee_now() - t0;
        ee_history_free(&h);
        ee_model_free(fresh);
        free(y);
    } else {
        float *out = malloc(sizeof(float) * (size_t)n * c->T);
        t0 = ee_now();
        st = ee_model_predict_precision(x->ex, &in, out, 0, EE_DEVICE_GPU, x->p);
        sec = ee_now() - t0;
        free(out);
    }
    free(ids);
    if (st) die(work_names[w]);
    return sec;
}

/* With EE_BENCH_DUMP=DIR, the benchmarked model for bench/peer_torch.py:
 * DIR/NAME.w (every tensor in the exchange format's column-major order,
 * float32, one after the other), NAME.layout (a line per tensor: name,
 * offset and count in floats, its three exchange dims; doc/MODEL_FORMAT.md), NAME.ids (the ERR_ROWS x T rows of the
 * error table) and NAME.ig (the fp32 IG maps of those rows), NAME the
 * label with '_' for blanks and '/'. The peer then runs the same weights
 * on the same rows, and compares its fp32 IG maps with these. */
static void dump_name(const char *label, const char *ext, char *buf, size_t n)
{
    snprintf(buf, n, "%s/", getenv("EE_BENCH_DUMP"));
    size_t k = strlen(buf);
    for (const char *q = label; *q && k + 1 < n; q++) buf[k++] = *q == ' ' || *q == '/' ? '_' : *q;
    buf[k] = 0;
    snprintf(buf + k, n - k, ".%s", ext);
}

static void dump_bytes(const char *label, const char *ext, const void *p, size_t bytes)
{
    char path[512];
    dump_name(label, ext, path, sizeof path);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(p, 1, bytes, fp) != bytes || fclose(fp)) die(path);
}

static void dump_model(const char *label, const EeModel *m)
{
    if (!getenv("EE_BENCH_DUMP")) return;
    char path[512];
    dump_name(label, "layout", path, sizeof path);
    FILE *fl = fopen(path, "w");
    dump_name(label, "w", path, sizeof path);
    FILE *fw = fopen(path, "wb");
    if (!fl || !fw) die(path);
    size_t at = 0;
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo q;
        ee_model_param_info(m, i, &q);
        float *buf = malloc(sizeof(float) * q.count);
        if (!buf || ee_param_get(m, i, buf, q.count) || fwrite(buf, sizeof(float), q.count, fw) != q.count) die(path);
        free(buf);
        if (q.group) fprintf(fl, "%s.%d.", q.group, q.index); /* e.g. encoder.0.Wq; top level: E_tok */
        fprintf(fl, "%s %zu %zu %d %d %d\n", q.field, at, q.count, q.dims[0], q.dims[1], q.ndims > 2 ? q.dims[2] : 1);
        at += q.count;
    }
    if (fclose(fl) || fclose(fw)) die(path);
    int32_t *ids = random_ids(ee_model_config(m), ERR_ROWS, 7); /* run_once's first rows */
    dump_bytes(label, "ids", ids, sizeof(int32_t) * ERR_ROWS * ee_model_config(m)->T);
    free(ids);
}

/* Rate in sequences/s: a warm-up call of n0 rows, then one of about 1.5 s. */
static double rate(Ctx *x, Work w, int n0, int nmax, int *n_used, double *peak_mib)
{
    double t = run_once(x, w, n0);
    int n = n0;
    if (t < 0.75 && !g_tiny) {
        double want = n0 * 1.5 / (t > 1e-4 ? t : 1e-4);
        n = want > nmax ? nmax : (int)want;
        if (n < n0) n = n0;
    }
    ee_cuda_memory_peak(1);
    ee_cuda_optime_report(NULL);
    t = run_once(x, w, n);
    *peak_mib = ee_cuda_memory_peak(0) / 1048576.0;
    *n_used = n;
    return n / t;
}

static double rel_err(const float *a, const float *ref, size_t n, double floor)
{
    double num = 0, den = floor;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - ref[i]);
        if (!(e <= num)) num = e; /* NaN propagates */
        if (fabs(ref[i]) > den) den = fabs(ref[i]);
    }
    return den > 0 ? num / den : num;
}

static void bench_model(const char *label, const EeConfig *cfg, const int n0[W_COUNT])
{
    EeModel *m = NULL, *ex = NULL;
    if (ee_model_new(cfg, &m)) die("model");
    ee_model_init(m, 5);
    /* explainer heads sit on transformer encoders only */
    if (cfg->kind == EE_KIND_TRANSFORMER && ee_model_make_explainer(m, EE_HEAD_TOKEN, 1, &ex)) die("explainer");
    dump_model(label, m);
    static const int nmax[W_COUNT] = {8192, 1024, 16384, 65536};
    float *ref[2] = {NULL, NULL};
    double err[EE_PRECISION_COUNT][4];
    for (int p = 0; p < EE_PRECISION_COUNT; p++) {
        Ctx x = {m, ex, (EePrecision)p, NULL, {0}, {0}};
        for (int w = 0; w < W_COUNT; w++) {
            if (w == W_EXPLAIN && !ex) continue;
            int n;
            double peak, r = rate(&x, (Work)w, n0[w], nmax[w], &n, &peak);
            printf("%-22s %-5s %-12s %10.1f seq/s  (%5d seq)  peak %8.1f MiB\n", label, ee_precision_names[p],
                   work_names[w], r, n, peak);
            char title[96];
            snprintf(title, sizeof title, "%s, %s, %s", label, ee_precision_names[p], work_names[w]);
            ee_cuda_optime_report(title); /* with EE_CUDA_OPTIME=1 */
            if (w == W_IG || w == W_SV) {
                int k = w == W_SV;
                double fmax = 0, dmax = 0;
                for (int i = 0; i < ERR_ROWS; i++) {
                    if (fabs(x.fx[i]) > fmax) fmax = fabs(x.fx[i]);
                    if (fabs(x.delta[i]) > dmax) dmax = fabs(x.delta[i]);
                }
                if (p == EE_PRECISION_FP32) {
                    ref[k] = malloc(sizeof(float) * ERR_ROWS * cfg->T);
                    memcpy(ref[k], x.maps, sizeof(float) * ERR_ROWS * cfg->T);
                    if (!k && getenv("EE_BENCH_DUMP")) dump_bytes(label, "ig", ref[k], sizeof(float) * ERR_ROWS * cfg->T);
                    err[p][2 * k] = 0;
                } else { /* relative to the largest |score| of the FP32 maps */
                    err[p][2 * k] = rel_err(x.maps, ref[k], (size_t)ERR_ROWS * cfg->T, 0);
                }
                err[p][2 * k + 1] = fmax > 0 ? dmax / fmax : dmax;
            }
        }
        free(x.maps);
    }
    printf("%-22s errors against the FP32 maps of this GPU (%d sequences): map err = max |a - a32| /\n"
           "%-22s max |a32|; completeness and efficiency = max |sum(a) - (f(x) - f(b))| / max |f(x)|\n",
           label, ERR_ROWS, "");
    printf("%-22s %-5s %14s %16s %14s %16s\n", "", "", "IG map err", "IG completeness", "SV map err",
           "SV efficiency");
    for (int p = 0; p < EE_PRECISION_COUNT; p++)
        printf("%-22s %-5s %14.2e %16.2e %14.2e %16.2e\n", label, ee_precision_names[p], err[p][0], err[p][1],
               err[p][2], err[p][3]);
    printf("\n");
    free(ref[0]); free(ref[1]);
    ee_model_free(ex);
    ee_model_free(m);
}

/* Calls per second of a loop of one-sequence calls, fp32. */
static void bench_calls(const char *label, const EeConfig *cfg, int calls)
{
    EeModel *m = NULL;
    if (ee_model_new(cfg, &m)) die("model");
    ee_model_init(m, 5);
    int32_t *ids = random_ids(cfg, 1, 9);
    EeInput in = {.n = 1, .ids = ids};
    float *out = malloc(sizeof(float) * (size_t)ee_config_outputs(cfg)), *map = malloc(sizeof(float) * cfg->T);
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.device = EE_DEVICE_GPU;
    o.steps = 20;
    static const char *const names[3] = {"predict", "IG s=20", "SV s=20"};
    for (int w = 0; w < 3; w++) {
        int n = w == 0 ? calls : w == 1 ? calls / 2 : calls / 10;
        if (g_tiny) n = 2;
        double t0 = 0;
        for (int k = -1; k < n; k++) { /* k = -1: the warm-up call, untimed */
            if (k == 0) t0 = ee_now();
            EeStatus st = w == 0 ? ee_model_predict(m, &in, out, 0, EE_DEVICE_GPU)
                          : w == 1 ? ee_ig_attribute(m, &in, &o, map, NULL)
                                   : ee_sv_attribute(m, &in, &o, map, NULL);
            if (st) die(names[w]);
        }
        double sec = ee_now() - t0;
        printf("%-22s %-5s %-12s %10.1f calls/s  (%5d calls of 1 seq, %.3f ms each)\n", label, "fp32", names[w],
               n / sec, n, 1e3 * sec / n);
    }
    free(out);
    free(map);
    free(ids);
    ee_model_free(m);
}

/* The backend's GEMM at each precision, n x n x n, TFLOP/s. */
static void gemm_rates(void)
{
    int n = g_tiny ? 64 : 4096;
    size_t bytes = sizeof(float) * (size_t)n * n;
    for (int p = 0; p < EE_PRECISION_COUNT; p++) {
        const EeBackend *be = ee_backend_cuda_at((EePrecision)p);
        float *a = be->alloc(bytes), *b = be->alloc(bytes), *c = be->alloc(bytes);
        if (!a || !b || !c) { fprintf(stderr, "bench_gpu: no memory for the GEMM\n"); exit(1); }
        be->gemm(0, 0, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        int reps = g_tiny ? 1 : 10;
        ee_cuda_timer_start();
        for (int r = 0; r < reps; r++) be->gemm(0, 0, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        double ms = ee_cuda_timer_stop();
        printf("GEMM %dx%dx%d %-5s %8.1f TFLOP/s\n", n, n, n, ee_precision_names[p],
               2.0 * n * n * n * reps / (ms * 1e-3) * 1e-12);
        be->release(a); be->release(b); be->release(c);
    }
    if (ee_backend_check(ee_backend_cuda())) die("GEMM");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int small = argc > 1 && !strcmp(argv[1], "small");
    int cnn_only = argc > 1 && !strcmp(argv[1], "cnn");
    int bert_only = argc > 1 && !strcmp(argv[1], "bert");
    g_tiny = argc > 1 && !strcmp(argv[1], "tiny");
    int calls = argc > 1 && !strcmp(argv[1], "calls");
    if (!ee_backend_cuda()) {
        printf("bench_gpu: no GPU: %s\n", ee_cuda_describe());
        return 77;
    }
    ee_threads_enter();
    printf("device: %s\n%s\n", ee_cuda_describe(), ee_cuda_cudnn_describe());
    gemm_rates();
    printf("\n%-22s %-5s %-12s %16s\n", "model", "prec", "workload", "rate");
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 20000; c.T = 128; c.classes = 2;
    if (calls) {
        printf("EE_CUDA_RESIDENT=%s EE_CUDA_POOL=%s\n", getenv("EE_CUDA_RESIDENT") ? getenv("EE_CUDA_RESIDENT") : "(unset)",
               getenv("EE_CUDA_POOL") ? getenv("EE_CUDA_POOL") : "(unset)");
        bench_calls("transformer d64 L2", &c, 400);
        c.d = 768; c.layers = 12; c.heads = 12; c.ffn = 3072;
        bench_calls("transformer d768 L12", &c, 100);
        ee_config_defaults(&c, EE_KIND_CNN);
        c.vocab = 20000; c.T = 128; c.classes = 2;
        bench_calls("cnn 3/4/5 x 100", &c, 400);
    } else if (g_tiny) {
        c.vocab = 60; c.T = 16; c.d = 16; c.heads = 2; c.ffn = 32;
        bench_model("transformer tiny", &c, (const int[W_COUNT]){ERR_ROWS, ERR_ROWS, 8, 8});
        ee_config_defaults(&c, EE_KIND_CNN);
        c.vocab = 60; c.T = 16; c.d = 8; c.filters = 4; c.classes = 2;
        bench_model("cnn tiny", &c, (const int[W_COUNT]){ERR_ROWS, ERR_ROWS, 8, 8});
    } else {
        if (!cnn_only && !bert_only) bench_model("transformer d64 L2", &c, (const int[W_COUNT]){512, 64, 2048, 4096});
        if (!small && !cnn_only && !bert_only) {
            c.d = 256; c.layers = 4; c.heads = 4; c.ffn = 1024;
            bench_model("transformer d256 L4", &c, (const int[W_COUNT]){128, 8, 512, 2048});
        }
        if (!small && !cnn_only) {
            c.d = 768; c.layers = 12; c.heads = 12; c.ffn = 3072;
            bench_model("transformer d768 L12", &c, (const int[W_COUNT]){64, ERR_ROWS, 128, 512});
        }
        ee_config_defaults(&c, EE_KIND_CNN);
        c.vocab = 20000; c.T = 128; c.classes = 2;
        if (!bert_only) bench_model("cnn 3/4/5 x 100", &c, (const int[W_COUNT]){1024, 64, 4096, 8192});
    }
    if (ee_backend_check(ee_backend_cuda())) die("a CUDA operation");
    ee_cuda_shutdown();
    ee_threads_leave();
    return 0;
}
