"""What a shell user waits for: whole processes, start-up included, ours against the peer doing the same job,
measured round-robin in one run (best of N wall-clock times, so that load from other processes hits both alike).

1. `--help` of every console script (target < 0.3 s for the text tools, which must not import torch);
2. `tc-train-tokenizer` (byte-level BPE and WordPiece, 8,000 tokens) against a fresh Python process that imports
   HF `tokenizers`, trains the same model on the same files and saves it (target: ours <= HF's);
3. `tc-tokenize` of the whole corpus (one JSON line per input line) against a process that loads HF's tokenizer from
   the same tokenizer.json and writes the same JSON lines.
The Chinese segmenter's process against jieba's is in benchmarks/segment.py.

Run: `.venv/bin/python benchmarks/cli.py [--rounds N] [--quick]`. Needs the shared data for 2 and 3 (skipped without it).
`--quick` is the smoke run `make test` uses: one round of each, a 500-token vocabulary, and the first 1,000 lines of
each corpus (a small generated text without the shared data), and only the text tools' --help, so it takes seconds."""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from transformer_components.core import has_shared_data, shared_data

BIN = Path(sys.executable).parent
CORPORA = [("corpora", "tinyshakespeare", "input.txt"), ("corpora", "wikitext-2", "valid.txt")]
SCRIPTS = ["tc-tokenize", "tc-train-tokenizer", "tc-segment", "tc-train", "tc-eval", "tc-predict"]

HF_TRAIN = """
import sys
from tokenizers import ByteLevelBPETokenizer, BertWordPieceTokenizer
kind, out, vocab_size, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
tok = ByteLevelBPETokenizer() if kind == "bpe" else BertWordPieceTokenizer(lowercase=True)
tok.train(files, vocab_size=vocab_size, min_frequency=2, show_progress=False)
tok.save(out)
"""
HF_TOKENIZE = """
import json, sys
from tokenizers import Tokenizer
tok = Tokenizer.from_file(sys.argv[1])
out = sys.stdout
for line in sys.stdin.buffer:
    enc = tok.encode(line.decode("utf-8").removesuffix("\\n").removesuffix("\\r"))
    out.write(json.dumps({"tokens": enc.tokens, "ids": enc.ids}, ensure_ascii=False) + "\\n")
"""


def timed(cmd, stdin=None) -> float:
    t = time.perf_counter()
    r = subprocess.run([str(c) for c in cmd], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t
    if r.returncode: sys.exit(f"{' '.join(map(str, cmd))} failed: {r.stderr.decode()[-2000:]}")
    return elapsed


def best_round_robin(jobs: dict, rounds: int) -> dict:
    "Best wall time of each job (a function returning seconds), run alternately."
    best = {k: float("inf") for k in jobs}
    for _ in range(rounds):
        for k, job in jobs.items(): best[k] = min(best[k], job())
    return best


def small_corpus(d: Path, have_data: bool) -> list[Path]:
    "For --quick: the first 1,000 lines of each corpus, or a small generated text without the shared data."
    small = d / "small.txt"
    if have_data: small.write_bytes(b"".join(b"\n".join(shared_data(*p).read_bytes().split(b"\n")[:1000]) + b"\n" for p in CORPORA))
    else: small.write_text("".join(f"the player {i} is playing, the players played {i % 7} plays\n" for i in range(1000)), encoding="utf-8")
    return [small]


def main():
    quick = "--quick" in sys.argv
    rounds = 1 if quick else int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    vocab_size = "500" if quick else "8000"
    help_rounds = 1 if quick else 5
    print(f"## --help, whole process (best of {help_rounds})")
    scripts = SCRIPTS[:3] if quick else SCRIPTS  # the text tools; the model commands' --help waits for torch's import
    helps = best_round_robin({s: (lambda s=s: timed([BIN / s, "--help"])) for s in scripts} |
                             {"python -c pass": lambda: timed([sys.executable, "-c", "pass"])}, help_rounds)
    for k, v in helps.items(): print(f"  {k:<20} {v:.3f} s")
    have_data = all(has_shared_data(*p) for p in CORPORA)
    if not have_data and not quick:
        print("shared corpora not found: training and tokenizing not measured"); return
    try: import tokenizers  # noqa: F401
    except ImportError: print("HF tokenizers (a dev extra) is not installed: peers not measured"); return
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        files = small_corpus(d, have_data) if quick else [shared_data(*p) for p in CORPORA]
        lines = sum(len(f.read_bytes().split(b"\n")) for f in files)
        mb = sum(f.stat().st_size for f in files) / 1e6
        name = "a small corpus (--quick)" if quick else "tinyshakespeare + WikiText-2 valid"
        print(f"\ncorpus: {name}, {lines:,} lines, {mb:.2f} MB; best of {rounds}")
        print(f"\n## tc-train-tokenizer vs HF tokenizers, whole process (import, read, train to {int(vocab_size):,} tokens, save)")
        for kind in ("bpe", "wordpiece"):
            t = best_round_robin({
                "ours": lambda: timed([BIN / "tc-train-tokenizer", *files, "--model", kind, "--vocab-size", vocab_size, "--out", d / f"ours-{kind}.json"]),
                "HF": lambda: timed([sys.executable, "-c", HF_TRAIN, kind, d / f"hf-{kind}.json", vocab_size, *files]),
            }, rounds)
            print(f"  {kind:<9}: ours {t['ours']:.2f} s, HF {t['HF']:.2f} s, ours/HF = {t['ours'] / t['HF']:.2f}x (target <= 1.0x)")
        print("\n## tc-tokenize of the corpus vs HF, whole process (load tokenizer.json, one JSON line per input line)")
        corpus = d / "corpus.txt"
        corpus.write_bytes(b"".join(f.read_bytes() for f in files))
        for kind in ("bpe", "wordpiece"):
            def ours():
                with open(corpus, "rb") as f: return timed([BIN / "tc-tokenize", "--tokenizer", d / f"ours-{kind}.json"], f)
            def hf():
                with open(corpus, "rb") as f: return timed([sys.executable, "-c", HF_TOKENIZE, d / f"ours-{kind}.json"], f)
            t = best_round_robin({"ours": ours, "HF": hf}, rounds)
            print(f"  {kind:<9}: ours {t['ours']:.2f} s, HF {t['HF']:.2f} s, ours/HF = {t['ours'] / t['HF']:.2f}x")


if __name__ == "__main__":
    main()
