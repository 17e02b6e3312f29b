#!/usr/bin/env python3
"""bench/peer_torch.py: the peer of bench/bench_gpu, in plain PyTorch.

Issue 23 compares libcore's GPU backend with what a PyTorch user would
write: the same models (doc/MODELS.md: the post-LayerNorm transformer with
exact GELU and a tanh pooler, the Kim text cnn), the same workloads as
bench_gpu (vocabulary 20000, T 128, random non-PAD lengths 32..128,
2 classes, random weights; IG s = 20 with Gauss-Legendre nodes on the
embedding output and the `pad` baseline; SV s = 20 permutations with the
absent real tokens replaced by PAD under the original mask), at fp32,
tf32 (torch.backends.cuda.matmul.allow_tf32) and bf16 (autocast), with
each side's error against its own fp32 maps on 8 sequences.

The peer is given what a careful user does: sequences sorted by length and
cut to the longest of each batch, fused QKV, scaled_dot_product_attention
(PyTorch's flash / memory-efficient kernels) where this PyTorch has it,
torch.no_grad for SV and f(x), large batches (rows per call below), the
permutations drawn on the device.  Captum itself is not used: it is not on
the device machines and cannot be brought there; its IG and
ShapleyValueSampling do the same passes with more Python per call.

Benchmark-only: the project does not depend on PyTorch.  Prints one JSON
object per row (prefix "PEER ") and a table; `bench/gpu_vs_peer.py` joins
them with bench_gpu's output into doc/bench/gpu_vs_peer.csv.

    python3 bench/peer_torch.py [small|bert|cnn|tiny] [--device cuda|cpu]
"""
import argparse
import json
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

PAD, UNK, CLS, SEP = 0, 1, 2, 3
ERR_ROWS = 8
HAVE_SDPA = hasattr(F, "scaled_dot_product_attention")


def random_ids(n, T, vocab, seed):
    """n x T token rows as bench_gpu's: [CLS] tokens [SEP] PAD..., length 32..T."""
    rng = np.random.default_rng(seed)
    lo = 32 if T >= 64 else 3
    ids = np.full((n, T), PAD, dtype=np.int64)
    for i in range(n):
        L = int(rng.integers(lo, T + 1))
        ids[i, 0] = CLS
        ids[i, 1:L - 1] = rng.integers(4, vocab, L - 2)
        ids[i, L - 1] = SEP
    return ids


def baseline_ids(ids):
    """IG's and SV's `pad` baseline: every real token replaced by PAD."""
    real = (ids != PAD) & (ids != CLS) & (ids != SEP)
    return torch.where(real, torch.full_like(ids, PAD), ids)


