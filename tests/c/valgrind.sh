#!/bin/bash
# valgrind.sh: runs every C test binary under valgrind memcheck and reports
# one line per binary, then "valgrind: N programs clean, N failed, N skipped"
# (programs, not assertions: the assertions are the plain run's).
#
#   tests/c/valgrind.sh                  # every built tests/c/test_* binary
#   tests/c/valgrind.sh tests/c/test_ops # only these
#
# Build the binaries first (make check). A binary is clean when the test
# itself passes and valgrind reports no error (one that skips with status
# 77, test_gpu without a device, is reported as skipped, not clean):
# no invalid read/write, no use of uninitialised values, and no definite
# or indirect leak. "Possibly lost" blocks (the thread pools of OpenMP and
# OpenBLAS) are reported but accepted.
#
# Environment: EE_TEST_QUICK (default 1: the tests' smaller mode),
# EE_VECTORS (default tests/vectors, else ../shared/vectors next to the tree),
# VALGRIND (default valgrind), VG_LOGDIR (default a new temporary folder),
# VG_EXCLUDE (space-separated binary names to leave out).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${EE_TEST_QUICK:=1}"
if [ -z "${EE_VECTORS:-}" ]; then
    if [ -d "$top/tests/vectors" ]; then EE_VECTORS=$top/tests/vectors; else EE_VECTORS=$top/../shared/vectors; fi
fi
export EE_TEST_QUICK EE_VECTORS
VALGRIND=${VALGRIND:-valgrind}
VG_EXCLUDE=${VG_EXCLUDE:-}
opts=(--leak-check=full --error-exitcode=1 --errors-for-leak-kinds=definite,indirect
      --suppressions="$(cd "$(dirname "$0")" && pwd)/valgrind.supp")

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "valgrind.sh: '$VALGRIND' not found" >&2
    exit 2
fi

bins=()
if [ $# -gt 0 ]; then
    bins=("$@")
else
    for f in "$here"/test_*; do
        case "$f" in *.*) continue ;; esac      # sources, objects, logs
        [ -f "$f" ] && [ -x "$f" ] && bins+=("$f")
    done
fi
if [ ${#bins[@]} -eq 0 ]; then
    echo "valgrind.sh: no test binaries in $here (run 'make check' first)" >&2
    exit 2
fi

logdir=${VG_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/ee-valgrind.XXXXXX")}
mkdir -p "$logdir"
echo "valgrind: ${opts[*]}  (EE_TEST_QUICK=$EE_TEST_QUICK, logs in $logdir)"

passed=0
failed=0
skipped=0
for b in "${bins[@]}"; do
    name=$(basename "$b")
    case " $VG_EXCLUDE " in *" $name "*) echo "EXCL  $name"; continue ;; esac
    vg="$logdir/$name.valgrind"
    out="$logdir/$name.out"
    t0=$(date +%s.%N)
    "$VALGRIND" "${opts[@]}" --log-file="$vg" "$b" >"$out" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9,]*\) errors.*/\1/p' "$vg" | tail -1 | tr -d ,)
    def=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$vg" | tail -1 | tr -d ,)
    ind=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$vg" | tail -1 | tr -d ,)
    pos=$(sed -n 's/.*possibly lost: \([0-9,]*\) bytes.*/\1/p' "$vg" | tail -1 | tr -d ,)
    summary=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
    detail="valgrind errors ${errs:-?}, definitely lost ${def:-0} B, indirectly lost ${ind:-0} B, possibly lost ${pos:-0} B"
    if [ -z "$errs" ]; then
        status=FAIL; why="no valgrind summary (crashed?)"
    elif [ "$errs" != 0 ]; then
        status=FAIL; why="valgrind reported errors"
    elif [ $rc -eq 77 ]; then
        status=SKIP; why="skipped (exit 77): $(grep -m1 '^SKIP' "$out" | sed 's/^SKIP [^ ]*: //')"
    elif [ $rc -ne 0 ]; then
        status=FAIL; why="test failed (exit $rc)"
    else
        status=PASS; why=""
    fi
    printf '%-5s %-14s %7s s  %s%s%s\n' "$status" "$name" "$secs" "$detail" "${summary:+; $summary}" "${why:+; $why}"
    if [ "$status" = FAIL ]; then
        failed=$((failed + 1))
        echo "----- $vg (errors) -----"
        grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|.* are (definitely|indirectly) lost|    (at|by) )' "$vg" | head -40
        echo "----- $out (tail) -----"
        tail -15 "$out"
    elif [ "$status" = SKIP ]; then
        skipped=$((skipped + 1))
    else
        passed=$((passed + 1))
    fi
done
echo "valgrind: $passed programs clean, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
