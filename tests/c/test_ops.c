/* test_ops.c: every op of the CPU backend (ee_backend_cpu()) against an
 * independent double-precision computation written here.
 *
 * - memory: alloc is zero-filled; upload/download/copy/zero; sync.
 * - gemm: the 4 transpose combinations, odd sizes, leading dimensions with
 *   padding (the padding of C must stay untouched), alpha/beta, K = 0, and
 *   sizes that take the OpenMP split over M and over N (with 2 and 3
 *   threads, so blocks are uneven). Bound: the rigorous float32 bound
 *   (K + 3) u sum_k |alpha a b| + |beta c| with u = 2^-24.
 * - axpy, scale, add_bias, bias_grad (+=), gather_rows, scatter_rows.
 * - layernorm fwd (Y, mean, rstd) and bwd (dX overwrite and accumulate,
 *   dg/db accumulate, NULL dg/db) against central differences of a double
 *   LayerNorm.
 * - gelu (exact erf), relu (ReLU'(0) = 0), tanh (bwd from Y) fwd/bwd, in
 *   place too, sizes over the OpenMP thresholds.
 * - attention fwd/bwd with masks that have holes, padding at the end, a
 *   fully masked sequence, 1..3 heads: ctx and P of query rows < span
 *   (span = last attended key + 1) against a double attention with -inf
 *   masking; rows >= span are finite zeros; dq/dk/dv against central
 *   differences of sum(dctx .* ctx) over the rows < span (so the gradient
 *   flowing from rows >= span must be 0, and masked keys get none).
 * - attention_cls fwd/bwd (one [CLS] query per sequence) against the same
 *   reference restricted to query row 0.
 * - embed fwd/bwd: with and without positions, repeated ids, PAD rows get
 *   no gradient, accumulation.
 * - conv fwd/bwd: cross-correlation with zero padding at the end, W row
 *   j*d+c, with/without bias, widths 1..T, dE/dW/db accumulate, NULL
 *   gradients; bwd against central differences.
 * - maxpool fwd/bwd: column offset in a wider row (others untouched),
 *   masked positions ignored, ties -> lowest position, max <= 0 -> 0 and
 *   no gradient; on a tie-free input the bwd equals central differences of
 *   relu(max).
 * - softmax_xent and mse: loss and gradient (also against differences).
 * - softmax rows (AVX2): the written-out loops give the bits of the
 *   `omp simd` macro they replace (its summation order), for lengths
 *   1..1300, with and without masked columns.
 * - adam: 6 steps against the standard formula in double.
 * - dropout: the documented hash mask, same mask for the same seed,
 *   different for another seed, independent of n (thread split), keep rate
 *   within 5 sigma of 1-p, scaling 1/(1-p), bwd, p = 0 no-op. */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"
#include "backend/backend.h"

#include <float.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const EeBackend *be;
static EeRng rng;
static int quick;

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ---- memory ------------------------------------------------------------------ */
static void test_memory(void)
{
    size_t n = 1000;
    float *a = be->alloc(n * sizeof(float));
    CHECK(a != NULL, "alloc failed");
    if (!a) return;
    int zero = 1;
    for (size_t i = 0; i < n; i++) zero &= a[i] == 0.0f;
    CHECK(zero, "alloc is not zero-filled");
    float *h = gc_alloc(n * sizeof(float)), *h2 = gc_alloc(n * sizeof(float));
    float *b = be->alloc(n * sizeof(float));
    gc_fill_f(&rng, h, n, -1, 1);
    be->upload(a, h, n * sizeof(float));
    be->copy(b, a, n * sizeof(float));
    be->sync();
    be->download(h2, b, n * sizeof(float));
    gc_check_equal_f("upload/copy/download", h2, h, n);
    be->zero(b + 10, 20 * sizeof(float));
    be->download(h2, b, n * sizeof(float));
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= h2[i] == ((i >= 10 && i < 30) ? 0.0f : h[i]);
    CHECK(ok, "zero touched the wrong range");
    void *z = be->alloc(0); /* zero bytes: a valid, releasable pointer */
    be->release(z);
    be->release(a);
    be->release(b);
    free(h);
    free(h2);
}

/* ---- gemm ------------------------------------------------------------------------ */
static void gemm_case(int ta, int tb, int M, int N, int K, float alpha, float beta, int pad)
{
    int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    int arows = ta ? K : M, brows = tb ? N : K;
    size_t na = (size_t)arows * lda, nb = (size_t)brows * ldb, nc = (size_t)M * ldc;
    float *A = gc_alloc(sizeof(float) * (na ? na : 1)), *B = gc_alloc(sizeof(float) * (nb ? nb : 1));
    float *C = gc_alloc(sizeof(float) * nc), *C0 = gc_alloc(sizeof(float) * nc);
    gc_fill_f(&rng, A, na, -1, 1);
    gc_fill_f(&rng, B, nb, -1, 1);
    gc_fill_f(&rng, C, nc, -1, 1);
    memcpy(C0, C, sizeof(float) * nc);
    be->gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    CheckCmp worst = CMP_INIT; /* err / bound */
    int pad_ok = 1;
    const double u = 0x1.0p-24;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double s = 0, sa = 0;
            for (int k = 0; k < K; k++) {
                double a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                double b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                s += a * b;
                sa += fabs(a * b);
            }
            double c0 = C0[(size_t)i * ldc + j];
            double ref = alpha * s + beta * c0;
            double bound = (K + 3) * u * (fabs(alpha) * sa + fabs(beta * c0)) + 1e-30;
            cmp_add_scaled(&worst, C[(size_t)i * ldc + j], ref, bound);
        }
        for (int j = N; j < ldc; j++) pad_ok &= C[(size_t)i * ldc + j] == C0[(size_t)i * ldc + j];
    }
    if (M > 0 && N > 0) /* (an empty product writes nothing: the padding check below is its test) */
        CHECK_CMP(worst, 1.0, "gemm ta=%d tb=%d M=%d N=%d K=%d alpha=%g beta=%g pad=%d: err %.3g x bound",
                  ta, tb, M, N, K, alpha, beta, pad, worst.err);
    CHECK(pad_ok, "gemm ta=%d tb=%d M=%d N=%d K=%d: wrote into the padding of C", ta, tb, M, N, K);
    if (gc_verbose()) printf("  gemm %d%d %dx%dx%d a=%g b=%g pad=%d threads=%d: err/bound %.3g\n", ta, tb, M,
                             N, K, alpha, beta, pad, max_threads(), worst.err);
    free(A);
    free(B);
    free(C);
    free(C0);
}

static void test_gemm(void)
{
    static const int sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {13, 1, 9}, {1, 11, 6}, {5, 17, 1}, {33, 29, 31}};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                gemm_case(ta, tb, sizes[s][0], sizes[s][1], sizes[s][2], 1.0f, 0.0f, 0);
                gemm_case(ta, tb, sizes[s][0], sizes[s][1], sizes[s][2], -0.7f, 1.0f, 3);
                gemm_case(ta, tb, sizes[s][0], sizes[s][1], sizes[s][2], 1.3f, 0.35f, 1);
            }
            /* K = 0: C = beta C */
            gemm_case(ta, tb, 4, 6, 0, 1.0f, 0.5f, 2);
            /* big enough for the OpenMP split (2 M N K >= 2e5): over M (M >= N)
             * and over N, with 2 and 3 threads (uneven blocks) */
            int big_m = quick ? 120 : 300, big_k = quick ? 40 : 70;
            int saved = max_threads();
            int team[2] = {2, 3};
            for (int q = 0; q < 2; q++) {
                gc_set_threads(team[q]);
                gemm_case(ta, tb, big_m, big_m, big_k, 1.0f, 0.0f, 0);
                gemm_case(ta, tb, big_m + 1, 41, big_k, 0.5f, 2.0f, 5);
                gemm_case(ta, tb, 40, big_m + 1, big_k, -1.0f, 1.0f, 2);
            }
            gc_set_threads(saved);
        }
    /* M or N = 0: nothing happens */
    float C[4] = {1, 2, 3, 4}, A[4] = {0}, B[4] = {0};
    be->gemm(0, 0, 0, 2, 2, 1.0f, A, 2, B, 2, 0.0f, C, 2);
    be->gemm(0, 0, 2, 0, 2, 1.0f, A, 2, B, 2, 0.0f, C, 2);
    CHECK(C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4, "gemm with M or N = 0 wrote C");
}

/* op(A) = A^T gives the bits of A^T written out (ta = 0): each element is
 * the same chain in ascending k, whether A is read down its columns in
 * place (rows of 1 KB or less) or transposed block by block first (longer
 * rows), over several blocks of k, with 1 to 3 threads. This is what makes
 * training's parameter gradients independent of the processor and of the
 * path (doc/RANDOM.md). */
static void test_gemm_transposed_bits(void)
{
    static const int shapes[][3] = {{40, 37, 600}, {70, 20, 300}, {300, 33, 520}, {6, 16, 257}};
    int saved = max_threads();
    for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++) {
        int M = shapes[q][0], N = shapes[q][1], K = shapes[q][2], wide = 300 + M; /* lda > 256: transposed */
        float *A = gc_alloc(sizeof(float) * (size_t)K * M), *Aw = gc_alloc(sizeof(float) * (size_t)K * wide);
        float *At = gc_alloc(sizeof(float) * (size_t)M * K), *B = gc_alloc(sizeof(float) * (size_t)K * N);
        float *C0 = gc_alloc(sizeof(float) * (size_t)M * N), *C1 = gc_alloc(sizeof(float) * (size_t)M * N);
        float *C2 = gc_alloc(sizeof(float) * (size_t)M * N);
        gc_fill_f(&rng, A, (size_t)K * M, -1, 1);
        gc_fill_f(&rng, B, (size_t)K * N, -1, 1);
        for (int k = 0; k < K; k++)
            for (int i = 0; i < M; i++) {
                At[(size_t)i * K + k] = A[(size_t)k * M + i];
                Aw[(size_t)k * wide + i] = A[(size_t)k * M + i];
            }
        be->gemm(0, 0, M, N, K, 1.0f, At, K, B, N, 0.0f, C0, N);
        for (int th = 1; th <= 3; th++) {
            gc_set_threads(th);
            be->gemm(1, 0, M, N, K, 1.0f, A, M, B, N, 0.0f, C1, N);
            be->gemm(1, 0, M, N, K, 1.0f, Aw, wide, B, N, 0.0f, C2, N);
            CHECK(!memcmp(C0, C1, sizeof(float) * (size_t)M * N),
                  "gemm A^T in place (M=%d N=%d K=%d, %d threads): not the bits of A^T written out", M, N, K, th);
            CHECK(!memcmp(C0, C2, sizeof(float) * (size_t)M * N),
                  "gemm A^T transposed (M=%d N=%d K=%d lda=%d, %d threads): not the bits of A^T written out", M,
                  N, K, wide, th);
        }
        free(A); free(Aw); free(At); free(B); free(C0); free(C1); free(C2);
    }
    gc_set_threads(saved);
}

