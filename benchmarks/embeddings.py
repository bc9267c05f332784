"""Token embedding + positional encoding forward against a plain copy (the memory-bandwidth baseline) and peers.

Run: python benchmarks/embeddings.py [--threads N] [--quick]  (--quick: toy sizes, a check that the script runs)
Bytes counted for every implementation alike: the gathered table rows read once, the position rows read once and
the output written once. The copy baseline moves the same number of output bytes (read once, write once).
Peers: the naive `emb(token_ids) + pe` of the blog post and the course notebook, and the HF BERT-style sum of two
`nn.Embedding` lookups (position ids gathered). No shared data is needed.
"""
import torch
import torch.nn as nn
from transformer_components.embeddings import TokenEmbeddings
from transformer_components.positional_encoding import PositionalEncoder, TokenPositionEmbedding
from _timing import best_times  # benchmarks/ is on sys.path when a script runs

def main(B=8, S=512, D=512, V=32_000, rounds=100):
    torch.manual_seed(0)
    token_ids = torch.randint(0, V, (B, S))
    ours_fixed = TokenPositionEmbedding(TokenEmbeddings(V, D), PositionalEncoder(S, D, is_learned=False)).eval()
    ours_learned = TokenPositionEmbedding(TokenEmbeddings(V, D), PositionalEncoder(S, D)).eval()
    emb, pe = ours_fixed.tokens.embedding, ours_fixed.positional_encoding.pos_encodings[:S]
    word, pos = ours_learned.tokens.embedding, ours_learned.positional_encoding.pos_embedding
    position_ids = torch.arange(S)[None].expand(B, S)
    naive = lambda: emb(token_ids) + pe
    hf_style = lambda: word(token_ids) + pos(position_ids)
    with torch.no_grad():
        torch.testing.assert_close(ours_fixed(token_ids), naive(), rtol=0, atol=0)
        torch.testing.assert_close(ours_learned(token_ids), hf_style(), rtol=0, atol=0)
    out = torch.empty(B, S, D)
    fns = {"copy (baseline)": lambda: out.clone(), "ours fixed": lambda: ours_fixed(token_ids),
           "ours learned": lambda: ours_learned(token_ids), "naive emb(ids) + pe": naive, "HF-style two lookups": hf_style}
    best = best_times(fns, rounds=rounds)
    n_out = out.numel() * 4
    moved = {k: 2 * n_out if k.startswith("copy") else 2 * n_out + S * D * 4 for k in fns}
    base = moved["copy (baseline)"] / best["copy (baseline)"]
    print(f"token + position embedding, token_ids [{B}, {S}], dim {D}, vocab {V:,}, float32, {torch.get_num_threads()} threads")
    print(f"{'implementation':26s} {'ms':>8s} {'GB/s':>8s} {'vs copy':>8s}")
    for k, t in best.items():
        print(f"{k:26s} {t * 1e3:8.3f} {moved[k] / t / 1e9:8.1f} {moved[k] / t / base:8.2f}")
    for ours in ("ours fixed", "ours learned"):
        print(f"{ours}: " + ", ".join(f"{best[p] / best[ours]:.2f}x {p}" for p in ("naive emb(ids) + pe", "HF-style two lookups")))

if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: timed with thread CPU time)")
    ap.add_argument("--quick", action="store_true", help="toy sizes and few rounds: checks that the script runs, times nothing")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    main(2, 16, 32, 1000, rounds=3) if args.quick else main()
