"""ALIGN (Naik et al.'s bag-of-words alignment baseline) on the real SNLI files.

Trained once on SNLI dev (3,000 seeded rows, the spaCy model of ../shared), it
must lower its loss, beat the majority class on all of SNLI test, reload and
retrain to the bit, and keep its features independent of word order. Its
Levenshtein distance is checked against the textbook dynamic programme.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch
from safetensors.torch import load_file

from nlistress.errors import ConfigError
from nlistress.models.align import (
    FEATURE_NAMES,
    FeatureSettings,
    Featurizer,
    levenshtein,
    pair_features,
    pipeline_id,
    pos_pipeline,
)
from nlistress.models.predict import load_predictor
from nlistress.models.score import score_set
from nlistress.models.settings import model_spec

from .models_support import CPU, PREDICT, majority_share, predict, snli_tables, tiny_params, train
from .support import canonical_table

MARGIN = 0.08  # accuracy points above the majority class (observed: 53.9 % against 34.3 %)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("align")
    params = tiny_params(training={"train_rows": 3000})
    dev, test = snli_tables(params, folder)
    out = folder / "align"
    metrics = train(params, "align", dev, out)
    preds = predict(out, test, folder / "align.parquet", params)
    return {"folder": folder, "params": params, "dev": dev, "test": test, "dir": out,
            "metrics": metrics, "predictions": preds, "score": score_set(test, preds)}  # fmt: skip


def test_loss_falls_and_beats_majority(world: dict) -> None:
    losses = [m["train_loss"] for m in world["metrics"]]
    assert len(losses) == world["params"]["models"]["zoo"]["align"]["epochs"]
    assert losses[-1] < losses[0]
    majority = majority_share(world["test"])
    score = world["score"]
    assert score["rows"]["scored"] == 9824
    assert score["accuracy"] > majority + MARGIN, score["accuracy"]


def test_model_directory(world: dict) -> None:
    model_dir = world["dir"]
    config = json.loads((model_dir / "config.json").read_text())
    assert (config["kind"], config["arch"]) == ("align", "align")
    assert config["settings"]["language"] == "en"
    assert config["train"]["rows"]["kept"] == 3000
    record = json.loads((model_dir / "features.json").read_text())
    assert record["names"] == list(FEATURE_NAMES)
    assert record["spacy_pipeline"] == pipeline_id(pos_pipeline(world["params"]))  # name and version
    assert record["spacy_pipeline"].endswith("-3.8.0")
    assert record["features"]["pos_weights"]["NOUN"] == 1.0
    weights = load_file(model_dir / "model.safetensors")
    assert weights["feature_mean"].shape == weights["feature_std"].shape == (len(FEATURE_NAMES),)
    assert weights["classifier.weight"].shape == (3, len(FEATURE_NAMES))  # logistic regression
    assert (weights["feature_std"] > 0).all()
    assert not (model_dir / "vocab.json").exists()


def test_reload_and_retrain_are_bit_identical(world: dict, tmp_path: Path) -> None:
    reloaded = predict(world["dir"], world["test"], tmp_path / "again.parquet", world["params"])
    assert reloaded.read_bytes() == world["predictions"].read_bytes()
    again = tmp_path / "again"
    train(world["params"], "align", world["dev"], again)
    for name in ("model.safetensors", "features.json", "config.json", "metrics.json", "train.log"):
        assert (again / name).read_bytes() == (world["dir"] / name).read_bytes(), name


def test_features_ignore_word_order(world: dict) -> None:
    """A bag of words: shuffling each side's words leaves every feature bit-identical."""
    settings = FeatureSettings.from_settings(model_spec(world["params"], "align").settings, "align")
    predictor = load_predictor(world["dir"], PREDICT, CPU, world["params"])
    featurizer: Featurizer = predictor.featurizer
    table = pq.read_table(world["test"], columns=["premise", "hypothesis"]).slice(0, 300).to_pandas()
    words = featurizer.words([*table["premise"], *table["hypothesis"]])
    rng = random.Random(0)
    for premise, hypothesis in zip(table["premise"], table["hypothesis"], strict=True):
        p, h = list(words[premise]), list(words[hypothesis])
        before = pair_features(p, h, settings)
        rng.shuffle(p)
        rng.shuffle(h)
        assert pair_features(p, h, settings) == before


def test_levenshtein_matches_the_dynamic_programme() -> None:
    def reference(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
        return row[-1]

    rng = random.Random(2018)
    for _ in range(3000):
        a, b = ("".join(rng.choice("abcé") for _ in range(rng.randint(0, 12))) for _ in range(2))
        assert levenshtein(a, b) == reference(a, b), (a, b)
    assert levenshtein("kitten", "sitting") == 3


def test_bad_settings_and_inputs_are_one_line_errors(world: dict, tmp_path: Path) -> None:
    params = world["params"]
    bad = tiny_params(zoo={"align": {"features": {"pos_weights": {"NOUNS": 1.0}}}})
    with pytest.raises(ConfigError, match=r"^models.zoo.align.features.pos_weights.NOUNS: unknown key \(allowed here: ADJ, ADP,"):
        model_spec(bad, "align")
    with pytest.raises(ConfigError, match="models.zoo.align.hypothesis_only: align aligns"):
        model_spec(tiny_params(zoo={"align": {"hypothesis_only": True}}), "align")
    # Chinese training data: the POS weights need an English tagger.
    ocnli = canonical_table(params, "ocnli", "dev", "ocnli/dev.json", tmp_path)
    with pytest.raises(ConfigError, match="ALIGN weighs words by English POS tags, but its training data is in 'zh'"):
        train(params, "align", ocnli, tmp_path / "zh")
    # Another spaCy pipeline than the model was trained with gives other tags: refused.
    edited = tmp_path / "edited"
    shutil.copytree(world["dir"], edited)
    record = json.loads((edited / "features.json").read_text())
    (edited / "features.json").write_text(json.dumps({**record, "spacy_pipeline": "en_core_web_sm-3.7.1"}))
    with pytest.raises(ConfigError, match=r"trained with the tags of en_core_web_sm-3\.7\.1, this is .*-3\.8\.0"):
        load_predictor(edited, PREDICT, torch.device("cpu"), params)