/* ---- small elementwise and row ops ----------------------------------------------- */
static void test_vector_ops(void)
{
    size_t sizes[2] = {37, quick ? 70000 : 200003}; /* the second takes the OpenMP path */
    for (int s = 0; s < 2; s++) {
        size_t n = sizes[s];
        float *x = gc_alloc(n * 4), *y = gc_alloc(n * 4), *y0 = gc_alloc(n * 4);
        double *ref = gc_alloc(n * 8);
        gc_fill_f(&rng, x, n, -2, 2);
        gc_fill_f(&rng, y, n, -2, 2);
        memcpy(y0, y, n * 4);
        be->axpy(n, -0.37f, x, y);
        for (size_t i = 0; i < n; i++) ref[i] = (double)y0[i] + (double)-0.37f * x[i];
        gc_check_close("axpy", y, ref, n, 2e-7, 0);
        memcpy(y, y0, n * 4);
        be->scale(n, 1.7f, y);
        for (size_t i = 0; i < n; i++) ref[i] = (double)y0[i] * 1.7f;
        gc_check_close("scale", y, ref, n, 1.2e-7, 0);
        free(x);
        free(y);
        free(y0);
        free(ref);
    }
    int shapes[2][2] = {{5, 7}, {quick ? 300 : 700, 301}};
    for (int s = 0; s < 2; s++) {
        int R = shapes[s][0], Cc = shapes[s][1];
        size_t n = (size_t)R * Cc;
        float *Y = gc_alloc(n * 4), *Y0 = gc_alloc(n * 4), *b = gc_alloc(Cc * 4), *db = gc_alloc(Cc * 4);
        double *ref = gc_alloc(n * 8), *rb = gc_alloc(Cc * 8);
        gc_fill_f(&rng, Y, n, -1, 1);
        gc_fill_f(&rng, b, Cc, -1, 1);
        gc_fill_f(&rng, db, Cc, -1, 1);
        memcpy(Y0, Y, n * 4);
        be->add_bias(Y, b, R, Cc);
        for (int r = 0; r < R; r++)
            for (int c = 0; c < Cc; c++) ref[(size_t)r * Cc + c] = (double)Y0[(size_t)r * Cc + c] + b[c];
        gc_check_close("add_bias", Y, ref, n, 1.2e-7, 0);
        for (int c = 0; c < Cc; c++) {
            double s2 = db[c];
            for (int r = 0; r < R; r++) s2 += Y0[(size_t)r * Cc + c];
            rb[c] = s2;
        }
        be->bias_grad(Y0, db, R, Cc);
        gc_check_close("bias_grad (+=)", db, rb, Cc, 1e-6, 1.0);
        free(Y);
        free(Y0);
        free(b);
        free(db);
        free(ref);
        free(rb);
    }
    /* gather/scatter rows with a stride (the [CLS] rows of a batch) */
    int n = 4, cols = 5, stride = 3 * cols;
    float src[4 * 15], dst[4 * 5], back[4 * 15];
    gc_fill_f(&rng, src, 60, -1, 1);
    be->gather_rows(src, stride, dst, n, cols);
    int ok = 1;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < cols; c++) ok &= dst[i * cols + c] == src[i * stride + c];
    CHECK(ok, "gather_rows");
    for (int i = 0; i < 60; i++) back[i] = 100.0f + i;
    be->scatter_rows(dst, back, stride, n, cols);
    ok = 1;
    for (int i = 0; i < 60; i++) {
        int row = i / stride, col = i % stride;
        float want = col < cols ? src[row * stride + col] : 100.0f + i;
        ok &= back[i] == want;
    }
    CHECK(ok, "scatter_rows (other entries must stay)");
}

/* ---- layernorm --------------------------------------------------------------------- */
#define LN_EPS 1e-5
static void ln_ref_row(const double *x, const double *g, const double *b, double *y, int cols,
                       double *mean, double *rstd)
{
    double mu = 0, v = 0;
    for (int c = 0; c < cols; c++) mu += x[c];
    mu /= cols;
    for (int c = 0; c < cols; c++) v += (x[c] - mu) * (x[c] - mu);
    v /= cols;
    double rs = 1 / sqrt(v + LN_EPS);
    for (int c = 0; c < cols; c++) y[c] = (x[c] - mu) * rs * g[c] + b[c];
    if (mean) *mean = mu;
    if (rstd) *rstd = rs;
}

typedef struct {
    double *x, *g, *b, *dy, *y;
    int cols;
} LnCtx;

static double ln_loss(void *p)
{
    LnCtx *c = p;
    ln_ref_row(c->x, c->g, c->b, c->y, c->cols, NULL, NULL);
    double s = 0;
    for (int k = 0; k < c->cols; k++) s += c->dy[k] * c->y[k];
    return s;
}

static void ln_case(int rows, int cols, int fd)
{
    size_t n = (size_t)rows * cols;
    float *X = gc_alloc(n * 4), *Y = gc_alloc(n * 4), *g = gc_alloc(cols * 4), *b = gc_alloc(cols * 4);
    float *mean = gc_alloc(rows * 4), *rstd = gc_alloc(rows * 4), *dY = gc_alloc(n * 4), *dX = gc_alloc(n * 4);
    float *dX0 = gc_alloc(n * 4), *dg = gc_alloc(cols * 4), *db = gc_alloc(cols * 4);
    float *dg0 = gc_alloc(cols * 4), *db0 = gc_alloc(cols * 4);
    for (int r = 0; r < rows; r++) /* per-row offset and spread */
        gc_fill_normal_f(&rng, X + (size_t)r * cols, cols, gc_unif(&rng, -3, 3), gc_unif(&rng, 0.3, 3));
    gc_fill_normal_f(&rng, g, cols, 1, 0.3);
    gc_fill_normal_f(&rng, b, cols, 0, 0.3);
    gc_fill_normal_f(&rng, dY, n, 0, 1);
    be->layernorm_fwd(X, g, b, Y, mean, rstd, rows, cols, (float)LN_EPS);

    double *xd = gc_alloc(n * 8), *yr = gc_alloc(n * 8), *gd = gc_alloc(cols * 8), *bd = gc_alloc(cols * 8);
    double *mr = gc_alloc(rows * 8), *rr = gc_alloc(rows * 8), *dyd = gc_alloc(n * 8), *tmp = gc_alloc(cols * 8);
    gc_f2d(X, xd, n);
    gc_f2d(g, gd, cols);
    gc_f2d(b, bd, cols);
    gc_f2d(dY, dyd, n);
    for (int r = 0; r < rows; r++)
        ln_ref_row(xd + (size_t)r * cols, gd, bd, yr + (size_t)r * cols, cols, mr + r, rr + r);
    char what[96];
    snprintf(what, sizeof what, "layernorm_fwd Y %dx%d", rows, cols);
    gc_check_close(what, Y, yr, n, 2e-6, 0);
    snprintf(what, sizeof what, "layernorm_fwd mean %dx%d", rows, cols);
    gc_check_close(what, mean, mr, rows, 1e-6, 1.0);
    snprintf(what, sizeof what, "layernorm_fwd rstd %dx%d", rows, cols);
    gc_check_close(what, rstd, rr, rows, 1e-6, 0);

    if (fd) {
        /* backward: dX (overwrite, then accumulate), dg and db accumulate */
        double *gx = gc_alloc(n * 8), *gg = gc_alloc(cols * 8), *gb = gc_alloc(cols * 8);
        LnCtx c = {.g = gd, .b = bd, .y = tmp, .cols = cols};
        for (int r = 0; r < rows; r++) {
            c.x = xd + (size_t)r * cols;
            c.dy = dyd + (size_t)r * cols;
            for (int k = 0; k < cols; k++) gx[(size_t)r * cols + k] = gc_fd1(ln_loss, &c, &c.x[k], 1e-6);
            for (int k = 0; k < cols; k++) {
                gg[k] += gc_fd1(ln_loss, &c, &gd[k], 1e-6);
                gb[k] += gc_fd1(ln_loss, &c, &bd[k], 1e-6);
            }
        }
        gc_fill_f(&rng, dX, n, -5, 5); /* garbage: must be overwritten */
        gc_fill_f(&rng, dg0, cols, -1, 1);
        gc_fill_f(&rng, db0, cols, -1, 1);
        memcpy(dg, dg0, cols * 4);
        memcpy(db, db0, cols * 4);
        be->layernorm_bwd(dY, X, g, mean, rstd, dX, dg, db, rows, cols, 0);
        snprintf(what, sizeof what, "layernorm_bwd dX %dx%d", rows, cols);
        gc_check_close(what, dX, gx, n, 2e-5, 0);
        for (int k = 0; k < cols; k++) { gg[k] += dg0[k]; gb[k] += db0[k]; }
        snprintf(what, sizeof what, "layernorm_bwd dg (+=) %dx%d", rows, cols);
        gc_check_close(what, dg, gg, cols, 2e-5, 0);
        snprintf(what, sizeof what, "layernorm_bwd db (+=) %dx%d", rows, cols);
        gc_check_close(what, db, gb, cols, 2e-5, 0);
        /* accumulate = 1 adds to dX; NULL dg/db allowed */
        gc_fill_f(&rng, dX0, n, -1, 1);
        memcpy(dX, dX0, n * 4);
        be->layernorm_bwd(dY, X, g, mean, rstd, dX, NULL, NULL, rows, cols, 1);
        for (size_t i = 0; i < n; i++) gx[i] += dX0[i];
        snprintf(what, sizeof what, "layernorm_bwd dX accumulate %dx%d", rows, cols);
        gc_check_close(what, dX, gx, n, 2e-5, 0);
        free(gx);
        free(gg);
        free(gb);
    }
    free(X); free(Y); free(g); free(b); free(mean); free(rstd); free(dY); free(dX); free(dX0);
    free(dg); free(db); free(dg0); free(db0);
    free(xd); free(yr); free(gd); free(bd); free(mr); free(rr); free(dyd); free(tmp);
}

