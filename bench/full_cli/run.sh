#!/bin/bash
# bench/full_cli/run.sh: the `full` preset's steps (every row; doc/FIGURE5.md)
# through cli/ee on one device, without Octave: the classifiers, the
# targets, the explainers (the presets' designs, 30 epochs), the test
# subsets' maps and the curves s = 1..19 with their MSEs (mse.py); one line
# of seconds per step in $LOG. Not figure5 itself (no figure, floor or
# heatmaps; the SV curve's seeds differ), but the same settings and code.
#   octave-cli --eval "addpath('bench/full_cli'); prepare('/tmp/eefull_data')"   # once
#   bench/full_cli/build.sh && bench/full_cli/run.sh
# Environment: EE (cli/ee, default /tmp/eefull/ee), EEFULL_DATA (prepare's
# folder, default /tmp/eefull_data), EEFULL_WORK (default /tmp/eefull_work),
# EEFULL_DEVICE (gpu), EEFULL_CURVES (panels whose curve to run, default all
# four), EEFULL_SMALL=1 (a few rows: a dry run of the script), LOG.
set -u
G=$(cd "$(dirname "$0")" && pwd); EE=${EE:-/tmp/eefull/ee}
DATA=${EEFULL_DATA:-/tmp/eefull_data}
W=${EEFULL_WORK:-/tmp/eefull_work}; mkdir -p $W
LOG=${LOG:-$W/full.log}; : > $LOG
DEV=${EEFULL_DEVICE:-gpu}
if [ -n "${EEFULL_SMALL:-}" ]; then RTR=1:300 RVA=301:340 RTE=341:360 RFIT=1:60; else RTR=train RVA=valid RTE=test RFIT=all; fi
T0=$(date +%s.%N)
el() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }
say() { echo "$*" | tee -a $LOG; }
step() { # name command...
  local name=$1; shift
  local t=$(date +%s.%N)
  "$@" --quiet --device $DEV >> $W/steps.err 2>&1
  local rc=$?
  say "$(printf '%-34s %8.1f s  rc %d  (at %.0f s)' "$name" "$(el $t)" $rc "$(el $T0)")"
  [ $rc = 0 ] || tail -3 $W/steps.err | tee -a $LOG
}
TR="--d 64 --heads 4 --layers 2 --ffn 256 --seed 1"
XP="--epochs 30 --lr 1e-3 --batch 32 --schedule cosine --patience 6 --seed 1"
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | tee -a $LOG
panel() { # name data method inputs freeze
  local p=$1 D=$DATA/$2.mat m=$3 inputs=$4 freeze=$5 fitS
  local s_opt="--steps"; [ $m = sv ] && s_opt="--samples"
  fitS=20; [ $m = sv ] && fitS=5
  step "$p targets fit (s = $fitS)" $EE $m --model $W/$2_clf.mat --data $D --var fit --rows $RFIT $s_opt $fitS --out $W/${p}_fit.mat
  step "$p targets valid" $EE $m --model $W/$2_clf.mat --data $D --rows $RVA $s_opt 20 --out $W/${p}_valid.mat
  step "$p targets test" $EE $m --model $W/$2_clf.mat --data $D --rows $RTE $s_opt 20 --out $W/${p}_test.mat
  step "$p explainer ($inputs)" $EE train-explainer --model $W/$2_clf.mat --data $D --var fit --rows $RFIT \
      --targets $W/${p}_fit.mat --validation $RVA --validation-var tokens --validation-targets $W/${p}_valid.mat \
      --inputs $inputs --freeze $freeze $XP --out $W/${p}_expl.mat
  step "$p explain test" $EE explain --model $W/${p}_expl.mat --data $D --rows $RTE --out $W/${p}_expl_test.mat
}
curve() { # name data method
  local p=$1 D=$DATA/$2.mat m=$3 s_opt="--steps"; [ $m = sv ] && s_opt="--samples"
  local t=$(date +%s.%N) args=""
  for s in $(seq 1 19); do
    seed=""; [ $m = sv ] && seed="--seed $((s + 1))"
    $EE $m --model $W/$2_clf.mat --data $D --rows $RTE $s_opt $s $seed --quiet --device $DEV --out $W/${p}_s$s.mat >> $W/steps.err 2>&1 || say "curve $p s = $s failed"
    args="$args s$s=$W/${p}_s$s.mat"
  done
  say "$(printf '%-34s %8.1f s' "$p curve s = 1..19" "$(el $t)")"
  python3 $G/mse.py $W/${p}_test.mat explainer=$W/${p}_expl_test.mat $args >> $LOG 2>&1
}
step "wordnet classifier" $EE train --spec transformer --data $DATA/wordnet.mat --rows $RTR --validation $RVA \
    --epochs 3 --lr 1e-3 --patience 1 $TR --out $W/wordnet_clf.mat
panel ig_wordnet wordnet ig path embeddings
panel sv_wordnet wordnet sv occlusion embeddings
step "fortunes classifier" $EE train --spec transformer --data $DATA/fortunes.mat --rows $RTR --validation $RVA \
    --epochs 10 --lr 1e-3 --patience 3 $TR --out $W/fortunes_clf.mat
panel sv_fortunes fortunes sv occlusion embeddings
step "spam classifier" $EE train --spec transformer --data $DATA/spam.mat --rows $RTR --validation $RVA \
    --epochs 10 --lr 5e-4 --patience 3 $TR --out $W/spam_clf.mat
panel ig_spam spam ig gradient_ends none
for c in ${EEFULL_CURVES:-ig_wordnet:wordnet:ig sv_wordnet:wordnet:sv sv_fortunes:fortunes:sv ig_spam:spam:ig}; do
  IFS=: read p d m <<< "$c"
  curve $p $d $m
done
say "$(printf 'all done at %.0f s' "$(el $T0)")"
