"""BERT's uncased WordPiece tokenizer in plain Python, for the offline MiniLM embedder.

Why not the ``tokenizers`` package: the embedder needs one fixed tokenizer, and
``tokenizers`` brings ``huggingface_hub``, ``hf_xet``, ``fsspec`` and ``tqdm`` with it (about
35 MB of a core install) for a task of ~100 lines. This is the same algorithm as the
``tokenizer.json`` of all-MiniLM-L6-v2 — BertNormalizer (clean text, spaces around CJK
characters, lowercase, strip accents), BertPreTokenizer (split on whitespace and
punctuation), WordPiece (greedy longest match, ``##`` continuations, ``[UNK]`` for words
over 100 characters or without a match), ``[CLS] ... [SEP]`` — and the test suite checks
it gives the reference implementation's ids on a varied corpus.

The vocabulary is bert-base-uncased's 30,522 entries (Apache-2.0), shipped as
``data/bert_uncased_vocab.txt`` (one token per line, id = line number).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["Encoding", "WordPieceTokenizer", "bert_uncased_tokenizer"]

VOCAB_FILE = Path(__file__).with_name("data") / "bert_uncased_vocab.txt"


@dataclass(frozen=True)
class Encoding:
    """Token ids of one text and its attention mask (1 for real tokens, 0 for padding)."""

    ids: list[int]
    attention_mask: list[int]


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # ASCII symbols count as punctuation for BERT (``$``, ``^``, `` ` ``...), as in the reference.
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Cn", "Co")


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def normalize(text: str) -> str:
    """BertNormalizer(clean_text, handle_chinese_chars, lowercase, strip_accents)."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    lowered = "".join(out).lower()
    decomposed = unicodedata.normalize("NFD", lowered)
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def pre_tokenize(text: str) -> list[str]:
    """BertPreTokenizer: words split on whitespace, each punctuation character alone."""
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        if _is_whitespace(ch):
            if current:
                words.append("".join(current))
                current = []
        elif _is_punctuation(ch):
            if current:
                words.append("".join(current))
                current = []
            words.append(ch)
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


class WordPieceTokenizer:
    """Text -> ``[CLS] wordpieces [SEP]`` ids, truncated to ``max_length``."""

    def __init__(self, vocab: dict[str, int], *, max_length: int = 256, max_word_chars: int = 100) -> None:
        self.vocab = vocab
        self.max_length = max_length
        self.max_word_chars = max_word_chars
        self.unk_id = vocab["[UNK]"]
        self.cls_id = vocab["[CLS]"]
        self.sep_id = vocab["[SEP]"]
        self.pad_id = vocab["[PAD]"]
        self._word_ids = lru_cache(maxsize=65536)(self._pieces)

    @classmethod
    def from_file(cls, path: Path, **options: int) -> WordPieceTokenizer:
        tokens = path.read_text(encoding="utf-8").split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        return cls({token: i for i, token in enumerate(tokens)}, **options)

    def _pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > self.max_word_chars:
            return (self.unk_id,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk_id,)
            ids.append(found)
            start = end
        return tuple(ids)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` with ``[CLS]``/``[SEP]``, at most ``max_length`` of them."""
        ids: list[int] = [self.cls_id]
        room = self.max_length - 2
        for word in pre_tokenize(normalize(text)):
            ids.extend(self._word_ids(word))
            if len(ids) - 1 >= room:
                del ids[room + 1 :]
                break
        ids.append(self.sep_id)
        return ids

    def encode_batch(self, texts: list[str]) -> list[Encoding]:
        """Encodings padded with ``[PAD]`` to the longest text of the batch."""
        rows = [self.encode(text) for text in texts]
        width = max((len(r) for r in rows), default=0)
        return [
            Encoding(ids=r + [self.pad_id] * (width - len(r)), attention_mask=[1] * len(r) + [0] * (width - len(r)))
            for r in rows
        ]


@lru_cache(maxsize=4)
def bert_uncased_tokenizer(max_length: int = 256) -> WordPieceTokenizer:
    """The shipped bert-base-uncased vocabulary as a tokenizer (loaded once per length)."""
    return WordPieceTokenizer.from_file(VOCAB_FILE, max_length=max_length)