static void test_layernorm(void)
{
    ln_case(6, 7, 1);
    ln_case(1, 1, 1); /* constant row: xhat = 0 */
    ln_case(quick ? 20 : 64, 33, 1);
    ln_case(quick ? 300 : 1000, 130, 0); /* OpenMP path of the forward */
}

/* ---- activations ------------------------------------------------------------------ */
static double gelu_d(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }

static void test_activations(void)
{
    size_t n = quick ? 70001 : 200001;
    float *X = gc_alloc(n * 4), *Y = gc_alloc(n * 4), *dY = gc_alloc(n * 4), *dX = gc_alloc(n * 4);
    float *buf = gc_alloc(n * 4);
    double *ref = gc_alloc(n * 8);
    gc_fill_normal_f(&rng, X, n, 0, 3);
    for (size_t i = 0; i < n; i += 97) X[i] = 0.0f; /* kinks */
    X[1] = 12.0f;
    X[2] = -12.0f;
    gc_fill_normal_f(&rng, dY, n, 0, 1);

    /* GELU: abs error of a float evaluation ~ u |x| */
    be->gelu_fwd(X, Y, n);
    CheckCmp gf = CMP_INIT;
    for (size_t i = 0; i < n; i++) cmp_add_scaled(&gf, Y[i], gelu_d(X[i]), 1e-7 + 1e-6 * fabs(X[i]));
    CHECK_CMP(gf, 1, "gelu_fwd: err %.3g x (1e-7 + 1e-6|x|)", gf.err);
    memcpy(buf, X, n * 4);
    be->gelu_fwd(buf, buf, n);
    gc_check_equal_f("gelu_fwd in place", buf, Y, n);
    be->gelu_bwd(X, dY, dX, n);
    CheckCmp gb = CMP_INIT;
    for (size_t i = 0; i < n; i++) {
        double x = X[i], h = 1e-5;
        double dref = dY[i] * (gelu_d(x + h) - gelu_d(x - h)) / (2 * h);
        cmp_add_scaled(&gb, dX[i], dref, 1e-6 * (1 + fabs(dY[i]) * (1 + fabs(x))));
    }
    CHECK_CMP(gb, 1, "gelu_bwd vs differences: err %.3g x bound", gb.err);
    memcpy(buf, dY, n * 4);
    be->gelu_bwd(X, buf, buf, n);
    gc_check_equal_f("gelu_bwd in place (dX == dY)", buf, dX, n);

    /* ReLU, ReLU'(0) = 0 */
    be->relu_fwd(X, Y, n);
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= Y[i] == (X[i] > 0 ? X[i] : 0.0f) && !signbit(Y[i]);
    CHECK(ok, "relu_fwd");
    be->relu_bwd(X, dY, dX, n);
    ok = 1;
    for (size_t i = 0; i < n; i++) ok &= dX[i] == (X[i] > 0 ? dY[i] : 0.0f);
    CHECK(ok, "relu_bwd (ReLU'(0) must be 0)");
    memcpy(buf, X, n * 4);
    be->relu_fwd(buf, buf, n);
    gc_check_equal_f("relu_fwd in place", buf, Y, n);
    memcpy(buf, dY, n * 4);
    be->relu_bwd(X, buf, buf, n);
    gc_check_equal_f("relu_bwd in place", buf, dX, n);

    /* mul_mask: zero where the mask byte is 0, untouched elsewhere */
    uint8_t *mk = malloc(n);
    for (size_t i = 0; i < n; i++) mk[i] = (uint8_t)(i % 3 == 0 ? 0 : 1 + i % 5);
    memcpy(buf, X, n * 4);
    be->mul_mask(buf, mk, n);
    ok = 1;
    for (size_t i = 0; i < n; i++) ok &= mk[i] ? buf[i] == X[i] : buf[i] == 0.0f && !signbit(buf[i]);
    CHECK(ok, "mul_mask");
    free(mk);

    /* tanh; bwd takes the output Y */
    be->tanh_fwd(X, Y, n);
    for (size_t i = 0; i < n; i++) ref[i] = tanh((double)X[i]);
    gc_check_close("tanh_fwd", Y, ref, n, 3e-7, 0);
    be->tanh_bwd(Y, dY, dX, n);
    for (size_t i = 0; i < n; i++) {
        double x = X[i], h = 1e-6;
        ref[i] = dY[i] * (tanh(x + h) - tanh(x - h)) / (2 * h);
    }
    gc_check_close("tanh_bwd vs differences", dX, ref, n, 1e-6, 0);
    memcpy(buf, dY, n * 4);
    be->tanh_bwd(Y, buf, buf, n);
    gc_check_equal_f("tanh_bwd in place", buf, dX, n);
    free(X); free(Y); free(dY); free(dX); free(buf); free(ref);
}

/* ---- attention ------------------------------------------------------------------------ */
typedef struct {
    int T, d, H;
    const uint8_t *mask;
    double *q, *k, *v;      /* one sequence, [T][d] */
    const double *dctx;     /* [T][d] */
    int span;
    double *ctx, *P;        /* outputs [T][d], [H][T][T] */
} AttCtx;

static void att_ref(AttCtx *a)
{
    int T = a->T, d = a->d, H = a->H, dh = d / H;
    double sc = 1 / sqrt((double)dh);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++) {
            double s[64], mx = -INFINITY, sum = 0;
            for (int j = 0; j < T; j++) {
                if (!a->mask[j]) { s[j] = -INFINITY; continue; }
                double dot = 0;
                for (int c = 0; c < dh; c++) dot += a->q[i * d + h * dh + c] * a->k[j * d + h * dh + c];
                s[j] = dot * sc;
                mx = fmax(mx, s[j]);
            }
            for (int j = 0; j < T; j++) {
                s[j] = a->mask[j] ? exp(s[j] - mx) : 0.0; /* exp(-inf) = 0 */
                sum += s[j];
            }
            for (int j = 0; j < T; j++) {
                double p = sum > 0 ? s[j] / sum : NAN;
                if (a->P) a->P[((size_t)h * T + i) * T + j] = p;
            }
            for (int c = 0; c < dh; c++) {
                double acc = 0;
                for (int j = 0; j < T; j++)
                    if (a->mask[j]) acc += s[j] / sum * a->v[j * d + h * dh + c];
                a->ctx[i * d + h * dh + c] = acc;
            }
        }
}

static double att_loss(void *p)
{
    AttCtx *a = p;
    att_ref(a);
    double s = 0;
    for (int i = 0; i < a->span; i++)
        for (int c = 0; c < a->d; c++) s += a->dctx[i * a->d + c] * a->ctx[i * a->d + c];
    return s;
}

static void att_case(int B, int T, int d, int H, const uint8_t *mask)
{
    size_t Rd = (size_t)B * T * d, PT = (size_t)B * H * T * T;
    float *q = gc_alloc(Rd * 4), *k = gc_alloc(Rd * 4), *v = gc_alloc(Rd * 4), *ctx = gc_alloc(Rd * 4);
    float *P = gc_alloc(PT * 4), *dctx = gc_alloc(Rd * 4), *dq = gc_alloc(Rd * 4), *dk = gc_alloc(Rd * 4),
          *dv = gc_alloc(Rd * 4);
    gc_fill_normal_f(&rng, q, Rd, 0, 1.2);
    gc_fill_normal_f(&rng, k, Rd, 0, 1.2);
    gc_fill_normal_f(&rng, v, Rd, 0, 1);
    gc_fill_normal_f(&rng, dctx, Rd, 0, 1);
    gc_fill_f(&rng, ctx, Rd, -9, 9); /* garbage everywhere: must be overwritten */
    gc_fill_f(&rng, P, PT, -9, 9);
    gc_fill_f(&rng, dq, Rd, -9, 9);
    gc_fill_f(&rng, dk, Rd, -9, 9);
    gc_fill_f(&rng, dv, Rd, -9, 9);
    be->attention_fwd(q, k, v, mask, P, ctx, B, T, d, H);
    be->attention_bwd(q, k, v, mask, P, dctx, dq, dk, dv, B, T, d, H);

    size_t td = (size_t)T * d;
    double *qd = gc_alloc(td * 8), *kd = gc_alloc(td * 8), *vd = gc_alloc(td * 8), *dcd = gc_alloc(td * 8);
    double *cr = gc_alloc(td * 8), *pr = gc_alloc((size_t)H * T * T * 8);
    double *gq = gc_alloc(td * 8), *gk = gc_alloc(td * 8), *gv = gc_alloc(td * 8);
    float *cg = gc_alloc(td * 4), *pg = gc_alloc((size_t)H * T * T * 4);
    double *cref = gc_alloc(td * 8), *pref = gc_alloc((size_t)H * T * T * 8);
    char what[128];
    for (int b = 0; b < B; b++) {
        const uint8_t *mk = mask + (size_t)b * T;
        int span = 0;
        for (int t = 0; t < T; t++) if (mk[t]) span = t + 1;
        gc_f2d(q + b * td, qd, td);
        gc_f2d(k + b * td, kd, td);
        gc_f2d(v + b * td, vd, td);
        gc_f2d(dctx + b * td, dcd, td);
        AttCtx a = {T, d, H, mk, qd, kd, vd, dcd, span, cr, pr};
        att_ref(&a);
        /* forward: rows < span against the reference, rows >= span zero */
        size_t nr = (size_t)span * d;
        memcpy(cg, ctx + b * td, nr * 4);
        memcpy(cref, cr, nr * 8);
        snprintf(what, sizeof what, "attention_fwd ctx b=%d T=%d d=%d H=%d span=%d", b, T, d, H, span);
        if (span) gc_check_close(what, cg, cref, nr, 2e-6, 0);
        int zero = 1;
        for (size_t i = nr; i < td; i++) zero &= ctx[b * td + i] == 0.0f;
        CHECK(zero, "attention_fwd b=%d: rows >= span %d are not finite zeros", b, span);
        size_t np = 0;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < span; i++)
                for (int j = 0; j < T; j++) {
                    pg[np] = P[(((size_t)b * H + h) * T + i) * T + j];
                    pref[np++] = pr[((size_t)h * T + i) * T + j];
                }
        snprintf(what, sizeof what, "attention_fwd P b=%d T=%d H=%d", b, T, H);
        if (span) gc_check_close(what, pg, pref, np, 2e-6, 1.0);
        int masked0 = 1;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < span; i++)
                for (int j = 0; j < T; j++)
                    if (!mk[j]) masked0 &= P[(((size_t)b * H + h) * T + i) * T + j] == 0.0f;
        CHECK(masked0, "attention_fwd b=%d: masked keys have nonzero probability", b);

        /* backward against central differences of sum_{i<span} dctx .* ctx */
        for (size_t i = 0; i < td; i++) {
            gq[i] = gc_fd1(att_loss, &a, &qd[i], 1e-6);
            gk[i] = gc_fd1(att_loss, &a, &kd[i], 1e-6);
            gv[i] = gc_fd1(att_loss, &a, &vd[i], 1e-6);
        }
        double fl = fmax(fmax(gc_maxabs_d(gq, td), gc_maxabs_d(gk, td)), gc_maxabs_d(gv, td));
        if (fl == 0) fl = 1; /* fully masked: the gradients must be exactly 0 */
        snprintf(what, sizeof what, "attention_bwd dq b=%d T=%d d=%d H=%d span=%d", b, T, d, H, span);
        gc_check_close(what, dq + b * td, gq, td, 1e-5, fl);
        snprintf(what, sizeof what, "attention_bwd dk b=%d T=%d d=%d H=%d span=%d", b, T, d, H, span);
        gc_check_close(what, dk + b * td, gk, td, 1e-5, fl);
        snprintf(what, sizeof what, "attention_bwd dv b=%d T=%d d=%d H=%d span=%d", b, T, d, H, span);
        gc_check_close(what, dv + b * td, gv, td, 1e-5, fl);
        /* exact zeros: dq of rows >= span, dk/dv of masked keys */
        int ez = 1;
        for (int t = 0; t < T; t++)
            for (int c = 0; c < d; c++) {
                size_t i = b * td + (size_t)t * d + c;
                if (t >= span) ez &= dq[i] == 0.0f;
                if (!mk[t]) ez &= dk[i] == 0.0f && dv[i] == 0.0f;
            }
        CHECK(ez, "attention_bwd b=%d: nonzero gradient at rows >= span or masked keys", b);
    }
    free(q); free(k); free(v); free(ctx); free(P); free(dctx); free(dq); free(dk); free(dv);
    free(qd); free(kd); free(vd); free(dcd); free(cr); free(pr); free(gq); free(gk); free(gv);
    free(cg); free(pg); free(cref); free(pref);
}

