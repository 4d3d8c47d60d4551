"""crewgraph's WordPiece tokenizer gives the reference implementation's ids (HF tokenizers)."""

from __future__ import annotations

import random
import string

import pytest

from crewgraph.rag.embeddings.wordpiece import (
    VOCAB_FILE,
    bert_uncased_tokenizer,
    normalize,
    pre_tokenize,
)

CORPUS = [
    "Hello, World!", "The API rate limit is 1000 requests per minute.", "naïve café résumé Ångström",
    "北京欢迎你 and 東京", "emoji 🙂 test 🚀🚀", "tabs\tand\nnewlines\r\n",
    "don't stop-believing... $5.00 @home #tag", "x" * 150, "supercalifragilisticexpialidocious",
    "Ünïcödé ÀÉÎÕÜ ß ﬁ", "\u200bzero\u200dwidth", "C++ & C# | a^b ~c `d`", " ".join(["word"] * 400),
    "Ελληνικά κείμενο", "Русский текст, с пунктуацией!", "عربى نص", "한국어 텍스트", "ｆｕｌｌｗｉｄｔｈ",
    "¿Qué? ¡Sí!", "a\x00b\x01c", "1,234.56e-7", "",
]


def _random_texts(n: int) -> list[str]:
    rng = random.Random(0)
    alphabet = string.printable + "éèàüöß中文日本語€£¥—–…“”‘’•"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(n)]


def _reference() -> object:
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {token: i for i, token in enumerate(VOCAB_FILE.read_text(encoding="utf-8").split("\n")[:-1])}
    from tokenizers import normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    ref = tokenizers.Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    ref.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, lowercase=True)
    ref.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    ref.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    ref.enable_truncation(max_length=256)
    return ref


def test_same_ids_as_the_reference_tokenizer() -> None:
    ref = _reference()
    mine = bert_uncased_tokenizer(256)
    for text in CORPUS + _random_texts(2000):
        assert mine.encode(text) == ref.encode(text).ids, repr(text)  # type: ignore[attr-defined]


def test_steps() -> None:
    assert normalize("Café\tÅ北") == "cafe a 北 "
    assert pre_tokenize("don't stop!") == ["don", "'", "t", "stop", "!"]
    tok = bert_uncased_tokenizer(256)
    assert tok.encode("") == [tok.cls_id, tok.sep_id]
    assert len(tok.encode("word " * 1000)) == 256


def test_batches_are_padded_to_the_longest() -> None:
    tok = bert_uncased_tokenizer(256)
    short, long = tok.encode_batch(["hi", "a much longer sentence here"])
    assert len(short.ids) == len(long.ids)
    assert short.attention_mask.count(1) == 3 and short.ids[3:] == [tok.pad_id] * (len(short.ids) - 3)
