#!/usr/bin/env bash
# run.sh: the mutation stage. Compiles deliberate faults into scratch copies
# of libcore's sources and runs the C test programs that should notice each
# one against it; every mutant must make one of them fail ("killed"). A
# suite that passes with a mutant compiled in does not check what it says.
#
#   tests/mutation/run.sh            # every mutant
#   tests/mutation/run.sh nan pad    # only these (by name)
#
# Needs a built tree (tools/build.sh: libcore/libeecore.a and the objects
# of the C tests). Nothing in the tree is written: each mutant is one or two
# of libcore's .c files copied into a temporary folder, edited there, and
# compiled with the build's own flags; its object is linked ahead of
# libeecore.a (so the archive's copy of that file is not used) with the
# test programs' objects. A control build (the same files, unedited) runs
# first and must pass, so that a broken pipeline cannot pass for kills.
#
# A mutant is a list of exact, whole-line replacements; one whose line is
# not found (the source moved on) is an error of this stage, not a kill.
# Prints a line per mutant, then "mutants: N, killed N"; exits non-zero
# when a mutant survives or cannot be applied.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export EE_VECTORS="${EE_VECTORS:-$root/tests/vectors}"
# EE_MUTATION_OBJS: another folder of test objects (test_attr.o ...), e.g.
# those of an older version of the tests, to see what they let through
objdir=${EE_MUTATION_OBJS:-tests/c}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ee-mutation.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [ ! -f libcore/libeecore.a ] || [ ! -f Makefile ]; then
  echo "mutation: the tree is not built (tools/build.sh)"; echo "mutants: 0, killed 0"; exit 1
fi
# the build's compiler and flags, from the configured Makefile (DEFS left
# out: libcore reads none of them, and their quoting does not survive)
mkvars() {
  printf 'mutation-print:\n\t@echo $(CC) $(DEFAULT_INCLUDES) $(INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS)\n\t@echo $(CCLD) $(AM_CFLAGS) $(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS)\n\t@echo $(CORE_LIBS) $(LIBS)\n' |
    make -s --no-print-directory -f Makefile -f - mutation-print
}
vars=$(mkvars) || { echo "mutation: cannot read the build's flags from Makefile"; echo "mutants: 0, killed 0"; exit 1; }
read -r -a COMPILE <<< "$(sed -n 1p <<< "$vars")"
read -r -a LINK <<< "$(sed -n 2p <<< "$vars")"
read -r -a LIBS <<< "$(sed -n 3p <<< "$vars")"
# libcore/libeecore.a and -L paths in LIBS are relative to the tree: fine,
# every command runs here

# ---- the mutants: name, test programs, then FILE|OLD LINE|NEW LINE edits ----
# (one edit per line of the here-document; '|' separates the fields)
MUTANTS=(nan ig_node sv_step pad_mask efficiency tokenizer split_scale)
tests_of() {
  case $1 in
    control) echo "test_attr test_models test_text" ;;
    nan | ig_node | sv_step | efficiency) echo "test_attr" ;;
    pad_mask) echo "test_models test_attr" ;;
    split_scale) echo "test_models" ;;
    tokenizer) echo "test_text" ;;
  esac
}
what_of() {
  case $1 in
    control) echo "no fault (the pipeline itself)" ;;
    nan) echo "IG and exact Shapley outputs are NaN" ;;
    ig_node) echo "IG's first path node moved by 1 %" ;;
    sv_step) echo "SV skips the last step of every permutation" ;;
    pad_mask) echo "the classifier attends to PAD (its mask ignored)" ;;
    efficiency) echo "ee_explain leaves out the efficiency projection" ;;
    tokenizer) echo "the tokenizer drops the last word of a text" ;;
    split_scale) echo "a training step split by length weighs each group's gradient as a whole batch's" ;;
  esac
}
edits_of() {
  case $1 in
    control) ;;
    nan) cat <<'EOF'
libcore/attr/ig.c|                A[(size_t)(i0 + g) * cols + t] = (float)sum;|                A[(size_t)(i0 + g) * cols + t] = NAN;
libcore/attr/ig.c|        v->A[(size_t)i * T + t] = (float)sum;|        v->A[(size_t)i * T + t] = NAN;
libcore/attr/sv.c|            a[pos[f]] = (float)phi;|            a[pos[f]] = NAN;
EOF
    ;;
    ig_node) cat <<'EOF'
libcore/attr/ig.c|                h_alpha[j] = (float)alpha[k];|                h_alpha[j] = (float)(alpha[k] * (k == 0 ? 1.01 : 1.0));
libcore/attr/ig.c|        float a = (float)v->alpha[n];|        float a = (float)(v->alpha[n] * (n == 0 ? 1.01 : 1.0));
EOF
    ;;
    sv_step) cat <<'EOF'
