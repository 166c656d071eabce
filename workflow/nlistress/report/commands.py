"""``nlistress report``: the papers' numbers beside ours (results/REPORT.md)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..cli_support import add_params_options, params_from_args

log = logging.getLogger("nlistress")


def config_note(params: Mapping[str, Any]) -> str:
    """One paragraph on what this run trained on and where its datasets came from."""
    models = params.get("models") or {}
    local = sorted(
        f"{name}/{split}"
        for name, entry in (params.get("datasets") or {}).items()
        for split, spec in (entry.get("splits") or {}).items()
        if split in ((params.get("canonical_splits") or {}).get(name) or [])
        and (spec.get("source") or {}).get("kind") == "local"
    )
    where = (f"{len(local)} dataset splits were read from local copies ({', '.join(local)}), "
             "not the official downloads" if local else "Datasets come from the official sources")  # fmt: skip
    # Models whose zoo entry names its own training split (the OCNLI models of Sinha et al.'s Table 3).
    zoo, by_split = models.get("zoo") or {}, {}
    for name, variants in (models.get("runs") or {}).items():
        if variants and "train_split" in (zoo.get(name) or {}):
            by_split.setdefault(str(zoo[name]["train_split"]), []).append(str(name))
    others = "".join(f", {', '.join(sorted(names))} on `{split}`" for split, names in sorted(by_split.items()))
    return (
        f"This run: models trained on `{models.get('train_split')}` (dev `{models.get('dev_split')}`){others} "
        f"(the papers train on the full training sets); {where}. Where our training data or "
        "model sizes differ from a paper's, the differences below measure that too."
    )


def cmd_report(args: argparse.Namespace) -> None:
    from .ours import OurResults
    from .papers import PAPERS_DIR, load_papers
    from .render import write_report

    params = params_from_args(args)
    papers = load_papers(args.papers or PAPERS_DIR)
    ours = OurResults(args.results, args.data, params)
    for path in write_report(papers, ours, args.output, config_note(params)):
        log.debug("wrote %s", path)
    log.info("%d papers, report -> %s", len(papers), args.output / "REPORT.md")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``nlistress report`` to the parser."""
    p = sub.add_parser(
        "report",
        help="REPORT.md: every paper table, the paper's numbers beside ours",
        description="Read the papers' printed numbers (workflow/nlistress/report/papers/*.yaml) "
        "and this run's results, and write OUT/REPORT.md (each table, paper / ours / "
        "difference, why a cell is empty, which runs and training data produced ours), "
        "OUT/report.csv (every cell) and OUT/tables/<paper>/<table>.{md,csv,tex} (our numbers "
        "in the paper's layout). report.models in params maps the papers' model names to ours.",
    )
    p.add_argument("--results", type=Path, default=Path("results"), help="results folder (default results)")
    p.add_argument("--data", type=Path, default=Path("data"), help="data folder (default data)")
    p.add_argument("--papers", type=Path, help="folder of paper files (default: the packaged ones)")
    p.add_argument("-o", "--output", type=Path, default=Path("results"), help="output folder (default results)")
    add_params_options(p)
    p.set_defaults(func=cmd_report)
