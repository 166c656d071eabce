"""`nlistress train / predict / score` on the real SNLI files, the model card, GloVe loading, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import torch
import yaml
from safetensors.torch import load_file

from nlistress.atomic import sha256_file
from nlistress.cli import main
from nlistress.models.encoders import ARCHS
from nlistress.models.text import Vocabulary
from nlistress.report.render import card_link

from .models_support import snli_tables, tiny_params


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A CBOW trained through the CLI on 2,000 real SNLI dev rows, and its test predictions."""
    folder = tmp_path_factory.mktemp("models_cli")
    params = tiny_params(training={"epochs": 1, "train_rows": 2000})
    params_file = folder / "params.yaml"
    params_file.write_text(yaml.safe_dump(params), encoding="utf-8")
    dev, test = snli_tables(params, folder)
    model = folder / "cbow"
    common = ["--params", str(params_file)]
    assert main(["train", "cbow", "--train", str(dev), "--dev", str(test), "-o", str(model), *common]) == 0
    preds = folder / "preds.parquet"
    assert main(["predict", "--model", str(model), "--set", str(test), "-o", str(preds), *common]) == 0
    return {"folder": folder, "params": params, "file": params_file, "common": common,
            "dev": dev, "test": test, "model": model, "preds": preds}  # fmt: skip


def test_train_records_dev_accuracy(cli: dict) -> None:
    metrics = json.loads((cli["model"] / "metrics.json").read_text())
    assert len(metrics) == 1 and 0.34 < metrics[0]["dev_accuracy"] < 1.0
    config = json.loads((cli["model"] / "config.json").read_text())
    assert set(config["train"]["inputs"]) == {"train", "dev"}


def test_train_writes_a_model_card(cli: dict) -> None:
    """README.md next to the weights: architecture and paper, the data with sha256 and rows, every
    setting, the dev curve, the weights' file and sha256, the label order; the report links it."""
    model = cli["model"]
    card = (model / "README.md").read_text(encoding="utf-8")
    config = json.loads((model / "config.json").read_text())
    metrics = json.loads((model / "metrics.json").read_text())
    assert card.startswith("---\ntags:") and "# Model card: `cbow` (training variant `plain`)" in card
    assert ARCHS["cbow"].summary in card and ARCHS["cbow"].paper in card
    assert "Training variant `plain`: the train split alone." in card
    for role, rows in (("train", 9842), ("dev", 9824)):
        entry = config["train"]["inputs"][role]
        assert entry["rows"] == rows
        assert f"| {role} | `{entry['path']}` | {rows} | `{entry['sha256']}` |" in card
    assert "Rows read 9,842, trained on 2,000; dropped: not in the seeded training sample" in card
    assert "| lr | `0.001` |" in card and '| lr_policy.kind | `"constant"` |' in card
    assert "| embedding_dim | `50` |" in card and "| train_rows | `2000` |" in card
    [epoch] = metrics
    assert (f"| 1 (kept) | {epoch['train_loss']:.4f} | {epoch['dev_accuracy']:.4f} | "
            f"{epoch['dev_loss']:.4f} | {epoch['lr']:.3g} |") in card  # fmt: skip
    for name in ("model.safetensors", "vocab.json", "config.json", "metrics.json", "train.log"):
        path = model / name
        assert f"| `{name}` | {path.stat().st_size} | `{sha256_file(path)}` |" in card
    assert "0 `entailment`, 1 `neutral`, 2 `contradiction`" in card
    assert card_link(model, model.parent) == "; [model card](cbow/README.md)"


