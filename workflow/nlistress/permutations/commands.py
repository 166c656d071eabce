"""``nlistress unli-metrics``, ``minitree-stat`` and ``minitree-scores``: the permutation metrics of
Sinha et al. (2021) from a model's predictions, and the POS mini-tree statistic."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..cli_support import (
    add_params_options,
    add_runs_options,
    params_from_args,
    runs_from_args,
)
from ..errors import ConfigError

log = logging.getLogger("nlistress")

# The keys of one run of `unli-metrics --runs` (a model on a permuted set).
UNLI_RUN_KEYS = ("model", "set", "predictions", "original_predictions", "canonical", "minitree")


def cmd_unli_metrics(args: argparse.Namespace) -> None:
    from ..figures import FigureSize
    from .metrics import MetricSettings, compute_metrics, write_tables

    params = params_from_args(args)
    section = (params.get("permute") or {}).get("metrics")
    settings = MetricSettings.from_mapping(section)
    figure = FigureSize.from_mapping((section or {}).get("figure"), "permute.metrics.figure")
    runs = runs_from_args(args, UNLI_RUN_KEYS)
    if runs is None:
        runs = [{
            "model": args.model, "set": args.set, "predictions": args.predictions,
            "original_predictions": args.original_predictions, "canonical": args.canonical,
            "minitree": args.minitree,
        }]  # fmt: skip
    results = []
    for i, run in enumerate(runs):
        missing = [k for k in ("model", "set", "predictions", "original_predictions", "canonical")
                   if not run.get(k)]  # fmt: skip
        if missing:
            raise ConfigError(f"run {i + 1}: missing {', '.join(missing)}")
        results.append(compute_metrics(
            str(run["model"]), run["set"], run["predictions"], run["original_predictions"],
            run["canonical"], settings, minitree_path=run.get("minitree"),
        ))  # fmt: skip
    for path in write_tables(results, args.output, figure=figure):
        log.info("wrote %s", path)


def cmd_minitree_stat(args: argparse.Namespace) -> None:
    from .minitree import MinitreeSettings, build_train_statistic, pos_tagger
    from .tokenize import tokenizer

    params = params_from_args(args)
    settings = MinitreeSettings.from_mapping((params.get("permute") or {}).get("minitree"))
    tokenize, _ = tokenizer(args.tokenizer)
    build_train_statistic(
        args.tables, args.output, pos_tagger(params), settings.radius, settings.batch_size,
        tokenize=tokenize, manifest_params={"radius": settings.radius, "tokenizer": args.tokenizer},
    )  # fmt: skip


def cmd_minitree_scores(args: argparse.Namespace) -> None:
    from ..atomic import sha256_file
    from .minitree import (
        MinitreeSettings,
        example_betas,
        load_train_statistic,
        pos_tagger,
        write_example_betas,
    )
    from .tokenize import tokenizer

    params = params_from_args(args)
    settings = MinitreeSettings.from_mapping((params.get("permute") or {}).get("minitree"))
    tokenize, joiner = tokenizer(args.tokenizer)
    stat = load_train_statistic(args.stat, settings.radius)
    frame = example_betas(
        args.set, args.canonical, stat, pos_tagger(params), settings.k, settings.batch_size,
        tokenize=tokenize, joiner=joiner,
    )  # fmt: skip
    source = {str(p): sha256_file(p) for p in (args.set, args.canonical, args.stat)}
    write_example_betas(frame, args.output, source, {"k": settings.k, "radius": settings.radius})


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "unli-metrics",
        help="permutation-acceptance metrics and the paper's tables (Sinha et al.)",
        description="From a model's predictions on a permuted set and on the original examples, "
        "compute A, Ω_max, Ω_rand, the Ω_x curve, P^c, P^f, flips, entropy on accepted "
        "permutations, acceptance by BLEU and by length (and by POS mini-tree overlap with "
        "--minitree), and write Tables 2/3 and 7 (Markdown, CSV, LaTeX) and the figures (data as "
        "CSV, PNG drawn at permute.metrics.figure) to OUT. Prediction files: Parquet or JSON lines with `uid` and `prediction`, optionally "
        "`prob_entailment`, `prob_neutral`, `prob_contradiction` or `entropy`.",
    )
    p.add_argument("--model", help="model name for the tables")
    p.add_argument("--set", type=Path, help="permuted set (.parquet)")
    p.add_argument("--predictions", type=Path, help="predictions on the permuted set")
    p.add_argument("--original-predictions", type=Path, help="predictions on the originals")
    p.add_argument("--canonical", type=Path, help="canonical table of the original split")
    p.add_argument("--minitree", type=Path, help="per-example β^k scores (minitree-scores)")
    add_runs_options(p, UNLI_RUN_KEYS, "for one table over many models and sets")
    p.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    add_params_options(p)
    p.set_defaults(func=cmd_unli_metrics)

    p = sub.add_parser(
        "minitree-stat",
        help="POS mini-tree train statistic ψ_r (Sinha et al. equation 4)",
        description="Tag the premises and hypotheses of TABLES (canonical Parquet) with spaCy "
        "UPOS and write, per word type, the mean distribution of tags within permute.minitree."
        "radius tokens.",
    )
    p.add_argument("tables", nargs="+", type=Path, help="canonical training table(s)")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument(
        "--tokenizer", default="whitespace", help="as the permuted sets (default whitespace)"
    )
    add_params_options(p)
    p.set_defaults(func=cmd_minitree_stat)

    p = sub.add_parser(
        "minitree-scores",
        help="β^k of each example and of its permutations, against a train statistic",
        description="For every example of a permuted set: β^k of the original sentences, the mean "
        "over its permutations (words keep their original tags) and their ratio; the input of "
        "`unli-metrics --minitree` (Figure 4).",
    )
    p.add_argument("--set", type=Path, required=True, help="permuted set (.parquet)")
    p.add_argument("--canonical", type=Path, required=True, help="canonical table of the originals")
    p.add_argument("--stat", type=Path, required=True, help="train statistic from minitree-stat")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument(
        "--tokenizer", default="whitespace", help="the set's tokenizer (default whitespace)"
    )
    add_params_options(p)
    p.set_defaults(func=cmd_minitree_scores)
