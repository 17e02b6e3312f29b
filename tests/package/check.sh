#!/usr/bin/env bash
# check.sh: the two ways of installing, as a user would use them, into
# temporary folders (nothing outside them is touched):
#  - make pkg, then in Octave: pkg install (which compiles the package with
#    its own configure and make), pkg load ee, a small job (vocabulary,
#    tokenizer, training, prediction, ee_plot_text to a PNG, the help of a
#    gateway), and pkg test ee (every %!test block of the installed files);
#  - make install prefix=..., then the same job with the installed folders
#    on the path, and the library, headers and ee_text in place.
# Prints what each step did and one line "package: N passed, M failed"
# (one per step). pkg test runs the %!test blocks of mex/ and scripts/,
# which the Octave stage of tests/run_all.sh has counted already: here they
# are one step, "every block of the installed package passes", with pkg
# test's own numbers (passes, run-time skips: the MPI tests and the dataset
# runs that an Octave package cannot run) printed beside it. Needs a configured tree
# (tools/build.sh). EE_WITH_CUDA (default no here: the package check is
# about packaging; tests/gpu checks the CUDA backend) goes to pkg install.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
step() { # step NAME STATUS
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}
oct() { octave-cli --no-gui --no-history -q --eval "$1" 2>&1 | grep -v 'ignoring const execution_exception'; }

# the job run from each installation: prints "job ok" at its end
job="texts = {'a good movie', 'a bad movie', 'a great film', 'an awful film'};
V = ee_vocab (texts, 'min_count', 1);
X = ee_tokenize (V, texts, 'T', 6);
m = ee_train ('cnn', X, [2; 1; 2; 1], 'vocab', V, 'classes', {'neg', 'pos'}, 'epochs', 2, ...
              'verbose', false, 'd', 8, 'filters', 4, 'widths', 2);
assert (ee_predict (m, X) >= 1);
r = ee_plot_text (m, 'A good film!', 'file', '$tmp/job.png');
assert (exist ('$tmp/job.png', 'file') == 2);
h = evalc ('help ee_tokenize');
assert (! isempty (strfind (h, 'Turn texts into rows')));
printf ('job ok: %s (p = %.2f), words %s, help found\n', r.class, r.prob, strjoin (r.words, ' '));"

echo "-- make pkg"
make -s pkg > "$tmp/pkg.out" 2>&1; rc=$?
tail -1 "$tmp/pkg.out"
tarball=$(ls -t ee-*.tar.gz 2>/dev/null | head -1)
step "make pkg writes ee-<version>.tar.gz" $([ $rc -eq 0 ] && [ -n "$tarball" ]; echo $?)

pkgenv="pkg prefix $tmp/pkg $tmp/pkg-arch; pkg local_list $tmp/octave_packages;"
echo "-- pkg install $tarball (compiles the package)"
EE_WITH_CUDA=${EE_WITH_CUDA:-no} oct "$pkgenv pkg install -local $root/$tarball; pkg list" > "$tmp/install.out"
grep -v '^ar: ' "$tmp/install.out"
step "pkg install" $(grep -q "ee  *| *[0-9.]* | $tmp/pkg/ee-" "$tmp/install.out"; echo $?)

echo "-- pkg load ee and a job"
oct "$pkgenv pkg load ee; $job" > "$tmp/job.out"
cat "$tmp/job.out"
step "pkg load ee, job" $(grep -q '^job ok' "$tmp/job.out"; echo $?)

echo "-- pkg test ee"
oct "$pkgenv pkg test ee" > "$tmp/test.out"
sed -n '/^Integrated test scripts/,/^Failure Summary/p' "$tmp/test.out" | grep -E 'pass|FAIL' | sed 's/^ */    /'
p=$(awk '$1 == "PASS" {print $2}' "$tmp/test.out" | tail -1)
f=$(awk '$1 == "FAIL" && $2 ~ /^[0-9]+$/ {print $2}' "$tmp/test.out" | tail -1)
sk=$(grep -E '^ *SKIP \((missing feature|run-time condition)\)' "$tmp/test.out" | awk '{s += $NF} END {print s + 0}')
echo "pkg test: PASS ${p:-?}, FAIL ${f:-0}, SKIP $sk (the blocks of mex/ and scripts/, counted in the Octave stage)"
grep -h '^SKIP ' "$tmp/test.out" | sort -u
step "pkg test ee: every %!test block of the installed package passes" $([ -n "$p" ] && [ "${f:-0}" -eq 0 ]; echo $?)

echo "-- make install prefix=<tmp>"
make -s install prefix="$tmp/prefix" > "$tmp/minstall.out" 2>&1; rc=$?
grep -v '^ar: ' "$tmp/minstall.out" | tail -5
ok=1
for f in lib/libeecore.a include/ee/ee.h include/ee/ee_text.h bin/ee_text bin/ee \
         lib/empirical-explainers/mex/ee_train.mex lib/empirical-explainers/mex/ee_train.m \
         lib/empirical-explainers/scripts/ee_plot_text.m lib/empirical-explainers/scripts/private/ee_draw_words.m; do
  [ -e "$tmp/prefix/$f" ] || { echo "missing $f"; ok=0; }
done
step "make install puts library, headers, ee_text, ee, gateways and scripts under the prefix" $([ $rc -eq 0 ] && [ $ok -eq 1 ]; echo $?)
d="$tmp/prefix/lib/empirical-explainers"
oct "addpath ('$d/mex', '$d/scripts'); $job" > "$tmp/job2.out"
cat "$tmp/job2.out"
step "job from the make install prefix" $(grep -q '^job ok' "$tmp/job2.out"; echo $?)
printf 'abc d\n' | "$tmp/prefix/bin/ee_text" vocab 1 10 > "$tmp/vocab.out" 2>&1
step "installed ee_text runs" $(grep -qx 'abc' "$tmp/vocab.out"; echo $?)
"$tmp/prefix/bin/ee" --version > "$tmp/ee.out" 2>&1
step "installed ee runs" $(grep -q '^ee (Empirical Explainers)' "$tmp/ee.out"; echo $?)

echo "package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
