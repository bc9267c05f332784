"""BPE speed against peers, measured in one run, interleaved (each round runs every contender once, so the load of
the machine hits all of them alike; the best round is reported, with the range over rounds).

1. Training: ours (one Python thread) vs HF `tokenizers` (its thread pool) vs a full-recount trainer.
2. Encoding the corpora one line per call with GPT-2's vocabulary, one thread: ours vs HF vs tiktoken (built from the
   local GPT-2 vocab.json, no download), cold (fresh tokenizers, first pass) and warm (later passes). Our `encode`
   checks for special text as tiktoken's `encode` does; `encode_ordinary` skips that in both. HF `encode_batch` uses
   its thread pool. Ids are checked identical on every line, and offsets against HF's once. Also ids, tokens and
   offsets read after each `encode` (ours computes tokens and offsets when read; HF's `encode` always computes them),
   against HF's `encode` read the same way, cold and warm.
3. Batches: ours `encode_batch(num_workers=2)` (worker processes) vs tiktoken's `encode_ordinary_batch` (a thread pool
   of 8; its Rust code releases the GIL) vs HF `encode_batch`, on the lines and on 100-line documents.
4. One long pre-token (1k to 1M characters): time against length, ours vs HF vs tiktoken vs the reference algorithm.
5. Two SentencePiece-style files read from `tokenizer.json`, Llama-2's BPE and T5's Unigram, against HF on WikiText-2
   valid, one line per call, ids + tokens + offsets read, cold and warm (`benchmarks/tokenizer_json.py`'s
   measurement, which has more files).

Run: `.venv/bin/python benchmarks/bpe.py [--rounds N] [--skip-training] [--quick]`. `--quick` (for `make test`): a few
hundred lines, one round, no training, long pre-tokens only up to 4,000 characters; it checks the script still runs,
its numbers mean little. Needs the shared data (exits 0 with a message without it)."""
import argparse
import json
import random
import sys
import time
from collections import Counter

from transformer_components.bpe import bpe_merge_word, count_pairs, merge_symbols, train_bpe
from transformer_components.named_tokenizers import BPETokenizer
from transformer_components.pre_tokenizers import GPT2_PATTERN, bytes_to_unicode, pretokenize
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


def tiktoken_gpt2(vocab_json):
    "tiktoken's GPT-2 encoding from the local vocab.json: its ranks are the ids of the tokens' bytes (no download)."
    import tiktoken
    unbyte = {c: b for b, c in bytes_to_unicode().items()}
    vocab = json.loads(vocab_json.read_text(encoding="utf-8"))
    ranks = {bytes(map(unbyte.__getitem__, t)): i for t, i in vocab.items() if t != "<|endoftext|>"}
    return tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})


def rounds_of(jobs: dict, rounds: int, fresh=None) -> tuple[dict, dict]:
    "Run every job once per round, in turn; `(wall, cpu)`: name -> list of seconds. `fresh()` is called before each round."
    wall, cpu = {k: [] for k in jobs}, {k: [] for k in jobs}
    for _ in range(rounds):
        if fresh: fresh()
        for name, job in jobs.items():
            t, c = time.perf_counter(), time.process_time()
            job()
            wall[name].append(time.perf_counter() - t); cpu[name].append(time.process_time() - c)
    return wall, cpu


def rate(mb, seconds) -> str:
    "MB/s of the best round, and the range over rounds."
    return f"{mb / min(seconds):6.2f} MB/s ({mb / max(seconds):.2f}-{mb / min(seconds):.2f})"


