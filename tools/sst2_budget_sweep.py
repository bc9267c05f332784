"""Train one SST-2 recipe with `tc-train` as it would run on a 2-core CPU under `--max-minutes`, on whatever device
this machine has, and score it: a sweep of recipes on a GPU in minutes instead of hours on the CPU.

Run: python tools/sst2_budget_sweep.py SPLIT_DIR OUT_DIR NAME SEED 'RECIPE_JSON' [--dev FILE] [--init-from DIR]

- SPLIT_DIR holds `train.tsv` and `valid.tsv` as `tools/sst2_split.py` writes them; `--dev` names another held-out
  file to score (we used Kim's `stsa.binary.dev`, the 872 SST-2 dev sentences).
- The clock is fake: each training step is charged what it costs `tc-train` on the 2-core CPU, measured there as
  `STEP_SECONDS` per step plus `TOKEN_SECONDS` per real token (MiniLM, batches of 8 and 32), times `OVERHEAD` for
  what the CPU run spent around the steps (so that the default recipe stops after the 2,840 steps it ran on the CPU). So the
  budget's learning-rate decay and the stop fall at the step where they fall on that CPU, whatever this device is.
- RECIPE_JSON: `args` (more `tc-train` options), `epochs` (default 2), `nobudget` (no `--max-minutes`: train the
  epochs out), `scratch` (no `--init-from`), `train` (another training file in SPLIT_DIR), `freeze` (keep the token
  table fixed; its step costs `FROZEN_STEP_SECONDS`), `llrd` (layer-wise learning-rate decay factor), `warmup` and
  `weight_decay` (passed as `--warmup` and `--weight-decay`).
- Prints one line `RESULT {json}` with the accuracy on valid (from `best.json`) and on `--dev` of the model `tc-train` kept.

It changes `tc-train`'s internals for one process only (the clock, the optimizer's groups), so it is a tool, not
part of the library. nbs/43 reports the sweep we ran with it on a lent H100.
"""
import argparse
import json
import re
import sys

import torch

import transformer_components.training as T
from transformer_components.core import default_device
from transformer_components.encoder import SentimentClassifier, encode_texts
from transformer_components.sentiment_data import read_sentiment_file

STEP_SECONDS, FROZEN_STEP_SECONDS, TOKEN_SECONDS, OVERHEAD = 0.075, 0.040, 0.000307, 1.2  # measured on the 2-core CPU
BUDGET_MINUTES = 11


def fake_clock(step_seconds: float):
    "Make `Trainer.elapsed` count CPU-equivalent seconds: `OVERHEAD * (step_seconds + TOKEN_SECONDS * tokens)` a step."
    real_step = T.Trainer.step
    def step(self, idx):
        self.fake_seconds = getattr(self, "fake_seconds", 0.0) + OVERHEAD * (step_seconds + TOKEN_SECONDS * sum(self.lengths[j] for j in idx))
        return real_step(self, idx)
    T.Trainer.step = step
    T.Trainer.elapsed = lambda self: getattr(self, "fake_seconds", 0.0)


def layerwise_adamw(decay: float):
    "AdamW whose block `i` of `L` learns at `lr * decay ** (L - i)`, the embeddings at `decay ** (L + 1)`, the head at `lr`."
    def adamw(model, cfg):
        L, groups = model.config.num_layers, {}
        for n, p in model.named_parameters():
            m = re.search(r"layers\.(\d+)\.", n)
            depth = int(m.group(1)) + 1 if m else (0 if "embedding" in n else L + 1)  # the final norm and the head: top
            wd = cfg.weight_decay if p.ndim >= 2 else 0.0
            groups.setdefault((depth, wd), []).append(p)
        groups = [{"params": ps, "weight_decay": wd, "lr": cfg.lr * decay ** (L + 1 - d)} for (d, wd), ps in groups.items()]
        return torch.optim.AdamW(groups, lr=cfg.lr, fused=next(model.parameters()).is_cuda)  # as the sweep ran it
    T.adamw = adamw


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("split"); p.add_argument("out"); p.add_argument("name"); p.add_argument("seed"); p.add_argument("recipe")
    p.add_argument("--dev", help="another held-out file to score"); p.add_argument("--init-from", help="the pre-trained model folder")
    a = p.parse_args()
    r = json.loads(a.recipe)
    if not r.get("scratch") and not a.init_from: sys.exit("a recipe without `scratch` needs --init-from")
    fake_clock(FROZEN_STEP_SECONDS if r.get("freeze") else STEP_SECONDS)
    if r.get("freeze"):
        build = T._build
        def frozen(args, tok, labels, device, build=build):
            m = build(args, tok, labels, device); m.encoder.token_embedding.requires_grad_(False); return m
        T._build = frozen
    if "llrd" in r: layerwise_adamw(r["llrd"])
    out = f"{a.out}/{a.name}-s{a.seed}"
    T.tc_train(["--train", f"{a.split}/{r.get('train', 'train.tsv')}", "--valid", f"{a.split}/valid.tsv", "--out", out, "--overwrite",
                *([] if r.get("scratch") else ["--init-from", a.init_from]), *([] if r.get("nobudget") else ["--max-minutes", str(BUDGET_MINUTES)]),
                "--epochs", str(r.get("epochs", 2)), "--seed", a.seed, "--save-every", "0",
                *[f"--{k.replace('_', '-')}={r[k]}" for k in ("warmup", "weight_decay") if k in r], *r.get("args", [])])
    best = json.load(open(f"{out}/best.json"))  # tc-train scored the model it kept on valid already
    row = {"name": a.name, "seed": int(a.seed), "recipe": r, "best": best, "valid": round(best["valid_accuracy"], 4)}
    if a.dev:
        model, d = SentimentClassifier.from_pretrained(out).to(default_device()), read_sentiment_file(a.dev)
        row["dev"] = round(T.evaluate(model, encode_texts(model.tokenizer, d.texts, 128), d.labels, pad_id=model.config.pad_id)["accuracy"], 4)
    print("RESULT " + json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
