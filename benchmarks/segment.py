"""Chinese segmentation: accuracy, speed and whole-process time of `transformer_components.chinese` beside jieba, in one run.

Text: the SIGHAN 2005 PKU test input (1,944 lines, 172,733 characters).
- Accuracy (SIGHAN word F1, OOV recall against the PKU training word list):
  `tc-segment --dict pku_training_words.utf8` (the official list; a plain list, so tc-segment adapts to the input),
  forward maximum matching with the same list, jieba with its own dictionary, ours with jieba's dictionary, and a
  model trained on the first half of the PKU gold, scored on the second half (the PKU training text is not here).
- Whole process, wall time, best of 3: `tc-segment < pku_test.utf8` (jieba's dict.txt, our default) against a
  Python process that imports jieba, loads its dictionary and cuts every line, writing the same output; both with
  their dictionary cache already built ("cached") and with an empty cache ("cold").
- In-process rate: both segmenters with jieba's dict.txt, warmed up, best of 3 by CPU time of this thread (the
  machine is shared); jieba with its HMM on (its default) and off.
Run: python benchmarks/segment.py
"""
import importlib.util, os, subprocess, sys, tempfile, time
from pathlib import Path

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


def process_time(cmd, stdin: Path, env=None, n=3, fresh_dir=False):
    "Best wall time of `cmd` reading `stdin`; with `fresh_dir`, `{dir}` in cmd/env is an empty folder each time."
    def once():
        with tempfile.TemporaryDirectory() as d:
            c = [a.replace("{dir}", d) for a in cmd]
            e = {k: v.replace("{dir}", d) for k, v in (env or os.environ).items()}
            with open(stdin, "rb") as f:
                t0 = time.perf_counter()
                subprocess.run(c, stdin=f, stdout=subprocess.DEVNULL, env=e, check=True)
                return time.perf_counter() - t0
    once()  # the first run builds the caches (and warms the OS file cache)
    return min(once() for _ in range(n))


def main():
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
    nchars = sum(map(len, text))
    dict_path = default_dictionary_path()
    bin_dir = Path(sys.executable).parent
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
    ours_cached = process_time([tc_segment], test_file)
    jieba_cached = process_time([py, "-c", JIEBA_PROCESS], test_file)
    ours_cold = process_time([tc_segment], test_file, env=env)
    jieba_cold = process_time([py, "-c", JIEBA_PROCESS, "{dir}"], test_file)
    ours_list = process_time([tc_segment, "--dict", str(list_file)], test_file)

    # in process
    thread = time.thread_time
    for t in text[:200]: ours_jieba_dict.cut(t); list(tk.cut(t))
    t_ours = best_of(lambda: [ours_jieba_dict.cut(t) for t in text], clock=thread)
    t_jieba = best_of(lambda: [list(tk.cut(t)) for t in text], clock=thread)
    t_jieba_nohmm = best_of(lambda: [list(tk.cut(t, HMM=False)) for t in text], clock=thread)

    print(f"PKU test input: {len(text):,} lines, {nchars:,} characters; jieba's dictionary {dict_path}")
    print(f"\n{'accuracy (SIGHAN scoring, OOV = not in the PKU list)':44s}{'P':>7s}{'R':>7s}{'F1':>7s}{'OOV-R':>7s}")
    for name, s in rows:
        print(f"{name:44s}{s.precision:7.3f}{s.recall:7.3f}{s.f1:7.3f}{s.oov_recall:7.3f}")
    print(f"\n{'whole process, PKU test (s, wall)':44s}{'ours':>9s}{'jieba':>9s}{'ours/jieba':>12s}")
    print(f"{'default dictionary, cache built':44s}{ours_cached:9.2f}{jieba_cached:9.2f}{ours_cached / jieba_cached:12.2f}")
    print(f"{'default dictionary, empty cache':44s}{ours_cold:9.2f}{jieba_cold:9.2f}{ours_cold / jieba_cold:12.2f}")
    print(f"{'ours --dict PKU list (adapts to the input)':44s}{ours_list:9.2f}{jieba_cached:9.2f}{ours_list / jieba_cached:12.2f}")
    print(f"\n{'in process, jieba dict.txt (chars/s)':44s}{'ours':>9s}{'jieba':>9s}{'ours/jieba':>12s}")
    print(f"{'jieba HMM on (its default)':44s}{nchars / t_ours:9,.0f}{nchars / t_jieba:9,.0f}{t_jieba / t_ours:12.2f}")
    print(f"{'jieba HMM off':44s}{nchars / t_ours:9,.0f}{nchars / t_jieba_nohmm:9,.0f}{t_jieba_nohmm / t_ours:12.2f}")
    print("(process: lower is better; rate ratio: higher is better)")


if __name__ == "__main__":
    main()
