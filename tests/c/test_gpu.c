/* test_gpu.c: the CUDA backend against the CPU reference.
 *
 * 1. Every op of the table on random inputs (edge cases included: masks
 *    with holes, empty and one-position spans, PAD ids, ties, padded
 *    leading dimensions), run on both backends and compared: relative
 *    error max|gpu - cpu| / max|cpu| <= 1e-4 for float outputs, exact for
 *    integer outputs, argmax, dropout masks and pure copies. Outputs start
 *    as garbage on both sides, so an element the GPU fails to write shows.
 * 2. Whole models (transformer with each head, cnn with and without bias,
 *    mlp): forward + backward through the internal run API, comparing the
 *    outputs, the gradient to the embedding output and every parameter
 *    gradient; ee_model_predict on both devices; a short ee_train on a
 *    synthetic task on both devices, which must land in the same accuracy
 *    band.
 *    Also the attribution prior's step (train/prior.c) on a bias-free mlp:
 *    its penalty and the weight gradient it adds; the samplers and methods
 *    (IG, SV, explainer features, gradient maps in each noise tunnel,
 *    GradientSHAP, DeepLIFT, feature ablation, occlusion, KernelSHAP,
 *    LIME, saliency), the faithfulness measures and sensitivity-max on
 *    both devices: every map finite, not all zero, within its bound.
 * 3. Timing (printed, not checked): the benchmark transformer's forward and
 *    forward+backward on GPU and CPU, and the cuBLAS SGEMM rate.
 *
 * Exits 77 (skipped) when no CUDA device is visible. EE_TEST_GPU_FAKE=1
 * lets the CPU backend stand in for the GPU, which checks this program
 * itself on a machine without one. EE_TEST_GPU_NO_TIMING=1 skips part 3;
 * EE_TEST_GPU_ONLY=samplers runs the samplers' and methods' parity alone. */
#include "check.h"
#include "ee.h"
#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "models/model_impl.h"
#include "train/prior.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define TOL_OP 1e-4         /* single ops */
#define TOL_MODEL_OUT 1e-4  /* model outputs */
#define TOL_MODEL_GRAD 5e-4 /* model gradients (many ops deep) */
#define GARBAGE 777.0f

static const EeBackend *CPU, *GPU;
static EeDevice GPU_DEV;
static int fake;
static EeRng rng;
static double worst_err;
static char worst_name[160];

/* ---- helpers ------------------------------------------------------------------------ */
static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_gpu: out of host memory\n");
        exit(2);
    }
    return p;
}

static float frand(float lo, float hi) { return lo + (hi - lo) * (float)ee_rng_uniform(&rng); }
static int irand(int n) { return (int)ee_rng_below(&rng, (uint64_t)n); }

/* A device copy of host bytes (GPU->alloc + upload). */
static void *dev_copy(const void *h, size_t bytes)
{
    void *d = GPU->alloc(bytes);
    if (!d) {
        fprintf(stderr, "test_gpu: GPU allocation of %zu bytes failed\n", bytes);
        exit(2);
    }
    if (h && bytes) GPU->upload(d, h, bytes);
    return d;
}

/* A host copy of device bytes. */
static void *dev_get(const void *d, size_t bytes)
{
    void *h = xmalloc(bytes);
    if (bytes) GPU->download(h, d, bytes);
    return h;
}

/* The same floats on the CPU (h) and the GPU (d). */
typedef struct {
    float *h, *d;
    size_t n;
} Buf;

static Buf buf_from(const float *src, size_t n)
{
    Buf b = {xmalloc(sizeof(float) * n), NULL, n};
    memcpy(b.h, src, sizeof(float) * n);
    b.d = dev_copy(b.h, sizeof(float) * n);
    return b;
}

static Buf buf_rand(size_t n, float lo, float hi)
{
    float *t = xmalloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) t[i] = frand(lo, hi);
    Buf b = buf_from(t, n);
    free(t);
    return b;
}

static Buf buf_const(size_t n, float v)
{
    float *t = xmalloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) t[i] = v;
    Buf b = buf_from(t, n);
    free(t);
    return b;
}

static void buf_free(Buf *b)
{
    free(b->h);
    GPU->release(b->d);
    b->h = b->d = NULL;
}

/* max |a - ref| / max |ref| (0 when equal; inf on NaN/Inf mismatches or
 * when ref is all zero and a is not). */
static double relerr_floor(const float *a, const float *ref, size_t n, double floor)
{
    double num = 0, den = floor;
    for (size_t i = 0; i < n; i++) {
        double x = a[i], y = ref[i];
        if (!isfinite(x) || !isfinite(y)) {
            if (!(x == y || (isnan(x) && isnan(y)))) return INFINITY;
            continue;
        }
        double e = fabs(x - y);
        if (e > num) num = e;
        if (fabs(y) > den) den = fabs(y);
    }
    if (num == 0) return 0;
    return den > 0 ? num / den : INFINITY;
}

static double relerr(const float *a, const float *ref, size_t n) { return relerr_floor(a, ref, n, 0); }

/* relerr_floor for a model's outputs, maps and features: the CPU's are
 * finite on these models, so a non-finite value on either side is an
 * error (relerr_floor lets two equal non-finite values pass, which the
 * ops' edge cases need and a map must not); *top receives the CPU's
 * largest |value|, so that an all-zero map (nothing compared) can fail. */
static double relerr_finite(const float *a, const float *ref, size_t n, double floor, double *top)
{
    *top = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(ref[i])) return INFINITY;
        if (fabs(ref[i]) > *top) *top = fabs(ref[i]);
    }
    return relerr_floor(a, ref, n, floor);
}

static double maxabs(const float *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i]) > m) m = fabs(a[i]);
    return m;
}

static void note_err(const char *what, double e)
{
    if (e > worst_err || worst_name[0] == 0) {
        worst_err = e;
        snprintf(worst_name, sizeof worst_name, "%s", what);
    }
}

/* An attribution map or feature block of the GPU against the CPU's, the
 * floor scaling the rounding of differences of logits (the largest
 * |f(x)|: the reference vectors' rule). */
static void cmp_map(const char *what, const float *gpu, const float *cpu, size_t n, double floor, double tol)
{
    double top, e = relerr_finite(gpu, cpu, n, floor, &top);
    note_err(what, e);
    printf("  %-58s rel err %9.2e%s\n", what, e, e <= tol && top > 0 ? "" : "   <-- FAIL");
    CHECK(e <= tol && top > 0, "%s: relative error %.3g exceeds %.1g (or a non-finite value, or all 0)", what, e, tol);
}

static void cmp(const char *what, const float *gpu, const float *cpu, size_t n, double tol)
{
    double e = relerr(gpu, cpu, n);
    note_err(what, e);
    printf("  %-58s rel err %9.2e%s\n", what, e, e <= tol ? "" : "   <-- FAIL");
    CHECK(e <= tol, "%s: relative error %.3g exceeds %.1g", what, e, tol);
}

static void cmp_buf(const char *what, const Buf *b, double tol)
{
    float *g = dev_get(b->d, sizeof(float) * b->n);
    cmp(what, g, b->h, b->n, tol);
    free(g);
}

static void cmp_exact(const char *what, const void *gpu, const void *cpu, size_t bytes)
{
    const unsigned char *a = gpu, *b = cpu;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < bytes; i++)
        if (a[i] != b[i] && !bad++) first = i;
    printf("  %-58s %s", what, bad ? "MISMATCH" : "exact");
    if (bad) printf(" (%zu bytes differ, first at byte %zu)   <-- FAIL", bad, first);
    printf("\n");
    CHECK(!bad, "%s: %zu bytes differ (first at byte %zu)", what, bad, first);
}

/* Device bytes against host bytes. */
static void cmp_exact_dev(const char *what, const void *d, const void *h, size_t bytes)
{
    void *g = dev_get(d, bytes);
    cmp_exact(what, g, h, bytes);
    free(g);
}

/* ---- 1. ops ------------------------------------------------------------------------------ */
static void test_gemm(void)
{
    printf("gemm (row-major, padded leading dimensions)\n");
    static const int sz[][3] = {{37, 53, 29}, {1, 1, 1},    {64, 200, 128},
                                {300, 1, 77}, {1, 300, 77}, {513, 257, 1031}};
    char name[128];
    for (size_t s = 0; s < sizeof sz / sizeof *sz; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                int M = sz[s][0], N = sz[s][1], K = sz[s][2];
                int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 5;
                Buf A = buf_rand((size_t)(ta ? K : M) * lda, -1, 1);
                Buf B = buf_rand((size_t)(tb ? N : K) * ldb, -1, 1);
                Buf C = buf_rand((size_t)M * ldc, -1, 1);
                float alpha = 0.75f, beta = (s % 2) ? 0.0f : -0.5f;
                CPU->gemm(ta, tb, M, N, K, alpha, A.h, lda, B.h, ldb, beta, C.h, ldc);
                GPU->gemm(ta, tb, M, N, K, alpha, A.d, lda, B.d, ldb, beta, C.d, ldc);
                snprintf(name, sizeof name, "gemm %dx%dx%d ta=%d tb=%d beta=%g", M, N, K, ta, tb,
                         (double)beta);
                cmp_buf(name, &C, TOL_OP);
                buf_free(&A);
                buf_free(&B);
                buf_free(&C);
            }
    /* K = 0: C *= beta */
    Buf A = buf_rand(4, -1, 1), B = buf_rand(16, -1, 1), C = buf_rand(5 * 9, -1, 1);
    CPU->gemm(0, 0, 5, 7, 0, 1.0f, A.h, 1, B.h, 7, 0.5f, C.h, 9);
    GPU->gemm(0, 0, 5, 7, 0, 1.0f, A.d, 1, B.d, 7, 0.5f, C.d, 9);
    cmp_buf("gemm 5x7x0 (C *= beta)", &C, TOL_OP);
    buf_free(&A);
    buf_free(&B);
    buf_free(&C);
}

static void test_vector_ops(void)
{
    printf("axpy, scale, add_bias, bias_grad, adam\n");
    size_t n = 100003;
    Buf x = buf_rand(n, -1, 1), y = buf_rand(n, -1, 1);
    CPU->axpy(n, 0.37f, x.h, y.h);
    GPU->axpy(n, 0.37f, x.d, y.d);
    cmp_buf("axpy", &y, TOL_OP);
    CPU->scale(n, -1.3f, x.h);
    GPU->scale(n, -1.3f, x.d);
    cmp_buf("scale", &x, TOL_OP);
    buf_free(&x);
    buf_free(&y);

    static const int rc[][2] = {{333, 77}, {1, 5}, {8192, 64}, {1000, 2}, {3, 1000}};
    char name[128];
    for (size_t k = 0; k < sizeof rc / sizeof *rc; k++) {
        int rows = rc[k][0], cols = rc[k][1];
        Buf Y = buf_rand((size_t)rows * cols, -1, 1), b = buf_rand(cols, -1, 1);
        CPU->add_bias(Y.h, b.h, rows, cols);
        GPU->add_bias(Y.d, b.d, rows, cols);
        snprintf(name, sizeof name, "add_bias %dx%d", rows, cols);
        cmp_buf(name, &Y, TOL_OP);
        /* bias_grad accumulates into a nonzero db */
        Buf db = buf_rand(cols, -1, 1);
        float *db0 = dev_get(db.d, sizeof(float) * cols);
        CPU->bias_grad(Y.h, db.h, rows, cols);
        GPU->bias_grad(Y.d, db.d, rows, cols);
        snprintf(name, sizeof name, "bias_grad %dx%d", rows, cols);
        cmp_buf(name, &db, TOL_OP);
        /* deterministic: the same sum again, bit for bit */
        float *dbg = dev_get(db.d, sizeof(float) * cols);
        GPU->upload(db.d, db0, sizeof(float) * cols);
        GPU->bias_grad(Y.d, db.d, rows, cols);
        snprintf(name, sizeof name, "bias_grad %dx%d repeated (deterministic)", rows, cols);
        cmp_exact_dev(name, db.d, dbg, sizeof(float) * cols);
        free(db0);
        free(dbg);
        buf_free(&Y);
        buf_free(&b);
        buf_free(&db);
    }

    /* Adam: a few steps with fresh gradients */
    Buf w = buf_rand(n, -1, 1), m = buf_const(n, 0), v = buf_const(n, 0);
    for (int t = 1; t <= 4; t++) {
        Buf g = buf_rand(n, -0.1f, 0.1f);
        if (t == 3)
            for (size_t i = 0; i < n; i += 11) g.h[i] = 0; /* zero gradients too */
        if (t == 3) GPU->upload(g.d, g.h, sizeof(float) * n);
        CPU->adam(w.h, g.h, m.h, v.h, n, 1e-3f, 0.9f, 0.999f, 1e-8f, t);
        GPU->adam(w.d, g.d, m.d, v.d, n, 1e-3f, 0.9f, 0.999f, 1e-8f, t);
        buf_free(&g);
    }
    cmp_buf("adam w (4 steps)", &w, TOL_OP);
    cmp_buf("adam m", &m, TOL_OP);
    cmp_buf("adam v", &v, TOL_OP);
    buf_free(&w);
    buf_free(&m);
    buf_free(&v);
}

