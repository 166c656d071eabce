"""The ``nlistress`` command: one subcommand per pipeline step.

Snakemake rules call these subcommands, so each step runs the same way by
hand, in tests and on a cluster node. Configuration comes from params files
(``--params``, default ``params.yaml`` in the current folder) plus an optional
``--set-json`` object deep-merged on top, which is how rules pass the exact
config Snakemake resolved (including ``--configfile`` overrides).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .artifacts import commands as artifacts_commands
from .atomic import replacing_any_folder, write_json_atomic
from .canonical import prepare
from .cli_support import (
    add_params_options,
    add_runs_options,
    base_params_file,
    default_params_file,
    key_values,
    params_from_args,
    runs_from_args,
)
from .config import (
    DatasetSpec,
    DownloadSettings,
    DownloadSpec,
    PrepareSettings,
    load_params,
)
from .download import fetch
from .errors import ConfigError, NlistressError
from .models import commands as models_commands
from .report import commands as report_commands
from .swap import commands as swap_commands
from .swapstats import commands as swapstats_commands
from .threads import limit_threads

log = logging.getLogger("nlistress")

# Subcommands that live with their own stage's package: each module's
# `register(sub)` adds its parsers, so a stage's CLI sits next to its code.
_EXTENSIONS: list[Callable[[argparse._SubParsersAction], None]] = [
    artifacts_commands.register,
    swap_commands.register,
    swapstats_commands.register,
    models_commands.register,
    report_commands.register,
]


def cmd_download(args: argparse.Namespace) -> None:
    params = params_from_args(args)
    spec = DownloadSpec.from_params(params, args.name)
    dest = args.dest or Path("data/raw") / spec.name
    manifest = args.manifest or dest.with_name(f"{dest.name}.manifest.json")
    record = fetch(spec, DownloadSettings.from_params(params), dest, manifest)
    log.info(
        "%s: sha256 %s, %d files in %s", spec.name, record["sha256"], len(record["members"]), dest
    )


def cmd_prepare(args: argparse.Namespace) -> None:
    params = params_from_args(args)
    spec = DatasetSpec.from_params(params, args.dataset)
    split = spec.split(args.split)
    source_path, download_manifest_path = args.source, args.download_manifest
    if source_path is None and split.source.kind == "local":
        source_path = Path(split.source.path)
    if source_path is None and split.source.kind == "url":
        # Where `nlistress download` (and the Snakemake rule) put the member.
        raw = Path("data/raw")
        source_path = raw / split.source.download / split.source.member
        download_manifest_path = (
            download_manifest_path or raw / f"{split.source.download}.manifest.json"
        )
        if not download_manifest_path.exists():
            raise ConfigError(
                f"{args.dataset}/{args.split} comes from download {split.source.download!r}, which "
                f"is not in {raw}: run `nlistress download {split.source.download}` first, or pass --source"
            )
    download_manifest = None
    if download_manifest_path is not None:
        try:
            download_manifest = json.loads(download_manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"{download_manifest_path}: not a readable download manifest ({exc})"
            ) from None
        download_manifest.pop("members", None)  # the member checksums stay in data/raw
    manifest = prepare(
        spec,
        args.split,
        args.output,
        PrepareSettings.from_params(params),
        source_path=source_path,
        download_manifest=download_manifest,
    )
    rows = manifest["rows"]
    dropped = ", ".join(f"{n} {why}" for why, n in rows["dropped"].items()) or "none"
    log.info(
        "%s/%s: %d rows read, %d kept, dropped: %s -> %s",
        args.dataset,
        args.split,
        rows["input"],
        rows["kept"],
        dropped,
        args.output,
    )


def cmd_index(args: argparse.Namespace) -> None:
    """Summarise a dataset's canonical splits (rows, sha256, source) from their manifests."""
    splits = {}
    for path in args.manifests:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
        splits[manifest["split"]] = {
            "file": manifest["artifact"],
            "sha256": manifest["sha256"],
            "rows": manifest["rows"],
            "source": manifest["source"],
        }
    params = params_from_args(args)
    spec = DatasetSpec.from_params(params, args.dataset)
    write_json_atomic(
        args.output,
        {
            "dataset": spec.name,
            "title": spec.title,
            "homepage": spec.homepage,
            "license": spec.license,
            "citation": spec.citation,
            "splits": dict(sorted(splits.items())),
        },
    )


def cmd_perturb(args: argparse.Namespace) -> None:
    from .perturb.runner import build_set

    params = params_from_args(args)
    build_set(
        args.name, args.input, args.output, params,
        seed=args.seed, overrides=key_values(args.set or []), language=args.language,
        unlabelled=args.unlabelled,
    )  # fmt: skip


def cmd_card(args: argparse.Namespace) -> None:
    from .cards import write_card

    write_card(args.set, args.output, params_from_args(args), args.review, args.audit)


