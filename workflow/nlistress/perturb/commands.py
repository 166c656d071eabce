"""``nlistress perturb``, ``card``, ``sample-for-review``, ``combine-reviews``, ``import-review`` and
``release``: a set from a table, its card, its human review, and the release of the sets."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..cli_support import (
    add_params_options,
    base_params_file,
    key_values,
    params_from_args,
)
from ..config import load_params
from ..errors import ConfigError, NlistressError
from ..review import ANNOTATOR_KINDS

log = logging.getLogger("nlistress")


def cmd_perturb(args: argparse.Namespace) -> None:
    from .runner import build_set

    params = params_from_args(args)
    build_set(
        args.name, args.input, args.output, params,
        seed=args.seed, overrides=key_values(args.set or []), language=args.language,
        unlabelled=args.unlabelled, dropped=args.dropped,
    )  # fmt: skip


def cmd_card(args: argparse.Namespace) -> None:
    from ..cards import write_card

    write_card(args.set, args.output, params_from_args(args), args.review, args.audit, args.paper_review)


def cmd_sample_for_review(args: argparse.Namespace) -> None:
    from ..review import sample_for_review

    params = params_from_args(args)
    section = params.get("review") or {}
    n = args.n if args.n is not None else int(section.get("per_set", 100))
    seed = args.seed if args.seed is not None else int(section.get("seed", 0))
    written = sample_for_review(args.set, args.output, n, seed, all_pending=args.all_pending)
    log.info("%d rows to review -> %s", written, args.output)


def cmd_import_review(args: argparse.Namespace) -> None:
    from ..review import apply_review, import_review

    summary = import_review(args.review, args.set, args.output, annotators=args.annotators,
                            judged_by=args.judged_by, by=args.by)
    if summary["reviewed"]:
        rates = [("grammatical", summary["grammatical_rate"])]
        if summary["label_correct_rate"] is not None:
            rates.insert(0, ("label correct", summary["label_correct_rate"]))
        if "coherent_rate" in summary:
            rates.append(("coherent", summary["coherent_rate"]))
        log.info("%d rows reviewed: %s -> %s", summary["reviewed"],
                 ", ".join(f"{name} {100 * rate:.1f}%" for name, rate in rates), args.output)  # fmt: skip
    for value, group in (summary.get("by") or {}).get("groups", {}).items():
        rate = group["label_correct_rate"]
        log.info("  %s %s: %d rows, label correct %s, grammatical %.1f%%", args.by, value, group["reviewed"],
                 "-" if rate is None else f"{100 * rate:.1f}%", 100 * group["grammatical_rate"])  # fmt: skip
    if "annotations" in summary:
        log.info("%d rows labelled, %d incoherent, %d still need a label", len(summary["annotations"]),
                 len(summary["incoherent"]), summary["pending"])  # fmt: skip
    if args.apply:
        if len(args.set) != 1:
            raise ConfigError("import-review --apply: give exactly one --set")
        manifest = apply_review(args.set[0], args.output, args.apply)
        log.info("%d rows -> %s (%s)", manifest["output_rows"], args.apply, manifest["rows"]["dropped"])


def cmd_combine_reviews(args: argparse.Namespace) -> None:
    from ..review import combine_reviews

    counts = combine_reviews(args.reviews, args.output)
    log.info("%d rows from %d judges (they split on %d) -> %s", counts["rows"], counts["judges"],
             counts["split"], args.output)  # fmt: skip


def cmd_release(args: argparse.Namespace) -> None:
    from ..release import build_release

    entries = build_release(args.sets, args.output, params_from_args(args), args.reviews)
    rows = sum(e.rows for e in entries)
    log.info("released %d sets (%s rows) -> %s", len(entries), f"{rows:,}", args.output)


def _registered_tests() -> str:
    """Every test of every family, from the params a command would read (for ``--help``)."""
    base = base_params_file(announce=False)
    try:
        params = load_params([base] if base is not None else [])
    except NlistressError:
        return "see the `tests` of each family in params.yaml"
    return "; ".join(f"{family}: {', '.join((params.get(family) or {}).get('tests') or {})}"
                     for family in ("stress", "permute", "swap"))  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "perturb",
        help="build one test set (any family) from a canonical table or your own file",
        description="Run the generator of test NAME on IN (canonical .parquet, or .jsonl in an "
        "official NLI or AQuA-RAT format; its rows get the uids custom:<file stem>:<id or line>) "
        f"and write OUT.parquet plus its manifest. Tests in the registry: {_registered_tests()}.",
    )
    p.add_argument("name", help="test name, e.g. word_overlap")
    p.add_argument("-i", "--input", type=Path, required=True, help="input .parquet or .jsonl")
    p.add_argument("-o", "--output", type=Path, required=True, help="output .parquet path")
    p.add_argument("--seed", type=int, help="base seed (default: stress.seed)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a setting of the test, e.g. --set repeat=3 --set side=premise",
    )
    p.add_argument("--language", help="language of the text (default: the dataset's, else en)")
    p.add_argument("--unlabelled", action="store_true",
                   help="accept a .jsonl without a label field (its rows keep no gold label)")  # fmt: skip
    p.add_argument("--dropped", type=Path, metavar="PATH.parquet",
                   help="also write the pairs the precision filters dropped, each naming its filter "
                   "(perturbation_params.filter), to read or judge them; not a test set (antonymy)")  # fmt: skip
    add_params_options(p)
    p.set_defaults(func=cmd_perturb)

    p = sub.add_parser(
        "card",
        help="write the dataset card (Markdown) of a generated set",
        description="Render the card of SET from its manifest: what it tests, how it was built, "
        "counts and drops, examples, human-review rates (with --review), licence and citation.",
    )
    p.add_argument("set", type=Path, help="the set's .parquet (its manifest beside it)")
    p.add_argument("-o", "--output", type=Path, required=True, help="card .md path")
    p.add_argument("--review", type=Path, help="review summary JSON from import-review")
    p.add_argument("--audit", type=Path, help="artifact audit JSON from `nlistress audit`")
    p.add_argument("--paper-review", type=Path,
                   help="review summary of the paper-mode build of the same set: a default-mode card "
                   "quotes our rates on the authors' construction beside the paper's own figure")  # fmt: skip
    add_params_options(p)
    p.set_defaults(func=cmd_card)

    p = sub.add_parser(
        "sample-for-review",
        help="write a label-stratified sample of a set to CSV for annotators",
        description="Draw review.per_set rows (default 100), stratified by label and seeded, "
        "into a CSV with empty label_correct / grammatical / comment columns (swap sets also "
        "coherent / gold_label). Several sets are sampled together (e.g. AQuA-RAT dev and test); "
        "a set no larger than the sample is taken whole.",
    )
    p.add_argument("set", type=Path, nargs="+", help="the set's .parquet (one or more)")
    p.add_argument(
        "--all-pending",
        action="store_true",
        help="swap sets: export every needs_annotation row first (to label a whole set), then "
        "the sample of labelled rows",
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="CSV to write")
    p.add_argument("-n", type=int, help="sample size (default: review.per_set)")
    p.add_argument("--seed", type=int, help="seed (default: review.seed)")
    add_params_options(p)
    p.set_defaults(func=cmd_sample_for_review)

    p = sub.add_parser(
        "import-review",
        help="read a filled review CSV and summarise it for the card",
        description="Check a review CSV (yes/no answers, uids of SET) and write the label-"
        "correctness and grammaticality rates, with each set's sha256, to a JSON summary that "
        "`card --review` reads; for swap sets also the coherence rate, the gold_label given to "
        "needs_annotation rows and the rows marked incoherent.",
    )
    p.add_argument("review", type=Path, help="the filled CSV")
    p.add_argument(
        "--set", type=Path, required=True, action="append",
        help="a set the sample came from (repeat for a sample of several sets)",
    )  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="summary JSON to write")
    p.add_argument(
        "--annotators",
        choices=ANNOTATOR_KINDS,
        help="who filled in the answers: people, or a language model (an AI); the cards say "
        "it beside the rates, and only people's labels are published as expert-made",
    )
    p.add_argument("--judged-by", metavar="TEXT",
                   help="more on who judged, quoted on the cards (e.g. 'two linguists, blind')")
    p.add_argument("--by", metavar="KEY",
                   help="also give the rates for each value of this key of the rows' "
                   "perturbation_params (e.g. filter, for the pairs `perturb --dropped` wrote)")  # fmt: skip
    p.add_argument(
        "--apply",
        type=Path,
        metavar="OUT.parquet",
        help="sets with label_status: also write the set with the reviewers' labels filled in "
        "and the rows marked incoherent (coherent: no) removed (counted in OUT's manifest)",
    )
    p.set_defaults(func=cmd_import_review)

    p = sub.add_parser(
        "combine-reviews",
        help="make several judges' filled copies of one review CSV one CSV (yes only where all said yes)",
        description="Combine filled copies of one sample-for-review CSV, one per judge: an answer is "
        "no where any judge said no, yes where all said yes and blank otherwise; grammar_fault is edit "
        "where any judge blamed the edit; a gold_label is kept where the judges who gave one agree; "
        "each judge's comment is kept as 'judge k: ...'. The copies must hold the same rows.",
    )
    p.add_argument("reviews", type=Path, nargs="+", metavar="REVIEW", help="a judge's filled CSV (two or more)")
    p.add_argument("-o", "--output", type=Path, required=True, help="combined CSV to write (then import-review it)")
    p.set_defaults(func=cmd_combine_reviews)

    p = sub.add_parser(
        "release",
        help="assemble released sets with their cards and manifests, a Hugging Face dataset card, "
        "Croissant metadata and a catalogue",
        description="Check each set's sha256 against its manifest, copy set, manifest and card "
        "into OUTPUT/<family>/<test>/ and write README.md (a Hugging Face dataset card: "
        "`load_dataset(OUTPUT, '<family>-<test>')` reads it), croissant.json, and catalogue.json, "
        "catalogue.csv and CATALOGUE.md (paper, mode, rows, judged label quality, settings hash, "
        "code version, sha256, source licence). OUTPUT is replaced as a whole.",
    )
    p.add_argument("sets", nargs="+", type=Path, help="set Parquet files (data/sets/...)")
    p.add_argument("--reviews", nargs="*", type=Path, default=[], metavar="JSON",
                   help="review summaries (reviews/...): their rates are reported for the set "
                   "files they judged (matched by sha256)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="release folder")
    add_params_options(p)
    p.set_defaults(func=cmd_release)
