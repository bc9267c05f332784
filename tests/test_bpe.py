"""Checks too slow for the BPE notebook: our GPT-2 pre-tokenization against HF's on every assigned code point, and
merging one pre-token of a million characters (HF's ids, time growing as n log n)."""
import unicodedata

import pytest

from transformer_components.pre_tokenizers import bytes_to_unicode, pretokenize

pre_tokenizers = pytest.importorskip("tokenizers.pre_tokenizers")

# `make test` runs these in the pytest process of tests/test_training_cli.py, so that its two processes end at about the
# same time (see PYTEST_APART in the Makefile)
pytestmark = pytest.mark.apart

CONTEXTS = ["a{}a", "1{}1", " {}{} ", "'{}s", ".{}.", "{}\n", "\u00e9{}{}\u0663", "\u3000{}x"]


@pytest.mark.parametrize("context", CONTEXTS)
def test_every_assigned_code_point_splits_like_hf(context):
    "Every code point Python's Unicode database assigns (Cn, Cs and Co left out) in `context`, in chunks."
    hf = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    b2u = bytes_to_unicode()
    chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co")]
    assert len(chars) > 140_000
    for k in range(0, len(chars), 20_000):
        s = "|".join(context.format(c, c) for c in chars[k:k + 20_000])
        ours = ["".join(b2u[b] for b in w.encode("utf-8")) for w in pretokenize(s)]
        assert ours == [w for w, _ in hf.pre_tokenize_str(s)], f"chunk starting at {chars[k]!r} in {context!r}"


def test_long_pre_tokens_grow_as_n_log_n(data_dir):
    "One pre-token of 1,000,000 characters: HF's ids, and time that grows with n log n (4x longer: about 4.5x slower, not 16x)."
    import random
    import time

    from transformer_components.named_tokenizers import BPETokenizer
    tokenizers = pytest.importorskip("tokenizers")
    d = data_dir / "vocab" / "gpt2" / "whisper_assets_gpt2"
    ours = BPETokenizer.from_files(d / "vocab.json", d / "merges.txt")
    hf = tokenizers.ByteLevelBPETokenizer(str(d / "vocab.json"), str(d / "merges.txt"))
    rnd = random.Random(0)
    letters = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000))
    for word in (letters, "x" * 1_000_000):
        assert ours.encode_ordinary(word) == hf.encode(word).ids
    def seconds(n):
        word = letters[:n]
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter(); ours.encode_ordinary(word); best = min(best, time.perf_counter() - t)
        return best
    ratio = seconds(200_000) / seconds(50_000)
    assert ratio < 9, f"4x the length took {ratio:.1f}x the time: merging is no longer O(n log n)"
