#!/usr/bin/env bash
# corrupt.sh: cli/ee on damaged model and data files. Small models of each
# kind (transformer, cnn, mlp), an explainer and a data file are saved by
# Octave with -v6 and -v7; corrupt_make.m makes a few hundred damaged
# copies of them (bytes flipped, truncated at many offsets, elements
# duplicated, variables of the wrong class or missing; seeded, so every
# run makes the same files) and every ee command that reads such a file
# runs on each, under a time limit. A run passes when
#   - it ends by itself within the limit (a hang fails), with status 0 or
#     an error status (2..7): a signal (a crash) or anything else fails;
#   - on error: exactly one line on stderr, and nothing left in its output
#     folder (no result, no temporary file, no shards);
#   - on success, the numbers are the right ones. Octave's reader is the
#     referee (corrupt_make.m): a file Octave reads as the intact one (the
#     damage hit the header text, padding or a name), or refuses, must
#     give the intact file's output; a file Octave reads with other
#     contents (a flipped bit in the weights of a -v6 file is a valid file
#     with other weights) must give the output of those contents saved
#     again cleanly. Outputs are compared in Octave, timings left out.
#     Anything else is a silent wrong read and fails.
# A wrong variable or class must be refused by each command that reads it.
# Each case runs two of the commands that read its file, in turn from case
# to case (a wrong variable: every command that reads it); a case is one
# check. Prints FAIL
# lines, a tally, and "corrupt: N passed, M failed, 0 skipped".
# EE=path/to/ee runs another build of the tool (e.g. main's, for a
# before/after count); EE_CORRUPT_SEED another seed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ee=${EE:-$root/cli/ee}
seed=${EE_CORRUPT_SEED:-22}
limit=${EE_CORRUPT_TIMEOUT:-20}   # seconds; every run here takes well under one, even on a busy machine
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
oct() { octave-cli --no-gui --no-history -q --eval "$1" 2>&1 | grep -v 'ignoring const execution_exception'; }
[ -x "$ee" ] || { echo "FAIL cli/ee is not built (tools/build.sh)"; echo "corrupt: 0 passed, 1 failed, 0 skipped"; exit 1; }
export OMP_NUM_THREADS=1

# ---- the intact files
oct "rand ('seed', 3);
N = 24; T = 8; V = 16;
tokens = ones (N, T, 'int32');
for i = 1:N
  L = randi ([2 T-2]); tokens(i,1) = 3; tokens(i,2:L+1) = randi ([5 V], 1, L); tokens(i,L+2) = 4;
