"""``nlistress download``, ``prepare``, ``index``, ``datasets`` and ``validate``: the data registry's
commands, from an official file to a canonical table, and the check of the params behind them."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from .atomic import write_json_atomic
from .canonical import prepare
from .cli_support import (
    add_params_options,
    base_params_file,
    params_from_args,
)
from .config import (
    DatasetSpec,
    DownloadSettings,
    DownloadSpec,
    PrepareSettings,
)
from .download import fetch
from .errors import ConfigError

log = logging.getLogger("nlistress")


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
    from .config import canonical_targets, test_targets
    from .hypothesis_only.settings import ArtifactSettings, hypothesis_only_model
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


def register(sub: argparse._SubParsersAction) -> None:
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
