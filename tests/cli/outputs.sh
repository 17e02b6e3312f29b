#!/usr/bin/env bash
# outputs.sh: cli/ee against hostile outputs and inputs (issue 25), in a
# temporary folder of its own (tests/cli/check.sh runs it and counts its
# lines):
#  - --out that is not a regular file (an empty name, a folder, a FIFO, a
#    symbolic link, a device node made with mknod when run as root, a name
#    ending in '/'): refused before any work, status 2, one line, the
#    target untouched, nothing left behind (no OUT.tmp*, no OUT.shards);
#  - runs stopped by bad input found during the work (a row all PAD, a
#    mask all false, bad permutations, --exact over 12 tokens), after
#    some chunks were already written: status 2, one line, no shards, no
#    temporary file, an existing target untouched; and the corrected
#    command to the same --out then runs;
#  - number lists and numbers written loosely ('', '1,', '+1', ' 5', ...)
#    refused in one line; an error quoting a newline stays one line.
# Prints PASS/FAIL per step and "outputs: N passed, M failed".
# Usage: outputs.sh [PATH/TO/ee]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ee=${1:-$root/cli/ee}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
passed=0; failed=0
step() { # step NAME STATUS [DETAIL]
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $1"
  else failed=$((failed + 1)); echo "FAIL $1${3:+: $3}"; fi
}
[ -x "$ee" ] || { echo "FAIL cli/ee is not built (tools/build.sh)"; echo "outputs: 0 passed, 1 failed"; exit 1; }

# ---- fixtures: T = 16 so that a row can hold 13 real tokens (--exact takes 12)
octave-cli --no-gui --no-history -q --eval "
rand ('seed', 2);
N = 12; T = 16; V = 20;
tokens = ones (N, T, 'int32');
for i = 1:N
  L = 2 + mod (i, 6);
  tokens(i,1) = 3; tokens(i,2:L+1) = randi ([5 V], 1, L); tokens(i,L+2) = 4;
end
labels = int32 (1 + mod ((1:N)', 2));
vocab = [{'[PAD]', '[UNK]', '[CLS]', '[SEP]'}, arrayfun(@(k) sprintf ('w%d', k), 5:V, 'UniformOutput', false)];
padded = tokens; padded(7, :) = 1;                  # a row all PAD, in the 4th chunk of 2
nomask = tokens != 1; nomask(7, :) = false;         # a mask all false
long = tokens; long(7, :) = [3, randi([5 V], 1, 13), 4, 1];   # 13 real tokens
perms = cell (1, N);
for i = 1:N
  n = sum (tokens(i,:) > 4); perms{i} = [randperm(n); randperm(n)];
end
perms{7}(2, 1:2) = 1;                               # not a permutation
save ('-v7', 'data.mat', 'tokens', 'labels', 'vocab', 'padded', 'nomask', 'long', 'perms');
printf ('fixtures written\n');" > fixtures.out 2>&1
grep -q 'fixtures written' fixtures.out || { cat fixtures.out; echo "outputs: 0 passed, 1 failed"; exit 1; }
"$ee" train --spec transformer --d 8 --heads 2 --layers 1 --ffn 16 --data data.mat --epochs 1 --quiet --out clf.mat \
  2> train.err || { cat train.err; echo "outputs: 0 passed, 1 failed"; exit 1; }

nothing_left() { # OUT: no temporary file, no shard folder
  ! ls "$1".tmp* > /dev/null 2>&1 && [ ! -e "$1.shards" ]
}
PREDICT=(predict --model clf.mat --data data.mat --quiet)

# ---- --out that is not a regular file: refused before the work, the target untouched
mkdir adir; echo keep > adir/inside
"$ee" "${PREDICT[@]}" --out adir > /dev/null 2> e.err; rc=$?
step "--out a folder: status 2, one line, the folder untouched" \
  $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -q "it is a folder" e.err && [ -d adir ] \
    && [ "$(cat adir/inside)" = keep ] && nothing_left adir; echo $?) "status $rc: $(cat e.err)"
"$ee" "${PREDICT[@]}" --out adir/ > /dev/null 2> e.err; rc=$?
step "--out 'adir/' (no file name): status 2, one line" \
  $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && [ -d adir ] && nothing_left adir/; echo $?) "status $rc: $(cat e.err)"
"$ee" "${PREDICT[@]}" --out '' > /dev/null 2> e.err; rc=$?
step "--out '': status 2, one line, nothing written" \
  $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -q "empty name" e.err && ! ls .tmp* .shards > /dev/null 2>&1; echo $?) \
  "status $rc: $(cat e.err)"
mkfifo fifo
# a tool that opened the FIFO would block: the timeout turns that into a failure
timeout 60 "$ee" "${PREDICT[@]}" --out fifo > /dev/null 2> e.err; rc=$?
step "--out a FIFO: status 2, one line, still a FIFO" \
  $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -q "it is a FIFO" e.err && [ -p fifo ] && nothing_left fifo; echo $?) \
  "status $rc: $(cat e.err)"
echo keep > real.txt; ln -s real.txt link.mat
"$ee" "${PREDICT[@]}" --out link.mat > /dev/null 2> e.err; rc=$?
step "--out a symbolic link: status 2, one line, link and file untouched" \
  $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && [ -L link.mat ] && [ "$(cat real.txt)" = keep ] && nothing_left link.mat; echo $?) \
  "status $rc: $(cat e.err)"