end
labels = int32 (1 + (sum (tokens == 7, 2) > 0));
split = struct ('train', (1:16)', 'valid', (17:20)', 'test', (21:24)');
feats = rand (N, 6);   # the mlp's input: one row of numbers per example
save ('-v7', 'data.mat', 'tokens', 'labels', 'split', 'feats'); printf ('ok\n');" | grep -q '^ok' || { echo "FAIL fixtures"; exit 1; }
q=(--quiet --seed 1)
"$ee" train --spec transformer --d 4 --heads 2 --layers 1 --ffn 8 --data data.mat --epochs 1 "${q[@]}" --out t.mat &&
"$ee" train --spec cnn --d 4 --filters 2 --widths 2,3 --data data.mat --epochs 1 "${q[@]}" --out c.mat &&
"$ee" train --spec mlp --hidden 4 --data data.mat --var feats --epochs 1 "${q[@]}" --out m.mat &&
"$ee" train-explainer --model t.mat --data data.mat --rows train --targets ig --steps 2 --epochs 1 "${q[@]}" --out x.mat ||
  { echo "FAIL the fixtures: ee train"; echo "corrupt: 0 passed, 1 failed, 0 skipped"; exit 1; }
oct "addpath ('$root/tests/cli');
for f = {'t', 'clf_transformer'; 'c', 'clf_cnn'; 'm', 'clf_mlp'; 'x', 'expl'; 'data', 'data'}'
  s = load ([f{1} '.mat']);
  save ('-v6', [f{2} '_v6.mat'], '-struct', 's'); save ('-v7', [f{2} '_v7.mat'], '-struct', 's');
end
corrupt_make ('.', $seed);" > make.out
grep -q 'cases written' make.out || { cat make.out; echo "FAIL corrupt_make"; echo "corrupt: 0 passed, 1 failed, 0 skipped"; exit 1; }

# ---- the commands that read each role's file (F: the file under test, V: v6 or v7)
cmds() { # ROLE F V: one command per line, the command name first
  local m=clf_mlp_$3.mat d="--data data_$3.mat"
  [ "$1" = clf_mlp ] && d="$d --var feats"
  case $1 in
  clf_*)
    echo "predict --model $2 $d --rows test"
    echo "ig --model $2 $d --rows 1:3 --steps 3"
    [ "$1" = clf_mlp ] || echo "sv --model $2 $d --rows 1:2 --samples 2 --seed 1"   # token models only
    # explainers are built on transformers only
    [ "$1" = clf_transformer ] && echo "train-explainer --model $2 $d --rows 1:8 --targets ig --steps 2 --epochs 1 --seed 1"
    ;;
  expl)
    echo "explain --model $2 --data data_$3.mat --rows test" ;;
  data)
    echo "predict --model $m --data $2 --var feats --rows test"
    echo "ig --model clf_cnn_$3.mat --data $2 --rows 1:3 --steps 3"
    echo "sv --model clf_transformer_$3.mat --data $2 --rows 1:2 --samples 2 --seed 1"
    echo "explain --model expl_$3.mat --data $2 --rows test"
    echo "train --spec mlp --hidden 4 --data $2 --var feats --rows train --validation valid --epochs 1 --seed 1"
    echo "train-explainer --model clf_transformer_$3.mat --data $2 --rows train --targets ig --steps 2 --epochs 1 --seed 1" ;;
  esac
}

