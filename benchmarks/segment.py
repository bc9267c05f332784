"""Chinese segmentation: accuracy, speed and whole-process time of `transformer_components.chinese` beside jieba, in one run.

Text: the SIGHAN 2005 PKU test input (1,944 lines, 172,733 characters).
- Accuracy (SIGHAN word F1, OOV recall against the PKU training word list):
  `tc-segment --dict pku_training_words.utf8` (the official list; a plain list, so tc-segment adapts to the input),
  forward maximum matching with the same list, jieba with its own dictionary, ours with jieba's dictionary, and a
  model trained on the first half of the PKU gold, scored on the second half (the PKU training text is not here).
- Whole process, best of 5 by wall time and by CPU time (user + system): `tc-segment < pku_test.utf8` (jieba's
  dict.txt, our default) against a Python process that imports jieba, loads its dictionary and cuts every line,
  writing the same output; both with their dictionary cache already built ("cached") and with an empty cache
  ("cold"). The processes run round-robin, one of each in turn, so that the load of a shared machine falls on all
  of them alike (timed one command after another, a busy minute can land on one side only). Both packages run from
  compiled bytecode, as a pip install leaves them: the editable install of a development checkout has none where
  PYTHONDONTWRITEBYTECODE is set (as on the project's machines), so the script compiles ours first.
- In-process rate: both segmenters with jieba's dict.txt, warmed up, best of 3 by CPU time of this thread (the
  machine is shared); jieba with its HMM on (its default) and off.
Run: python benchmarks/segment.py
`--quick` runs every step once on the first 300 lines (a smoke test for `make test`, well under 30 s; its
figures are not comparable).
"""
import argparse, compileall, importlib.util, os, resource, subprocess, sys, tempfile, time
from pathlib import Path

import transformer_components
from transformer_components.core import has_shared_data, shared_data

JIEBA_PROCESS = """
import sys, jieba
jieba.setLogLevel(60)
if len(sys.argv) > 1: jieba.dt.tmp_dir = sys.argv[1]
out = sys.stdout
for line in sys.stdin: out.write(" ".join(w for w in jieba.cut(line.rstrip("\\n")) if w.strip()) + "\\n")
"""


def best_of(f, n=3, clock=time.perf_counter):
    ts = []
    for _ in range(n):
        t0 = clock(); f(); ts.append(clock() - t0)
    return min(ts)


def process_times(cmds: dict, stdin: Path, n=5, warmup=True) -> dict:
    """Best wall and CPU (user + system) seconds of each `(argv, env)` in `cmds` reading `stdin`, run round-robin
    after one untimed round (`warmup`: it builds the caches and warms the OS file cache); `{dir}` in argv or env is a
    fresh empty folder each time."""
    def once(cmd, env):
        with tempfile.TemporaryDirectory() as d:
            c = [a.replace("{dir}", d) for a in cmd]
            e = {k: v.replace("{dir}", d) for k, v in (env or os.environ).items()}
            with open(stdin, "rb") as f:
                r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
                subprocess.run(c, stdin=f, stdout=subprocess.DEVNULL, env=e, check=True)
                wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    for cmd, env in cmds.values() if warmup else (): once(cmd, env)
    best = {k: (float("inf"), float("inf")) for k in cmds}
    for _ in range(n):
        for k, (cmd, env) in cmds.items():
            wall, cpu = once(cmd, env)
            best[k] = (min(best[k][0], wall), min(best[k][1], cpu))
    return best


