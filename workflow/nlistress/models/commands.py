"""``nlistress train``, ``predict`` and ``score``: the model half of the pipeline."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..cli_support import add_params_options, params_from_args
from ..errors import ConfigError
from ..threads import configured_threads, set_torch_threads

log = logging.getLogger("nlistress")


def configure_threads(params: Mapping[str, Any]) -> None:
    """torch's CPU threads: the job's ``--threads``, else ``models.threads`` (null: torch's default)."""
    threads = configured_threads()
    if threads is None:
        threads = (params.get("models") or {}).get("threads")
        if threads is None:
            return
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"models.threads: expected a positive integer or null, got {threads!r}")
    set_torch_threads(threads)


def cmd_train(args: argparse.Namespace) -> None:
    from .settings import model_spec, resolve_device, seed
    from .train import train_model

    params = params_from_args(args)
    configure_threads(params)
    spec = model_spec(params, args.model)
    augment = {role: path for role, path in (("negation", args.negation), ("permuted", args.permuted))
               if path is not None}  # fmt: skip
    metrics = train_model(spec, args.variant, args.train, args.dev, augment, args.output,
                          seed(params), resolve_device(params), params)  # fmt: skip
    last = metrics[-1] if metrics else {}
    log.info("%s (%s): %d epoch(s), last %s -> %s", spec.name, args.variant, len(metrics), last,
             args.output)  # fmt: skip


def cmd_predict(args: argparse.Namespace) -> None:
    from .data import as_parquet_set
    from .predict import load_predictor, predict_set
    from .settings import predict_settings, resolve_device

    params = params_from_args(args)
    configure_threads(params)
    model_dir = args.model
    if not model_dir.exists() and args.model.name == str(args.model):
        model_dir = Path("data/models") / args.model.name / args.variant  # a zoo name
    settings = predict_settings(params)
    predictor = load_predictor(model_dir, settings, resolve_device(params), params)
    with as_parquet_set(args.set, params) as (set_path, _):  # its drops are logged as it is read
        rows = predict_set(predictor, set_path, args.output, int(settings["chunk_rows"]))
    log.info("%d predictions of %s on %s -> %s", rows, model_dir, args.set, args.output)


def cmd_score(args: argparse.Namespace) -> None:
    from ..atomic import sha256_file
    from ..predictions import prob_tolerance
    from .data import as_parquet_set
    from .score import ScoreSettings, score_set, write_scores

    params = params_from_args(args)
    tolerance = prob_tolerance(params)
    settings = ScoreSettings.from_params(params)
    sets, predictions = args.set or [], args.predictions or []
    if not sets or len(sets) != len(predictions):
        raise ConfigError("score: give one --predictions per --set, in the same order")
    results = []
    for set_path, prediction_path in zip(sets, predictions, strict=True):
        with as_parquet_set(set_path, params) as (parquet, read):
            result = score_set(parquet, prediction_path, tolerance, settings, args.strict)
        if read is not None:  # a .jsonl: record the user's file, and the rows reading it dropped
            result.update(set_path=str(set_path), set_sha256=sha256_file(set_path))
            result["rows"]["read"] = read.as_dict()
        results.append(result)
        rows = result["rows"]
        if rows["unscored"]["no prediction"] or rows["extra_predictions"]:
            log.warning("%s: %d labelled rows without a prediction (not scored), %d predictions for "
                        "uids not in the set (ignored); --strict makes either an error", set_path,
                        rows["unscored"]["no prediction"], rows["extra_predictions"])  # fmt: skip
    for path in write_scores(args.model, results, args.output, args.metrics):
        log.info("wrote %s", path)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train one zoo model (one training variant) into a model directory",
        description="Train models.zoo.MODEL on a canonical train split plus the variant's "
        "augmentation (negation: --negation twins; permute: --permuted copies; max_entropy: the "
        "permuted copies under the maximum-entropy objective) and write OUT/ atomically: "
        "config.json, metrics.json, train.log, the weights (model.safetensors + vocab.json, "
        "model.safetensors + features.json for ALIGN, or hf/ for transformers) and README.md, "
        "the model card (architecture and paper, data with sha256, settings, dev curve, files "
        "with sha256, label order). The text is read in the language of the train table's "
        "dataset (models.text.tokenizers: jieba words for Chinese).",
    )
    p.add_argument("model", help="name in models.zoo, e.g. infersent")
    p.add_argument("--variant", default="plain",
                   help="plain, negation, permute or max_entropy (default plain)")  # fmt: skip
    p.add_argument("--train", type=Path, required=True, help="canonical train split (.parquet)")
    p.add_argument("--dev", type=Path, help="canonical dev split for per-epoch accuracy")
    p.add_argument("--negation", type=Path, help="negation_augmented file (variant negation)")
    p.add_argument("--permuted", type=Path, help="permute_train file (permute, max_entropy)")
    p.add_argument("-o", "--output", type=Path, required=True, help="model directory to write")
    add_params_options(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "predict",
        help="run a trained model on a set; write per-row labels, probabilities, entropy",
        description="Stream SET (any Parquet with uid, premise, hypothesis) through the model in "
        "chunks of models.predict.chunk_rows, length-bucketed batches, mixed precision on GPU, "
        "and write uid, prediction, one prob_<label> per label of the model (prob_entailment, "
        "prob_neutral, prob_contradiction for a 3-way model), entropy (nats) in input order.",
    )
    p.add_argument("--model", type=Path, required=True,
                   help="model directory, or a zoo name (then data/models/NAME/VARIANT)")  # fmt: skip
    p.add_argument("--variant", default="plain", help="with a zoo name: which variant (default plain)")
    p.add_argument("--set", type=Path, required=True, help="set or canonical split (.parquet)")
    p.add_argument("-o", "--output", type=Path, required=True, help="predictions .parquet to write")
    add_params_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "score",
        help="accuracy with its bootstrap interval, confusion matrix, false-neutral share and "
        "breakdowns per set (JSON, Markdown, CSV)",
        description="Score predictions (from `nlistress predict`, or your own JSON lines with uid "
        "and prediction) against the gold labels of each set: accuracy with a bootstrap "
        "confidence interval (models.score), confusion matrix, the share of errors predicted "
        "neutral (Naik et al. Table 4), and accuracy per genre / category / experiment where the "
        "set has those columns. Rows without a prediction and predictions for uids not in the "
        "set are counted and reported (--strict: an error). Writes OUT.json, OUT.md, OUT.csv.",
    )
    p.add_argument("--model", required=True, help="model name for the tables")
    p.add_argument("--set", type=Path, action="append", help="a set (.parquet); repeat")
    p.add_argument("--predictions", type=Path, action="append",
                   help="predictions on the --set at the same position (.parquet or .jsonl)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="scores .json (plus .md, .csv)")
    p.add_argument("--strict", action="store_true",
                   help="a labelled row without a prediction, or a prediction for a uid not in the "
                   "set, is an error (the pipeline's setting)")  # fmt: skip
    p.add_argument("--metrics", type=Path,
                   help="also write accuracy, false-neutral share and rows per set alone (for `dvc metrics`)")  # fmt: skip
    add_params_options(p)
    p.set_defaults(func=cmd_score)
