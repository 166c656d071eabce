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

import copy
import json
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from .. import __version__
from ..atomic import atomic_dir, sha256_file, write_json_atomic
from ..errors import ConfigError
from ..manifest import RowCounts
from ..permutations.objective import prediction_entropy
from .data import dev_frame, model_labels, subsample, table_language, training_frame
from .encoders import build_model, word_embeddings
from .model_card import write_model_card
from .predict import LABELS_METADATA, EncoderPredictor, Predictor
from .settings import ModelSpec
from .text import Vocabulary, load_glove, pad_batch

log = logging.getLogger("nlistress")
Log = Callable[[str], None]


def seed_everything(seed: int, device: torch.device) -> None:
    """Seed every generator training touches; deterministic kernels on the CPU."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if device.type == "cpu":
        torch.use_deterministic_algorithms(True)


def objective(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Sinha et al. equation 5 over a batch: Σ CE on labelled rows - Σ H on ``-1`` rows, per row.

    Without ``-1`` rows this is plain cross-entropy. It is the sum form of
    ``nlistress.permutations.objective.max_entropy_loss`` with the permuted copies
    spread over the epoch's batches instead of paired with their originals.
    An ensemble's logits (members, batch, labels) give the mean of its members'
    objectives, so each member learns from its own predictions.
    """
    if logits.dim() == 3:
        return torch.stack([objective(member, labels) for member in logits]).mean()
    labelled = labels >= 0
    loss = logits.new_zeros(())
    if labelled.any():
        loss = loss + F.cross_entropy(logits[labelled], labels[labelled], reduction="sum")
    if (~labelled).any():
        loss = loss - prediction_entropy(logits[~labelled]).sum()
    return loss / len(labels)


def _optimizer(model: torch.nn.Module, s: Mapping[str, Any]) -> torch.optim.Optimizer:
    params = [p for p in model.parameters() if p.requires_grad]
    kind = s.get("optimizer", "adam")
    if kind == "adam":
        return torch.optim.Adam(params, lr=s["lr"], weight_decay=s.get("weight_decay", 0.0))
    if kind == "sgd":
        return torch.optim.SGD(params, lr=s["lr"], weight_decay=s.get("weight_decay", 0.0))
    raise ConfigError(f"models optimizer: unknown {kind!r} (known: adam, sgd)")


class LearningRatePolicy:
    """What happens to the learning rate after each epoch (``lr_policy.kind``).

    - ``constant``;
    - ``step``: lr times ``factor`` every ``step_size`` epochs;
    - ``plateau``: lr times ``factor`` when the dev accuracy has not improved for
      ``patience`` epochs, never below ``min_lr``;
    - ``infersent``: Conneau et al.'s SGD schedule, which Poliak et al. trained
      with: lr divided by ``shrink`` after an epoch without a better dev accuracy,
      training ends once lr falls below ``min_lr``, and otherwise lr times
      ``decay`` before the next epoch.
    """

    KINDS = ("constant", "step", "plateau", "infersent")

    def __init__(self, optimizer: torch.optim.Optimizer, policy: Mapping[str, Any]) -> None:
        self.kind = policy.get("kind", "constant")
        self.optimizer = optimizer
        factor, min_lr = float(policy.get("factor", 0.5)), float(policy.get("min_lr", 0.0))
        self.finished = False
        if self.kind == "plateau":
            self.scheduler: Any = torch.optim.lr_scheduler.ReduceLROnPlateau(
                optimizer, mode="max", factor=factor, patience=int(policy.get("patience", 0)),
                min_lr=min_lr,
            )  # fmt: skip
        elif self.kind == "step":
            self.scheduler = torch.optim.lr_scheduler.StepLR(
                optimizer, step_size=int(policy.get("step_size", 1)), gamma=factor
            )
        elif self.kind == "infersent":
            self.decay, self.shrink = float(policy.get("decay", 0.99)), float(policy.get("shrink", 5.0))
            self.min_lr, self.best = min_lr, -np.inf
        elif self.kind != "constant":
            raise ConfigError(
                f"models lr_policy.kind: unknown {self.kind!r} (known: {', '.join(self.KINDS)})"
            )

    def step(self, score: float) -> None:
        if self.kind == "plateau":
            self.scheduler.step(score)
        elif self.kind == "step":
            self.scheduler.step()
        elif self.kind == "infersent":
            for group in self.optimizer.param_groups:
                if score <= self.best:
                    group["lr"] /= self.shrink
                self.finished = group["lr"] < self.min_lr
                if not self.finished:
                    group["lr"] *= self.decay
            self.best = max(self.best, score)


