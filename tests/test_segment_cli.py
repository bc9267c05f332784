"End-to-end tests of the `tc-segment` console script (a subprocess per case)."
import os, shutil, subprocess, sys
from pathlib import Path

import pytest

SEED = "談到貿易戰的長遠影響，林行止表示貿易戰促使在中國的工廠搬遷到越南、寮國、印度、台灣甚至是馬來西亞，以避開關稅。"


def _exe() -> str:
    here = Path(sys.executable).parent / "tc-segment"
    found = str(here) if here.exists() else shutil.which("tc-segment")
    assert found, "the tc-segment console script is not installed (pip install -e .)"
    return found


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    e = dict(os.environ, TC_CACHE_DIR=str(tmp_path_factory.mktemp("cache")))
    return e


def run(args, stdin: bytes, env):
    return subprocess.run([_exe(), *args], input=stdin, capture_output=True, env=env, timeout=120)


def _nows(s: str) -> str: return "".join(s.split())


def test_lines_in_lines_out(env, tmp_path):
    (tmp_path / "names.txt").write_text("林行止\n", encoding="utf-8")
    lines = [SEED, "", "   ", "2001年12月31日，iPhone 的价格上涨了3.5％👍🏽", "ＡＢＣ　全角　空格", "结尾没有换行"]
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
    assert r.returncode == 1 and "not UTF-8" in r.stderr.decode()
