"""Encoder models on OCNLI (Chinese): jieba words, the real OCNLI train sample and dev.

A tiny CBOW trained on the real ``ocnli/train.10k.json`` (canonicalised through the
registry's ``ocnli`` entry, whose ``language: zh`` picks ``models.text.tokenizers.zh``)
reads jieba words, records them in ``vocab.json``, lowers its loss, beats the majority
class on OCNLI dev, reloads to the bit and runs on a Chinese stress set. Its predictions
on a permuted OCNLI dev set reach Sinha et al.'s Table 3 in the report, and the shipped
params send every OCNLI row of that table to a model trained on OCNLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from nlistress.config import deep_merge
from nlistress.models.score import score_set
from nlistress.models.settings import evaluation_targets, model_spec, split_of
from nlistress.models.text import Vocabulary, tokenize
from nlistress.permutations.metrics import MetricSettings, compute_metrics, write_tables
from nlistress.perturb.runner import build_set
from nlistress.report.ours import Found, OurResults
from nlistress.report.papers import load_papers

from .models_support import majority_share, predict, tiny_params, train
from .support import canonical_table, project_params

MARGIN = 0.03  # accuracy points above the majority class (observed: 42.8 % against 37.4 %)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("ocnli")
    # All 10,000 rows, 3 epochs: OCNLI is harder than SNLI for a bag of embeddings.
    params = tiny_params(training={"train_rows": None, "epochs": 3})
    train_table = canonical_table(params, "ocnli", "train", "ocnli/train.10k.json", folder)
    dev = canonical_table(params, "ocnli", "dev", "ocnli/dev.json", folder)
    out = folder / "models" / "cbow" / "plain"
    metrics = train(params, "cbow", train_table, out)
    preds = predict(out, dev, folder / "cbow_dev.parquet")
    return {"folder": folder, "params": params, "dev": dev, "dir": out, "metrics": metrics,
            "predictions": preds, "score": score_set(dev, preds)}  # fmt: skip


def test_jieba_words_loss_falls_and_beats_majority(world: dict) -> None:
    config = json.loads((world["dir"] / "config.json").read_text())
    assert config["settings"]["language"] == "zh" and config["settings"]["tokenizer"] == "jieba"
    vocab = Vocabulary.load(world["dir"] / "vocab.json")
    assert vocab.tokenizer == "jieba"  # what predict reads the sets with
    assert {"我们", "没有", "一个"} <= set(vocab.tokens)  # jieba words, not characters or whole clauses
    assert tokenize("我们没有去北京。", True, "jieba") == ["我们", "没有", "去", "北京", "。"]
    losses = [m["train_loss"] for m in world["metrics"]]
    assert len(losses) == 3 and losses[-1] < losses[0]
    score = world["score"]
    assert score["rows"]["scored"] == 2950  # the 50 rows without a gold label are dropped
    assert score["accuracy"] > majority_share(world["dev"]) + MARGIN, score["accuracy"]


def test_reload_is_bit_identical(world: dict, tmp_path: Path) -> None:
    again = predict(world["dir"], world["dev"], tmp_path / "again.parquet")
    assert again.read_bytes() == world["predictions"].read_bytes()


def test_chinese_stress_set(world: dict) -> None:
    """The negation distraction (假不是真 appended to each hypothesis) built from OCNLI dev."""
    stress = world["folder"] / "negation_ocnli_dev.parquet"
    build_set("negation", world["dev"], stress, world["params"])
    hypothesis = pq.read_table(stress, columns=["hypothesis"])["hypothesis"][0].as_py()
    assert "并且假不是真" in hypothesis
    score = score_set(stress, predict(world["dir"], stress, world["folder"] / "cbow_negation.parquet"))
    assert score["rows"]["scored"] == 2950 and 0 < score["accuracy"] < 1


def test_permuted_ocnli_reaches_sinha_table3(world: dict) -> None:
    """Our OCNLI-trained run's metrics on a permuted OCNLI dev set fill a Table 3 cell.

    Here the zoo's ``cbow`` (trained on OCNLI above) stands for the paper's InferSent,
    through ``report.models`` exactly as the shipped params map ``infersent_ocnli``.
    """
    data, results = world["folder"] / "data", world["folder"] / "results"
    permuted = data / "sets" / "permute" / "permute" / "ocnli_dev.parquet"
    permuted.parent.mkdir(parents=True)
    build_set("permute", world["dev"], permuted, world["params"], overrides={"q": 2})
    preds = predict(world["dir"], permuted, world["folder"] / "cbow_permuted.parquet")
    params = {**world["params"], "report": {"models": {"sinha2021": {"InferSent trained on OCNLI": "cbow"}}}}
    params["models"] = {**params["models"], "runs": {"cbow": ["plain"]}}
    settings = MetricSettings.from_mapping(params["permute"]["metrics"])
    result = compute_metrics("cbow.plain", permuted, preds, world["predictions"], world["dev"], settings)
    write_tables([result], results / "unli")
    table = next(t for p in load_papers() if p.id == "sinha2021" for t in p.tables if t.id == "table3_A")
    row = next(i for i, r in enumerate(table.rows) if r.label == "InferSent")
    found = OurResults(results, data, params).lookup(table, table.cell_link(row, 0))
    assert isinstance(found, Found), found
    assert found.value == pytest.approx(result.summary["A"]) and 0.3 < found.value < 0.6


def test_shipped_params_train_table3_models_on_ocnli_and_evaluate_them_on_chinese_sets() -> None:
    params = project_params()
    runs = params["models"]["runs"]
    table = next(t for p in load_papers() if p.id == "sinha2021" for t in p.tables if t.id == "table3_A")
    mapping = params["report"]["models"]["sinha2021"]
    for row in table.rows:
        model = mapping[row.link["model"]]
        assert split_of(params, "train_split", model) == ("ocnli", "train"), model
        assert split_of(params, "dev_split", model) == ("ocnli", "dev"), model
        targets = evaluation_targets(params, model)
        assert ("canonical", "", "ocnli", "dev") in targets and ("permute", "permute", "ocnli", "dev") in targets
        assert {dataset for _, _, dataset, _ in targets} == {"ocnli"}, model
        if model_spec(params, model).kind == "encoder":  # the Chinese RoBERTa needs a safetensors copy
            assert runs[model] == ["plain"], model
    # The MNLI-trained models keep the English sets, and only those.
    english = {dataset for _, _, dataset, _ in evaluation_targets(params, "infersent")}
    assert "ocnli" not in english and {"mnli", "snli"} <= english


def test_a_zoo_entry_can_keep_to_some_families() -> None:
    """`evaluate_families: [stress]` keeps the canonical splits and the stress sets, nothing else."""
    params = deep_merge(project_params(), {"models": {"zoo": {"nb": {"evaluate_families": ["stress"]}}}})
    everything = evaluation_targets(params, "infersent")
    kept = evaluation_targets(params, "nb")
    assert {family for family, *_ in everything} >= {"canonical", "stress", "permute", "swap"}
    assert kept == [t for t in everything if t[0] in ("canonical", "stress")]