/* The transformer layer's fusions: the separate ops' numbers. */
static void test_fusions(void)
{
    printf("fusions: bias + gelu, bias + residual + layernorm\n");
    static const int rc[][2] = {{517, 64}, {33, 7}, {19, 1000}, {1, 1}, {4096, 256}};
    char name[128];
    for (size_t k = 0; k < sizeof rc / sizeof *rc; k++) {
        int rows = rc[k][0], cols = rc[k][1];
        size_t n = (size_t)rows * cols;
        Buf Z = buf_rand(n, -3, 3), b = buf_rand(cols, -1, 1), G = buf_const(n, GARBAGE);
        CPU->bias_gelu_fwd(Z.h, b.h, G.h, rows, cols);
        GPU->bias_gelu_fwd(Z.d, b.d, G.d, rows, cols);
        snprintf(name, sizeof name, "bias_gelu_fwd %dx%d Z", rows, cols);
        cmp_buf(name, &Z, TOL_OP);
        snprintf(name, sizeof name, "bias_gelu_fwd %dx%d G", rows, cols);
        cmp_buf(name, &G, TOL_OP);
        for (int withb = 0; withb < 2; withb++) {
            Buf Y = buf_rand(n, -2, 2), X = buf_rand(n, -2, 2), g = buf_rand(cols, 0.5f, 1.5f);
            Buf be = buf_rand(cols, -1, 1), out = buf_const(n, GARBAGE);
            Buf mean = buf_const(rows, GARBAGE), rstd = buf_const(rows, GARBAGE);
            CPU->bias_residual_layernorm_fwd(Y.h, withb ? b.h : NULL, X.h, g.h, be.h, out.h, mean.h, rstd.h,
                                             rows, cols, 1e-5f);
            GPU->bias_residual_layernorm_fwd(Y.d, withb ? b.d : NULL, X.d, g.d, be.d, out.d, mean.d, rstd.d,
                                             rows, cols, 1e-5f);
            const Buf *o[] = {&Y, &out, &mean, &rstd};
            const char *on[] = {"Y", "out", "mean", "rstd"};
            for (int i = 0; i < 4; i++) {
                snprintf(name, sizeof name, "bias_residual_layernorm_fwd %dx%d bias=%d %s", rows, cols, withb, on[i]);
                cmp_buf(name, o[i], TOL_OP);
            }
            Buf *all[] = {&Y, &X, &g, &be, &out, &mean, &rstd};
            for (size_t i = 0; i < sizeof all / sizeof *all; i++) buf_free(all[i]);
        }
        buf_free(&Z); buf_free(&b); buf_free(&G);
    }
}

static void test_layernorm(void)
{
    printf("layernorm\n");
    static const int rc[][2] = {{517, 64}, {517, 100}, {33, 7}, {19, 1000}, {1, 1}, {8192, 64}};
    char name[128];
    for (size_t k = 0; k < sizeof rc / sizeof *rc; k++) {
        int rows = rc[k][0], cols = rc[k][1];
        size_t n = (size_t)rows * cols;
        Buf X = buf_rand(n, 1.0f, 5.0f); /* nonzero mean */
        Buf g = buf_rand(cols, 0.8f, 1.2f), b = buf_rand(cols, -0.1f, 0.1f);
        Buf Y = buf_const(n, GARBAGE), mean = buf_const(rows, GARBAGE), rstd = buf_const(rows, GARBAGE);
        CPU->layernorm_fwd(X.h, g.h, b.h, Y.h, mean.h, rstd.h, rows, cols, 1e-5f);
        GPU->layernorm_fwd(X.d, g.d, b.d, Y.d, mean.d, rstd.d, rows, cols, 1e-5f);
        snprintf(name, sizeof name, "layernorm_fwd %dx%d Y", rows, cols);
        cmp_buf(name, &Y, TOL_OP);
        snprintf(name, sizeof name, "layernorm_fwd %dx%d mean", rows, cols);
        cmp_buf(name, &mean, TOL_OP);
        snprintf(name, sizeof name, "layernorm_fwd %dx%d rstd", rows, cols);
        cmp_buf(name, &rstd, TOL_OP);
        Buf dY = buf_rand(n, -1, 1);
        for (int acc = 0; acc < 2; acc++) {
            Buf dX = acc ? buf_rand(n, -1, 1) : buf_const(n, GARBAGE);
            Buf dg = buf_rand(cols, -1, 1), db = buf_rand(cols, -1, 1);
            float *dg0 = dev_get(dg.d, sizeof(float) * cols);
            CPU->layernorm_bwd(dY.h, X.h, g.h, mean.h, rstd.h, dX.h, dg.h, db.h, rows, cols, acc);
            GPU->layernorm_bwd(dY.d, X.d, g.d, mean.d, rstd.d, dX.d, dg.d, db.d, rows, cols, acc);
            snprintf(name, sizeof name, "layernorm_bwd %dx%d acc=%d dX", rows, cols, acc);
            {
                /* dX is a difference of terms of size |g dY| rstd, and exactly 0
                 * in exact arithmetic for a one-column LayerNorm: relative to
                 * that scale, not to dX itself */
                float *got = dev_get(dX.d, sizeof(float) * n);
                double scale = maxabs(dY.h, n) * maxabs(g.h, cols) * maxabs(rstd.h, rows);
                double e = relerr_floor(got, dX.h, n, scale);
                note_err(name, e);
                printf("  %-58s rel err %9.2e%s\n", name, e, e <= TOL_OP ? "" : "   <-- FAIL");
                CHECK(e <= TOL_OP, "%s: relative error %.3g exceeds %.1g", name, e, TOL_OP);
                free(got);
            }
            snprintf(name, sizeof name, "layernorm_bwd %dx%d acc=%d dgamma", rows, cols, acc);
            cmp_buf(name, &dg, TOL_OP);
            snprintf(name, sizeof name, "layernorm_bwd %dx%d acc=%d dbeta", rows, cols, acc);
            cmp_buf(name, &db, TOL_OP);
            if (!acc) { /* deterministic dgamma */
                float *first = dev_get(dg.d, sizeof(float) * cols);
                GPU->upload(dg.d, dg0, sizeof(float) * cols);
                GPU->layernorm_bwd(dY.d, X.d, g.d, mean.d, rstd.d, dX.d, dg.d, NULL, rows, cols, 0);
                snprintf(name, sizeof name, "layernorm_bwd %dx%d repeated dgamma (deterministic)",
                         rows, cols);
                cmp_exact_dev(name, dg.d, first, sizeof(float) * cols);
                free(first);
            }
            free(dg0);
            buf_free(&dX);
            buf_free(&dg);
            buf_free(&db);
        }
        buf_free(&dY);
        buf_free(&X);
        buf_free(&g);
        buf_free(&b);
        buf_free(&Y);
        buf_free(&mean);
        buf_free(&rstd);
    }
}

static void test_activations(void)
{
    printf("gelu, relu, tanh\n");
    size_t n = 100003;
    float *t = xmalloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) t[i] = i % 7 == 0 ? 0.0f : frand(-5, 5);
    Buf X = buf_from(t, n), dY = buf_rand(n, -1, 1);
    Buf Y = buf_const(n, GARBAGE), dX = buf_const(n, GARBAGE);
    CPU->gelu_fwd(X.h, Y.h, n);
    GPU->gelu_fwd(X.d, Y.d, n);
    cmp_buf("gelu_fwd", &Y, TOL_OP);
    CPU->gelu_bwd(X.h, dY.h, dX.h, n);
    GPU->gelu_bwd(X.d, dY.d, dX.d, n);
    cmp_buf("gelu_bwd", &dX, TOL_OP);
    Buf G = buf_from(dY.h, n); /* in place: dX == dY, as the transformer calls it */
    CPU->gelu_bwd(X.h, G.h, G.h, n);
    GPU->gelu_bwd(X.d, G.d, G.d, n);
    cmp_buf("gelu_bwd in place", &G, TOL_OP);
    buf_free(&G);
    CPU->relu_fwd(X.h, Y.h, n);
    GPU->relu_fwd(X.d, Y.d, n);
    cmp_buf("relu_fwd", &Y, TOL_OP);
    CPU->relu_bwd(X.h, dY.h, dX.h, n);
    GPU->relu_bwd(X.d, dY.d, dX.d, n);
    cmp_buf("relu_bwd (X = 0 gives 0)", &dX, TOL_OP);
    G = buf_from(dY.h, n);
    CPU->relu_bwd(X.h, G.h, G.h, n);
    GPU->relu_bwd(X.d, G.d, G.d, n);
    cmp_buf("relu_bwd in place", &G, TOL_OP);
    buf_free(&G);
    CPU->tanh_fwd(X.h, Y.h, n);
    GPU->tanh_fwd(X.d, Y.d, n);
    cmp_buf("tanh_fwd", &Y, TOL_OP);
    Buf TY = buf_from(Y.h, n); /* the CPU's tanh output as input to both */
    CPU->tanh_bwd(TY.h, dY.h, dX.h, n);
    GPU->tanh_bwd(TY.d, dY.d, dX.d, n);
    cmp_buf("tanh_bwd", &dX, TOL_OP);
    G = buf_from(dY.h, n);
    CPU->tanh_bwd(TY.h, G.h, G.h, n);
    GPU->tanh_bwd(TY.d, G.d, G.d, n);
    cmp_buf("tanh_bwd in place", &G, TOL_OP);
    buf_free(&G);
    buf_free(&TY);
    Buf Z = buf_from(t, n); /* in place forward */
    CPU->gelu_fwd(Z.h, Z.h, n);
    GPU->gelu_fwd(Z.d, Z.d, n);
    cmp_buf("gelu_fwd in place", &Z, TOL_OP);
    buf_free(&Z);
    /* explainer output masks */
    uint8_t *mk = xmalloc(n);
    for (size_t i = 0; i < n; i++) mk[i] = i % 3 != 0;
    uint8_t *mkd = dev_copy(mk, n);
    Z = buf_from(t, n);
    CPU->mul_mask(Z.h, mk, n);
    GPU->mul_mask(Z.d, mkd, n);
    cmp_buf("mul_mask", &Z, 0);
    buf_free(&Z);
    GPU->release(mkd);
    free(mk);
    free(t);
    buf_free(&X);
    buf_free(&dY);
    buf_free(&Y);
    buf_free(&dX);
}

static void test_dropout(void)
{
    printf("dropout (the same mask on both backends)\n");
    static const float ps[] = {0.1f, 0.5f, 0.9f};
    static const size_t ns[] = {100003, 1000, 1u << 21};
    char name[128];
    for (int k = 0; k < 3; k++) {
        size_t n = ns[k];
        float p = ps[k];
        uint64_t seed = ee_hash64(0xd0d0ULL + (uint64_t)k);
        Buf X = buf_rand(n, -1, 1), dX = buf_rand(n, -1, 1);
        uint8_t *kc = xmalloc(n), *kg;
        memset(kc, 7, n);
        uint8_t *kd = dev_copy(kc, n);
        CPU->dropout_fwd(X.h, kc, n, p, seed);
        GPU->dropout_fwd(X.d, kd, n, p, seed);
        size_t kept = 0;
        for (size_t i = 0; i < n; i++) kept += kc[i];
        snprintf(name, sizeof name, "dropout_fwd n=%zu p=%.1f mask (kept %.3f)", n, (double)p,
                 (double)kept / n);
        cmp_exact_dev(name, kd, kc, n);
        snprintf(name, sizeof name, "dropout_fwd n=%zu p=%.1f values", n, (double)p);
        cmp_buf(name, &X, 1e-6);
        kg = kd;
        CPU->dropout_bwd(dX.h, kc, n, p);
        GPU->dropout_bwd(dX.d, kg, n, p);
        snprintf(name, sizeof name, "dropout_bwd n=%zu p=%.1f", n, (double)p);
        cmp_buf(name, &dX, 1e-6);
        free(kc);
        GPU->release(kd);
        buf_free(&X);
        buf_free(&dX);
    }
    /* p = 0: no-op, keep may be NULL */
    Buf X = buf_rand(1000, -1, 1);
    GPU->dropout_fwd(X.d, NULL, 1000, 0.0f, 1);
    GPU->dropout_bwd(X.d, NULL, 1000, 0.0f);
    cmp_exact_dev("dropout p=0 leaves X alone", X.d, X.h, sizeof(float) * 1000);
    buf_free(&X);
}

/* Masks that exercise the span rule. */
static void make_mask(uint8_t *mk, int T, int pattern)
{
    switch (pattern % 6) {
    case 0: /* all attended */
        for (int t = 0; t < T; t++) mk[t] = 1;
        break;
    case 1: /* padded tail */
        for (int t = 0; t < T; t++) mk[t] = t < (2 * T) / 3 + 1;
        break;
    case 2: /* holes inside the span, zeros after 3T/4 */
        for (int t = 0; t < T; t++) mk[t] = t < (3 * T) / 4 && (t == 0 || ee_rng_uniform(&rng) < 0.7);
        break;
    case 3: /* nothing attended: span 0 */
        memset(mk, 0, (size_t)T);
        break;
    case 4: /* only position 0 */
        memset(mk, 0, (size_t)T);
        mk[0] = 1;
        break;
    default: /* holes everywhere, last position attended, position 0 masked */
        for (int t = 0; t < T; t++) mk[t] = ee_rng_uniform(&rng) < 0.6;
        mk[0] = 0;
        mk[T - 1] = 1;
        break;
    }
}

/* One attention op, forward and backward, CPU against GPU on the same
 * masks and inputs: cls, the [CLS]-query variant (q, ctx, dq: [B][d];
 * P: [B][H][T]), else the full one (q, ctx, dq: [B*T][d]; P: [B][H][T][T]). */
