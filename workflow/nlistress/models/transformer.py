"""Fine-tuned pretrained transformers (RoBERTa, BART, DistilBERT, any BERT-like checkpoint).

The zoo dispatches here when a model's ``arch`` is ``transformer``:
``train_transformer`` fine-tunes a checkpoint as a cross-encoder (premise and
hypothesis in one input) or, with ``hypothesis_only``, on the hypothesis alone
(Poliak et al. 2018); ``TransformerPredictor`` runs the saved model.

Choices that make results repeatable and fast:

- Seeds: the head's initialisation, dropout and the shuffling all come from
  the run's seed, so a CPU run is repeatable to the bit; inference runs in eval
  mode (no dropout) under ``torch.inference_mode``.
- Labels: probabilities always come back in the model's label order (its
  training table's: entailment, neutral, contradiction, or entailment,
  not_entailment for a 2-way dataset); ``head: new`` has one output per label.
  A reused NLI head with another order (roberta-large-mnli: CONTRADICTION,
  NEUTRAL, ENTAILMENT) is mapped by label names, not positions.
- Max-entropy rows (``label_id == -1``, Sinha et al. 2021 eq. 5): their loss
  term is minus the entropy of the prediction, which pushes it towards uniform.
- Inference sorts each call's rows by token length, batches them so padding is
  small, and puts the probabilities back in input order; on CUDA it runs under
  ``torch.autocast`` (bf16 where supported, else fp16), on CPU in fp32.
- Only safetensors are read and written, never pickles, and no checkpoint code
  runs (``trust_remote_code=False``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from ..atomic import atomic_dir
from ..errors import ConfigError, DataError
from ..labels import LABELS
from ..permutations.objective import prediction_entropy
from .checkpoints import Checkpoint, resolve_checkpoint
from .data import MAX_ENTROPY_LABEL

#: Where the fine-tuned model and tokenizer go inside a model directory.
HF_DIR = "hf"
#: Config attribute recording the input mode, checked when the model is loaded.
HYPOTHESIS_ONLY_ATTR = "nlistress_hypothesis_only"
HEAD_MODES = ("new", "reuse")
_WHERE = "transformer settings"
# transformers' model_max_length when a tokenizer does not know its model's limit is 1e30.
_UNKNOWN_LENGTH = 1_000_000


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------


def _number(section: Mapping[str, Any], key: str, kind: type, low: float, high: float | None = None,
            low_open: bool = False) -> Any:  # fmt: skip
    """``section[key]`` as ``kind`` in [low, high] (``(low`` with low_open); else ConfigError naming the key."""
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
        kind is int and not float(value).is_integer()
    ):
        raise ConfigError(f"{_WHERE}.{key}: expected {'an integer' if kind is int else 'a number'}, got {value!r}")
    value = kind(value)
    too_low = value <= low if low_open else value < low
    if too_low or (high is not None and value > high) or not math.isfinite(value):
        bounds = f"{'(' if low_open else '['}{low}, {high if high is not None else '∞'}{']' if high is not None else ')'}"
        raise ConfigError(f"{_WHERE}.{key}: expected a value in {bounds}, got {value!r}")
    return value


def _require(settings: Any, keys: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(settings, Mapping):
        raise ConfigError(f"{_WHERE}: expected a mapping, got {type(settings).__name__}")
    missing = [key for key in keys if key not in settings]
    if missing:
        raise ConfigError(f"{_WHERE}: missing {', '.join(missing)}")
    if not isinstance(settings["hypothesis_only"], bool):
        raise ConfigError(f"{_WHERE}.hypothesis_only: expected true or false, got {settings['hypothesis_only']!r}")
    return settings


def _amp_dtype(precision: str | bool, device: torch.device) -> torch.dtype | None:
    """Autocast dtype for ``fp16``-style precision on ``device``; None means fp32 (always on CPU)."""
    if device.type != "cuda" or precision is False:
        return None
    if precision == "auto" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float16


@dataclass(frozen=True)
class InferenceSettings:
    """What running a fine-tuned model needs: ``models.predict`` merged over its training settings."""

    #: read only the hypothesis (must match how the model was trained)
    hypothesis_only: bool
    #: tokens per input (pair or hypothesis), longer inputs truncated
    max_length: int
    #: rows per forward pass (rows are sorted by length first, so padding stays small)
    batch_size: int
    #: "auto": bf16 autocast on CUDA where supported, else fp16; true: fp16; false: fp32
    precision: str | bool

    @classmethod
    def from_mapping(cls, settings: Any) -> InferenceSettings:
        """From the predict-time settings; ``mixed_precision`` (bool) switches autocast on CUDA."""
        section = _require(settings, ("hypothesis_only", "max_length", "batch_size", "mixed_precision"))
        if not isinstance(section["mixed_precision"], bool):
            raise ConfigError(f"{_WHERE}.mixed_precision: expected true or false, got {section['mixed_precision']!r}")
        return cls(
            hypothesis_only=section["hypothesis_only"],
            max_length=_number(section, "max_length", int, 2),
            batch_size=_number(section, "batch_size", int, 1),
            precision="auto" if section["mixed_precision"] else False,
        )


@dataclass(frozen=True)
class TrainingSettings:
    """A transformer's training settings (``models.training`` merged with its zoo entry); no defaults in code."""

    #: hub name, checkpoint folder, or package:NAME (the ``model`` folder of an installed package)
    checkpoint: Checkpoint
    #: hub commit/tag pinning a hub checkpoint (null: the default branch); unused for folders
    revision: str | None
    hypothesis_only: bool
    #: "new": a freshly initialised head, one output per label; "reuse": the checkpoint's head, mapped by label names
    head: str
    epochs: int
    lr: float
    weight_decay: float
    #: share of the optimiser steps with a linear learning-rate warm-up (then linear decay to 0)
    warmup_ratio: float
    #: rows per forward pass in training
    batch_size: int
    #: forward passes per optimiser step (effective batch = batch_size * grad_accum)
    grad_accum: int
    max_length: int
    #: gradient clipping norm (null: no clipping)
    grad_clip: float | None
    #: "auto": bf16 (else fp16) autocast on CUDA; true: fp16 with loss scaling; false: fp32. CPU: fp32
    fp16: str | bool
    #: rows per forward pass of the dev evaluation
    eval_batch_size: int
    #: optimiser steps between progress lines
    log_every: int

    @classmethod
    def from_mapping(cls, settings: Any) -> TrainingSettings:
        section = _require(settings, tuple(cls.__dataclass_fields__))
        revision = section["revision"]
        if revision is not None and (not isinstance(revision, str) or not revision):
            raise ConfigError(f"{_WHERE}.revision: expected null or a commit/tag, got {revision!r}")
        if section["head"] not in HEAD_MODES:
            raise ConfigError(f"{_WHERE}.head: expected one of {list(HEAD_MODES)}, got {section['head']!r}")
        if not (isinstance(section["fp16"], bool) or section["fp16"] == "auto"):
            raise ConfigError(f"{_WHERE}.fp16: expected auto, true or false, got {section['fp16']!r}")
        grad_clip = section["grad_clip"]
        return cls(
            checkpoint=resolve_checkpoint(section["checkpoint"], f"{_WHERE}.checkpoint"),
            revision=revision,
            hypothesis_only=section["hypothesis_only"],
            head=section["head"],
            epochs=_number(section, "epochs", int, 1),
            lr=_number(section, "lr", float, 0.0, low_open=True),
            weight_decay=_number(section, "weight_decay", float, 0.0),
            warmup_ratio=_number(section, "warmup_ratio", float, 0.0, 1.0),
            batch_size=_number(section, "batch_size", int, 1),
            grad_accum=_number(section, "grad_accum", int, 1),
            max_length=_number(section, "max_length", int, 2),
            grad_clip=None if grad_clip is None else _number(section, "grad_clip", float, 0.0, low_open=True),
            fp16=section["fp16"],
            eval_batch_size=_number(section, "eval_batch_size", int, 1),
            log_every=_number(section, "log_every", int, 1),
        )

    def inference(self) -> InferenceSettings:
        """How the dev set is run during training."""
        return InferenceSettings(self.hypothesis_only, self.max_length, self.eval_batch_size, self.fp16)


def _autocast(device: torch.device, dtype: torch.dtype | None) -> AbstractContextManager:
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else nullcontext()


# ---------------------------------------------------------------------------
# Loading a checkpoint
# ---------------------------------------------------------------------------


def _hub_options(checkpoint: Checkpoint, revision: str | None) -> dict[str, Any]:
    """from_pretrained options: never run checkpoint code; folders load without the network."""
    options: dict[str, Any] = {"trust_remote_code": False, "local_files_only": checkpoint.local}
    if revision is not None and not checkpoint.local:
        options["revision"] = revision
    return options


def _label_order(config: Any, labels: Sequence[str], where: str) -> np.ndarray:
    """Column indices that turn the head's outputs into ``labels``' order, matched by name
    regardless of case (roberta-large-mnli says ENTAILMENT)."""
    names = {int(i): str(name).lower() for i, name in (config.id2label or {}).items()}
    wanted = [label.lower() for label in labels]
    if sorted(names.values()) != sorted(wanted) or sorted(names) != list(range(len(wanted))):
        raise ConfigError(
            f"{where}: the head's labels {[names[i] for i in sorted(names)]} are not the model's "
            f"labels {list(labels)} (use head: new to train a fresh head)"
        )
    model_id = {name: i for i, name in names.items()}
    return np.array([model_id[label] for label in wanted], dtype=np.int64)


def _reinitialise_head(model: Any) -> None:
    """Give every module outside the pretrained encoder fresh (seeded) weights."""
    for name, child in model.named_children():
        if name != model.base_model_prefix:
            for param in child.parameters():
                # transformers skips parameters it marks as loaded; this head must be redrawn.
                param._is_hf_initialized = False
            child.apply(model._init_weights)


def load_pretrained(settings: TrainingSettings, labels: Sequence[str]) -> tuple[Any, Any]:
    """Tokenizer and sequence classifier for fine-tuning on ``labels``, with the head the settings ask for."""
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    where = f"{_WHERE}.checkpoint: {settings.checkpoint.spec!r}"
    options = _hub_options(settings.checkpoint, settings.revision)
    source = settings.checkpoint.source
    try:
        config = AutoConfig.from_pretrained(source, **options)
        tokenizer = AutoTokenizer.from_pretrained(source, **options)
        if settings.head == "reuse":
            _label_order(config, labels, where)
            model, info = AutoModelForSequenceClassification.from_pretrained(
                source, config=config, use_safetensors=True, output_loading_info=True, **options
            )
            lost = sorted(k for k in info["missing_keys"] if not k.startswith(model.base_model_prefix))
            if lost:
                raise ConfigError(f"{where}: head: reuse, but the checkpoint has no head ({', '.join(lost)} missing)")
        else:
            config.num_labels = len(labels)
            config.id2label = dict(enumerate(labels))
            config.label2id = {label: i for i, label in enumerate(labels)}
            model = AutoModelForSequenceClassification.from_pretrained(
                source, config=config, use_safetensors=True, ignore_mismatched_sizes=True, **options
            )
            _reinitialise_head(model)
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"{where}: cannot load ({first})") from None
    # the tokenizer knows the usable length (RoBERTa: 512 of 514 positions); a huge value means unknown
    limit = tokenizer.model_max_length if tokenizer.model_max_length < _UNKNOWN_LENGTH else None
    limit = limit or getattr(model.config, "max_position_embeddings", None)
    if isinstance(limit, int) and settings.max_length > limit:
        raise ConfigError(f"{_WHERE}.max_length: {settings.max_length} exceeds the model's {limit} tokens")
    setattr(model.config, HYPOTHESIS_ONLY_ATTR, settings.hypothesis_only)
    return tokenizer, model


