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
    for model, size in (("bpe", 300), ("wordpiece", 80), ("unigram", 60)):
        out = tmp_path / f"{model}.json"
        res = run([script("tc-train-tokenizer"), "--model", model, "--vocab-size", str(size), "--out", str(out), str(corpus)],
                  env=env)
        assert res.returncode == 0, res.stderr
        assert f"training {model} [".encode() in res.stderr  # the progress bar was drawn
        tok = run([script("tc-tokenize"), "--tokenizer", str(out)], b"players replaying\n", env)
        assert tok.returncode == 0, tok.stderr
        enc = Tokenizer.from_file(str(out)).encode("players replaying")
        assert json.loads(tok.stdout) == {"tokens": enc.tokens, "ids": enc.ids}


def test_wordpiece_cli_learns_the_default_rule(tmp_path, env):
    "`--model wordpiece` learns what `WordPiece.train` learns by default: BPE's count rule, as HF's WordPieceTrainer."
    from tokenizers import Tokenizer
    from transformer_components.named_tokenizers import WordPiece
    lines = ["the player is playing and the players played", "she plays the play again", "is that the question"] * 50
    corpus, out = tmp_path / "corpus.txt", tmp_path / "wordpiece.json"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run([script("tc-train-tokenizer"), "--model", "wordpiece", "--vocab-size", "60", "--out", str(out), str(corpus)], env=env)
    assert res.returncode == 0, res.stderr
    vocab = Tokenizer.from_file(str(out)).get_vocab()
    assert vocab == WordPiece.train(lines, 60).get_vocab()
    assert {"the", "is", "that"} <= vocab.keys()


def test_errors_are_named(tmp_path, env):
    res = run([script("tc-tokenize"), "--tokenizer", str(tmp_path / "missing.txt")], b"x\n", env)
    assert res.returncode != 0 and b"missing.txt: no such file" in res.stderr
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9\n")
    res = run([script("tc-train-tokenizer"), "--out", str(tmp_path / "t.json"), str(bad)], env=env)
    assert res.returncode != 0 and b"latin1.txt, line 1: not valid UTF-8" in res.stderr
    assert not (tmp_path / "t.json").exists()


def _tiny_vocab(tmp_path):
    "A BERT-style vocab.txt small enough to need no shared data."
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "line"]) + "\n", encoding="utf-8")
    return vocab


def test_reader_that_closes_early_gets_no_traceback(tmp_path, env):
    "`tc-tokenize ... | head -1`: the command stops quietly when its reader has read enough."
    vocab, err = _tiny_vocab(tmp_path), tmp_path / "err.txt"
    res = subprocess.run(["bash", "-c", f"yes 'hello world line' | head -n 200000 | {script('tc-tokenize')} --tokenizer {vocab} "
                                        f"2> {err} | head -n 1"], capture_output=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"tokens": ["[CLS]", "hello", "world", "line", "[SEP]"], "ids": [2, 5, 6, 7, 3]}
    assert err.read_bytes() == b"", err.read_text()


def test_full_device_is_one_line_and_exit_1(tmp_path, env):
    "Writing to a full disk (`> /dev/full`) ends with one line `tc-tokenize: error: ...` and exit status 1."
    import os
    import pytest
    if not os.path.exists("/dev/full"): pytest.skip("no /dev/full on this system")
    vocab = _tiny_vocab(tmp_path)
    with open("/dev/full", "w") as full:
        res = subprocess.run([script("tc-tokenize"), "--tokenizer", str(vocab)], input=b"hello world\n" * 5000,
                             stdout=full, stderr=subprocess.PIPE, env=env, timeout=300)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 1 and len(lines) == 1, res.stderr
    assert lines[0].startswith("tc-tokenize: error: ") and "No space left on device" in lines[0], lines


def test_usage_errors_exit_2(tmp_path, env):
    vocab = _tiny_vocab(tmp_path)
    for args in ([script("tc-tokenize")], [script("tc-tokenize"), "--tokenizer", str(vocab), "--bogus"],
                 [script("tc-train-tokenizer"), "--vocab-size", "many", str(vocab)],
                 [script("tc-train-tokenizer"), "--model", "sentencepiece", str(vocab)], [script("tc-train-tokenizer")]):
        res = run(args, env=env)
        assert res.returncode == 2, (args, res.stderr)
        assert b"Traceback" not in res.stderr and b"error:" in res.stderr, res.stderr


def test_pairs_from_a_tsv_like_hf(data_dir, tmp_path, env):
    "--pair: each line is two tab-separated texts, encoded as a pair with type ids, as HF encodes them."
    from tokenizers import Tokenizer
    path = data_dir / "tokenizers" / "roberta-roberta-base-untyped" / "tokenizer.json"
    pairs = [("Is it raining?", "It is pouring."), ("", "only the second"), ("a line\u2028separator", "")]
    res = run([script("tc-tokenize"), "--tokenizer", str(path), "--pair"], "".join(f"{a}\t{b}\n" for a, b in pairs).encode(), env)
    assert res.returncode == 0, res.stderr
    hf = Tokenizer.from_file(str(path))
    assert [json.loads(l) for l in res.stdout.decode().splitlines()] == [
        {"tokens": e.tokens, "ids": e.ids, "type_ids": e.type_ids} for e in (hf.encode(a, b) for a, b in pairs)]
    res = run([script("tc-tokenize"), "--tokenizer", str(_tiny_vocab(tmp_path)), "--pair"], b"hello\tworld\nno tab here\n", env)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 1 and lines == ["tc-tokenize: error: stdin line 2 has no tab: with --pair each line is two texts separated by a tab"], lines
    assert json.loads(res.stdout)["type_ids"] == [0, 0, 0, 1, 1]  # the line before was written


