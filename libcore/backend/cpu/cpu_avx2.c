/* cpu_avx2.c: the loops of cpu_math.h (GELU, softmax, LayerNorm) and the
 * matrix-product micro-kernel of cpu_gemm.h compiled for AVX2 + FMA (this
 * file alone gets -mavx2 -mfma); the backend calls them only when the
 * processor reports both. */
#include "cpu_gemm.h"
#include "cpu_math.h"

#include <immintrin.h>

EE_GELU_LOOPS(_avx2)
EE_SOFTMAX_ROWS(_avx2)
EE_LN_ROWS(_avx2)

/* one rounding per multiply-add, the same instruction on every path */
#define EE_FMA_AVX2(a, b, c) ((ee_v8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
EE_GEMM_TILE(_avx2, EE_FMA_AVX2)
EE_GEMM_TILE8(_avx2, EE_FMA_AVX2)
