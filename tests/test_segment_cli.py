"End-to-end tests of the `tc-segment` console script (a subprocess per case)."
import os, shutil, subprocess, sys
from pathlib import Path

import pytest

SENTENCE = "談到貿易戰的長遠影響，林行止表示貿易戰促使在中國的工廠搬遷到越南、寮國、印度、台灣甚至是馬來西亞，以避開關稅。"


def _exe(name="tc-segment") -> str:
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    assert found, f"the {name} console script is not installed (pip install -e .)"
    return found


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    e = dict(os.environ, TC_CACHE_DIR=str(tmp_path_factory.mktemp("cache")))
    return e


def run(args, stdin: bytes, env, exe="tc-segment"):
    return subprocess.run([_exe(exe), *args], input=stdin, capture_output=True, env=env, timeout=120)


def _nows(s: str) -> str: return "".join(s.split())


def test_lines_in_lines_out(env, tmp_path):
    (tmp_path / "names.txt").write_text("林行止\n", encoding="utf-8")
    lines = [SENTENCE, "", "   ", "2001年12月31日，iPhone 的价格上涨了3.5％👍🏽", "ＡＢＣ　全角　空格", "结尾没有换行"]
    r = run(["--user-dict", str(tmp_path / "names.txt")], "\n".join(lines).encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode("utf-8").split("\n")
    assert out[-1] == "" and len(out) - 1 == len(lines)  # one line per input line, each ended by a newline
    out = out[:-1]
    for i, o in zip(lines, out):
        assert _nows(o) == _nows(i)  # nothing lost, added or moved
        assert "  " not in o and o == o.strip()  # single spaces between words
    assert out[0].split(" ")[6] == "林行止" and "寮國" in out[0].split(" ")
    assert out[1] == "" and out[2] == ""  # an empty or blank line gives an empty line


def test_explicit_dictionary_and_crlf(env, tmp_path):
    d = tmp_path / "words.txt"
    d.write_text("研究 10\n研究生 1 n\n生命 10\n起源\n", encoding="utf-8")  # jieba format, one line without freq
    r = run(["--dict", str(d)], "研究生命起源\r\n\r\n".encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode("utf-8") == "研究 生命 起源\n\n"


def test_bad_dictionary_path(env, tmp_path):
    r = run(["--dict", str(tmp_path / "missing.txt")], "北京\n".encode("utf-8"), env)
    assert r.returncode == 1 and r.stdout == b""
    err = r.stderr.decode()
    assert "dictionary file not found" in err and "missing.txt" in err and "Traceback" not in err


def test_malformed_dictionary(env, tmp_path):
    d = tmp_path / "bad.txt"
    d.write_text("北京 lots\n", encoding="utf-8")
    r = run(["--dict", str(d)], "北京\n".encode("utf-8"), env)
    assert r.returncode == 1 and "bad.txt:1: frequency must be a number" in r.stderr.decode()


def test_input_not_utf8(env):
    r = run([], "北京\n".encode("gbk"), env)
    assert r.returncode == 1 and "stdin line 1 is not valid UTF-8" in r.stderr.decode()


def _words(tmp_path):
    d = tmp_path / "words.txt"
    d.write_text("北京\n大学\n北京大学\n研究\n生命\n", encoding="utf-8")
    return str(d)


def test_bom_is_dropped(env, tmp_path):
    r = run(["--dict", _words(tmp_path)], "\ufeff北京大学\n北京\n".encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode("utf-8") == "北京大学\n北京\n"


def test_invalid_utf8_names_line_and_byte_after_the_valid_lines(env, tmp_path):
    data = "北京\n研究\n".encode("utf-8") + "生命".encode("utf-8")[:4] + b"\xff\xfe\n" + "北京\n".encode("utf-8")
    r = run(["--dict", _words(tmp_path)], data, env)
    assert r.returncode == 1
    assert r.stdout.decode("utf-8") == "北京\n研究\n"  # the valid lines before it are written
    err = r.stderr.decode()
    assert err.startswith("tc-segment: error: stdin line 3 is not valid UTF-8 (byte 4") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_lone_cr_does_not_end_a_line(env, tmp_path):
    r = run(["--dict", _words(tmp_path)], "北京\r大学\r\n研究\n".encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode("utf-8").split("\n") == ["北京 大学", "研究", ""]  # \r is whitespace inside the line


def test_empty_dictionary_is_refused(env, tmp_path):
    d = tmp_path / "empty.txt"
    d.write_text("\n  \n", encoding="utf-8")
    r = run(["--dict", str(d)], "北京\n".encode("utf-8"), env)
    assert r.returncode == 1 and r.stdout == b""
    err = r.stderr.decode()
    assert err.startswith("tc-segment: error:") and "empty.txt" in err and "no words" in err and "Traceback" not in err


def test_wrong_cache_content_is_rebuilt(env, tmp_path):
    import hashlib, marshal
    cache = tmp_path / "cache"
    e = dict(env, TC_CACHE_DIR=str(cache))
    words = _words(tmp_path)
    assert run(["--dict", words], "北京\n".encode("utf-8"), e).returncode == 0
    entries = list(cache.glob("dictionary-*"))
    assert len(entries) == 1
    for bad in ([1, 2, 3, 4], (1, [], "x", 0), None, {"a": 1}):
        entries[0].write_bytes(marshal.dumps(bad))
        r = run(["--dict", words], "北京大学\n".encode("utf-8"), e)
        assert r.returncode == 0 and r.stdout.decode("utf-8") == "北京大学\n", r.stderr.decode()


def test_no_jieba_names_the_extra(env, tmp_path):
    (tmp_path / "jieba.py").write_text("raise ImportError('not installed')\n")  # shadows the installed package
    e = dict(env, PYTHONPATH=str(tmp_path))
    r = run([], "北京\n".encode("utf-8"), e)
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode() == ("tc-segment: error: no default Chinese dictionary: pip install "
                                 "'transformer_components[zh]' (jieba's dict.txt), or pass --dict FILE\n")


def test_help_is_fast_and_imports_no_torch():
    import time
    code = ("import sys, time; t = time.perf_counter(); from transformer_components.chinese import tc_segment\n"
            "try: tc_segment(['--help'])\nexcept SystemExit: pass\n"
            "assert 'torch' not in sys.modules and 'numpy' not in sys.modules, 'torch or numpy imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        r = subprocess.run([_exe(), "--help"], capture_output=True, timeout=60)
        best = min(best, time.perf_counter() - t0)
        assert r.returncode == 0 and b"usage: tc-segment" in r.stdout
    assert best < 0.3, f"tc-segment --help took {best:.2f} s"


def test_train_then_segment_with_the_model(env, tmp_path):
    corpus = tmp_path / "train.txt"
    corpus.write_text("罢工  的  人\n罢课  了\n任免  的  人\n的  人\n" * 4 + "罢休\n豁免\n", encoding="utf-8")
    model = tmp_path / "seg.model"
    r = run([str(corpus), "--out", str(model)], b"", env, exe="tc-train-segmenter")
    assert r.returncode == 0 and model.is_file(), r.stderr.decode()
    assert r.stderr.decode().startswith("tc-train-segmenter: 42 words in 18 sentences")
    r = run(["--model", str(model)], "罢免的人\n罢工了\n".encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode("utf-8") == "罢免 的 人\n罢工 了\n"
    r = run(["--model", str(model), "--dict", str(corpus)], b"", env)
    assert r.returncode == 2 and "not allowed with" in r.stderr.decode()  # one source of words
    r = run(["--model", str(corpus)], "北京\n".encode("utf-8"), env)
    assert r.returncode == 1 and "train.txt is not a segmenter model" in r.stderr.decode()
    r = run([str(tmp_path / "nope.txt"), "--out", str(model)], b"", env, exe="tc-train-segmenter")
    assert r.returncode == 1 and r.stderr.decode().startswith("tc-train-segmenter: error:") and "nope.txt" in r.stderr.decode()


def test_mixed_dictionary_words_and_signs(env, tmp_path):
    d = tmp_path / "words.txt"
    d.write_text("T恤\n阿Q\n1号店\nC++\nAT&T\n正传\n", encoding="utf-8")
    r = run(["--dict", str(d)], "T恤阿Q正传\n1号店C++AT&T\n11+122=133\n".encode("utf-8"), env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode("utf-8") == "T恤 阿Q 正传\n1号店 C++ AT&T\n11 + 122 = 133\n"


def test_pku_with_the_official_list_as_dict(env):
    "The issue's measure: the PKU test input through `tc-segment --dict pku_training_words.utf8`, scored on the gold."
    from transformer_components.core import has_shared_data, shared_data
    from transformer_components.chinese import WordDictionary, forward_maximum_matching, read_segmented, sighan_score
    if not has_shared_data("cws", "icwb2-data"): pytest.skip("the SIGHAN data is absent")
    cws = shared_data("cws", "icwb2-data")
    words = cws / "gold" / "pku_training_words.utf8"
    r = run(["--dict", str(words)], (cws / "testing" / "pku_test.utf8").read_bytes(), env)
    assert r.returncode == 0, r.stderr.decode()
    pred = [line.split() for line in r.stdout.decode("utf-8").split("\n")[:-1]]
    gold = read_segmented(cws / "gold" / "pku_test_gold.utf8")
    assert len(pred) == len(gold)
    pred, gold = [p for p in pred if p], [g for g in gold if g]
    d = WordDictionary.from_file(words)
    ours = sighan_score(gold, pred, d)
    fmm = sighan_score(gold, [forward_maximum_matching("".join(g), d) for g in gold], d)
    assert ours.f1 >= 0.935 and ours.f1 > fmm.f1 and ours.oov_recall >= 0.6, (ours, fmm)


def test_dictionary_from_a_pipe(env):
    "`--dict <(...)`: a pipe is read as a file (once: it is not cached)."
    r, w = os.pipe()
    p = subprocess.Popen([_exe(), "--dict", f"/dev/fd/{r}"], pass_fds=(r,), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    os.close(r)
    with os.fdopen(w, "wb") as f: f.write("北京 10\n大学 10\n北京大学 1\n".encode("utf-8"))
    out, err = p.communicate("北京大学\n".encode("utf-8"), timeout=120)
    assert p.returncode == 0, err.decode("utf-8", "replace")
    assert out.decode("utf-8") == "北京 大学\n"
