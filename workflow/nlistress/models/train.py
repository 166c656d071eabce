"""Training: one zoo model, one variant, into a model directory.

The directory is built in a temporary sibling and renamed into place, so a
killed job never leaves something that looks like a trained model:
``config.json`` (arch, labels: the training table's label set, settings,
inputs with sha256 and rows, row counts, seed, the epoch whose weights were kept),
``metrics.json`` (per-epoch train loss, dev accuracy, lr), ``train.log``, for
encoders ``model.safetensors`` + ``vocab.json`` (transformers: the backend's
Hugging Face files under ``hf/``), and last ``README.md``, the model card
(``nlistress.models.model_card``), which names every other file with its sha256.

On the CPU, training is deterministic: torch's global seed (weights,
dropout), a seeded ``torch.Generator`` for the shuffling, and
``torch.use_deterministic_algorithms(True)``, so the same inputs and params
give byte-identical weights.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from itertools import chain
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import torch

from .. import __version__
from ..atomic import atomic_dir, sha256_file, write_json_atomic
from ..manifest import RowCounts
from .data import dev_frame, model_labels, subsample, table_language, training_frame
from .encoders import build_model, word_embeddings
from .fitting import Log, dev_metrics, fit, seed_everything
from .model_card import write_model_card
from .predict import EncoderPredictor, Predictor
from .settings import ModelSpec
from .text import Vocabulary, load_glove, pad_batch
from .weights import save_weights

log = logging.getLogger("nlistress")


def evaluate_predictor(predictor: Predictor, dev: pd.DataFrame) -> dict[str, float]:
    """Accuracy and mean cross-entropy of ``predictor`` on the labelled ``dev`` rows."""
    probs = predictor.predict_proba(dev["premise"].tolist(), dev["hypothesis"].tolist())
    return dev_metrics(probs, dev["label_id"].to_numpy())


def train_encoder(
    spec: ModelSpec, train: pd.DataFrame, dev: pd.DataFrame | None, labels: tuple[str, ...],
    out_dir: Path, seed: int, device: torch.device, log_line: Log,
) -> tuple[list[dict[str, float]], int]:  # fmt: skip
    """Train an encoder model on ``train``; write weights and vocabulary; return per-epoch
    metrics and the epoch whose weights were written.

    ``labels`` (the model's label set) sizes the head; ``label_id`` indexes it.
    """
    s = spec.settings
    vocab = Vocabulary.build(
        chain(train["premise"], train["hypothesis"]), bool(s["lowercase"]), int(s["min_freq"]),
        s.get("max_vocab"), s.get("tokenizer", "regex"), s.get("unknown", "unk"),
    )  # fmt: skip
    seed_everything(seed, device)
    weights = None
    if vocab.unknown == "drop":  # InferSent: only words with a GloVe vector exist
        weights, found = load_glove(Path(s["glove"]), vocab, int(s["embedding_dim"]))
        log_line(f"glove: {len(found)} of {len(vocab)} vocabulary words found in {s['glove']}; "
                 "the others are dropped from every sentence")  # fmt: skip
        weights, vocab = weights[[0, 1, *sorted(found - {0, 1})]], vocab.keep(found)
    model = build_model(spec.arch, vocab.tokens, s, len(labels))
    if s.get("glove"):
        if weights is None:
            weights, found = load_glove(Path(s["glove"]), vocab, int(s["embedding_dim"]))
            log_line(f"glove: {len(found)} of {len(vocab)} vocabulary words found in {s['glove']}")
        for embedding in word_embeddings(model):
            embedding.weight.data.copy_(weights)
    model.to(device)
    log_line(f"{spec.name}: {spec.arch}, {vocab.tokenizer} words, vocabulary {len(vocab)}, "
             f"{sum(p.numel() for p in model.parameters())} parameters, {len(train)} rows")  # fmt: skip
    length = int(s["max_length"])
    premises = [vocab.encode(t, length) for t in train["premise"]]
    hypotheses = [vocab.encode(t, length) for t in train["hypothesis"]]
    targets = torch.tensor(train["label_id"].to_numpy(), dtype=torch.long)
    predictor = EncoderPredictor(model, vocab, length, int(s.get("eval_batch_size", 256)), device, False,
                                 labels)  # fmt: skip

    def forward(idx: list[int]) -> torch.Tensor:
        pi, pl = pad_batch([premises[i] for i in idx])
        hi, hl = pad_batch([hypotheses[i] for i in idx])
        return model(pi.to(device), pl.to(device), hi.to(device), hl.to(device))

    evaluate = None if dev is None else lambda: evaluate_predictor(predictor, dev)
    metrics, state, kept = fit(model, forward, targets, evaluate, s, seed, device, log_line)
    save_weights(state, out_dir / "model.safetensors", labels)
    vocab.save(out_dir / "vocab.json")
    return metrics, kept


def train_model(
    spec: ModelSpec, variant: str, train_path: Path, dev_path: Path | None,
    augment: Mapping[str, Path], out_dir: Path, seed: int, device: torch.device,
    params: Mapping[str, Any] | None = None,
) -> list[dict[str, float]]:  # fmt: skip
    """Assemble the variant's training data, train, and write ``out_dir`` atomically.

    The model's labels are the train table's (``model_labels``); the dev and
    augmentation files are checked against them before anything is written.
    ``params`` are the run's: the dataset registry gives the language of the train
    table (and so the tokeniser, ``models.text.tokenizers``), ``resources`` ALIGN's
    spaCy pipeline; without them the text is taken as English.
    """
    spec = spec.for_language(table_language(params or {}, train_path))
    counts = RowCounts(unit="row")
    frame = training_frame(train_path, variant, augment, counts)
    labels = model_labels(train_path, variant, augment, dev_path)
    frame = subsample(frame, spec.settings.get("train_rows"), seed, counts)
    counts.check()
    dev = dev_frame(dev_path) if dev_path is not None else None
    inputs = {"train": train_path, **({"dev": dev_path} if dev_path else {}), **augment}
    with atomic_dir(out_dir) as tmp:
        with open(tmp / "train.log", "w", encoding="utf-8") as log_file:

            def log_line(message: str, speed: str = "") -> None:
                """Progress to stderr; train.log gets the message without ``speed`` (a
                timing), so the model folder's bytes depend only on inputs and params."""
                log.info("%s%s", message, f", {speed}" if speed else "")
                log_file.write(message + "\n")
                log_file.flush()

            log_line(f"training {spec.name} ({variant}) on {device}: {counts.kept} rows "
                     f"of {counts.input} read, dropped {dict(counts.dropped)}")  # fmt: skip
            if spec.kind == "transformer":
                from .transformer import train_transformer

                settings = {**spec.settings, "hypothesis_only": spec.hypothesis_only}
                metrics = train_transformer(frame, dev, settings, tmp, seed, device, log_line, labels=labels)
                kept = len(metrics)  # the fine-tuned weights are the last epoch's
            elif spec.kind == "align":
                from .align import train_align

                metrics, kept = train_align(spec.name, spec.settings, frame, dev, labels, tmp, seed, device, log_line,
                                             params or {})
            else:
                metrics, kept = train_encoder(spec, frame, dev, labels, tmp, seed, device, log_line)
        write_json_atomic(tmp / "metrics.json", metrics)
        write_json_atomic(tmp / "config.json", {
            "name": spec.name, "kind": spec.kind, "arch": spec.arch, "labels": list(labels),
            "hypothesis_only": spec.hypothesis_only, "variant": variant, "seed": seed,
            "settings": spec.settings,
            "train": {
                "inputs": {role: {"path": str(p), "sha256": sha256_file(p), "rows": pq.read_metadata(p).num_rows}
                           for role, p in inputs.items()},
                "rows": counts.as_dict(),
                "weights_epoch": kept,
            },
            "nlistress_version": __version__,
        })  # fmt: skip
        write_model_card(tmp)
    return metrics