class Transformer:
    """doc/MODELS.md's transformer, weights as plain tensors (no autograd on them)."""

    def __init__(self, V, T, d, h, L, f, C, dev, seed=5):
        g = torch.Generator(device="cpu").manual_seed(seed)

        def w(*shape, fan_in):
            return (torch.randn(*shape, generator=g) / math.sqrt(fan_in)).to(dev)

        self.d, self.h, self.T = d, h, T
        self.tok = w(V, d, fan_in=1) * 0.02
        self.tok[PAD] = 0
        self.pos = w(T, d, fan_in=1) * 0.02
        self.ln_e = (torch.ones(d, device=dev), torch.zeros(d, device=dev))
        self.layers = []
        for _ in range(L):
            self.layers.append(dict(
                wqkv=w(3 * d, d, fan_in=d), bqkv=torch.zeros(3 * d, device=dev),
                wo=w(d, d, fan_in=d), bo=torch.zeros(d, device=dev),
                ln1=(torch.ones(d, device=dev), torch.zeros(d, device=dev)),
                w1=w(f, d, fan_in=d), b1=torch.zeros(f, device=dev),
                w2=w(d, f, fan_in=f), b2=torch.zeros(d, device=dev),
                ln2=(torch.ones(d, device=dev), torch.zeros(d, device=dev))))
        self.wp, self.bp = w(d, d, fan_in=d), torch.zeros(d, device=dev)
        self.wc, self.bc = w(C, d, fan_in=d), torch.zeros(C, device=dev)

    def embed(self, ids):
        T = ids.shape[1]
        return F.layer_norm(self.tok[ids] + self.pos[:T], (self.d,), *self.ln_e, 1e-5)

    def logits(self, e, mask):
        """e: B x T x d embedding output; mask: B x T bool (keys that take part)."""
        B, T, d = e.shape
        h, dh = self.h, d // self.h
        x = e
        if HAVE_SDPA:
            am = mask[:, None, None, :]
        else:
            am = torch.zeros(mask.shape, dtype=e.dtype, device=e.device).masked_fill(~mask, -1e30)[:, None, None, :]
        for p in self.layers:
            qkv = F.linear(x, p["wqkv"], p["bqkv"]).view(B, T, 3, h, dh).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            if HAVE_SDPA:
                ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=am)
            else:
                s = (q @ k.transpose(-1, -2)) / math.sqrt(dh) + am.to(q.dtype)
                ctx = torch.softmax(s, -1) @ v
            a = F.linear(ctx.transpose(1, 2).reshape(B, T, d), p["wo"], p["bo"])
            x = F.layer_norm(x + a, (d,), *p["ln1"], 1e-5)
            m = F.linear(F.gelu(F.linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])
            x = F.layer_norm(x + m, (d,), *p["ln2"], 1e-5)
        pooled = torch.tanh(F.linear(x[:, 0], self.wp, self.bp))
        return F.linear(pooled, self.wc, self.bc).float()


class Cnn:
    """doc/MODELS.md's text cnn: widths 3/4/5 x F filters, max over valid starts."""

    def __init__(self, V, T, d, Fn, widths, C, dev, seed=5):
        g = torch.Generator(device="cpu").manual_seed(seed)
        self.d = d
        self.tok = (torch.randn(V, d, generator=g) * 0.1).to(dev)
        self.tok[PAD] = 0
        self.convs = [((torch.randn(Fn, d, w, generator=g) / math.sqrt(d * w)).to(dev),
                       torch.zeros(Fn, device=dev), w) for w in widths]
        k = Fn * len(widths)
        self.wc = (torch.randn(C, k, generator=g) / math.sqrt(k)).to(dev)
        self.bc = torch.zeros(C, device=dev)

    def embed(self, ids):
        return self.tok[ids]

    def logits(self, e, mask):
        x = e.transpose(1, 2)
        z = []
        for W, b, w in self.convs:
            y = F.relu(F.conv1d(F.pad(x, (0, w - 1)), W, b))
            y = y.masked_fill(~mask[:, None, :], float("-inf"))
            z.append(y.amax(-1))
        return F.linear(torch.cat(z, 1), self.wc, self.bc).float()


