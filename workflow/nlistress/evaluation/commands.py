"""``nlistress evaluate``: one model, every built set (or those named), one report."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..cli_support import add_params_options, params_from_args

log = logging.getLogger("nlistress")


def cmd_evaluate(args: argparse.Namespace) -> None:
    from ..figures import FigureSize
    from ..models.commands import configure_threads
    from ..models.settings import resolve_device
    from .report import write_report
    from .run import evaluate
    from .sets import describe_set, discover_sets
    from .specs import parse_spec

    params = params_from_args(args)
    configure_threads(params)
    section = params.get("evaluate") or {}
    spec = parse_spec(args.model, args.variant, args.name)
    sets = ([describe_set(path) for path in args.sets] if args.sets
            else discover_sets(args.data, tuple(section.get("families") or ())))  # fmt: skip
    log.info("evaluating %s on %d set(s) -> %s", spec.name, len(sets), args.output)
    evaluation = evaluate(spec, sets, args.output, params, args.data, resolve_device(params),
                          args.strict, args.base_url, args.cache)  # fmt: skip
    figure = FigureSize.from_mapping(section.get("figure"), "evaluate.figure")
    for path in write_report(evaluation, args.output, figure):
        log.info("wrote %s", path)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="one model on every built set: scores, each paper's metrics, one report",
        description="Run (or read the answers of) one model on every built set of "
        "evaluate.families under DATA/sets, or on the --sets named, and write OUT/REPORT.md, "
        "OUT/evaluation.json and OUT/figures/: accuracy with bootstrap intervals, false-neutral "
        "share and the hypothesis-only gap on every set, Naik et al.'s stress tests beside the "
        "paper's range, Sinha et al.'s permutation acceptance (OUT/permute/), Sanchez et al.'s "
        "swap statistics (OUT/swap/) and breakdowns by genre / category / experiment. Answers "
        "are kept in OUT/predictions/, so a rerun (or a killed run) only computes what is missing.",
    )
    p.add_argument("--model", required=True,
                   help="a model folder (nlistress train, or your own Hugging Face checkpoint), a zoo name "
                   "(data/models/NAME/VARIANT), predictions:FILE_OR_FOLDER, llm:PATH_OR_NAME or openai:MODEL")  # fmt: skip
    p.add_argument("--variant", default="plain", help="with a zoo name: which training variant (default plain)")
    p.add_argument("--name", help="the model's name in the tables (default: from --model)")
    p.add_argument("--sets", type=Path, nargs="+", help="sets to evaluate on (default: every built set)")
    p.add_argument("--data", type=Path, default=Path("data"), help="the pipeline's data folder (default data)")
    p.add_argument("--base-url", help="openai: the endpoint, e.g. http://127.0.0.1:8000/v1 (or models.openai.base_url)")
    p.add_argument("--cache", help="openai: response cache file (default models.openai.cache)")
    p.add_argument("--strict", action="store_true",
                   help="predictions: a labelled row without a prediction, or a prediction for a uid in no "
                   "evaluated set, is an error")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    add_params_options(p)
    p.set_defaults(func=cmd_evaluate)
