#!/usr/bin/env bash
# tests/layering/check.sh: libcore's layers as doc/DESIGN_NOTES.md writes
# them, checked on the built objects and on the #include lines, so that a
# lower folder that starts to call or include a higher one fails here.
#
# The order is read from the line of DESIGN_NOTES that starts with
# "Layers, bottom first:" (folders of one level separated by spaces,
# levels by "<"). A folder of libcore may use (call, include) its own
# files and the folders of lower levels, never one of its own level or
# above. Checked:
#   - every folder of libcore is in the order;
#   - objects (nm): every undefined symbol of an object that another
#     object of libcore defines points to its own folder or a lower one,
#     and no object reaches itself through such calls (a circle of files);
#   - includes: every #include "..." of a file of libcore names a header
#     of its own folder, of a lower one, or libcore's public headers
#     (the files at libcore's top: ee.h, ee_text.h, ee_mat.h,
#     ee_model_io.h), which include nothing but each other;
#   - outside libcore: a file includes no libcore header but the public
#     ones. The production front ends (mex/, cli/, tools/) have no
#     exceptions: what they need belongs in a public header; white-box
#     tests and benchmarks (tests/, bench/) may be excepted, each file and
#     header on a line of tests/layering/allowed.txt with its reason, and
#     an exception that no file uses any more fails (the list stays what
#     the tree does).
# #include "..." and #include <...> are both read (libcore's folder is on
# the include path, so <backend/backend.h> would reach it too).
# Exceptions, each with its reason, are in tests/layering/allowed.txt.
# The objects are those of the last build (tools/build.sh); a source file
# without its object fails. Prints FAIL lines, a PASS line per part and
#   layering: N passed, N failed, 0 skipped
# (one check per folder, object, file). Exit status 1 on any failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
doc=${EE_LAYER_DOC:-doc/DESIGN_NOTES.md}
allowed=tests/layering/allowed.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# ---- the order ---------------------------------------------------------------
line=$(sed -n 's/^Layers, bottom first: *//p' "$doc" | head -1 | tr -d '`/,')
if [ -z "$line" ]; then
  fail "order: no line 'Layers, bottom first: ...' in $doc"
  echo "layering: $passed passed, $failed failed, 0 skipped"; exit 1
fi
echo "$line" | awk -F'<' '{for (i = 1; i <= NF; i++) {n = split($i, f, " "); for (j = 1; j <= n; j++) print f[j], i}}' \
  > "$tmp/levels"
level() { awk -v f="$1" '$1 == f {print $2}' "$tmp/levels"; }
n=0
for d in $(find libcore -mindepth 1 -maxdepth 1 -type d | sort); do
  f=${d#libcore/}
  if [ -z "$(level "$f")" ]; then fail "order: libcore/$f/ is not in the order of $doc"; else n=$((n + 1)); fi
done
passed=$((passed + n)); echo "PASS order: $n folders placed ($line)"

# exceptions: "<kind> <file glob> <target glob>  reason"; the line that
# matched is recorded in $tmp/used (its number), for the unused ones
: > "$tmp/used"
allow() { # kind file target
  local k p t rest no=0
  while read -r k p t rest; do
    no=$((no + 1))
    case "$k" in ''|'#'*) continue ;; esac
    [ "$k" = "$1" ] || continue
    # shellcheck disable=SC2053
    if [[ $2 == $p && $3 == $t ]]; then echo "$no" >> "$tmp/used"; return 0; fi
  done < "$allowed"
  return 1
}

# ---- objects -------------------------------------------------------------------
objs=()
missing=0
for src in $(find libcore -name '*.c' | sort) $(find libcore -name '*.cu' | sort); do
  dir=$(dirname "$src"); base=$(basename "$src"); base=${base%.*}
  o=$(find "$dir" -maxdepth 1 \( -name "$base.o" -o -name "*-$base.o" \) | head -1)
  if [ -n "$o" ]; then objs+=("$o")
  elif [ "${src##*.}" = c ]; then fail "objects: $src has no object (build first: tools/build.sh)"; missing=1
  fi   # .cu: objects only in a build with CUDA
done
for o in "${objs[@]}"; do
  nm -g --defined-only "$o" | awk -v o="$o" 'NF == 3 {print $3, o}'
done > "$tmp/def"
for o in "${objs[@]}"; do nm -u "$o" | awk -v o="$o" '{print o, $NF}'; done > "$tmp/und"
# "caller callee symbol" for every call between two objects of libcore
awk 'NR == FNR {def[$1] = $2; next} ($2 in def) && def[$2] != $1 {print $1, def[$2], $2}' \
  "$tmp/def" "$tmp/und" | sort -u > "$tmp/calls"
