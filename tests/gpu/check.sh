#!/bin/bash
# tests/gpu/check.sh: build libcore with its CUDA backend and run
# tests/c/test_gpu on a machine with an NVIDIA GPU, printing everything.
#
#   tests/gpu/check.sh            (from anywhere; works on a fresh copy)
#
# Path A (all prerequisites present): autoreconf -fi && ./configure
#   --with-cuda=yes [--with-cudnn=DIR] && make -j16 && make tests/c/test_gpu
#   && run it.
# Path B (autotools or matio missing; configure needs both, the CUDA
#   backend needs neither): nvcc + gcc directly on the sources test_gpu
#   needs, with OpenBLAS if present, else with the plain SGEMM of
#   tests/gpu/mini_cblas (its CPU timings are then not OpenBLAS's).
# cuDNN 9 is looked for under CUDA_HOME, then in the nvidia-cudnn Python
# package (EE_CUDNN_DIR overrides both); both paths build with it when found.
# After the tests: bench/bench_gpu (the GPU table: IG, SV, training,
# explainer at every precision; EE_BENCH_GPU=small|tiny|none picks less),
# the cnn again without cuDNN and the small models without the fused
# attention kernel (for the comparison), and with EE_CHECK_OPTIME=MODE the
# device time per op of `bench_gpu MODE`.
# Nothing is installed (no network). The test runs under a time limit.
# Environment: CUDA_HOME (default /usr/local/cuda), EE_CUDA_ARCH (nvcc
# -gencode flags; default: the GPU's own compute capability), EE_CHECK_PATH
# (A or B to force a path), EE_MINI_CBLAS=1 (path B with mini_cblas even
# where OpenBLAS exists), EE_TEST_TIMEOUT (seconds, default 420).
# Exit status: test_gpu's (0 pass, 1 fail, 77 no GPU seen), or 2 when the
# build could not be made.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
T0=$(date +%s)
JOBS=${JOBS:-16}
section() { echo; echo "=== $* [$(($(date +%s) - T0)) s]"; }

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA_HOME/bin:$PATH"

section "environment"
uname -srm
grep -E '^(PRETTY_NAME)=' /etc/os-release 2>/dev/null
echo "cores: $(nproc)"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
else
    echo "nvidia-smi: not found"
fi
command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -2
gcc --version 2>/dev/null | head -1

# nvcc target: the GPU's compute capability (e.g. 9.0 -> sm_90), unless given
if [ -z "${EE_CUDA_ARCH:-}" ]; then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
    case "$cc" in
    [0-9][0-9]|[0-9][0-9][0-9]) EE_CUDA_ARCH="-gencode arch=compute_$cc,code=sm_$cc" ;;
    *) EE_CUDA_ARCH="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90" ;;
    esac
fi
echo "nvcc targets: $EE_CUDA_ARCH"

section "prerequisites"
missing_cfg=() # what configure needs beyond the CUDA backend itself
fatal=()
probe_c() { # probe_c 'code' flags...: compiles and links a C snippet
    local code=$1
    shift
    printf '%s\n' "$code" | gcc -x c - -o /tmp/ee_probe.$$ "$@" >/dev/null 2>&1
    local rc=$?
    rm -f /tmp/ee_probe.$$
    return $rc
}
say() { printf '  %-46s %s\n' "$1" "$2"; }

if command -v nvcc >/dev/null 2>&1; then say "nvcc" "ok"; else say "nvcc" "MISSING"; fatal+=("nvcc (CUDA toolkit under $CUDA_HOME)"); fi
for h in cuda_runtime.h cublas_v2.h; do
    if [ -f "$CUDA_HOME/include/$h" ]; then say "$h" "ok"; else say "$h" "MISSING"; fatal+=("$h"); fi
done
for l in cudart cublas; do
    if ls "$CUDA_HOME"/lib64/lib$l.so* >/dev/null 2>&1; then say "lib$l" "ok"; else say "lib$l" "MISSING"; fatal+=("lib$l in $CUDA_HOME/lib64"); fi
done
if probe_c 'int main(void){return 0;}' -fopenmp; then say "gcc -fopenmp" "ok"; else say "gcc -fopenmp" "MISSING"; fatal+=("gcc with OpenMP"); fi

have_openblas=0
if probe_c '#include <cblas.h>
int main(void){float a=1,b=1,c=0;cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasNoTrans,1,1,1,1.0f,&a,1,&b,1,0.0f,&c,1);openblas_set_num_threads(1);return (int)c-1;}' -lopenblas; then
    have_openblas=1
    say "OpenBLAS (libopenblas-dev)" "ok"
else
    say "OpenBLAS (libopenblas-dev)" "MISSING"
    missing_cfg+=("libopenblas-dev")
fi
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists 'matio >= 1.5'; then
    say "matio (libmatio-dev)" "ok"
else
    say "matio (libmatio-dev)" "MISSING"
    missing_cfg+=("libmatio-dev")