static void check_attention(int cls, int B, int T, int d, int H, int maskseed)
{
    const char *op = cls ? "attention_cls" : "attention";
    size_t Qd = (size_t)B * (cls ? 1 : T) * d, Rd = (size_t)B * T * d, PT = (size_t)B * H * T * (cls ? 1 : T);
    char name[128];
    uint8_t *mk = xmalloc((size_t)B * T);
    for (int b = 0; b < B; b++) make_mask(mk + (size_t)b * T, T, b + maskseed);
    uint8_t *mkd = dev_copy(mk, (size_t)B * T);
    Buf q = buf_rand(Qd, -2, 2), k = buf_rand(Rd, -2, 2), v = buf_rand(Rd, -1, 1);
    Buf P = buf_const(PT, GARBAGE), ctx = buf_const(Qd, GARBAGE);
    (cls ? CPU->attention_cls_fwd : CPU->attention_fwd)(q.h, k.h, v.h, mk, P.h, ctx.h, B, T, d, H);
    (cls ? GPU->attention_cls_fwd : GPU->attention_fwd)(q.d, k.d, v.d, mkd, P.d, ctx.d, B, T, d, H);
    snprintf(name, sizeof name, "%s_fwd B=%d T=%d d=%d H=%d P", op, B, T, d, H);
    cmp_buf(name, &P, TOL_OP);
    snprintf(name, sizeof name, "%s_fwd B=%d T=%d d=%d H=%d ctx", op, B, T, d, H);
    cmp_buf(name, &ctx, TOL_OP);
    Buf dctx = buf_rand(Qd, -1, 1);
    Buf dq = buf_const(Qd, GARBAGE), dk = buf_const(Rd, GARBAGE), dv = buf_const(Rd, GARBAGE);
    (cls ? CPU->attention_cls_bwd : CPU->attention_bwd)(q.h, k.h, v.h, mk, P.h, dctx.h, dq.h, dk.h, dv.h, B, T, d, H);
    (cls ? GPU->attention_cls_bwd : GPU->attention_bwd)(q.d, k.d, v.d, mkd, P.d, dctx.d, dq.d, dk.d, dv.d, B, T, d, H);
    Buf *grads[] = {&dq, &dk, &dv};
    static const char *gname[] = {"dq", "dk", "dv"};
    for (int g = 0; g < 3; g++) {
        snprintf(name, sizeof name, "%s_bwd B=%d T=%d d=%d H=%d %s", op, B, T, d, H, gname[g]);
        cmp_buf(name, grads[g], TOL_OP);
    }
    free(mk);
    GPU->release(mkd);
    Buf *all[] = {&q, &k, &v, &P, &ctx, &dctx, &dq, &dk, &dv};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) buf_free(all[i]);
}

static void test_attention(void)
{
    printf("attention (masks with holes, padded tails, empty spans)\n");
    /* T <= 128 with heads up to 64 wide: the fused kernel; T 160 and a head
     * of 65: the GEMM path */
    static const int cs[][4] = {{6, 37, 24, 3}, {3, 128, 64, 4}, {2, 8, 8, 8}, {7, 33, 16, 1},
                                {3, 128, 128, 2}, {2, 160, 32, 2}, {2, 20, 130, 2}};
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) check_attention(0, cs[c][0], cs[c][1], cs[c][2], cs[c][3], (int)c);
}

static void test_attention_cls(void)
{
    printf("attention_cls (one [CLS] query per sequence)\n");
    static const int cs[][4] = {{6, 37, 24, 3}, {3, 128, 64, 4}, {2, 8, 8, 8}, {7, 33, 96, 2}};
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) check_attention(1, cs[c][0], cs[c][1], cs[c][2], cs[c][3], (int)c);
}

static void test_embed(void)
{
    printf("embedding gather / scatter-add\n");
    static const int cs[][5] = {{4, 9, 13, 20, 0}, {64, 128, 64, 20000, 50}};
    char name[128];
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) {
        int B = cs[c][0], T = cs[c][1], d = cs[c][2], V = cs[c][3], few = cs[c][4];
        size_t R = (size_t)B * T;
        int32_t *ids = xmalloc(sizeof(int32_t) * R);
        for (size_t r = 0; r < R; r++) {
            if (ee_rng_uniform(&rng) < 0.3) ids[r] = EE_PAD;
            else ids[r] = few ? 1 + irand(few) : irand(V); /* `few`: heavy collisions */
        }
        int32_t *idsd = dev_copy(ids, sizeof(int32_t) * R);
        Buf Et = buf_rand((size_t)V * d, -1, 1), Ep = buf_rand((size_t)T * d, -1, 1);
        Buf out = buf_const(R * d, GARBAGE);
        CPU->embed_fwd(ids, Et.h, Ep.h, out.h, B, T, d);
        GPU->embed_fwd(idsd, Et.d, Ep.d, out.d, B, T, d);
        snprintf(name, sizeof name, "embed_fwd B=%d T=%d d=%d with E_pos", B, T, d);
        cmp_buf(name, &out, TOL_OP);
        CPU->embed_fwd(ids, Et.h, NULL, out.h, B, T, d);
        GPU->embed_fwd(idsd, Et.d, NULL, out.d, B, T, d);
        snprintf(name, sizeof name, "embed_fwd B=%d T=%d d=%d no E_pos", B, T, d);
        cmp_buf(name, &out, TOL_OP);
        Buf g = buf_rand(R * d, -1, 1);
        for (int variant = 0; variant < 3; variant++) { /* both, tok only, pos only */
            Buf dEt = buf_rand((size_t)V * d, -1, 1), dEp = buf_rand((size_t)T * d, -1, 1);
            int tok = variant != 2, pos = variant != 1;
            CPU->embed_bwd(ids, g.h, tok ? dEt.h : NULL, pos ? dEp.h : NULL, B, T, d);
            GPU->embed_bwd(idsd, g.d, tok ? dEt.d : NULL, pos ? dEp.d : NULL, B, T, d);
            snprintf(name, sizeof name, "embed_bwd B=%d T=%d d=%d %s dE_tok", B, T, d,
                     variant == 0 ? "both" : variant == 1 ? "tok only" : "pos only");
            cmp_buf(name, &dEt, TOL_OP);
            snprintf(name, sizeof name, "embed_bwd B=%d T=%d d=%d %s dE_pos", B, T, d,
                     variant == 0 ? "both" : variant == 1 ? "tok only" : "pos only");
            cmp_buf(name, &dEp, TOL_OP);
            buf_free(&dEt);
            buf_free(&dEp);
        }
        free(ids);
        GPU->release(idsd);
        buf_free(&Et);
        buf_free(&Ep);
        buf_free(&out);
        buf_free(&g);
    }
}

static void test_conv(void)
{
    printf("text-CNN convolution (zero padding at the end)\n");
    static const int cs[][5] = {{3, 11, 7, 1, 5}, {3, 11, 7, 4, 5}, {2, 5, 3, 5, 4},
                                {16, 64, 64, 5, 100}, {1, 2, 1, 2, 1}};
    char name[160];
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) {
        int B = cs[c][0], T = cs[c][1], d = cs[c][2], w = cs[c][3], F = cs[c][4];
        size_t nE = (size_t)B * T * d, nW = (size_t)w * d * F, nO = (size_t)B * T * F;
        for (int bias = 0; bias < 2; bias++) {
            Buf E = buf_rand(nE, -1, 1), W = buf_rand(nW, -1, 1), b = buf_rand(F, -1, 1);
            Buf out = buf_const(nO, GARBAGE);
            CPU->conv_fwd(E.h, W.h, bias ? b.h : NULL, out.h, B, T, d, w, F);
            /* the forward through cuDNN (where built and on) and the own path */
            int dnn = fake ? -1 : ee_cuda_use_cudnn(-1);
            for (int k = dnn > 0 ? 1 : 0; k >= 0; k--) {
                if (dnn > 0) ee_cuda_use_cudnn(2 * k); /* always cuDNN, then never */
                GPU->zero(out.d, sizeof(float) * nO);
                long calls = ee_cuda_cudnn_calls();
                GPU->conv_fwd(E.d, W.d, bias ? b.d : NULL, out.d, B, T, d, w, F);
                int used = ee_cuda_cudnn_calls() > calls;
                snprintf(name, sizeof name, "conv_fwd B=%d T=%d d=%d w=%d F=%d bias=%d [%s]", B, T, d, w, F,
                         bias, used ? "cuDNN" : "own");
                cmp_buf(name, &out, TOL_OP);
                if (k) CHECK(used, "%s: cuDNN is on but did not run the convolution", name);
            }
            if (dnn > 0) ee_cuda_use_cudnn(dnn);
            Buf dO = buf_rand(nO, -1, 1);
            for (int variant = 0; variant < 3; variant++) { /* all, dE only, no dE */
                Buf dE = buf_rand(nE, -1, 1), dW = buf_rand(nW, -1, 1), db = buf_rand(F, -1, 1);
                int wantE = variant != 2, wantW = variant != 1, wantb = bias && variant != 1;
                CPU->conv_bwd(E.h, W.h, dO.h, wantE ? dE.h : NULL, wantW ? dW.h : NULL,
                              wantb ? db.h : NULL, B, T, d, w, F);
                GPU->conv_bwd(E.d, W.d, dO.d, wantE ? dE.d : NULL, wantW ? dW.d : NULL,
                              wantb ? db.d : NULL, B, T, d, w, F);
                const char *vn = variant == 0 ? "all" : variant == 1 ? "dE only" : "no dE";
                snprintf(name, sizeof name, "conv_bwd B=%d T=%d d=%d w=%d F=%d bias=%d %s dE", B, T,
                         d, w, F, bias, vn);
                cmp_buf(name, &dE, TOL_OP);
                snprintf(name, sizeof name, "conv_bwd B=%d T=%d d=%d w=%d F=%d bias=%d %s dW", B, T,
                         d, w, F, bias, vn);
                cmp_buf(name, &dW, TOL_OP);
                snprintf(name, sizeof name, "conv_bwd B=%d T=%d d=%d w=%d F=%d bias=%d %s db", B, T,
                         d, w, F, bias, vn);
                cmp_buf(name, &db, TOL_OP);
                buf_free(&dE);
                buf_free(&dW);
                buf_free(&db);
            }
            buf_free(&dO);
            buf_free(&E);
            buf_free(&W);
            buf_free(&b);
            buf_free(&out);
        }
    }
}

static void test_maxpool(void)
{
    printf("max over time (ties, masks, all-negative columns)\n");
    int B = 7, T = 13, F = 37, ld = 3 * F, off = F;
    size_t nA = (size_t)B * T * F;
    float *a = xmalloc(sizeof(float) * nA);
    for (size_t i = 0; i < nA; i++) a[i] = frand(-1, 1);
#define ACT(b, t, f) a[((size_t)(b) * T + (t)) * F + (f)]
    for (int t = 0; t < T; t++)
        for (int f = 0; f < 5; f++) ACT(1, t, f) = -fabsf(ACT(1, t, f)) - 0.1f; /* no positive */
    for (int f = 0; f < 10; f++) ACT(2, 3, f) = ACT(2, 8, f) = 5.0f;         /* tie: t = 3 */
    ACT(2, 2, 10) = ACT(2, 6, 10) = 5.0f;                                      /* masked t = 2 */
    for (int t = 0; t < T; t++)
        for (int f = 0; f < 3; f++) ACT(5, t, f) = 0.0f; /* max exactly 0: argmax -1 */
#undef ACT
    uint8_t *mk = xmalloc((size_t)B * T);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) mk[(size_t)b * T + t] = 1;
    mk[2 * T + 2] = 0;
    memset(mk + 3 * T, 0, (size_t)T); /* nothing attended */
    for (int t = 0; t < T; t += 2) mk[4 * T + t] = 0;
    for (int t = T / 2; t < T; t++) mk[6 * T + t] = 0;
    Buf act = buf_from(a, nA);
    uint8_t *mkd = dev_copy(mk, (size_t)B * T);
    Buf pooled = buf_const((size_t)B * ld, GARBAGE);
    int32_t *argc = xmalloc(sizeof(int32_t) * B * F);
    for (int i = 0; i < B * F; i++) argc[i] = -7;
    int32_t *argd = dev_copy(argc, sizeof(int32_t) * B * F);
    CPU->maxpool_fwd(act.h, mk, pooled.h, argc, B, T, F, ld, off);
    GPU->maxpool_fwd(act.d, mkd, pooled.d, argd, B, T, F, ld, off);
    cmp_exact_dev("maxpool_fwd argmax", argd, argc, sizeof(int32_t) * B * F);
    cmp_exact_dev("maxpool_fwd pooled (block at offset F of width 3F)", pooled.d, pooled.h,
                  sizeof(float) * B * ld);
    Buf dP = buf_rand((size_t)B * ld, -1, 1), dA = buf_const(nA, GARBAGE);
    CPU->maxpool_bwd(dP.h, argc, dA.h, B, T, F, ld, off);
    GPU->maxpool_bwd(dP.d, argd, dA.d, B, T, F, ld, off);
    cmp_exact_dev("maxpool_bwd", dA.d, dA.h, sizeof(float) * nA);
    /* the fused convolution backward through the max (argmax from above) */
    for (int w = 1; w <= 4; w += 3) {
        int d = 6;
        size_t nE = (size_t)B * T * d, nW = (size_t)w * d * F;
        Buf E = buf_rand(nE, -1, 1), W = buf_rand(nW, -1, 1);
        Buf dE = buf_rand(nE, -1, 1), dW = buf_rand(nW, -1, 1), db = buf_rand((size_t)F, -1, 1);
        CPU->conv_pool_bwd(E.h, W.h, dP.h, argc, dE.h, dW.h, db.h, B, T, d, w, F, ld, off);
        GPU->conv_pool_bwd(E.d, W.d, dP.d, argd, dE.d, dW.d, db.d, B, T, d, w, F, ld, off);
        char name[80];
        snprintf(name, sizeof name, "conv_pool_bwd w=%d dE", w);
        cmp_buf(name, &dE, TOL_OP);
        snprintf(name, sizeof name, "conv_pool_bwd w=%d dW", w);
        cmp_buf(name, &dW, TOL_OP);
        snprintf(name, sizeof name, "conv_pool_bwd w=%d db", w);
        cmp_buf(name, &db, TOL_OP);
        buf_free(&E); buf_free(&W); buf_free(&dE); buf_free(&dW); buf_free(&db);
    }
    free(a);
    free(mk);
    free(argc);
    GPU->release(mkd);
    GPU->release(argd);
    buf_free(&act);
    buf_free(&pooled);
    buf_free(&dP);
    buf_free(&dA);
}

