/* cpu_avx2.c: the GELU, softmax and LayerNorm loops of cpu_math.h compiled for AVX2 + FMA (this
 * file alone gets -mavx2 -mfma); cpu_ops.c calls them only when the
 * processor reports both. */
#include "cpu_math.h"

EE_GELU_LOOPS(_avx2)
EE_SOFTMAX_ROWS(_avx2)
EE_LN_ROWS(_avx2)
