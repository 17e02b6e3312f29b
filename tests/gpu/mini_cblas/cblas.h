/* cblas.h: the part of CBLAS/OpenBLAS that libcore uses, for building the
 * GPU check on a machine without libopenblas-dev (tests/gpu/check.sh).
 * The implementation (mini_cblas.c) is a plain, correct, moderately fast
 * SGEMM: CPU timings made with it are not OpenBLAS timings. */
#ifndef EE_MINI_CBLAS_H
#define EE_MINI_CBLAS_H

#ifdef __cplusplus
extern "C" {
#endif

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_LAYOUT;

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M,
                 int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                 float beta, float *C, int ldc);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int n);
char *openblas_get_config(void);

#ifdef __cplusplus
}
#endif
#endif