/* DeepLIFT's rescale ops: the same bits as the CPU's, at inputs that did
 * not move (the eps branch), ties of the maxima, masked and all-negative
 * columns, and a reference whose max sits where the input's does. */
static void test_rescale(void)
{
    printf("DeepLIFT rescale rule (ReLU, ReLU then max over time)\n");
    int B = 5, T = 11, F = 23, ld = 2 * F, off = F;
    size_t n = (size_t)B * T * F;
    float *zx = xmalloc(sizeof(float) * n), *zr = xmalloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) {
        zx[i] = frand(-1, 1);
        zr[i] = i % 7 == 0 ? zx[i] : i % 11 == 0 ? zx[i] + 5e-11f : frand(-1, 1);
    }
    for (int t = 0; t < T; t++)
        for (int f = 0; f < 4; f++) zx[((size_t)1 * T + t) * F + f] = -0.5f; /* no positive */
    for (int f = 4; f < 8; f++) zx[((size_t)2 * T + 3) * F + f] = zx[((size_t)2 * T + 7) * F + f] = 3.0f; /* tie */
    for (int f = 8; f < 12; f++) zx[((size_t)2 * T + 5) * F + f] = zr[((size_t)2 * T + 5) * F + f] = 4.0f;
    uint8_t *mk = xmalloc((size_t)B * T);
    for (int i = 0; i < B * T; i++) mk[i] = 1;
    memset(mk + 3 * T, 0, (size_t)T);
    for (int t = 0; t < T; t += 3) mk[4 * T + t] = 0;
    Buf X = buf_from(zx, n), R = buf_from(zr, n), dY = buf_rand(n, -1, 1), dX = buf_const(n, GARBAGE);
    CPU->relu_rescale_bwd(X.h, R.h, dY.h, dX.h, n);
    GPU->relu_rescale_bwd(X.d, R.d, dY.d, dX.d, n);
    cmp_exact_dev("relu_rescale_bwd", dX.d, dX.h, sizeof(float) * n);
    GPU->relu_rescale_bwd(X.d, R.d, dY.d, dY.d, n); /* in place */
    cmp_exact_dev("relu_rescale_bwd in place", dY.d, dX.h, sizeof(float) * n);
    uint8_t *mkd = dev_copy(mk, (size_t)B * T);
    Buf dP = buf_rand((size_t)B * ld, -1, 1), mult = buf_const((size_t)2 * B * ld, GARBAGE);
    int32_t *atc = xmalloc(sizeof(int32_t) * 2 * B * F);
    for (int i = 0; i < 2 * B * F; i++) atc[i] = -7;
    int32_t *atd = dev_copy(atc, sizeof(int32_t) * 2 * B * F);
    CPU->pool_rescale_bwd(X.h, R.h, mk, dP.h, atc, mult.h, B, T, F, ld, off);
    GPU->pool_rescale_bwd(X.d, R.d, mkd, dP.d, atd, mult.d, B, T, F, ld, off);
    cmp_exact_dev("pool_rescale_bwd positions", atd, atc, sizeof(int32_t) * 2 * B * F);
    cmp_exact_dev("pool_rescale_bwd multipliers (block at offset F)", mult.d, mult.h, sizeof(float) * 2 * B * ld);
    free(zx); free(zr); free(mk); free(atc);
    GPU->release(mkd);
    GPU->release(atd);
    buf_free(&X); buf_free(&R); buf_free(&dY); buf_free(&dX); buf_free(&dP); buf_free(&mult);
}

static void test_rows(void)
{
    printf("gather / scatter rows\n");
    int n = 5, cols = 24, stride = 7 * 24;
    Buf src = buf_rand((size_t)n * stride, -1, 1), dst = buf_const((size_t)n * cols, GARBAGE);
    CPU->gather_rows(src.h, stride, dst.h, n, cols);
    GPU->gather_rows(src.d, stride, dst.d, n, cols);
    cmp_exact_dev("gather_rows", dst.d, dst.h, sizeof(float) * n * cols);
    Buf s2 = buf_rand((size_t)n * cols, -1, 1), d2 = buf_const((size_t)n * stride, GARBAGE);
    CPU->scatter_rows(s2.h, d2.h, stride, n, cols);
    GPU->scatter_rows(s2.d, d2.d, stride, n, cols);
    cmp_exact_dev("scatter_rows", d2.d, d2.h, sizeof(float) * n * stride);
    buf_free(&src);
    buf_free(&dst);
    buf_free(&s2);
    buf_free(&d2);
}

static void test_losses(void)
{
    printf("losses\n");
    static const int xs[][2] = {{37, 5}, {64, 2}, {10, 300}, {1, 3}, {2000, 7}};
    char name[128];
    for (size_t c = 0; c < sizeof xs / sizeof *xs; c++) {
        int n = xs[c][0], C = xs[c][1];
        Buf z = buf_rand((size_t)n * C, -4, 4), g = buf_const((size_t)n * C, GARBAGE);
        int32_t *lab = xmalloc(sizeof(int32_t) * n);
        for (int i = 0; i < n; i++) lab[i] = irand(C);
        int32_t *labd = dev_copy(lab, sizeof(int32_t) * n);
        float lc = -1, lg = -1;
        CPU->softmax_xent(z.h, lab, g.h, &lc, n, C);
        GPU->softmax_xent(z.d, labd, g.d, &lg, n, C);
        snprintf(name, sizeof name, "softmax_xent n=%d C=%d loss", n, C);
        cmp(name, &lg, &lc, 1, TOL_OP);
        snprintf(name, sizeof name, "softmax_xent n=%d C=%d dlogits", n, C);
        cmp_buf(name, &g, TOL_OP);
        free(lab);
        GPU->release(labd);
        buf_free(&z);
        buf_free(&g);
    }
    static const int ms[][2] = {{37, 16}, {1, 1}, {64, 128}, {3000, 100}};
    for (size_t c = 0; c < sizeof ms / sizeof *ms; c++) {
        int n = ms[c][0], cols = ms[c][1];
        size_t k = (size_t)n * cols;
        Buf p = buf_rand(k, -1, 1), t = buf_rand(k, -1, 1), dp = buf_const(k, GARBAGE);
        float lc = -1, lg = -1;
        CPU->mse(p.h, t.h, dp.h, &lc, n, cols);
        GPU->mse(p.d, t.d, dp.d, &lg, n, cols);
        snprintf(name, sizeof name, "mse n=%d cols=%d loss", n, cols);
        cmp(name, &lg, &lc, 1, TOL_OP);
        snprintf(name, sizeof name, "mse n=%d cols=%d dpred", n, cols);
        cmp_buf(name, &dp, TOL_OP);
        lc = lg = -1;
        CPU->mse(p.h, t.h, NULL, &lc, n, cols);
        GPU->mse(p.d, t.d, NULL, &lg, n, cols);
        snprintf(name, sizeof name, "mse n=%d cols=%d loss (dpred NULL)", n, cols);
        cmp(name, &lg, &lc, 1, TOL_OP);
        buf_free(&p);
        buf_free(&t);
        buf_free(&dp);
    }
}

static void test_memory(void)
{
    printf("memory (alloc is zero-filled; copy, zero)\n");
    size_t n = 12345;
    float *z = xmalloc(sizeof(float) * n);
    memset(z, 0, sizeof(float) * n);
    float *d = GPU->alloc(sizeof(float) * n);
    CHECK(d != NULL, "alloc failed");
    if (!d) return;
    cmp_exact_dev("alloc zero-filled", d, z, sizeof(float) * n);
    Buf a = buf_rand(n, -1, 1);
    GPU->copy(d, a.d, sizeof(float) * n);
    cmp_exact_dev("copy", d, a.h, sizeof(float) * n);
    GPU->zero(d + 100, sizeof(float) * 1000);
    memset(a.h + 100, 0, sizeof(float) * 1000);
    cmp_exact_dev("zero (a range)", d, a.h, sizeof(float) * n);
    GPU->sync();
    GPU->release(d);
    GPU->release(NULL);
    buf_free(&a);
    free(z);
}

/* ---- 2. models ------------------------------------------------------------------------------ */
/* Token rows: the transformer classifier gets [CLS] first; lengths vary,
 * PAD after. */
static void make_ids(const EeConfig *c, int n, int32_t *ids)
{
    int T = c->T;
    for (int i = 0; i < n; i++) {
        int32_t *row = ids + (size_t)i * T;
        int len = T / 2 + irand(T - T / 2 + 1);
        if (len < 1) len = 1;
        for (int t = 0; t < T; t++) row[t] = t < len ? 4 + irand(c->vocab - 4) : EE_PAD;
        if (c->kind == EE_KIND_TRANSFORMER) row[0] = EE_CLS;
    }
}

static void param_name(const EeModel *m, int i, char *buf, size_t n)
{
    const EeParam *p = &m->p[i];
    if (p->group[0]) snprintf(buf, n, "%s(%d).%s", p->group, p->index + 1, p->field);
    else snprintf(buf, n, "%s", p->field);
}

static void model_parity(const char *label, const EeConfig *cfg, int B, float dropout)
{
    printf("model %s: forward + backward (B=%d, dropout %.2g)\n", label, B, (double)dropout);
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(cfg, &m));
    if (!m) return;
    ee_model_init(m, 1234);
    EeRun *rc = NULL, *rg = NULL;
    CHECK_OK(ee_run_new(m, CPU, B, 1, 1, &rc));
    CHECK_OK(ee_run_new(m, GPU, B, 1, 1, &rg));
    if (!rc || !rg) {
        ee_run_free(rc);
        ee_run_free(rg);
        ee_model_free(m);
        return;
    }
    int token = ee_is_token_model(cfg), outs = ee_config_outputs(cfg);
    int32_t *ids = NULL;
    float *x = NULL;
    if (token) {
        ids = xmalloc(sizeof(int32_t) * B * cfg->T);
        make_ids(cfg, B, ids);
    } else {
        x = xmalloc(sizeof(float) * B * cfg->D);
        for (size_t i = 0; i < (size_t)B * cfg->D; i++) x[i] = frand(-1, 1);
    }
    EeRun *runs[2] = {rc, rg};
    for (int k = 0; k < 2; k++) {
        EeRun *r = runs[k];
        r->dropout = dropout;
        r->dropout_seed = 0xfeedbeefULL;
        CHECK_OK(ee_run_set_input(r, ids, NULL, x, B));
        ee_run_embed(r, B);
        ee_run_forward(r, B, 1);
    }
    char name[160];
    size_t nout = (size_t)B * outs;
    float *og = dev_get(rg->out, sizeof(float) * nout);
    snprintf(name, sizeof name, "%s: outputs", label);
    cmp(name, og, rc->out, nout, TOL_MODEL_OUT);
    float *dout = xmalloc(sizeof(float) * nout);
    for (size_t i = 0; i < nout; i++) dout[i] = frand(-1, 1);
    float *doutd = dev_copy(dout, sizeof(float) * nout);
    ee_run_backward(rc, B, dout, 1, 1);
    ee_run_embed_backward(rc, B);
    ee_run_drop_fixed_grads(rc);
    ee_run_backward(rg, B, doutd, 1, 1);
    ee_run_embed_backward(rg, B);
    ee_run_drop_fixed_grads(rg);
    /* floats per row of de: the active length may be < T (ee_run_width
     * divides by cfg.T, which is 0 for the mlp) */
    size_t nde = (size_t)B * (token ? ee_run_width(rc) : rc->in_width);
    CHECK(rc->T == rg->T, "%s: active lengths differ (%d, %d)", label, rc->T, rg->T);
    float *deg = dev_get(rg->de, sizeof(float) * nde);
    snprintf(name, sizeof name, "%s: de (gradient at the embedding output)", label);
    cmp(name, deg, rc->de, nde, TOL_MODEL_GRAD);
    float *gg = dev_get(rg->g, sizeof(float) * m->total);
    /* Per tensor, relative to its own largest gradient, but never to less
     * than 1e-3 of the largest gradient of any tensor: some gradients are
     * zero in exact arithmetic (the key bias: softmax ignores a shift that
     * is the same for every key) and hold only rounding noise. */
    double floor = 1e-3 * maxabs(rc->g, m->total);
    double gw = 0;
    int wi = 0, bad = 0;
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        double e = relerr_floor(gg + p->offset, rc->g + p->offset, p->count, floor);
        char pn[64];
        param_name(m, i, pn, sizeof pn);
        snprintf(name, sizeof name, "%s: d%s", label, pn);
        note_err(name, e);
        if (e > gw || i == 0) {
            gw = e;
            wi = i;
        }
        if (!(e <= TOL_MODEL_GRAD)) {
            bad++;
            printf("  %-58s rel err %9.2e   <-- FAIL\n", name, e);
        }
        CHECK(e <= TOL_MODEL_GRAD, "%s: relative error %.3g exceeds %.1g", name, e, TOL_MODEL_GRAD);
    }
    char pn[64];
    param_name(m, wi, pn, sizeof pn);
    snprintf(name, sizeof name, "%s: %d parameter gradients, worst d%s", label, m->np, pn);
    printf("  %-58s rel err %9.2e%s\n", name, gw, bad ? "   <-- FAIL" : "");
    free(og);
    free(dout);
    GPU->release(doutd);
    free(deg);
    free(gg);
    free(ids);
    free(x);
    ee_run_free(rc);
    ee_run_free(rg);
    ee_model_free(m);
}