libcore/attr/sv.c|        for (int j = 0; j < q->n; j++) {|        for (int j = 0; j < q->n - 1; j++) {
EOF
    ;;
    pad_mask) cat <<'EOF'
libcore/models/run.c|            else hm[o] = mask ? mask[k] != 0 : ids[k] != EE_PAD;|            else hm[o] = 1;
EOF
    ;;
    efficiency) cat <<'EOF'
libcore/explainer/features.c|    if (eff)|    if (0 && eff)
EOF
    ;;
    tokenizer) cat <<'EOF'
libcore/text/tokenize.c|    emit_word(&t);|    t.len = 0;
EOF
    ;;
    split_scale) cat <<'EOF'
libcore/train/train.c|        if (gn < nb) t->be->scale((size_t)gn * t->outs, (float)gn / (float)nb, t->d_dout);|        (void)0;
EOF
    ;;
  esac
}

# builds mutant $1 in $scratch/$1: prints why on failure
build() {
  local name=$1 dir=$scratch/$1 files=() f old new
  mkdir -p "$dir"
  cp -r libcore "$dir/src" 2>/dev/null || { echo "cannot copy libcore"; return 1; }
  find "$dir/src" \( -name '*.o' -o -name '*.a' \) -delete
  while IFS='|' read -r f old new; do
    [ -n "$f" ] || continue
    local n
    n=$(OLD=$old awk '$0 == ENVIRON["OLD"] {n++} END {print n + 0}' "$dir/src/${f#libcore/}")
    if [ "$n" -ne 1 ]; then echo "$f: the line to change is there $n times (want 1): $old"; return 1; fi
    OLD=$old NEW=$new awk '$0 == ENVIRON["OLD"] {print ENVIRON["NEW"]; next} {print}' "$dir/src/${f#libcore/}" \
      > "$dir/edit.tmp" && mv "$dir/edit.tmp" "$dir/src/${f#libcore/}"
    case " ${files[*]-} " in *" $f "*) ;; *) files+=("$f") ;; esac
  done < <(edits_of "$name")
  [ "$name" = control ] && files=(libcore/attr/ig.c libcore/attr/sv.c libcore/explainer/features.c libcore/models/run.c libcore/text/tokenize.c libcore/train/train.c)
  local objs=()
  for f in "${files[@]}"; do
    local o=$dir/$(basename "$f" .c).o
    "${COMPILE[@]}" -c "$dir/src/${f#libcore/}" -o "$o" > "$dir/compile.out" 2>&1 ||
      { echo "does not compile:"; head -5 "$dir/compile.out"; return 1; }
    objs+=("$o")
  done
  for t in $(tests_of "$name"); do
    "${LINK[@]}" -o "$dir/$t" "$objdir/$t.o" "${objs[@]}" "${LIBS[@]}" > "$dir/link.out" 2>&1 ||
      { echo "$t does not link:"; head -5 "$dir/link.out"; return 1; }
  done
}

# runs the test programs of mutant $1: prints which failed; status 0 when
# every program passed
run_tests() {
  local name=$1 dir=$scratch/$1 t rc fails=() any=0
  for t in $(tests_of "$name"); do
    "$dir/$t" > "$dir/$t.out" 2>&1; rc=$?
    if [ $rc -ne 0 ]; then
      any=1
      local nf
      nf=$(grep -Eo '[0-9]+ failed' "$dir/$t.out" | tail -1)
      fails+=("$t: ${nf:-exit $rc}")
    fi
  done
  if [ $any -eq 1 ]; then (IFS=';'; echo "${fails[*]}"); return 1; fi
  return 0
}

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${MUTANTS[@]}")
for m in "${wanted[@]}"; do
  [ -n "$(tests_of "$m")" ] && [ "$m" != control ] || { echo "mutation: no mutant '$m' (${MUTANTS[*]})"; exit 2; }
done

echo "mutation: control build ($(what_of control)): $(tests_of control)"
why=$(build control) || { echo "FAIL control: $why"; echo "mutants: ${#wanted[@]}, killed 0"; exit 1; }
if ! why=$(run_tests control); then
  echo "FAIL control: the unedited sources fail their tests ($why)"; echo "mutants: ${#wanted[@]}, killed 0"; exit 1
fi
rm -rf "$scratch/control"

killed=0; bad=0
for m in "${wanted[@]}"; do
  t0=$(date +%s)
  if ! why=$(build "$m"); then
    echo "ERROR $m ($(what_of "$m")): $why"; bad=$((bad + 1)); continue
  fi
  if why=$(run_tests "$m"); then
    echo "SURVIVED $m ($(what_of "$m")): $(tests_of "$m") pass with it"
  else
    killed=$((killed + 1))
    echo "killed $m ($(what_of "$m")) by ${why}  ($(( $(date +%s) - t0 )) s)"
    grep -h '^FAIL' "$scratch/$m"/*.out | head -2 | sed 's/^/    /'
  fi
  rm -rf "${scratch:?}/$m"
done
echo "mutants: ${#wanted[@]}, killed $killed"
[ "$killed" -eq "${#wanted[@]}" ] && [ "$bad" -eq 0 ]