def evaluate_predictor(predictor: Predictor, dev: pd.DataFrame) -> dict[str, float]:
    """Accuracy and mean cross-entropy of ``predictor`` on the labelled ``dev`` rows."""
    probs = predictor.predict_proba(dev["premise"].tolist(), dev["hypothesis"].tolist())
    return dev_metrics(probs, dev["label_id"].to_numpy())


def dev_metrics(probs: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """``dev_accuracy`` and ``dev_loss`` (mean cross-entropy) of probabilities against gold label ids."""
    picked = probs[np.arange(len(gold)), gold].astype(np.float64)
    return {
        "dev_accuracy": float((probs.argmax(axis=1) == gold).mean()),
        "dev_loss": float(-np.log(np.clip(picked, 1e-12, None)).mean()),
    }


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


def fit(
    model: torch.nn.Module, forward: Callable[[list[int]], torch.Tensor], targets: torch.Tensor,
    evaluate: Callable[[], dict[str, float]] | None, s: Mapping[str, Any], seed: int,
    device: torch.device, log_line: Log,
) -> tuple[list[dict[str, float]], dict[str, torch.Tensor], int]:  # fmt: skip
    """The training loop of every model but the transformers; returns per-epoch metrics,
    the weights of the best epoch and that epoch's number.

    ``forward(rows)`` gives the logits of those training rows; ``evaluate()`` the dev
    accuracy and loss. Rows are shuffled by a generator seeded with ``seed``. Early
    stopping keeps the weights of the best dev epoch (``early_stopping`` epochs without
    improvement end training; ``null`` trains every epoch); without a dev split the
    lowest training loss counts as best.
    """
    optimizer = _optimizer(model, s)
    policy = LearningRatePolicy(optimizer, s.get("lr_policy") or {})
    shuffle = torch.Generator().manual_seed(seed)
    batch_size, clip, patience = int(s["batch_size"]), s.get("grad_clip"), s.get("early_stopping")
    metrics: list[dict[str, float]] = []
    best_score, best_state, best_epoch, waited = -np.inf, None, 0, 0
    for epoch in range(1, int(s["epochs"]) + 1):
        model.train()
        started, total = time.monotonic(), 0.0
        order = torch.randperm(len(targets), generator=shuffle)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size].tolist()
            loss = objective(forward(idx), targets[idx].to(device))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), float(clip))
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        row: dict[str, float] = {"epoch": epoch, "train_loss": total / len(targets),
                                 "lr": optimizer.param_groups[0]["lr"]}  # fmt: skip
        if evaluate is not None:
            row.update(evaluate())
        metrics.append(row)
        rate = len(targets) / max(time.monotonic() - started, 1e-9)
        dev_text = f", dev acc {row['dev_accuracy']:.4f}" if evaluate is not None else ""
        log_line(f"epoch {epoch}: train loss {row['train_loss']:.4f}{dev_text}, "
                 f"lr {row['lr']:.3g}", f"{rate:.0f} rows/s")  # fmt: skip
        score = row["dev_accuracy"] if evaluate is not None else -row["train_loss"]
        policy.step(score)
        improved = score > best_score
        if improved:
            best_score, best_state, best_epoch, waited = score, copy.deepcopy(model.state_dict()), epoch, 0
        if policy.finished:
            log_line(f"stop: learning rate below lr_policy.min_lr after epoch {epoch}")
            break
        if not improved:
            waited += 1
            if patience is not None and waited >= int(patience):
                log_line(f"early stop: no improvement for {waited} epoch(s)")
                break
    assert best_state is not None
    return metrics, best_state, best_epoch


def save_weights(state: Mapping[str, torch.Tensor], path: Path, labels: Sequence[str]) -> None:
    """``state`` as safetensors, with the head's label order in the metadata.

    The order travels with the weights: a config.json whose labels are later
    reordered would otherwise relabel every prediction without a word (checked at load).
    """
    tensors = {k: v.detach().cpu().contiguous() for k, v in state.items()}
    save_file(tensors, path, metadata={LABELS_METADATA: json.dumps(list(labels))})


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

                metrics, kept = train_align(spec, frame, dev, labels, tmp, seed, device, log_line, params or {})
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