def test_score_own_jsonl_matches_parquet(cli: dict, tmp_path: Path) -> None:
    """A user's JSON-lines predictions score exactly like the same predictions in Parquet."""
    table = pq.read_table(cli["preds"], columns=["uid", "prediction"]).to_pandas()
    own = tmp_path / "mine.jsonl"
    own.write_text("".join(json.dumps(r) + "\n" for r in table.to_dict("records")), encoding="utf-8")
    out_a, out_b = tmp_path / "a.json", tmp_path / "b.json"
    for preds, out in ((cli["preds"], out_a), (own, out_b)):
        assert main(["score", "--model", "cbow", "--set", str(cli["test"]), "--predictions",
                     str(preds), "-o", str(out), *cli["common"]]) == 0  # fmt: skip
    a, b = json.loads(out_a.read_text()), json.loads(out_b.read_text())
    assert a["sets"][0]["accuracy"] == b["sets"][0]["accuracy"]
    result = a["sets"][0]
    assert result["set"] == "canonical/snli_test"
    gold = pq.read_table(cli["test"], columns=["label"])["label"].to_pandas()
    errors = gold.to_numpy() != table["prediction"].to_numpy()
    assert result["errors"] == int(errors.sum())
    assert result["false_neutral_share"] == pytest.approx(
        (table["prediction"][errors] == "neutral").mean()
    )
    assert "| canonical/snli_test | 9824 |" in out_a.with_suffix(".md").read_text()
    csv = pd.read_csv(out_a.with_suffix(".csv"))
    assert csv.loc[0, "rows"] == 9824 and csv.filter(like="_").shape[1] >= 9


def test_glove_initialises_embeddings(cli: dict, tmp_path: Path) -> None:
    """Frozen GloVe rows reach the saved weights unchanged; unknown words keep random vectors."""
    vocab = Vocabulary.load(cli["model"] / "vocab.json")
    words = vocab.tokens[2:12]  # real SNLI words, most frequent first
    glove = tmp_path / "glove.txt"
    vectors = {w: [round(0.01 * (i + 1) * (j + 1), 4) for j in range(50)] for i, w in enumerate(words)}
    glove.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in vectors.items()),
                     encoding="utf-8")  # fmt: skip
    params = tiny_params(training={"epochs": 1, "train_rows": 2000, "glove": str(glove),
                                   "freeze_embeddings": True})  # fmt: skip
    params_file = tmp_path / "params.yaml"
    params_file.write_text(yaml.safe_dump(params), encoding="utf-8")
    model = tmp_path / "cbow_glove"
    assert main(["train", "cbow", "--train", str(cli["dev"]), "-o", str(model),
                 "--params", str(params_file)]) == 0  # fmt: skip
    emb = load_file(model / "model.safetensors")["embedding.weight"]
    for word, vector in vectors.items():
        assert torch.equal(emb[vocab.index[word]], torch.tensor(vector, dtype=torch.float32))
    assert "glove: 10 of" in (model / "train.log").read_text()


def _fails(capsys: pytest.CaptureFixture[str], argv: list[str], *needles: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("nlistress: error:")
    for needle in needles:
        assert needle in err, err


def test_bad_input(cli: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = cli["common"]
    # unknown architecture in the zoo
    params = tiny_params(zoo={"mystery": {"arch": "transformerish"}})
    bad_params = tmp_path / "bad.yaml"
    bad_params.write_text(yaml.safe_dump(params), encoding="utf-8")
    _fails(capsys, ["train", "mystery", "--train", str(cli["dev"]), "-o", str(tmp_path / "m"),
                    "--params", str(bad_params)], "models.zoo.mystery.arch", "transformerish")  # fmt: skip
    assert not (tmp_path / "m").exists()
    # a variant without its augmentation file
    _fails(capsys, ["train", "cbow", "--variant", "negation", "--train", str(cli["dev"]),
                    "-o", str(tmp_path / "m"), *common], "negation augmentation")  # fmt: skip
    # missing model directory
    _fails(capsys, ["predict", "--model", str(tmp_path / "nope"), "--set", str(cli["test"]),
                    "-o", str(tmp_path / "p.parquet"), *common], "nope", "model directory not found")  # fmt: skip
    # a set without the hypothesis column
    broken = tmp_path / "broken.parquet"
    pq.write_table(pq.read_table(cli["test"]).drop(["hypothesis"]), broken)
    _fails(capsys, ["predict", "--model", str(cli["model"]), "--set", str(broken),
                    "-o", str(tmp_path / "p.parquet"), *common], "broken.parquet", "hypothesis")  # fmt: skip
    assert not (tmp_path / "p.parquet").exists()
    # predictions that miss uids of the set
    partial = tmp_path / "partial.parquet"
    pq.write_table(pq.read_table(cli["preds"]).slice(0, 9000), partial)
    _fails(capsys, ["score", "--strict", "--model", "cbow", "--set", str(cli["test"]), "--predictions",
                    str(partial), "-o", str(tmp_path / "s.json"), *common],
           "partial.parquet", "no prediction for 824")  # fmt: skip
    assert not (tmp_path / "s.json").exists()