/* One query per sequence (the [CLS] row): q_cls, ctx_cls [B][d], k, v
 * [B*T][d], P [B][H][T]. Same reference with the query in row 0 and the loss
 * on row 0 only. */
static void att_cls_case(int B, int T, int d, int H, const uint8_t *mask)
{
    size_t Rd = (size_t)B * T * d, Bd = (size_t)B * d, PT = (size_t)B * H * T;
    float *q = gc_alloc(Bd * 4), *k = gc_alloc(Rd * 4), *v = gc_alloc(Rd * 4), *ctx = gc_alloc(Bd * 4);
    float *P = gc_alloc(PT * 4), *dctx = gc_alloc(Bd * 4), *dq = gc_alloc(Bd * 4), *dk = gc_alloc(Rd * 4),
          *dv = gc_alloc(Rd * 4);
    gc_fill_normal_f(&rng, q, Bd, 0, 1.2);
    gc_fill_normal_f(&rng, k, Rd, 0, 1.2);
    gc_fill_normal_f(&rng, v, Rd, 0, 1);
    gc_fill_normal_f(&rng, dctx, Bd, 0, 1);
    gc_fill_f(&rng, ctx, Bd, -9, 9);
    gc_fill_f(&rng, P, PT, -9, 9);
    gc_fill_f(&rng, dq, Bd, -9, 9);
    gc_fill_f(&rng, dk, Rd, -9, 9);
    gc_fill_f(&rng, dv, Rd, -9, 9);
    be->attention_cls_fwd(q, k, v, mask, P, ctx, B, T, d, H);
    be->attention_cls_bwd(q, k, v, mask, P, dctx, dq, dk, dv, B, T, d, H);
    size_t td = (size_t)T * d;
    double *qd = gc_alloc(td * 8), *kd = gc_alloc(td * 8), *vd = gc_alloc(td * 8), *dcd = gc_alloc(td * 8);
    double *cr = gc_alloc(td * 8), *pr = gc_alloc((size_t)H * T * T * 8);
    double *gq = gc_alloc(d * 8), *gk = gc_alloc(td * 8), *gv = gc_alloc(td * 8), *pref = gc_alloc((size_t)H * T * 8);
    float *pg = gc_alloc((size_t)H * T * 4);
    char what[128];
    for (int b = 0; b < B; b++) {
        const uint8_t *mk = mask + (size_t)b * T;
        int any = 0;
        for (int t = 0; t < T; t++) any |= mk[t];
        gc_f2d(q + b * (size_t)d, qd, d); /* row 0 = the query; other rows unused */
        gc_f2d(k + b * td, kd, td);
        gc_f2d(v + b * td, vd, td);
        gc_f2d(dctx + b * (size_t)d, dcd, d);
        AttCtx a = {T, d, H, mk, qd, kd, vd, dcd, any ? 1 : 0, cr, pr};
        att_ref(&a);
        if (any) {
            snprintf(what, sizeof what, "attention_cls_fwd ctx b=%d T=%d d=%d H=%d", b, T, d, H);
            gc_check_close(what, ctx + b * (size_t)d, cr, d, 2e-6, 0);
            for (int h = 0; h < H; h++)
                for (int j = 0; j < T; j++) {
                    pg[h * T + j] = P[((size_t)b * H + h) * T + j];
                    pref[h * T + j] = pr[((size_t)h * T + 0) * T + j];
                }
            snprintf(what, sizeof what, "attention_cls_fwd P b=%d T=%d H=%d", b, T, H);
            gc_check_close(what, pg, pref, (size_t)H * T, 2e-6, 1.0);
        } else {
            int zero = 1;
            for (int c = 0; c < d; c++) zero &= ctx[b * (size_t)d + c] == 0.0f;
            CHECK(zero, "attention_cls_fwd b=%d: nothing attended, context not zero", b);
        }
        int masked0 = 1;
        for (int h = 0; h < H; h++)
            for (int j = 0; j < T; j++)
                if (!mk[j]) masked0 &= P[((size_t)b * H + h) * T + j] == 0.0f;
        CHECK(masked0, "attention_cls_fwd b=%d: masked keys have nonzero probability", b);
        for (int c = 0; c < d; c++) gq[c] = gc_fd1(att_loss, &a, &qd[c], 1e-6);
        for (size_t i = 0; i < td; i++) {
            gk[i] = gc_fd1(att_loss, &a, &kd[i], 1e-6);
            gv[i] = gc_fd1(att_loss, &a, &vd[i], 1e-6);
        }
        double fl = fmax(fmax(gc_maxabs_d(gq, d), gc_maxabs_d(gk, td)), gc_maxabs_d(gv, td));
        if (fl == 0) fl = 1;
        snprintf(what, sizeof what, "attention_cls_bwd dq b=%d T=%d d=%d H=%d", b, T, d, H);
        gc_check_close(what, dq + b * (size_t)d, gq, d, 1e-5, fl);
        snprintf(what, sizeof what, "attention_cls_bwd dk b=%d T=%d d=%d H=%d", b, T, d, H);
        gc_check_close(what, dk + b * td, gk, td, 1e-5, fl);
        snprintf(what, sizeof what, "attention_cls_bwd dv b=%d T=%d d=%d H=%d", b, T, d, H);
        gc_check_close(what, dv + b * td, gv, td, 1e-5, fl);
    }
    free(q); free(k); free(v); free(ctx); free(P); free(dctx); free(dq); free(dk); free(dv);
    free(qd); free(kd); free(vd); free(dcd); free(cr); free(pr); free(gq); free(gk); free(gv); free(pref); free(pg);
}

static void test_attention(void)
{
    enum { T = 7 };
    static const uint8_t m4[4 * T] = {
        1, 1, 1, 1, 1, 1, 1, /* full */
        1, 1, 0, 1, 1, 0, 0, /* a hole at 2, padding at the end: span 5 */
        1, 0, 0, 1, 0, 0, 0, /* holes, span 4 */
        0, 0, 0, 0, 0, 0, 0, /* nothing attended */
    };
    att_case(4, T, 6, 2, m4);
    att_case(4, T, 6, 3, m4);
    att_case(4, T, 6, 1, m4);
    static const uint8_t m1[2 * 9] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0};
    att_case(2, 9, 8, 4, m1); /* row 2 starts with a masked position */
    /* more (b, h) tasks than threads, longer sequences */
    int B = quick ? 3 : 6, TT = 12;
    uint8_t *mb = gc_alloc((size_t)B * TT);
    for (int b = 0; b < B; b++) {
        int len = 1 + (int)ee_rng_below(&rng, TT);
        for (int t = 0; t < TT; t++) mb[b * TT + t] = t < len && ee_rng_uniform(&rng) < 0.8;
        mb[b * TT] = 1;
    }
    att_case(B, TT, 8, 2, mb);
    /* the [CLS]-query variant used by the classifier's last layer */
    att_cls_case(4, T, 6, 2, m4);
    att_cls_case(4, T, 6, 3, m4);
    att_cls_case(2, 9, 8, 4, m1);
    att_cls_case(B, TT, 8, 2, mb);
    free(mb);
}