def cmd_sample_for_review(args: argparse.Namespace) -> None:
    from .review import sample_for_review

    params = params_from_args(args)
    section = params.get("review") or {}
    n = args.n if args.n is not None else int(section.get("per_set", 100))
    seed = args.seed if args.seed is not None else int(section.get("seed", 0))
    written = sample_for_review(args.set, args.output, n, seed, all_pending=args.all_pending)
    log.info("%d rows to review -> %s", written, args.output)


def cmd_import_review(args: argparse.Namespace) -> None:
    from .review import apply_review, import_review

    summary = import_review(args.review, args.set, args.output)
    if summary["reviewed"]:
        rates = [("grammatical", summary["grammatical_rate"])]
        if summary["label_correct_rate"] is not None:
            rates.insert(0, ("label correct", summary["label_correct_rate"]))
        if "coherent_rate" in summary:
            rates.append(("coherent", summary["coherent_rate"]))
        log.info("%d rows reviewed: %s -> %s", summary["reviewed"],
                 ", ".join(f"{name} {100 * rate:.1f}%" for name, rate in rates), args.output)  # fmt: skip
    if "annotations" in summary:
        log.info("%d rows labelled, %d incoherent, %d still need a label", len(summary["annotations"]),
                 len(summary["incoherent"]), summary["pending"])  # fmt: skip
    if args.apply:
        if len(args.set) != 1:
            raise ConfigError("import-review --apply: give exactly one --set")
        manifest = apply_review(args.set[0], args.output, args.apply)
        log.info("%d rows -> %s (%s)", manifest["output_rows"], args.apply, manifest["rows"]["dropped"])


UNLI_RUN_KEYS = ("model", "set", "predictions", "original_predictions", "canonical", "minitree")


def cmd_unli_metrics(args: argparse.Namespace) -> None:
    from .figures import FigureSize
    from .unli.metrics import MetricSettings, compute_metrics, write_tables

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
    from .unli.minitree import MinitreeSettings, build_train_statistic, pos_tagger
    from .unli.tokenize import tokenizer

    params = params_from_args(args)
    settings = MinitreeSettings.from_mapping((params.get("permute") or {}).get("minitree"))
    tokenize, _ = tokenizer(args.tokenizer)
    build_train_statistic(
        args.tables, args.output, pos_tagger(params), settings.radius, settings.batch_size,
        tokenize=tokenize, manifest_params={"radius": settings.radius, "tokenizer": args.tokenizer},
    )  # fmt: skip


def cmd_minitree_scores(args: argparse.Namespace) -> None:
    from .atomic import sha256_file
    from .unli.minitree import (
        MinitreeSettings,
        example_betas,
        load_train_statistic,
        pos_tagger,
        write_example_betas,
    )
    from .unli.tokenize import tokenizer

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


def cmd_release(args: argparse.Namespace) -> None:
    from .release import build_release

    entries = build_release(args.sets, args.output, params_from_args(args))
    rows = sum(e.rows for e in entries)
    log.info("released %d sets (%s rows) -> %s", len(entries), f"{rows:,}", args.output)


def cmd_datasets(args: argparse.Namespace) -> None:
    params = params_from_args(args)
    for name in params.get("datasets", {}):
        spec = DatasetSpec.from_params(params, name)
        for split in spec.splits.values():
            source = split.source.describe()
            where = " ".join(f"{k}={v}" for k, v in source.items() if v is not None and k != "kind")
            print(f"{name}\t{split.name}\t{split.source.kind}\t{where}")


def cmd_validate(args: argparse.Namespace) -> None:
    """Schema first (every key and type), then the checks that relate several values."""
    from .artifacts.settings import ArtifactSettings, hypothesis_only_model
    from .config import canonical_targets, test_targets
    from .models.settings import evaluation_targets, model_spec, runs

    params = params_from_args(args)
    canonical_targets(params)
    for name in params.get("datasets") or {}:
        DatasetSpec.from_params(params, name)
    for family in ("stress", "permute", "swap"):
        for key in ("sets", "augment"):
            test_targets(params, family, key)
    for name in (params.get("models") or {}).get("zoo") or {}:
        model_spec(params, name)
    runs(params)
    evaluation_targets(params)
    ArtifactSettings.from_params(params)
    hypothesis_only_model(params)
    files = " + ".join(str(f) for f in [base_params_file(), *(args.params or [])] if f is not None)
    print(f"{files}: valid (schema {__package__}/schemas/params.schema.yaml and the registry checks)")


