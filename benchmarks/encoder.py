"""Training throughput (real tokens per second) of our SentimentClassifier against the same-size classifier built
from PyTorch's nn.TransformerEncoder, measured in one run on the same batches.

Run: python benchmarks/encoder.py [--threads N] [--rounds R] [--device cuda] [--dim D --layers L --heads H --ff F --batch B]
     python benchmarks/encoder.py --quick   (toy size, a few seconds: checks that the script still runs)
Both models: token + learned position embeddings, pre-norm encoder blocks with a final LayerNorm, masked mean
pooling, a linear head; same parameter count, dropout 0.1, AdamW. One training step = forward, cross-entropy,
backward, optimizer step, on a dynamically padded batch. Each step is timed round-robin over the models and the
best round is kept. Ours is timed three times: as `tc-train` steps it (`encoder.fast = True`, `training.adamw`,
PyTorch's fused AdamW where available, and `tc-train`'s default gradient-norm clipping at 1.0), with the plain
`torch.optim.AdamW` the peer gets and no clipping (the models alone compared, still `fast`), and like that once more
with `fast = False`, the block the encoder notebook teaches, on the whole padded batch as the peer runs it: the
difference between those two lines is what the fast path buys (skipping the padding, cheaper dropout draws, and on
the CPU attention written out instead of SDPA's unfused fallback). No shared data is needed (synthetic ids with
sentence-like lengths; `tc-train` itself buckets lengths by default, which leaves less padding to skip). On a GPU
(`--device cuda`) each step is timed between two synchronizations; the unpadded path pays two host syncs a forward
(the real-token count and the longest sequence), which a GPU feels more than a CPU.
"""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformer_components.encoder import EncoderConfig, SentimentClassifier, pad_batch
from transformer_components.training import TrainConfig, adamw


class TorchClassifier(nn.Module):
    "The peer: `nn.TransformerEncoder` (batch_first, norm_first) with the same embeddings, pooling and head."
    def __init__(self, vocab, dim, layers, heads, ff, max_len, dropout):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, dim, padding_idx=0), nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(dim), enable_nested_tensor=False)
        self.drop, self.head = nn.Dropout(dropout), nn.Linear(dim, 2)

    def forward(self, ids):
        x = self.drop(self.tok(ids) + self.pos.weight[: ids.shape[1]])
        pad = ids == 0
        h = self.enc(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        return self.head(self.drop((h * keep).sum(1) / keep.sum(1)))


def fast(model):
    "The model with the encoder's fast path on, as tc-train trains it."
    model.encoder.fast = True
    return model


def main(vocab=8000, dim=96, layers=2, heads=4, ff=192, batch=64, n_batches=8, rounds=10, device="cpu"):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n_batches):
        lengths = torch.randint(4, 40, (batch,), generator=g).tolist()
        ids = pad_batch([[2] + torch.randint(5, vocab, (n - 2,), generator=g).tolist() + [3] for n in lengths])
        batches.append((ids.to(device), torch.randint(0, 2, (batch,), generator=g).to(device), sum(lengths)))
    config = EncoderConfig(vocab, dim, layers, heads, ff, max_seq_len=64, dropout=0.1)
    tc = TrainConfig(lr=1e-3, weight_decay=0.01)  # tc-train's defaults otherwise (clip 1.0)
    models = {"ours, as tc-train trains it": fast(SentimentClassifier(config)), "ours, plain AdamW": fast(SentimentClassifier(config)),
              "ours, plain AdamW, padded": SentimentClassifier(config), "nn.TransformerEncoder": TorchClassifier(vocab, dim, layers, heads, ff, 64, 0.1)}
    models = {k: m.to(device) for k, m in models.items()}
    n_ours, n_peer = (sum(p.numel() for p in models[k].parameters()) for k in ("ours, plain AdamW", "nn.TransformerEncoder"))
    assert n_ours == n_peer, (n_ours, n_peer)
    opts = {k: adamw(m.train(), tc) if k.endswith("trains it") else torch.optim.AdamW(m.train().parameters(), 1e-3)
            for k, m in models.items()}
    cuda = torch.device(device).type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    clock = time.thread_time if torch.get_num_threads() == 1 and not cuda else time.perf_counter
    def step(k, ids, y):
        loss = F.cross_entropy(models[k](ids), y)
        opts[k].zero_grad(set_to_none=True); loss.backward()
        if k.endswith("trains it") and tc.clip: torch.nn.utils.clip_grad_norm_(models[k].parameters(), tc.clip)
        opts[k].step()
    for k in models:  # warm-up
        for ids, y, _ in batches[:2]: step(k, ids, y)
    best = {k: [float("inf")] * n_batches for k in models}
    for _ in range(rounds):
        for i, (ids, y, _) in enumerate(batches):
            for k in models:
                sync(); t = clock(); step(k, ids, y); sync(); best[k][i] = min(best[k][i], clock() - t)
    tokens = sum(n for *_, n in batches)
    rate = {k: tokens / sum(v) for k, v in best.items()}
    print(f"training step, vocab {vocab:,}, dim {dim}, {layers} layers, {heads} heads, ff {ff}, batch {batch}, "
          f"{n_batches} batches (lengths 4-39, {tokens:,} real tokens), {n_ours:,} parameters each, "
          f"{torch.cuda.get_device_name(device) if cuda else f'{torch.get_num_threads()} threads'}, best of {rounds} rounds")
    for k, r in rate.items(): print(f"{k:30s} {r:10,.0f} tokens/s")
    for k in list(rate)[:3]:
        print(f"{k} / nn.TransformerEncoder: {rate[k] / rate['nn.TransformerEncoder']:.2f}x" + (" (target >= 1.3x)" if k != "ours, plain AdamW, padded" else ""))


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: timed with thread CPU time)")
    ap.add_argument("--rounds", type=int, default=10, help="timed rounds (the best is kept)")
    ap.add_argument("--device", default="cpu", help="where to train (cpu, cuda, mps)")
    ap.add_argument("--quick", action="store_true", help="toy sizes and one round: a check that the script runs, not a measurement")
    for name, default in (("dim", 96), ("layers", 2), ("heads", 4), ("ff", 192), ("batch", 64)):
        ap.add_argument(f"--{name}", type=int, default=default, help=f"model/batch size (default {default})")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick: main(vocab=200, dim=16, layers=1, heads=2, ff=32, batch=8, n_batches=2, rounds=1, device=args.device)
    else: main(dim=args.dim, layers=args.layers, heads=args.heads, ff=args.ff, batch=args.batch, rounds=args.rounds, device=args.device)
