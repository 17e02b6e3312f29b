#!/bin/bash
# tests/gpu/emu/run.sh: runs tests/c/test_gpu against a CPU emulation of
# the CUDA backend (no GPU needed). The backend's .cu files are compiled by
# g++ after turning `kernel<<<grid, block, smem, stream>>>(args)` into a
# call of the emulator (emu.cpp, inc/); the rest of libcore and the test
# are compiled as usual (no .mat I/O). It checks the backend's logic
# (indexing, warp-level reductions, span and mask rules, cuBLAS argument
# mapping, out-of-bounds accesses, host/device pointer mix-ups) against the
# CPU backend; it cannot check speed, races or the real cuBLAS/CUDA. cuDNN
# is emulated too (emu_cudnn.cpp): the backend's cuDNN path runs. Then
# bench/bench_gpu tiny runs on the emulation (it checks that program).
# Takes a few minutes (every warp shuffle is a fiber switch).
set -eu
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
E=$ROOT/tests/gpu/emu
B=${TMPDIR:-/tmp}/ee-cuda-emu
rm -rf "$B"
mkdir -p "$B"
for f in libcore/backend/cuda/*.cu; do
    sed 's/\([A-Za-z_][A-Za-z0-9_]*\)<<<\(.*\)>>>(/emu_launch(\1, emu_cfg(\2), /' "$f" \
        > "$B/$(basename "$f" .cu)_emu.cpp"
done
if printf '#include <cblas.h>\nint main(void){return 0;}\n' | gcc -x c - -o /dev/null -lopenblas 2>/dev/null; then
    BLAS_INC= BLAS_SRC= BLAS_LIB=-lopenblas
else
    BLAS_INC=-I$ROOT/tests/gpu/mini_cblas BLAS_SRC=$ROOT/tests/gpu/mini_cblas/mini_cblas.c BLAS_LIB=
fi
CXXF="-std=c++17 -O1 -g -Wall -I$E/inc -I$ROOT/libcore/backend/cuda -I$ROOT/libcore -DEE_HAVE_CUDA=1 -DEE_HAVE_CUDNN=1"
for f in "$B"/*_emu.cpp; do
    g++ $CXXF -c "$f" -o "${f%.cpp}.o" &
done
g++ $CXXF -c "$E/emu.cpp" -o "$B/emu_runtime.o" &
g++ $CXXF -c "$E/emu_cudnn.cpp" -o "$B/emu_cudnn.o" &
OBJ=""
# the AVX2 build of the CPU math loops, as configure does on x86-64
AVX2=""
if [ "$(uname -m)" = x86_64 ]; then AVX2=-DEE_HAVE_AVX2_OBJECT=1; fi
for c in $(find libcore -name '*.c' \( ! -path 'libcore/io/*' -o -name fingerprint.c \) | sort) tests/c/test_gpu.c bench/bench_gpu.c $BLAS_SRC; do
    o=$B/$(echo "${c#$ROOT/}" | tr '/' '_' | sed 's/\.c$/.o/')
    extra=""
    case "$c" in *cpu_avx2.c) extra="-mavx2 -mfma" ;; esac
    gcc -std=gnu11 -O2 -g -fopenmp -Wall -Wno-unused-parameter -I$ROOT/libcore -I$ROOT/tests/c \
        $BLAS_INC -DEE_HAVE_CUDA=1 $AVX2 $extra -c "$c" -o "$o" &
    case "$c" in *test_gpu.c|*bench_gpu.c) ;; *) OBJ="$OBJ $o" ;; esac
done
wait
EMU_OBJ="$B/*_emu.o $B/emu_runtime.o $B/emu_cudnn.o"
g++ -fopenmp -o "$B/test_gpu_emu" $OBJ $B/tests_c_test_gpu.o $EMU_OBJ $BLAS_LIB -lm
g++ -fopenmp -o "$B/bench_gpu_emu" $OBJ $B/bench_bench_gpu.o $EMU_OBJ $BLAS_LIB -lm
echo "built $B/test_gpu_emu and $B/bench_gpu_emu"
# Under the emulation a GPU is always there: test_gpu's "no GPU" (77, e.g.
# an op of backend.h that the CUDA backend lacks) is a failure here.
rc=0
EE_TEST_GPU_NO_TIMING=1 EE_TEST_GPU_EMULATED=1 "$B/test_gpu_emu" || rc=$?
if [ $rc -eq 77 ]; then
    echo "FAIL: the emulated CUDA backend offered no GPU (see the line above)"
    exit 1
fi
[ $rc -eq 0 ] || exit $rc
"$B/bench_gpu_emu" tiny
