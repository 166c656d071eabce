"""What the model tests share: tiny settings, the real SNLI tables, training helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import torch

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, deep_merge
from nlistress.models.predict import load_predictor, predict_set
from nlistress.models.settings import model_spec
from nlistress.models.train import train_model

from .support import SHARED_DATA, canonical_table, project_params, shared_override

CPU = torch.device("cpu")
# Small enough for 2 CI cores: every architecture trains in seconds on 6,000 SNLI dev rows.
TINY_MODEL = {"embedding_dim": 50, "hidden_dim": 64, "mlp_dim": 64}
# nb and ch stack BiLSTMs (on the CPU an LSTM costs per time step, whatever its width), ch
# runs a character CNN too: with two layers of few units (tests/test_models.py checks the
# three-layer wiring untrained), half the rows and the default learning rate (theirs,
# 0.0002 and 0.0004, suit 10 MultiNLI epochs) each trains about as fast as one 64-unit
# BiLSTM on 6,000 rows and still beats the majority class by 12 points.
TINY_ZOO = {
    "nb": {"hidden_dim": 16, "layer_scale": [1, 2], "lr": 0.001, "train_rows": 3000},
    "ch": {"hidden_dim": 16, "layer_scale": [1, 1], "char_dim": 8, "char_filters": 10, "lr": 0.001,
           "train_rows": 3000},
}
TINY = {
    "models": {
        "threads": 1,
        "training": {"epochs": 2, "max_length": 40, "batch_size": 64, "train_rows": 6000,
                     "early_stopping": None, "lr_policy": {"kind": "constant"}},
        "predict": {"batch_size": 256, "chunk_rows": 4000, "mixed_precision": True},
    }
}
PREDICT = TINY["models"]["predict"]


def tiny_params(**models: Any) -> dict[str, Any]:
    """params.yaml + tests/shared.yaml + tiny dimensions on every zoo model (+ ``models`` keys)."""
    params = deep_merge(deep_merge(project_params(), shared_override()), TINY)
    params["models"]["zoo"] = {n: {**e, **TINY_MODEL, **TINY_ZOO.get(n, {})}
                               for n, e in params["models"]["zoo"].items()}  # fmt: skip
    return deep_merge(params, {"models": models})


def snli_tables(params: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    """The real SNLI dev (training) and test (evaluation) files, canonicalised into ``folder``."""
    return (
        canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", folder),
        canonical_table(params, "snli", "test", "snli/snli_1.0_test.jsonl", folder),
    )


def two_way_snli_tables(params: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    """Real SNLI dev and test as a 2-way dataset: entailment vs not_entailment.

    As tests/test_dataset_formats.py does, each official file is rewritten in
    SciTail's layout (headerless TSV, ``entails`` / ``neutral``) and
    canonicalised with the registry's ``scitail`` entry, so the tables are what
    a 2-way dataset gives: labels [entailment, not_entailment], label_id 0/1.
    """
    spec = DatasetSpec.from_params(params, "scitail")
    tables = []
    for split in ("dev", "test"):
        rows = map(json.loads, (SHARED_DATA / "snli" / f"snli_1.0_{split}.jsonl").open(encoding="utf-8"))
        source = folder / f"snli_{split}_two_way.tsv"
        source.write_text("".join(
            f"{r['sentence1']}\t{r['sentence2']}\t{'entails' if r['gold_label'] == 'entailment' else 'neutral'}\n"
            for r in rows), encoding="utf-8")  # fmt: skip
        out = folder / f"snli_two_way_{split}.parquet"
        prepare(spec, split, out, PrepareSettings(), source_path=source)
        tables.append(out)
    return tables[0], tables[1]


def train(params: dict[str, Any], name: str, train_path: Path, out: Path, variant: str = "plain",
          augment: dict[str, Path] | None = None, dev: Path | None = None) -> list[dict[str, float]]:  # fmt: skip
    torch.set_num_threads(1)
    return train_model(model_spec(params, name), variant, train_path, dev, augment or {}, out,
                       params["models"]["seed"], CPU, params)  # fmt: skip


def predict(model_dir: Path, set_path: Path, out: Path, params: dict[str, Any] | None = None) -> Path:
    """``model_dir``'s predictions on ``set_path``; ``params`` give ALIGN its spaCy pipeline."""
    predict_set(load_predictor(model_dir, PREDICT, CPU, params), set_path, out, PREDICT["chunk_rows"])
    return out


def majority_share(table: Path) -> float:
    labels = pq.read_table(table, columns=["label"])["label"].to_pandas()
    return float(labels.value_counts(normalize=True).max())
