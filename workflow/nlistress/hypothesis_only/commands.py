"""``nlistress giveaway``, ``audit``, ``baselines`` and ``hypothesis-bow``."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import yaml

from ..cli_support import add_params_options, params_from_args
from ..errors import ConfigError
from ..perturb.runner import dataset_language
from .labelled import read_columns
from .settings import ArtifactSettings

log = logging.getLogger("nlistress")


def _tokenizer(args: argparse.Namespace, params: dict[str, Any], table: Path) -> str:
    """``--tokenizer``, else the one configured for the language of the table's dataset."""
    if args.tokenizer:
        return str(args.tokenizer)
    dataset = pc.min(read_columns(table, ["dataset"])["dataset"]).as_py()
    return ArtifactSettings.from_params(params).tokenizer_for(dataset_language(params, str(dataset)))


def cmd_giveaway(args: argparse.Namespace) -> None:
    from .giveaway import analyse_giveaway

    params = params_from_args(args)
    settings = ArtifactSettings.from_params(params)
    title = args.title or " + ".join(t.stem for t in args.table)
    summary = analyse_giveaway(
        args.table, args.output, settings, _tokenizer(args, params, args.table[0]), title
    )
    log.info(
        "%s: %d hypotheses, %d words -> %s", title, summary["rows"]["kept"], summary["vocabulary"],
        args.output,
    )  # fmt: skip


def cmd_audit(args: argparse.Namespace) -> None:
    from .audit import write_audit

    if (args.model is None) != (args.predictions is None):
        raise ConfigError("give --model and --predictions together (the model's predictions on --set)")
    model = None if args.model is None else (args.model, args.predictions)
    record = write_audit(args.set, args.output, params_from_args(args), model)
    if record["majority"] is None:
        log.info("%s: %s -> %s", args.set, record["hypothesis_only"]["why_not"], args.output)
        return

    def shown(result: dict[str, Any] | None) -> str:
        if result is None:
            return "not given"
        accuracy = result.get("accuracy")
        return result["why_not"] if accuracy is None else f"{100 * accuracy:.1f}%"

    log.info(
        "%s: %d rows audited, majority %.1f%%, hypothesis-only: bag-of-words %s, model %s -> %s",
        args.set, record["rows"]["kept"], 100 * record["majority"]["accuracy"],
        shown(record["hypothesis_only"]), shown(record["hypothesis_only_model"]), args.output,
    )  # fmt: skip


