#!/usr/bin/env bash
# quickstart.sh: from a fresh clone on Debian 12 (as root): install what is
# missing, build, build the datasets, and run the main job.
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
tools/build.sh
datasets/build.sh
octave-cli --no-gui --no-history -q --eval "addpath('mex','scripts','scripts/paper'); main_job()"