# the commands a case runs: for a wrong variable those that read it; for
# damaged bytes two of its role's commands, in turn from case to case, so
# that every command meets every kind of damage without running all on each
pick() { # CASE EXPECT READERS, the role's commands on stdin
  local k=$((10#${1//[^0-9]/})) i=0 n lines=()
  mapfile -t lines
  n=${#lines[@]}
  for ((i = 0; i < n; i++)); do
    if [ "$2" = error ]; then
      [ "$3" = all ] || [[ ",$3," == *",${lines[i]%% *},"* ]] && echo "${lines[i]}"
    elif [ $i -eq $((k % n)) ] || [ $i -eq $(((k + 1) % n)) ]; then echo "${lines[i]}"
    fi
  done
}

mkdir -p out keep
runs=0; strict=0; crashes=0; hangs=0; lines=0; left=0; refused=0; accepted=0; wrongok=0
RC=0; WHY=""
run() { # ARGS...: runs ee with --out out/r.mat; RC, WHY (empty when the run is sound)
  rm -rf out; mkdir out
  timeout -k 5 "$limit" "$ee" "$@" --quiet --out out/r.mat > /dev/null 2> err.txt; RC=$?
  runs=$((runs + 1)); WHY=""
  if [ $RC -eq 124 ] || [ $RC -eq 137 ]; then hangs=$((hangs + 1)); WHY="no end within ${limit} s"
  elif [ $RC -ne 0 ] && { [ $RC -lt 2 ] || [ $RC -gt 7 ]; }; then crashes=$((crashes + 1)); WHY="status $RC: $(head -c 200 err.txt)"
  elif [ $RC -ne 0 ]; then
    if [ "$(grep -c '' err.txt)" -ne 1 ] || [ "$(wc -l < err.txt)" -ne 1 ]; then
      lines=$((lines + 1)); WHY="$(grep -c '' err.txt) lines on stderr: $(head -3 err.txt | tr '\n' '|' | head -c 300)"
    elif [ -n "$(ls -A out)" ]; then left=$((left + 1)); WHY="left behind: $(ls -A out | tr '\n' ' ')"
    fi
  elif [ ! -f out/r.mat ]; then WHY="status 0 and no result"
  fi
}

# the intact outputs (each must work)
for role in clf_transformer clf_cnn clf_mlp expl data; do
  for v in v6 v7; do
    while read -r name args; do
      run $name $args
      [ $RC -eq 0 ] && [ -z "$WHY" ] || { echo "FAIL intact $role $v $name: status $RC $WHY $(cat err.txt)"; echo "corrupt: 0 passed, 1 failed, 0 skipped"; exit 1; }
      mv out/r.mat "keep/intact_${role}_${v}_$name.mat"
    done < <(cmds "$role" "${role}_$v.mat" $v)
  done
done

# every case, every command that reads it; outputs to compare go to pairs.txt
declare -A bad=()
: > pairs.txt
while read -r case role base what expect extra; do
  v=${base##*_}; v=${v%.mat}
  while read -r name args; do
    run $name $args
    if [ -n "$WHY" ]; then bad[$case]="${bad[$case]:-}ee $name: $WHY; "; continue; fi
    if [ $RC -ne 0 ]; then   # strict where Octave reads the intact contents: counted, not a failure
      refused=$((refused + 1)); [ "$expect" = same ] && strict=$((strict + 1)); continue
    fi
    accepted=$((accepted + 1))
    if [ "$expect" = error ]; then
      if [ "$extra" = all ] || [[ ",$extra," == *",$name,"* ]]; then
        wrongok=$((wrongok + 1)); bad[$case]="${bad[$case]:-}ee $name accepted $what; "
      fi
      continue
    fi
    mv out/r.mat "keep/${case%.mat}_$name.mat"
    if [ "$expect" = differs ]; then
      # the same command on the contents Octave read, saved again cleanly
      run $name ${args//cases\/$case/cases\/$extra}
      if [ $RC -ne 0 ]; then   # a valid file that ee refuses: fine, the damaged one was read differently
        bad[$case]="${bad[$case]:-}ee $name read it, but refuses what Octave read ($(cat err.txt)); "; continue
      fi
      mv out/r.mat "keep/${case%.mat}_${name}_resaved.mat"
      echo "keep/${case%.mat}_$name.mat keep/${case%.mat}_${name}_resaved.mat $case:$name" >> pairs.txt
    else
      echo "keep/${case%.mat}_$name.mat keep/intact_${role}_${v}_$name.mat $case:$name" >> pairs.txt
    fi
  done < <(pick "$case" "$expect" "$extra" < <(cmds "$role" "cases/$case" "$v"))
done < manifest.txt

# the numbers of every accepted damaged file, in Octave
oct "addpath ('$root/tests/cli'); corrupt_same ('pairs.txt');" > same.out
grep -q '^compared' same.out || { cat same.out; echo "FAIL the comparison in Octave"; echo "corrupt: 0 passed, 1 failed, 0 skipped"; exit 1; }
while read -r tag label; do
  [ "$tag" = DIFFERENT ] && bad[${label%%:*}]="${bad[${label%%:*}]:-}ee ${label#*:}: other numbers than the contents Octave reads, without an error; "
done < same.out
silent=$(grep -c '^DIFFERENT' same.out)

total=$(wc -l < manifest.txt); nbad=${#bad[@]}
for c in "${!bad[@]}"; do
  set -- $(grep "^$c " manifest.txt)
  echo "FAIL $c ($2 $3 $4, Octave: $5): ${bad[$c]}"
done | sort
echo "$total cases, $runs runs: $refused refused with one line ($strict of files Octave reads as intact), $accepted accepted ($(wc -l < pairs.txt) compared, $silent with other numbers);" \
  "$crashes crashes, $hangs hangs, $lines errors not on one line, $left left files behind, $wrongok wrong variables accepted"
echo "corrupt: $((total - nbad)) passed, $nbad failed, 0 skipped"
[ "$nbad" -eq 0 ]