def main(quick=False):
    if not has_shared_data("cws", "icwb2-data"):
        print("segment benchmark: the SIGHAN data (shared/data/cws/icwb2-data) is absent; nothing measured."); return
    if importlib.util.find_spec("jieba") is None:
        print("segment benchmark: jieba (the reference) is not installed; nothing measured."); return
    import jieba
    from transformer_components.chinese import (Segmenter, WordDictionary, default_dictionary_path,
                                                forward_maximum_matching, read_lines, read_segmented, sighan_score,
                                                train_segmenter)
    jieba.setLogLevel(60)
    cws = shared_data("cws", "icwb2-data")
    test_file, list_file = cws / "testing" / "pku_test.utf8", cws / "gold" / "pku_training_words.utf8"
    text = [t for t in read_lines(test_file) if t.strip()]
    gold = [g for g in read_segmented(cws / "gold" / "pku_test_gold.utf8") if g]
    rounds, work = (1, tempfile.TemporaryDirectory()) if quick else (5, None)
    if quick:  # the first lines only (the test text and its gold align line for line)
        text, gold = text[:300], gold[:300]
        test_file = Path(work.name) / "pku_test_head.utf8"
        test_file.write_text("".join(t + "\n" for t in text), encoding="utf-8")
    nchars = sum(map(len, text))
    dict_path = default_dictionary_path()
    bin_dir = Path(sys.executable).parent
    compileall.compile_dir(Path(transformer_components.__file__).parent, quiet=1)  # as `pip install` does for a wheel
    tc_segment = str(bin_dir / "tc-segment")
    pku_words = WordDictionary.from_file(list_file)

    # accuracy: the CLI with the official list, exactly as a user runs it
    out = subprocess.run([tc_segment, "--dict", str(list_file)], stdin=open(test_file, "rb"), capture_output=True,
                         check=True).stdout.decode("utf-8")
    cli_words = [line.split() for line in out.split("\n")[:-1] if line.strip()]
    ours_jieba_dict = Segmenter(dict_path)
    tk = jieba.Tokenizer(str(dict_path)); tk.initialize()
    half = len(gold) // 2
    second_text = ["".join(g) for g in gold[half:]]
    trained = train_segmenter(gold[:half], words=pku_words)
    score = lambda g, words: sighan_score(g, words, pku_words)
    rows = [("tc-segment --dict PKU list", score(gold, cli_words)),
            ("forward max matching, PKU list", score(gold, [forward_maximum_matching(t, pku_words) for t in text])),
            ("ours, jieba's dict.txt", score(gold, [ours_jieba_dict.cut(t) for t in text])),
            ("jieba, its dictionary (HMM on)", score(gold, [[w for w in tk.cut(t) if w.strip()] for t in text])),
            ("2nd half: trained on 1st half + list", score(gold[half:], [trained.cut(t) for t in second_text])),
            ("2nd half: forward max matching, list",
             score(gold[half:], [forward_maximum_matching(t, pku_words) for t in second_text]))]

    # whole process
    env = dict(os.environ, TC_CACHE_DIR="{dir}")
    py = sys.executable
    times = process_times({"ours_cached": ([tc_segment], None), "jieba_cached": ([py, "-c", JIEBA_PROCESS], None),
                           "ours_cold": ([tc_segment], env), "jieba_cold": ([py, "-c", JIEBA_PROCESS, "{dir}"], None),
                           "ours_list": ([tc_segment, "--dict", str(list_file)], None)}, test_file,
                          n=rounds, warmup=not quick)

    # in process
    thread = time.thread_time
    for t in text[:200]: ours_jieba_dict.cut(t); list(tk.cut(t))
    n = 1 if quick else 3
    t_ours = best_of(lambda: [ours_jieba_dict.cut(t) for t in text], n, clock=thread)
    t_jieba = best_of(lambda: [list(tk.cut(t)) for t in text], n, clock=thread)
    t_jieba_nohmm = best_of(lambda: [list(tk.cut(t, HMM=False)) for t in text], n, clock=thread)

    print(f"PKU test input: {len(text):,} lines, {nchars:,} characters; jieba's dictionary {dict_path}"
          + (" (--quick: a smoke test, figures not comparable)" if quick else ""))
    print(f"\n{'accuracy (SIGHAN scoring, OOV = not in the PKU list)':44s}{'P':>7s}{'R':>7s}{'F1':>7s}{'OOV-R':>7s}")
    for name, s in rows:
        print(f"{name:44s}{s.precision:7.3f}{s.recall:7.3f}{s.f1:7.3f}{s.oov_recall:7.3f}")
    print(f"\n{'whole process, PKU test (s)':44s}{'ours':>9s}{'jieba':>9s}{'ours/jieba':>12s}{'CPU s':>15s}{'ratio':>7s}")
    for name, a, b in [("default dictionary, cache built", "ours_cached", "jieba_cached"),
                       ("default dictionary, empty cache", "ours_cold", "jieba_cold"),
                       ("ours --dict PKU list (adapts to the input)", "ours_list", "jieba_cached")]:
        (wa, ca), (wb, cb) = times[a], times[b]
        print(f"{name:44s}{wa:9.2f}{wb:9.2f}{wa / wb:12.2f}{ca:8.2f}/{cb:5.2f}{ca / cb:7.2f}")
    print(f"\n{'in process, jieba dict.txt (chars/s)':44s}{'ours':>9s}{'jieba':>9s}{'ours/jieba':>12s}")
    print(f"{'jieba HMM on (its default)':44s}{nchars / t_ours:9,.0f}{nchars / t_jieba:9,.0f}{t_jieba / t_ours:12.2f}")
    print(f"{'jieba HMM off':44s}{nchars / t_ours:9,.0f}{nchars / t_jieba_nohmm:9,.0f}{t_jieba_nohmm / t_ours:12.2f}")
    print(f"(process: lower is better, wall and CPU; rate ratio: higher is better; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="every step once on the first 300 lines (a smoke test)")
    main(ap.parse_args().quick)