class NullCtx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def load_libcore(model, folder, label, dev):
    """Replace model's weights by those bench_gpu wrote with EE_BENCH_DUMP
    (exchange format, column-major; doc/MODEL_FORMAT.md); returns libcore's
    error-table rows and its fp32 IG maps of them, or None when absent."""
    import os
    base = os.path.join(folder, label.replace(" ", "_").replace("/", "_"))
    if not os.path.exists(base + ".layout"):
        return None
    flat = np.fromfile(base + ".w", dtype=np.float32)
    t = {}
    for line in open(base + ".layout"):
        name, off, cnt, d0, d1, d2 = line.split()
        off, cnt = int(off), int(cnt)
        dims = [int(d0), int(d1), int(d2)]
        a = flat[off:off + cnt].reshape(dims, order="F")
        t[name] = torch.tensor(a if dims[2] > 1 else a[:, :, 0], device=dev)

    def row(x):
        return x.reshape(-1)

    if isinstance(model, Transformer):
        model.tok, model.pos = t["E_tok"], t["E_pos"]
        model.ln_e = (row(t["ln_emb_g"]), row(t["ln_emb_b"]))
        for l, p in enumerate(model.layers):
            g = lambda f: t[f"encoder.{l}.{f}"]
            p["wqkv"] = torch.cat([g("Wq").T, g("Wk").T, g("Wv").T]).contiguous()
            p["bqkv"] = torch.cat([row(g("bq")), row(g("bk")), row(g("bv"))])
            p["wo"], p["bo"] = g("Wo").T.contiguous(), row(g("bo"))
            p["ln1"] = (row(g("ln1_g")), row(g("ln1_b")))
            p["w1"], p["b1"] = g("W1").T.contiguous(), row(g("b1"))
            p["w2"], p["b2"] = g("W2").T.contiguous(), row(g("b2"))
            p["ln2"] = (row(g("ln2_g")), row(g("ln2_b")))
        model.wp, model.bp = t["Wp"].T.contiguous(), row(t["bp"])
        model.wc, model.bc = t["Wc"].T.contiguous(), row(t["bc"])
    else:
        model.tok = t["E_tok"]
        convs = []
        for k, (_, _, w) in enumerate(model.convs):
            W = t[f"conv.{k}.W"]  # w x d x F
            b = row(t[f"conv.{k}.b"]) if f"conv.{k}.b" in t else torch.zeros(W.shape[2], device=dev)
            convs.append((W.permute(2, 1, 0).contiguous(), b, w))
        model.convs = convs
        model.wc = t["Wc"].T.contiguous()
        model.bc = row(t["bc"]) if "bc" in t else torch.zeros(model.wc.shape[0], device=dev)
    ids = np.fromfile(base + ".ids", dtype=np.int32).astype(np.int64).reshape(ERR_ROWS, -1)
    ig = np.fromfile(base + ".ig", dtype=np.float32) if os.path.exists(base + ".ig") else None
    return ids, (ig.reshape(ERR_ROWS, -1) if ig is not None else None)


def precision_ctx(p, dev):
    """fp32: no TF32 anywhere; tf32: TF32 products; bf16: autocast to bf16."""
    if dev.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = p == "tf32"
        torch.backends.cudnn.allow_tf32 = p == "tf32"
    if p == "bf16":
        return torch.autocast(device_type=dev.type, dtype=torch.bfloat16)
    return NullCtx()


def chunks_by_length(ids, per_chunk):
    """Sequences sorted by length, cut into chunks of per_chunk."""
    lengths = (ids != PAD).sum(1)
    order = torch.argsort(lengths, descending=True)
    for i in range(0, len(order), per_chunk):
        sel = order[i:i + per_chunk]
        Lmax = int(lengths[sel].max())
        yield sel, Lmax


