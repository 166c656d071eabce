"""Canonical tables: every dataset split in one schema, every dropped row counted.

The canonical NLI table is what all test-set builders read; the AQuA-RAT table
feeds the numerical-reasoning stress test. Rows keep their source order and a
stable ``uid`` (``<dataset>:<split>:<source id>``) so any derived example can
be traced back to the line it came from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from .atomic import sha256_file
from .config import DatasetSpec, PrepareSettings
from .errors import DataError
from .manifest import RowCounts, write_manifest
from .parquet_io import write_parquet
from .readers import Row, RowSource, open_source, text_problem

NLI_SCHEMA = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("dataset", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("premise", pa.string(), nullable=False),
        pa.field("hypothesis", pa.string(), nullable=False),
        pa.field("label", pa.string()),
        pa.field("label_id", pa.int8()),
        pa.field("source_id", pa.string(), nullable=False),
        pa.field("genre", pa.string()),
    ]
)

AQUA_SCHEMA = pa.schema(
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("dataset", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("question", pa.string(), nullable=False),
        pa.field("options", pa.list_(pa.string()), nullable=False),
        pa.field("rationale", pa.string(), nullable=False),
        pa.field("correct", pa.string(), nullable=False),
        pa.field("answer", pa.string()),
        pa.field("source_id", pa.string(), nullable=False),
    ]
)

# Why a row was dropped; these strings are the keys of the manifest's `dropped`.
DROP_NO_GOLD = "no gold label"
DROP_EMPTY_TEXT = "empty premise or hypothesis"
DROP_ANSWER_NOT_IN_OPTIONS = "correct answer not among the options"

_OPTION = re.compile(r"^\s*([A-Za-z])\s*\)\s*(.*)$", re.DOTALL)


def _first_present(fields: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in fields and fields[name] is not None:
            return name, fields[name]
    return None, None


def _unless_blank(value: Any) -> Any:
    """``None`` for an empty string: an empty CSV/TSV cell means "no value", as in JSON."""
    return None if value == "" else value


class _SourceIds:
    """Source ids of a split: the source's own id, or the row position; duplicates refused."""

    def __init__(self, rows: RowSource) -> None:
        self._rows = rows
        self._seen: dict[str, int] = {}

    def take(self, row: Row, value: Any) -> str:
        if isinstance(value, dict | list | bool | float):
            raise self._rows.error(row.position, f"id must be a string or an integer, got {value!r}"[:200])
        source_id = str(value) if value is not None else str(row.position)
        first = self._seen.setdefault(source_id, row.position)
        if first != row.position:
            raise self._rows.error(
                row.position,
                f"duplicate id {source_id!r} (first seen at {self._rows.unit} {first}); "
                "uids must be unique within a split",
            )
        return source_id


def _text(rows: RowSource, row: Row, names: tuple[str, ...], what: str) -> str | None:
    """The text of a required field; ``None`` when it is empty (caller applies the policy)."""
    name, value = _first_present(row.fields, names)
    if name is None:
        raise rows.error(row.position, f"missing {what} (expected field {' or '.join(names)})")
    if not isinstance(value, str):
        raise rows.error(
            row.position, f"field {name!r} ({what}) must be a string, got {type(value).__name__}"
        )
    if problem := text_problem(value):
        raise rows.error(row.position, f"field {name!r} ({what}) {problem}")
    return value if visible(value) else None


def visible(text: str) -> bool:
    """Whether ``text`` has a character a reader sees (not only spaces, NBSP, zero-width marks)."""
    return any(not (ch.isspace() or unicodedata.category(ch) in ("Cf", "Zs")) for ch in text)


def _empty(
    rows: RowSource, row: Row, what: str, settings: PrepareSettings, counts: RowCounts
) -> None:
    if settings.empty_text == "error":
        raise rows.error(
            row.position,
            f"empty {what}; fix the file or set prepare.empty_text: drop to drop such rows",
        )
    counts.drop(DROP_EMPTY_TEXT)


