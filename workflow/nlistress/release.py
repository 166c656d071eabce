"""The release: every published set with its card and manifest, plus a catalogue.

``data/release/`` is what users fetch with ``dvc pull release``: a copy of each
released set (Parquet, manifest, dataset card) under
``<family>/<test>/<dataset>_<split>.*`` and a catalogue (JSON, CSV and
Markdown) naming each set's paper, row count, sha256 and the licence of the
data it was made from. DVC stores a file once per content hash, so the copies
cost nothing in the cache or on the remote.

Every check runs on the bytes that ship, after they are copied: the copy's
sha256 must equal its manifest's, its Parquet row count and label counts must
equal the manifest's, and its card must name that sha256. A set changed while
the release was being made, or a manifest edited to match a rewritten set, is
refused; a release never ships a file that differs from what its manifest and
card describe.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from .atomic import atomic_dir, sha256_file, write_json_atomic, write_text_atomic
from .errors import DataError
from .manifest import manifest_path
from .perturb import find_test, generator_class


@dataclass(frozen=True)
class CatalogueEntry:
    """One released set, as the catalogue lists it."""

    name: str
    family: str
    test: str
    dataset: str
    split: str
    paper: str
    rows: int
    sha256: str
    license: str
    path: str


def _card_path(set_path: Path) -> Path:
    return set_path.with_name(f"{set_path.stem}.card.md")


def _verify_shipped(set_path: Path, manifest: Mapping[str, Any], card: Path) -> str:
    """Check the copied set against its copied manifest and card; return its sha256."""
    digest = sha256_file(set_path)
    if digest != manifest.get("sha256"):
        raise DataError(set_path, f"sha256 {digest} differs from its manifest "
                        f"({manifest.get('sha256')}): the set changed; rebuild it")  # fmt: skip
    table = pq.read_table(set_path, columns=["label"])
    if table.num_rows != manifest.get("output_rows"):
        raise DataError(set_path, f"{table.num_rows} rows, its manifest says "
                        f"{manifest.get('output_rows')}: rebuild the set")  # fmt: skip
    labels = table["label"].value_counts().to_pylist()
    counts = {str(x["values"]): int(x["counts"]) for x in labels}
    if "labels" in manifest and counts != {str(k): int(v) for k, v in manifest["labels"].items()}:
        raise DataError(set_path, f"label counts {counts} differ from its manifest's "
                        f"{manifest['labels']}: rebuild the set")  # fmt: skip
    if digest not in card.read_text(encoding="utf-8"):
        raise DataError(card, f"does not name the set's sha256 {digest[:12]}…: rebuild the card")
    return digest


def _entry(set_path: Path, params: Mapping[str, Any]) -> CatalogueEntry:
    """Check a set against its manifest and describe it for the catalogue."""
    for needed in (manifest_path(set_path), _card_path(set_path)):
        if not needed.exists():
            raise DataError(needed, "missing: build the set's manifest and card before releasing")
    try:
        manifest = json.loads(manifest_path(set_path).read_text(encoding="utf-8"))
        test, dataset, split = (manifest["params"]["test"], manifest["dataset"],
                                manifest["split"])  # fmt: skip
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DataError(manifest_path(set_path), f"not a set manifest ({exc})") from None
    digest = sha256_file(set_path)
    if digest != manifest.get("sha256"):
        raise DataError(
            set_path, f"sha256 {digest} differs from its manifest ({manifest.get('sha256')}): rebuild it"
        )
    family, settings = find_test(params, test)
    source = (params.get("datasets") or {}).get(dataset) or {}
    return CatalogueEntry(
        name=f"{family}/{test}/{dataset}_{split}",
        family=family,
        test=test,
        dataset=dataset,
        split=split,
        paper=generator_class(settings["generator"]).cites,
        rows=pq.ParquetFile(set_path).metadata.num_rows,
        sha256=digest,
        license=str(source.get("license") or "unknown"),
        path=f"{family}/{test}/{set_path.name}",
    )


def _markdown(entries: Sequence[CatalogueEntry]) -> str:
    lines = [
        "# nlistress release catalogue",
        "",
        "Every released test set, with the paper it reproduces and the licence of the data it "
        "was generated from (a set inherits its source's licence). Each set's dataset card "
        "(`*.card.md`) says how it was built; its manifest (`*.manifest.json`) counts every "
        "row kept and dropped.",
        "",
        "| set | rows | source licence | paper | sha256 |",
        "|---|---:|---|---|---|",
    ]
    lines += [
        f"| `{e.name}` | {e.rows:,} | {e.license} | {e.paper} | `{e.sha256[:12]}…` |"
        for e in entries
    ]
    return "\n".join(lines) + "\n"


def _csv(entries: Sequence[CatalogueEntry]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(CatalogueEntry.__dataclass_fields__),
                            lineterminator="\n")  # fmt: skip
    writer.writeheader()
    writer.writerows(asdict(e) for e in entries)
    return out.getvalue()


def build_release(
    sets: Sequence[str | Path], output: str | Path, params: Mapping[str, Any]
) -> list[CatalogueEntry]:
    """Copy ``sets`` (with manifests and cards) into ``output`` and write the catalogue.

    The folder is replaced as a whole, so a release never mixes old and new sets.
    """
    checked = sorted(((_entry(Path(s), params), Path(s)) for s in sets), key=lambda x: x[0].name)
    entries = [entry for entry, _ in checked]
    names = [e.name for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(Path(output), f"released twice under one name: {', '.join(duplicates)}")
    with atomic_dir(output) as folder:
        for entry, set_path in checked:
            target = folder / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            for src in (set_path, manifest_path(set_path), _card_path(set_path)):
                shutil.copyfile(src, target.parent / src.name)
            shipped = json.loads(manifest_path(target).read_text(encoding="utf-8"))
            if _verify_shipped(target, shipped, _card_path(target)) != entry.sha256:
                raise DataError(set_path, "changed while the release was being made: release again")
        catalogue = [asdict(e) for e in entries]
        write_json_atomic(folder / "catalogue.json", {"count": len(catalogue), "sets": catalogue})
        write_text_atomic(folder / "catalogue.csv", _csv(entries))
        write_text_atomic(folder / "CATALOGUE.md", _markdown(entries))
    return entries
