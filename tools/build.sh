#!/usr/bin/env bash
# build.sh: configures (once) and builds libcore, the MEX gateways, the C
# tests and the benchmark. Extra arguments go to configure on first run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  autoreconf -fi >/dev/null
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
  ./configure -q "$@"
fi
make -s -j"$(nproc)" all
make -s -j"$(nproc)" check TESTS=   # builds the test programs, runs none
