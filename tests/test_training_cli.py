"""tc-train, tc-eval and tc-predict end to end, as a shell user meets them: under torchrun with two CPU processes,
killed at random moments and resumed, two runs racing for one folder, corrupted and swapped files, a full disk,
a reader that closes the pipe, and bad input."""
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import script

# `make test` runs this file's tests in a pytest process of their own, beside the other tests (two at once on 2 cores);
# those marked `beside` (about a fifth of this file's time, none using the shared `trained` run) go with the others,
# so that the two processes end at about the same time. `make pytest` runs everything in one process.
pytestmark = pytest.mark.training_cli

WORDS = ["good", "great", "fine", "lovely", "bad", "awful", "poor", "dull"]
SMALL = ["--embedding-dim", "16", "--num-heads", "2", "--num-layers", "1", "--vocab-size", "60", "--lr", "3e-3"]


def toy_file(path, n, seed=0):
    "A header TSV where the label says whether most of three words praise."
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        picks = [rng.randrange(8) for _ in range(3)]
        rows.append(f"the {' '.join(WORDS[j] for j in picks)} film\t{int(sum(j < 4 for j in picks) >= 2)}\n")
    path.write_text("sentence\tlabel\n" + "".join(rows), encoding="utf-8")
    return path


def run(args, env, timeout=180, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, timeout=timeout, **kw)


def one_line_error(res, prog, contains=""):
    "A user or environment error: exit 1, one line `prog: error: ...`, no traceback."
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])
    assert lines and lines[-1].startswith(f"{prog}: error: ") and contains in lines[-1], res.stderr[-2000:]
    assert "Traceback" not in res.stderr, res.stderr[-2000:]


def files(folder):
    "Every file's bytes under `folder` except the lock (whose content is the last holder's pid)."
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"}


def model_digest(folder):
    from transformer_components.encoder import SentimentClassifier
    from transformer_components.training import weights_digest
    return weights_digest(SentimentClassifier.from_pretrained(folder))


def state_digest_of(path):
    from transformer_components.encoder import EncoderConfig, SentimentClassifier
    from transformer_components.training import load_state, weights_digest
    st = load_state(path)
    m = SentimentClassifier(EncoderConfig(**st["encoder"]))
    m.load_state_dict(st["model"])
    return weights_digest(m)


@pytest.fixture(scope="module")
def trained(tmp_path_factory, env):
    "A run folder written by a short single-process tc-train run, and its training file."
    d = tmp_path_factory.mktemp("trained")
    data = toy_file(d / "train.tsv", 300)
    res = run([script("tc-train"), "--train", data, "--out", d / "out", "--epochs", "5", "--batch-size", "16", *SMALL], env)
    assert res.returncode == 0, res.stderr
    return d / "out", data


@pytest.mark.beside
def test_torchrun_two_ranks_agree(tmp_path, env):
    from transformer_components.training import load_state
    data = toy_file(tmp_path / "train.tsv", 120)
    env = {**env, "OMP_NUM_THREADS": "1"}
    res = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", script("tc-train"),
               "--train", data, "--out", tmp_path / "out", "--epochs", "1", "--max-steps", "4", "--batch-size", "8", *SMALL], env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "x 2:" in res.stderr  # both processes joined one group
    digests = dict(re.findall(r"\[rank (\d)\] weights sha256 ([0-9a-f]{64})", res.stderr))
    assert sorted(digests) == ["0", "1"] and digests["0"] == digests["1"], res.stderr[-2000:]
    assert digests["0"] == state_digest_of(tmp_path / "out" / "last.pt")  # what rank 0 saved is what both ranks hold
    st = load_state(tmp_path / "out" / "last.pt")
    assert (st["loop"]["global_step"], st["world_size"], len(st["rng"])) == (4, 2, 2)


@pytest.mark.beside
def test_torchrun_validation_set_smaller_than_the_ranks(tmp_path, env):
    "One validation example for two processes: the rank with no share still sums the model's full confusion matrix."
    data, valid = toy_file(tmp_path / "train.tsv", 120), toy_file(tmp_path / "valid.tsv", 1, seed=1)
    res = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", script("tc-train"), "--train", data,
               "--valid", valid, "--out", tmp_path / "out", "--epochs", "1", "--max-steps", "2", "--batch-size", "8", *SMALL],
              {**env, "OMP_NUM_THREADS": "1"})
    assert res.returncode == 0, res.stderr[-3000:]
    assert "validating on 1" in res.stderr and "valid_accuracy=" in res.stderr, res.stderr[-2000:]