def _runs(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.runs:
        runs = yaml.safe_load(args.runs.read_text(encoding="utf-8"))
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise ConfigError(f"{args.runs}: expected a list of {{dataset, train, splits}}")
        return runs
    if args.dataset or args.train or args.split:
        if not (args.dataset and args.train and args.split):
            raise ConfigError("give --dataset, --train and --split NAME TABLE PREDICTIONS together")
        splits = {name: {"table": t, "predictions": p} for name, t, p in args.split}
        return [{"dataset": args.dataset, "train": args.train, "splits": splits}]
    return _runs_from_params(args)


def _runs_from_params(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Runs of ``artifacts.baselines``: canonical tables and the predictions of each dataset's predictor.

    The predictor of dataset D (trained on D's training split) wrote its
    predictions on evaluation split S/split to ``<predictions-dir>/D/S_split.parquet``.
    """
    if not (args.canonical_dir and args.predictions_dir):
        raise ConfigError(
            "give --dataset/--train/--split, --runs, or --canonical-dir and --predictions-dir "
            "to score every dataset in artifacts.baselines"
        )
    section = (params_from_args(args).get("artifacts") or {}).get("baselines") or {}
    runs = []
    for dataset, entry in section.items():
        where = f"artifacts.baselines.{dataset}"
        if not isinstance(entry, dict) or not isinstance(entry.get("train"), str):
            raise ConfigError(f"{where}: expected {{train: dataset/split, eval: [dataset/split, ...]}}")
        splits = {}
        for source in entry.get("eval") or []:
            source_dataset, _, split = str(source).partition("/")
            name = split if source_dataset == dataset else f"{source_dataset}_{split}"
            splits[name] = {
                "table": args.canonical_dir / f"{source}.parquet",
                "predictions": args.predictions_dir / dataset / f"{source_dataset}_{split}.parquet",
            }
        if splits:
            runs.append({
                "dataset": dataset, "train": args.canonical_dir / f"{entry['train']}.parquet",
                "splits": splits,
            })  # fmt: skip
    if not runs:
        raise ConfigError("artifacts.baselines: no dataset has evaluation splits")
    return runs


def cmd_baselines(args: argparse.Namespace) -> None:
    from ..predictions import prob_tolerance
    from .baselines import SplitInput, majority_of, score_split, write_baselines

    params = params_from_args(args)
    tolerance = prob_tolerance(params)
    results = []
    for i, run in enumerate(_runs(args)):
        missing = [k for k in ("dataset", "train", "splits") if not run.get(k)]
        if missing or not isinstance(run["splits"], dict):
            raise ConfigError(f"run {i + 1}: needs dataset, train and splits (name -> table, predictions)")
        majority, labels, _ = majority_of(run["train"])
        for name, entry in run["splits"].items():
            if not isinstance(entry, dict) or not entry.get("table") or not entry.get("predictions"):
                raise ConfigError(f"run {i + 1}, split {name}: needs table and predictions")
            split = SplitInput(str(name), Path(entry["table"]), Path(entry["predictions"]))
            result = score_split(str(run["dataset"]), split, majority, labels, tolerance)
            results.append({**result, "train": str(run["train"])})
    for path in write_baselines(results, args.output, args.predictor):
        log.info("wrote %s", path)


def cmd_hypothesis_bow(args: argparse.Namespace) -> None:
    from .baselines import bow_predictions

    params = params_from_args(args)
    settings = ArtifactSettings.from_params(params)
    rows = bow_predictions(
        args.train, args.table, args.output, _tokenizer(args, params, args.table),
        settings.lowercase, settings.alpha,
    )  # fmt: skip
    log.info("%d predictions -> %s", rows, args.output)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the artifact subcommands to the ``nlistress`` parser."""
    p = sub.add_parser(
        "giveaway",
        help="give-away words: p(l|w), top words per label, coverage curve (Poliak et al.)",
        description="Count, over the hypotheses of TABLE(s) (canonical Parquet, same label set), "
        "how many of each label contain each word, and write OUTDIR/top_words.{csv,md} (Figure "
        "13: top artifacts.top_k words per label with p(l|w) >= artifacts.top_min_p among words "
        "seen >= artifacts.min_frequency times, ranked by frequency), coverage.{csv,png} "
        "(Figure 6) and words.json (every word's counts and p(l|w)).",
    )
    p.add_argument("--table", type=Path, action="append", required=True, help="canonical table (repeatable)")
    p.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    p.add_argument("--title", help="name in the tables and figure (default: the table names)")
    p.add_argument("--tokenizer", help="whitespace, jieba or char (default: by the dataset's language)")
    add_params_options(p)
    p.set_defaults(func=cmd_giveaway)

    p = sub.add_parser(
        "audit",
        help="artifact audit of a generated set: majority, hypothesis-only accuracy, give-away words",
        description="Audit SET: majority-class accuracy within the set, the accuracy of a "
        "cross-validated bag-of-words naive Bayes on the hypotheses alone (a cheap proxy for a "
        "hypothesis-only model), with --model/--predictions the accuracy of a trained "
        "hypothesis-only model, and the strongest give-away words per label. Unlabelled rows and "
        "word reorderings of one example (permuted sets) are counted and left out. Writes JSON "
        "that `nlistress card --audit` shows.",
    )
    p.add_argument("--set", type=Path, required=True, help="the set's .parquet")
    p.add_argument("-o", "--output", type=Path, required=True, help="audit .json to write")
    p.add_argument("--model", type=Path,
                   help="a hypothesis-only model folder (nlistress train) to add its accuracy")  # fmt: skip
    p.add_argument("--predictions", type=Path, help="that model's predictions on SET (nlistress predict)")
    add_params_options(p)
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser(
        "baselines",
        help="Tables 2 and 3 (Poliak et al.): hypothesis-only vs majority accuracy",
        description="The majority label of the TRAIN split applied to each evaluation split, "
        "against hypothesis-only predictions (files in the `nlistress predict` format: uid, "
        "prediction, prob_<label>); writes table2/table3 (.md, .csv) and baselines.json to OUTDIR.",
    )
    p.add_argument("--dataset", help="dataset name for the tables")
    p.add_argument("--train", type=Path, help="canonical training table (majority label)")
    p.add_argument(
        "--split", nargs=3, action="append", metavar=("NAME", "TABLE", "PREDICTIONS"),
        help="an evaluation split: its name, canonical table and prediction file (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--runs", type=Path,
        help="YAML list of {dataset, train, splits: {NAME: {table, predictions}}} for many datasets",
    )  # fmt: skip
    p.add_argument(
        "--canonical-dir", type=Path,
        help="with --predictions-dir: score artifacts.baselines, tables at DIR/<dataset>/<split>.parquet",
    )  # fmt: skip
    p.add_argument(
        "--predictions-dir", type=Path,
        help="with --canonical-dir: the predictions of the model trained for dataset D on its "
        "evaluation split S/SPLIT at DIR/D/S_SPLIT.parquet",
    )  # fmt: skip
    p.add_argument(
        "--predictor", default="hypothesis-only model",
        help="what made the predictions, for the tables (e.g. infersent_hyp)",
    )  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    add_params_options(p)
    p.set_defaults(func=cmd_baselines)

    p = sub.add_parser(
        "hypothesis-bow",
        help="bag-of-words hypothesis-only predictions (cheap proxy model)",
        description="Fit multinomial naive Bayes on the hypotheses of TRAIN (artifacts.audit.alpha "
        "smoothing) and write predictions for every row of TABLE in the `nlistress predict` "
        "format (uid, prediction, prob_<label>).",
    )
    p.add_argument("--train", type=Path, action="append", required=True, help="training table (repeatable)")
    p.add_argument("--table", type=Path, required=True, help="table to predict")
    p.add_argument("-o", "--output", type=Path, required=True, help="predictions .parquet")
    p.add_argument("--tokenizer", help="whitespace, jieba or char (default: by the dataset's language)")
    add_params_options(p)
    p.set_defaults(func=cmd_hypothesis_bow)