def training(lines):
    print("\n## Training, byte-level, vocab_size=8000, min_frequency=2")
    from tokenizers import ByteLevelBPETokenizer
    def hf_train():
        t = ByteLevelBPETokenizer(); t.train_from_iterator(lines, vocab_size=8000, min_frequency=2, show_progress=False)
        return t
    c = time.process_time(); t_hf, hf_tok = best_of(hf_train, 3); c_hf = (time.process_time() - c) / 3
    c = time.process_time(); t_ours, ours = best_of(lambda: train_bpe(lines, 8000), 3); c_ours = (time.process_time() - c) / 3
    same = ours[1] == [tuple(m) for m in json.loads(hf_tok._tokenizer.to_str())["model"]["merges"]]
    print(f"wall clock (best of 3): HF tokenizers {t_hf:.2f} s, ours {t_ours:.2f} s, ours/HF = {t_ours / t_hf:.2f}x (target <= 2x)")
    print(f"CPU time (mean of 3, all of HF's threads): HF {c_hf:.2f} s, ours {c_ours:.2f} s")
    print(f"merges identical to HF's, in order: {same}")
    words = Counter()
    for line in lines: words.update(pretokenize(line))
    n_small = 50
    t_full, _ = best_of(lambda: full_recount_train(words, n_small), 1)
    t_inc, _ = best_of(lambda: train_bpe(words, 256 + n_small), 3)
    t_all, _ = best_of(lambda: train_bpe(words, 8000), 1)
    print(f"same word table ({len(words):,} distinct pre-tokens; no pre-tokenization; ours includes its initial pair count):")
    print(f"  {n_small} merges: full recount per merge {t_full:.2f} s, incremental {t_inc:.2f} s -> {t_full / t_inc:.0f}x faster")
    print(f"  7,744 merges: incremental {t_all:.2f} s; the full recount would need about {t_full / n_small * 7744:.0f} s "
          f"({t_full / n_small * 7744 / t_all:.0f}x)")


def read_all(tok, lines):
    "Ids, tokens and offsets of each line, one `encode` per line, as a caller reads them."
    return [(e.ids, e.tokens, e.offsets) for e in map(tok.encode, lines)]


