#!/usr/bin/env python3
"""bench/gpu_vs_peer.py: join bench_gpu's and peer_torch.py's output of one
run into the CSV of issue 23 (doc/bench/gpu_vs_peer.csv):

    shape,workload,precision,ours,peer,ratio,error_ours,error_peer

ours / peer: sequences per second; ratio = ours / peer; error_*: each
side's map error against its own fp32 maps (max |a - a32| / max |a32|,
8 sequences).  Rows only where both sides measured the same shape,
workload and precision.

    python3 bench/gpu_vs_peer.py BENCH_GPU_LOG PEER_LOG > gpu_vs_peer.csv
"""
import json
import re
import sys

NUM = r"[-+0-9.eEnaifNI]+"


def ours(path):
    """{(shape, workload, precision): [rate, error]} from bench_gpu's output."""
    rows, errs = {}, {}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if len(line) < 30:
            continue
        shape, rest = line[:22].strip(), line[23:]
        m = re.match(r"(fp32|tf32|bf16)\s+(IG s=20|SV s=20|train epoch|explainer)\s+(" + NUM + r") seq/s", rest)
        if m:
            rows[(shape, m.group(2), m.group(1))] = [float(m.group(3)), None]
            continue
        m = re.match(r"(fp32|tf32|bf16)\s+(" + NUM + r")\s+(" + NUM + r")\s+(" + NUM + r")\s+(" + NUM + r")\s*$", rest)
        if m:
            errs[(shape, "IG s=20", m.group(1))] = float(m.group(2))
            errs[(shape, "SV s=20", m.group(1))] = float(m.group(4))
    for k, e in errs.items():
        if k in rows:
            rows[k][1] = e
    return rows


def peer(path):
    rows = {}
    for line in open(path, errors="replace"):
        if line.startswith("PEER "):
            r = json.loads(line[5:])
            if "workload" not in r:  # the cross-check line
                continue
            rows[(r["shape"], r["workload"], r["precision"])] = [r["rate"], r["map_err"]]
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = ours(sys.argv[1]), peer(sys.argv[2])
    print("shape,workload,precision,ours,peer,ratio,error_ours,error_peer")
    for k in b:
        if k not in a:
            continue
        (ro, eo), (rp, ep) = a[k], b[k]
        fmt = lambda e: "" if e is None else f"{e:.3g}"
        print(f"{k[0]},{k[1]},{k[2]},{ro:.4g},{rp:.4g},{ro / rp:.3f},{fmt(eo)},{fmt(ep)}")


if __name__ == "__main__":
    main()
