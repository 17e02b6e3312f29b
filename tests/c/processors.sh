#!/usr/bin/env bash
# processors.sh: libcore gives the same bits on every processor with FMA
# (doc/RANDOM.md). tools/dump_outputs writes every output of libcore
# (predictions, IG, SV, occlusion, features, explanations, training) on
# random models; this runs it as this machine runs it, then as other
# processors would: the AVX2 loops instead of the AVX-512 ones
# (EE_CPU_AVX512=0), and OpenBLAS told it is another processor
# (OPENBLAS_CORETYPE: Haswell on any AVX2 machine, SkylakeX and
# Cooperlake where AVX-512 is there to run their kernels). libcore's
# results must not move by a bit: none of its products may depend on the
# kernel OpenBLAS picks. One check per setting (every file equal), and a
# line "processors: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
dump=tools/dump_outputs
[ -x "$dump" ] || { echo "processors: $dump not built"; echo "processors: 0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
settings=()
has avx2 && has fma && settings+=("OPENBLAS_CORETYPE=Haswell")
if has avx512f; then
  settings+=("EE_CPU_AVX512=0" "EE_CPU_AVX512=0 OPENBLAS_CORETYPE=Haswell" "OPENBLAS_CORETYPE=SkylakeX")
  has avx512_bf16 && settings+=("OPENBLAS_CORETYPE=Cooperlake")
fi

passed=0; failed=0
mkdir -p "$work/here"
if ! "$dump" "$work/here" > "$work/here.log" 2>&1 || [ -z "$(ls "$work/here")" ]; then
  tail -5 "$work/here.log"; echo "processors: 0 passed, 1 failed"; exit 1
fi
n=0
for s in "${settings[@]}"; do
  n=$((n + 1)); d="$work/s$n"; mkdir -p "$d"
  if ! env $s "$dump" "$d" > "$d.log" 2>&1; then
    echo "FAIL $s: dump_outputs failed"; tail -3 "$d.log"; failed=$((failed + 1)); continue
  fi
  diff=""
  for f in "$work/here"/*; do
    cmp -s "$f" "$d/$(basename "$f")" || diff="$diff $(basename "$f" .bin)"
  done
  if [ -z "$diff" ]; then
    echo "PASS $s: the same bits ($(ls "$work/here" | wc -l) outputs)"; passed=$((passed + 1))
  else
    echo "FAIL $s: other bits in$diff"; failed=$((failed + 1))
  fi
done
[ ${#settings[@]} -gt 0 ] || echo "SKIP no AVX2 + FMA here: the baseline loops round differently (doc/RANDOM.md)"
echo "processors: $passed passed, $failed failed"
[ $failed -eq 0 ]
