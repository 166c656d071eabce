"""Readers that turn a source (JSON-lines, CSV/TSV file or HF dataset) into located rows.

Each row comes with its position (1-based line in a file, 0-based row for a HF
split) so that every later error can say exactly where the bad input is.
"""

from __future__ import annotations

import csv
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import FileFormat, SourceSpec
from .errors import ConfigError, DataError
from .progress import with_progress

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Row:
    """One source record and where it came from."""

    position: int
    fields: dict[str, Any]


@dataclass
class Selection:
    """The rows of a file holding several splits that make up one split.

    SICK ships its three SemEval splits in one ``SICK.txt`` with a column naming
    each pair's split. The rows of the other splits are not this split's input,
    so they are not "dropped"; they are counted here and written to the manifest
    so the file's every row is accounted for.
    """

    where: tuple[tuple[str, str], ...]
    rows_in_source: int = 0
    rows_of_other_splits: int = 0

    def filter(self, rows: Iterator[Row], origin: str, unit: str) -> Iterator[Row]:
        for row in rows:
            self.rows_in_source += 1
            missing = [field for field, _ in self.where if field not in row.fields]
            if missing:
                raise DataError(
                    origin,
                    f"no field {missing[0]!r}, which source.select reads to find the split's rows",
                    row.position,
                    unit,
                )
            if all(str(row.fields[field]) == value for field, value in self.where):
                yield row
            else:
                self.rows_of_other_splits += 1

    def describe(self) -> dict[str, Any]:
        return {
            "where": dict(self.where),
            "rows_in_source": self.rows_in_source,
            "rows_of_other_splits": self.rows_of_other_splits,
        }


@dataclass(frozen=True)
class RowSource:
    """A named stream of rows: ``origin`` names the file or HF split in messages."""

    origin: str
    unit: str  # "line" for files, "row" for HF splits
    rows: Iterator[Row]
    selection: Selection | None = None  # set when the source holds other splits' rows too

    def error(self, position: int, message: str) -> DataError:
        return DataError(self.origin, message, position, self.unit)


def _check_file(path: Path, what: str) -> None:
    if not path.exists():
        raise DataError(path, "file not found")
    if path.is_dir():
        raise DataError(path, f"is a folder, expected {what}")
    if not path.is_file():  # a FIFO would hang, /dev/zero never ends
        raise DataError(path, f"is not a regular file (a pipe or device), expected {what}")
    if not os.access(path, os.R_OK):
        raise DataError(path, "cannot be read (permission denied)")


#: the longest line read: a file without newlines (or /dev/zero behind a link) is not a line
MAX_LINE_BYTES = 64 * 2**20


def _decoded_lines(path: Path) -> Iterator[str]:
    """The file's lines, strictly UTF-8 (a leading byte-order mark is accepted), endings kept."""
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""), 1):
            if len(raw) > MAX_LINE_BYTES:
                raise DataError(path, f"a line longer than {MAX_LINE_BYTES:,} bytes; not a text file", lineno)
            try:
                yield raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(
                    path,
                    f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    "convert the file to UTF-8",
                    lineno,
                ) from None


def iter_delimited(path: str | Path, fmt: FileFormat) -> Iterator[Row]:
    """Yield one record per row of a CSV/TSV file, as a dict keyed by field name.

    Field names come from ``fmt.fieldnames`` or else the header line (a header
    line is skipped either way when ``fmt.header``). A row is located by the
    line it starts on, so a quoted field spanning lines still names the right
    place; blank lines are skipped and a row with the wrong number of fields
    is an error, never silently padded.
    """
    path = Path(path)
    _check_file(path, f"a {fmt.kind.upper()} file")
    quoting = csv.QUOTE_NONE if fmt.quoting == "none" else csv.QUOTE_MINIMAL
    reader = csv.reader(
        _decoded_lines(path), delimiter=fmt.delimiter, quoting=quoting, strict=True
    )
    names: list[str] | None = list(fmt.fieldnames) or None
    header_pending = fmt.header
    start = 1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataError(path, f"not valid {fmt.kind.upper()} ({exc})", start) from None
        lineno, start = start, reader.line_num + 1
        if not record or (len(record) == 1 and not record[0].strip()):
            continue
        if header_pending:
            header_pending = False
            if names is None:
                names = [name.strip() for name in record]
                if len(set(names)) != len(names) or not all(names):
                    raise DataError(path, f"header has empty or repeated names: {record}", lineno)
            continue
        assert names is not None  # config requires fieldnames without a header
        if len(record) != len(names):
            raise DataError(
                path,
                f"expected {len(names)} fields ({', '.join(names)}), got {len(record)}; "
                "check the delimiter and quoting in the dataset's format",
                lineno,
            )
        yield Row(lineno, dict(zip(names, record, strict=True)))


