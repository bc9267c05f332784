"""Encoding with real `tokenizer.json` files, ours against HF `tokenizers`, measured in one run, interleaved (each
round runs every contender once, so the load of the machine hits all of them alike; the best round is reported, with
the range over rounds).

For each file of the shared data named in `FILES`, `load_tokenizer(file)` (a `PipelineTokenizer` with its fast path,
for every file) against HF's `Tokenizer.from_file(file)`, one line per call over the non-empty lines of WikiText-2 valid, one thread. Each call's
ids, tokens and offsets are read (HF's `encode` always computes them; ours computes tokens and offsets when they are
read). Cold: fresh tokenizers (built outside the clock), first pass over the lines; warm: a second pass with the same
tokenizers. MB/s of UTF-8 input, wall clock. The ids are checked equal to HF's on every line.

Special-token text in the lines (WikiText writes `<unk>`, a special token in several files) is encoded as the special
token on both sides, as HF's `encode` does: ours is called with `allowed_special="all"` (its default refuses such
text). Truncation and padding stay as each file says, on both sides.

Run: `.venv/bin/python benchmarks/tokenizer_json.py [--rounds N] [--quick]`. `--quick` (for `make test`): 300 lines,
one round; it checks the script still runs, its numbers mean little. Needs the shared data (exits 0 with a message
without it)."""
import argparse
import sys
import time

from transformer_components.core import has_shared_data, shared_data

FILES = ["llama2-llama-2-7b", "t5-t5-small-untyped", "unigram-marian-opus-mt", "gpt2-whisper-tiny", "roberta-roberta-base-untyped",
         "bert-all-minilm-l6-v2-truncpad", "gpt2-fooocus-expansion", "bert-bert-base-uncased-untyped"]
CORPUS = ("corpora", "wikitext-2", "valid.txt")


def ours_pass(tok, lines) -> list[list[int]]:
    "Encode each line with ours, reading ids, tokens and offsets."
    out = []
    for line in lines:
        e = tok.encode(line, allowed_special="all")
        e.tokens, e.offsets
        out.append(e.ids)
    return out


def hf_pass(tok, lines) -> list[list[int]]:
    "Encode each line with HF, reading ids, tokens and offsets."
    out = []
    for line in lines:
        e = tok.encode(line)
        e.tokens, e.offsets
        out.append(e.ids)
    return out


def measure(name: str, lines: list[str], rounds: int) -> dict:
    "Seconds per round: `(contender, 'cold'|'warm') -> list`, and the class `load_tokenizer` picked."
    from tokenizers import Tokenizer as HFTokenizer
    from transformer_components.tokenizer_loading import load_tokenizer
    path = shared_data("tokenizers", name, "tokenizer.json")
    times, cls = {}, None
    for r in range(rounds):
        contenders = [("ours", load_tokenizer(path), ours_pass), ("HF", HFTokenizer.from_file(str(path)), hf_pass)]
        if r % 2: contenders.reverse()
        ids = {}
        for label, tok, run in contenders:
            if label == "ours": cls = type(tok).__name__
            for kind in ("cold", "warm"):
                t = time.perf_counter(); ids[label] = run(tok, lines)
                times.setdefault((label, kind), []).append(time.perf_counter() - t)
        bad = [k for k, (a, b) in enumerate(zip(ids["ours"], ids["HF"])) if a != b]
        assert not bad, f"{name}: ids differ from HF's on {len(bad)} lines, the first: {lines[bad[0]]!r}"
    return {"times": times, "class": cls}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds of each interleaved comparison")
    p.add_argument("--quick", action="store_true", help="300 lines, one round: a check that it runs")
    args = p.parse_args()
    if args.quick: args.rounds = 1
    if not has_shared_data(*CORPUS) or not all(has_shared_data("tokenizers", f, "tokenizer.json") for f in FILES):
        print("benchmarks/tokenizer_json.py: shared data (WikiText-2, tokenizer files) not found; nothing measured."); return 0
    try: import tokenizers  # noqa: F401
    except ImportError:
        print("benchmarks/tokenizer_json.py: tokenizers (a dev extra) is not installed; nothing measured."); return 0
    lines = [l for l in shared_data(*CORPUS).read_text(encoding="utf-8").splitlines() if l.strip()][:300 if args.quick else None]
    mb = sum(len(l.encode("utf-8")) for l in lines) / 1e6
    print(f"WikiText-2 valid, {len(lines):,} non-empty lines, {mb:.2f} MB, one line per call, ids + tokens + offsets read; "
          f"{args.rounds} rounds, best (range) in MB/s; ratio = HF's time / ours (above 1.0: ours is faster)")
    print(f"{'file':32s} {'class':18s} {'':5s} {'ours MB/s':>20s} {'HF MB/s':>20s} {'ratio':>6s}")
    for name in FILES:
        res = measure(name, lines, args.rounds)
        for kind in ("cold", "warm"):
            o, h = res["times"][("ours", kind)], res["times"][("HF", kind)]
            rate = lambda s: f"{mb / min(s):6.2f} ({mb / max(s):.2f}-{mb / min(s):.2f})"
            print(f"{name if kind == 'cold' else '':32s} {res['class'] if kind == 'cold' else '':18s} {kind:5s} "
                  f"{rate(o):>20s} {rate(h):>20s} {min(h) / min(o):5.2f}x", flush=True)
    print("ids identical to HF's on every line of every file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
