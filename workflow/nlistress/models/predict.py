"""Inference: load any model directory and stream a set of any size through it.

``load_predictor`` reads ``config.json`` and dispatches on its ``kind``:
encoder models are built here from ``model.safetensors`` and ``vocab.json``;
transformer models go to ``nlistress.models.transformer`` (imported only then,
so ``transformers`` is needed only for them), ALIGN to ``nlistress.models.align``. Either way the result has
``labels`` (the model's label set from ``config.json``: the 3 NLI labels, or
``entailment, not_entailment`` for a model trained on a 2-way dataset) and
``predict_proba(premises, hypotheses) -> (n, len(labels)) float32``.

``predict_set`` reads the set in record batches, writes each chunk's
predictions as it goes (``write_parquet_batches``) and keeps the input order,
so a million-row permuted set never sits in memory. Inside a chunk, rows are
sorted by length and batched (little padding), then put back in order.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from ..errors import ConfigError, DataError
from ..labels import LABELS
from ..parquet_io import write_parquet_batches
from ..progress import with_progress
from .data import iter_set_chunks
from .encoders import build_model
from .text import Vocabulary, pad_batch
from .weights import load_weights

log = logging.getLogger("nlistress")


def prediction_schema(labels: Sequence[str]) -> pa.Schema:
    """uid, prediction, one ``prob_<label>`` per model label (in its order), entropy."""
    return pa.schema(
        [
            pa.field("uid", pa.string(), nullable=False),
            pa.field("prediction", pa.string(), nullable=False),
            *(pa.field(f"prob_{label}", pa.float32(), nullable=False) for label in labels),
            pa.field("entropy", pa.float32(), nullable=False),
        ]
    )


class Predictor(Protocol):
    labels: tuple[str, ...]

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...


def autocast(device: torch.device, enabled: bool) -> Any:
    """bfloat16 (else float16) autocast on CUDA when ``enabled``; a no-op on the CPU."""
    if device.type != "cuda" or not enabled:
        return torch.autocast(device.type, enabled=False)
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast("cuda", dtype=dtype)


class EncoderPredictor:
    """Batched, length-sorted inference for the models of ``nlistress.models.encoders``.

    ``labels`` names the model's outputs in order (default: the 3-way NLI set).
    """

    def __init__(
        self, model: torch.nn.Module, vocab: Vocabulary, max_length: int, batch_size: int,
        device: torch.device, mixed_precision: bool, labels: Sequence[str] = LABELS,
    ) -> None:  # fmt: skip
        self.model, self.vocab, self.max_length = model, vocab, max_length
        self.batch_size, self.device, self.mixed_precision = batch_size, device, mixed_precision
        self.labels = tuple(labels)

    @classmethod
    def load(
        cls, model_dir: Path, config: Mapping[str, Any], settings: Mapping[str, Any], device: torch.device
    ) -> EncoderPredictor:
        vocab = Vocabulary.load(model_dir / "vocab.json")
        labels = tuple(config["labels"])
        model = build_model(config["arch"], vocab.tokens, config["settings"], len(labels))
        load_weights(model, model_dir, labels, device)
        return cls(model, vocab, int(config["settings"]["max_length"]), int(settings["batch_size"]),
                   device, bool(settings["mixed_precision"]), labels)  # fmt: skip

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        p = [self.vocab.encode(t, self.max_length) for t in premises]
        h = [self.vocab.encode(t, self.max_length) for t in hypotheses]
        order = np.lexsort((np.fromiter(map(len, h), int, len(h)), np.fromiter(map(len, p), int, len(p))))
        out = np.empty((len(p), len(self.labels)), dtype=np.float32)
        was_training = self.model.training
        self.model.eval()
        with torch.inference_mode(), autocast(self.device, self.mixed_precision):
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                pi, pl = pad_batch([p[i] for i in idx])
                hi, hl = pad_batch([h[i] for i in idx])
                logits = self.model(pi.to(self.device), pl.to(self.device), hi.to(self.device),
                                    hl.to(self.device))  # fmt: skip
                out[idx] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
        self.model.train(was_training)
        return out


def read_model_config(model_dir: Path) -> dict[str, Any]:
    """``config.json`` of a model directory, checked for the keys inference needs."""
    path = model_dir / "config.json"
    if not model_dir.is_dir():
        raise DataError(model_dir, "model directory not found (train it with `nlistress train`)")
    if not path.is_file():
        raise DataError(model_dir, "not a model directory: no config.json")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(path, f"not valid JSON ({exc})") from None
    missing = [k for k in ("kind", "arch", "labels", "settings") if k not in config]
    if missing:
        raise DataError(path, f"missing key(s) {', '.join(missing)}")
    labels = config["labels"]
    if (not isinstance(labels, list) or len(labels) < 2 or len(set(labels)) != len(labels)
            or not all(isinstance(label, str) and label for label in labels)):  # fmt: skip
        raise DataError(path, f"labels: expected two or more distinct label names, got {labels!r}")
    return config


def is_checkpoint_folder(model_dir: Path) -> bool:
    """Whether ``model_dir`` is a Hugging Face checkpoint of your own (its ``config.json``
    names a ``model_type``), not a model directory ``nlistress train`` wrote."""
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    return isinstance(config, dict) and "model_type" in config and "kind" not in config


def load_predictor(model_dir: Path, settings: Mapping[str, Any], device: torch.device,
                   params: Mapping[str, Any] | None = None) -> Predictor:  # fmt: skip
    """The predictor of ``model_dir``; ``settings`` are ``models.predict`` (batch size, precision),
    ``params`` the run's (ALIGN reads its spaCy pipeline from ``resources``).

    ``model_dir`` may also be a local sequence-classification checkpoint (e.g. one fine-tuned
    on MNLI): its head's label names are matched to ours regardless of case
    (``CONTRADICTION`` -> ``contradiction``), and it reads
    ``models.predict.checkpoint_max_length`` tokens of each pair.
    """
    if is_checkpoint_folder(model_dir):
        from .transformer import TransformerPredictor

        own = {"hypothesis_only": False, "max_length": settings.get("checkpoint_max_length", 128), **settings}
        return TransformerPredictor.load(model_dir, own, device, LABELS, folder=model_dir)
    config = read_model_config(model_dir)
    if config["kind"] == "encoder":
        return EncoderPredictor.load(model_dir, config, settings, device)
    if config["kind"] == "align":
        from .align import AlignPredictor

        return AlignPredictor.load(model_dir, config, settings, device, params or {})
    if config["kind"] == "transformer":
        from .transformer import TransformerPredictor

        return TransformerPredictor.load(model_dir, {**config["settings"], **settings}, device,
                                         config["labels"])
    raise DataError(model_dir / "config.json", f"unknown model kind {config['kind']!r}")


def probabilities_table(uids: pa.Array, probs: np.ndarray, labels: Sequence[str]) -> pa.Table:
    """The prediction columns of one chunk: label, one probability per label, entropy (nats).

    A row of NaN is a pair the model gave no usable answer for (a prompted model whose
    reply names no label): it is left out here, so scoring counts it as "no prediction"
    instead of reading a guess into it.
    """
    if probs.shape != (len(uids), len(labels)):
        raise ConfigError(f"predictor returned shape {probs.shape}, expected ({len(uids)}, {len(labels)})")
    answered = ~np.isnan(probs).any(axis=1)
    if not answered.all():
        uids, probs = uids.filter(pa.array(answered)), probs[answered]
    probs = probs.astype(np.float32, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(probs > 0, probs * np.log(probs), 0.0).sum(axis=1, dtype=np.float32)
    columns = {
        "uid": uids.cast(pa.string()),
        "prediction": pa.array(np.asarray(labels)[probs.argmax(axis=1)]),
        **{f"prob_{label}": pa.array(probs[:, i]) for i, label in enumerate(labels)},
        "entropy": pa.array(entropy),
    }
    return pa.Table.from_pydict(columns, schema=prediction_schema(labels))


def predict_set(predictor: Predictor, set_path: Path, output: Path, chunk_rows: int) -> int:
    """Predict every row of ``set_path`` into ``output`` (Parquet, input order); return the rows."""
    try:  # for the ETA only; iter_set_chunks names a file it cannot read
        set_rows: int | None = pq.ParquetFile(set_path).metadata.num_rows
    except (OSError, pa.ArrowInvalid):
        set_rows = None

    def chunks() -> Iterator[pa.Table]:
        for batch in with_progress(iter_set_chunks(set_path, chunk_rows), str(set_path.name), "rows", log,
                                   total=set_rows, weigh=lambda chunk: chunk.num_rows):  # fmt: skip
            probs = predictor.predict_proba(
                batch.column("premise").to_pylist(), batch.column("hypothesis").to_pylist()
            )
            yield probabilities_table(batch.column("uid"), probs, predictor.labels)

    rows = write_parquet_batches(chunks(), output, prediction_schema(predictor.labels))
    if set_rows is not None and rows < set_rows:
        log.warning("%s: %d of %d rows got no usable answer from the model and have no prediction",
                    set_path, set_rows - rows, set_rows)  # fmt: skip
    return rows
