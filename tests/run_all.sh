#!/usr/bin/env bash
# run_all.sh: the whole test suite. Builds what is missing, runs the C tests,
# then the same binaries under valgrind, then built with AddressSanitizer
# and UBSan (clang), fuzzes the model loader for EE_FUZZ_SECONDS (default
# 60), then runs the Octave tests through the gateways, then the
# command-line tool (tests/cli/check.sh: against the gateways, under mpirun,
# resumed, bad input), then the installation paths (tests/package/check.sh:
# make pkg, pkg install, pkg test, make install), and prints one closing
# line "N passed, N failed" that sums the assertions of the C (plain and
# sanitized) and Octave tests (valgrind adds one per binary, the fuzz run
# one, a sanitizer report one, the cli and package checks one per step).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== build"
if ! tools/build.sh > "$log/build.out" 2>&1; then
  tail -40 "$log/build.out"; echo "0 passed, 1 failed"; exit 1
fi
if ! datasets/build.sh > "$log/data.out" 2>&1; then
  tail -20 "$log/data.out"; echo "0 passed, 1 failed"; exit 1
fi

passed=0; failed=0
count() { # adds the "N passed, M failed" lines of a file
  local p f
  p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$3} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f))
}

echo "== C tests"
export EE_VECTORS="${EE_VECTORS:-$root/tests/vectors}"
for t in $(sed -n 's/^check_PROGRAMS = //p' Makefile.am); do
  [ -x "$t" ] || { echo "$t: not built"; failed=$((failed + 1)); continue; }
  "$t" > "$log/c.out" 2>&1; rc=$?
  if [ $rc -eq 77 ]; then echo "$(basename "$t"): skipped (no device)"; continue; fi
  tail -1 "$log/c.out"
  if [ $rc -ne 0 ]; then
    grep FAIL "$log/c.out" | head -20
    grep -q 'passed, [0-9]* failed' "$log/c.out" || failed=$((failed + 1))
  fi
  count "$log/c.out"
done

echo "== C tests under valgrind"
tests/c/valgrind.sh > "$log/vg.out" 2>&1
grep -E '^(PASS|FAIL|SKIP)' "$log/vg.out"
tail -1 "$log/vg.out" > "$log/vg.last"
count "$log/vg.last"

echo "== C tests with AddressSanitizer and UndefinedBehaviorSanitizer (clang)"
# the same programs built by `make san-tests`; a sanitizer report (or a
# leak at exit) fails the program even when its assertions passed
if make -s san-tests > "$log/san-build.out" 2>&1; then
  for t in $(sed -n 's/^SAN_TESTS = //p' Makefile.am); do
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "san/tests/c/$t" > "$log/san.out" 2>&1; rc=$?
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log/san.out" | tail -1)
    echo "san/$t: ${line:-no summary} (exit $rc)"
    if [ $rc -ne 0 ]; then
      grep -E 'FAIL|ERROR: (Address|Leak)Sanitizer|runtime error|SUMMARY' "$log/san.out" | head -20
      echo "$line" | grep -q ' 0 failed' && failed=$((failed + 1))   # the report itself
      [ -z "$line" ] && failed=$((failed + 1))
    fi
    echo "$line" > "$log/san.last"
    count "$log/san.last"
  done
else
  tail -20 "$log/san-build.out"; echo "sanitizer build failed"; failed=$((failed + 1))
fi

echo "== fuzzing the model loader for ${EE_FUZZ_SECONDS:-60} s (libFuzzer)"
# on a scratch copy of the corpus; a finding is kept in tests/fuzz/findings
if make -s fuzz-target > "$log/fuzz-build.out" 2>&1; then
  mkdir -p "$log/corpus" tests/fuzz/findings
  fuzz/fuzz_model -max_total_time="${EE_FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -timeout=20 \
    -artifact_prefix=tests/fuzz/findings/ "$log/corpus" tests/fuzz/corpus > "$log/fuzz.out" 2>&1; rc=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 inputs in \2 s/p' "$log/fuzz.out")
  if [ $rc -eq 0 ]; then
    echo "fuzz_model: ${runs:-?}, no finding"; passed=$((passed + 1))
  else
    grep -E '^==[0-9]+==ERROR|runtime error|SUMMARY|Test unit written' "$log/fuzz.out" | head -10
    echo "fuzz_model: finding (exit $rc)"; failed=$((failed + 1))
  fi
else
  tail -20 "$log/fuzz-build.out"; echo "fuzz build failed"; failed=$((failed + 1))
fi

echo "== Octave tests"
octave-cli --no-gui --no-history -q --eval "addpath('$root/tests/octave'); run_octave_tests()" > "$log/oct.out" 2>&1
grep -E '^\S+ +[0-9]+ passed|^test_datasets:|^octave:' "$log/oct.out"
grep -B6 -A3 '^!!!!!' "$log/oct.out" | head -60   # the failing blocks, if any
grep '^octave: ' "$log/oct.out" > "$log/oct.last" || { tail -30 "$log/oct.out"; failed=$((failed + 1)); }
count "$log/oct.last"

echo "== cli/ee (against the gateways; under mpirun -np 2; resume; bad input)"
tests/cli/check.sh > "$log/cli.out" 2>&1
grep -E '^(PASS|FAIL|SKIP) ' "$log/cli.out"
grep '^cli: ' "$log/cli.out" > "$log/cli.last" || { tail -30 "$log/cli.out"; failed=$((failed + 1)); }
count "$log/cli.last"

echo "== package (make pkg, pkg install, pkg test; make install)"
tests/package/check.sh > "$log/pkg.out" 2>&1
grep -E '^(PASS|FAIL) |^pkg test:|^job ok' "$log/pkg.out"
grep -B2 -A8 '^FAIL ' "$log/pkg.out" | head -40
grep '^package: ' "$log/pkg.out" > "$log/pkg.last" || { tail -30 "$log/pkg.out"; failed=$((failed + 1)); }
count "$log/pkg.last"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
