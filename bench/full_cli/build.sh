#!/bin/bash
# bench/full_cli/build.sh: builds cli/ee with the CUDA backend directly with
# gcc and nvcc, for a GPU machine without autotools (./configure is the
# normal way). matio (and zlib) come from the system, or from MATIO_DIR
# (include/ with matio.h, matio_pubconf.h, zlib.h, zconf.h and lib/ with
# libmatio.so.11, libz.so.1 and what they load: e.g. Debian 12's files
# copied onto a machine that lacks them; run with LD_LIBRARY_PATH=$MATIO_DIR/lib).
#   bench/full_cli/build.sh            -> $EE_BUILD/ee (default /tmp/eefull/ee)
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd); B=${EE_BUILD:-/tmp/eefull}; M=${MATIO_DIR:-}
rm -rf "$B"; mkdir -p "$B/obj"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}; export PATH=$CUDA_HOME/bin:$PATH
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ -n "$cc" ] || cc=90
ARCH="-gencode arch=compute_$cc,code=sm_$cc"
INC=""; LIBS="-lmatio -lz"
if [ -n "$M" ]; then INC="-I$M/include"; LIBS="-L$M/lib -l:libmatio.so.11 -l:libz.so.1"; fi
CFLAGS="-std=gnu11 -O2 -fPIC -fno-trapping-math -Wall -Wno-unused-parameter -fopenmp -I$ROOT/libcore -I$ROOT/cli $INC
        -DEE_HAVE_CUDA=1 -DPACKAGE_VERSION=\"$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' configure.ac)\""
[ "$(uname -m)" = x86_64 ] && CFLAGS="$CFLAGS -DEE_HAVE_AVX2_OBJECT=1"
NVFLAGS="-O2 -std=c++17 $ARCH -Xcompiler -fPIC -I$ROOT/libcore -DEE_HAVE_CUDA=1"
for cu in libcore/backend/cuda/*.cu; do nvcc $NVFLAGS -c "$cu" -o "$B/obj/$(basename "$cu" .cu)_cu.o" & done
for c in $(find libcore cli -name '*.c' | sort); do
    extra=""
    case "$c" in *cpu_avx2.c) extra="-mavx2 -mfma" ;; esac
    gcc $CFLAGS $extra -c "$c" -o "$B/obj/$(echo "$c" | tr / _ | sed 's/\.c$/.o/')" &
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 0.1; done
done
wait
gcc -fopenmp "$B"/obj/*.o $LIBS -L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" \
    -lcublas -lcudart -lopenblas -lstdc++ -lm -o "$B/ee" && echo "built $B/ee"