FAILING_TC_TRAIN = """
import sys
from transformer_components import training
step = training.Trainer.step
def failing_step(self, idx):  # stands for any error in the training loop, here a disk that fills up
    if self.state.global_step == 2: raise OSError(28, "No space left on device", "out/last.pt")
    return step(self, idx)
training.Trainer.step = failing_step
sys.exit(training.tc_train())
"""


@pytest.mark.beside
def test_torchrun_failure_mid_run_ends_with_its_error(tmp_path, env):
    """Both processes fail at step 2: the run ends with the error, status 1, rather than hanging while Python exits.
    One run: the hang it guards against was rare (0 of 60 runs of the code before the fix), so repeating the run adds
    little; 42_training checks the cause itself (the failed run's DistributedDataParallel wrapper is freed)."""
    data = toy_file(tmp_path / "train.tsv", 120)
    (tmp_path / "failing_tc_train.py").write_text(FAILING_TC_TRAIN, encoding="utf-8")
    res = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", tmp_path / "failing_tc_train.py",
               "--train", data, "--out", tmp_path / "out", "--epochs", "1", "--batch-size", "8", *SMALL],
              {**env, "OMP_NUM_THREADS": "1"}, timeout=120)
    assert res.returncode == 1 and "tc-train: error: out/last.pt: No space left on device" in res.stderr, res.stderr[-3000:]
    assert "terminate called" not in res.stderr, res.stderr[-3000:]