static void predict_parity(const char *label, const EeConfig *cfg, int n)
{
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(cfg, &m));
    if (!m) return;
    ee_model_init(m, 99);
    int outs = ee_config_outputs(cfg);
    EeInput in = {0};
    in.n = n;
    int32_t *ids = NULL;
    float *x = NULL;
    if (ee_is_token_model(cfg)) {
        ids = xmalloc(sizeof(int32_t) * n * cfg->T);
        make_ids(cfg, n, ids);
        in.ids = ids;
    } else {
        x = xmalloc(sizeof(float) * n * cfg->D);
        for (size_t i = 0; i < (size_t)n * cfg->D; i++) x[i] = frand(-1, 1);
        in.x = x;
    }
    float *oc = xmalloc(sizeof(float) * n * outs), *og = xmalloc(sizeof(float) * n * outs);
    CHECK_OK(ee_model_predict(m, &in, oc, 0, EE_DEVICE_CPU));
    CHECK_OK(ee_model_predict(m, &in, og, 0, GPU_DEV));
    char name[128];
    snprintf(name, sizeof name, "ee_model_predict %s (%d rows, auto batch)", label, n);
    cmp(name, og, oc, (size_t)n * outs, TOL_MODEL_OUT);
    /* the backend keeps the weights on the device between calls, keyed by
     * their bytes: new weights in the same model must be seen (one weight
     * changed, then all), and the old ones found again give the same bits */
    float *w0 = xmalloc(sizeof(float) * m->total), *o2 = xmalloc(sizeof(float) * n * outs),
          *o3 = xmalloc(sizeof(float) * n * outs);
    memcpy(w0, m->w, sizeof(float) * m->total);
    for (int step = 0; step < 2; step++) {
        if (step == 0) m->w[m->p[m->np - 1].offset] += 0.5f; /* the output layer's first weight */
        else ee_model_init(m, 100);
        CHECK_OK(ee_model_predict(m, &in, o2, 0, EE_DEVICE_CPU));
        CHECK_OK(ee_model_predict(m, &in, o3, 0, GPU_DEV));
        snprintf(name, sizeof name, "ee_model_predict %s after %s", label,
                 step ? "new weights" : "one weight changed");
        cmp(name, o3, o2, (size_t)n * outs, TOL_MODEL_OUT);
        CHECK(relerr(o2, oc, (size_t)n * outs) > 1e-3, "%s: the change did not move the logits", name);
    }
    memcpy(m->w, w0, sizeof(float) * m->total);
    CHECK_OK(ee_model_predict(m, &in, o3, 0, GPU_DEV));
    snprintf(name, sizeof name, "ee_model_predict %s, first weights again (same bits)", label);
    cmp_exact(name, o3, og, sizeof(float) * n * outs);
    free(w0); free(o2); free(o3);
    free(oc);
    free(og);
    free(ids);
    free(x);
    ee_model_free(m);
}

/* Synthetic tasks: token models predict whether token 5 occurs among the
 * attended tokens; the mlp whether x0 + x1 > 0. */
static void make_task(const EeConfig *c, int n, int32_t *ids, float *x, int32_t *labels)
{
    for (int i = 0; i < n; i++) {
        if (ee_is_token_model(c)) {
            int32_t *row = ids + (size_t)i * c->T;
            make_ids(c, 1, row);
            if (ee_rng_uniform(&rng) < 0.5) { /* plant a 5 half of the time */
                int len = 0;
                while (len < c->T && row[len] != EE_PAD) len++;
                int lo = c->kind == EE_KIND_TRANSFORMER ? 1 : 0;
                if (len > lo) row[lo + irand(len - lo)] = 5;
            }
            int has = 0;
            for (int t = 0; t < c->T; t++) has |= row[t] == 5;
            labels[i] = has;
        } else {
            float *r = x + (size_t)i * c->D;
            for (int k = 0; k < c->D; k++) r[k] = frand(-1, 1);
            labels[i] = r[0] + r[1] > 0;
        }
    }
}

static void train_parity(const char *label, const EeConfig *cfg, int epochs, float lr, double min_acc)
{
    int ntr = 640, nva = 256, token = ee_is_token_model(cfg);
    int32_t *ids = token ? xmalloc(sizeof(int32_t) * (ntr + nva) * cfg->T) : NULL;
    float *x = token ? NULL : xmalloc(sizeof(float) * (ntr + nva) * cfg->D);
    int32_t *lab = xmalloc(sizeof(int32_t) * (ntr + nva));
    make_task(cfg, ntr + nva, ids, x, lab);
    EeDataset tr = {{0}, NULL, NULL, NULL}, va = {{0}, NULL, NULL, NULL};
    tr.in.n = ntr;
    va.in.n = nva;
    if (token) {
        tr.in.ids = ids;
        va.in.ids = ids + (size_t)ntr * cfg->T;
    } else {
        tr.in.x = x;
        va.in.x = x + (size_t)ntr * cfg->D;
    }
    tr.labels = lab;
    va.labels = lab + ntr;
    double acc[2] = {0, 0}, secs[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        EeModel *m = NULL;
        CHECK_OK(ee_model_new(cfg, &m));
        if (!m) break;
        ee_model_init(m, 7);
        EeTrainOptions o;
        ee_train_options_defaults(&o, cfg->kind, cfg->head);
        o.epochs = epochs;
        o.lr = lr;
        o.batch = 32;
        o.patience = epochs;
        o.verbose = 0;
        o.seed = 3;
        o.device = k ? GPU_DEV : EE_DEVICE_CPU;
        EeHistory h;
        double t0 = ee_now();
        EeStatus st = ee_train(m, &tr, &va, &o, &h);
        secs[k] = ee_now() - t0;
        CHECK_OK(st);
        if (st == EE_OK && h.best_epoch > 0) acc[k] = h.valid_metric[h.best_epoch - 1];
        ee_history_free(&h);
        ee_model_free(m);
    }
    printf("  ee_train %-12s %2d epochs, lr %g: valid acc CPU %.3f (%.1f s), GPU %.3f (%.1f s)\n",
           label, epochs, (double)lr, acc[0], secs[0], acc[1], secs[1]);
    CHECK(fabs(acc[1] - acc[0]) <= 0.05, "ee_train %s: GPU accuracy %.3f vs CPU %.3f", label,
          acc[1], acc[0]);
    CHECK(acc[0] >= min_acc && acc[1] >= min_acc, "ee_train %s: accuracy below %.2f (CPU %.3f, GPU %.3f)",
          label, min_acc, acc[0], acc[1]);
    free(ids);
    free(x);
    free(lab);
}

static EeConfig tf_config(EeHead head, int T)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.head = head;
    c.vocab = 50;
    c.T = T;
    c.d = 32;
    c.heads = 4;
    c.layers = 2;
    c.ffn = 48;
    c.classes = 3;
    return c;
}

static EeConfig cnn_config(int bias)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_CNN);
    c.bias = bias;
    c.vocab = 60;
    c.T = 20;
    c.d = 16;
    c.filters = 12;
    c.nwidths = 3;
    c.widths[0] = 2;
    c.widths[1] = 3;
    c.widths[2] = 5;
    c.classes = 4;
    return c;
}

static EeConfig mlp_config(int bias)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_MLP);
    c.bias = bias;
    c.D = 40;
    c.classes = 5;
    if (bias) {
        c.nhidden = 2;
        c.hidden[0] = 32;
        c.hidden[1] = 24;
    } else {
        c.nhidden = 1;
        c.hidden[0] = 16;
    }
    return c;
}

/* The attribution prior's step on both backends: the same forward, then
 * ee_prior_step; penalty and parameter gradient compared. */
static void prior_parity(void)
{
    enum { B = 7 };
    printf("attribution prior: one step on a bias-free mlp (B=%d)\n", B);
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_MLP);
    c.D = 20; c.nhidden = 2; c.hidden[0] = 16; c.hidden[1] = 12; c.classes = 4; c.bias = 0;
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(&c, &m));
    if (!m) return;
    ee_model_init(m, 99);
    float *x = xmalloc(sizeof(float) * B * c.D), mask[20];
    int32_t y[B];
    for (size_t i = 0; i < (size_t)B * c.D; i++) x[i] = frand(0, 1);
    for (int j = 0; j < c.D; j++) mask[j] = frand(0, 1);
    for (int b = 0; b < B; b++) y[b] = b % c.classes;
    const EeBackend *bes[2] = {CPU, GPU};
    float *g[2] = {NULL, NULL};
    double pen[2] = {0, 0};
    size_t W = ee_model_size(m);
    for (int k = 0; k < 2; k++) {
        EeRun *r = NULL;
        EePrior *p = NULL;
        CHECK_OK(ee_run_new(m, bes[k], B, 1, 1, &r));
        if (r) CHECK_OK(ee_prior_new(r, mask, 3.0f, &p));
        if (r && p) {
            CHECK_OK(ee_run_set_input(r, NULL, NULL, x, B));
            ee_run_forward(r, B, 1);
            r->be->zero(r->g, sizeof(float) * W);
            CHECK_OK(ee_prior_step(p, x, y, B, &pen[k]));
            g[k] = k ? dev_get(r->g, sizeof(float) * W) : xmalloc(sizeof(float) * W);
            if (!k) memcpy(g[k], r->g, sizeof(float) * W);
        }
        ee_prior_free(p);
        ee_run_free(r);
    }
    CHECK(fabs(pen[1] - pen[0]) <= 1e-4 * fabs(pen[0]) && pen[0] > 0, "prior penalty: gpu %.9g, cpu %.9g",
          pen[1], pen[0]);
    if (g[0] && g[1]) cmp("prior: weight gradient", g[1], g[0], W, TOL_MODEL_GRAD);
    free(g[0]);
    free(g[1]);
    free(x);
    ee_model_free(m);
}

static void test_models(void)
{
    EeConfig c;
    c = tf_config(EE_HEAD_CLASSIFIER, 24);
    model_parity("transformer classifier", &c, 6, 0.1f);
    c = tf_config(EE_HEAD_TOKEN, 24);
    model_parity("transformer token head", &c, 5, 0.0f);
    c = tf_config(EE_HEAD_FLAT, 16);
    model_parity("transformer flat head", &c, 4, 0.0f);
    c = cnn_config(1);
    model_parity("cnn bias=true", &c, 7, 0.5f);
    c = cnn_config(0);
    model_parity("cnn bias=false", &c, 7, 0.0f);
    c = cnn_config(1); /* the cnn's explainer: the token head on H(t) (cnn.c) */
    c.head = EE_HEAD_TOKEN;
    c.attend_tokens = c.zero_special = 1;
    model_parity("cnn token head", &c, 7, 0.3f);
    c = mlp_config(1);
    model_parity("mlp bias=true", &c, 9, 0.2f);
    c = mlp_config(0);
    model_parity("mlp bias=false", &c, 9, 0.0f);

    printf("ee_model_predict, device GPU vs CPU\n");
    c = tf_config(EE_HEAD_CLASSIFIER, 24);
    predict_parity("transformer", &c, 150);
    c = tf_config(EE_HEAD_TOKEN, 24);
    predict_parity("transformer token head", &c, 70);
    c = cnn_config(1);
    predict_parity("cnn bias=true", &c, 300);
    c = cnn_config(0);
    predict_parity("cnn bias=false", &c, 300);
    c.head = EE_HEAD_TOKEN;
    c.attend_tokens = c.zero_special = 1;
    predict_parity("cnn token head", &c, 300);
    c = mlp_config(1);
    predict_parity("mlp", &c, 1500);

    printf("ee_train on a synthetic task, device GPU vs CPU\n");
    c = cnn_config(1);
    c.classes = 2;
    c.T = 16;
    c.vocab = 30;
    train_parity("cnn", &c, 10, 5e-3f, 0.8);
    c = mlp_config(1);
    c.classes = 2;
    c.D = 10;
    train_parity("mlp", &c, 10, 1e-3f, 0.8);
    c = tf_config(EE_HEAD_CLASSIFIER, 16);
    c.classes = 2;
    c.vocab = 30;
    c.layers = 1;
    c.heads = 2;
    train_parity("transformer", &c, 8, 5e-4f, 0.0);
}

/* ---- 3. timing ---------------------------------------------------------------------------------- */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    EeRun *r;
    const EeBackend *be;
    int B, C;
    int32_t *labels;
    float *dout;
} Bench;

static void bench_fwd(Bench *b)
{
    ee_run_embed(b->r, b->B);
    ee_run_forward(b->r, b->B, 0);
}

