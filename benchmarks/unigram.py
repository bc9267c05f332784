"""Unigram training, ours (`PipelineTokenizer.train`, which calls `train_unigram`) against HF `tokenizers`'
`UnigramTrainer`, measured in the same run.

Each training runs in a fresh process, ours and HF's in turn, and reports its CPU time (all threads; steadier than wall
time on a loaded machine), its wall time and its peak memory: the high-water mark of the resident set while training,
less the resident set just before (the corpus is read and the library imported by then).

1. The shared corpora (tinyshakespeare, WikiText-2 valid) at 1,000 to 8,000 pieces: trained on the first 90% of the
   lines; tokens per character on the last 10% for both vocabularies.
2. Linear in the corpus: both corpora together, a quarter, half and all of the lines, 4,000 pieces.
3. One long line without spaces (tinyshakespeare with its spaces and newlines taken out): peak memory per character.

Run: .venv/bin/python benchmarks/unigram.py [--quick]. `--quick` (for `make test`): a few hundred lines, small
vocabularies; it checks the script still runs, its numbers mean little.
"""
import argparse
import json
import subprocess
import sys
import time

from transformer_components.core import has_shared_data, shared_data

CORPORA = {"tinyshakespeare": ("corpora", "tinyshakespeare", "input.txt"), "wikitext-2": ("corpora", "wikitext-2", "valid.txt")}


def _status(key: str) -> float:
    "A `/proc/self/status` field in MiB (Linux)."
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key)) / 1024


def child(trainer: str, spec: dict) -> dict:
    "Train once in this process as `spec` says; what it cost and, with held-out lines, how many tokens a character they take."
    lines, held = spec["lines"], spec.get("held", [])
    if trainer == "hf":
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    else:
        from transformer_components.pipeline import PipelineTokenizer
        import numpy  # noqa: F401  (imported before the baseline, as HF's library is)
    base = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f: f.write("5")  # reset the high-water mark to the present
    wall, cpu = time.perf_counter(), time.process_time()
    if trainer == "hf":
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer, tok.decoder = pre_tokenizers.Metaspace(), decoders.Metaspace()
        tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=spec["size"], unk_token="<unk>", special_tokens=["<unk>"],
                                                               show_progress=False))
        encode = lambda l: tok.encode(l).ids
    else:
        tok = PipelineTokenizer.train(lines, spec["size"])
        encode = tok.encode
    out = {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "peak": _status("VmHWM") - base,
           "chars": sum(map(len, lines))}
    if held: out["rate"] = sum(len(encode(l)) for l in held) / sum(map(len, held))
    return out


def run(trainer: str, spec: dict) -> dict:
    "`child(trainer, spec)` in a fresh Python process."
    res = subprocess.run([sys.executable, __file__, "--child", trainer], input=json.dumps(spec), capture_output=True, text=True)
    if res.returncode: raise RuntimeError(f"{trainer} training failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout)


def compare(label: str, spec: dict) -> tuple[dict, dict]:
    "Ours and HF's on `spec`, one after the other; prints the ratios."
    hf, ours = run("hf", spec), run("ours", spec)
    rate = f"   tokens/char ours {ours['rate']:.3f} HF {hf['rate']:.3f} ({ours['rate'] / hf['rate']:.3f}x)" if "rate" in ours else ""
    print(f"  {label:<28} CPU {ours['cpu']:6.2f}s / {hf['cpu']:5.2f}s = {ours['cpu'] / hf['cpu']:4.2f}x   "
          f"wall {ours['wall'] / hf['wall']:4.2f}x   peak {ours['peak']:6.1f} / {hf['peak']:5.1f} MiB = {ours['peak'] / hf['peak']:4.2f}x{rate}")
    return ours, hf


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a few hundred lines, small vocabularies: a check that it runs")
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000], help="vocabulary sizes of part 1")
    p.add_argument("--parts", default="123", help="which parts to run, e.g. 1 or 13")
    p.add_argument("--child", choices=["ours", "hf"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, json.loads(sys.stdin.read())))); return 0
    missing = [name for name, path in CORPORA.items() if not has_shared_data(*path)]
    if missing:
        print(f"benchmarks/unigram.py: shared data not found ({', '.join(missing)}); set TC_DATA or put ../shared/data beside the clone. Nothing measured.")
        return 0
    try: import tokenizers  # noqa: F401
    except ImportError:
        print("benchmarks/unigram.py: HF `tokenizers` is not installed (a dev extra); nothing to compare against."); return 0
    corpora = {name: [l for l in shared_data(*path).read_text(encoding="utf-8").split("\n") if l.strip()] for name, path in CORPORA.items()}
    if args.quick: corpora = {name: lines[:400] for name, lines in corpora.items()}
    sizes = [300] if args.quick else args.sizes

    print("ours / HF's UnigramTrainer, each in a fresh process: CPU time, wall time, peak memory while training")
    if "1" in args.parts: print("1. trained on the first 90% of each corpus's lines, tokens per character on the last 10%")
    for name, lines in corpora.items() if "1" in args.parts else ():
        cut = len(lines) * 9 // 10
        for size in sizes: compare(f"{name}, {size:,} pieces", {"lines": lines[:cut], "held": lines[cut:], "size": size})

    grow_size = 300 if args.quick else 4000
    if "2" in args.parts: print(f"2. both corpora together, a growing share of the lines, {grow_size:,} pieces (linear: time per character stays flat)")
    both = [l for pair in zip(*corpora.values()) for l in pair]
    for share in (0.25, 0.5, 1.0) if "2" in args.parts else ():
        part = both[:int(len(both) * share)]
        ours, hf = compare(f"{share:.0%} of the lines", {"lines": part, "size": grow_size})
        print(f"  {'':<28} ours {ours['cpu'] / ours['chars'] * 1e6:5.2f} µs/char, HF {hf['cpu'] / hf['chars'] * 1e6:5.2f} µs/char")

    if "3" in args.parts: print("3. one line without spaces, 1,000 pieces: peak memory per character")
    text = "".join(corpora["tinyshakespeare"]).replace(" ", "")
    for n in ([20_000] if args.quick else [100_000, 400_000]) if "3" in args.parts else ():
        ours, hf = compare(f"{n:,} characters", {"lines": [text[:n]], "size": 300 if args.quick else 1000})
        print(f"  {'':<28} ours {ours['peak'] * 1024 * 1024 / n:6.0f} B/char, HF {hf['peak'] * 1024 * 1024 / n:6.0f} B/char")
    return 0


if __name__ == "__main__":
    sys.exit(main())