def test_sigkill_then_resume_continues_exactly(tmp_path, env):
    from transformer_components.training import load_state
    data = toy_file(tmp_path / "train.tsv", 240)
    args = ["--train", data, "--epochs", "2", "--batch-size", "4", "--save-every", "5", *SMALL]
    out = tmp_path / "killed"
    proc = subprocess.Popen([script("tc-train"), *args, "--out", out], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, saved = time.monotonic() + 90, None
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "last.pt").exists():
                try: saved = load_state(out / "last.pt")
                except Exception: saved = None  # not possible with atomic writes, but do not let the test hang on it
                if saved and saved["loop"]["global_step"] >= 10: break
            time.sleep(0.05)
        assert proc.poll() is None, "training finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None: proc.kill()
    st = load_state(out / "last.pt")["loop"]
    assert st["epoch"] == 0 and 0 < st["step"] < 57 and st["step"] % 5 == 0, st
    res = run([script("tc-train"), *args, "--out", out, "--resume"], env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"epoch 1, step {st['step']} (global step {st['global_step']})" in res.stderr
    assert not list(out.rglob(".*.tmp"))
    end = load_state(out / "last.pt")["loop"]
    assert (end["epoch"], end["global_step"]) == (2, 2 * 57)  # 228 training rows (5% of 240 held out) / 4 per step, twice
    ref = run([script("tc-train"), *args, "--out", tmp_path / "straight"], env)  # an uninterrupted run, same seed
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert state_digest_of(out / "last.pt") == state_digest_of(tmp_path / "straight" / "last.pt")
    assert model_digest(out) == model_digest(tmp_path / "straight")


def _consistent(out):
    "Whatever a kill left: run.json, the tokenizer, last.pt and the best model each load whole and belong to one run."
    from transformer_components.encoder import SentimentClassifier, file_sha256
    from transformer_components.training import load_state
    if not (out / "run.json").exists(): return "before run.json"
    rec = json.loads((out / "run.json").read_text())
    assert file_sha256(out / "tokenizer.json") == rec["tokenizer"]["sha256"]
    if (out / "last.pt").exists(): assert load_state(out / "last.pt")["run_id"] == rec["run_id"]
    if (out / "best.json").exists():
        best = json.loads((out / "best.json").read_text())
        assert best["run_id"] == rec["run_id"]
        model = SentimentClassifier.from_pretrained(out)  # every digest checked
        assert file_sha256(out / best["model"] / "tokenizer.json") == rec["tokenizer"]["sha256"]
        assert model.config.vocab_size == model.tokenizer.vocab_size
    return "+".join(["run.json"] + [name for name in ("last.pt", "best.json") if (out / name).exists()])


def test_ten_random_kills_never_mix_states(tmp_path, env):
    """SIGKILL tc-train at random moments 10 times, resuming each time: the folder is always whole, the end result exact.
    The first kill falls while the command starts (torch loading); kill k > 0 at a random moment of the k-th half-second
    after its first line (the data read: then the tokenizer, run.json, the steps and their saves), so the kills spread
    over the run's phases however long torch takes to load (moments counted from the start all fell before the folder
    existed on a loaded machine)."""
    data = toy_file(tmp_path / "train.tsv", 240)
    args = ["--train", data, "--epochs", "3", "--batch-size", "8", "--save-every", "1", *SMALL]
    out, rng, kills, mid_write, phases = tmp_path / "chaos", random.Random(14), 0, 0, {}
    while kills < 10:
        resume = ["--resume"] if (out / "run.json").exists() else []
        with open(tmp_path / "run.log", "w") as log:
            proc = subprocess.Popen([script("tc-train"), *args, "--out", out, *resume], env=env, stdout=subprocess.DEVNULL, stderr=log)
        if kills == 0: time.sleep(rng.uniform(0.3, 1.5))  # start-up (torch's import) takes about 2 s on a quiet machine
        else:  # training takes about 5 s more
            deadline = time.monotonic() + 120
            while not (tmp_path / "run.log").stat().st_size and proc.poll() is None and time.monotonic() < deadline: time.sleep(0.02)
            time.sleep(0.5 * (kills - 1 + rng.random()))
        if proc.poll() is not None:  # it finished first: start again from scratch to keep killing
            assert proc.returncode == 0, (tmp_path / "run.log").read_text()[-2000:]
            shutil.rmtree(out); continue
        proc.send_signal(signal.SIGKILL); proc.wait(10); kills += 1
        mid_write += bool(list(out.rglob(".*.tmp")) or [p for p in (out / "models").glob("*") if not (p / "config.json").exists()]
                          if out.exists() else False)
        phase = _consistent(out) if out.exists() else "before the folder"
        phases[phase] = phases.get(phase, 0) + 1
    res = run([script("tc-train"), *args, "--out", out, *(["--resume"] if (out / "run.json").exists() else [])], env)
    assert res.returncode == 0, res.stderr[-3000:]
    _consistent(out)
    ref = run([script("tc-train"), *args, "--out", tmp_path / "straight"], env)
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert state_digest_of(out / "last.pt") == state_digest_of(tmp_path / "straight" / "last.pt")
    assert model_digest(out) == model_digest(tmp_path / "straight")
    print(f"\n10 kills: {mid_write} landed during a write (a temporary file or an incomplete model folder was left); "
          f"folder state at the kill: {phases}; every time consistent, and the resumed run ended bit-identical")


def test_failed_run_leaves_the_folder_untouched(trained, env, tmp_path):
    out, data = trained
    before = files(out)
    preds = run([script("tc-predict"), "--model", out, "the great film", "the dull film"], env).stdout
    for bad in (["--vocab-size", "2000", "--embedding-dim", "0"],  # a usage error: exit 2 before anything runs
                ["--vocab-size", "2000", "--num-heads", "3", "--overwrite"],  # a model that cannot be built: exit 1
                ["--tokenizer", tmp_path / "missing.json", "--overwrite"]):
        res = run([script("tc-train"), "--train", data, "--out", out, *bad], env)
        assert res.returncode in (1, 2) and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert files(out) == before
    assert run([script("tc-predict"), "--model", out, "the great film", "the dull film"], env).stdout == preds
    res = run([script("tc-train"), "--train", data, "--out", out, *SMALL], env)
    one_line_error(res, "tc-train", "already holds a run")
    res = run([script("tc-train"), "--train", data, "--out", out, *SMALL, "--seed", "3", "--resume"], env)
    one_line_error(res, "tc-train", "train_config.seed: 0 -> 3")
    other = toy_file(tmp_path / "other.tsv", 300, seed=1)
    res = run([script("tc-train"), "--train", other, "--out", out, "--epochs", "5", "--batch-size", "16", *SMALL, "--resume"], env)
    one_line_error(res, "tc-train", "data.train:")
    assert files(out) == before


@pytest.mark.beside
def test_two_runs_on_one_folder(tmp_path, env):
    data = toy_file(tmp_path / "train.tsv", 400)
    args = [script("tc-train"), "--train", data, "--out", tmp_path / "out", "--epochs", "2", "--batch-size", "2", *SMALL]  # ~1.5 s of training: the second is refused before torch loads
    log = open(tmp_path / "first.log", "w")  # a file, not a pipe: an unread pipe that fills up would stall the run
    first = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "out" / "run.json").exists() and time.monotonic() < deadline: time.sleep(0.05)
        second = run([*args, "--overwrite"], env)
        one_line_error(second, "tc-train", f"is in use by another process (pid {first.pid})")
        assert first.wait(600) == 0, (tmp_path / "first.log").read_text()[-2000:]
    finally:
        if first.poll() is None: first.kill()
    rec = json.loads((tmp_path / "out" / "run.json").read_text())
    assert json.loads((tmp_path / "out" / "best.json").read_text())["run_id"] == rec["run_id"]
    assert run([script("tc-eval"), "--model", tmp_path / "out", "--data", data], env).returncode == 0


