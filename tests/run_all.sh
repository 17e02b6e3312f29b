#!/usr/bin/env bash
# run_all.sh: the whole test suite. Builds what is missing, runs the C tests
# (make check, then the same binaries under valgrind), then the Octave tests
# through the gateways, and prints one closing line "N passed, N failed"
# summing the assertions of both.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

tools/build.sh || { echo "0 passed, 1 failed"; exit 1; }
datasets/build.sh >/dev/null || { echo "datasets failed to build"; echo "0 passed, 1 failed"; exit 1; }

passed=0; failed=0
count() { # sums "N passed, M failed" lines of a log
  local p f
  p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$3} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f))
}

echo "== C tests"
export EE_VECTORS="${EE_VECTORS:-$root/tests/vectors}"
for t in $(sed -n 's/^check_PROGRAMS = //p' Makefile.am) $(grep -o 'tests/c/test_gpu' Makefile.am | head -1); do
  [ -x "$t" ] || continue
  "$t" > "$log/c.out" 2>&1; rc=$?
  if [ $rc -eq 77 ]; then echo "$(basename "$t"): skipped"; continue; fi
  tail -1 "$log/c.out"
  [ $rc -ne 0 ] && { grep FAIL "$log/c.out" | head -20; grep -q 'passed, [0-9]* failed' "$log/c.out" || failed=$((failed + 1)); }
  count "$log/c.out"
done

echo "== C tests under valgrind"
if [ -x tests/c/valgrind.sh ]; then
  tests/c/valgrind.sh > "$log/vg.out" 2>&1
  cat "$log/vg.out" | tail -20
  count <(tail -1 "$log/vg.out")
fi

echo "== Octave tests"
octave-cli --no-gui --no-history -q --eval "addpath('$root/tests/octave'); run_octave_tests()" 2>&1 | tee "$log/oct.out" | grep -Ev '^\s*$'
grep -q '^octave: ' "$log/oct.out" || failed=$((failed + 1))
count <(grep '^octave: ' "$log/oct.out")

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
