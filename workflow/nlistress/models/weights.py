"""Model weights on disk: safetensors files that carry their head's label order.

Training writes the order of the labels its head was trained with into the file's
metadata; loading refuses weights whose recorded order differs from the one
``config.json`` names, so an edited label list can never relabel predictions
without a word.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from ..errors import DataError

# safetensors metadata key under which training records the head's label order (JSON list).
LABELS_METADATA = "nlistress.labels"


def save_weights(state: Mapping[str, torch.Tensor], path: Path, labels: Sequence[str]) -> None:
    """``state`` as safetensors, with the head's label order in the metadata.

    The order travels with the weights: a config.json whose labels are later
    reordered would otherwise relabel every prediction without a word (checked at load).
    """
    tensors = {k: v.detach().cpu().contiguous() for k, v in state.items()}
    save_file(tensors, path, metadata={LABELS_METADATA: json.dumps(list(labels))})


def load_weights(model: torch.nn.Module, model_dir: Path, labels: Sequence[str], device: torch.device) -> None:
    """Load ``model_dir/model.safetensors`` into ``model`` (on ``device``, in eval mode), after
    checking the head's recorded label order; any problem is a one-line DataError."""
    weights = model_dir / "model.safetensors"
    if not weights.is_file():
        raise DataError(model_dir, "no model.safetensors in the model directory")
    try:
        check_label_order(weights, labels)
        model.load_state_dict(load_file(weights))
    except SafetensorError as exc:
        raise DataError(weights, f"not a readable safetensors file ({exc})") from None
    except (RuntimeError, OSError) as exc:
        raise DataError(weights, f"weights do not fit the configured model ({exc})") from None
    model.to(device).eval()


def check_label_order(weights: Path, labels: Sequence[str]) -> None:
    """Refuse weights whose head was trained with another label order than ``config.json`` names.

    Training records the order in the safetensors metadata; without this check an
    edited ``labels`` list would silently relabel every prediction.
    """
    with safe_open(weights, framework="pt") as handle:
        recorded = (handle.metadata() or {}).get(LABELS_METADATA)
    if recorded is None:
        raise DataError(weights, "the weights do not record the label order of their head: retrain the model")
    try:
        trained = json.loads(recorded)
    except json.JSONDecodeError:
        raise DataError(weights, f"unreadable {LABELS_METADATA} record {recorded[:80]!r}: retrain the model") from None
    if trained != list(labels):
        raise DataError(weights, f"the head was trained with labels {trained} in that order, but config.json "
                        f"says {list(labels)}: restore config.json's labels or retrain")  # fmt: skip