/* ---- embeddings ------------------------------------------------------------------------ */
static void embed_case(int B, int T, int d, int V, int with_pos)
{
    size_t R = (size_t)B * T;
    int32_t *ids = gc_alloc(R * 4);
    for (size_t r = 0; r < R; r++) {
        int t = (int)(r % T);
        ids[r] = t == 0 ? EE_CLS : (int32_t)ee_rng_below(&rng, (uint64_t)V);
        if (t >= T - 2) ids[r] = EE_PAD; /* padding at the end */
    }
    ids[1] = 7 % V;
    ids[2] = 7 % V; /* repeated id */
    float *Et = gc_alloc((size_t)V * d * 4), *Ep = gc_alloc((size_t)T * d * 4), *out = gc_alloc(R * d * 4);
    gc_fill_normal_f(&rng, Et, (size_t)V * d, 0, 1); /* the op must not rely on a zero PAD row */
    gc_fill_normal_f(&rng, Ep, (size_t)T * d, 0, 1);
    be->embed_fwd(ids, Et, with_pos ? Ep : NULL, out, B, T, d);
    int ok = 1;
    for (size_t r = 0; r < R; r++)
        for (int c = 0; c < d; c++) {
            double want = (double)Et[(size_t)ids[r] * d + c] + (with_pos ? (double)Ep[(r % T) * d + c] : 0.0);
            ok &= out[r * d + c] == (float)want;
        }
    CHECK(ok, "embed_fwd B=%d T=%d d=%d pos=%d", B, T, d, with_pos);

    float *dOut = gc_alloc(R * d * 4), *dEt = gc_alloc((size_t)V * d * 4), *dEp = gc_alloc((size_t)T * d * 4);
    double *rt = gc_alloc((size_t)V * d * 8), *rp = gc_alloc((size_t)T * d * 8);
    gc_fill_normal_f(&rng, dOut, R * d, 0, 1);
    gc_fill_f(&rng, dEt, (size_t)V * d, -1, 1);
    gc_fill_f(&rng, dEp, (size_t)T * d, -1, 1);
    gc_f2d(dEt, rt, (size_t)V * d);
    gc_f2d(dEp, rp, (size_t)T * d);
    for (size_t r = 0; r < R; r++)
        for (int c = 0; c < d; c++) {
            if (ids[r] != EE_PAD) rt[(size_t)ids[r] * d + c] += dOut[r * d + c];
            rp[(r % T) * d + c] += dOut[r * d + c];
        }
    float *pad0 = gc_alloc(d * 4);
    memcpy(pad0, dEt, d * 4);
    be->embed_bwd(ids, dOut, dEt, with_pos ? dEp : NULL, B, T, d);
    char what[96];
    /* serial float sums: bound (number of terms + 1) u relative to the scale */
    int maxcount = B;
    for (int id = 1; id < V; id++) {
        int cnt = 0;
        for (size_t r = 0; r < R; r++) cnt += ids[r] == id;
        if (cnt > maxcount) maxcount = cnt;
    }
    double cnt_bound = (maxcount + 1) * 6e-8;
    snprintf(what, sizeof what, "embed_bwd dE_tok (+=) B=%d T=%d", B, T);
    gc_check_close(what, dEt, rt, (size_t)V * d, cnt_bound, 1);
    gc_check_equal_f("embed_bwd: PAD row unchanged", dEt, pad0, d);
    if (with_pos) {
        snprintf(what, sizeof what, "embed_bwd dE_pos (+=) B=%d T=%d", B, T);
        gc_check_close(what, dEp, rp, (size_t)T * d, cnt_bound, 1);
    }
    /* dE_tok NULL: positions only */
    if (with_pos) be->embed_bwd(ids, dOut, NULL, dEp, B, T, d);
    free(ids); free(Et); free(Ep); free(out); free(dOut); free(dEt); free(dEp); free(rt); free(rp); free(pad0);
}

static void test_embed(void)
{
    embed_case(3, 6, 4, 9, 1);
    embed_case(3, 6, 4, 9, 0);
    embed_case(quick ? 30 : 60, 40, 40, 50, 1); /* B*T*d > 65536: OpenMP path */
}

/* ---- text-CNN convolution ---------------------------------------------------------------- */
typedef struct {
    int T, d, w, F;
    double *E, *W, *b;  /* [T][d], [(w*d)][F], [F] or NULL */
    const double *G;    /* dOut [T][F] */
    double *out;        /* [T][F] */
} ConvCtx;

static void conv_ref(ConvCtx *c)
{
    for (int t = 0; t < c->T; t++)
        for (int f = 0; f < c->F; f++) {
            double s = c->b ? c->b[f] : 0;
            for (int j = 0; j < c->w && t + j < c->T; j++)
                for (int k = 0; k < c->d; k++) s += c->E[(t + j) * c->d + k] * c->W[(j * c->d + k) * c->F + f];
            c->out[t * c->F + f] = s;
        }
}

static double conv_loss(void *p)
{
    ConvCtx *c = p;
    conv_ref(c);
    double s = 0;
    for (int i = 0; i < c->T * c->F; i++) s += c->G[i] * c->out[i];
    return s;
}

static void conv_case(int B, int T, int d, int w, int F, int bias, int grads)
{
    size_t nE = (size_t)B * T * d, nW = (size_t)w * d * F, nO = (size_t)B * T * F;
    float *E = gc_alloc(nE * 4), *W = gc_alloc(nW * 4), *b = gc_alloc(F * 4), *out = gc_alloc(nO * 4);
    float *G = gc_alloc(nO * 4), *dE = gc_alloc(nE * 4), *dW = gc_alloc(nW * 4), *db = gc_alloc(F * 4);
    gc_fill_normal_f(&rng, E, nE, 0, 1);
    gc_fill_normal_f(&rng, W, nW, 0, 0.5);
    gc_fill_normal_f(&rng, b, F, 0, 0.5);
    gc_fill_normal_f(&rng, G, nO, 0, 1);
    gc_fill_f(&rng, out, nO, -9, 9);
    gc_fill_f(&rng, dE, nE, -1, 1);
    gc_fill_f(&rng, dW, nW, -1, 1);
    gc_fill_f(&rng, db, F, -1, 1);
    double *rE = gc_alloc(nE * 8), *rW = gc_alloc(nW * 8), *rb = gc_alloc(F * 8);
    gc_f2d(dE, rE, nE);
    gc_f2d(dW, rW, nW);
    gc_f2d(db, rb, F);
    be->conv_fwd(E, W, bias ? b : NULL, out, B, T, d, w, F);
    be->conv_bwd(E, W, G, grads & 1 ? dE : NULL, grads & 2 ? dW : NULL, grads & 4 ? db : NULL, B, T, d, w, F);

    double *Ed = gc_alloc((size_t)T * d * 8), *Wd = gc_alloc(nW * 8), *bd = gc_alloc(F * 8);
    double *Gd = gc_alloc((size_t)T * F * 8), *od = gc_alloc(nO * 8);
    gc_f2d(W, Wd, nW);
    gc_f2d(b, bd, F);
    double *gWsum = gc_alloc(nW * 8), *gbsum = gc_alloc(F * 8);
    for (int s = 0; s < B; s++) {
        gc_f2d(E + (size_t)s * T * d, Ed, (size_t)T * d);
        gc_f2d(G + (size_t)s * T * F, Gd, (size_t)T * F);
        ConvCtx c = {T, d, w, F, Ed, Wd, bias ? bd : NULL, Gd, od + (size_t)s * T * F};
        conv_ref(&c);
        for (int i = 0; i < T * d; i++) rE[(size_t)s * T * d + i] += gc_fd1(conv_loss, &c, &Ed[i], 1e-3);
        for (size_t i = 0; i < nW; i++) gWsum[i] += gc_fd1(conv_loss, &c, &Wd[i], 1e-3);
        for (int f = 0; f < F; f++) gbsum[f] += gc_fd1(conv_loss, &c, &bd[f], 1e-3);
        c.out = od + (size_t)s * T * F; /* keep the forward of this sequence */
        conv_ref(&c);
    }
    char what[128];
    snprintf(what, sizeof what, "conv_fwd B=%d T=%d d=%d w=%d F=%d bias=%d", B, T, d, w, F, bias);
    gc_check_close(what, out, od, nO, 2e-6, 0);
    if (grads & 1) {
        snprintf(what, sizeof what, "conv_bwd dE (+=) T=%d w=%d F=%d bias=%d", T, w, F, bias);
        gc_check_close(what, dE, rE, nE, 1e-5, 0);
    }
    if (grads & 2) {
        for (size_t i = 0; i < nW; i++) rW[i] += gWsum[i];
        snprintf(what, sizeof what, "conv_bwd dW (+=) T=%d w=%d F=%d bias=%d", T, w, F, bias);
        gc_check_close(what, dW, rW, nW, 1e-5, 0);
    }
    if (grads & 4) {
        /* d/db of sum(G .* out) is the sum of G over sequences and positions:
         * differences with a bias in the forward, the same sum without one */
        if (bias) {
            for (int f = 0; f < F; f++) rb[f] += gbsum[f];
        } else {
            for (size_t i = 0; i < nO; i++) rb[i % F] += G[i];
        }
        snprintf(what, sizeof what, "conv_bwd db (+=) T=%d w=%d F=%d bias=%d", T, w, F, bias);
        gc_check_close(what, db, rb, F, 1e-5, 0);
    }
    free(E); free(W); free(b); free(out); free(G); free(dE); free(dW); free(db); free(rE); free(rW);
    free(rb); free(Ed); free(Wd); free(bd); free(Gd); free(od); free(gWsum); free(gbsum);
}

static void test_conv(void)
{
    int T = 6;
    for (int w = 1; w <= T; w++) conv_case(3, T, 4, w, 5, 1, 7);
    conv_case(3, T, 4, 3, 5, 0, 7);
    conv_case(3, T, 4, 2, 5, 0, 3); /* bias-free model: db NULL */
    conv_case(3, T, 4, 2, 5, 1, 6); /* need_de = 0: dE NULL */
    conv_case(3, T, 4, 2, 5, 1, 1); /* dW, db NULL (input gradient only) */
    conv_case(quick ? 4 : 9, 11, 5, 3, 7, 1, 7); /* more sequences than threads */
}