def _registered_tests() -> str:
    """Every test of every family, from the params a command would read (for ``--help``)."""
    here = Path("params.yaml")
    try:
        params = load_params([here if here.is_file() else default_params_file()])
    except NlistressError:
        return "see the `tests` of each family in params.yaml"
    return "; ".join(f"{family}: {', '.join((params.get(family) or {}).get('tests') or {})}"
                     for family in ("stress", "permute", "swap"))  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nlistress",
        description="Build, version and score NLI robustness test suites.",
    )
    parser.add_argument("--version", action="version", version=f"nlistress {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "download",
        help="fetch one official archive or file, verify it and unpack it",
        description="Download a `downloads` entry of params.yaml with retries, check its sha256 "
        "against the pinned value, and unpack it into DEST, refusing archive members that would "
        "escape it. Writes a manifest with the archive and member checksums.",
    )
    p.add_argument("name", help="key under `downloads` in params.yaml, e.g. snli_1.0")
    p.add_argument("--dest", type=Path, help="target folder (default: data/raw/NAME)")
    p.add_argument("--manifest", type=Path, help="manifest path (default: DEST.manifest.json)")
    add_params_options(p)
    p.set_defaults(func=cmd_download)

    p = sub.add_parser(
        "prepare",
        help="canonicalise one dataset split into Parquet plus a manifest",
        description="Read one split in its official format (SNLI/MNLI/ANLI/OCNLI/AQuA-RAT JSON "
        "lines, or a HF dataset) and write the canonical Parquet table and a manifest with row "
        "counts, drops by reason, params and sha256.",
    )
    p.add_argument("dataset", help="dataset name in params.yaml, e.g. snli")
    p.add_argument("split", help="split name, e.g. dev")
    p.add_argument(
        "--source",
        type=Path,
        help="file to read (default: the split's source in params.yaml)",
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="output .parquet path")
    p.add_argument(
        "--download-manifest",
        type=Path,
        help="manifest of the download the source came from (its checksum is recorded)",
    )
    add_params_options(p)
    p.set_defaults(func=cmd_prepare)

    p = sub.add_parser(
        "index",
        help="write a dataset's index of canonical splits from their manifests",
        description="Collect the manifests of a dataset's canonical splits into one index "
        "(rows, sha256, source, licence, citation).",
    )
    p.add_argument("dataset")
    p.add_argument("manifests", nargs="+", type=Path, help="split manifests to index")
    p.add_argument("-o", "--output", type=Path, required=True)
    add_params_options(p)
    p.set_defaults(func=cmd_index)

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
        "--apply",
        type=Path,
        metavar="OUT.parquet",
        help="sets with label_status: also write the set with the reviewers' labels filled in "
        "and the rows marked incoherent (coherent: no) removed (counted in OUT's manifest)",
    )
    p.set_defaults(func=cmd_import_review)

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

    p = sub.add_parser(
        "release",
        help="assemble released sets with their cards and manifests, and a catalogue",
        description="Check each set's sha256 against its manifest, copy set, manifest and card "
        "into OUTPUT/<family>/<test>/ and write catalogue.json, catalogue.csv and CATALOGUE.md "
        "(paper, rows, sha256, source licence). OUTPUT is replaced as a whole.",
    )
    p.add_argument("sets", nargs="+", type=Path, help="set Parquet files (data/sets/...)")
    p.add_argument("-o", "--output", type=Path, required=True, help="release folder")
    add_params_options(p)
    p.set_defaults(func=cmd_release)

    p = sub.add_parser(
        "datasets",
        help="list the registry: every dataset split and its source",
        description="Print one tab-separated line per dataset split: name, split, source kind "
        "and location, after applying the params files.",
    )
    add_params_options(p)
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser(
        "validate",
        help="check params files (and overrides) against the schema, before any job runs",
        description="Merge the --params files and --set-json as every subcommand does, check the "
        "result against schemas/params.schema.yaml (unknown keys, types, allowed values) and the "
        "registry rules that relate several values; print one line naming the first problem's "
        "key path, or that the params are valid. The Snakefile runs the same check when it loads.",
    )
    add_params_options(p)
    p.set_defaults(func=cmd_validate)

    for register in _EXTENSIONS:
        register(sub)
    for command in sub.choices.values():
        command.add_argument(
            "--force", action="store_true",
            help="replace an existing output folder this tool did not create (default: refuse)",
        )  # fmt: skip
    return parser


#: argument names that hold what a command writes; every other path argument is read
OUTPUT_ARGS = ("output", "dest", "manifest")


def refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """An output file that is also an input (``perturb -i X -o X``) would destroy the user's data."""
    values = vars(args)
    inputs: dict[Path, str] = {}
    for name, value in values.items():
        if name in OUTPUT_ARGS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Path) and item.exists():
                inputs[item.resolve()] = name
    for name in OUTPUT_ARGS:
        out = values.get(name)
        # a folder may be both (`report --results results -o results` adds files to it)
        if isinstance(out, Path) and out.is_file() and out.resolve() in inputs:
            raise ConfigError(f"--{name} {out}: it is also the --{inputs[out.resolve()].replace('_', '-')} "
                              "input; refusing to overwrite an input (write somewhere else)")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="nlistress %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        refuse_overwriting_inputs(args)
        if getattr(args, "threads", None) is not None:
            limit_threads(args.threads)
        with replacing_any_folder(bool(getattr(args, "force", False))):
            args.func(args)
    except NlistressError as exc:
        print(f"nlistress: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlistress: interrupted; no partial output was kept", file=sys.stderr)
        return 130
    except OSError as exc:  # disk full, a name too long, permissions: the system's word for it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"nlistress: error: {where}{exc.strerror or exc}; no partial output was kept", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