n=0
for o in "${objs[@]}"; do
  fo=${o#libcore/}; fo=${fo%%/*}; lo=$(level "$fo"); bad=0
  while read -r a b s; do
    fb=${b#libcore/}; fb=${fb%%/*}
    [ "$fb" = "$fo" ] && continue
    lb=$(level "$fb")
    if [ -z "$lb" ] || [ -z "$lo" ] || [ "$lb" -ge "$lo" ]; then
      fail "calls: $a calls $s of $b: $fo/ may not call $fb/ (order: $line)"; bad=1
    fi
  done < <(awk -v o="$o" '$1 == o' "$tmp/calls")
  [ $bad -eq 0 ] && n=$((n + 1))
done
passed=$((passed + n)); echo "PASS calls: $n objects call only their own folder and lower ones"

# circles of files: the transitive closure of the calls; an object that
# reaches itself is on one (exceptions: "circle" lines, both ends matching)
awk '{print $1, $2}' "$tmp/calls" | sort -u | while read -r a b; do
  allow circle "$a" "$b" || echo "$a $b"
done > "$tmp/edges"
awk '
  {e[$1, $2] = 1; v[$1] = 1; v[$2] = 1}
  END {
    n = 0; for (x in v) name[++n] = x
    for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) r[i, j] = ((name[i], name[j]) in e)
    for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if (r[i, k]) for (j = 1; j <= n; j++) if (r[k, j]) r[i, j] = 1
    for (i = 1; i <= n; i++) if (r[i, i]) {
      s = ""; for (j = 1; j <= n; j++) if (r[i, j] && r[j, i]) s = s " " name[j]
      print name[i] ":" s
    }
  }' "$tmp/edges" | sort > "$tmp/circles"
n=0
for o in "${objs[@]}"; do
  c=$(awk -F: -v o="$o" '$1 == o {print $2}' "$tmp/circles")
  if [ -n "$c" ]; then fail "circle: $o calls round a circle of files:$c"; else n=$((n + 1)); fi
done
passed=$((passed + n)); echo "PASS circles: $n objects on no circle of calls"

# ---- includes ---------------------------------------------------------------------
# resolve FILE INCLUDE: the path it names (its folder first, then -I libcore)
resolve() {
  local d; d=$(dirname "$1")
  if [ -e "$d/$2" ]; then realpath -m --relative-to=. "$d/$2"
  elif [ -e "libcore/$2" ]; then echo "libcore/$2"
  fi
}
incs() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$1"; }
n=0
for f in $(find libcore -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort); do
  fo=${f#libcore/}; case "$fo" in */*) fo=${fo%%/*} ;; *) fo= ;; esac
  bad=0
  for i in $(incs "$f"); do
    t=$(resolve "$f" "$i"); case "$t" in libcore/*) ;; *) continue ;; esac
    ft=${t#libcore/}; case "$ft" in */*) ft=${ft%%/*} ;; *) ft= ;; esac
    [ "$ft" = "$fo" ] && continue
    if [ -z "$ft" ]; then continue; fi            # the public headers: every layer's
    if [ -z "$fo" ]; then fail "includes: $f (public) includes $t"; bad=1; continue; fi
    lo=$(level "$fo"); lt=$(level "$ft")
    if [ -z "$lt" ] || [ -z "$lo" ] || [ "$lt" -ge "$lo" ]; then
      fail "includes: $f includes $t: $fo/ may not include $ft/ (order: $line)"; bad=1
    fi
  done
  [ $bad -eq 0 ] && n=$((n + 1))
done
passed=$((passed + n)); echo "PASS includes: $n files of libcore include only their own folder, lower ones and the public headers"

if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  files=$(git ls-files -co --exclude-standard | grep -E '\.(c|h|cc|cpp|cu|cuh)$' | grep -v '^libcore/')
else
  files=$(find . -path ./libcore -prune -o -path ./san -prune -o -path ./fuzz -prune -o \
            -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print |
          sed 's|^\./||')
fi
n=0
for f in $files; do
  [ -f "$f" ] || continue
  bad=0; any=0
  for i in $(incs "$f"); do
    t=$(resolve "$f" "$i"); case "$t" in libcore/*) ;; *) continue ;; esac
    any=1
    case "${t#libcore/}" in */*) ;; *) continue ;; esac   # a public header: libcore's top
    case "$f" in
      mex/*|cli/*|tools/*)   # a production front end: no exception applies
        fail "public API: $f includes $t (libcore-internal; a front end gets what it needs from a public header: ee.h, ee_text.h, ee_mat.h, ee_model_io.h)"
        bad=1; continue ;;
    esac
    allow include "$f" "${t#libcore/}" && continue
    fail "public API: $f includes $t (libcore-internal; only the headers at libcore's top are public)"; bad=1
  done
  [ $any -eq 1 ] && [ $bad -eq 0 ] && n=$((n + 1))
done
passed=$((passed + n)); echo "PASS public API: $n files outside libcore include only libcore's public headers (ee.h, ee_text.h, ee_mat.h, ee_model_io.h) or an exception of $allowed"

# every include exception still used: a white-box test that no longer
# needs its internal header loses its line
n=0; no=0
while read -r k p t rest; do
  no=$((no + 1))
  [ "$k" = include ] || continue
  if grep -qx "$no" "$tmp/used"; then n=$((n + 1))
  else fail "exceptions: line $no of $allowed ($p includes $t) is used by no file: remove it"
  fi
done < "$allowed"
passed=$((passed + n)); echo "PASS exceptions: the $n include exceptions of $allowed are each used"

echo "layering: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
