"""WordPiece speed, ours against HF `tokenizers`, measured in the same run.

1. Encoding, single-threaded, line by line: BERT's uncased vocab.txt on WikiText-2 valid + tinyshakespeare,
   `WordPiece.encode(line)` against `BertWordPieceTokenizer.encode(line)` (both add [CLS]/[SEP]); MB/s of UTF-8 input.
   Ours is measured cold (a fresh tokenizer's first pass, with empty caches: the best of as many fresh tokenizers as
   HF gets rounds) and warm (later passes). `encode` computes tokens and offsets only when
   they are read; HF's always computes them. So ids, tokens and offsets read after each `encode` are measured too, for
   ours (a fresh tokenizer: cold, then warm) and HF's.
   Our `encode` also checks each line for BERT's special tokens (by default their text is an error, tiktoken's rule);
   HF always encodes such text as the token, which ours does with `allowed_special="all"`, as in the identity check.
2. Training on tinyshakespeare to a vocabulary of 8,000, counting the words included: `WordPiece.train`'s default
   rule (BPE's: the most frequent pair, as HF's) against HF's `WordPieceTrainer` (with BERT's normalizer and
   pre-tokenizer), and the two likelihood rules for reference. HF's trainer may use several threads; we use one.

Run: .venv/bin/python benchmarks/wordpiece.py [--quick]. `--quick` (for `make test`): a few hundred lines, one run
each, no training; it checks the script still runs, its numbers mean little.
"""
import argparse
import sys
import time

from transformer_components.core import has_shared_data, shared_data
from transformer_components.named_tokenizers import WordPiece
from transformer_components.wordpiece import BERT_SPECIAL_TOKENS
from transformer_components.wordpiece_trainer import count_words, train_wordpiece

NEEDED = [("vocab", "bert-base-uncased", "vocab.txt"), ("corpora", "wikitext-2", "valid.txt"),
          ("corpora", "tinyshakespeare", "input.txt")]

def best_of(n, f):
    "Smallest wall time and smallest CPU time (this process, all threads) of `n` runs of `f()`, and its last result."
    wall = cpu = float("inf"); out = None
    for _ in range(n):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu, out