/* ---- max over time ------------------------------------------------------------------------ */
static void test_maxpool(void)
{
    enum { B = 3, T = 6, F = 5, LD = 2 * F + 1, OFF = F };
    static const uint8_t mask[B * T] = {
        1, 1, 1, 1, 0, 0,
        1, 0, 1, 1, 1, 1,
        1, 0, 0, 0, 0, 0,
    };
    float act[B * T * F];
    gc_fill_normal_f(&rng, act, B * T * F, 0, 1);
#define A(b, t, f) act[((b) * T + (t)) * F + (f)]
    for (int b = 0; b < B; b++) {
        /* filter 0: a tie of the maximum at the two lowest valid positions */
        int t1 = -1, t2 = -1;
        for (int t = 0; t < T; t++) if (mask[b * T + t]) { if (t1 < 0) t1 = t; else if (t2 < 0) t2 = t; }
        for (int t = 0; t < T; t++) A(b, t, 0) = -0.5f + 0.1f * t;
        A(b, t1, 0) = 2.5f;
        if (t2 >= 0) A(b, t2, 0) = 2.5f;
        /* filter 1: every value negative: pooled 0, no gradient */
        for (int t = 0; t < T; t++) A(b, t, 1) = -1.0f - 0.1f * t;
        /* filter 2: the largest value sits at a masked position */
        for (int t = 0; t < T; t++) A(b, t, 2) = mask[b * T + t] ? 0.3f * (t % 3) + 0.1f : 9.0f;
        /* filter 3: the maximum is exactly 0 (ReLU kink): pooled 0, no gradient */
        for (int t = 0; t < T; t++) A(b, t, 3) = mask[b * T + t] ? -0.25f * t : 5.0f;
        A(b, t1, 3) = 0.0f;
    }
    float pooled[B * LD];
    int32_t argmax[B * F];
    for (int i = 0; i < B * LD; i++) pooled[i] = 100.0f + i;
    be->maxpool_fwd(act, mask, pooled, argmax, B, T, F, LD, OFF);
    int ok = 1, other = 1;
    for (int b = 0; b < B; b++) {
        for (int f = 0; f < F; f++) {
            double best = -INFINITY;
            int bi = -1;
            for (int t = 0; t < T; t++)
                if (mask[b * T + t] && A(b, t, f) > best) { best = A(b, t, f); bi = t; }
            if (!(best > 0)) { best = 0; bi = -1; }
            ok &= pooled[b * LD + OFF + f] == (float)best && argmax[b * F + f] == bi;
            if (!(pooled[b * LD + OFF + f] == (float)best && argmax[b * F + f] == bi))
                fprintf(stderr, "  maxpool b=%d f=%d: got %g @%d, want %g @%d\n", b, f,
                        pooled[b * LD + OFF + f], argmax[b * F + f], best, bi);
        }
        for (int i = 0; i < LD; i++)
            if (i < OFF || i >= OFF + F) other &= pooled[b * LD + i] == 100.0f + b * LD + i;
    }
    CHECK(ok, "maxpool_fwd: value or argmax (masked ignored, ties lowest, max <= 0 -> 0 / -1)");
    CHECK(other, "maxpool_fwd wrote outside its column block");
    CHECK(argmax[0 * F + 0] == 0 && argmax[1 * F + 0] == 0 && argmax[2 * F + 0] == 0, "tie not to the lowest position");
    CHECK(argmax[0 * F + 1] == -1 && argmax[0 * F + 3] == -1, "max <= 0 must give argmax -1");

    float dP[B * LD], dA[B * T * F];
    gc_fill_normal_f(&rng, dP, B * LD, 0, 1);
    gc_fill_f(&rng, dA, B * T * F, -9, 9);
    be->maxpool_bwd(dP, argmax, dA, B, T, F, LD, OFF);
    ok = 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int f = 0; f < F; f++) {
                float want = argmax[b * F + f] == t ? dP[b * LD + OFF + f] : 0.0f;
                ok &= dA[(b * T + t) * F + f] == want;
            }
    CHECK(ok, "maxpool_bwd: gradient only at the argmax");

    /* tie-free random input: bwd = central differences of relu(max over valid t) */
    gc_fill_normal_f(&rng, act, B * T * F, 0.2, 1);
    be->maxpool_fwd(act, mask, pooled, argmax, B, T, F, LD, OFF);
    be->maxpool_bwd(dP, argmax, dA, B, T, F, LD, OFF);
    double ref[B * T * F];
    double h = 1e-7;
    for (int i = 0; i < B * T * F; i++) {
        int b = i / (T * F), f = i % F;
        double vals[2];
        for (int s = 0; s < 2; s++) {
            double best = 0; /* relu(max) = max(0, max_t a) */
            for (int t = 0; t < T; t++) {
                double a = act[(b * T + t) * F + f];
                if ((b * T + t) * F + f == i) a += s ? -h : h;
                if (mask[b * T + t]) best = fmax(best, a);
            }
            vals[s] = best;
        }
        ref[i] = dP[b * LD + OFF + f] * (vals[0] - vals[1]) / (2 * h);
    }
    gc_check_close("maxpool_bwd vs differences of relu(max)", dA, ref, B * T * F, 1e-6, 1);
#undef A
}

/* ---- losses -------------------------------------------------------------------------------- */
typedef struct {
    double *z;
    const int32_t *y;
    int n, C;
} XentCtx;

static double xent_d(void *p)
{
    XentCtx *c = p;
    double tot = 0;
    for (int i = 0; i < c->n; i++) {
        double mx = -INFINITY, s = 0;
        for (int k = 0; k < c->C; k++) mx = fmax(mx, c->z[i * c->C + k]);
        for (int k = 0; k < c->C; k++) s += exp(c->z[i * c->C + k] - mx);
        tot += mx + log(s) - c->z[i * c->C + c->y[i]];
    }
    return tot / c->n;
}

static void test_losses(void)
{
    enum { N = 6, C = 4 };
    float z[N * C], dz[N * C];
    int32_t y[N] = {0, 3, 1, 2, 2, 0};
    gc_fill_normal_f(&rng, z, N * C, 0, 3);
    z[4 * C + 0] = 80; /* large logits: no overflow */
    z[4 * C + 2] = 100;
    z[5 * C + 1] = -90;
    double zd[N * C], g[N * C];
    gc_f2d(z, zd, N * C);
    XentCtx xc = {zd, y, N, C};
    double L = xent_d(&xc);
    for (int i = 0; i < N * C; i++) g[i] = gc_fd1(xent_d, &xc, &zd[i], 1e-6);
    float loss = -1;
    be->softmax_xent(z, y, dz, &loss, N, C);
    double Ld[1] = {L};
    gc_check_close("softmax_xent loss", &loss, Ld, 1, 1e-6, 0);
    gc_check_close("softmax_xent dlogits vs differences", dz, g, N * C, 1e-6, 0);
    /* analytic: (softmax - onehot) / n, rows sum to 0 */
    double rowsum = 0;
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int k = 0; k < C; k++) s += dz[i * C + k];
        rowsum = fmax(rowsum, fabs(s));
    }
    CHECK(rowsum < 1e-7, "softmax_xent: gradient rows do not sum to 0 (%.3g)", rowsum);
    CHECK(gc_all_finite(dz, N * C), "softmax_xent: non-finite gradient");

    enum { R = 5, K = 7 };
    float p[R * K], t[R * K], dp[R * K];
    gc_fill_normal_f(&rng, p, R * K, 0, 1);
    gc_fill_normal_f(&rng, t, R * K, 0, 1);
    double ms = 0, gd[R * K];
    for (int i = 0; i < R * K; i++) {
        double r = (double)p[i] - t[i];
        ms += r * r;
        gd[i] = 2 * r / (R * K);
    }
    ms /= R * K;
    be->mse(p, t, dp, &loss, R, K);
    double msd[1] = {ms};
    gc_check_close("mse loss", &loss, msd, 1, 1e-6, 0);
    gc_check_close("mse dpred", dp, gd, R * K, 1e-6, 0);
    float loss2 = -1;
    be->mse(p, t, NULL, &loss2, R, K); /* no gradient wanted */
    CHECK(loss2 == loss, "mse without dpred: loss %g vs %g", loss2, loss);
}

