"""BPE speed against peers, measured in one run: training (ours vs HF `tokenizers` vs a full-recount trainer) and
single-threaded line-by-line encoding (ours vs HF) with GPT-2's vocabulary. HF trains with its default thread pool
(ours is one Python thread); `encode` of one line is single-threaded in both. Our `encode` returns an `Encoding`, which
is the list of ids itself (tokens and offsets are computed only when read); `encode(line).ids` adds a plain-list copy,
timed on its own line; `.offsets` once more on the warm cache, for their price.

Run: `.venv/bin/python benchmarks/bpe.py`. Needs the shared data (exits 0 with a message without it)."""
import sys
import time
from collections import Counter

from transformer_components.bpe import BPETokenizer, bytes_to_unicode, count_pairs, merge_symbols, pretokenize, train_bpe
from transformer_components.core import has_shared_data, shared_data

CORPORA = [("corpora", "tinyshakespeare", "input.txt"), ("corpora", "wikitext-2", "valid.txt")]
GPT2 = ("vocab", "gpt2", "whisper_assets_gpt2")


def best_of(f, repeat):
    "Smallest wall time of `repeat` calls of `f`, and its last result."
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter(); out = f(); best = min(best, time.perf_counter() - t)
    return best, out


def full_recount_train(word_freqs, n_merges):
    "minbpe-style trainer: recount every pair of every word after each merge (already on a deduplicated word table)."
    b2u = bytes_to_unicode()
    table = {tuple(b2u[b] for b in w.encode("utf-8")): f for w, f in word_freqs.items()}
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(table)
        if not counts: break
        pair = max(counts, key=counts.get)
        merges.append(pair)
        table = {merge_symbols(w, pair): f for w, f in table.items()}
    return merges


def main():
    if not all(has_shared_data(*p) for p in CORPORA) or not has_shared_data(*GPT2):
        print("benchmarks/bpe.py: shared data (corpora, GPT-2 vocab) not found; nothing measured."); return 0
    try:
        from tokenizers import ByteLevelBPETokenizer
    except ImportError:
        print("benchmarks/bpe.py: HF `tokenizers` (a dev extra) is not installed; nothing measured."); return 0
    lines = [l for p in CORPORA for l in shared_data(*p).read_text(encoding="utf-8").splitlines(keepends=True)]
    mb = sum(len(l.encode("utf-8")) for l in lines) / 1e6
    print(f"corpus: tinyshakespeare + WikiText-2 valid, {len(lines):,} lines, {mb:.2f} MB")

    print("\n## Training, byte-level, vocab_size=8000, min_frequency=2")
    def hf_train():
        t = ByteLevelBPETokenizer(); t.train_from_iterator(lines, vocab_size=8000, min_frequency=2, show_progress=False)
        return t
    c = time.process_time(); t_hf, hf_tok = best_of(hf_train, 3); c_hf = (time.process_time() - c) / 3
    c = time.process_time(); t_ours, ours = best_of(lambda: train_bpe(lines, 8000), 3); c_ours = (time.process_time() - c) / 3
    import json
    same = ours.merges == [tuple(m) for m in json.loads(hf_tok._tokenizer.to_str())["model"]["merges"]]
    print(f"wall clock (best of 3): HF tokenizers {t_hf:.2f} s, ours {t_ours:.2f} s, ours/HF = {t_ours / t_hf:.2f}x (target <= 2x)")
    print(f"CPU time (mean of 3, all of HF's threads): HF {c_hf:.2f} s, ours {c_ours:.2f} s")
    print(f"merges identical to HF's, in order: {same}")

    words = Counter()
    for line in lines: words.update(pretokenize(line))
    n_small = 50
    t_full, _ = best_of(lambda: full_recount_train(words, n_small), 1)
    t_inc, _ = best_of(lambda: train_bpe(words, 256 + n_small), 3)
    t_all, _ = best_of(lambda: train_bpe(words, 8000), 1)
    print(f"\nsame word table ({len(words):,} distinct pre-tokens; no pre-tokenization; ours includes its initial pair count):")
    print(f"  {n_small} merges: full recount per merge {t_full:.2f} s, incremental {t_inc:.2f} s "
          f"-> {t_full / t_inc:.0f}x faster")
    print(f"  7,744 merges: incremental {t_all:.2f} s; the full recount would need about {t_full / n_small * 7744:.0f} s "
          f"({t_full / n_small * 7744 / t_all:.0f}x)")

    print("\n## Encoding, GPT-2 vocabulary, one line per call, single thread")
    vocab, merges = shared_data(*GPT2, "vocab.json"), shared_data(*GPT2, "merges.txt")
    for label in ("cold cache (first pass, fresh tokenizers)", "warm cache (best of 3 later passes)"):
        hf = ByteLevelBPETokenizer(str(vocab), str(merges))
        tok = BPETokenizer.from_files(vocab, merges)
        enc_hf, enc_ours = hf.encode, tok.encode
        passes = 1 if label.startswith("cold") else 4
        runs = [("HF", lambda: [enc_hf(l).ids for l in lines]), ("ours", lambda: [enc_ours(l) for l in lines])]
        if passes > 1: runs.append(("ours .ids", lambda: [enc_ours(l).ids for l in lines]))
        wall, cpu = {name: [] for name, _ in runs}, {name: [] for name, _ in runs}
        for _ in range(passes):
            for name, run in runs:
                t, c = time.perf_counter(), time.process_time()
                ids = run()
                wall[name].append(time.perf_counter() - t); cpu[name].append(time.process_time() - c)
                if name == "HF": ids_hf = ids
                else: assert ids == ids_hf, "ids differ from HF"
        pick = (lambda v: v[0]) if passes == 1 else (lambda v: min(v[1:]))
        w_hf, w_ours, c_hf, c_ours = pick(wall["HF"]), pick(wall["ours"]), pick(cpu["HF"]), pick(cpu["ours"])
        print(f"{label}:\n  wall clock: HF {mb / w_hf:.2f} MB/s, ours {mb / w_ours:.2f} MB/s, ours/HF = {w_hf / w_ours:.2f}x"
              f"\n  CPU time:   HF {mb / c_hf:.2f} MB/s, ours {mb / c_ours:.2f} MB/s, ours/HF = {c_hf / c_ours:.2f}x"
              "   (target >= 1.5x)")
        if passes > 1:
            c_ids = pick(cpu["ours .ids"])
            t = time.process_time(); offsets = [enc_ours(l).offsets for l in lines]; c_off = time.process_time() - t
            assert offsets == [e.offsets for e in hf.encode_batch(lines)], "offsets differ from HF"
            print(f"  CPU time, encode(line).ids: ours {mb / c_ids:.2f} MB/s, ours/HF = {c_hf / c_ids:.2f}x"
                  f"\n  CPU time, encode(line).offsets (one pass): ours {mb / c_off:.2f} MB/s (offsets identical to HF's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