if [ "$(id -u)" -eq 0 ] && mknod null c 1 3 2> /dev/null; then
  "$ee" "${PREDICT[@]}" --out null > /dev/null 2> e.err; rc=$?
  step "--out a device node (mknod c 1 3): status 2, one line, still a device" \
    $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -q "it is a device" e.err && [ -c null ] && nothing_left null; echo $?) \
    "status $rc: $(cat e.err)"
  "$ee" train --spec cnn --d 4 --filters 2 --data data.mat --epochs 1 --quiet --out null > /dev/null 2> e.err; rc=$?
  step "ee train --out a device node: status 2, one line, still a device" \
    $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && [ -c null ]; echo $?) "status $rc: $(cat e.err)"
else
  echo "SKIP --out a device node: not root, or mknod is not allowed here"
fi
"$ee" "${PREDICT[@]}" --out ok.mat > /dev/null 2> e.err; rc1=$?
"$ee" "${PREDICT[@]}" --out ok.mat > /dev/null 2>> e.err; rc2=$?
step "--out a new file, then the same regular file again: written, replaced" \
  $([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -f ok.mat ] && nothing_left ok.mat; echo $?) "$(cat e.err)"

# ---- runs stopped by bad input found during the work: no shards, no temporary file
stopped() { # NAME PATTERN ARGS...: fails with status 2 after some chunks, leaves nothing, target untouched
  local name=$1 pat=$2; shift 2
  rm -rf out.mat out.mat.shards; echo keep > out.mat
  "$ee" "$@" --quiet --out out.mat > /dev/null 2> e.err; local rc=$?
  step "$name" $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -qE -- "$pat" e.err && [ "$(cat out.mat)" = keep ] \
                 && nothing_left out.mat; echo $?) "status $rc: $(cat e.err)"
}
stopped "a row all PAD (row 7, chunk 4): status 2, one line, no shards, target untouched" "PAD|no token|empty" \
  predict --model clf.mat --data data.mat --var padded --chunk 2
stopped "ig on a row all PAD: status 2, one line, no shards" "PAD|no token|empty" \
  ig --model clf.mat --data data.mat --var padded --steps 2 --chunk 2
stopped "a mask all false: status 2, one line, no shards" "mask" \
  predict --model clf.mat --data data.mat --mask nomask --chunk 2
stopped "permutations that are not: status 2, one line, no shards" "permutation" \
  sv --model clf.mat --data data.mat --permutations perms --chunk 2
stopped "--exact on 13 tokens: status 2, one line, no shards" "12" \
  sv --model clf.mat --data data.mat --var long --exact --chunk 2
# the corrected command to the same --out now runs (the shards of the failed one do not stand in its way)
rm -f out.mat
"$ee" sv --model clf.mat --data data.mat --var long --exact --rows 1:6 --chunk 2 --quiet --out out.mat 2> e.err; rc1=$?
"$ee" predict --model clf.mat --data data.mat --var padded --rows 1:6,8:12 --chunk 2 --quiet --out out.mat 2>> e.err; rc2=$?
step "the corrected commands to the same --out run" \
  $([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -f out.mat ] && nothing_left out.mat; echo $?) "$(cat e.err)"
# a kill, unlike bad input, keeps the shards for resuming
rm -rf k.mat k.mat.shards
{ EE_FAULT_KILL=0:1 "$ee" predict --model clf.mat --data data.mat --chunk 2 --quiet --out k.mat; rc=$?; } 2> /dev/null
step "a killed run keeps its shards (status 137)" $([ $rc -eq 137 ] && ls k.mat.shards/shard-0000.bin > /dev/null && [ ! -e k.mat ]; echo $?)

# ---- numbers written loosely
loose() { # OPTION VALUE ARGS...: status 2, one line naming --OPTION, no output
  local opt=$1 val=$2; shift 2
  rm -rf out.mat out.mat.shards
  "$ee" "$@" --$opt "$val" --quiet --out out.mat > /dev/null 2> e.err; local rc=$?
  step "--$opt '$val' refused" $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] && grep -q -- "--$opt" e.err && [ ! -e out.mat ] \
                                && nothing_left out.mat; echo $?) "status $rc: $(cat e.err)"
}
for r in '' '1,' '+1' ' 5' '5 ' '1:' ':3' '1,,2' '1 2' '-1' '1:+3' '0x3'; do
  loose rows "$r" predict --model clf.mat --data data.mat
done
for w in '' '2,' '+2' ' 3' '[2 3' '2,,3' '2;3'; do
  loose widths "$w" train --spec cnn --d 4 --filters 2 --data data.mat --epochs 1
done
for s in '+3' ' 3' '3 ' ''; do
  loose samples "$s" sv --model clf.mat --data data.mat
done
for x in ' 0.1' '+0.1' 'nan' 'inf' '0x1p-3'; do
  loose lr "$x" train --spec transformer --d 8 --heads 2 --layers 1 --ffn 16 --data data.mat --epochs 1
done
"$ee" train --spec cnn --d 4 --filters 2 --data data.mat --epochs 1 --widths '2, 3' --quiet --out w.mat 2> e.err
step "--widths '2, 3' and --rows 1:3,5 still read" $([ $? -eq 0 ] \
  && "$ee" "${PREDICT[@]}" --rows 1:3,5 --out r.mat 2>> e.err; echo $?) "$(cat e.err)"

# ---- one line, whatever the message quotes
"$ee" "${PREDICT[@]}" --var $'tok\nens' --out out.mat > /dev/null 2> e.err; rc=$?
step "a variable name with a newline: status 4, one line" $([ $rc -eq 4 ] && [ "$(wc -l < e.err)" -eq 1 ]; echo $?) \
  "status $rc: $(cat e.err)"
"$ee" > /dev/null 2> e.err; rc=$?
step "no command: status 2, one line" $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ]; echo $?) "status $rc: $(head -3 e.err)"
"$ee" $'pre\ndict' > /dev/null 2> e.err; rc=$?
step "an unknown command with a newline: status 2, one line" $([ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ]; echo $?)

echo "outputs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