static void bench_step(Bench *b)
{
    float loss;
    b->be->zero(b->r->g, sizeof(float) * b->r->m->total);
    ee_run_embed(b->r, b->B);
    ee_run_forward(b->r, b->B, 1);
    b->be->softmax_xent(b->r->out, b->labels, b->dout, &loss, b->B, b->C);
    ee_run_backward(b->r, b->B, b->dout, 1, 1);
    ee_run_embed_backward(b->r, b->B);
}

/* Median milliseconds of fn over reps after warm runs: CUDA events on the
 * GPU, the host clock (the CPU backend is synchronous) otherwise. */
static double time_ms(Bench *b, void (*fn)(Bench *), int warm, int reps)
{
    int gpu = b->be->device == EE_DEVICE_GPU;
    double v[32];
    if (reps > 32) reps = 32;
    for (int i = 0; i < warm; i++) fn(b);
    b->be->sync();
    for (int i = 0; i < reps; i++) {
        if (gpu) {
            ee_cuda_timer_start();
            fn(b);
            v[i] = ee_cuda_timer_stop();
        } else {
            double t0 = ee_now();
            fn(b);
            b->be->sync();
            v[i] = 1e3 * (ee_now() - t0);
        }
    }
    return median(v, reps);
}

static void timing(void)
{
    printf("\ntiming (printed, not checked)\n");
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 20000;
    c.T = 128;
    c.d = 64;
    c.heads = 4;
    c.layers = 2;
    c.ffn = 256;
    c.classes = 2;
    int B = 64;
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(&c, &m));
    if (!m) return;
    ee_model_init(m, 5);
    int32_t *ids = xmalloc(sizeof(int32_t) * B * c.T), *lab = xmalloc(sizeof(int32_t) * B);
    make_ids(&c, B, ids);
    for (int i = 0; i < B; i++) lab[i] = irand(2);
    double fwd[3] = {0, 0, 0}, step[3] = {0, 0, 0};
    int threads[3] = {0, 0, 0};
    /* 0: GPU, 1: CPU all threads, 2: CPU 2 threads */
    for (int k = 0; k < 3; k++) {
        const EeBackend *be = k == 0 ? GPU : CPU;
        if (k == 0 && fake) continue;
#ifdef _OPENMP
        int saved = omp_get_max_threads();
        if (k == 2) omp_set_num_threads(2);
        threads[k] = omp_get_max_threads();
#else
        threads[k] = 1;
#endif
        Bench b = {NULL, be, B, c.classes, NULL, NULL};
        EeStatus st = ee_run_new(m, be, B, 1, 1, &b.r);
        CHECK_OK(st);
        if (st == EE_OK) {
            b.r->dropout = 0.1f;
            b.r->dropout_seed = 11;
            b.labels = be->alloc(sizeof(int32_t) * B);
            b.dout = be->alloc(sizeof(float) * B * c.classes);
            be->upload(b.labels, lab, sizeof(int32_t) * B);
            CHECK_OK(ee_run_set_input(b.r, ids, NULL, NULL, B));
            int gpu = k == 0;
            fwd[k] = time_ms(&b, bench_fwd, gpu ? 3 : 1, gpu ? 20 : 5);
            step[k] = time_ms(&b, bench_step, gpu ? 3 : 1, gpu ? 20 : 5);
            be->release(b.labels);
            be->release(b.dout);
            ee_run_free(b.r);
        }
#ifdef _OPENMP
        omp_set_num_threads(saved);
#endif
    }
    printf("  benchmark transformer: batch %d, T %d, d %d, %d heads, %d layers, ffn %d, vocab %d\n",
           B, c.T, c.d, c.heads, c.layers, c.ffn, c.vocab);
    printf("    %-18s %12s %18s %18s\n", "", "GPU", "CPU", "CPU");
    printf("    %-18s %12s %14d thr %14d thr\n", "", "", threads[1], threads[2]);
    printf("    %-18s %9.3f ms %15.2f ms %15.2f ms   speedup x%.0f (all threads), x%.0f (2 threads)\n",
           "forward", fwd[0], fwd[1], fwd[2], fwd[0] > 0 ? fwd[1] / fwd[0] : 0,
           fwd[0] > 0 ? fwd[2] / fwd[0] : 0);
    printf("    %-18s %9.3f ms %15.2f ms %15.2f ms   speedup x%.0f (all threads), x%.0f (2 threads)\n",
           "forward+backward", step[0], step[1], step[2], step[0] > 0 ? step[1] / step[0] : 0,
           step[0] > 0 ? step[2] / step[0] : 0);
    printf("    (forward+backward: zero grads, embed, forward with dropout 0.1, softmax loss to\n"
           "     the host, backward, embedding backward; GPU times by CUDA events, median of 20)\n");
    free(ids);
    free(lab);
    ee_model_free(m);

    if (!fake) {
        int n = 4096;
        size_t nn = (size_t)n * n;
        float *h = xmalloc(sizeof(float) * nn);
        for (size_t i = 0; i < nn; i++) h[i] = frand(-1, 1);
        float *A = dev_copy(h, sizeof(float) * nn), *Bm = dev_copy(h, sizeof(float) * nn);
        float *C = dev_copy(NULL, sizeof(float) * nn);
        free(h);
        for (int i = 0; i < 2; i++) GPU->gemm(0, 0, n, n, n, 1.0f, A, n, Bm, n, 0.0f, C, n);
        GPU->sync();
        double v[10];
        for (int i = 0; i < 10; i++) {
            ee_cuda_timer_start();
            GPU->gemm(0, 0, n, n, n, 1.0f, A, n, Bm, n, 0.0f, C, n);
            v[i] = ee_cuda_timer_stop();
        }
        double ms = median(v, 10);
        printf("  cuBLAS SGEMM %dx%dx%d (FP32, default math): %.3f ms, %.1f TFLOP/s\n", n, n, n, ms,
               ms > 0 ? 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12 : 0.0);
        GPU->release(A);
        GPU->release(Bm);
        GPU->release(C);
    }
}

/* ---- 4. attribution samplers: parity and timing ------------------------------------------------ */
/* [CLS] tokens [SEP] PAD..., non-PAD length uniform over lo..T */
static int32_t *attr_ids(const EeConfig *c, int n, int lo)
{
    int32_t *ids = xmalloc(sizeof(int32_t) * (size_t)n * c->T);
    for (int i = 0; i < n; i++) {
        int L = lo + irand(c->T - lo + 1);
        for (int t = 0; t < c->T; t++)
            ids[(size_t)i * c->T + t] = t == 0 ? EE_CLS : t == L - 1 ? EE_SEP : t < L ? 4 + irand(c->vocab - 4) : EE_PAD;
    }
    return ids;
}

static EeAttrOptions attr_opts(EeDevice dev)
{
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.device = dev;
    o.seed = 9;
    return o;
}

/* IG and SV on both devices give the same maps (same seed, same permutations). */
static void attr_parity(const char *label, const EeConfig *cfg)
{
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(cfg, &m));
    if (!m) return;
    ee_model_init(m, 3);
    int N = 6, T = cfg->T;
    int32_t *ids = attr_ids(cfg, N, 4);
    EeInput in = {.n = N, .ids = ids};
    float *a = xmalloc(sizeof(float) * N * T), *b = xmalloc(sizeof(float) * N * T);
    for (int sv = 0; sv <= 1; sv++) {
        EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
        oc.steps = og.steps = sv ? 3 : 20;
        og.batch = 16; /* several passes per sequence on the GPU too */
        float fx[6];
        int32_t tg[6];
        EeAttrInfo info = {tg, fx, NULL, NULL, 0, 0, 0, NULL, 0};
        CHECK_OK(sv ? ee_sv_attribute(m, &in, &oc, a, &info) : ee_ig_attribute(m, &in, &oc, a, &info));
        CHECK_OK(sv ? ee_sv_attribute(m, &in, &og, b, NULL) : ee_ig_attribute(m, &in, &og, b, NULL));
        char what[96];
        snprintf(what, sizeof what, "%s %s", label, sv ? "SV s=3" : "IG s=20");
        /* attributions are differences of logits: rounding scales with the
         * logits (the reference vectors' rule) */
        cmp_map(what, b, a, (size_t)N * T, maxabs(fx, N), 1e-4);
    }
    /* gradient maps (the noise tunnels over three gradient methods,
     * GradientSHAP, DeepLIFT on the cnn: the same noise and draws on both,
     * from the rows' streams), the faithfulness measures of the CPU's map
     * and the sensitivity-max of saliency, on both devices */
    {
        EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
        oc.steps = og.steps = 3;
        og.batch = 5; /* units of several rows per pass, and several passes */
        static const struct { const char *name; EeGradMethod method; EeNoiseKind noise; int samples; } runs[] = {
            {"SmoothGrad IG s=3 n=2", EE_GRAD_IG, EE_NOISE_SMOOTHGRAD, 2},
            {"SmoothGrad-squared saliency n=3", EE_GRAD_SALIENCY, EE_NOISE_SMOOTHGRAD_SQ, 3},
            {"VarGrad gradient x input n=3", EE_GRAD_GRADXINPUT, EE_NOISE_VARGRAD, 3},
            {"GradientSHAP n=3", EE_GRAD_GRADIENTSHAP, EE_NOISE_NONE, 3},
            {"DeepLIFT", EE_GRAD_DEEPLIFT, EE_NOISE_NONE, 1}};
        float fx[6];
        EeAttrInfo info = {NULL, fx, NULL, NULL, 0, 0, 0, NULL, 0};
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
            if (runs[r].method == EE_GRAD_DEEPLIFT && cfg->kind != EE_KIND_CNN) continue; /* cnn and mlp only */
            EeGradOptions g;
            ee_grad_options_defaults(&g);
            g.method = runs[r].method;
            g.noise = runs[r].noise;
            g.samples = runs[r].samples;
            g.stdev = 0.2;
            if (g.method == EE_GRAD_GRADIENTSHAP) {
                g.background_ids = ids;
                g.K = 2;
            }
            CHECK_OK(ee_gradient_attribute(m, &in, &g, &oc, a, &info));
            CHECK_OK(ee_gradient_attribute(m, &in, &g, &og, b, NULL));
            char what[96];
            snprintf(what, sizeof what, "%s %s", label, runs[r].name);
            cmp_map(what, b, a, (size_t)N * T, maxabs(fx, N), 1e-4);
        }
        /* a: the last map above, DeepLIFT's on the cnn, GradientSHAP's on the
         * transformer */
        EeFaithOptions f;
        ee_faith_options_defaults(&f);
        f.steps = 0;
        f.infidelity_samples = 8;
        enum { MEASURES = 5 };
        double vc[MEASURES][6], vg[MEASURES][6];
        EeFaithResult rc = {.comprehensiveness = vc[0], .sufficiency = vc[1], .deletion_auc = vc[2],
                            .insertion_auc = vc[3], .infidelity = vc[4]},
                      rg = {.comprehensiveness = vg[0], .sufficiency = vg[1], .deletion_auc = vg[2],
                            .insertion_auc = vg[3], .infidelity = vg[4]};
        CHECK_OK(ee_faithfulness(m, &in, a, &oc, &f, &rc));
        CHECK_OK(ee_faithfulness(m, &in, a, &og, &f, &rg));
        /* absolute for the probability measures; relative to the largest
         * squared residual for the infidelity; a non-finite value fails */
        double e = 0, top = 0;
        for (int i = 0; i < N; i++) top = fmax(top, fabs(vc[4][i]));
        for (int k = 0; k < MEASURES; k++)
            for (int i = 0; i < N; i++) {
                double d = fabs(vc[k][i] - vg[k][i]) / (k == 4 ? fmax(top, 1e-6) : 1);
                if (!(d <= e)) e = isfinite(d) ? d : INFINITY;
            }
        char what[96];
        snprintf(what, sizeof what, "%s faithfulness (5 measures, infidelity m=8)", label);
        note_err(what, e);
        printf("  %-58s err %9.2e%s\n", what, e, e <= 1e-4 ? "" : "   <-- FAIL");
        CHECK(e <= 1e-4 && rc.forward == rg.forward, "%s: error %.3g exceeds 1e-4, or passes differ (%ld, %ld)", what, e,
              rc.forward, rg.forward);
        /* sensitivity-max: the same perturbations (the rows' streams). Of
         * saliency_abs, not the signed saliency: a signed sum over the
         * embedding cancels on these random models, so its norm is small
         * and the ratio magnifies the two devices' rounding of those sums
         * (1e-2 apart on the emulation, whose maps agree to 1e-7 of the
         * logits) */
        EeGradOptions g;
        ee_grad_options_defaults(&g);
        g.method = EE_GRAD_SALIENCY_ABS;
        double sc[6], sg[6];
        CHECK_OK(ee_sensitivity_max(m, &in, &g, &oc, 3, 0.02, NULL, NULL, sc, NULL));
        CHECK_OK(ee_sensitivity_max(m, &in, &g, &og, 3, 0.02, NULL, NULL, sg, NULL));
        e = 0;
        int positive = 0;
        for (int i = 0; i < N; i++) {
            double d = fabs(sc[i] - sg[i]) / fmax(fabs(sc[i]), 1e-12);
            if (!(d <= e)) e = isfinite(d) ? d : INFINITY;
            positive += sc[i] > 0;
        }
        snprintf(what, sizeof what, "%s sensitivity-max saliency_abs n=3 r=0.02", label);
        note_err(what, e);
        printf("  %-58s rel err %9.2e%s\n", what, e, e <= 1e-3 && positive == N ? "" : "   <-- FAIL");
        CHECK(e <= 1e-3 && positive == N, "%s: relative error %.3g exceeds 1e-3 (or a value is 0)", what, e);
    }
    /* the coalition methods (occlusion windows, KernelSHAP, LIME: the same
     * coalitions from the rows' streams) and saliency on both devices */
    {
        static const struct { const char *name; EeCoalitionKind kind; int window, stride; } runs[] = {
            {"feature ablation", EE_COAL_OCCLUSION, 1, 1}, {"occlusion w=2 stride=1", EE_COAL_OCCLUSION, 2, 1},
            {"occlusion w=3 stride=2", EE_COAL_OCCLUSION, 3, 2}, {"KernelSHAP 96 coalitions", EE_COAL_KERNELSHAP, 0, 0},
            {"LIME 96 coalitions", EE_COAL_LIME, 0, 0}, {"saliency", 0, 0, 0}};
        int count = sizeof runs / sizeof *runs;
        for (int k = 0; k < count; k++) {
            EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
            og.batch = 7; /* coalitions of several rows per pass, and several passes */
            float fx[6];
            EeAttrInfo info = {NULL, fx, NULL, NULL, 0, 0, 0, NULL, 0}, infog = {0};
            if (k < count - 1) {
                EeCoalitionModelOptions c = {0};
                c.m.kind = runs[k].kind;
                c.m.samples = 96; /* enough to determine up to 14 players' values */
                c.m.paired = c.m.kind == EE_COAL_KERNELSHAP;
                c.window = runs[k].window;
                c.stride = runs[k].stride;
                CHECK_OK(ee_coalition_attribute(m, &in, &oc, &c, a, &info));
                CHECK_OK(ee_coalition_attribute(m, &in, &og, &c, b, &infog));
            } else {
                EeGradOptions g;
                ee_grad_options_defaults(&g);
                g.method = EE_GRAD_SALIENCY;
                CHECK_OK(ee_gradient_attribute(m, &in, &g, &oc, a, &info));
                CHECK_OK(ee_gradient_attribute(m, &in, &g, &og, b, &infog));
            }
            char what[96];
            snprintf(what, sizeof what, "%s %s", label, runs[k].name);
            cmp_map(what, b, a, (size_t)N * T, maxabs(fx, N), 1e-4);
            CHECK(infog.forward == info.forward, "%s: %ld passes on the GPU, %ld on the CPU", what, infog.forward,
                  info.forward);
        }
    }
    /* an explainer's input features (gradients at the path's ends and
     * inside it, occlusion scores, and on a transformer its attention and
     * value-path scores: the SV presets' inputs) on both devices */
    if (ee_is_token_model(cfg)) {
        static const EeInputs kinds[4] = {EE_INPUTS_GRADIENT_ENDS, EE_INPUTS_OCCLUSION, EE_INPUTS_PATH,
                                          EE_INPUTS_ATTENTION};
        EeConfig ec = *cfg;
        ec.head = EE_HEAD_TOKEN;
        int nk = cfg->kind == EE_KIND_TRANSFORMER ? 4 : 3;
        for (int j = 0; j < nk; j++) {
            ec.inputs = kinds[j];
            int k = ee_config_features(&ec);
            float *fc = xmalloc(sizeof(float) * N * T * k), *fg = xmalloc(sizeof(float) * N * T * k), fx[6];
            EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
            og.batch = 4; /* two groups on the GPU */
            EeAttrInfo info = {NULL, fx, NULL, NULL, 0, 0, 0, NULL, 0}, infog = {0};
            CHECK_OK(ee_explainer_features(m, kinds[j], &in, &oc, fc, &info));
            CHECK_OK(ee_explainer_features(m, kinds[j], &in, &og, fg, &infog));
            char what[96];
            snprintf(what, sizeof what, "%s explainer features '%s'", label, ee_inputs_name(kinds[j]));
            cmp_map(what, fg, fc, (size_t)N * T * k, maxabs(fx, N), 1e-4);
            CHECK(infog.forward == info.forward && infog.backward == info.backward,
                  "%s: %ld/%ld passes on the GPU, %ld/%ld on the CPU", what, infog.forward, infog.backward,
                  info.forward, info.backward);
            free(fc); free(fg);
        }
        /* the target-free loss's coalition values (ee_kernel_values, what
         * the SV presets train on): the coalitions drawn once, their values
         * on each device */
        int K = 12, words = 0;
        for (int i = 0; i < N; i++) {
            int w = ee_kernel_words(ee_count_real(ids + (size_t)i * T, T));
            if (w > words) words = w;
        }
        EeKernelTargets kc = {.K = K, .words = words}, kg = kc;
        kc.coal = xmalloc(sizeof(uint64_t) * N * K * words);
        kg.coal = xmalloc(sizeof(uint64_t) * N * K * words);
        kc.value = xmalloc(sizeof(float) * N * K);
        kg.value = xmalloc(sizeof(float) * N * K);
        kc.total = xmalloc(sizeof(float) * N);
        kg.total = xmalloc(sizeof(float) * N);
        EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
        og.batch = 4;
        CHECK_OK(ee_kernel_values(m, &in, &oc, &kc, 1));
        memcpy(kg.coal, kc.coal, sizeof(uint64_t) * N * K * words);
        CHECK_OK(ee_kernel_values(m, &in, &og, &kg, 0));
        /* relative to the largest logit, as the occlusion scores above (the
         * values are differences of logits: relative to themselves they
         * would magnify the devices' rounding of the logits) */
        float *logits = xmalloc(sizeof(float) * N * cfg->classes);
        CHECK_OK(ee_model_predict(m, &in, logits, N, EE_DEVICE_CPU));
        double scale = maxabs(logits, (size_t)N * cfg->classes);
        free(logits);
        char what[96];
        snprintf(what, sizeof what, "%s coalition values (K %d)", label, K);
        cmp_map(what, kg.value, kc.value, (size_t)N * K, scale, 1e-4);
        snprintf(what, sizeof what, "%s coalition values' v(N) - v(empty)", label);
        cmp_map(what, kg.total, kc.total, (size_t)N, scale, 1e-4);
        CHECK(kg.passes == kc.passes, "%s: %ld passes on the GPU, %ld on the CPU", what, kg.passes, kc.passes);
        free(kc.coal); free(kg.coal); free(kc.value); free(kg.value); free(kc.total); free(kg.total);
    }
    free(a); free(b); free(ids);
    ee_model_free(m);
}

