"""Every architecture trains on the real SNLI dev file and beats the majority class on SNLI test.

Each model is trained once (module fixture, 6,000 seeded rows, 2 epochs, tiny
dimensions; the stacked nb and ch two layers and 3,000 rows); the tests then check the loss
fell, test accuracy, the model directory and its card, reload and retrain
bit-identity, and the training variants on the real negation twins and permuted
copies of SNLI dev. A hypothesis-only InferSent trained on SNLI made 2-way
(entailment vs not_entailment) gets a 2-way head, 2-way predictions and beats
the 2-way majority class. The new encoders' parts are checked against their
definitions: the recomputed LSTM input gates against a step-by-step LSTM, the
shortcut layers' inputs, padding and premise invariance, the ensemble's mean.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import torch
from safetensors.torch import load_file

from nlistress.errors import ConfigError, DataError
from nlistress.manifest import RowCounts
from nlistress.models.data import MAX_ENTROPY_LABEL, model_labels, training_frame
from nlistress.models.encoders import Ensemble, _input_gates, _lstm, build_model
from nlistress.models.predict import load_predictor
from nlistress.models.score import score_set
from nlistress.models.text import Vocabulary
from nlistress.perturb.runner import build_set

from .models_support import (
    majority_share,
    predict,
    snli_tables,
    tiny_params,
    train,
    two_way_snli_tables,
)

ZOO = ["cbow", "bilstm", "infersent", "infersent_hyp", "convnet", "ce", "dam", "esim", "nb", "ch", "rc"]
# Naik et al.'s three RepEval 2017 encoders, new in the zoo: each also reloads bit-identically.
REPEVAL = ["nb", "ch", "rc"]
MARGIN = 0.08  # accuracy points above the majority class (observed: 12-20)
TWO_WAY = ["entailment", "not_entailment"]
TWO_WAY_MARGIN = 0.03  # 2-way, hypothesis only: 71.5 % against a 65.7 % majority


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
    assert config["train"]["inputs"]["train"]["rows"] == 9842
    assert config["train"]["weights_epoch"] == 2  # no dev split: the epoch of the lowest train loss
    assert (model_dir / "README.md").is_file()


def test_a_reordered_label_list_is_refused_not_relabelled(world: dict, tmp_path: Path) -> None:
    """The head's label order is recorded in the weights; an edited config.json cannot relabel."""
    model_dir = tmp_path / "edited"
    shutil.copytree(world["trained"]["cbow"]["dir"], model_dir)
    config = json.loads((model_dir / "config.json").read_text())
    config["labels"] = ["contradiction", "neutral", "entailment"]
    (model_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataError, match="trained with labels .*'entailment', 'neutral', 'contradiction'"):
        load_predictor(model_dir, world["params"]["models"]["predict"], torch.device("cpu"))


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


@pytest.mark.parametrize("name", REPEVAL)
def test_reload_gives_bit_identical_predictions(world: dict, name: str, tmp_path: Path) -> None:
    first = world["trained"][name]
    again = predict(first["dir"], world["test"], tmp_path / "again.parquet")
    assert again.read_bytes() == first["predictions"].read_bytes()
    assert (first["dir"] / "README.md").is_file()


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


