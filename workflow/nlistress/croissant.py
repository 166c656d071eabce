"""Croissant metadata (MLCommons, JSON-LD) of a release: ``croissant.json``.

Croissant is what dataset search engines and ML loaders (TFDS, PyTorch and JAX
data loaders, Kaggle, OpenML) read to find a dataset's files and their record
structure: one ``FileObject`` per Parquet file with its sha256, and one
``RecordSet`` per set whose fields point at the file's columns. The vocabulary
is Croissant 1.0's (http://mlcommons.org/croissant/1.0); ``mlcroissant``
validates the file in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from .dataset_card import FIELDS

#: Croissant 1.0's JSON-LD context (the spec's own term definitions)
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


class ReleasedSet(Protocol):
    """What Croissant needs of a released set (``release.CatalogueEntry`` has it)."""

    path: str
    sha256: str
    rows: int
    paper: str
    license: str

    @property
    def config(self) -> str: ...

    @property
    def hub_split(self) -> str: ...


def _data_type(arrow: pa.DataType) -> str:
    if pa.types.is_list(arrow):
        return _data_type(arrow.value_type)
    if pa.types.is_boolean(arrow):
        return "sc:Boolean"
    if pa.types.is_integer(arrow):
        return "sc:Integer"
    if pa.types.is_floating(arrow):
        return "sc:Float"
    return "sc:Text"


def _record_set(entry: ReleasedSet, schema: pa.Schema) -> dict[str, Any]:
    record = f"{entry.config}/{entry.hub_split}"
    return {
        "@type": "cr:RecordSet",
        "@id": record,
        "name": record,
        "description": f"{entry.rows:,} rows of {entry.config}, split {entry.hub_split} ({entry.paper}).",
        "field": [
            {
                "@type": "cr:Field",
                "@id": f"{record}/{field.name}",
                "name": field.name,
                "description": FIELDS.get(field.name, field.name),
                "dataType": _data_type(field.type),
                **({"repeated": True} if pa.types.is_list(field.type) else {}),
                "source": {"fileObject": {"@id": entry.path}, "extract": {"column": field.name}},
            }
            for field in schema
        ],
    }


def croissant(entries: Sequence[ReleasedSet], folder: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """The Croissant JSON-LD of the release in ``folder`` (paths relative to it)."""
    settings = params.get("release") or {}
    metadata: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": settings.get("title", "nlistress"),
        "description": "NLI robustness test sets (stress tests, word-pair swaps, word-order "
        "permutations) rebuilt from public NLI datasets; see README.md for how each was built "
        "and its measured label quality.",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "license": sorted({e.license for e in entries}),
        "citeAs": " ; ".join(sorted({e.paper for e in entries})),
        "distribution": [
            {
                "@type": "cr:FileObject",
                "@id": e.path,
                "name": e.path,
                "contentUrl": e.path,
                "encodingFormat": "application/x-parquet",
                "sha256": e.sha256,
            }
            for e in entries
        ],
        "recordSet": [_record_set(e, pq.read_schema(folder / e.path)) for e in entries],
    }
    if settings.get("url"):
        metadata["url"] = settings["url"]
    return metadata