def build_nli_table(
    rows: RowSource, spec: DatasetSpec, split: str, labelled: bool, settings: PrepareSettings
) -> tuple[pa.Table, RowCounts]:
    """Map rows of an official NLI file onto the canonical NLI schema."""
    cols = spec.columns
    label_ids = {label: i for i, label in enumerate(spec.labels)}
    ids = _SourceIds(rows)
    counts = RowCounts()
    out: dict[str, list[Any]] = {name: [] for name in NLI_SCHEMA.names}
    for row in rows.rows:
        counts.input += 1
        premise = _text(rows, row, cols["premise"], "premise")
        hypothesis = _text(rows, row, cols["hypothesis"], "hypothesis")
        label = None
        if labelled:
            name, raw = _first_present(row.fields, cols["label"])
            if name is None:
                raise rows.error(
                    row.position,
                    f"missing label (expected field {' or '.join(cols['label'])}); "
                    "if the split has no labels, set labelled: false for it",
                )
            raw = str(raw)
            if raw in spec.drop_labels:
                counts.drop(DROP_NO_GOLD)
                continue
            label = spec.label_map.get(raw, raw)
            if label not in label_ids:
                allowed = sorted({*spec.labels, *spec.label_map, *spec.drop_labels})
                raise rows.error(
                    row.position,
                    f"unknown label {raw!r} in field {name!r} (expected one of {allowed})",
                )
        if premise is None:
            _empty(rows, row, "premise", settings, counts)
            continue
        if hypothesis is None:
            _empty(rows, row, "hypothesis", settings, counts)
            continue
        # An empty CSV/TSV cell means "no value", as an absent JSON field does.
        source_id = ids.take(row, _unless_blank(_first_present(row.fields, cols["id"])[1]))
        genre = _unless_blank(_first_present(row.fields, cols["genre"])[1])
        out["uid"].append(f"{spec.name}:{split}:{source_id}")
        out["dataset"].append(spec.name)
        out["split"].append(split)
        out["premise"].append(premise)
        out["hypothesis"].append(hypothesis)
        out["label"].append(label)
        out["label_id"].append(label_ids[label] if label is not None else None)
        out["source_id"].append(source_id)
        out["genre"].append(None if genre is None else str(genre))
        counts.kept += 1
    counts.check()
    return pa.Table.from_pydict(out, schema=NLI_SCHEMA), counts


def build_aqua_table(
    rows: RowSource, spec: DatasetSpec, split: str, labelled: bool, settings: PrepareSettings
) -> tuple[pa.Table, RowCounts]:
    """Map AQuA-RAT problems onto the canonical AQuA table (options kept verbatim)."""
    ids = _SourceIds(rows)
    counts = RowCounts()
    out: dict[str, list[Any]] = {name: [] for name in AQUA_SCHEMA.names}
    for row in rows.rows:
        counts.input += 1
        question = _text(rows, row, ("question",), "question")
        rationale = _text(rows, row, ("rationale",), "rationale")
        options = row.fields.get("options")
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise rows.error(row.position, "field 'options' must be a list of strings")
        correct = row.fields.get("correct")
        if not isinstance(correct, str) or not correct.strip():
            raise rows.error(row.position, "field 'correct' must be an option letter such as 'A'")
        if question is None:
            _empty(rows, row, "question", settings, counts)
            continue
        letters = {}
        for option in options:
            match = _OPTION.match(option)
            if match:
                letters.setdefault(match.group(1).upper(), match.group(2).strip())
        correct = correct.strip().upper()
        if correct not in letters:
            counts.drop(DROP_ANSWER_NOT_IN_OPTIONS)
            continue
        source_id = ids.take(row, None)
        out["uid"].append(f"{spec.name}:{split}:{source_id}")
        out["dataset"].append(spec.name)
        out["split"].append(split)
        out["question"].append(question)
        out["options"].append(options)
        out["rationale"].append(rationale or "")
        out["correct"].append(correct)
        out["answer"].append(letters[correct])
        out["source_id"].append(source_id)
        counts.kept += 1
    counts.check()
    return pa.Table.from_pydict(out, schema=AQUA_SCHEMA), counts


BUILDERS: dict[str, Callable[..., tuple[pa.Table, RowCounts]]] = {
    "nli": build_nli_table,
    "aqua": build_aqua_table,
}


def prepare(
    spec: DatasetSpec,
    split: str,
    output: str | Path,
    settings: PrepareSettings,
    source_path: str | Path | None = None,
    download_manifest: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Canonicalise one split into ``output`` and write its manifest; return the manifest.

    ``source_path`` is the file to read (for url/local sources, or a user's own
    file); without it, a HF source is loaded with ``datasets``.
    ``download_manifest`` (for url sources) is copied into the manifest so the
    archive checksum travels with the DVC-tracked output.
    """
    split_spec = spec.split(split)
    source = split_spec.source
    rows = open_source(source, source_path, spec.format)
    table, counts = BUILDERS[spec.table](rows, spec, split, split_spec.labelled, settings)
    if rows.selection is not None and counts.input == 0:
        raise DataError(
            rows.origin, f"no row matches source.select {dict(source.select)} of {spec.name}/{split}"
        )
    if counts.kept == 0:
        raise DataError(
            rows.origin, f"no rows kept out of {counts.input} ({counts.as_dict()['dropped']})"
        )
    write_parquet(table, output, settings.parquet_compression)
    source_info = source.describe()
    if source_path is not None:
        source_info |= {"path": str(source_path), "sha256": sha256_file(source_path)}
    if download_manifest is not None:
        source_info["download"] = dict(download_manifest)
    if rows.selection is not None:
        source_info["select"] = rows.selection.describe()
    manifest = write_manifest(
        output,
        counts,
        source_info,
        {
            "dataset": spec.describe(),
            "labelled": split_spec.labelled,
            "prepare": {
                "empty_text": settings.empty_text,
                "parquet_compression": settings.parquet_compression,
            },
        },
        dataset=spec.name,
        split=split,
        columns=table.schema.names,
        license=spec.license,
    )
    return manifest