def cold_best_of(n, make, job):
    "Smallest wall and CPU time of `job(tok)` on the first pass of each of `n` fresh tokenizers `make()` (made outside the timing), and the last one."
    wall = cpu = float("inf"); tok = None
    for _ in range(n):
        tok = make()
        t, c = time.perf_counter(), time.process_time()
        job(tok)
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu, tok

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a few hundred lines, one run each, no training: a check that it runs")
    quick = p.parse_args().quick
    missing = [p for p in NEEDED if not has_shared_data(*p)]
    if missing:
        print("benchmarks/wordpiece.py: shared data not found (" + ", ".join("/".join(p) for p in missing)
              + "); set TC_DATA or put ../shared/data beside the clone. Nothing measured.")
        return 0
    try:
        from tokenizers import BertWordPieceTokenizer, Tokenizer, models, normalizers, pre_tokenizers, trainers
    except ImportError:
        print("benchmarks/wordpiece.py: HF `tokenizers` is not installed (a dev extra); nothing to compare against.")
        return 0
    vocab = str(shared_data(*NEEDED[0]))
    lines = []
    for p in NEEDED[1:]: lines += shared_data(*p).read_text(encoding="utf-8").split("\n")[:150 if quick else None]
    mb = sum(len(l.encode("utf-8")) for l in lines) / 1e6
    print(f"encoding: {len(lines):,} lines, {mb:.2f} MB, one line at a time, one thread")

    hf = BertWordPieceTokenizer(vocab, lowercase=True)
    rounds = 1 if quick else 3
    print("  (wall-clock MB/s; CPU-time MB/s in brackets, steadier under load)")
    def run(encode):  # results are dropped, as a streaming encoder would hand them on
        for l in lines: encode(l)
    w_cold, c_cold, ours = cold_best_of(rounds, lambda: WordPiece.from_vocab_txt(vocab), lambda t: run(t.encode))
    w_hf, c_hf, _ = best_of(rounds, lambda: run(hf.encode))
    w_warm, c_warm, _ = best_of(rounds, lambda: run(ours.encode))
    def read_all(tok):  # ids, tokens and offsets of each line, as a caller reads them
        for l in lines: e = tok.encode(l); e.ids; e.tokens; e.offsets
    w_ocold, c_ocold, fresh = cold_best_of(rounds, lambda: WordPiece.from_vocab_txt(vocab), read_all)
    w_hfo, c_hfo, _ = best_of(rounds, lambda: read_all(hf))
    w_owarm, c_owarm, _ = best_of(rounds, lambda: read_all(fresh))
    same = sum(ours.encode(l, allowed_special="all").ids == hf.encode(l).ids for l in lines)
    same_offsets = sum(ours.encode(l, allowed_special="all").offsets == hf.encode(l).offsets for l in lines[::10])
    print(f"  HF BertWordPieceTokenizer  {mb / w_hf:6.2f} MB/s ({mb / c_hf:.2f})")
    print(f"  ours, cold cache           {mb / w_cold:6.2f} MB/s ({mb / c_cold:.2f})   ratio {w_hf / w_cold:.2f}x HF ({c_hf / c_cold:.2f}x)")
    print(f"  ours, warm cache           {mb / w_warm:6.2f} MB/s ({mb / c_warm:.2f})   ratio {w_hf / w_warm:.2f}x HF ({c_hf / c_warm:.2f}x)   (target >= 1.0x)")
    print("  ids+tokens+offsets, one line per call, vs HF encode:")
    print(f"  HF BertWordPieceTokenizer  {mb / w_hfo:6.2f} MB/s ({mb / c_hfo:.2f})")
    for kind, w, c in (("cold", w_ocold, c_ocold), ("warm", w_owarm, c_owarm)):
        print(f"  ours, {kind} cache           {mb / w:6.2f} MB/s ({mb / c:.2f})   ratio {w_hfo / w:.2f}x HF ({c_hfo / c:.2f}x)   (target >= 1.0x)")
    print(f"  identical ids: {same:,} / {len(lines):,} lines; identical offsets: {same_offsets:,} / {len(lines[::10]):,} (every 10th line)")

    if quick: return 0
    shakes = shared_data(*NEEDED[2]).read_text(encoding="utf-8").split("\n")
    size = 8000
    print(f"training on tinyshakespeare to {size:,} tokens, counting the words included")
    def ours_train(criterion="frequency"):
        return train_wordpiece(count_words(shakes), size, criterion=criterion)[0]
    def hf_train():
        t = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        t.normalizer, t.pre_tokenizer = normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer()
        t.train_from_iterator(shakes, trainers.WordPieceTrainer(vocab_size=size, special_tokens=list(BERT_SPECIAL_TOKENS), show_progress=False))
        return t
    t_hft, c_hft, h = best_of(3, hf_train)
    t_ours, c_ours, v = best_of(3, ours_train)
    shared = len(set(v) & set(h.get_vocab())) / size
    print(f"  HF WordPieceTrainer (BPE rule)  {t_hft:6.2f} s wall, {c_hft:5.2f} s CPU   vocab {h.get_vocab_size():,}")
    print(f"  ours, default (BPE rule)        {t_ours:6.2f} s wall, {c_ours:5.2f} s CPU   vocab {len(v):,}   "
          f"ratio {t_ours / t_hft:.2f}x HF's wall time ({c_ours / c_hft:.2f}x CPU)   (target <= 2.0x); {shared:.1%} of the tokens shared")
    for rule in ("gain", "likelihood"):
        t_r, c_r, _ = best_of(1, lambda: ours_train(rule))
        print(f"  ours, criterion={rule!r:<12}    {t_r:6.2f} s wall, {c_r:5.2f} s CPU   ratio {t_r / t_hft:.2f}x HF's wall time ({c_r / c_hft:.2f}x CPU)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