def test_empty_training_file_is_refused(tmp_path, env):
    "No training text: exit 1 with the file named, and no tokenizer written (it used to write 256 byte tokens, rc 0)."
    empty, out = tmp_path / "empty.txt", tmp_path / "tok.json"
    empty.write_text("\n \n", encoding="utf-8")
    res = run([script("tc-train-tokenizer"), "--out", str(out), str(empty)], env=env)
    assert res.returncode == 1 and b"empty.txt: no training text" in res.stderr, res.stderr
    assert not out.exists()


def test_merges_given_a_vocab_json_quotes_a_short_line(tmp_path, env):
    "`--merges vocab.json` (one 800 KB line for GPT-2) used to echo the whole line; the message now quotes its start."
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({f"token{i}": i for i in range(60_000)}), encoding="utf-8")
    res = run([script("tc-tokenize"), "--tokenizer", str(vocab), "--merges", str(vocab)], b"x\n", env)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 1 and len(lines) == 1, res.stderr[:500]
    assert "line 1 must be two tokens separated by one space" in lines[0] and len(lines[0]) < 400, lines[0][:500]


def test_train_word_tokenizer(tmp_path, env):
    corpus, out = tmp_path / "corpus.txt", tmp_path / "words.json"
    corpus.write_text("the cat sat on the mat\nthe dog sat\n", encoding="utf-8")
    res = run([script("tc-train-tokenizer"), "--model", "word", "--vocab-size", "5", "--out", str(out), str(corpus)], env=env)
    assert res.returncode == 0, res.stderr
    tok = run([script("tc-tokenize"), "--tokenizer", str(out)], b"The cat ate\n", env)
    assert tok.returncode == 0, tok.stderr
    # the: 3 times -> id 2, sat: 2 -> 3, then the words seen once by first appearance: cat -> 4 (0 is padding, 1 [UNK])
    assert json.loads(tok.stdout) == {"tokens": ["the", "cat", "[UNK]"], "ids": [2, 4, 1]}


def test_special_tokens_options(data_dir, env):
    "--allowed-special / --disallowed-special: by default special text stops the command; all, a list or none say otherwise."
    from tokenizers import ByteLevelBPETokenizer
    d = data_dir / "vocab" / "gpt2" / "whisper_assets_gpt2"
    base = [script("tc-tokenize"), "--tokenizer", str(d / "vocab.json"), "--merges", str(d / "merges.txt")]
    text = b"fine\nend<|endoftext|>\n"
    res = run(base, text, env)
    assert res.returncode == 1 and b"stdin line 2 holds the special token '<|endoftext|>'" in res.stderr, res.stderr
    assert [json.loads(l)["ids"] for l in res.stdout.decode().splitlines()] == [[38125]]  # the line before was written
    for option in (["--allowed-special", "all"], ["--allowed-special", "<|endoftext|>"]):
        res = run(base + option, text, env)
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout.decode().splitlines()[1]) == {"tokens": ["end", "<|endoftext|>"], "ids": [437, 50256]}
    res = run(base + ["--disallowed-special", "none"], text, env)
    hf = ByteLevelBPETokenizer(str(d / "vocab.json"), str(d / "merges.txt"))
    assert json.loads(res.stdout.decode().splitlines()[1])["ids"] == hf.encode("end<|endoftext|>").ids
    res = run(base + ["--allowed-special", "[PAD]"], text, env)
    assert res.returncode == 1 and b"--allowed-special '[PAD]': '[PAD]' is not a special token of this tokenizer" in res.stderr


def test_special_tokens_of_a_saved_tokenizer(tmp_path, env):
    "A WordPiece tokenizer.json with BERT's specials: [SEP] in the input is an error unless allowed."
    vocab = _tiny_vocab(tmp_path)
    res = run([script("tc-tokenize"), "--tokenizer", str(vocab), "--allowed-special", "[SEP]"], b"hello [SEP] world\n", env)
    assert res.returncode == 0 and json.loads(res.stdout)["ids"] == [2, 5, 3, 6, 3], res.stderr
    res = run([script("tc-tokenize"), "--tokenizer", str(vocab)], b"hello [SEP]\n", env)
    assert res.returncode == 1 and b"stdin line 1 holds the special token '[SEP]'" in res.stderr


def test_a_third_column_and_a_folder_as_out_are_refused(tmp_path, env):
    "--pair refuses `a<TAB>b<TAB>c` (a two-column TSV; it was read as ('a', 'b<TAB>c')); tc-train-tokenizer refuses a folder as --out before training (issue 35)."
    res = run([script("tc-tokenize"), "--tokenizer", str(_tiny_vocab(tmp_path)), "--pair"], b"hello\tworld\tline\n", env)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 1 and lines == ["tc-tokenize: error: stdin line 1 has 2 tabs: with --pair each line is two texts separated by a tab"], lines
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")  # training on it would fail: the refusal comes first
    res = run([script("tc-train-tokenizer"), "--out", str(tmp_path), str(empty)], env=env)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 1 and lines == [f"tc-train-tokenizer: error: --out {tmp_path} is a folder: name the file to write, e.g. {tmp_path / 'tokenizer.json'}"], lines
