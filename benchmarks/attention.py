"""Attention benchmarks, ours and the PyTorch peer measured in the same run.

1. Padding-masked self-attention through `MultiHeadAttention` vs `nn.MultiheadAttention` (same weights) at
   batch 32, seq 512, d 512, 8 heads: inference (eval, no_grad: the peer takes its fused fast path) and a
   training step (forward + backward). Prints the ratio peer time / our time (> 1 means we are faster).
2. Causal ALiBi (`alibi_attention(causal=True)`, which builds no [heads, T, T] bias) against the same attention
   given an explicit additive bias tensor (`fused_attention(causal=True, attn_bias=alibi_bias(...))`, the bias built
   before timing, so the peer is not charged for it), at batch 4, seq 1024, 8 heads of 64. Ratio > 1: ALiBi faster.
3. Causal attention peak memory at seq T: `fused_attention(causal=True)` (no mask tensor), the same with an explicit
   `[T, T]` mask, and the formula (`attention`), which forms the weights. On CUDA the peak comes from the allocator; on
   the CPU each variant runs in a fresh process and the growth of its peak resident memory is reported.

Needs no shared data. Usage: python benchmarks/attention.py [--quick] [--device cpu|cuda]
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import torch
from torch import nn

from transformer_components.attention import MultiHeadAttention, alibi_attention, alibi_bias, attention, fused_attention
from transformer_components.core import default_device
from transformer_components.masks import causal_mask, real_token_mask, to_key_padding_mask


def _sync(device):
    if device.type == "cuda": torch.cuda.synchronize()


def _time_pair(fa, fb, device, reps, warmup=1):
    "Median seconds of `fa` and of `fb`, calls interleaved so that load changes on the machine hit both alike."
    for _ in range(warmup): fa(); fb()
    _sync(device)
    ta, tb = [], []
    for _ in range(reps):
        for f, ts in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter(); f(); _sync(device); ts.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb)


def bench_padding(device, batch, seq, dim, heads, reps):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(dim, heads, batch_first=True, device=device)
    ours = MultiHeadAttention.from_torch(mha)
    x = torch.randn(batch, seq, dim, device=device)
    lengths = torch.randint(seq // 2, seq + 1, (batch,), device=device)
    ids = (torch.arange(seq, device=device) < lengths[:, None]).long()  # 1 = token, 0 = padding
    mask, kpm = real_token_mask(ids), to_key_padding_mask(real_token_mask(ids))
    print(f"\n[padding mask] batch {batch}, seq {seq}, d {dim}, {heads} heads, {device.type}; median of {reps}")
    mha.eval(); ours.eval()
    with torch.no_grad():
        diff = (ours(x, mask=mask) - mha(x, x, x, key_padding_mask=kpm, need_weights=False)[0]).abs().max().item()
        t_ours, t_peer = _time_pair(lambda: ours(x, mask=mask),
                                    lambda: mha(x, x, x, key_padding_mask=kpm, need_weights=False), device, reps)
    print(f"  inference : ours {t_ours * 1e3:8.1f} ms   nn.MultiheadAttention {t_peer * 1e3:8.1f} ms   "
          f"ratio {t_peer / t_ours:.2f}x   (max |diff| {diff:.1e})")
    mha.train(); ours.train()
    def step_ours(): ours(x, mask=mask).sum().backward()
    def step_peer(): mha(x, x, x, key_padding_mask=kpm, need_weights=False)[0].sum().backward()
    t_ours, t_peer = _time_pair(step_ours, step_peer, device, reps)
    print(f"  train step: ours {t_ours * 1e3:8.1f} ms   nn.MultiheadAttention {t_peer * 1e3:8.1f} ms   "
          f"ratio {t_peer / t_ours:.2f}x")


def bench_alibi(device, batch, seq, heads, head_dim, reps):
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device=device) for _ in range(3))
    bias = alibi_bias(heads, seq, device=device)
    print(f"\n[causal ALiBi] batch {batch}, seq {seq}, {heads} heads of {head_dim}, {device.type}; median of {reps}")
    with torch.no_grad():
        diff = (alibi_attention(q, k, v, causal=True) - fused_attention(q, k, v, causal=True, attn_bias=bias)).abs().max().item()
        t_alibi, t_bias = _time_pair(lambda: alibi_attention(q, k, v, causal=True),
                                     lambda: fused_attention(q, k, v, causal=True, attn_bias=bias), device, reps)
    print(f"  alibi_attention {t_alibi * 1e3:8.1f} ms   explicit bias tensor {t_bias * 1e3:8.1f} ms   "
          f"ratio {t_bias / t_alibi:.2f}x   (max |diff| {diff:.1e}; the bias tensor is {bias.numel() * 4 / 2**20:.0f} MiB)")


VARIANTS = {
    "causal=True (no mask tensor)": lambda q, k, v, T: fused_attention(q, k, v, causal=True),
    "explicit [T, T] bool mask": lambda q, k, v, T: fused_attention(q, k, v, mask=causal_mask(T, device=q.device)),
    "the formula (weights formed)": lambda q, k, v, T: attention(q, k, v, mask=causal_mask(T, device=q.device), need_weights=True)[0],
}


def _peak_once(variant, T, heads, head_dim, device):
    "Extra peak memory (bytes) of one call, beyond the inputs."
    device = torch.device(device)
    q, k, v = (torch.randn(1, heads, T, head_dim, device=device) for _ in range(3))
    if device.type == "cuda":
        torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
        VARIANTS[variant](q, k, v, T); torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated(device) - base
    VARIANTS["causal=True (no mask tensor)"](q[..., :8, :], k[..., :8, :], v[..., :8, :], 8)  # load kernels first
    try:  # Linux: "5" resets the peak-RSS mark (VmHWM), so importing torch does not hide what the call adds
        with open("/proc/self/clear_refs", "w") as f: f.write("5")
        before = _status_kib("VmRSS")
        VARIANTS[variant](q, k, v, T)
        return (_status_kib("VmHWM") - before) * 1024
    except OSError:  # elsewhere: growth of the lifetime peak, a lower bound
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        VARIANTS[variant](q, k, v, T)
        return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024


def _status_kib(key):
    "A `kB` field of /proc/self/status."
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def bench_causal_memory(device, T, heads, head_dim):
    print(f"\n[causal peak memory] seq {T}, {heads} heads, head_dim {head_dim}, batch 1, {device.type}")
    print(f"  for scale: a [T, T] bool mask is {T * T / 2**20:.0f} MiB, float32 weights [1, {heads}, T, T] are "
          f"{heads * T * T * 4 / 2**20:.0f} MiB, the output itself {heads * T * head_dim * 4 / 2**20:.0f} MiB")
    for variant in VARIANTS:
        if device.type == "cuda": extra = _peak_once(variant, T, heads, head_dim, "cuda")
        else:  # a fresh process per variant, so one variant's high-water mark cannot hide another's
            code = (f"import json, runpy; b = runpy.run_path({__file__!r}); "
                    f"print(json.dumps(b['_peak_once']({variant!r}, {T}, {heads}, {head_dim}, 'cpu')))")
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            extra = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {variant:34s} extra peak {extra / 2**20:8.1f} MiB")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the best available)")
    p.add_argument("--threads", type=int, default=1, help="CPU threads (default 1: steady timings on a shared machine)")
    a = p.parse_args(argv)
    device = torch.device(a.device) if a.device else default_device()
    if device.type == "cpu": torch.set_num_threads(a.threads)
    print(f"torch {torch.__version__}, device {device}, threads {torch.get_num_threads()}")
    if a.quick:
        bench_padding(device, 4, 128, 128, 4, reps=3)
        bench_alibi(device, 1, 256, 4, 64, reps=3)
        bench_causal_memory(device, 1024, 4, 64)
    else:
        bench_padding(device, 32, 512, 512, 8, reps=5)
        bench_alibi(device, 4, 1024, 8, 64, reps=5)
        bench_causal_memory(device, 4096, 8, 64)


if __name__ == "__main__":
    main()