def test_corrupted_or_swapped_files_are_refused(trained, env, tmp_path):
    out, data = trained
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    best = bad / json.loads((bad / "best.json").read_text())["model"]
    raw = bytearray((best / "model.safetensors").read_bytes())
    raw[-3] ^= 0x40  # an exponent bit of the last weight (the head's bias)
    (best / "model.safetensors").write_bytes(bytes(raw))
    one_line_error(run([script("tc-eval"), "--model", bad, "--data", data], env), "tc-eval", "do not match the sha256")
    one_line_error(run([script("tc-predict"), "--model", bad, "good"], env), "tc-predict", "do not match the sha256")
    shutil.rmtree(bad); shutil.copytree(out, bad)
    best = bad / json.loads((bad / "best.json").read_text())["model"]
    from transformer_components.named_tokenizers import WordPiece
    WordPiece.train(["a larger vocabulary than the model's"] * 5 + WORDS * 50, 100).save(best / "tokenizer.json")
    one_line_error(run([script("tc-eval"), "--model", bad, "--data", data], env), "tc-eval", "is not the tokenizer saved with this model")
    raw = bytearray((bad / "last.pt").read_bytes())
    raw[len(raw) // 2] ^= 0x01
    (bad / "last.pt").write_bytes(bytes(raw))
    res = run([script("tc-train"), "--train", data, "--out", bad, "--epochs", "5", "--batch-size", "16", *SMALL, "--resume"], env)
    one_line_error(res, "tc-train", "last.pt")


def test_full_disk_and_closed_pipe(trained, env, tmp_path):
    out, data = trained
    def limit_file_size():  # a file may not grow past 64 KiB: writes beyond fail with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    res = run([script("tc-train"), "--train", data, "--out", tmp_path / "full", "--epochs", "1", *SMALL], env, preexec_fn=limit_file_size)
    one_line_error(res, "tc-train", "File too large")
    assert not list((tmp_path / "full").rglob(".*.tmp"))  # nothing half-written is left
    with open("/dev/full", "w") as full:  # every write to /dev/full fails with ENOSPC
        res = subprocess.run([script("tc-predict"), "--model", str(out), "good"], stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    one_line_error(res, "tc-predict", "No space left on device")
    lines = "\n".join(["the great film", "the dull film"] * 200) + "\n"
    p = subprocess.Popen(f"{script('tc-predict')} --model {out} --batch-size 8 | head -1", shell=True, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    stdout, stderr = p.communicate(lines, timeout=120)
    assert len(stdout.splitlines()) == 1 and "Traceback" not in stderr and "Broken pipe" not in stderr, stderr


def test_predict_arguments_stdin_and_json(trained, env):
    out, _ = trained
    texts = ["the great lovely good film", "the awful dull bad film"]
    res = run([script("tc-predict"), "--model", out, *texts], env)
    assert res.returncode == 0, res.stderr
    rows = [l.split("\t") for l in res.stdout.strip().splitlines()]
    assert [r[0] for r in rows] == ["positive", "negative"] and [r[2] for r in rows] == texts
    assert all(0.5 <= float(r[1]) <= 1.0 for r in rows)
    res = run([script("tc-predict"), "--model", out, "--json"], env, input="\n".join(texts) + "\n")
    preds = [json.loads(l) for l in res.stdout.splitlines()]
    assert [(p["line"], p["text"], p["label"]) for p in preds] == [(1, texts[0], "positive"), (2, texts[1], "negative")]
    assert all(abs(sum(p["probabilities"].values()) - 1) < 1e-6 for p in preds)
    one_line_error(run([script("tc-predict"), "--model", out], env, input="good\n\nbad\n"), "tc-predict", "line 2 is empty")


def test_bad_input_errors(tmp_path, trained, env):
    out, _ = trained
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    columns = tmp_path / "columns.tsv"
    columns.write_text("review_id\tstars\n1\t5\n", encoding="utf-8")
    rt = tmp_path / "rt.txt"
    rt.write_bytes(b"1 a fine film\n0 a clich\xe9d mess\n")  # cp1252 'é' on line 2
    for path, expected in ((empty, "the file is empty"), (columns, f"{columns}: cannot tell the format"), (rt, f"{rt}, line 2:")):
        one_line_error(run([script("tc-train"), "--train", path, "--out", tmp_path / "o"], env), "tc-train", expected)
        assert not (tmp_path / "o").exists()
    one_line_error(run([script("tc-eval"), "--model", out, "--data", rt], env), "tc-eval", "--encoding")
    res = run([script("tc-eval"), "--model", out, "--data", rt, "--encoding", "cp1252"], env)
    assert res.returncode == 0 and json.loads(res.stdout.splitlines()[-1])["n"] == 2, res.stderr
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "best.pt").write_bytes(b"garbage")
    one_line_error(run([script("tc-predict"), "--model", tmp_path / "old", "good"], env), "tc-predict", "before version 0.1")
    one_line_error(run([script("tc-eval"), "--model", tmp_path / "nodir", "--data", rt], env), "tc-eval", "no such folder")
    res = run([script("tc-train"), "--train", rt, "--out", tmp_path / "o", "--epochs", "0"], env)
    assert res.returncode == 2 and "argument --epochs: must be an integer > 0" in res.stderr


def test_readers_never_see_a_half_swapped_run(tmp_path, monkeypatch):
    "A reader loading a run's best model while the trainer swaps in new ones never fails (issue 26: 64 of 545 did)."
    import threading
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not what is tested here: swap faster
    from transformer_components.encoder import EncoderConfig, SentimentClassifier
    from transformer_components.training import RunFolder
    from transformer_components.named_tokenizers import WordPiece
    tok = WordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "bad"])
    model = SentimentClassifier(EncoderConfig(tok.vocab_size, 8, num_layers=1, num_heads=2, max_seq_len=8))
    run = RunFolder(tmp_path / "run").start({"data": {"train": {"source": "t"}}, "tokenizer": {"source": "t"}}, tok)
    run.save_best(model, 0, {})
    swaps, failures, loads, done = 0, [], 0, threading.Event()
    def swap():
        nonlocal swaps
        while swaps < 100 or loads < 500: swaps += 1; run.save_best(model, swaps, {})
        done.set()
    t = threading.Thread(target=swap); t.start()
    while not done.is_set():
        try: SentimentClassifier.from_pretrained(run.path)
        except Exception as e: failures.append(repr(e))
        loads += 1
    t.join()
    assert swaps >= 100 and loads >= 500 and failures == [], (swaps, loads, failures[:3])


