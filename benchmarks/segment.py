"""Chinese segmentation: speed and dictionary load time of `transformer_components.chinese` beside jieba, in one run.

Text: the SIGHAN 2005 PKU test input (172,733 characters). Both segmenters use jieba's own dict.txt for the speed
comparison (the same 349,046 words), and each is warmed up first; best of 3 runs. Load times: compiling the dictionary
file into its in-memory form with an empty cache ("cold"), and loading it again from each library's cache ("cached").
Run: python benchmarks/segment.py
"""
import importlib.util, sys, tempfile, time
from pathlib import Path

from transformer_components.core import has_shared_data, shared_data


def best_of(f, n=3):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    if not has_shared_data("cws", "icwb2-data"):
        print("segment benchmark: the SIGHAN data (shared/data/cws/icwb2-data) is absent; nothing measured."); return
    if importlib.util.find_spec("jieba") is None:
        print("segment benchmark: jieba (the reference) is not installed; nothing measured."); return
    import jieba
    from transformer_components.chinese import (Segmenter, WordDictionary, default_dictionary_path, read_lines,
                                                read_segmented, sighan_score)
    jieba.setLogLevel(60)
    cws = shared_data("cws", "icwb2-data")
    text = [t for t in read_lines(cws / "testing" / "pku_test.utf8") if t.strip()]
    gold = [g for g in read_segmented(cws / "gold" / "pku_test_gold.utf8") if g]
    nchars = sum(map(len, text))
    dict_path = default_dictionary_path()

    with tempfile.TemporaryDirectory() as ours_cache, tempfile.TemporaryDirectory() as jieba_cache:
        ours_cold = best_of(lambda: WordDictionary.from_file(dict_path, cache_dir=False))
        WordDictionary.from_file(dict_path, cache_dir=ours_cache)
        ours_warm = best_of(lambda: WordDictionary.from_file(dict_path, cache_dir=ours_cache))

        def jieba_load(tmp_dir, keep):
            tk = jieba.Tokenizer(str(dict_path)); tk.tmp_dir = tmp_dir
            if not keep:
                for p in Path(tmp_dir).glob("*"): p.unlink()
            tk.initialize(); return tk
        jieba_cold = best_of(lambda: jieba_load(jieba_cache, keep=False))
        jieba_load(jieba_cache, keep=True)
        jieba_warm = best_of(lambda: jieba_load(jieba_cache, keep=True))

    ours = Segmenter(dict_path)
    tk = jieba.Tokenizer(str(dict_path)); tk.initialize()
    ours_words = [ours.cut(t) for t in text]
    jieba_words = [[w for w in tk.cut(t) if w.strip()] for t in text]
    t_ours = best_of(lambda: [ours.cut(t) for t in text])
    t_jieba = best_of(lambda: [list(tk.cut(t)) for t in text])
    t_jieba_nohmm = best_of(lambda: [list(tk.cut(t, HMM=False)) for t in text])

    pku = Segmenter(WordDictionary.from_file(cws / "gold" / "pku_training_words.utf8")).adapt(text)
    t_pku = best_of(lambda: [pku.cut(t) for t in text])
    f1 = lambda words: sighan_score(gold, words).f1

    print(f"PKU test input: {len(text):,} lines, {nchars:,} characters; dictionary {dict_path}")
    print(f"{'':38s}{'ours':>12s}{'jieba':>12s}{'ours/jieba':>12s}")
    print(f"{'dictionary load, cold (s)':38s}{ours_cold:12.3f}{jieba_cold:12.3f}{ours_cold / jieba_cold:12.2f}")
    print(f"{'dictionary load, cached (s)':38s}{ours_warm:12.3f}{jieba_warm:12.3f}{ours_warm / jieba_warm:12.2f}")
    print(f"{'speed, jieba dict, jieba HMM on (ch/s)':38s}{nchars / t_ours:12,.0f}{nchars / t_jieba:12,.0f}{t_jieba / t_ours:12.2f}")
    print(f"{'speed, jieba dict, jieba HMM off (ch/s)':38s}{nchars / t_ours:12,.0f}{nchars / t_jieba_nohmm:12,.0f}{t_jieba_nohmm / t_ours:12.2f}")
    print(f"{'speed, ours with PKU word list (ch/s)':38s}{nchars / t_pku:12,.0f}")
    print(f"{'PKU F1, jieba dict':38s}{f1(ours_words):12.3f}{f1(jieba_words):12.3f}")
    print(f"{'PKU F1, ours with PKU word list':38s}{f1([pku.cut(t) for t in text]):12.3f}")
    print("(ratios: load time ours/jieba, lower is better; speed ours/jieba, higher is better)")


if __name__ == "__main__":
    main()
