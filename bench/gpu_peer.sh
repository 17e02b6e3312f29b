#!/bin/bash
# bench/gpu_peer.sh: issue 23's comparison in one run on one GPU: libcore's
# bench_gpu (the bench transformer, the BERT-base shape, the cnn) and the
# plain-PyTorch peer (bench/peer_torch.py) on the same device, then the
# joined table (bench/gpu_vs_peer.py) as CSV.
#
#   bench/gpu_peer.sh BENCH_GPU OUTDIR     (after tests/gpu/check.sh built BENCH_GPU)
#
# Writes OUTDIR/ours.log, OUTDIR/peer.log, OUTDIR/gpu_vs_peer.csv. The peer
# runs bench_gpu's own weights and error rows (EE_BENCH_DUMP), so both
# sides' errors against their fp32 maps are of the same maps, and it first
# checks its fp32 IG maps against libcore's (the "cross-check" lines).
# PyTorch is the peer's, not a dependency of the project: the device
# machines have it; elsewhere the peer half is skipped with a message.
set -u
BG=${1:?bench_gpu binary}
OUT=${2:?output folder}
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$OUT"
# bench_gpu's models and error rows, for the peer to run the same weights
# on the same rows (and to check its fp32 IG maps against libcore's)
DUMP=$(mktemp -d)
trap 'rm -rf "$DUMP"' EXIT
{ EE_BENCH_DUMP=$DUMP "$BG" small; EE_BENCH_DUMP=$DUMP "$BG" bert; } 2>&1 | tee "$OUT/ours.log"
if python3 -c 'import torch' 2>/dev/null; then
    PYTHONUNBUFFERED=1 timeout "${EE_PEER_TIMEOUT:-400}" python3 bench/peer_torch.py all --weights "$DUMP" 2>&1 |
        tee "$OUT/peer.log"
    python3 bench/gpu_vs_peer.py "$OUT/ours.log" "$OUT/peer.log" | tee "$OUT/gpu_vs_peer.csv"
else
    echo "gpu_peer.sh: no PyTorch here; the peer is not measured"
fi
