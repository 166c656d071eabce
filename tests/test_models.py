"""Every architecture trains on the real SNLI dev file and beats the majority class on SNLI test.

Each model is trained once (module fixture, 6,000 seeded rows, 2 epochs, tiny
dimensions); the tests then check the loss fell, test accuracy, the model
directory, reload and retrain bit-identity, and the training variants on the
real negation twins and permuted copies of SNLI dev.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from safetensors.torch import load_file

from nlistress.manifest import RowCounts
from nlistress.models.data import MAX_ENTROPY_LABEL, training_frame
from nlistress.models.score import score_set
from nlistress.models.text import Vocabulary
from nlistress.perturb.runner import build_set

from .models_support import majority_share, predict, snli_tables, tiny_params, train

ZOO = ["cbow", "bilstm", "infersent", "infersent_hyp", "convnet", "ce", "dam", "esim"]
MARGIN = 0.08  # accuracy points above the majority class (observed: 12-18)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("models")
    params = tiny_params()
    dev, test = snli_tables(params, folder)
    trained = {}
    for name in ZOO:
        out = folder / "models" / name
        metrics = train(params, name, dev, out)
        preds = predict(out, test, folder / f"{name}.parquet")
        trained[name] = {"dir": out, "metrics": metrics, "predictions": preds,
                         "score": score_set(test, preds)}  # fmt: skip
    return {"folder": folder, "params": params, "dev": dev, "test": test, "trained": trained}


@pytest.mark.parametrize("name", ZOO)
def test_loss_falls_and_beats_majority(world: dict, name: str) -> None:
    run = world["trained"][name]
    losses = [m["train_loss"] for m in run["metrics"]]
    assert len(losses) == 2 and losses[-1] < losses[0]
    majority = majority_share(world["test"])
    assert 0.33 < majority < 0.35  # SNLI test is balanced
    score = run["score"]
    assert score["rows"]["scored"] == 9824
    assert score["accuracy"] > majority + MARGIN, (name, score["accuracy"])
    matrix = np.array(score["confusion"]["rows_gold_columns_predicted"])
    assert matrix.sum() == 9824 and np.trace(matrix) / 9824 == pytest.approx(score["accuracy"])


def test_model_directory_contract(world: dict) -> None:
    model_dir = world["trained"]["infersent_hyp"]["dir"]
    config = json.loads((model_dir / "config.json").read_text())
    assert config["kind"] == "encoder" and config["arch"] == "infersent"
    assert config["hypothesis_only"] is True
    assert config["labels"] == ["entailment", "neutral", "contradiction"]
    assert config["train"]["inputs"]["train"]["sha256"]
    rows = config["train"]["rows"]
    assert rows["input"] == 9842 and rows["kept"] == 6000
    assert rows["input"] == rows["kept"] + sum(rows["dropped"].values())
    metrics = json.loads((model_dir / "metrics.json").read_text())
    assert [m["epoch"] for m in metrics] == [1, 2]
    assert "epoch 2: train loss" in (model_dir / "train.log").read_text()
    vocab = Vocabulary.load(model_dir / "vocab.json")
    weights = load_file(model_dir / "model.safetensors")
    assert weights["embedding.weight"].shape == (len(vocab), 50)
    assert vocab.tokens[:2] == ["<pad>", "<unk>"]
    assert not any(p.name.startswith(".") for p in model_dir.parent.iterdir())  # no temp leftovers


def test_predictions_format_and_order(world: dict) -> None:
    table = pq.read_table(world["trained"]["esim"]["predictions"]).to_pandas()
    gold_uids = pq.read_table(world["test"], columns=["uid"])["uid"].to_pylist()
    assert table["uid"].tolist() == gold_uids  # input order, not length order
    probs = table[["prob_entailment", "prob_neutral", "prob_contradiction"]].to_numpy(np.float64)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    labels = np.array(["entailment", "neutral", "contradiction"])
    assert (labels[probs.argmax(axis=1)] == table["prediction"].to_numpy()).all()
    entropy = -(probs * np.log(probs)).sum(axis=1)
    assert np.allclose(entropy, table["entropy"], atol=1e-4)
    assert (table["entropy"] <= np.log(3) + 1e-5).all()


def test_reload_and_retrain_are_bit_identical(world: dict, tmp_path: Path) -> None:
    first = world["trained"]["cbow"]
    again = predict(first["dir"], world["test"], tmp_path / "again.parquet")
    assert again.read_bytes() == first["predictions"].read_bytes()
    retrained = tmp_path / "cbow"
    metrics = train(world["params"], "cbow", world["dev"], retrained)
    assert metrics == first["metrics"]
    assert (retrained / "model.safetensors").read_bytes() == (
        first["dir"] / "model.safetensors"
    ).read_bytes()
    assert (retrained / "vocab.json").read_bytes() == (first["dir"] / "vocab.json").read_bytes()


def test_training_variants_on_real_augmentations(world: dict) -> None:
    folder, params, dev = world["folder"], world["params"], world["dev"]
    negation = folder / "negation_augmented.parquet"
    build_set("negation_augmented", dev, negation, params)
    permuted = folder / "permute_train.parquet"
    build_set("permute_train", dev, permuted, params)
    n_permuted = pq.read_metadata(permuted).num_rows

    counts = RowCounts()
    frame = training_frame(dev, "negation", {"negation": negation}, counts)
    assert counts.input == 9842 * 3 and counts.dropped["original already in the train split"] == 9842
    assert len(frame) == counts.kept == 9842 * 2
    assert frame["hypothesis"].str.contains("and false is not true", regex=False).sum() == 9842

    counts = RowCounts()
    frame = training_frame(dev, "max_entropy", {"permuted": permuted}, counts)
    assert (frame["label_id"] == MAX_ENTROPY_LABEL).sum() == n_permuted > 9000
    assert len(frame) == 9842 + n_permuted

    # Sinha et al. eq. 5: the max-entropy model is less sure on word salad than the plain one.
    test_permuted = folder / "permute_test.parquet"
    build_set("permute_train", world["test"], test_permuted, params)
    entropies = {}
    for variant in ("permute", "max_entropy"):
        out = folder / "models" / f"cbow_{variant}"
        train(params, "cbow", dev, out, variant, {"permuted": permuted})
        preds = predict(out, test_permuted, folder / f"cbow_{variant}.parquet")
        entropies[variant] = float(pq.read_table(preds, columns=["entropy"])["entropy"].to_numpy().mean())
    assert entropies["max_entropy"] > entropies["permute"] + 0.02, entropies  # observed 0.04