/* DeepLIFT on an mlp (dense inputs, zero reference) on both devices. */
static void deeplift_mlp_parity(void)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_MLP);
    c.D = 12; c.classes = 3;
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(&c, &m));
    if (!m) return;
    ee_model_init(m, 4);
    int N = 9;
    float *x = xmalloc(sizeof(float) * N * c.D), *a = xmalloc(sizeof(float) * N * c.D),
          *b = xmalloc(sizeof(float) * N * c.D), fx[9];
    for (int i = 0; i < N * c.D; i++) x[i] = frand(-2, 2);
    EeInput in = {.n = N, .x = x};
    EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
    oc.baseline = og.baseline = EE_BASELINE_ZERO;
    og.batch = 4;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.method = EE_GRAD_DEEPLIFT;
    EeAttrInfo info = {NULL, fx, NULL, NULL, 0, 0, 0, NULL, 0};
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &oc, a, &info));
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &og, b, NULL));
    cmp_map("mlp DeepLIFT", b, a, (size_t)N * c.D, maxabs(fx, N), 1e-4);
    free(x); free(a); free(b);
    ee_model_free(m);
}

static double attr_rate(EeModel *m, const EeConfig *c, int sv, EeDevice dev, int N)
{
    int32_t *ids = attr_ids(c, N, 32);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o = attr_opts(dev);
    float *A = xmalloc(sizeof(float) * N * c->T);
    double t0 = ee_now();
    EeStatus st = sv ? ee_sv_attribute(m, &in, &o, A, NULL) : ee_ig_attribute(m, &in, &o, A, NULL);
    double sec = ee_now() - t0;
    CHECK_OK(st);
    free(A); free(ids);
    return N / sec;
}

static void attr_timing(void)
{
    printf("\nattribution throughput (sequences/s; random non-PAD lengths 32..128; GPU vs 2 CPU threads)\n");
    EeConfig cfgs[2];
    ee_config_defaults(&cfgs[0], EE_KIND_TRANSFORMER);
    ee_config_defaults(&cfgs[1], EE_KIND_CNN);
    for (int k = 0; k < 2; k++) {
        EeConfig *c = &cfgs[k];
        c->vocab = 20000; c->T = 128; c->classes = 2;
        EeModel *m = NULL;
        CHECK_OK(ee_model_new(c, &m));
        if (!m) continue;
        ee_model_init(m, 5);
        for (int sv = 0; sv <= 1; sv++) {
#ifdef _OPENMP
            int saved = omp_get_max_threads();
            omp_set_num_threads(2);
#endif
            int ncpu = sv ? (k ? 8 : 2) : (k ? 128 : 32);
            double cpu = attr_rate(m, c, sv, EE_DEVICE_CPU, ncpu);
#ifdef _OPENMP
            omp_set_num_threads(saved);
#endif
            double gpu = fake ? 0 : attr_rate(m, c, sv, GPU_DEV, sv ? (k ? 128 : 32) : (k ? 4096 : 1024));
            if (!fake) attr_rate(m, c, sv, GPU_DEV, sv ? 8 : 64); /* (warm-up already done above) */
            printf("  %-12s %-8s  GPU %10.1f   CPU(2 thr) %9.2f   x%.1f\n", ee_kind_name(c->kind),
                   sv ? "SV s=20" : "IG s=20", gpu, cpu, cpu > 0 ? gpu / cpu : 0);
        }
        if (k == 0) { /* explainer inference: one pass per sequence */
            EeModel *ex = NULL;
            CHECK_OK(ee_model_make_explainer(m, EE_HEAD_FLAT, 1, &ex));
            int N = 4096;
            int32_t *ids = attr_ids(c, N, 32);
            EeInput in = {.n = N, .ids = ids};
            float *out = xmalloc(sizeof(float) * (size_t)N * c->T);
            double rate[2];
            for (int d = 0; d < 2; d++) {
                EeDevice dev = d ? GPU_DEV : EE_DEVICE_CPU;
                if (d && fake) { rate[1] = 0; break; }
                int n = d ? N : 256;
                in.n = n;
                ee_model_predict(ex, &in, out, 0, dev); /* warm-up */
                double t0 = ee_now();
                CHECK_OK(ee_model_predict(ex, &in, out, 0, dev));
                rate[d] = n / (ee_now() - t0);
            }
            printf("  %-12s %-8s  GPU %10.1f   CPU(all)   %9.1f   x%.1f\n", "explainer", "flat", rate[1],
                   rate[0], rate[0] > 0 ? rate[1] / rate[0] : 0);
            free(out); free(ids);
            ee_model_free(ex);
        }
        ee_model_free(m);
    }
}

/* ---- 5. tensor-core precisions ------------------------------------------------------------- */
/* The tf32 and bf16 tables against the CPU's FP32: errors within what the
 * input rounding explains (tf32 keeps 10 mantissa bits, bf16 7), and above
 * FP32 rounding, which shows that the precision is really applied. */
static const double PREC_TOL_OP[EE_PRECISION_COUNT] = {TOL_OP, 4e-3, 3e-2};
static const double PREC_TOL_MODEL[EE_PRECISION_COUNT] = {TOL_MODEL_OUT, 2e-2, 1e-1};
/* bf16's floor is above tf32's largest error: bf16 operands really are bf16 */
static const double PREC_MIN_OP[EE_PRECISION_COUNT] = {0, 2e-6, 6e-4};

/* finite: a model's outputs or maps, where a non-finite value is an error
 * (an op's edge cases may hold equal non-finite values on both sides) */
static void cmp_prec(const char *what, EePrecision p, const float *gpu, const float *cpu, size_t n,
                     double floor, double tol, double min, int finite)
{
    double top, e = finite ? relerr_finite(gpu, cpu, n, floor, &top) : relerr_floor(gpu, cpu, n, floor);
    printf("  %-50s %s rel err %9.2e%s\n", what, ee_precision_names[p], e,
           e <= tol && e >= min ? "" : "   <-- FAIL");
    CHECK(e <= tol, "%s at %s: relative error %.3g exceeds %.1g", what, ee_precision_names[p], e, tol);
    CHECK(e >= min, "%s at %s: relative error %.3g is FP32's: the precision is not applied", what,
          ee_precision_names[p], e);
}