def integrated_gradients(model, ids, s, rows, prec, dev):
    """N x T maps, f(x), f(x) - f(b) (explained class: argmax at x)."""
    n, T = ids.shape
    x, g = np.polynomial.legendre.leggauss(s)
    alpha = torch.tensor((1 + x) / 2, dtype=torch.float32, device=dev)
    wts = torch.tensor(g / 2, dtype=torch.float32, device=dev)
    maps = torch.zeros(n, T, device=dev)
    fx = torch.zeros(n, device=dev)
    delta = torch.zeros(n, device=dev)
    per = max(1, rows // s)
    for sel, L in chunks_by_length(ids, per):
        idc = ids[sel, :L]
        mask = idc != PAD
        B = idc.shape[0]
        with torch.no_grad(), precision_ctx(prec, dev):
            ex = model.embed(idc).float()
            eb = model.embed(baseline_ids(idc)).float()
        with torch.no_grad():
            # f(x) and f(b) in fp32, as libcore's samplers do at every precision
            lx = model.logits(ex, mask)
            lb = model.logits(eb, mask)
        tgt = lx.argmax(1)
        diff = ex - eb
        E = (eb[:, None] + alpha[None, :, None, None] * diff[:, None]).reshape(B * s, L, -1).requires_grad_(True)
        with precision_ctx(prec, dev):
            out = model.logits(E, mask.repeat_interleave(s, 0))
        f = out.gather(1, tgt.repeat_interleave(s)[:, None]).sum()
        (grad,) = torch.autograd.grad(f, E)
        gsum = (grad.view(B, s, L, -1).float() * wts[None, :, None, None]).sum(1)
        maps[sel, :L] = (diff * gsum).sum(-1)
        fx[sel] = lx.gather(1, tgt[:, None])[:, 0]
        delta[sel] = fx[sel] - lb.gather(1, tgt[:, None])[:, 0]
    return maps, fx, delta


def shapley_sampling(model, ids, s, rows, prec, dev, seed=11):
    """N x T maps by s permutations of the real tokens (absent -> PAD)."""
    n, T = ids.shape
    maps = torch.zeros(n, T, device=dev)
    fx = torch.zeros(n, device=dev)
    delta = torch.zeros(n, device=dev)
    lengths = (ids != PAD).sum(1)
    per = max(1, rows // (s * 64))
    with torch.no_grad():
        for sel, L in chunks_by_length(ids, per):
            idc = ids[sel, :L]
            mask = idc != PAD
            base = baseline_ids(idc)
            lx = model.logits(model.embed(idc), mask)
            lb = model.logits(model.embed(base), mask)
            tgt = lx.argmax(1)
            blocks, metas = [], []
            for j, i in enumerate(sel.tolist()):
                nr = int(lengths[i]) - 2
                g = torch.Generator(device=dev).manual_seed(seed * 1000003 + i)
                perm = torch.argsort(torch.rand(s, nr, generator=g, device=dev), 1)
                rank = torch.empty_like(perm)
                rank.scatter_(1, perm, torch.arange(nr, device=dev).expand(s, nr))
                k = torch.arange(nr, device=dev)
                incl = (rank[:, None, :] <= k[None, :, None]).reshape(s * nr, nr)
                r = base[j].repeat(s * nr, 1)
                r[:, 1:1 + nr] = torch.where(incl, idc[j, 1:1 + nr].expand(s * nr, nr), PAD)
                blocks.append(r)
                metas.append((j, i, nr, perm))
            R = torch.cat(blocks)
            M = torch.cat([mask[j].expand(s * nr, L) for (j, _, nr, _) in metas])
            T_ = torch.cat([tgt[j].expand(s * nr) for (j, _, nr, _) in metas])
            vals = torch.empty(R.shape[0], device=dev)
            for a in range(0, R.shape[0], rows):
                with precision_ctx(prec, dev):
                    out = model.logits(model.embed(R[a:a + rows]), M[a:a + rows])
                vals[a:a + rows] = out.gather(1, T_[a:a + rows, None])[:, 0]
            o = 0
            for (j, i, nr, perm) in metas:
                v = vals[o:o + s * nr].view(s, nr)
                o += s * nr
                fb = lb[j, tgt[j]]
                prev = torch.cat([fb.expand(s, 1), v[:, :-1]], 1)
                phi = torch.zeros(nr, device=dev).scatter_add_(0, perm.reshape(-1), (v - prev).reshape(-1)) / s
                maps[i, 1:1 + nr] = phi
                fx[i] = lx[j, tgt[j]]
                delta[i] = fx[i] - fb
    return maps, fx, delta


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def timed(fn, dev):
    sync(dev)
    t0 = time.perf_counter()
    r = fn()
    sync(dev)
    return time.perf_counter() - t0, r


def bench_shape(label, model, T, vocab, n0, rows, dev, tiny, weights=None):
    ref = {}
    same = load_libcore(model, weights, label, dev) if weights else None
    if weights:
        print(f"{label}: {'libcore' if same else 'own random'} weights", flush=True)

    def rows_for(n):
        ids = random_ids(n, T, vocab, 7)
        if same is not None:  # the error rows are libcore's
            k = min(n, ERR_ROWS)
            ids[:k] = same[0][:k]
        return torch.tensor(ids, device=dev)

    if same is not None and same[1] is not None:
        # the same weights, rows and quadrature: libcore's fp32 IG maps again
        mine, _, _ = integrated_gradients(model, rows_for(ERR_ROWS), 20, rows["IG"], "fp32", dev)
        theirs = torch.tensor(same[1], device=dev)
        x = float((mine - theirs).abs().max() / theirs.abs().max())
        print("PEER " + json.dumps(dict(shape=label, crosscheck="IG s=20 fp32 maps, peer vs libcore", rel_err=x)))
        print(f"{label:22s} fp32 IG s=20: the peer's maps against libcore's, same weights and rows: "
              f"max |a - a_libcore| / max |a_libcore| = {x:.2e}", flush=True)
    for prec in ("fp32", "tf32", "bf16"):
        if prec != "fp32" and dev.type != "cuda":
            continue
        for work in ("IG", "SV"):
            fn = integrated_gradients if work == "IG" else shapley_sampling
            ids0 = rows_for(n0[work])
            t, _ = timed(lambda: fn(model, ids0, 20, rows[work], prec, dev), dev)  # warm-up
            n = n0[work]
            if not tiny and t < 0.75:
                n = int(min(max(n0[work], n0[work] * 1.5 / max(t, 1e-4)), 16 * n0[work]))
            ids = rows_for(n)
            t, (maps, fx, delta) = timed(lambda: fn(model, ids, 20, rows[work], prec, dev), dev)
            m = maps[:ERR_ROWS].double().cpu()
            # completeness / efficiency: max |sum(a) - (f(x) - f(b))| / max |f(x)|
            eff = float((m.sum(1) - delta[:ERR_ROWS].double().cpu()).abs().max()
                        / fx[:ERR_ROWS].double().cpu().abs().max())
            if prec == "fp32":
                ref[work] = m
                err = 0.0
            else:
                err = float((m - ref[work]).abs().max() / ref[work].abs().max())
            row = dict(shape=label, workload=f"{work} s=20", precision=prec, rate=n / t, n=n,
                       map_err=err, sum_err=eff, rows_per_call=rows[work])
            print("PEER " + json.dumps(row), flush=True)
            print(f"{label:22s} {prec:5s} {work} s=20 {n / t:10.1f} seq/s ({n} seq)  map err {err:.2e}  "
                  f"sum err {eff:.2e}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="all", choices=["all", "small", "bert", "cnn", "tiny"])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--weights", default=None,
                    help="folder of bench_gpu's EE_BENCH_DUMP: run libcore's weights and rows")
    a = ap.parse_args()
    dev = torch.device(a.device)
    tiny = a.mode == "tiny"
    print(f"peer: torch {torch.__version__}, device {dev}"
          f"{' ' + torch.cuda.get_device_name() if dev.type == 'cuda' else ''}, sdpa {HAVE_SDPA}", flush=True)
    V, T, C = (60, 16, 2) if tiny else (20000, 128, 2)
    if tiny:
        bench_shape("transformer tiny", Transformer(V, T, 16, 2, 2, 32, C, dev), T, V,
                    {"IG": ERR_ROWS, "SV": ERR_ROWS}, {"IG": 64, "SV": 256}, dev, True, a.weights)
        bench_shape("cnn tiny", Cnn(V, T, 8, 4, (3, 4, 5), C, dev), T, V,
                    {"IG": ERR_ROWS, "SV": ERR_ROWS}, {"IG": 64, "SV": 256}, dev, True, a.weights)
        return
    if a.mode in ("all", "small"):
        bench_shape("transformer d64 L2", Transformer(V, T, 64, 4, 2, 256, C, dev), T, V,
                    {"IG": 512, "SV": 64}, {"IG": 8192, "SV": 16384}, dev, False, a.weights)
    if a.mode in ("all", "bert"):
        bench_shape("transformer d768 L12", Transformer(V, T, 768, 12, 12, 3072, C, dev), T, V,
                    {"IG": 64, "SV": ERR_ROWS}, {"IG": 320, "SV": 2048}, dev, False, a.weights)
    if a.mode in ("all", "small", "cnn"):
        bench_shape("cnn 3/4/5 x 100", Cnn(V, T, 64, 100, (3, 4, 5), C, dev), T, V,
                    {"IG": 1024, "SV": 64}, {"IG": 8192, "SV": 16384}, dev, False, a.weights)


if __name__ == "__main__":
    sys.exit(main())