fi
# cuDNN: DIR with include/cudnn.h and lib64/ or lib/ holding libcudnn.so*
CUDNN_DIR=${EE_CUDNN_DIR:-}
CUDNN_LIBDIR=""
cudnn_in() { # cudnn_in DIR: sets CUDNN_LIBDIR when DIR holds cuDNN
    local l
    [ -f "$1/include/cudnn.h" ] || return 1
    for l in "$1/lib64" "$1/lib"; do
        if ls "$l"/libcudnn.so* >/dev/null 2>&1; then CUDNN_LIBDIR=$l; return 0; fi
    done
    return 1
}
if [ -n "$CUDNN_DIR" ]; then
    cudnn_in "$CUDNN_DIR" || CUDNN_DIR=""
elif cudnn_in "$CUDA_HOME"; then
    CUDNN_DIR=$CUDA_HOME
else
    d=$(python3 -c "import nvidia.cudnn as m; print(list(m.__path__)[0])" 2>/dev/null)
    if [ -n "$d" ] && cudnn_in "$d"; then CUDNN_DIR=$d; fi
fi
if [ -n "$CUDNN_DIR" ]; then
    say "cuDNN" "ok ($CUDNN_DIR, $(ls "$CUDNN_LIBDIR"/libcudnn.so* | head -1 | xargs basename))"
    # cuDNN 9 loads its sub-libraries (cnn, ops, engines) from its folder
    export LD_LIBRARY_PATH="$CUDNN_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    say "cuDNN (under $CUDA_HOME or python3's nvidia.cudnn)" "MISSING: the backend's own kernels only"
fi
for t in autoreconf aclocal automake pkg-config; do
    if command -v $t >/dev/null 2>&1; then say "$t" "ok"; else say "$t" "MISSING"; missing_cfg+=("$t (autotools)"); fi
done
if command -v aclocal >/dev/null 2>&1 && ! ls "$(aclocal --print-ac-dir 2>/dev/null)"/pkg.m4 >/dev/null 2>&1; then
    say "pkg.m4 (pkg-config's autoconf macros)" "MISSING"
    missing_cfg+=("pkg.m4 (pkg-config)")
fi

if [ ${#fatal[@]} -gt 0 ]; then
    echo
    echo "CANNOT BUILD the CUDA backend here; missing: ${fatal[*]}"
    exit 2
fi

path=${EE_CHECK_PATH:-}
if [ -z "$path" ]; then
    if [ ${#missing_cfg[@]} -eq 0 ]; then path=A; else path=B; fi
fi
if [ ${#missing_cfg[@]} -gt 0 ]; then
    echo
    echo "NOTE: missing for ./configure: ${missing_cfg[*]}"
    echo "      -> building test_gpu directly with nvcc and gcc (path B)."
fi

TEST=""
BENCH=""
BENCH_GPU=""
if [ "$path" = A ]; then
    section "path A: autoreconf -fi && ./configure --with-cuda=yes && make -j$JOBS"
    if autoreconf -fi && ./configure --with-cuda=yes ${CUDNN_DIR:+--with-cudnn="$CUDNN_DIR"} CUDA_ARCH="$EE_CUDA_ARCH" &&
        make -j"$JOBS" && make tests/c/test_gpu; then
        TEST=./tests/c/test_gpu
        BENCH=./bench/bench_models
        make bench/bench_gpu && BENCH_GPU=./bench/bench_gpu
    else
        echo "path A failed; trying path B"
        path=B
    fi
fi

if [ "$path" = B ]; then
    B=${TMPDIR:-/tmp}/ee-gpucheck-build
    section "path B: direct build in $B"
    rm -rf "$B"
    mkdir -p "$B/obj"
    if [ $have_openblas = 1 ] && [ -z "${EE_MINI_CBLAS:-}" ]; then
        BLAS_INC=""
        BLAS_SRC=""
        BLAS_LIB="-lopenblas"
        echo "BLAS: system OpenBLAS"
    else
        BLAS_INC="-I$ROOT/tests/gpu/mini_cblas"
        BLAS_SRC="$ROOT/tests/gpu/mini_cblas/mini_cblas.c"
        BLAS_LIB=""
        echo "BLAS: tests/gpu/mini_cblas (no OpenBLAS here: CPU timings are NOT OpenBLAS timings)"
    fi
    CFLAGS="-std=gnu11 -O2 -fPIC -fno-trapping-math -Wall -Wno-unused-parameter -fopenmp -I$ROOT/libcore $BLAS_INC -DEE_HAVE_CUDA=1"
    # the AVX2 build of the CPU math loops, as configure does on x86-64
    if [ "$(uname -m)" = x86_64 ]; then CFLAGS="$CFLAGS -DEE_HAVE_AVX2_OBJECT=1"; fi
    NVFLAGS="-O2 -std=c++17 $EE_CUDA_ARCH -Xcompiler -fPIC,-Wall -Werror all-warnings -I$ROOT/libcore -DEE_HAVE_CUDA=1"
    CUDNN_LIB=""
    if [ -n "$CUDNN_DIR" ]; then
        NVFLAGS="$NVFLAGS -I$CUDNN_DIR/include -DEE_HAVE_CUDNN=1"
        if [ -e "$CUDNN_LIBDIR/libcudnn.so" ]; then l=-lcudnn; else l=-l:libcudnn.so.9; fi
        CUDNN_LIB="-L$CUDNN_LIBDIR -Wl,-rpath,$CUDNN_LIBDIR $l"
        echo "cuDNN: $CUDNN_DIR ($CUDNN_LIB)"
    fi
    ok=1
    for cu in libcore/backend/cuda/*.cu; do
        echo "  NVCC $cu"
        nvcc $NVFLAGS -c "$cu" -o "$B/obj/$(basename "$cu" .cu)_cu.o" &
    done
    # every libcore C source but the .mat I/O (matio; io/fingerprint.c
    # needs none, and explainer/ keys its kept baselines by it); a source
    # that does not compile is reported, and the link shows whether it was
    # needed
    srcs=$(find libcore -name '*.c' \( ! -path 'libcore/io/*' -o -name fingerprint.c \) | sort)
    for c in $srcs $BLAS_SRC; do
        o="$B/obj/$(echo "${c#$ROOT/}" | tr '/' '_' | sed 's/\.c$/.o/')"
        extra=""
        case "$c" in *cpu_avx2.c) extra="-mavx2 -mfma" ;; esac
        (gcc $CFLAGS $extra -c "$c" -o "$o" || echo "  (compile failed: $c)") &
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.1; done
    done
    wait
    for cu in libcore/backend/cuda/*.cu; do
        [ -f "$B/obj/$(basename "$cu" .cu)_cu.o" ] || { echo "  nvcc failed: $cu"; ok=0; }
    done
    if [ $ok = 1 ]; then
        ar rcs "$B/libeecore.a" "$B"/obj/*.o &&
            gcc $CFLAGS -I"$ROOT/tests/c" tests/c/test_gpu.c "$B/libeecore.a" \
                -L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" -lcublas -lcudart $CUDNN_LIB \
                $BLAS_LIB -lstdc++ -lm -o "$B/test_gpu" && TEST="$B/test_gpu"
        for b in bench_models bench_gpu; do
            gcc $CFLAGS bench/$b.c "$B/libeecore.a" -L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" \
                -lcublas -lcudart $CUDNN_LIB $BLAS_LIB -lstdc++ -lm -o "$B/$b" || continue
            if [ $b = bench_models ]; then BENCH="$B/$b"; else BENCH_GPU="$B/$b"; fi
        done
    fi
fi

if [ -z "$TEST" ]; then
    section "BUILD FAILED"
    exit 2
fi

section "run $TEST"
timeout "${EE_TEST_TIMEOUT:-420}" "$TEST"
rc=$?
if [ $rc -eq 0 ]; then
    section "batches split under a GPU memory cap (EE_GPU_MEMORY_MB=64)"
    EE_GPU_MEMORY_MB=64 EE_TEST_GPU_SPLIT=1 timeout 120 "$TEST" || rc=$?
fi
if [ -n "$BENCH_GPU" ] && [ "${EE_BENCH_GPU:-all}" != none ] && [ $rc -eq 0 ]; then
    mode=${EE_BENCH_GPU:-all}
    section "GPU benchmark ($BENCH_GPU ${mode/all/})"
    timeout "${EE_BENCH_TIMEOUT:-400}" "$BENCH_GPU" ${mode/all/} || echo "bench_gpu: exit $?"
    if [ -n "$CUDNN_DIR" ] && [ "$mode" != tiny ]; then
        section "the cnn with the backend's own convolution only (EE_CUDNN=0), against the rows above"
        EE_CUDNN=0 timeout 120 "$BENCH_GPU" cnn || echo "bench_gpu: exit $?"
    fi
    if [ "$mode" != tiny ]; then
        section "the small models without the fused attention kernel (EE_CUDA_FUSED_ATTN=0)"
        EE_CUDA_FUSED_ATTN=0 timeout 120 "$BENCH_GPU" small || echo "bench_gpu: exit $?"
    fi
    if [ -n "${EE_CHECK_OPTIME:-}" ]; then # small | bert | ...: a bench_gpu mode
        section "device time per op (EE_CUDA_OPTIME=1 bench_gpu $EE_CHECK_OPTIME)"
        EE_CUDA_OPTIME=1 timeout 200 "$BENCH_GPU" "$EE_CHECK_OPTIME" || echo "bench_gpu: exit $?"
    fi
fi
if [ -n "${BENCH:-}" ] && [ -z "${EE_NO_BENCH:-}" ]; then
    section "CPU benchmark, 2 threads ($BENCH)"
    OMP_NUM_THREADS=2 timeout 300 "$BENCH"
fi
section "done"
case $rc in
0) echo "test_gpu: PASSED" ;;
77) echo "test_gpu: SKIPPED (no usable CUDA device; see the line above)" ;;
124) echo "test_gpu: TIMED OUT after ${EE_TEST_TIMEOUT:-420} s" ;;
*) echo "test_gpu: FAILED (exit $rc)" ;;
esac
exit $rc
