"""Write the leak-free SST-2 split behind the measured runs in nbs/43 and nbs/54 as three TSV files for `tc-train`.

Run: python tools/sst2_split.py OUT_DIR

- `valid.tsv`: the 700 held-out sentences of `tools/sst2_experiments.py` (seed 123), used to choose recipes and,
  as `tc-train --valid`, to pick the best epoch. These sentences have been looked at many times.
- `untouched.tsv`: 702 other full sentences of Kim's `stsa.binary.train` (seed 20261124), never used for any choice:
  each recipe we report is scored on them once, at the end, with `tc-eval`.
- `train.tsv`: the 67,349 GLUE SST-2 phrases (ALPS train + dev) minus every phrase of two or more words that occurs
  inside a `valid` or `untouched` sentence (and the sentences themselves), so both sets are as new to the model as
  the test sentences are.

Why not the ALPS dev file: every GLUE SST-2 phrase is a piece of some training sentence and the ALPS split puts
pieces of the same sentences on both sides, so a model that scores 80% on new sentences scores 91% there.
"""
import random, sys
from pathlib import Path

from transformer_components.core import shared_data
from transformer_components.sentiment_data import read_sentiment_file

VALID_SEED, VALID_N = 123, 700  # as tools/sst2_experiments.py's leak_free_split
UNTOUCHED_SEED, UNTOUCHED_N = 20261124, 702


def read(*parts) -> list[tuple[str, int]]:
    "(text, label) pairs of a file under ../shared/data/sentiment, read by the library's loader."
    d = read_sentiment_file(shared_data("sentiment", *parts))
    return list(zip(d.texts, d.labels))


def phrases_inside(sentences) -> set[str]:
    "Every run of two or more words of each sentence (whitespace-split, as the GLUE phrases are)."
    return {" ".join(w[i:j]) for t in sentences for w in [t.split()] for i in range(len(w)) for j in range(i + 2, len(w) + 1)}


def split() -> tuple[list, list, list]:
    "(train phrases, valid sentences, untouched sentences) as (text, label) lists."
    phrases = read("sst2_glue_alps", "train.tsv") + read("sst2_glue_alps", "dev.tsv")
    kim = read("sst2_sentence_kim2014", "stsa.binary.train")
    known = {t for t, _ in phrases}
    valid = set(random.Random(VALID_SEED).sample(sorted(t for t, _ in kim if t in known), VALID_N))
    rest = sorted({t for t, _ in kim if t in known} - valid)
    untouched = set(random.Random(UNTOUCHED_SEED).sample(rest, UNTOUCHED_N))
    inside = phrases_inside(valid | untouched)
    train = [(t, l) for t, l in phrases if t not in inside]
    first = lambda chosen: list({t: (t, l) for t, l in kim if t in chosen}.values())  # one row per sentence
    return train, first(valid), first(untouched)


def write_tsv(path: Path, rows):
    path.write_text("sentence\tlabel\n" + "".join(f"{t}\t{l}\n" for t, l in rows), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2: sys.exit(__doc__)
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    train, valid, untouched = split()
    for name, rows in (("train", train), ("valid", valid), ("untouched", untouched)): write_tsv(out / f"{name}.tsv", rows)
    print(f"{out}: train {len(train):,} phrases, valid {len(valid)} sentences, untouched {len(untouched)} sentences")