def _entry_point(name):
    "The command line pip's wrapper runs for console script `name`, read from settings.ini (the installed script may predate it)."
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(os.path.dirname(__file__), "..", "settings.ini"))
    target = dict(line.strip().split("=") for line in cfg["DEFAULT"]["console_scripts"].splitlines() if line.strip())[name]
    module, func = target.split(":")
    return [sys.executable, "-c", f"import sys; from {module} import {func}; sys.exit({func}())"]


@pytest.mark.parametrize("delay", [0.3, 1.0, 3.0])
def test_sigint_at_any_moment_of_start_up(tmp_path, env, delay):
    "Ctrl-C while torch loads, the data is read or the first steps run: one line, status 130."
    data = toy_file(tmp_path / "train.tsv", 300)
    # a shell without job control starts background commands with SIGINT ignored (`make test &`, `nohup`), and the
    # command would inherit that: give it the default, as a terminal does
    p = subprocess.Popen([*_entry_point("tc-train"), "--train", data, "--out", tmp_path / "out", "--epochs", "1000", *SMALL],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130 and err.strip().splitlines()[-1] == "tc-train: interrupted", (p.returncode, err[:1500], err[-500:])
    assert "Traceback" not in err, err[-2000:]


def test_eval_reads_a_pipe_and_ends_with_json(trained, env):
    "`tc-eval --data <(...)`: a pipe is read as a file; the last line of the output is the scores as JSON (one run shows both)."
    out, data = trained
    r, w = os.pipe()
    proc = subprocess.Popen([script("tc-eval"), "--model", out, "--data", f"/dev/fd/{r}"], pass_fds=(r,),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    os.close(r)
    with os.fdopen(w, "wb") as f: f.write(data.read_bytes())
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr[-2000:]
    last = json.loads(stdout.strip().splitlines()[-1])
    assert set(last) == {"accuracy", "macro_f1", "n", "confusion"} and last["n"] == 300
    assert last["accuracy"] > 0.85, last  # chance is about 0.5


@pytest.mark.beside
@pytest.mark.parametrize("name", ["t5-t5-small-untyped", "llama2-llama-2-7b"])
def test_train_with_a_pipeline_tokenizer_json(name, data_dir, tmp_path, env):
    """tc-train --tokenizer with T5's Unigram or Llama-2's SentencePiece BPE file: [PAD], [CLS], [SEP] are added, a few steps
    on SST-2; tc-predict answers, and the reloaded run's tokenizer gives HF's ids and the model the same input as the file."""
    from tokenizers import Tokenizer
    from transformer_components.encoder import SentimentClassifier, encode_texts
    from transformer_components.tokenizer_loading import load_tokenizer
    src = data_dir / "tokenizers" / name / "tokenizer.json"
    lines = (data_dir / "sentiment" / "sst2_glue_alps" / "train.tsv").read_text(encoding="utf-8").splitlines()[:201]
    (tmp_path / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run([script("tc-train"), "--train", tmp_path / "train.tsv", "--out", tmp_path / "run", "--tokenizer", src, "--max-steps", "4",
               "--batch-size", "16", "--embedding-dim", "16", "--num-heads", "2", "--num-layers", "1"], env)
    assert res.returncode == 0 and "has no [PAD], [CLS], [SEP]: added as ids" in res.stderr, res.stderr[-2000:]
    pred = run([script("tc-predict"), "--model", tmp_path / "run", "a gripping , funny film"], env)
    assert pred.returncode == 0 and pred.stdout.split("\t")[0] in ("negative", "positive"), pred.stderr[-2000:]
    model, hf = SentimentClassifier.from_pretrained(tmp_path / "run"), Tokenizer.from_file(str(src))
    texts = [l.split("\t")[0] for l in lines[1:]] + ["Héllo  wörld 🙂 <pad> </s>", "  two  spaces "]
    assert [model.tokenizer.encode(t, allowed_special="all").ids for t in texts] == [hf.encode(t).ids for t in texts]
    tok = load_tokenizer(src)
    tok.add_special_tokens(["[PAD]", "[CLS]", "[SEP]"])
    assert encode_texts(model.tokenizer, texts) == encode_texts(tok, texts)
    assert model.config.pad_id == model.tokenizer.token_to_id("[PAD]") == tok.token_to_id("[PAD]")


def test_tokenizer_with_gaps_in_its_ids_is_refused(tmp_path, env):
    "tc-train --tokenizer with ids 0..3 and 7, 1506 (Hugging Face loads it): one line, exit 1, nothing left in --out (issue 35)."
    data = toy_file(tmp_path / "train.tsv", 60)
    vocab = {"[UNK]": 0, "[PAD]": 1, "[CLS]": 2, "[SEP]": 3, **{w: 7 + 100 * k for k, w in enumerate(["the", "film", *WORDS])}}
    (tmp_path / "gapped.json").write_text(json.dumps({"model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
                                                      "pre_tokenizer": {"type": "WhitespaceSplit"}}), encoding="utf-8")
    res = run([script("tc-train"), "--train", data, "--out", tmp_path / "out", "--tokenizer", tmp_path / "gapped.json", "--max-steps", "2", *SMALL], env)
    one_line_error(res, "tc-train", "numbers its 14 tokens with gaps (ids up to 907): tc-train needs ids 0 to 13")
    assert not (tmp_path / "out").exists()


def test_a_run_in_out_is_refused_before_torch_loads(trained, tmp_path, env):
    """tc-train refuses an --out that holds a run without importing torch (a torch that fails to import proves it), and
    the three commands answer --version without it; a finished run leaves no .lock (issue 35)."""
    out, data = trained
    assert not (out / ".lock").exists()
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('torch was imported')\n")
    env = {**env, "PYTHONPATH": os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])}
    one_line_error(run([script("tc-train"), "--train", data, "--out", out], env), "tc-train", f"{out} already holds a run")
    from transformer_components import __version__
    for name in ("tc-train", "tc-eval", "tc-predict"):
        res = run([script(name), "--version"], env)
        assert (res.returncode, res.stdout, res.stderr) == (0, f"{name} {__version__}\n", ""), res
