"""``nlistress stats``: the word-pair swap statistics from sets and predictions."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..cli_support import add_params_options, add_runs_options, params_from_args, runs_from_args
from ..errors import ConfigError

log = logging.getLogger("nlistress")

_SINGLE = ("model", "control", "transformed", "predictions_control", "predictions_transformed")


def _runs(args: argparse.Namespace) -> list[dict]:
    """The runs to analyse: ``--runs`` / ``--runs-json``, or one run from the single-run options."""
    runs = runs_from_args(args, _SINGLE)
    if runs is None:
        return [{k: getattr(args, k) for k in _SINGLE}]
    given = [f"--{k.replace('_', '-')}" for k in _SINGLE if getattr(args, k)]
    if given:
        raise ConfigError(f"--runs replaces {', '.join(given)}; give one or the other")
    return runs


def cmd_stats(args: argparse.Namespace) -> None:
    from .analysis import Run, analyse
    from .hypothesis_tests import StatsSettings
    from .report import write_report

    params = params_from_args(args)
    settings = StatsSettings.from_mapping((params.get("swap") or {}).get("stats"))
    where = str(args.runs) if args.runs else "--runs-json" if args.runs_json else "options"
    runs = [Run.from_mapping(run, f"{where}: run {i + 1}") for i, run in enumerate(_runs(args))]
    analysis = analyse(runs, settings)
    for path in write_report(analysis, args.output):
        log.debug("wrote %s", path)
    rejected = sum(t.result.verdict == "reject" for t in analysis.tests)
    log.info(
        "%d models, %d samples, %d tests (%d rejected at alpha %g after %s) -> %s",
        len(analysis.models), len(analysis.samples), len(analysis.tests), rejected,
        settings.alpha, settings.correction, args.output,
    )  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``stats`` to the ``nlistress`` command."""
    p = sub.add_parser(
        "stats",
        help="word-pair swap statistics and the paper's Table 1 (Sanchez et al. 2018)",
        description="From a model's predictions on a control swap set (I_A, E_A, I_H, E_H) and "
        "on its transformed set (I_TA1-3, E_TA, I_TH, E_TH): McNemar's test (control vs "
        "transformed), chi-square independence (insensitivity; polarity x prediction) and "
        "homogeneity (seen vs unseen pairs), with Yates' correction or Fisher's exact test on "
        "small 2x2 tables and a Bonferroni correction per model (swap.stats in params.yaml). "
        "Writes table1.{md,csv,tex}, tests.{md,csv,tex}, accuracy.csv, the contingency tables "
        "and stats.json to OUT. Prediction files: Parquet or JSON lines with `uid` and "
        "`prediction`. Rows without a gold label are left out of the statistics and counted.",
    )
    p.add_argument("--model", help="model name (letters, digits, _ . + -)")
    p.add_argument("--control", type=Path, help="control swap set (.parquet)")
    p.add_argument(
        "--transformed", type=Path,
        help="transformed swap set (.parquet; default: --control, for a set holding both)",
    )
    p.add_argument("--predictions-control", type=Path, help="predictions on the control set")
    p.add_argument(
        "--predictions-transformed", type=Path,
        help="predictions on the transformed set (default: --predictions-control)",
    )  # fmt: skip
    add_runs_options(p, _SINGLE, "one Table 1 for many models and experiments")
    p.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    add_params_options(p)
    p.set_defaults(func=cmd_stats)