def iter_json_lines(path: str | Path) -> Iterator[Row]:
    """Yield one object per non-blank line of a JSON-lines file.

    Decoding is strict UTF-8 (a leading byte-order mark is accepted); blank
    lines are skipped. Malformed input raises :class:`DataError` with the line.
    """
    path = Path(path)
    _check_file(path, "a JSON-lines file")
    for lineno, text in enumerate(_decoded_lines(path), 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise DataError(
                path, f"not valid JSON ({exc.msg} at column {exc.colno})", lineno
            ) from None
        except RecursionError:
            raise DataError(path, "JSON nested too deeply", lineno) from None
        except _DuplicateKey as exc:
            raise DataError(path, f"key {exc.args[0]!r} appears twice in one object", lineno) from None
        if not isinstance(obj, dict):
            raise DataError(path, f"expected a JSON object, got {type(obj).__name__}", lineno)
        for key, value in obj.items():
            if isinstance(value, str) and (problem := text_problem(value)):
                raise DataError(path, f"field {key!r} {problem}", lineno)
        yield Row(lineno, obj)


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a repeated key (``json`` would keep the last one silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def text_problem(value: str) -> str | None:
    """Why a string cannot be text of a table (a NUL, a lone surrogate), or None."""
    if "\0" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds a lone surrogate (\\u{ord(value[exc.start]):04x}), which is not text"
    return None


def iter_hf_rows(source: SourceSpec) -> Iterator[Row]:
    """Yield rows of a Hugging Face dataset split, class-label ids turned into names.

    ``name`` is a hub id (fetched at ``revision``) or a local folder that
    ``datasets.load_dataset`` understands, which is how it runs offline.
    """
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            "sources of kind hf need the `datasets` package: pip install 'nlistress[hf]'"
        ) from None
    ds = datasets.load_dataset(
        source.hf_name, source.hf_config, split=source.hf_split, revision=source.hf_revision
    )
    class_labels = {
        name: feature.names
        for name, feature in ds.features.items()
        if isinstance(feature, datasets.ClassLabel)
    }
    for index, record in enumerate(ds):
        for name, names in class_labels.items():
            value = record.get(name)
            # HF marks "no gold label" with -1; keep it as the string "-1".
            record[name] = (
                names[value]
                if isinstance(value, int) and value >= 0
                else (None if value is None else str(value))
            )
        yield Row(index, record)


def open_source(
    source: SourceSpec, path: str | Path | None, fmt: FileFormat | None = None
) -> RowSource:
    """Rows of a split: from ``path`` (laid out as ``fmt``) for file sources, else from HF.

    With ``source.select``, only the rows whose fields hold those values are the
    split's; the rest are counted in the returned source's ``selection``.
    """
    if source.kind == "hf" and path is None:
        origin, unit = f"hf:{source.hf_name}@{source.hf_revision or 'default'}[{source.hf_split}]", "row"
        rows = iter_hf_rows(source)
    elif path is None:
        raise ConfigError(f"a {source.kind} source needs a file path")
    else:
        origin, unit = str(path), "line"
        fmt = fmt or FileFormat()
        rows = iter_json_lines(path) if fmt.kind == "jsonl" else iter_delimited(path, fmt)
    rows = with_progress(rows, origin, "rows read", log)
    selection = Selection(source.select) if source.select else None
    if selection is not None:
        rows = selection.filter(rows, origin, unit)
    return RowSource(origin, unit, rows, selection)