static void test_precision_ops(void)
{
    printf("\ntensor-core precisions: ops against the CPU's FP32\n");
    CHECK(ee_precision_check(EE_DEVICE_CPU, EE_PRECISION_TF32) == EE_ERR_UNSUPPORTED, "tf32 on the CPU");
    CHECK(ee_precision_check(EE_DEVICE_CPU, EE_PRECISION_BF16) == EE_ERR_UNSUPPORTED, "bf16 on the CPU");
    CHECK(ee_backend_at(EE_DEVICE_CPU, EE_PRECISION_BF16) == NULL, "no bf16 table for the CPU");
    if (fake) return; /* the CPU has no such tables */
    char name[128];
    for (int p = EE_PRECISION_TF32; p < EE_PRECISION_COUNT; p++) {
        const EeBackend *G = ee_backend_cuda_at((EePrecision)p);
        CHECK(G && G->precision == (EePrecision)p, "the %s table", ee_precision_names[p]);
        if (!G) continue;
        static const int sz[][3] = {{64, 200, 128}, {513, 257, 1031}};
        for (int s = 0; s < 2; s++)
            for (int t = 0; t < 4; t++) {
                int ta = t & 1, tb = t >> 1, M = sz[s][0], N = sz[s][1], K = sz[s][2];
                int lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
                Buf A = buf_rand((size_t)(ta ? K : M) * lda, -1, 1);
                Buf B = buf_rand((size_t)(tb ? N : K) * ldb, -1, 1);
                Buf C = buf_rand((size_t)M * ldc, -1, 1);
                CPU->gemm(ta, tb, M, N, K, 0.75f, A.h, lda, B.h, ldb, -0.5f, C.h, ldc);
                G->gemm(ta, tb, M, N, K, 0.75f, A.d, lda, B.d, ldb, -0.5f, C.d, ldc);
                float *g = dev_get(C.d, sizeof(float) * C.n);
                snprintf(name, sizeof name, "gemm %dx%dx%d ta=%d tb=%d", M, N, K, ta, tb);
                cmp_prec(name, (EePrecision)p, g, C.h, C.n, 0, PREC_TOL_OP[p], PREC_MIN_OP[p], 0);
                free(g);
                buf_free(&A); buf_free(&B); buf_free(&C);
            }
        /* attention: the products at the precision, the softmax in FP32 (heads
         * of 64: the tensor-core path, not the fused FP32 kernel) */
        int B = 3, T = 128, d = 128, H = 2;
        size_t Rd = (size_t)B * T * d, PT = (size_t)B * H * T * T;
        uint8_t *mk = xmalloc((size_t)B * T);
        for (int b = 0; b < B; b++) make_mask(mk + (size_t)b * T, T, b + 1);
        uint8_t *mkd = dev_copy(mk, (size_t)B * T);
        Buf q = buf_rand(Rd, -2, 2), k = buf_rand(Rd, -2, 2), v = buf_rand(Rd, -1, 1);
        Buf P = buf_const(PT, GARBAGE), ctx = buf_const(Rd, GARBAGE), dctx = buf_rand(Rd, -1, 1);
        Buf dq = buf_const(Rd, GARBAGE), dk = buf_const(Rd, GARBAGE), dv = buf_const(Rd, GARBAGE);
        CPU->attention_fwd(q.h, k.h, v.h, mk, P.h, ctx.h, B, T, d, H);
        G->attention_fwd(q.d, k.d, v.d, mkd, P.d, ctx.d, B, T, d, H);
        CPU->attention_bwd(q.h, k.h, v.h, mk, P.h, dctx.h, dq.h, dk.h, dv.h, B, T, d, H);
        G->attention_bwd(q.d, k.d, v.d, mkd, P.d, dctx.d, dq.d, dk.d, dv.d, B, T, d, H);
        const Buf *outs[] = {&ctx, &dq, &dk, &dv};
        const char *names[] = {"attention_fwd ctx", "attention_bwd dq", "attention_bwd dk", "attention_bwd dv"};
        for (int i = 0; i < 4; i++) {
            float *g = dev_get(outs[i]->d, sizeof(float) * outs[i]->n);
            snprintf(name, sizeof name, "%s B=%d T=%d d=%d H=%d", names[i], B, T, d, H);
            cmp_prec(name, (EePrecision)p, g, outs[i]->h, outs[i]->n, 0, PREC_TOL_OP[p], PREC_MIN_OP[p], 0);
            free(g);
        }
        free(mk);
        GPU->release(mkd);
        Buf *all[] = {&q, &k, &v, &P, &ctx, &dctx, &dq, &dk, &dv};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) buf_free(all[i]);
    }
}

/* Logits, IG and SV maps of whole models at each precision against the
 * CPU's FP32, and the samplers' own checks: completeness (IG) and
 * efficiency (SV) stay at their FP32 size because the sums are FP32. */
static void precision_models(const char *label, const EeConfig *cfg)
{
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(cfg, &m));
    if (!m) return;
    ee_model_init(m, 3);
    /* the CPU emulation of the backend (tests/gpu/emu) runs every thread of
     * the rounding kernels as a fiber: two rows there, six on a GPU */
    int N = getenv("EE_TEST_GPU_EMULATED") ? 2 : 6, T = cfg->T, C = cfg->classes;
    int32_t *ids = attr_ids(cfg, N, 8);
    EeInput in = {.n = N, .ids = ids};
    float *ref = xmalloc(sizeof(float) * N * T), *got = xmalloc(sizeof(float) * N * T);
    float *lr = xmalloc(sizeof(float) * N * C), *lg = xmalloc(sizeof(float) * N * C);
    CHECK_OK(ee_model_predict(m, &in, lr, 0, EE_DEVICE_CPU));
    char name[128];
    for (int p = EE_PRECISION_TF32; p < EE_PRECISION_COUNT; p++) {
        CHECK_OK(ee_model_predict_precision(m, &in, lg, 0, EE_DEVICE_GPU, (EePrecision)p));
        snprintf(name, sizeof name, "%s logits", label);
        cmp_prec(name, (EePrecision)p, lg, lr, (size_t)N * C, 0, PREC_TOL_MODEL[p], 0, 1);
        for (int sv = 0; sv <= 1; sv++) {
            EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(EE_DEVICE_GPU);
            oc.steps = og.steps = sv ? 3 : 20;
            og.precision = (EePrecision)p;
            float fx[6], fb[6], dl[6], fxg[6], fbg[6], dlg[6];
            int32_t tg[6], tgg[6];
            EeAttrInfo ic = {tg, fx, fb, dl, 0, 0, 0, NULL, 0}, ig = {tgg, fxg, fbg, dlg, 0, 0, 0, NULL, 0};
            CHECK_OK(sv ? ee_sv_attribute(m, &in, &oc, ref, &ic) : ee_ig_attribute(m, &in, &oc, ref, &ic));
            CHECK_OK(sv ? ee_sv_attribute(m, &in, &og, got, &ig) : ee_ig_attribute(m, &in, &og, got, &ig));
            snprintf(name, sizeof name, "%s %s map", label, sv ? "SV s=3" : "IG s=20");
            cmp_prec(name, (EePrecision)p, got, ref, (size_t)N * T, maxabs(fx, N), PREC_TOL_MODEL[p], 0, 1);
            /* the sampler's own check at this precision: |delta| / max |f(x)| */
            double dmax = 0, dref = 0;
            for (int i = 0; i < N; i++) {
                if (fabs(dlg[i]) > dmax) dmax = fabs(dlg[i]);
                if (fabs(dl[i]) > dref) dref = fabs(dl[i]);
            }
            double scale = maxabs(fx, N) > 0 ? maxabs(fx, N) : 1;
            printf("  %-50s %s %s delta %9.2e (fp32 CPU %9.2e)\n", label, ee_precision_names[p],
                   sv ? "SV efficiency" : "IG completeness", dmax / scale, dref / scale);
            /* SV: telescoping sums of the same passes, but f(x) and f(baseline)
             * come from passes in other batches (other GEMM kernels); IG: the
             * quadrature error plus the rounding */
            CHECK(dmax / scale <= (sv ? PREC_TOL_OP[p] : dref / scale + PREC_TOL_MODEL[p]),
                  "%s %s at %s: delta %.3g", label, sv ? "SV" : "IG", ee_precision_names[p], dmax / scale);
        }
    }
    free(ref); free(got); free(lr); free(lg); free(ids);
    ee_model_free(m);
}

static void test_precision_models(void)
{
    if (fake) return;
    printf("\ntensor-core precisions: models and samplers against the CPU's FP32\n");
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 300; c.T = 48; c.d = 64; c.heads = 4; c.layers = 2; c.ffn = 128; c.classes = 3;
    precision_models("transformer d 64", &c);
    ee_config_defaults(&c, EE_KIND_CNN);
    c.vocab = 300; c.T = 48; c.d = 32; c.filters = 32; c.classes = 3;
    precision_models("cnn", &c);
}

/* Run with EE_GPU_MEMORY_MB small (tests/gpu/check.sh does): batches that
 * do not fit are split, and the results still match the CPU. */
static int split_check(void)
{
    ee_rng_seed(&rng, 20240611);
    const char *cap = getenv("EE_GPU_MEMORY_MB");
    printf("test_gpu: split check under EE_GPU_MEMORY_MB=%s\n", cap ? cap : "(unset)");
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 20000; c.T = 128; c.classes = 2;
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(&c, &m));
    if (!m) return check_finish("test_gpu split");
    ee_model_init(m, 4);
    int N = 96;
    int32_t *ids = attr_ids(&c, N, 32);
    EeInput in = {.n = N, .ids = ids};
    float *a = xmalloc(sizeof(float) * N * c.T), *b = xmalloc(sizeof(float) * N * c.T);
    CHECK_OK(ee_model_predict(m, &in, a, 0, EE_DEVICE_CPU));
    CHECK_OK(ee_model_predict(m, &in, b, 100000, GPU_DEV)); /* far too big: must be split */
    cmp("predict, batch split to fit", b, a, (size_t)N * c.classes, 1e-4);
    EeAttrOptions oc = attr_opts(EE_DEVICE_CPU), og = attr_opts(GPU_DEV);
    in.n = 8;
    og.batch = 100000;
    float fx[8];
    int32_t tg[8];
    EeAttrInfo info = {tg, fx, NULL, NULL, 0, 0, 0, NULL, 0};
    CHECK_OK(ee_ig_attribute(m, &in, &oc, a, &info));
    CHECK_OK(ee_ig_attribute(m, &in, &og, b, NULL));
    cmp_map("IG s=20, batch split to fit", b, a, (size_t)in.n * c.T, maxabs(fx, in.n), 1e-4);
    free(a); free(b); free(ids);
    ee_model_free(m);
    return check_finish("test_gpu split");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ee_threads_enter();
    CPU = ee_backend_cpu();
    const char *f = getenv("EE_TEST_GPU_FAKE");
    fake = f && *f && strcmp(f, "0") != 0;
    if (fake) {
        GPU = CPU;
        GPU_DEV = EE_DEVICE_CPU;
        printf("test_gpu: EE_TEST_GPU_FAKE: the CPU backend stands in for the GPU "
               "(checks this program, not CUDA)\n");
        const char *sp = getenv("EE_TEST_GPU_SPLIT");
        if (sp && *sp && strcmp(sp, "0") != 0) return split_check();
    } else {
        GPU = ee_backend_cuda();
        if (!GPU) {
            /* counted as skipped (not passed) by tests/run_all.sh */
            SKIP("no CUDA device: %s", ee_cuda_describe());
            check_finish("test_gpu");
            return 77;
        }
        GPU_DEV = EE_DEVICE_GPU;
        printf("test_gpu: device: %s\n", ee_cuda_describe());
        printf("test_gpu: %s\n", ee_cuda_cudnn_describe());
        const char *sp = getenv("EE_TEST_GPU_SPLIT");
        if (sp && *sp && strcmp(sp, "0") != 0) return split_check();
    }
    printf("CPU threads: %d\n", ee_threads_count());
    ee_rng_seed(&rng, 20240611);
    double t0 = ee_now();
    /* EE_TEST_GPU_ONLY=samplers: the sampler and method parity alone (on
     * the emulation, minutes instead of half an hour) */
    const char *only = getenv("EE_TEST_GPU_ONLY");
    int samplers_only = only && !strcmp(only, "samplers");
    if (samplers_only) goto samplers;

    test_memory();
    test_gemm();
    test_vector_ops();
    test_layernorm();
    test_fusions();
    test_activations();
    test_dropout();
    test_attention();
    test_attention_cls();
    test_embed();
    test_conv();
    test_maxpool();
    test_rescale();
    test_rows();
    test_losses();
    CHECK(ee_cuda_check_error() == 0, "a CUDA error was reported during the op tests (see stderr)");
    test_models();
    prior_parity();
    CHECK(ee_cuda_check_error() == 0, "a CUDA error was reported during the model tests (see stderr)");
samplers: {
        EeConfig c;
        ee_config_defaults(&c, EE_KIND_TRANSFORMER);
        c.vocab = 50; c.T = 16; c.d = 16; c.heads = 2; c.layers = 2; c.ffn = 32; c.classes = 3;
        attr_parity("transformer", &c);
        ee_config_defaults(&c, EE_KIND_CNN);
        c.vocab = 50; c.T = 16; c.d = 8; c.filters = 6; c.classes = 3;
        attr_parity("cnn", &c);
        deeplift_mlp_parity();
    }
    CHECK(ee_cuda_check_error() == 0, "a CUDA error was reported during the sampler tests (see stderr)");
    if (samplers_only) {
        if (!fake) ee_cuda_shutdown();
        ee_threads_leave();
        return check_finish("test_gpu (samplers only)");
    }
    test_precision_ops();
    test_precision_models();
    CHECK(ee_cuda_check_error() == 0, "a CUDA error was reported during the precision tests (see stderr)");
    printf("\ncorrectness: %d passed, %d failed in %.1f s; largest relative error %.2e (%s)\n",
           check_passed, check_failed, ee_now() - t0, worst_err, worst_name);

    const char *nt = getenv("EE_TEST_GPU_NO_TIMING");
    if (!(nt && *nt && strcmp(nt, "0") != 0)) {
        timing();
        attr_timing();
    }
    CHECK(ee_cuda_check_error() == 0, "a CUDA error was reported during timing (see stderr)");
    if (!fake) ee_cuda_shutdown();
    ee_threads_leave();
    return check_finish("test_gpu");
}
