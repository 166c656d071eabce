"""The training loop every model but the transformers shares (encoders and ALIGN).

``fit`` runs the epochs: seeded shuffling, the objective (cross-entropy, minus the
entropy of permuted copies labelled ``-1``: Sinha et al. eq. 5), the optimizer and
the learning-rate policy, early stopping on the dev accuracy, and the weights of
the best epoch. How a model turns rows into logits (``forward``) and scores the dev
split (``evaluate``) is the caller's, so the loop knows no architecture.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import ConfigError
from ..permutations.objective import prediction_entropy

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


def dev_metrics(probs: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """``dev_accuracy`` and ``dev_loss`` (mean cross-entropy) of probabilities against gold label ids."""
    picked = probs[np.arange(len(gold)), gold].astype(np.float64)
    return {
        "dev_accuracy": float((probs.argmax(axis=1) == gold).mean()),
        "dev_loss": float(-np.log(np.clip(picked, 1e-12, None)).mean()),
    }


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
