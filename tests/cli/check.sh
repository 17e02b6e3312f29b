#!/usr/bin/env bash
# check.sh: tests of cli/ee, the command-line tool, on a small synthetic
# dataset in a temporary folder:
#  - every command against its gateway (Octave): ee train and ee
#    train-explainer write the struct ee_train returns (every field, bit
#    for bit), ee predict / ig / sv / explain / gradient / faithfulness the
#    numbers of ee_predict / ee_ig / ee_sv / ee_explain / ee_gradient /
#    ee_faithfulness bit for bit (the CPU arithmetic does not
#    depend on the batch or the thread count);
#  - under mpirun -np 2 the same bits as one process, for every row
#    command; a rank killed midway (EE_FAULT_KILL, a test hook of
#    cli/shards.c) leaves no result and a restart (with 2 ranks or 1)
#    resumes from the shards to the same bits;
#  - bad input: missing or unreadable files, a missing variable, rows out
#    of range, a model that fails validation, bad options, shards of
#    another job: a one-line message naming the file and field, the exit
#    status of the error kind, no output file;
#  - outputs.sh: --out a device, FIFO, folder or empty name, runs stopped
#    by bad input, loosely written numbers (its own fixtures).
# The MPI steps (and the valgrind step) are skipped only when the build has
# no MPI or mpirun (valgrind) is missing; tools/install_deps.sh installs
# them. A skipped step is counted as skipped, with its reason, not passed.
# Prints PASS/FAIL/SKIP per step and "cli: N passed, M failed, K skipped".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ee=$root/cli/ee
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
passed=0; failed=0; skipped=0
step() { # step NAME STATUS [DETAIL]
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $1"
  else failed=$((failed + 1)); echo "FAIL $1${3:+: $3}"; fi
}
skip() { # skip N WHY: N steps that cannot run here
  skipped=$((skipped + $1)); echo "SKIP $1 steps: $2"
}
oct() { octave-cli --no-gui --no-history -q --eval "$1" 2>&1 | grep -v 'ignoring const execution_exception'; }
[ -x "$ee" ] || { echo "FAIL cli/ee is not built (tools/build.sh)"; echo "cli: 0 passed, 1 failed"; exit 1; }
# the ranks share the cores of this machine (a thread each), while a single
# process runs a thread per core: equal bits need the CPU arithmetic to be
# independent of the thread count too, which this tests as well
unset OMP_NUM_THREADS
mpi=1
if ! command -v mpirun >/dev/null 2>&1 || "$ee" --version | grep -q '^MPI: none'; then
  mpi=0; mpi_why="$( command -v mpirun >/dev/null || echo 'no mpirun')$("$ee" --version | grep '^MPI: none')"
  # 6 steps here, 10 comparisons of their numbers below
  skip 16 "the MPI steps and their comparisons: $mpi_why"
fi
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2)

# ---- fixtures: a dataset in the layout of doc/API.md, and variables for the options
oct "addpath ('$root/mex');
rand ('seed', 1);
N = 60; T = 12; V = 24;
tokens = ones (N, T, 'int32');
for i = 1:N
  L = randi ([3 T-2]);
  tokens(i,1) = 3; tokens(i,2:L+1) = randi ([5 V], 1, L); tokens(i,L+2) = 4;