# ---------------------------------------------------------------------------
# Batches
# ---------------------------------------------------------------------------


def _encode(tokenizer: Any, premises: Sequence[str], hypotheses: Sequence[str],
            settings: InferenceSettings, **options: Any) -> Any:  # fmt: skip
    """Tokenise each input, the pair or the hypothesis alone, truncated to max_length."""
    texts = [list(hypotheses)] if settings.hypothesis_only else [list(premises), list(hypotheses)]
    return tokenizer(*texts, truncation=True, max_length=settings.max_length, **options)


def _collate(tokenizer: Any, encoded: Mapping[str, list[list[int]]], rows: np.ndarray,
             device: torch.device) -> dict[str, torch.Tensor]:  # fmt: skip
    """Pad the chosen rows of unpadded token ids to their longest and move them to ``device``."""
    batch = tokenizer.pad({key: [value[i] for i in rows] for key, value in encoded.items()},
                          padding=True, return_tensors="pt")  # fmt: skip
    return {key: tensor.to(device, non_blocking=True) for key, tensor in batch.items()}


def _length_buckets(encoded: Mapping[str, list[list[int]]], batch_size: int) -> Iterator[np.ndarray]:
    """Row indices in batches of similar token length, longest first (memory peaks early)."""
    lengths = np.fromiter((len(ids) for ids in encoded["input_ids"]), dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def _logits(model: Any, tokenizer: Any, encoded: Mapping[str, list[list[int]]],
            settings: InferenceSettings, device: torch.device) -> torch.Tensor:  # fmt: skip
    """float32 logits (n, classes) on the CPU, in input order; eval mode, no gradients."""
    n = len(encoded["input_ids"])
    out = torch.empty((n, model.config.num_labels), dtype=torch.float32)
    dtype = _amp_dtype(settings.precision, device)
    model.eval()
    with torch.inference_mode(), _autocast(device, dtype):
        for rows in _length_buckets(encoded, settings.batch_size):
            logits = model(**_collate(tokenizer, encoded, rows, device)).logits
            out[torch.from_numpy(rows)] = logits.float().cpu()
    return out


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


def _check_frame(frame: pd.DataFrame, name: str, labelled_only: bool, n_labels: int) -> None:
    """Columns present, text strings, label_id in -1..n_labels-1 (from 0 for dev); else DataError at the row."""
    missing = [c for c in ("premise", "hypothesis", "label_id") if c not in frame.columns]
    if missing:
        raise DataError(name, f"missing column(s) {', '.join(missing)}")
    if frame.empty:
        raise DataError(name, "no rows")
    for column in ("premise", "hypothesis"):
        bad = ~frame[column].map(lambda v: isinstance(v, str)).to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError(name, f"{column} is not a string: {frame[column].iloc[row]!r}", line=row, unit="row")
    labels = pd.to_numeric(frame["label_id"], errors="coerce").to_numpy(dtype=np.float64)
    low = 0 if labelled_only else MAX_ENTROPY_LABEL
    bad = ~np.isin(labels, np.arange(low, n_labels))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(name, f"label_id {frame['label_id'].iloc[row]} not in {low}..{n_labels - 1}", line=row, unit="row")


def batch_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Summed loss of a batch: cross-entropy on labelled rows minus entropy on max-entropy rows.

    ``targets`` hold model-space class ids, or MAX_ENTROPY_LABEL for rows whose
    target is the uniform distribution (equation 5 of Sinha et al. 2021, with
    each permuted copy a row of its own).
    """
    labelled = targets != MAX_ENTROPY_LABEL
    cross_entropy = F.cross_entropy(logits[labelled], targets[labelled], reduction="sum")
    return cross_entropy - prediction_entropy(logits[~labelled]).sum()


def _optimiser(model: Any, settings: TrainingSettings, steps: int, device: torch.device) -> tuple[Any, Any]:
    """AdamW without decay on biases and norms, with linear warm-up then linear decay.

    The fused kernel (CPU and CUDA) does one pass over all parameters per step.
    """
    from transformers import get_linear_schedule_with_warmup

    decay, no_decay = [], []
    for name, param in model.named_parameters():
        (no_decay if param.ndim < 2 or "norm" in name.lower() else decay).append(param)
    optimiser = torch.optim.AdamW(
        [{"params": decay, "weight_decay": settings.weight_decay},
         {"params": no_decay, "weight_decay": 0.0}], lr=settings.lr,
        fused=device.type in ("cpu", "cuda"))  # fmt: skip
    warmup = math.floor(settings.warmup_ratio * steps)
    return optimiser, get_linear_schedule_with_warmup(optimiser, warmup, steps)


def _evaluate(model: Any, tokenizer: Any, dev: pd.DataFrame, settings: InferenceSettings,
              device: torch.device, to_model: np.ndarray) -> dict[str, float]:  # fmt: skip
    encoded = _encode(tokenizer, dev["premise"].tolist(), dev["hypothesis"].tolist(), settings)
    logits = _logits(model, tokenizer, encoded, settings, device)
    targets = torch.from_numpy(to_model[dev["label_id"].to_numpy(dtype=np.int64)])
    return {
        "dev_accuracy": float((logits.argmax(dim=1) == targets).double().mean()),
        "dev_loss": float(F.cross_entropy(logits, targets)),
    }


def _save_atomic(model: Any, tokenizer: Any, target: Path) -> None:
    """save_pretrained into a scratch folder next to ``target``, then move it into place."""
    with atomic_dir(target) as scratch:
        model.save_pretrained(scratch)
        tokenizer.save_pretrained(scratch)


def train_transformer(train: pd.DataFrame, dev: pd.DataFrame | None, settings: Mapping[str, Any],
                      out_dir: Path, seed: int, device: torch.device, log: Callable[..., None], *,
                      labels: Sequence[str]) -> list[dict[str, float]]:  # fmt: skip
    """Fine-tune ``settings['checkpoint']`` on ``train``; save it under ``out_dir / "hf"``.

    ``labels`` is the model's label set (its training table's); ``train``/``dev``
    have premise, hypothesis and label_id (an index into ``labels``; -1 in train
    marks a max-entropy row). Returns one dict per epoch: epoch, train_loss and,
    with ``dev``, dev_accuracy and dev_loss.
    """
    from transformers import set_seed

    spec = TrainingSettings.from_mapping(settings)
    _check_frame(train, "train", labelled_only=False, n_labels=len(labels))
    if dev is not None:
        _check_frame(dev, "dev", labelled_only=True, n_labels=len(labels))
    set_seed(seed)  # before loading: the fresh head's weights are drawn from it
    tokenizer, model = load_pretrained(spec, labels)
    model.to(device)
    # our label id -> the model's class id (identity unless a reused head orders labels differently)
    to_model = np.full(len(labels) + 1, MAX_ENTROPY_LABEL, dtype=np.int64)
    to_model[: len(labels)] = _label_order(model.config, labels, f"{_WHERE}.checkpoint")
    # tokenised batch by batch: a pre-tokenised training split would hold every id as a Python int
    premises, hypotheses = train["premise"].to_numpy(dtype=object), train["hypothesis"].to_numpy(dtype=object)
    targets = torch.from_numpy(to_model[train["label_id"].to_numpy(dtype=np.int64)])

    n = len(train)
    passes = math.ceil(n / spec.batch_size)
    steps_per_epoch = math.ceil(passes / spec.grad_accum)
    optimiser, scheduler = _optimiser(model, spec, steps_per_epoch * spec.epochs, device)
    dtype = _amp_dtype(spec.fp16, device)
    scaler = torch.amp.GradScaler("cuda") if dtype is torch.float16 else None
    shuffle = torch.Generator().manual_seed(seed)
    log(f"fine-tuning {spec.checkpoint.spec} on {n} rows ({'hypothesis only' if spec.hypothesis_only else 'pairs'}): "
        f"{spec.epochs} epochs x {steps_per_epoch} steps, device {device}, {dtype or torch.float32}")  # fmt: skip

    history: list[dict[str, float]] = []
    for epoch in range(1, spec.epochs + 1):
        model.train()
        order = torch.randperm(n, generator=shuffle).numpy()
        start, seen, total_loss = time.monotonic(), 0, 0.0
        for index in range(passes):
            rows = order[index * spec.batch_size : (index + 1) * spec.batch_size]
            batch = _encode(tokenizer, premises[rows], hypotheses[rows], spec.inference(),
                            padding=True, return_tensors="pt").to(device)  # fmt: skip
            with _autocast(device, dtype):
                logits = model(**batch).logits
            loss = batch_loss(logits.float(), targets[rows].to(device))
            scaled = loss / (len(rows) * spec.grad_accum)
            (scaler.scale(scaled) if scaler else scaled).backward()
            total_loss += float(loss.detach())
            seen += len(rows)
            if (index + 1) % spec.grad_accum == 0 or index + 1 == passes:
                if scaler:
                    scaler.unscale_(optimiser)
                if spec.grad_clip is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), spec.grad_clip)
                if scaler:
                    scaler.step(optimiser)
                    scaler.update()
                else:
                    optimiser.step()
                scheduler.step()
                optimiser.zero_grad(set_to_none=True)
                step = math.ceil((index + 1) / spec.grad_accum)
                if step % spec.log_every == 0 or index + 1 == passes:
                    rate = seen / max(time.monotonic() - start, 1e-9)
                    log(f"epoch {epoch}/{spec.epochs} step {step}/{steps_per_epoch}: "
                        f"loss {total_loss / seen:.4f}", f"{rate:.0f} rows/s")  # fmt: skip
        metrics = {"epoch": float(epoch), "train_loss": total_loss / n}
        if dev is not None:
            metrics.update(_evaluate(model, tokenizer, dev, spec.inference(), device, to_model))
            log(f"epoch {epoch}: dev accuracy {metrics['dev_accuracy']:.4f}, dev loss {metrics['dev_loss']:.4f}")
        history.append(metrics)
    _save_atomic(model, tokenizer, Path(out_dir) / HF_DIR)
    return history


# ---------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------


class TransformerPredictor:
    """A fine-tuned model ready for inference; ``predict_proba`` returns ``labels``' order.

    ``order`` picks the head's output for each of ``labels`` (default: the 3 NLI labels).
    """

    def __init__(self, model: Any, tokenizer: Any, settings: InferenceSettings, device: torch.device,
                 order: np.ndarray, labels: Sequence[str] = LABELS) -> None:  # fmt: skip
        self.model = model
        self.tokenizer = tokenizer
        self.settings = settings
        self.device = device
        self._order = torch.from_numpy(order)
        self.labels = tuple(labels)

    @classmethod
    def load(cls, model_dir: Path, settings: Mapping[str, Any], device: torch.device,
             labels: Sequence[str] = LABELS, folder: Path | None = None) -> TransformerPredictor:  # fmt: skip
        """Load ``model_dir / "hf"`` (safetensors only, no network, no checkpoint code), or
        ``folder`` itself: a sequence-classification checkpoint of your own.

        ``labels`` is the model's label set (its ``config.json``'s); the head is mapped onto it by name.
        """
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        spec = InferenceSettings.from_mapping(settings)
        folder = Path(folder) if folder is not None else Path(model_dir) / HF_DIR
        if not (folder / "config.json").is_file():
            raise ConfigError(f"{folder}: no fine-tuned transformer here (train the model first)")
        options = {"local_files_only": True, "trust_remote_code": False}
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, **options)
            model, info = AutoModelForSequenceClassification.from_pretrained(
                folder, use_safetensors=True, output_loading_info=True, **options
            )
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{folder}: cannot load the fine-tuned model ({str(exc).strip().splitlines()[0]})") from None
        missing = sorted(info["missing_keys"])
        if missing:  # transformers would fill them with random weights and predict anyway
            raise DataError(folder, f"the saved weights lack {len(missing)} tensor(s) of the model "
                            f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}): retrain it")  # fmt: skip
        trained_on = getattr(model.config, HYPOTHESIS_ONLY_ATTR, None)
        if trained_on is not None and trained_on != spec.hypothesis_only:
            raise ConfigError(
                f"{_WHERE}.hypothesis_only: {spec.hypothesis_only}, but {folder} was trained with {trained_on}"
            )
        model.to(device).eval()
        return cls(model, tokenizer, spec, device, _label_order(model.config, labels, str(folder)), labels)

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """float32 (n, len(labels)) probabilities in ``labels`` order, rows in input order.

        Sorts this call's rows by token length internally; callers stream large
        sets by calling it once per chunk.
        """
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        if len(hypotheses) == 0:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        encoded = _encode(self.tokenizer, premises, hypotheses, self.settings)
        logits = _logits(self.model, self.tokenizer, encoded, self.settings, self.device)
        return logits.softmax(dim=1)[:, self._order].numpy().astype(np.float32, copy=False)