def encoding(lines, mb, rounds, vocab, merges, tk):
    from tokenizers import ByteLevelBPETokenizer
    print(f"\n## Encoding, GPT-2 vocabulary, one line per call ({len(lines):,} lines, {mb:.2f} MB), {rounds} rounds")
    state = {}
    def fresh():
        state["ours"] = BPETokenizer.from_files(vocab, merges)
        state["hf"], state["hf_batch"] = (ByteLevelBPETokenizer(str(vocab), str(merges)) for _ in range(2))
        state["tk"] = tiktoken_gpt2(vocab)  # tiktoken has no cache to warm; built afresh all the same
        state["ours_off"], state["hf_off"] = BPETokenizer.from_files(vocab, merges), ByteLevelBPETokenizer(str(vocab), str(merges))
    ids = {}
    cold = {"ours encode": lambda: ids.update(ours=[state["ours"].encode(l) for l in lines]),
            "HF encode": lambda: ids.update(hf=[state["hf"].encode(l).ids for l in lines]),
            "HF encode_batch (threads)": lambda: ids.update(hfb=[e.ids for e in state["hf_batch"].encode_batch(lines)]),
            "tiktoken encode": lambda: ids.update(tk=[state["tk"].encode(l) for l in lines]),
            "ours ids+tokens+offsets": lambda: read_all(state["ours_off"], lines),
            "HF ids+tokens+offsets": lambda: read_all(state["hf_off"], lines)}
    wall, cpu = rounds_of(cold, max(2, rounds // 2), fresh)
    assert ids["ours"] == ids["hf"] == ids["hfb"] == ids["tk"], "ids differ"
    print("cold (fresh tokenizers, first pass); wall clock, CPU time of this process in brackets:")
    for name in cold: print(f"  {name:28s} {rate(mb, wall[name])}   [{rate(mb, cpu[name])}]")
    ours, hf = state["ours"], state["hf"]
    warm = {"ours encode": lambda: [ours.encode(l) for l in lines], "tiktoken encode": lambda: [tk.encode(l) for l in lines],
            "ours encode_ordinary": lambda: [ours.encode_ordinary(l) for l in lines],
            "tiktoken encode_ordinary": lambda: [tk.encode_ordinary(l) for l in lines], "HF encode": lambda: [hf.encode(l).ids for l in lines],
            "ours ids+tokens+offsets": lambda: read_all(ours, lines), "HF ids+tokens+offsets": lambda: read_all(hf, lines)}
    for f in warm.values(): f()
    w_wall, w_cpu = rounds_of(warm, rounds)
    print("warm (the same tokenizers, later passes):")
    for name in warm: print(f"  {name:28s} {rate(mb, w_wall[name])}   [{rate(mb, w_cpu[name])}]")
    assert [ours.encode(l).offsets for l in lines[::10]] == [e.offsets for e in hf.encode_batch(lines[::10])], "offsets differ from HF"
    print("  offsets identical to HF's on every 10th line")
    return ours, {"cold": (wall, cpu), "warm": (w_wall, w_cpu)}


def batches(lines, mb, rounds, ours, tk, hf_vocab):
    from tokenizers import ByteLevelBPETokenizer
    hf = ByteLevelBPETokenizer(*map(str, hf_vocab))
    docs = ["".join(lines[i:i + 100]) for i in range(0, len(lines), 100)]
    t = time.perf_counter(); ours.encode_batch(lines[:200], num_workers=2); start = time.perf_counter() - t
    print(f"\n## Batches, {rounds} rounds (our 2 worker processes started once: {start:.2f} s, then reused)")
    out = {}
    for label, batch in ((f"{len(lines):,} lines", lines), (f"{len(docs):,} documents of 100 lines", docs)):
        jobs = {"ours encode_batch(num_workers=2)": lambda: ours.encode_batch(batch, num_workers=2),
                "ours encode_batch (one process)": lambda: ours.encode_batch(batch),
                "tiktoken encode_ordinary_batch": lambda: tk.encode_ordinary_batch(batch),
                "HF encode_batch": lambda: hf.encode_batch(batch)}
        for f in jobs.values(): f()
        wall, _ = rounds_of(jobs, rounds)
        assert ours.encode_batch(batch, num_workers=2) == tk.encode_ordinary_batch(batch), "ids differ"
        print(f"{label} (wall clock):")
        for name in jobs: print(f"  {name:34s} {rate(mb, wall[name])}")
        print(f"  {cpu_split(ours, batch)}")
        out[label] = wall
    ours._stop_workers()
    return out


def cpu_split(ours, batch) -> str:
    "Where the CPU time of one `encode_batch(num_workers=2)` goes (Linux: the workers' from /proc), against one process."
    import os
    pids, tick = list(ours._pool[1]._processes), os.sysconf("SC_CLK_TCK")
    def used(pid):
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    try: before = [used(p) for p in pids]
    except OSError: return "(no /proc: CPU split not measured)"
    c, t = time.process_time(), time.perf_counter(); ours.encode_batch(batch, num_workers=2)
    wall, parent, workers = time.perf_counter() - t, time.process_time() - c, [used(p) - b for p, b in zip(pids, before)]
    c = time.process_time(); ours.encode_batch(batch); one = time.process_time() - c
    return (f"CPU seconds of one call: here {parent:.2f} + workers {' + '.join(f'{w:.2f}' for w in workers)}, wall {wall:.2f}; "
            f"one process: {one:.2f} (wall close to the sum = the cores were busy with other work; "
            f"load average {open('/proc/loadavg').read().split()[0]})")


def long_words(ours, tk, hf_vocab, lengths=(1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000)):
    from tokenizers import ByteLevelBPETokenizer
    hf = ByteLevelBPETokenizer(*map(str, hf_vocab))
    rnd, b2u = random.Random(0), bytes_to_unicode()
    ranks = {m: r for r, m in enumerate(ours.model.merges)}  # the reference's table
    reference = lambda w: [ours.token_to_id(t) for t in bpe_merge_word([b2u[b] for b in w.encode()], ranks)]
    print("\n## One long pre-token: seconds against length (best of 3, one call each; the reference only up to 16k)")
    print(f"{'characters':>10} {'text':>7} {'ours':>9} {'HF':>9} {'tiktoken':>9} {'reference':>10}   ours/HF  ours/tiktoken")
    for n in lengths:
        for kind, word in (("x * n", "x" * n), ("random", "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)))):
            t_ours, got = best_of(lambda: ours.encode_ordinary(word), 3)
            t_hf, want = best_of(lambda: hf.encode(word).ids, 3)
            t_tk, _ = best_of(lambda: tk.encode_ordinary(word), 3)
            ref = f"{best_of(lambda: reference(word), 1)[0]:9.4f}" if n <= 16_000 else "—"
            assert got == want, (n, kind)
            print(f"{n:>10,} {kind:>7} {t_ours:9.4f} {t_hf:9.4f} {t_tk:9.4f} {ref:>10}   {t_ours / t_hf:6.1f}x {t_ours / t_tk:8.1f}x")


def sentencepiece_files(rounds: int, quick: bool) -> dict:
    "Section 5: `file -> {kind: HF's best time / ours}` for the Llama-2 and T5 files (absent without their shared data)."
    from tokenizer_json import CORPUS, measure  # (the script next to this one)
    names = [n for n in ("llama2-llama-2-7b", "t5-t5-small-untyped") if has_shared_data("tokenizers", n, "tokenizer.json")]
    if not names or not has_shared_data(*CORPUS): return {}
    lines = [l for l in shared_data(*CORPUS).read_text(encoding="utf-8").splitlines() if l.strip()][:300 if quick else None]
    print(f"\n## SentencePiece-style tokenizer.json files, WikiText-2 valid, {len(lines):,} lines, one line per call")
    out = {}
    for name in names:
        t = measure(name, lines, rounds)["times"]
        out[name] = {kind: min(t[("HF", kind)]) / min(t[("ours", kind)]) for kind in ("cold", "warm")}
        print(f"  {name:24s} " + "   ".join(f"{kind} ours {min(t[('ours', kind)]) * 1e3:5.0f} ms, HF {min(t[('HF', kind)]) * 1e3:5.0f} ms"
                                            for kind in ("cold", "warm")), flush=True)
    return out


def ratios(mb, enc, bat, sp):
    "The issue's targets, from the best rounds above (above 1.0 means ours is faster)."
    (cold_w, cold_c), (warm_w, warm_c) = enc["cold"], enc["warm"]
    best = lambda d, k: min(d[k])
    print("\n## Ratios (speed of ours / speed of the peer, best rounds; CPU time for one-thread rows, wall clock for batches)")
    print(f"  warm encode vs tiktoken encode:                  {best(warm_c, 'tiktoken encode') / best(warm_c, 'ours encode'):.2f}x   (target >= 1.0)")
    print(f"  warm encode_ordinary vs tiktoken encode_ordinary: {best(warm_c, 'tiktoken encode_ordinary') / best(warm_c, 'ours encode_ordinary'):.2f}x")
    print(f"  cold encode vs HF encode_batch (HF wall clock, its threads): {best(cold_w, 'HF encode_batch (threads)') / best(cold_c, 'ours encode'):.2f}x"
          f" CPU, {best(cold_w, 'HF encode_batch (threads)') / best(cold_w, 'ours encode'):.2f}x wall   (target >= 1.0)")
    for kind, cpu in (("cold", cold_c), ("warm", warm_c)):
        print(f"  {kind} ids+tokens+offsets, one line per call, vs HF encode: "
              f"{best(cpu, 'HF ids+tokens+offsets') / best(cpu, 'ours ids+tokens+offsets'):.2f}x   (target >= 1.0)")
    for label, wall in bat.items():
        print(f"  encode_batch(num_workers=2) vs tiktoken batch, {label}: "
              f"{best(wall, 'tiktoken encode_ordinary_batch') / best(wall, 'ours encode_batch(num_workers=2)'):.2f}x   (target >= 1.0)")
    for name, r in sp.items():
        print(f"  {name} ids+tokens+offsets, one line per call, vs HF encode: cold {r['cold']:.2f}x, warm {r['warm']:.2f}x   (target >= 1.0)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5, help="rounds of each interleaved comparison")
    p.add_argument("--skip-training", action="store_true", help="leave out the training comparison")
    p.add_argument("--quick", action="store_true", help="a few hundred lines, one round, no training: a check that it runs")
    args = p.parse_args()
    if args.quick: args.rounds, args.skip_training = 1, True
    if not all(has_shared_data(*c) for c in CORPORA) or not has_shared_data(*GPT2):
        print("benchmarks/bpe.py: shared data (corpora, GPT-2 vocab) not found; nothing measured."); return 0
    try: import tiktoken, tokenizers  # noqa: F401
    except ImportError as e:
        print(f"benchmarks/bpe.py: {e.name} (a dev extra) is not installed; nothing measured."); return 0
    lines = [l for c in CORPORA for l in shared_data(*c).read_text(encoding="utf-8").splitlines(keepends=True)[:150 if args.quick else None]]
    mb = sum(len(l.encode("utf-8")) for l in lines) / 1e6
    print(f"corpus: tinyshakespeare + WikiText-2 valid, {len(lines):,} lines, {mb:.2f} MB")
    if not args.skip_training: training(lines)
    vocab, merges = shared_data(*GPT2, "vocab.json"), shared_data(*GPT2, "merges.txt")
    tk = tiktoken_gpt2(vocab)
    ours, enc = encoding(lines, mb, args.rounds, vocab, merges, tk)
    bat = batches(lines, mb, args.rounds, ours, tk, (vocab, merges))
    long_words(ours, tk, (vocab, merges), *([(1_000, 4_000)] if args.quick else []))
    sp = sentencepiece_files(args.rounds, args.quick)
    ratios(mb, enc, bat, sp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