end
labels = int32 (1 + (sum (tokens == 7 | tokens == 9, 2) > 0));
vocab = [{'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'caf\303\251'}, arrayfun(@(k) sprintf ('w%d', k), 6:V, 'UniformOutput', false)];
classes = {'ham', 'spam'};
split = struct ('train', (1:40)', 'valid', (41:50)', 'test', (51:60)');
info = struct ('source', 'synthetic', 'T', T);
unlabelled = tokens(end:-1:1, :);
mask = tokens != 1; mask(:, end) = true;
base = tokens; base(tokens > 4) = 2;
big = tokens; big(2, 3) = V + 1;
tg = int32 (mod ((1:N)', 2) + 1);
perms = cell (1, N);
for i = 1:N
  n = sum (tokens(i,:) > 4); p = zeros (3, n);
  for k = 1:3 p(k,:) = randperm (n); end
  perms{i} = p;
end
bg = tokens(1:3, :);
save ('-v7', 'data.mat', 'tokens', 'labels', 'vocab', 'classes', 'split', 'info', 'unlabelled', 'mask', 'base', 'big', 'tg', 'perms', 'bg');
printf ('fixtures written\n');" > fixtures.out
grep -q 'fixtures written' fixtures.out || { cat fixtures.out; echo "cli: 0 passed, 1 failed"; exit 1; }
SPEC=(--spec transformer --d 8 --heads 2 --layers 1 --ffn 16)

# ---- help and usage
"$ee" --help > help.out 2>&1; rc=$?
step "ee --help lists the commands" $([ $rc -eq 0 ] && grep -q 'train-explainer' help.out && grep -q 'Exit status' help.out; echo $?)
"$ee" sv --help > svhelp.out 2>&1; rc=$?
step "ee sv --help lists every option of ee_sv" $([ $rc -eq 0 ] && for o in samples seed permutations baseline target batch device verbose rows exact incremental; do grep -q -- "--$o " svhelp.out || exit 1; done; echo $?)
"$ee" nosuch > /dev/null 2> err.out; rc=$?
step "an unknown command: status 2, one line" $([ $rc -eq 2 ] && [ "$(wc -l < err.out)" -eq 1 ] && grep -q "unknown command 'nosuch'" err.out; echo $?)

# ---- training, against the gateway (compared in Octave below)
"$ee" train "${SPEC[@]}" --data data.mat --rows train --validation valid --epochs 2 --vocab vocab --classes classes \
  --out clf.mat 2> train.err; rc=$?
step "ee train writes a model, progress per epoch on stderr" $([ $rc -eq 0 ] && [ -f clf.mat ] && grep -q 'epoch 2/2' train.err; echo $?)
"$ee" train --spec cnn --d 4 --filters 3 --widths 2,3 --data data.mat --epochs 1 --seed 3 --quiet --out cnn.mat 2> q.err; rc=$?
step "ee train --quiet prints nothing" $([ $rc -eq 0 ] && [ ! -s q.err ]; echo $?)
"$ee" sv --model clf.mat --data data.mat --rows 1:50 --samples 3 --quiet --out svt.mat; rc1=$?
"$ee" train-explainer --model clf.mat --data data.mat --rows train --targets svt.mat --validation valid --epochs 3 \
  --explains method=sv,steps=3 --quiet --out expl.mat; rc2=$?
"$ee" train-explainer --model clf.mat --data data.mat --var unlabelled --rows 1:30 --targets ig --steps 4 \
  --validation valid --validation-var tokens --epochs 2 --seed 2 --head flat --layers 1 --quiet --out expl2.mat; rc3=$?
step "ee train-explainer from a targets file and from computed maps" $([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ]; echo $?)
"$ee" train-explainer --model clf.mat --data data.mat --rows 1:20 --targets sv --steps 2 --epochs 1 --quiet --out expl3.mat
step "ee train-explainer on Shapley maps computed here" $?
# every method of ee_train (clf, X, METHOD) by name: libcore's one table
# (ee_map_method_maps) behind both; compared with the gateway below
rc=0
"$ee" train-explainer --model clf.mat --data data.mat --rows 1:20 --targets kernelshap --steps 60 --epochs 1 --quiet \
  --out expl_kernelshap.mat || rc=1
for m in lime occlusion saliency_abs; do
  "$ee" train-explainer --model clf.mat --data data.mat --rows 1:20 --targets $m --epochs 1 --quiet --out expl_$m.mat || rc=1
done
"$ee" train-explainer --model clf.mat --data data.mat --rows 1:20 --targets smoothgrad --validation valid --epochs 1 \
  --seed 3 --quiet --out expl_smoothgrad.mat || rc=1
step "ee train-explainer --targets kernelshap (--steps), lime, occlusion, saliency_abs, smoothgrad (validation maps)" $rc
# a margin explainer (token ids only): it carries its classifier, and
# explain signs each map by the baseline's margin
"$ee" train-explainer --model clf.mat --data data.mat --rows 1:20 --targets ig --steps 3 --inputs tokens --margin true \
  --validation valid --epochs 1 --quiet --out expl_margin.mat &&
  "$ee" explain --model expl_margin.mat --data data.mat --rows test --quiet --out margin_explain.mat
step "ee train-explainer --margin true, ee explain of it" $?

# ---- the row commands, one process
run_rows() { # PREFIX: writes PREFIX_{predict,ig,sv,svx,svp,explain,faith,grad,occl,lime,ksh}.mat with the launcher in L
  "${L[@]}" "$ee" predict --model clf.mat --data data.mat --mask mask --chunk 7 --quiet --out "$1_predict.mat" &&
  "${L[@]}" "$ee" ig --model clf.mat --data data.mat --rows 3:60 --steps 5 --target tg --chunk 9 --quiet --out "$1_ig.mat" &&
  "${L[@]}" "$ee" sv --model clf.mat --data data.mat --samples 4 --seed 7 --baseline base --chunk 4 --quiet --out "$1_sv.mat" &&
  "${L[@]}" "$ee" sv --model clf.mat --data data.mat --rows 1:8 --exact --chunk 3 --quiet --out "$1_svx.mat" &&
  "${L[@]}" "$ee" sv --model clf.mat --data data.mat --permutations perms --chunk 5 --quiet --out "$1_svp.mat" &&
  "${L[@]}" "$ee" explain --model expl.mat --model expl2.mat --data data.mat --rows test --chunk 4 --quiet --out "$1_explain.mat" &&
  "${L[@]}" "$ee" faithfulness --model clf.mat --data data.mat --rows 3:60 --maps "$1_ig.mat" --steps 5 --chunk 7 \
    --sensitivity saliency --sensitivity_samples 3 --quiet --out "$1_faith.mat" &&
  "${L[@]}" "$ee" gradient --model clf.mat --data data.mat --rows 2:60 --method ig --steps 4 --noise smoothgrad --samples 3 \
    --stdev 0.2 --seed 5 --chunk 8 --quiet --out "$1_grad.mat" &&
  "${L[@]}" "$ee" occlusion --model clf.mat --data data.mat --rows 2:40 --window 3 --stride 2 --chunk 6 --quiet \
    --out "$1_occl.mat" &&
  "${L[@]}" "$ee" lime --model clf.mat --data data.mat --rows 1:30 --samples 40 --seed 3 --ridge 0.1 --chunk 7 --quiet \
    --out "$1_lime.mat" &&
  "${L[@]}" "$ee" sv --model clf.mat --data data.mat --rows 5:35 --method kernelshap --samples 30 --paired \
    --baseline base --chunk 8 --quiet --out "$1_ksh.mat"
}
L=(); run_rows one; rc=$?
step "ee predict, ig, sv (sampling, exact, permutations, kernelshap), explain (an ensemble), faithfulness, gradient, occlusion, lime run" $rc
"$ee" sv --model clf.mat --data data.mat --rows 1:20 --samples 4 --seed 7 --chunk 5 --quiet --out rows_all.mat &&
"$ee" sv --model clf.mat --data data.mat --rows 1:10 --samples 4 --seed 7 --chunk 5 --quiet --out rows_a.mat &&
"$ee" sv --model clf.mat --data data.mat --rows 11:20 --samples 4 --seed 7 --chunk 5 --quiet --out rows_b.mat
step "ee sv on two row ranges" $?
"$ee" ig --model clf.mat --data data.mat --rows 1:20 --method gradxinput --quiet --out gxi.mat
step "ee ig --method gradxinput (libcore's table of IG methods)" $?
"$ee" faithfulness --model clf.mat --data data.mat --rows 3:60 --maps one_ig.mat --steps 6 --target tg --chunk 9 \
  --infidelity 4 --seed 2 --quiet --out faith.mat &&
"$ee" faithfulness --model clf.mat --data data.mat --rows 5:20 --maps one_sv.mat --steps 0 --logodds 50 --score logit \
  --baseline base --quiet --out faith2.mat
step "ee faithfulness of ee ig's maps (one row per selected row) and ee sv's (one per row of --var)" $?
"$ee" faithfulness --model clf.mat --data data.mat --rows 1:8,20:31 --maps one_sv.mat --sensitivity ig \
  --sensitivity_steps 3 --sensitivity_samples 4 --radius 0.05 --seed 3 --chunk 5 --quiet --out faith3.mat &&
"$ee" faithfulness --model cnn.mat --data data.mat --rows 2:40 --maps one_sv.mat --sensitivity saliency_abs \
  --infidelity 3 --seed 4 --chunk 7 --quiet --out faith4.mat
step "ee faithfulness --sensitivity: ig on a row list, saliency_abs on the cnn with the infidelity" $?
"$ee" gradient --model clf.mat --data data.mat --rows 10:30 --method gradientshap --background bg --samples 4 --stdev 0.1 \
  --chunk 6 --quiet --out gshap.mat &&
"$ee" gradient --model clf.mat --data data.mat --rows 1:20 --method saliency_l2 --noise vargrad --samples 2 --quiet --out vargrad.mat
step "ee gradient: gradientshap with a background variable, VarGrad of the saliency norm" $?
"$ee" gradient --model cnn.mat --data data.mat --rows 3:40 --method deeplift --chunk 7 --quiet --out deeplift.mat
step "ee gradient --method deeplift on the cnn, in chunks" $?
"$ee" gradient --help > ghelp.out 2>&1
step "ee gradient --help lists every option of ee_gradient but the noise's values" $(for o in method noise samples stdev seed steps rule baseline background target batch device verbose rows; do grep -q -- "--$o " ghelp.out || exit 1; done; echo $?)
"$ee" faithfulness --help > fhelp.out 2>&1
step "ee faithfulness --help lists every option of ee_faithfulness" $(for o in maps steps logodds score infidelity seed baseline target sensitivity sensitivity_samples radius sensitivity_steps batch device verbose rows; do grep -q -- "--$o " fhelp.out || exit 1; done; echo $?)

if [ $mpi -eq 1 ]; then
  # ---- the same under two ranks
  L=("${MPIRUN[@]}"); run_rows two > mpi.out 2>&1; rc=$?
  step "the row commands under mpirun -np 2" $rc "$(tail -3 mpi.out)"
  # ---- a rank killed midway, then restarts (2 ranks; 1 rank)
  for r in 2 1; do
    rm -rf kill$r.mat kill$r.mat.shards
    EE_FAULT_KILL=1:1 "${MPIRUN[@]}" "$ee" sv --model clf.mat --data data.mat --samples 4 --seed 7 --baseline base \
      --chunk 4 --out kill$r.mat > kill$r.out 2>&1; rc=$?
    step "a killed rank ($r): nonzero status, our one line names the shards, no result" \
      $([ $rc -ne 0 ] && [ ! -e kill$r.mat ] && [ "$(grep -c '^ee sv: stopped before every row was done.*kill'$r'.mat.shards' kill$r.out)" -eq 1 ] \
        && ls kill$r.mat.shards/shard-0001.bin > /dev/null && ! ls kill$r.mat.tmp* > /dev/null 2>&1; echo $?) "$(tail -3 kill$r.out)"
    if [ $r -eq 2 ]; then L=("${MPIRUN[@]}"); else L=(); fi
    "${L[@]}" "$ee" sv --model clf.mat --data data.mat --samples 4 --seed 7 --baseline base --chunk 4 --out kill$r.mat \
      > resume$r.out 2>&1; rc=$?
    step "the same command on $r rank(s) resumes from the shards and cleans them up" \
      $([ $rc -eq 0 ] && [ -f kill$r.mat ] && grep -q 'resuming: [0-9]* of 15 chunks already done' resume$r.out \
        && [ ! -e kill$r.mat.shards ]; echo $?) "$(tail -3 resume$r.out)"
  done
  # ---- a bad input under MPI: one line from us, not one per rank
  "${MPIRUN[@]}" "$ee" sv --model clf.mat --data data.mat --rows 1:99 --out bad.mat > mpibad.out 2>&1; rc=$?
  step "bad input under mpirun: nonzero status, one line, no result" \
    $([ $rc -ne 0 ] && [ "$(grep -c '^ee sv: ' mpibad.out)" -eq 1 ] && grep -q 'out of range' mpibad.out && [ ! -e bad.mat ]; echo $?)
fi

# ---- a single process killed midway, then resumed
rm -rf k0.mat k0.mat.shards
{ EE_FAULT_KILL=0:2 "$ee" sv --model clf.mat --data data.mat --samples 4 --seed 7 --baseline base --chunk 4 --quiet \
  --out k0.mat; rc=$?; } 2> /dev/null
"$ee" sv --model clf.mat --data data.mat --samples 4 --seed 7 --baseline base --chunk 4 --out k0.mat 2> k0.err; rc2=$?
step "one process killed after 2 chunks (status 137), resumed: 2 of 15 chunks done before" \
  $([ $rc -eq 137 ] && [ $rc2 -eq 0 ] && grep -q 'resuming: 2 of 15' k0.err; echo $?)
# ---- shards of another job are refused
rm -rf k3.mat k3.mat.shards
{ EE_FAULT_KILL=0:1 "$ee" sv --model clf.mat --data data.mat --samples 4 --chunk 4 --quiet --out k3.mat; } 2> /dev/null
"$ee" sv --model clf.mat --data data.mat --samples 4 --seed 2 --chunk 4 --quiet --out k3.mat 2> k3.err; rc=$?
step "shards of another job (other seed): refused, status 2, no result" \
  $([ $rc -eq 2 ] && grep -q 'written by another job' k3.err && [ "$(wc -l < k3.err)" -eq 1 ] && [ ! -e k3.mat ]; echo $?)

# ---- memory: the shards, the merge and the model writer under valgrind
if command -v valgrind > /dev/null 2>&1; then
  VG=(valgrind -q --leak-check=full --error-exitcode=99 --errors-for-leak-kinds=definite,indirect
      --suppressions="$root/tests/c/valgrind.supp")
  rm -rf vg.mat*
  { EE_FAULT_KILL=0:1 "$ee" sv --model clf.mat --data data.mat --samples 2 --chunk 7 --quiet --out vg.mat; } 2> /dev/null
  "${VG[@]}" "$ee" sv --model clf.mat --data data.mat --samples 2 --chunk 7 --quiet --out vg.mat > vg1.out 2>&1; rc1=$?
  "${VG[@]}" "$ee" train-explainer --model clf.mat --data data.mat --rows train --targets svt.mat --epochs 1 --quiet \
    --out vg2.mat > vg2.out 2>&1; rc2=$?
  step "valgrind: ee sv resuming and merging, ee train-explainer writing a model: no error, no leak" \
    $([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]; echo $?) "$(cat vg1.out vg2.out | head -5)"
else
  skip 1 "valgrind is missing (tools/install_deps.sh installs it)"
fi

# ---- bad input: status, one line naming the file and field, no output
printf 'not a mat file\n' > junk.mat
oct "m = load ('clf.mat'); model = m.model; model.encoder(1).Wq = model.encoder(1).Wq(1:4, :); save ('-v7', 'badwq.mat', 'model');
     a = m.model; b = m.model; save ('-v7', 'two.mat', 'a', 'b'); x = 1; save ('-v7', 'nostruct.mat', 'x');
     model = m.model; model.E_tok(1, 1) = 1; save ('-v7', 'padrow.mat', 'model');" > /dev/null
bad() { # NAME STATUS PATTERN ARGS...: the command fails as said
  local name=$1 want=$2 pat=$3; shift 3
  rm -f out.mat
  "$ee" "$@" > /dev/null 2> bad.err; local rc=$?
  step "$name" $([ $rc -eq "$want" ] && [ "$(wc -l < bad.err)" -eq 1 ] && grep -qE -- "$pat" bad.err && [ ! -e out.mat ] \
                 && ! ls out.mat.tmp* > /dev/null 2>&1; echo $?) "status $rc: $(cat bad.err)"
}
bad "missing data file" 4 "cannot open 'nosuch.mat': No such file" sv --model clf.mat --data nosuch.mat --out out.mat
bad "missing model file" 4 "cannot open 'nosuch.mat'" ig --model nosuch.mat --data data.mat --out out.mat
bad "unreadable data file" 4 "'junk.mat' is not a MAT file" predict --model clf.mat --data junk.mat --out out.mat
bad "a variable that is not there" 4 "data.mat: variable 'tokenz' is missing \(variables: .*tokens" sv --model clf.mat --data data.mat --var tokenz --out out.mat
bad "rows out of range" 2 "--rows 50:61 is out of range: tokens in data.mat has 60 rows" sv --model clf.mat --data data.mat --rows 50:61 --out out.mat
bad "a split that is not there" 2 "data.mat: split.holdout is missing" ig --model clf.mat --data data.mat --rows holdout --out out.mat
bad "--margin on maps that do not flip with the class" 2 "margin signs maps that flip with the explained class; saliency_abs" \
  train-explainer --model clf.mat --data data.mat --rows 1:20 --targets saliency_abs --margin true --out out.mat
bad "a model field of the wrong size" 3 "badwq.mat: model.encoder\(1\).Wq must be 8x8, got 4x8" sv --model badwq.mat --data data.mat --out out.mat
bad "a nonzero PAD row" 3 "padrow.mat: model" predict --model padrow.mat --data data.mat --out out.mat
bad "a model file with two structs" 3 "two.mat must hold one model struct.*found 2" ig --model two.mat --data data.mat --out out.mat
bad "a model file without a struct" 3 "nostruct.mat must hold one model struct.*found 0" ig --model nostruct.mat --data data.mat --out out.mat
bad "an explainer where a classifier is needed" 3 "expl.mat: model is an Empirical Explainer" sv --model expl.mat --data data.mat --out out.mat
bad "a classifier where an explainer is needed" 3 "clf.mat: model is a classifier" explain --model clf.mat --data data.mat --out out.mat
bad "token ids beyond the vocabulary" 2 "data.mat: big\(2,3\) = 25 is not a token id in 1..24" predict --model clf.mat --data data.mat --var big --out out.mat
bad "labels of the wrong shape" 2 "data.mat: base must be a vector with one class index per row of tokens \(60\), got 60x12" train "${SPEC[@]}" --data data.mat --labels base --out out.mat
bad "an unknown option" 2 "unknown option '--sample' \(valid: .*--samples" sv --model clf.mat --data data.mat --sample 3 --out out.mat
bad "an option out of range" 2 "--samples must be an integer in \[1, 1048576\], got '0'" sv --model clf.mat --data data.mat --samples 0 --out out.mat
bad "--steps with a one-gradient method" 2 "--steps does not apply to gradxinput \(one gradient\)" ig --model clf.mat --data data.mat --method gradxinput --steps 3 --out out.mat
bad "an option given twice" 2 "--seed given twice" sv --model clf.mat --data data.mat --seed 1 --seed 2 --out out.mat
bad "a missing --out" 2 "--out is required" sv --model clf.mat --data data.mat
bad "targets without the training rows" 2 "svt.mat has no map of row 51 of tokens" train-explainer --model clf.mat --data data.mat --rows 45:55 --targets svt.mat --out out.mat
bad "targets of another variable" 2 "svt.mat holds maps of rows of variable 'tokens', but these rows are of 'unlabelled'" train-explainer --model clf.mat --data data.mat --var unlabelled --rows 1:5 --targets svt.mat --out out.mat
bad "--targets: neither a file nor a method" 2 "--targets 'shap' is neither a file of maps nor a method \(ig, sv, saliency.*lime\)" train-explainer --model clf.mat --data data.mat --targets shap --out out.mat
bad "--steps with a method without samples" 2 "--steps applies .* kernelshap or lime, not occlusion" train-explainer --model clf.mat --data data.mat --targets occlusion --steps 4 --out out.mat
bad "--layers beyond the classifier's" 2 "explainer 'layers' 2: the explainer keeps the first of its classifier's 1 layers" train-explainer --model clf.mat --data data.mat --rows 1:5 --targets svt.mat --layers 2 --out out.mat
bad "--targets deeplift of a transformer: status 7 (ee:notSupported)" 7 "deeplift is defined on the mlp and the cnn" train-explainer --model clf.mat --data data.mat --rows 1:5 --targets deeplift --out out.mat
if "$ee" --version | grep -qE '^CUDA: (no CUDA|this build has no)'; then
  bad "--device gpu where there is none: status 5 (ee:noDevice)" 5 "device 'gpu' requested but" sv --model clf.mat --data data.mat --device gpu --out out.mat
fi
bad "--precision bf16 on the CPU: status 7 (ee:notSupported)" 7 "precision 'bf16' needs the tensor cores of a GPU" ig --model clf.mat --data data.mat --device cpu --precision bf16 --out out.mat
bad "--precision tf32 for training on the CPU: status 7" 7 "precision 'tf32' needs the tensor cores" train "${SPEC[@]}" --data data.mat --labels labels --device cpu --precision tf32 --out out.mat
bad "an unknown precision" 2 "precision" sv --model clf.mat --data data.mat --precision fp16 --out out.mat
bad "gradient: --samples without a noise tunnel" 2 "--samples applies to a noise tunnel" gradient --model clf.mat --data data.mat --samples 3 --out out.mat
bad "gradient: gradientshap without --background" 2 "gradientshap needs --background" gradient --model clf.mat --data data.mat --method gradientshap --out out.mat
bad "gradient: a negative --stdev" 2 "--stdev must be >= 0" gradient --model clf.mat --data data.mat --noise smoothgrad --stdev -1 --out out.mat
bad "faithfulness: maps of another size" 2 "one_ig.mat: A must be 10x12 \\(one row per selected row\\) or 60x12" faithfulness --model clf.mat --data data.mat --rows 1:10 --maps one_ig.mat --out out.mat
bad "occlusion: a window out of range" 2 "--window" occlusion --model clf.mat --data data.mat --window 0 --out out.mat
bad "lime: a negative ridge" 2 "--ridge" lime --model clf.mat --data data.mat --ridge -1 --out out.mat
bad "sv --method kernelshap with --exact" 2 "--exact" sv --model clf.mat --data data.mat --method kernelshap --exact --out out.mat
bad "faithfulness: an unknown score" 2 "--score" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --score odds --out out.mat
bad "faithfulness: --radius without --sensitivity" 2 "--radius applies to --sensitivity" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --radius 0.1 --out out.mat
bad "faithfulness: the sensitivity of gradientshap" 2 "--sensitivity" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --sensitivity gradientshap --out out.mat
bad "faithfulness: a negative --radius" 2 "--radius .*must be finite and >= 0" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --sensitivity saliency --radius -1 --out out.mat
bad "faithfulness: --sensitivity_steps of saliency" 2 "--sensitivity_steps applies to --sensitivity ig" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --sensitivity saliency --sensitivity_steps 3 --out out.mat
bad "faithfulness: --seed without infidelity or sensitivity" 2 "--seed applies to" faithfulness --model clf.mat --data data.mat --maps one_sv.mat --seed 3 --out out.mat
bad "a folder that cannot hold the result (checked before the work)" 4 "cannot write 'nodir/out.mat': its folder 'nodir': No such file" predict --model clf.mat --data data.mat --out nodir/out.mat

# ---- hostile outputs, runs stopped by bad input, loose numbers (outputs.sh, its own folder)
bash "$root/tests/cli/outputs.sh" "$ee" > outputs.out 2>&1
grep -E '^(PASS|FAIL|SKIP)' outputs.out
p=$(grep -c '^PASS' outputs.out); f=$(grep -c '^FAIL' outputs.out)
grep -q '^outputs: ' outputs.out || { tail -5 outputs.out; f=$((f + 1)); }
passed=$((passed + p)); failed=$((failed + f))

# ---- the numbers, in Octave
oct "addpath ('$root/mex');
ok = @(name, c) printf ('%s %s\n', ifelse_ok (c), name);
function s = ifelse_ok (c) if (c) s = 'PASS'; else s = 'FAIL'; end end
function t = same_bits (a, b) t = isequal (class (a), class (b)) && isequal (size (a), size (b)) && isequal (a(:), b(:)); end
function t = close_to (a, b) t = same_bits (a, b); end  # the CPU arithmetic is independent of batch and thread count (issue 10)
function m = no_time (m) m.history.seconds = 0; for f = {'feature_seconds', 'margin_seconds'} if (isfield (m.history, f{1})) m.history.(f{1}) = 0; end end; if (isfield (m.history, 'check')) m.history = rmfield (m.history, 'check'); end end  # (the check: the gateway's only, ee_train.m)
d = load ('data.mat'); tr = d.split.train; va = d.split.valid; te = d.split.test;
c = load ('clf.mat'); clf = c.model;
g = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), d.tokens(tr,:), d.labels(tr), ...
              'validation', {d.tokens(va,:), d.labels(va)}, 'epochs', 2, 'vocab', d.vocab, 'classes', d.classes, 'verbose', false);
ok ('ee train: the struct of ee_train, field for field (order too) and bit for bit', ...
    isequal (fieldnames (clf), fieldnames (g)) && isequal (no_time (clf), no_time (g)) && strcmp (clf.vocab_words{5}, 'caf\303\251'));
e = load ('cnn.mat'); gc = ee_train ('cnn', d.tokens, d.labels, 'd', 4, 'filters', 3, 'widths', [2 3], 'epochs', 1, 'seed', 3, 'verbose', false);
ok ('ee train --spec cnn: the struct of ee_train', isequal (no_time (e.model), no_time (gc)));
t = load ('svt.mat');
ge = ee_train (clf, d.tokens(tr,:), t.A(tr,:), 'validation', {d.tokens(va,:), t.A(va,:)}, 'epochs', 3, 'verbose', false, ...
               'explains', struct ('method', 'sv', 'steps', 3));
x = load ('expl.mat'); expl = x.model;
ok ('ee train-explainer (targets file): the struct of ee_train, with classifier and explains', ...
    isequal (fieldnames (expl), fieldnames (ge)) && isequal (no_time (expl), no_time (ge)) && isfield (expl, 'classifier'));
ge2 = ee_train (clf, d.unlabelled(1:30,:), 'ig', 'steps', 4, 'validation', {d.tokens(va,:)}, 'epochs', 2, 'seed', 2, ...
                'head', 'flat', 'layers', 1, 'verbose', false);
x = load ('expl2.mat'); expl2 = x.model;
ok ('ee train-explainer (maps computed, another variable): the struct of ee_train', isequal (no_time (expl2), no_time (ge2)));
ge3 = ee_train (clf, d.tokens(1:20,:), 'sv', 'steps', 2, 'epochs', 1, 'verbose', false);
x = load ('expl3.mat');
ok ('ee train-explainer --targets sv: the struct of ee_train, reading the occlusion scores', ...
    isequal (no_time (x.model), no_time (ge3)) && strcmp (ge3.inputs, 'occlusion'));
M = {'kernelshap', {'steps', 60}; 'lime', {}; 'occlusion', {}; 'saliency_abs', {}; ...
     'smoothgrad', {'validation', {d.tokens(va,:)}, 'seed', 3}};
for k = 1:rows (M)
  gk = ee_train (clf, d.tokens(1:20,:), M{k,1}, M{k,2}{:}, 'epochs', 1, 'verbose', false);
  x = load (['expl_' M{k,1} '.mat']);
  ok (sprintf ('ee train-explainer --targets %s: the struct of ee_train bit for bit, explains.method %s', M{k,1}, ...
               x.model.explains.method), isequal (no_time (x.model), no_time (gk)) && strcmp (gk.explains.method, M{k,1}));
end
o = load ('one_predict.mat'); [l, lg] = ee_predict (clf, d.tokens, 'mask', d.mask);
ok ('ee predict: labels and logits of ee_predict', isequal (o.labels, l) && close_to (o.logits, lg) && isequal (o.rows, (1:60)'));
o = load ('one_ig.mat'); [A, info] = ee_ig (clf, d.tokens, 'rows', 3:60, 'steps', 5, 'target', d.tg, 'verbose', false);
ok ('ee ig: the maps and info of ee_ig', close_to (o.A, A) && isequal (fieldnames (o.info), fieldnames (info)) ...
    && isequal (o.info.target, info.target) && close_to (o.info.delta, info.delta) && o.info.passes == info.passes);
o = load ('gxi.mat'); A = ee_ig (clf, d.tokens, 'rows', 1:20, 'method', 'gradxinput', 'verbose', false);
ok ('ee ig --method gradxinput: ee_ig gradxinput', close_to (o.A, A) && strcmp (o.info.method, 'gradxinput') && o.info.steps == 1);
o = load ('one_sv.mat'); [A, info] = ee_sv (clf, d.tokens, 'samples', 4, 'seed', 7, 'baseline', d.base, 'verbose', false);
ok ('ee sv: the maps and info of ee_sv', close_to (o.A, A) && isequal (fieldnames (o.info), fieldnames (info)) ...
    && isequal (o.info.target, info.target) && close_to (o.info.variance, info.variance) && o.info.passes == info.passes ...
    && strcmp (o.info.method, 'sampling'));
printf ('     (ee sv vs ee_sv: largest difference %.3g, bit for bit: %d)\n', max (abs (o.A(:) - A(:))), isequal (o.A, A));
o = load ('one_svx.mat'); A = ee_sv (clf, d.tokens(1:8,:), 'exact', true, 'verbose', false);
ok ('ee sv --exact: ee_sv exact', close_to (o.A, A) && strcmp (o.info.method, 'exact') && ! isfield (o.info, 'variance'));
o = load ('one_svp.mat'); A = ee_sv (clf, d.tokens, 'permutations', d.perms, 'verbose', false);
ok ('ee sv --permutations: ee_sv with permutations', close_to (o.A, A) && o.info.steps == 3);
o = load ('one_explain.mat'); [A, info] = ee_explain ({expl, expl2}, d.tokens(te,:));
## the baseline passes (the gradient at the baseline, f(baseline) for the
## efficiency projection) are shared within one libcore call, and the tool
## makes one call per run of consecutive rows: it may make a few more
## forward and backward passes than the gateway's single call
skip = {'seconds', 'passes', 'forward_passes', 'backward_passes'};
ok ('ee explain (ensemble of two files): ee_explain', close_to (o.A, A) && isequal (rmfield (o.info, skip), rmfield (info, skip)) ...
    && o.info.forward_passes >= info.forward_passes && o.info.backward_passes >= info.backward_passes ...
    && o.info.passes == o.info.forward_passes + o.info.backward_passes);
gm = ee_train (clf, d.tokens(1:20,:), 'ig', 'steps', 3, 'inputs', 'tokens', 'margin', true, ...
               'validation', {d.tokens(va,:)}, 'epochs', 1, 'verbose', false);
x = load ('expl_margin.mat');
ok ('ee train-explainer --margin true: the struct of ee_train bit for bit, margin set, classifier carried', ...
    isequal (no_time (x.model), no_time (gm)) && isequal (gm.margin, true) && isfield (x.model, 'classifier'));
o = load ('margin_explain.mat'); [A, info] = ee_explain (gm, d.tokens(te,:));
ok ('ee explain of a margin explainer: the maps and classes of ee_explain', close_to (o.A, A) ...
    && isequal (o.info.target, info.target));
o = load ('one_grad.mat');
[A, info] = ee_gradient (clf, d.tokens, 'rows', 2:60, 'method', 'ig', 'steps', 4, 'noise', 'smoothgrad', 'samples', 3, ...
                         'stdev', 0.2, 'seed', 5, 'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee gradient (ig in a SmoothGrad tunnel, rows 2:60 in chunks): the maps and info of ee_gradient bit for bit', ...
    same_bits (o.A, A) && isequal (fieldnames (o.info), fieldnames (info)) && isequal (o.info, info));
o = load ('gshap.mat');
[A, info] = ee_gradient (clf, d.tokens, 'rows', 10:30, 'method', 'gradientshap', 'background', d.bg, 'samples', 4, ...
                         'stdev', 0.1, 'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee gradient --method gradientshap: ee_gradient bit for bit, with the rows and points drawn', ...
    same_bits (o.A, A) && isequal (o.info, info) && isequal (size (o.info.alpha), [4 21]));
o = load ('vargrad.mat'); A = ee_gradient (clf, d.tokens, 'rows', 1:20, 'method', 'saliency_l2', 'noise', 'vargrad', 'samples', 2, ...
                                      'verbose', false);
ok ('ee gradient --noise vargrad: ee_gradient bit for bit', same_bits (o.A, A) && all (o.A(:) >= 0));
o = load ('deeplift.mat');
[A, info] = ee_gradient (e.model, d.tokens, 'rows', 3:40, 'method', 'deeplift', 'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee gradient --method deeplift: ee_gradient bit for bit, fbaseline and delta with it', ...
    same_bits (o.A, A) && isequal (o.info, info) && isfield (o.info, 'delta') && all (isfinite (o.info.delta)));
o = load ('faith.mat'); ig = load ('one_ig.mat'); A = zeros (60, 12, 'single'); A(3:60,:) = ig.A;
F = ee_faithfulness (clf, d.tokens, A, 'rows', 3:60, 'steps', 6, 'target', d.tg, 'infidelity', 4, 'seed', 2, 'verbose', false);
o.F.seconds = 0; F.seconds = 0;
ok ('ee faithfulness: the struct of ee_faithfulness, field for field and bit for bit', ...
    isequal (fieldnames (o.F), fieldnames (F)) && isequal (o.F, F) && same_bits (o.F.comprehensiveness, F.comprehensiveness) ...
    && same_bits (o.F.deletion_curve, F.deletion_curve) && same_bits (o.F.infidelity, F.infidelity) && isequal (o.rows, (3:60)'));
o = load ('faith2.mat'); sv = load ('one_sv.mat');
F = ee_faithfulness (clf, d.tokens, sv.A, 'rows', 5:20, 'steps', 0, 'logodds', 50, 'score', 'logit', 'baseline', d.base, ...
                     'verbose', false);
o.F.seconds = 0; F.seconds = 0;
ok ('ee faithfulness --steps 0 --score logit --baseline: ee_faithfulness bit for bit', isequal (o.F, F) ...
    && same_bits (o.F.insertion_auc, F.insertion_auc) && ! isfield (o.F, 'deletion_curve'));
o = load ('faith3.mat');
F = ee_faithfulness (clf, d.tokens, sv.A, 'rows', [1:8, 20:31], 'sensitivity', 'ig', 'sensitivity_steps', 3, ...
                     'sensitivity_samples', 4, 'radius', 0.05, 'seed', 3, 'verbose', false);
o.F.seconds = 0; F.seconds = 0; o.F.sensitivity_seconds = 0; F.sensitivity_seconds = 0;
ok ('ee faithfulness --sensitivity ig (a row list, in chunks): ee_faithfulness field for field and bit for bit', ...
    isequal (fieldnames (o.F), fieldnames (F)) && isequal (o.F, F) && same_bits (o.F.sensitivity_max, F.sensitivity_max) ...
    && all (F.sensitivity_max > 0) && F.sensitivity_passes > 0 && isequal (o.rows, [1:8, 20:31]'));
o = load ('faith4.mat');
F = ee_faithfulness (e.model, d.tokens, sv.A, 'rows', 2:40, 'sensitivity', 'saliency_abs', 'infidelity', 3, 'seed', 4, ...
                     'verbose', false);
o.F.seconds = 0; F.seconds = 0; o.F.sensitivity_seconds = 0; F.sensitivity_seconds = 0;
ok ('ee faithfulness --sensitivity saliency_abs --infidelity on the cnn: ee_faithfulness field for field and bit for bit', ...
    isequal (fieldnames (o.F), fieldnames (F)) && isequal (o.F, F) && same_bits (o.F.sensitivity_max, F.sensitivity_max) ...
    && same_bits (o.F.infidelity, F.infidelity) && all (isfinite (F.sensitivity_max)));
o = load ('one_occl.mat'); [A, info] = ee_occlusion (clf, d.tokens, 'rows', 2:40, 'window', 3, 'stride', 2, 'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee occlusion --window 3 --stride 2: ee_occlusion bit for bit, info field for field', same_bits (o.A, A) ...
    && isequal (fieldnames (o.info), fieldnames (info)) && isequal (o.info, info));
o = load ('one_lime.mat'); [A, info] = ee_lime (clf, d.tokens, 'rows', 1:30, 'samples', 40, 'seed', 3, 'ridge', 0.1, 'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee lime: ee_lime bit for bit', same_bits (o.A, A) && isequal (o.info, info) && strcmp (o.info.method, 'lime'));
o = load ('one_ksh.mat');
[A, info] = ee_sv (clf, d.tokens, 'rows', 5:35, 'method', 'kernelshap', 'samples', 30, 'paired', true, 'baseline', d.base, ...
                   'verbose', false);
o.info.seconds = 0; info.seconds = 0;
ok ('ee sv --method kernelshap: ee_sv kernelshap bit for bit', same_bits (o.A, A) && isequal (o.info, info) ...
    && strcmp (o.info.method, 'kernelshap'));
a = load ('rows_all.mat'); b1 = load ('rows_a.mat'); b2 = load ('rows_b.mat');
ok ('ee sv: rows 1:10 then 11:20 give the bits of rows 1:20 (streams keyed by row)', same_bits ([b1.A; b2.A], a.A));
if ($mpi)
  for f = {'predict', 'ig', 'sv', 'svx', 'svp', 'explain', 'faith', 'grad', 'occl', 'lime', 'ksh'}
    p = load (['one_' f{1} '.mat']); q = load (['two_' f{1} '.mat']);
    if (isfield (p, 'info')) p.info.seconds = 0; q.info.seconds = 0; end
    if (isfield (p, 'F')) p.F.seconds = 0; q.F.seconds = 0; p.F.sensitivity_seconds = 0; q.F.sensitivity_seconds = 0; end
    ok (sprintf ('mpirun -np 2 ee %s: the bits of one process (every variable)', f{1}), isequal (p, q) && same_bits (p.(fieldnames (p){1}), q.(fieldnames (q){1})));
  end
  for r = [2 1]
    k = load (sprintf ('kill%d.mat', r)); p = load ('one_sv.mat'); k.info.seconds = 0; p.info.seconds = 0;
    ok (sprintf ('killed and resumed on %d rank(s): the bits of an uninterrupted run', r), isequal (k, p) && same_bits (k.A, p.A));
  end
end
k = load ('k0.mat'); p = load ('one_sv.mat'); k.info.seconds = 0; p.info.seconds = 0;
ok ('one process killed and resumed: the bits of an uninterrupted run', isequal (k, p));
" > numbers.out
cat numbers.out | grep -E '^(PASS|FAIL|     )' 
p=$(grep -c '^PASS' numbers.out); f=$(grep -c '^FAIL' numbers.out)
[ $((p + f)) -ge 12 ] || { tail -20 numbers.out; f=$((f + 1)); }
passed=$((passed + p)); failed=$((failed + f))
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
