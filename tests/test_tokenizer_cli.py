"""tc-tokenize and tc-train-tokenizer end to end, as a shell user runs them."""
import json
import subprocess

from conftest import script


def run(args, stdin=b"", env=None):
    return subprocess.run(args, input=stdin, capture_output=True, env=env, timeout=300)


def test_tokenize_bert_vocab(data_dir, env):
    vocab = data_dir / "vocab" / "bert-base-uncased" / "vocab.txt"
    res = run([script("tc-tokenize"), "--tokenizer", str(vocab)], "unsurprisingly\n\nHello, World!".encode(), env)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(l) for l in res.stdout.decode().splitlines()]
    assert len(rows) == 3  # the empty line keeps its place
    assert rows[0] == {"tokens": ["[CLS]", "un", "##sur", "##pr", "##ising", "##ly", "[SEP]"],
                       "ids": [101, 4895, 26210, 18098, 9355, 2135, 102]}
    assert rows[1]["ids"] == [101, 102]


def test_tokenize_gpt2_files_like_hf(data_dir, env):
    from tokenizers import ByteLevelBPETokenizer
    d = data_dir / "vocab" / "gpt2" / "whisper_assets_gpt2"
    lines = ["London is a beautiful city", "", "  spaces\tand tabs ünïcödé 🙂"]
    res = run([script("tc-tokenize"), "--tokenizer", str(d / "vocab.json"), "--merges", str(d / "merges.txt")],
              "\n".join(lines).encode(), env)
    assert res.returncode == 0, res.stderr
    hf = ByteLevelBPETokenizer(str(d / "vocab.json"), str(d / "merges.txt"))
    got = [json.loads(l) for l in res.stdout.decode().splitlines()]
    assert got == [{"tokens": hf.encode(t).tokens, "ids": hf.encode(t).ids} for t in lines]


def test_train_then_tokenize(tmp_path, env):
    from tokenizers import Tokenizer
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the player is playing and the players played\nshe plays the play again\n" * 200, encoding="utf-8")
    for model, size in (("bpe", 300), ("wordpiece", 80)):
        out = tmp_path / f"{model}.json"
        res = run([script("tc-train-tokenizer"), "--model", model, "--vocab-size", str(size), "--out", str(out), str(corpus)],
                  env=env)
        assert res.returncode == 0, res.stderr
        assert f"training {model} [".encode() in res.stderr  # the progress bar was drawn
        tok = run([script("tc-tokenize"), "--tokenizer", str(out)], b"players replaying\n", env)
        assert tok.returncode == 0, tok.stderr
        enc = Tokenizer.from_file(str(out)).encode("players replaying")
        assert json.loads(tok.stdout) == {"tokens": enc.tokens, "ids": enc.ids}


def test_errors_are_named(tmp_path, env):
    res = run([script("tc-tokenize"), "--tokenizer", str(tmp_path / "missing.txt")], b"x\n", env)
    assert res.returncode != 0 and b"missing.txt: no such file" in res.stderr
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9\n")
    res = run([script("tc-train-tokenizer"), "--out", str(tmp_path / "t.json"), str(bad)], env=env)
    assert res.returncode != 0 and b"latin1.txt, line 1: not valid UTF-8" in res.stderr
    assert not (tmp_path / "t.json").exists()
