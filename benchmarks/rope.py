"""RoPE throughput against a plain copy of the same tensor (the memory-bandwidth baseline) and against peers.

Run: python benchmarks/rope.py [--no-compile] [--threads N] [--quick]  (--quick: toy sizes, a check that the script runs)
Prints one line per implementation: best time over interleaved rounds (each sample is 10 back-to-back calls, so
every implementation is timed in its own steady state: with one call per sample, a fast kernel that runs right after
a peer that floods the 32 MiB L3 cache with temporaries reads its input from DRAM and looks up to 2x slower, and the
order of the peers decides the ratios), effective bandwidth (bytes read + written by an ideal one-pass kernel: the
input once, the output once) and the ratio to the copy of the same size. The in-place rows (`rotate_`) move the same
bytes as the others but write into memory that is already in use, where the others (and the copy) write a freshly
allocated tensor; on a CPU that first write can cost about as much as the arithmetic.
The "ours" rows use the fast kernels (`RotaryEmbedding(fast=True)`, `rotate_`, `compile=True`); "ours formula" is the
default `rotate`, the plain `a cos - b sin` of the notebook.
Peers are re-implemented here from their published formulas (HF rotate-half, torchtune's interleaved reshape,
Meta llama's complex multiplication); `rotary-embedding-torch` is measured when installed (bench extra).
No shared data is needed.
"""
import argparse, time
import torch
from transformer_components.rope import RopeScaling, RotaryEmbedding
from _timing import best_times  # benchmarks/ is on sys.path when a script runs

def hf_rotate_half(x, cos, sin):
    "transformers' llama: q * cos + rotate_half(q) * sin with cos/sin repeated over both halves."
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin

def torchtune_style(x, cache):
    "torchtune's RotaryPositionalEmbeddings: reshape to pairs, stack the two rotated coordinates, flatten."
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    out = torch.stack([xs[..., 0] * cache[..., 0] - xs[..., 1] * cache[..., 1],
                       xs[..., 1] * cache[..., 0] + xs[..., 0] * cache[..., 1]], -1)
    return out.flatten(3).type_as(x)

def llama_complex(x, freqs_cis):
    "Meta llama's apply_rotary_emb: view pairs as complex, multiply by freqs_cis, view back."
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis).flatten(3).type_as(x)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile'd half layout (compiling takes seconds)")
    ap.add_argument("--shape", default="8,8,512,64", help="batch,heads,seq,head_dim")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: timed with thread CPU time)")
    ap.add_argument("--quick", action="store_true", help="toy sizes, few rounds, no compile: checks that the script runs, times nothing")
    args = ap.parse_args()
    if args.quick: args.shape, args.no_compile = "2,2,16,16", True
    torch.set_num_threads(args.threads)
    B, H, S, D = map(int, args.shape.split(","))
    torch.manual_seed(0)
    x = torch.randn(B, H, S, D)
    ours_i, ours_h = RotaryEmbedding(D, fast=True), RotaryEmbedding(D, layout="half", fast=True)
    formula_i = RotaryEmbedding(D)
    yarn = RopeScaling("yarn", 4, original_max_seq_len=S // 4)  # scaled frequencies and a factor on cos/sin: same kernel
    scaled_i, scaled_h = RotaryEmbedding(D, scaling=yarn, fast=True), RotaryEmbedding(D, layout="half", scaling=yarn, fast=True)
    cos, sin = ours_i.cos_cached[:S], ours_i.sin_cached[:S]
    cos2, sin2 = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)
    cache = torch.stack([cos, sin], -1)
    freqs_cis = torch.complex(cos, sin)
    x_i, x_h = x.clone(), x.clone()  # rotated over and over by the in-place rows (rotations keep the values in range)
    # the peers must compute what we compute
    torch.testing.assert_close(hf_rotate_half(x, cos2, sin2), ours_h.rotate(x), rtol=0, atol=1e-5)
    torch.testing.assert_close(torchtune_style(x, cache), ours_i.rotate(x), rtol=0, atol=1e-5)
    torch.testing.assert_close(llama_complex(x, freqs_cis), ours_i.rotate(x), rtol=0, atol=1e-5)
    with torch.no_grad(): torch.testing.assert_close(ours_i.rotate(x), formula_i.rotate(x), rtol=0, atol=1e-5)
    fns = {"copy (baseline)": lambda: x.clone(),
           "ours interleaved": lambda: ours_i.rotate(x), "ours half": lambda: ours_h.rotate(x),
           "ours interleaved, in place": lambda: ours_i.rotate_(x_i), "ours half, in place": lambda: ours_h.rotate_(x_h),
           "ours interleaved, yarn-scaled": lambda: scaled_i.rotate(x), "ours half, yarn-scaled": lambda: scaled_h.rotate(x),
           "ours formula, interleaved": lambda: formula_i.rotate(x),  # among the slow rows: its temporaries flood the cache
           "HF rotate_half": lambda: hf_rotate_half(x, cos2, sin2),
           "torchtune-style": lambda: torchtune_style(x, cache),
           "llama complex": lambda: llama_complex(x, freqs_cis)}
    try:
        from rotary_embedding_torch import RotaryEmbedding as LucidRotary
        lucid = LucidRotary(dim=D)
        fns["rotary-embedding-torch"] = lambda: lucid.rotate_queries_or_keys(x)
    except ImportError:
        print("rotary-embedding-torch: not installed (bench extra), not measured")
    if not args.no_compile:
        t = time.time()
        comp_h = RotaryEmbedding(D, layout="half", compile=True)
        with torch.no_grad(): torch.testing.assert_close(comp_h.rotate(x), ours_h.rotate(x), rtol=0, atol=1e-6)
        print(f"torch.compile of the half layout took {time.time() - t:.1f} s")
        fns["ours half, compiled"] = lambda: comp_h.rotate(x)
    best = best_times(fns, rounds=2 if args.quick else 30, inner=2 if args.quick else 10)
    nbytes = 2 * x.numel() * x.element_size()
    base = best["copy (baseline)"]
    print(f"RoPE on [{B}, {H}, {S}, {D}] float32, {torch.get_num_threads()} threads, torch {torch.__version__}")
    print(f"{'implementation':30s} {'ms':>8s} {'GB/s':>8s} {'vs copy':>8s}")
    for k, t in best.items():
        print(f"{k:30s} {t * 1e3:8.3f} {nbytes / t / 1e9:8.1f} {base / t:8.2f}")
    peers = [k for k in best if not k.startswith(("ours", "copy"))]
    for ours in [k for k in best if k.startswith("ours")]:
        print(f"{ours}: " + ", ".join(f"{best[p] / best[ours]:.2f}x {p}" for p in peers))

if __name__ == "__main__":
    main()