/* ---- Adam ------------------------------------------------------------------------------------ */
#if defined(EE_HAVE_AVX2_OBJECT)
int ee_cpu_use_avx2(void);
void ee_softmax_rows_avx2(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_softmax_rows_ref_avx2(float *P, int ld, const uint8_t *mk, int rows, int S);
#endif

static void test_softmax_order(void)
{
#if defined(EE_HAVE_AVX2_OBJECT)
    if (!ee_cpu_use_avx2()) {
        SKIP("softmax rows (AVX2): this CPU has no AVX2 and FMA");
        return;
    }
    int cases = quick ? 300 : 3000, differ = 0;
    for (int it = 0; it < cases; it++) {
        int S = it % 50 == 0 ? 500 + (int)ee_rng_below(&rng, 800) : 1 + (int)ee_rng_below(&rng, 300);
        int ld = S + (int)ee_rng_below(&rng, 5), rows = 1 + (int)ee_rng_below(&rng, 3);
        int holes = it % 3 == 0;
        uint8_t *mk = malloc((size_t)S);
        float *a = malloc(sizeof(float) * ld * rows), *b = malloc(sizeof(float) * ld * rows);
        REQUIRE(mk && a && b, "out of memory");
        for (int j = 0; j < S; j++) mk[j] = holes ? ee_rng_below(&rng, 4) != 0 : 1;
        mk[S - 1] = 1;
        float sc = it % 4 == 0 ? 30.0f : 3.0f;
        for (int k = 0; k < ld * rows; k++) a[k] = b[k] = sc * (float)(ee_rng_uniform(&rng) - 0.5);
        ee_softmax_rows_avx2(a, ld, mk, rows, S);
        ee_softmax_rows_ref_avx2(b, ld, mk, rows, S);
#if defined(__clang__)
        /* the written-out order is GCC's for the macro; clang (the sanitizer
         * build) orders the macro's reduction and contracts its exponentials its
         * own way: the same values to rounding */
        for (int k = 0; k < ld * rows; k++)
            if (fabsf(a[k] - b[k]) > 64 * FLT_EPSILON * fmaxf(fabsf(b[k]), FLT_MIN)) {
                differ++;
                break;
            }
#else
        differ += memcmp(a, b, sizeof(float) * ld * rows) != 0;
#endif
        free(mk);
        free(a);
        free(b);
    }
    CHECK(differ == 0, "softmax rows (AVX2): %d of %d cases differ from the macro's %s", differ, cases,
#if defined(__clang__)
          "values (beyond 64 ulp)"
#else
          "bits"
#endif
    );
#else
    SKIP("softmax rows (AVX2): this build has no AVX2 object (not x86-64)");
#endif
}

/* The AVX-512 product tile against the AVX2 one: the same chains, so the
 * same bits, for every row count, partial strips (read in place with
 * masks), both strides of B and both starts (0 and C). */
#if defined(EE_HAVE_AVX2_OBJECT) && defined(__x86_64__) && defined(__GNUC__)
int ee_cpu_use_avx512(void);
void ee_gemm_tile_avx2(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                       const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);
void ee_gemm_tile_avx512(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);
#endif

static void test_gemm_tile512(void)
{
#if defined(EE_HAVE_AVX2_OBJECT) && defined(__x86_64__) && defined(__GNUC__)
    if (!ee_cpu_use_avx2() || !__builtin_cpu_supports("avx512f")) return;
    int cases = quick ? 200 : 2000, differ = 0;
    for (int it = 0; it < cases; it++) {
        int m = 1 + (int)ee_rng_below(&rng, 6), nc = 1 + (int)ee_rng_below(&rng, 64);
        int kc = 1 + (int)ee_rng_below(&rng, it % 10 ? 80 : 300), acc = it % 2, packed = it % 3 == 0;
        int ldb = packed ? 16 : nc + (int)ee_rng_below(&rng, 9), ldc = nc + (int)ee_rng_below(&rng, 5);
        int lda = kc + (int)ee_rng_below(&rng, 3), strips = (nc + 15) / 16;
        size_t nb = packed ? (size_t)strips * kc * 16 : (size_t)kc * ldb;
        float *A = malloc(sizeof(float) * m * lda), *B = malloc(sizeof(float) * nb);
        float *c1 = malloc(sizeof(float) * m * ldc), *c2 = malloc(sizeof(float) * m * ldc);
        if (!A || !B || !c1 || !c2) {
            CHECK(0, "out of memory");
            break;
        }
        gc_fill_normal_f(&rng, A, (size_t)m * lda, 0, 1);
        gc_fill_normal_f(&rng, B, nb, 0, 1);
        gc_fill_normal_f(&rng, c1, (size_t)m * ldc, 0, 1);
        memcpy(c2, c1, sizeof(float) * m * ldc);
        ptrdiff_t sstep = packed ? (ptrdiff_t)kc * 16 : 16;
        /* AVX2: one strip of 16 columns at a time, as the driver calls it */
        for (int s = 0; s < strips; s++) {
            int w = nc - s * 16 < 16 ? nc - s * 16 : 16;
            float strip[300 * 16];
            const float *b = B + s * sstep;
            if (!packed) { /* the AVX2 tile reads 16 lanes: give it a zero-padded copy */
                for (int p = 0; p < kc; p++)
                    for (int j = 0; j < 16; j++) strip[p * 16 + j] = j < w ? B[(size_t)p * ldb + s * 16 + j] : 0;
                b = strip;
            }
            ee_gemm_tile_avx2(m, w, kc, A, lda, 1, b, 16, c1 + s * 16, ldc, acc);
        }
        ee_gemm_tile_avx512(m, nc, kc, A, lda, 1, B, sstep, packed ? 16 : ldb, c2, ldc, acc);
        differ += memcmp(c1, c2, sizeof(float) * m * ldc) != 0;
        free(A); free(B); free(c1); free(c2);
    }
    CHECK(differ == 0, "gemm tile (AVX-512): %d of %d cases differ from the AVX2 tile's bits", differ, cases);
#endif
}

/* The AVX-512 GELU and softmax against the AVX2 ones, bit for bit: GELU on
 * a spread of all float patterns (every float was compared once, 2^32 of
 * them, when the loop was written), with every tail length; the softmax
 * on random rows as test_softmax_order draws them (up to 9 rows: the
 * AVX-512 rows go four at a time). */
#if defined(EE_HAVE_AVX2_OBJECT) && defined(__x86_64__) && defined(__GNUC__)
void ee_gelu_fwd_block_avx2(const float *X, float *Y, size_t n);
void ee_gelu_fwd_block_avx512(const float *X, float *Y, size_t n);
void ee_softmax_rows_avx512(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_maxpool_scan_avx512(const float *a, const uint8_t *mk, int T, int F, float *best, int32_t *bi);
#endif

static void test_avx512_loops(void)
{
#if defined(EE_HAVE_AVX2_OBJECT) && defined(__x86_64__) && defined(__GNUC__)
    if (!ee_cpu_use_avx512()) return;
    size_t blk = 1 << 16;
    float *x = malloc(sizeof(float) * blk), *a = malloc(sizeof(float) * blk), *b = malloc(sizeof(float) * blk);
    if (!x || !a || !b) {
        CHECK(0, "out of memory");
        free(x); free(a); free(b);
        return;
    }
    long differ = 0, n_all = 0;
    /* every step-th pattern: about 2^32 / 4099 = 1.05 M floats (quick: 1/8) */
    uint64_t step = quick ? 4099 * 8 + 2 : 4099, u = 0;
    for (int chunk = 0; u < (1ull << 32); chunk++) {
        size_t n = blk - (size_t)(chunk % 37);
        for (size_t i = 0; i < n; i++, u += step) {
            uint32_t bits = (uint32_t)u; /* the last block wraps around to small patterns */
            memcpy(x + i, &bits, sizeof bits);
        }
        ee_gelu_fwd_block_avx512(x, a, n);
        ee_gelu_fwd_block_avx2(x, b, n);
#if defined(__clang__)
        /* the sanitizer build (clang) may order a NaN's operands otherwise in
         * one of the two loops: the sign of a NaN result is not compared */
        for (size_t i = 0; i < n; i++)
            if (!(a[i] != a[i] && b[i] != b[i]) && memcmp(a + i, b + i, sizeof(float))) {
                differ++;
                break;
            }
#else
        differ += memcmp(a, b, sizeof(float) * n) != 0;
#endif
        n_all += (long)n;
    }
    CHECK(differ == 0, "GELU (AVX-512): %ld blocks of %ld floats differ from the AVX2 loop's bits", differ, n_all);
    free(x); free(a); free(b);
    int cases = quick ? 300 : 3000, sdiffer = 0;
    for (int it = 0; it < cases; it++) {
        int S = it % 50 == 0 ? 500 + (int)ee_rng_below(&rng, 800) : 1 + (int)ee_rng_below(&rng, 300);
        int ld = S + (int)ee_rng_below(&rng, 5), rows = 1 + (int)ee_rng_below(&rng, 9);
        uint8_t *mk = malloc((size_t)S);
        float *p = malloc(sizeof(float) * ld * rows), *q = malloc(sizeof(float) * ld * rows);
        if (!mk || !p || !q) {
            CHECK(0, "out of memory");
            free(mk); free(p); free(q);
            break;
        }
        for (int j = 0; j < S; j++) mk[j] = it % 3 ? 1 : ee_rng_below(&rng, 4) != 0;
        mk[S - 1] = 1;
        float sc = it % 4 == 0 ? 30.0f : 3.0f;
        for (int k = 0; k < ld * rows; k++) p[k] = q[k] = sc * (float)(ee_rng_uniform(&rng) - 0.5);
        ee_softmax_rows_avx512(p, ld, mk, rows, S);
        ee_softmax_rows_avx2(q, ld, mk, rows, S);
        sdiffer += memcmp(p, q, sizeof(float) * ld * rows) != 0;
        free(mk); free(p); free(q);
    }
    CHECK(sdiffer == 0, "softmax rows (AVX-512): %d of %d cases differ from the AVX2 rows' bits", sdiffer, cases);
    /* the max over time: value and first position per filter as the scalar
     * scan finds them, with masked positions, ties and NaN */
    int mdiffer = 0;
    for (int it = 0; it < (quick ? 100 : 1000); it++) {
        int T = 1 + (int)ee_rng_below(&rng, 70), F = 1 + (int)ee_rng_below(&rng, 150);
        float *a = malloc(sizeof(float) * T * F), *best = malloc(sizeof(float) * F);
        int32_t *bi = malloc(sizeof(int32_t) * F);
        uint8_t *mk = malloc((size_t)T);
        if (!a || !best || !bi || !mk) {
            CHECK(0, "out of memory");
            free(a); free(best); free(bi); free(mk);
            break;
        }
        for (int t = 0; t < T; t++) mk[t] = ee_rng_below(&rng, 5) != 0;
        for (int k = 0; k < T * F; k++) {
            uint64_t r = ee_rng_below(&rng, 20);
            a[k] = r == 0 ? NAN : r == 1 ? 0.5f : r == 2 ? -INFINITY : (float)ee_rng_normal(&rng);
        }
        ee_maxpool_scan_avx512(a, mk, T, F, best, bi);
        for (int f = 0; f < F; f++) {
            float b = -INFINITY;
            int32_t at = -1;
            for (int t = 0; t < T; t++)
                if (mk[t] && a[(size_t)t * F + f] > b) { b = a[(size_t)t * F + f]; at = t; }
            if (memcmp(&b, best + f, sizeof b) || at != bi[f]) { mdiffer++; break; }
        }
        free(a); free(best); free(bi); free(mk);
    }
    CHECK(mdiffer == 0, "max over time (AVX-512): %d cases differ from the scalar scan", mdiffer);
#endif
}

static void test_adam(void)
{
    size_t n = quick ? 70001 : 200001; /* OpenMP path */
    float *w = gc_alloc(n * 4), *g = gc_alloc(n * 4), *m = gc_alloc(n * 4), *v = gc_alloc(n * 4);
    double *wr = gc_alloc(n * 8), *mr = gc_alloc(n * 8), *vr = gc_alloc(n * 8), *scale = gc_alloc(n * 8);
    gc_fill_normal_f(&rng, w, n, 0, 1);
    gc_f2d(w, wr, n);
    /* the op receives float hyper-parameters: the reference uses the same values */
    const double lr = (float)0.01, b1 = (float)0.9, b2 = (float)0.999, eps = (float)1e-8;
    int steps = 6;
    for (int t = 1; t <= steps; t++) {
        gc_fill_normal_f(&rng, g, n, 0, 1);
        for (size_t i = 0; i < n; i += 5) g[i] *= 1e-9f; /* |g| ~ eps: where eps matters */
        for (size_t i = 3; i < n; i += 101) g[i] = 0.0f;
        be->adam(w, g, m, v, n, (float)lr, (float)b1, (float)b2, (float)eps, t);
        for (size_t i = 0; i < n; i++) {
            mr[i] = b1 * mr[i] + (1 - b1) * g[i];
            scale[i] = b1 * scale[i] + (1 - b1) * fabs(g[i]); /* m without cancellation */
            vr[i] = b2 * vr[i] + (1 - b2) * (double)g[i] * g[i];
            double mh = mr[i] / (1 - pow(b1, t)), vh = vr[i] / (1 - pow(b2, t));
            wr[i] -= lr * mh / (sqrt(vh) + eps);
        }
    }
    /* w: float rounding of w itself (u |w| per step) plus a relative error of
     * the steps (each at most lr in size) */
    CheckCmp ww = CMP_INIT, wm = CMP_INIT, wv = CMP_INIT;
    for (size_t i = 0; i < n; i++) {
        cmp_add_scaled(&ww, w[i], wr[i], steps * (6e-8 * (fabs(wr[i]) + lr) + 1e-5 * lr));
        cmp_add_scaled(&wm, m[i], mr[i], 1e-6 * scale[i] + 1e-30);
        cmp_add_scaled(&wv, v[i], vr[i], 1e-6 * (fabs(vr[i]) + 1e-30));
    }
    CHECK_CMP(ww, 1, "adam w: err %.3g x bound", ww.err);
    CHECK_CMP(wm, 1, "adam m: relative error %.3g x 1e-6", wm.err);
    CHECK_CMP(wv, 1, "adam v: relative error %.3g x 1e-6", wv.err);
    free(w); free(g); free(m); free(v); free(wr); free(mr); free(vr); free(scale);
}

/* ---- dropout ------------------------------------------------------------------------------- */
static void test_dropout(void)
{
    size_t n = quick ? 100003 : 400003;
    const float p = 0.3f;
    const uint64_t seed = 0xD00DULL;
    float *X = gc_alloc(n * 4), *X1 = gc_alloc(n * 4), *X2 = gc_alloc(n * 4), *X3 = gc_alloc(n * 4);
    uint8_t *k1 = gc_alloc(n), *k2 = gc_alloc(n), *k3 = gc_alloc(n), *ks = gc_alloc(1000);
    gc_fill_f(&rng, X, n, 0.5, 2);
    for (size_t i = 1; i < n; i += 2) X[i] = -X[i];
    memcpy(X1, X, n * 4);
    memcpy(X2, X, n * 4);
    memcpy(X3, X, n * 4);
    be->dropout_fwd(X1, k1, n, p, seed);
    be->dropout_fwd(X2, k2, n, p, seed);
    be->dropout_fwd(X3, k3, n, p, seed + 1);
    CHECK(memcmp(k1, k2, n) == 0 && memcmp(X1, X2, n * 4) == 0, "dropout: same seed, different mask");
    size_t kept = 0, differ = 0, hash_bad = 0, val_bad = 0;
    uint32_t thr = (uint32_t)((1.0 - p) * 16777216.0);
    double sc = 1.0 / (1.0 - (double)p);
    for (size_t i = 0; i < n; i++) {
        kept += k1[i] != 0;
        differ += (k1[i] != 0) != (k3[i] != 0);
        /* the documented cross-backend mask: hash64(seed ^ i) >> 40 < (1 - p) 2^24 */
        int want = (uint32_t)(ee_hash64(seed ^ (uint64_t)i) >> 40) < thr;
        hash_bad += (k1[i] != 0) != want || k1[i] > 1;
        double v = k1[i] ? X[i] * sc : 0.0;
        val_bad += fabs(X1[i] - v) > 2.5e-7 * fabs(v);
    }
    double rate = (double)kept / n, sd = sqrt(p * (1 - p) / n);
    CHECK(fabs(rate - (1 - p)) < 5 * sd, "dropout keep rate %.5f, expected %.2f", rate, 1 - p);
    double dfrac = (double)differ / n, dexp = 2 * p * (1 - p);
    CHECK(fabs(dfrac - dexp) < 5 * sqrt(dexp * (1 - dexp) / n), "dropout seeds s, s+1: %.4f of the mask differs (expected %.2f)",
          dfrac, dexp);
    CHECK(hash_bad == 0, "dropout: %zu mask entries differ from the documented hash", hash_bad);
    CHECK(val_bad == 0, "dropout: %zu values not x/(1-p) or 0", val_bad);
    /* the mask of element i does not depend on n (nor on the thread split) */
    float small[1000];
    memcpy(small, X, sizeof small);
    be->dropout_fwd(small, ks, 1000, p, seed);
    CHECK(memcmp(ks, k1, 1000) == 0, "dropout mask depends on n");
    /* backward */
    float *dX = gc_alloc(n * 4);
    gc_fill_normal_f(&rng, dX, n, 0, 1);
    memcpy(X2, dX, n * 4);
    be->dropout_bwd(dX, k1, n, p);
    size_t bwd_bad = 0;
    for (size_t i = 0; i < n; i++) {
        double v = k1[i] ? X2[i] * sc : 0.0;
        bwd_bad += fabs(dX[i] - v) > 2.5e-7 * fabs(v);
    }
    CHECK(bwd_bad == 0, "dropout_bwd: %zu wrong", bwd_bad);
    /* p = 0: nothing happens, keep may be NULL */
    memcpy(X2, X, n * 4);
    be->dropout_fwd(X2, NULL, n, 0.0f, seed);
    be->dropout_bwd(X2, NULL, n, 0.0f);
    gc_check_equal_f("dropout p = 0 is the identity", X2, X, n);
    free(X); free(X1); free(X2); free(X3); free(k1); free(k2); free(k3); free(ks); free(dX);
}

/* conv_pool_bwd equals maxpool_bwd followed by conv_bwd (the dense path,
 * itself checked against double precision above), including ties, masked
 * positions, all-negative filters (argmax -1) and windows at the end. */
static void test_conv_pool(void)
{
    int B = 3, T = 9, d = 5, F = 7, K = 2, widths[2] = {2, 4}, ld = K * F;
    float *E = gc_alloc(sizeof(float) * B * T * d), *pooled = gc_alloc(sizeof(float) * B * ld);
    float *dP = gc_alloc(sizeof(float) * B * ld);
    uint8_t mask[27];
    for (int i = 0; i < B * T; i++) mask[i] = (i % T) < T - (i / T) * 2; /* padding at the end */
    gc_fill_f(&rng, E, (size_t)B * T * d, -1, 1);
    gc_fill_f(&rng, dP, (size_t)B * ld, -1, 1);
    for (int k = 0; k < K; k++) {
        int w = widths[k];
        size_t wsz = (size_t)w * d * F;
        float *W = gc_alloc(sizeof(float) * wsz), *bias = gc_alloc(sizeof(float) * F);
        float *out = gc_alloc(sizeof(float) * B * T * F), *dact = gc_alloc(sizeof(float) * B * T * F);
        int32_t *arg = gc_alloc(sizeof(int32_t) * B * F);
        gc_fill_f(&rng, W, wsz, -1, 1);
        gc_fill_f(&rng, bias, F, -1, 1);
        bias[0] = -50; /* all-negative filter: no gradient */
        be->conv_fwd(E, W, bias, out, B, T, d, w, F);
        out[2 * F + 1] = out[5 * F + 1] = 9; /* a tie: the lowest position wins */
        be->maxpool_fwd(out, mask, pooled, arg, B, T, F, ld, k * F);
        float *dE1 = gc_alloc(sizeof(float) * B * T * d), *dE2 = gc_alloc(sizeof(float) * B * T * d);
        float *dW1 = gc_alloc(sizeof(float) * wsz), *dW2 = gc_alloc(sizeof(float) * wsz);
        float *db1 = gc_alloc(sizeof(float) * F), *db2 = gc_alloc(sizeof(float) * F);
        be->maxpool_bwd(dP, arg, dact, B, T, F, ld, k * F);
        be->conv_bwd(E, W, dact, dE1, dW1, db1, B, T, d, w, F);
        be->conv_pool_bwd(E, W, dP, arg, dE2, dW2, db2, B, T, d, w, F, ld, k * F);
        CheckCmp e1 = CMP_INIT, e2 = CMP_INIT, e3 = CMP_INIT;
        cmp_add_ff(&e1, dE2, dE1, (size_t)B * T * d);
        cmp_add_ff(&e2, dW2, dW1, wsz);
        cmp_add_ff(&e3, db2, db1, (size_t)F);
        CHECK_CMP(e1, cmp_bound(&e1, 1e-6, 1), "conv_pool_bwd width %d vs dense: dE %.3g", w, e1.err);
        CHECK_CMP(e2, cmp_bound(&e2, 1e-6, 1), "conv_pool_bwd width %d vs dense: dW %.3g", w, e2.err);
        CHECK_CMP(e3, 1e-6, "conv_pool_bwd width %d vs dense: db %.3g", w, e3.err);
        CHECK(db2[0] == 0 && arg[0] == -1, "an all-negative filter passes no gradient");
        free(W); free(bias); free(out); free(dact); free(arg);
        free(dE1); free(dE2); free(dW1); free(dW2); free(db1); free(db2);
    }
    free(E); free(pooled); free(dP);
}

int main(void)
{
    ee_threads_enter();
    quick = gc_quick();
    be = ee_backend_cpu();
    ee_rng_seed(&rng, 20240611);
    CHECK(be && be->device == EE_DEVICE_CPU, "no CPU backend");
    double t0 = ee_now();
    struct { const char *name; void (*fn)(void); } tests[] = {
        {"memory", test_memory}, {"gemm", test_gemm}, {"gemm A^T bits", test_gemm_transposed_bits},
        {"vector ops", test_vector_ops},
        {"layernorm", test_layernorm}, {"activations", test_activations}, {"attention", test_attention},
        {"embed", test_embed}, {"conv", test_conv}, {"maxpool", test_maxpool},
        {"conv+pool bwd", test_conv_pool}, {"losses", test_losses}, {"softmax order", test_softmax_order},
        {"gemm tile avx512", test_gemm_tile512},
        {"avx512 loops", test_avx512_loops},
        {"adam", test_adam}, {"dropout", test_dropout},
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        double t = ee_now();
        int f0 = check_failed;
        tests[i].fn();
        printf("  %-12s %s  %.2f s\n", tests[i].name, check_failed == f0 ? "ok  " : "FAIL", ee_now() - t);
    }
    printf("test_ops: %.2f s on %d threads%s\n", ee_now() - t0, max_threads(), quick ? " (quick)" : "");
    ee_threads_leave();
    return check_finish("test_ops");
}
