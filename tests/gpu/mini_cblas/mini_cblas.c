/* mini_cblas.c: cblas_sgemm without OpenBLAS (see cblas.h). Row-major
 * C = alpha op(A) op(B) + beta C; column-major calls are mapped to the
 * row-major transpose. Operands are repacked untransposed, then an i-p-j
 * loop (vectorisable inner loop over j). Thread-safe (no state). */
#include "cblas.h"

#include <stdlib.h>
#include <string.h>

static void sgemm_rm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc)
{
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        if (beta == 0.0f) memset(c, 0, sizeof(float) * N);
        else if (beta != 1.0f)
            for (int j = 0; j < N; j++) c[j] *= beta;
    }
    if (K <= 0 || alpha == 0.0f) return;
    /* packed, untransposed copies: a (M x K), b (K x N) */
    float *a = malloc(sizeof(float) * (size_t)M * K), *b = malloc(sizeof(float) * (size_t)K * N);
    if (!a || !b) abort();
    for (int i = 0; i < M; i++)
        for (int p = 0; p < K; p++) a[(size_t)i * K + p] = ta ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
    for (int p = 0; p < K; p++)
        for (int j = 0; j < N; j++) b[(size_t)p * N + j] = tb ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        const float *ai = a + (size_t)i * K;
        for (int p = 0; p < K; p++) {
            const float s = alpha * ai[p];
            const float *bp = b + (size_t)p * N;
            for (int j = 0; j < N; j++) c[j] += s * bp[j];
        }
    }
    free(a);
    free(b);
}

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M,
                 int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                 float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0) return;
    int tA = ta != CblasNoTrans, tB = tb != CblasNoTrans;
    if (order == CblasRowMajor) sgemm_rm(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else /* column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T */
        sgemm_rm(tB, tA, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
}

static int mini_threads = 1;
int openblas_get_num_threads(void) { return mini_threads; }
void openblas_set_num_threads(int n) { mini_threads = n > 0 ? n : 1; }
char *openblas_get_config(void) { return (char *)"mini_cblas (tests/gpu, not OpenBLAS)"; }