@pytest.fixture(scope="module")
def two_way(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """infersent_hyp trained on 6,000 rows of real SNLI dev made 2-way, run on 2-way SNLI test."""
    folder = tmp_path_factory.mktemp("two_way")
    params = tiny_params()
    dev, test = two_way_snli_tables(params, folder)
    out = folder / "models" / "infersent_hyp"
    metrics = train(params, "infersent_hyp", dev, out)
    preds = predict(out, test, folder / "infersent_hyp.parquet")
    return {"folder": folder, "params": params, "dev": dev, "test": test, "dir": out,
            "metrics": metrics, "predictions": preds}  # fmt: skip


def test_two_way_dataset_trains_a_two_way_model(two_way: dict) -> None:
    """Poliak et al. evaluate hypothesis-only baselines on 2-way datasets too: 2 outputs, 2 names."""
    config = json.loads((two_way["dir"] / "config.json").read_text())
    assert config["labels"] == TWO_WAY
    head = load_file(two_way["dir"] / "model.safetensors")["classifier.4.weight"]
    assert head.shape == (2, 64)
    losses = [m["train_loss"] for m in two_way["metrics"]]
    assert losses[-1] < losses[0]

    table = pq.read_table(two_way["predictions"]).to_pandas()
    assert table.columns.tolist() == ["uid", "prediction", "prob_entailment", "prob_not_entailment", "entropy"]
    assert set(table["prediction"]) == set(TWO_WAY)
    probs = table[["prob_entailment", "prob_not_entailment"]].to_numpy(np.float64)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert (table["entropy"] <= math.log(2) + 1e-5).all()
    gold = pq.read_table(two_way["test"], columns=["uid", "label"]).to_pandas()
    assert table["uid"].tolist() == gold["uid"].tolist()
    majority = majority_share(two_way["test"])
    assert 0.65 < majority < 0.66  # not_entailment: SNLI test's neutral and contradiction rows
    accuracy = float((table["prediction"] == gold["label"]).mean())
    assert accuracy > majority + TWO_WAY_MARGIN, accuracy


def test_dev_and_scored_sets_must_share_the_model_labels(two_way: dict, tmp_path: Path) -> None:
    """A dev table may be a subset of the model's labels, never another set; score stays 3-way."""
    dev, test = two_way["dev"], two_way["test"]
    three_way_dev, three_way_test = snli_tables(two_way["params"], tmp_path)
    entailed = tmp_path / "entailed_only.parquet"  # real rows, one label: a subset with the same id
    table = pq.read_table(test)
    pq.write_table(table.filter(pc.equal(table["label"], "entailment")), entailed)
    assert model_labels(dev, "plain", {}, entailed) == tuple(TWO_WAY)

    with pytest.raises(DataError, match=r"snli_test\.parquet: the dev labels do not fit the model's "
                                        r"labels \['entailment', 'not_entailment'\]"):  # fmt: skip
        train(two_way["params"], "cbow", dev, tmp_path / "m", dev=three_way_test)
    assert not (tmp_path / "m").exists()
    with pytest.raises(DataError, match=r"snli_two_way_test\.parquet: .*labels \['entailment', "
                                        r"'neutral', 'contradiction'\].*'not_entailment'"):  # fmt: skip
        model_labels(three_way_dev, "plain", {}, test)

    with pytest.raises(DataError, match=r"infersent_hyp\.parquet: the model's labels "
                                        r"\['entailment', 'not_entailment'\] differ from the set's"):  # fmt: skip
        score_set(three_way_test, two_way["predictions"])
    with pytest.raises(DataError, match=r"gold label 'not_entailment' is not one of the 3-way labels"):
        score_set(test, two_way["predictions"])


def _settings(**changes: object) -> dict:
    """Tiny settings of every encoder, for checks that need no training."""
    return {"embedding_dim": 8, "hidden_dim": 4, "mlp_dim": 8, "dropout": 0.1, "freeze_embeddings": False,
            "hypothesis_only": False, "layer_scale": [1, 2, 4], "char_dim": 3, "char_filters": 2,
            "char_widths": [1, 3, 5], "char_max_length": 6, **changes}  # fmt: skip


def test_input_gates_match_a_step_by_step_lstm() -> None:
    """ch weighs words by the input gates torch's LSTM does not return; the recomputed gates
    equal those of an LSTM run by hand, step by step, in both directions, at any length."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(5, 4, batch_first=True, bidirectional=True)
    x, lengths = torch.randn(3, 6, 5), torch.tensor([6, 3, 1])
    gates = _input_gates(lstm, x, _lstm(lstm, x, lengths)[0])
    for suffix, half in (("", slice(0, 4)), ("_reverse", slice(4, 8))):
        w_ih, w_hh = getattr(lstm, f"weight_ih_l0{suffix}"), getattr(lstm, f"weight_hh_l0{suffix}")
        bias = getattr(lstm, f"bias_ih_l0{suffix}") + getattr(lstm, f"bias_hh_l0{suffix}")
        for row, length in enumerate(lengths.tolist()):
            h, c = torch.zeros(4), torch.zeros(4)
            steps = range(length)
            for t in reversed(steps) if suffix else steps:
                i, f, g, o = (w_ih @ x[row, t] + w_hh @ h + bias).chunk(4)
                c = f.sigmoid() * c + i.sigmoid() * g.tanh()
                h = o.sigmoid() * c.tanh()
                assert torch.allclose(gates[row, t, half], i.sigmoid(), atol=1e-6), (row, t, suffix)


@pytest.mark.parametrize("arch", REPEVAL)
def test_repeval_encoders_ignore_padding_and_hypothesis_only_ignores_the_premise(arch: str) -> None:
    tokens = ["<pad>", "<unk>", "a", "dog", "runs", "über"]
    p, pl = torch.tensor([[2, 3, 4], [5, 0, 0]]), torch.tensor([3, 1])
    h, hl = torch.tensor([[3, 4], [2, 0]]), torch.tensor([2, 1])
    padded = torch.cat([p, torch.zeros(2, 4, dtype=torch.long)], dim=1)
    torch.manual_seed(0)
    model = build_model(arch, tokens, _settings()).eval()
    with torch.no_grad():
        assert torch.allclose(model(p, pl, h, hl), model(padded, pl, h, hl), atol=1e-6)
        alone = build_model(arch, tokens, _settings(hypothesis_only=True)).eval()
        other = torch.tensor([[4, 4, 4], [3, 2, 0]])
        assert torch.equal(alone(p, pl, h, hl), alone(other, torch.tensor([3, 2]), h, hl))
    if arch != "rc":  # nb: every lower layer; ch: the layer below, over words and characters
        inputs = [lstm.input_size for lstm in model.encoder.lstms]
        assert inputs == ([8, 8 + 2 * 4, 8 + 2 * (4 + 8)] if arch == "nb" else [14, 14 + 2 * 4, 14 + 2 * 8])
        assert [lstm.hidden_size for lstm in model.encoder.lstms] == [4, 8, 16]


def test_ch_ensemble_trains_members_apart_and_predicts_their_mean(world: dict, tmp_path: Path) -> None:
    """ensemble: 2 gives two differently initialised members; in training each gets its own
    logits, in evaluation the model returns log of their mean probability; it reloads bit-identically."""
    tokens = ["<pad>", "<unk>", "a", "dog"]
    p, pl, h, hl = torch.tensor([[2, 3]]), torch.tensor([2]), torch.tensor([[3]]), torch.tensor([1])
    model = build_model("ch", tokens, _settings(ensemble=2))
    assert isinstance(model, Ensemble) and model(p, pl, h, hl).shape == (2, 1, 3)
    model.eval()
    members = torch.stack([m(p, pl, h, hl).softmax(-1) for m in model.members])
    assert not torch.equal(members[0], members[1])
    assert torch.allclose(model(p, pl, h, hl).softmax(-1), members.mean(0), atol=1e-6)

    params = tiny_params(zoo={"ch": {"ensemble": 2, "train_rows": 300}}, training={"epochs": 1})
    out = tmp_path / "ch_ensemble"
    train(params, "ch", world["dev"], out)
    weights = load_file(out / "model.safetensors")
    assert {k.split(".")[1] for k in weights} == {"0", "1"}  # members.0.*, members.1.*
    sample = tmp_path / "snli_test_1000.parquet"
    pq.write_table(pq.read_table(world["test"]).slice(0, 1000), sample)
    first = predict(out, sample, tmp_path / "a.parquet")
    assert first.read_bytes() == predict(out, sample, tmp_path / "b.parquet").read_bytes()


def test_bad_encoder_settings_are_named() -> None:
    from nlistress.models.settings import model_spec

    # The shape comes from the schema, read through the section even on the Python API.
    with pytest.raises(ConfigError, match=r"^models.zoo.nb.layer_scale\[1\]: expected a value >= 1, got 0$"):
        model_spec(tiny_params(zoo={"nb": {"layer_scale": [1, 0]}}), "nb")
    with pytest.raises(ConfigError, match=r"^models.zoo.nb.dropuot: unknown key \(allowed here: .*\); did you mean 'dropout'"):
        model_spec(tiny_params(zoo={"nb": {"dropuot": 0.1}}), "nb")
    with pytest.raises(ConfigError, match=r"models.zoo.ch.char_widths: a filter of 5 characters is wider"):
        model_spec(tiny_params(zoo={"ch": {"char_max_length": 4}}), "ch")
    with pytest.raises(ConfigError, match=r"models: nb needs setting\(s\) layer_scale"):
        build_model("nb", ["<pad>", "<unk>"], {k: v for k, v in _settings().items() if k != "layer_scale"})
