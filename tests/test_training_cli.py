"""tc-train, tc-eval and tc-predict end to end: under torchrun with two CPU processes, killed and resumed, and on bad files."""
import json
import random
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import BIN, script

WORDS = ["good", "great", "fine", "lovely", "bad", "awful", "poor", "dull"]
SMALL = ["--dim", "16", "--heads", "2", "--layers", "1", "--vocab-size", "60", "--lr", "3e-3"]


def toy_file(path, n, seed=0):
    "A header TSV where the label says whether most of three words praise."
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        picks = [rng.randrange(8) for _ in range(3)]
        rows.append(f"the {' '.join(WORDS[j] for j in picks)} film\t{int(sum(j < 4 for j in picks) >= 2)}\n")
    path.write_text("sentence\tlabel\n" + "".join(rows), encoding="utf-8")
    return path


def run(args, env, timeout=120):
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)


def digest_of(checkpoint):
    from transformer_components.training import load_classifier, weights_digest
    return weights_digest(load_classifier(checkpoint, "cpu"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory, env):
    "A folder written by a short single-process tc-train run, and its training file."
    d = tmp_path_factory.mktemp("trained")
    data = toy_file(d / "train.tsv", 300)
    res = run([script("tc-train"), "--train", str(data), "--out", str(d / "out"), "--epochs", "5", "--batch-size", "16", *SMALL, "--dim", "32"], env)
    assert res.returncode == 0, res.stderr
    return d / "out", data


def test_torchrun_two_ranks_agree(tmp_path, env):
    data = toy_file(tmp_path / "train.tsv", 120)
    env = {**env, "OMP_NUM_THREADS": "1"}
    res = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", script("tc-train"),
               "--train", str(data), "--out", str(tmp_path / "out"), "--epochs", "1", "--max-steps", "4",
               "--batch-size", "8", *SMALL], env, timeout=180)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "x 2:" in res.stderr  # both processes joined one group
    digests = dict(re.findall(r"\[rank (\d)\] weights sha256 ([0-9a-f]{64})", res.stderr))
    assert sorted(digests) == ["0", "1"], res.stdout
    assert digests["0"] == digests["1"]
    assert digests["0"] == digest_of(tmp_path / "out" / "last.pt")  # what rank 0 saved is what both ranks hold
    from transformer_components.training import load_checkpoint
    st = load_checkpoint(tmp_path / "out" / "last.pt")
    assert (st["global_step"], st["world_size"], len(st["rng"])) == (4, 2, 2)


def test_sigkill_then_resume_continues_exactly(tmp_path, env):
    from transformer_components.training import load_checkpoint
    data = toy_file(tmp_path / "train.tsv", 400)
    args = ["--train", str(data), "--epochs", "2", "--batch-size", "4", "--save-every", "5", *SMALL]
    out = tmp_path / "killed"
    proc = subprocess.Popen([script("tc-train"), *args, "--out", str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, saved = time.monotonic() + 90, None
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "last.pt").exists():
                try: saved = load_checkpoint(out / "last.pt")
                except Exception: saved = None  # not possible with atomic writes, but do not let the test hang on it
                if saved and saved["global_step"] >= 10: break
            time.sleep(0.05)
        assert proc.poll() is None, "training finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None: proc.kill()
    # the folder is intact: every file in it loads (a temp file of an interrupted write may remain, and is cleaned on resume)
    names = sorted(p.name for p in out.iterdir() if not p.name.endswith(".tmp"))
    assert names == ["last.pt", "tokenizer.json"], names
    st = load_checkpoint(out / "last.pt")
    from transformer_components.wordpiece import WordPiece
    WordPiece.load(out / "tokenizer.json")
    assert st["epoch"] == 0 and 0 < st["step"] < 95 and st["step"] % 5 == 0, (st["epoch"], st["step"])
    res = run([script("tc-train"), *args, "--out", str(out), "--resume"], env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"epoch 1, step {st['step']} (global step {st['global_step']})" in res.stderr
    assert not list(out.glob(".*.tmp"))
    end = load_checkpoint(out / "last.pt")
    assert (end["epoch"], end["global_step"]) == (2, 2 * 95)  # 380 training rows / 4 per step, twice
    # an uninterrupted run with the same seed ends with the same weights
    ref = run([script("tc-train"), *args, "--out", str(tmp_path / "straight")], env)
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert digest_of(out / "last.pt") == digest_of(tmp_path / "straight" / "last.pt")


def test_eval_last_line_is_json(trained, env):
    out, data = trained
    res = run([script("tc-eval"), "--checkpoint", str(out), "--data", str(data)], env)
    assert res.returncode == 0, res.stderr
    last = json.loads(res.stdout.strip().splitlines()[-1])
    assert set(last) == {"accuracy", "n"} and last["n"] == 300
    assert last["accuracy"] > 0.85, last  # chance is about 0.5


def test_predict_prints_label_and_probability(trained, env):
    out, _ = trained
    texts = ["the great lovely good film", "the awful dull bad film"]
    res = run([script("tc-predict"), "--checkpoint", str(out), *texts], env)
    assert res.returncode == 0, res.stderr
    rows = [l.split("\t") for l in res.stdout.strip().splitlines()]
    assert [r[0] for r in rows] == ["positive", "negative"]
    assert [r[2] for r in rows] == texts
    assert all(0.5 <= float(r[1]) <= 1.0 for r in rows)


def test_bad_input_errors(tmp_path, trained, env):
    out, _ = trained
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    columns = tmp_path / "columns.tsv"
    columns.write_text("review_id\tstars\n1\t5\n", encoding="utf-8")
    rt = tmp_path / "rt.txt"
    rt.write_bytes(b"1 a fine film\n0 a clich\xe9d mess\n")  # cp1252 'é' on line 2
    for path, expected in ((empty, "the file is empty"), (columns, "cannot tell the format"),
                           (rt, f"{rt}, line 2:")):
        res = run([script("tc-train"), "--train", str(path), "--out", str(tmp_path / "o")], env)
        assert res.returncode != 0 and expected in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
    assert "--encoding" in res.stderr
    res = run([script("tc-eval"), "--checkpoint", str(out), "--data", str(rt)], env)
    assert res.returncode != 0 and f"{rt}, line 2:" in res.stderr and "--encoding" in res.stderr
    res = run([script("tc-eval"), "--checkpoint", str(out), "--data", str(rt), "--encoding", "cp1252"], env)
    assert res.returncode == 0 and json.loads(res.stdout.splitlines()[-1])["n"] == 2, res.stderr
    (tmp_path / "ck").mkdir()
    (tmp_path / "ck" / "tokenizer.json").write_bytes((out / "tokenizer.json").read_bytes())
    (tmp_path / "ck" / "best.pt").write_bytes(b"garbage")
    res = run([script("tc-predict"), "--checkpoint", str(tmp_path / "ck"), "good"], env)
    assert res.returncode != 0 and "not a readable checkpoint" in res.stderr and "Traceback" not in res.stderr
