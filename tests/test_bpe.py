"""Checks too slow for the BPE notebook: our GPT-2 pre-tokenization against HF's on every assigned code point."""
import unicodedata

import pytest

from transformer_components.bpe import bytes_to_unicode, pretokenize

pre_tokenizers = pytest.importorskip("tokenizers.pre_tokenizers")

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
