"""Run one test-set generator on one input file: read, generate, write Parquet + manifest.

The Snakemake rules and ``nlistress perturb`` both end here, so a set built by
the pipeline and one a user builds from their own file go through the same
code. Inputs are canonical Parquet tables, or JSON-lines files in any of the
official NLI formats (read with the ``custom`` registry entry) or AQuA-RAT's.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import sha256_file
from ..canonical import AQUA_SCHEMA, BUILDERS, NLI_SCHEMA
from ..config import DatasetSpec, PrepareSettings
from ..errors import ConfigError, DataError
from ..manifest import RowCounts, write_manifest
from ..parquet_io import write_parquet, write_parquet_batches
from ..progress import with_progress
from ..readers import RowSource, iter_json_lines
from . import find_test, make_generator
from .base import Context, rows_to_table

log = logging.getLogger(__name__)

SCHEMAS = {"nli": NLI_SCHEMA, "aqua": AQUA_SCHEMA}
# Columns a user's Parquet file must have; the others are filled with nulls.
REQUIRED = {
    "nli": ("premise", "hypothesis"),
    "aqua": ("question", "options", "answer"),
}


def _from_parquet(path: Path, reads: str) -> pa.Table:
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable Parquet file ({exc})") from None
    missing = [c for c in REQUIRED[reads] if c not in table.column_names]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}")
    schema = SCHEMAS[reads]
    columns = {}
    for field in schema:
        if field.name in table.column_names:
            given = table.schema.field(field.name).type
            if field.type == pa.string() and not (pa.types.is_string(given) or pa.types.is_large_string(given)):
                raise DataError(path, f"column {field.name!r} must hold text, got {given}")
            try:
                columns[field.name] = table[field.name].cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise DataError(
                    path, f"column {field.name!r} is not {field.type} ({exc})"
                ) from None
        elif field.name == "uid":
            columns["uid"] = pa.array([f"{path.stem}:{i}" for i in range(table.num_rows)])
        elif field.name == "source_id":
            columns["source_id"] = pa.array([str(i) for i in range(table.num_rows)])
        elif field.name in ("dataset", "split"):
            columns[field.name] = pa.array(
                ["custom" if field.name == "dataset" else path.stem] * table.num_rows
            )
        else:
            columns[field.name] = pa.nulls(table.num_rows, field.type)
    table = pa.table(columns, schema=schema.with_metadata(None))
    for name in REQUIRED[reads]:
        nulls = table[name].null_count
        if nulls and not schema.field(name).nullable:
            first = int(table[name].is_null().to_numpy(zero_copy_only=False).argmax())
            raise DataError(path, f"{name} is empty ({nulls} rows)", first, unit="row")
    uids = pc.value_counts(table["uid"])
    duplicated = uids.filter(pc.greater(uids.field("counts"), 1))
    if len(duplicated):
        raise DataError(path, f"uid {duplicated[0]['values'].as_py()!r} appears "
                        f"{duplicated[0]['counts'].as_py()} times; uids must be unique")  # fmt: skip
    return table


def _from_jsonl(
    path: Path, reads: str, params: Mapping[str, Any], unlabelled: bool
) -> tuple[pa.Table, RowCounts]:
    spec = DatasetSpec.from_params(params, "custom" if reads == "nli" else "aqua_rat")
    first = next(iter_json_lines(path), None)
    if first is None:
        raise DataError(path, "no rows")
    labelled = reads == "aqua" or any(c in first.fields for c in spec.columns["label"])
    if not labelled and not unlabelled:  # as `prepare` refuses a split not marked `labelled: false`
        raise DataError(path, f"no label field ({' or '.join(spec.columns['label'])}) in the first row; "
                        "pass --unlabelled to build a set whose rows have no gold label", 1)  # fmt: skip
    rows = RowSource(str(path), "line", iter_json_lines(path))
    table, counts = BUILDERS[spec.table](rows, spec, path.stem, labelled, PrepareSettings())
    if counts.dropped:
        log.info("%s: %s", path, counts.as_dict())
    return table, counts


def read_input(
    path: str | Path, reads: str, params: Mapping[str, Any], unlabelled: bool = False
) -> tuple[pa.Table, RowCounts | None]:
    """The input as a canonical table (``reads`` is "nli" or "aqua").

    For a JSON-lines file it also returns the canonicalisation counts, so rows
    dropped while reading (no gold label, ...) reach the set's manifest. A
    JSON-lines file without a label field is refused unless ``unlabelled``.
    Rows of a JSON-lines file get the uid ``custom:<file stem>:<id>``, the id being
    the row's ``uid``, ``id`` or ``pairID`` field, else its line number.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    if path.suffix == ".parquet":
        return _from_parquet(path, reads), None
    if path.suffix in (".jsonl", ".json"):
        return _from_jsonl(path, reads, params, unlabelled)
    raise DataError(path, "expected a .parquet or .jsonl file")


def _single(table: pa.Table, column: str, path: Path) -> str:
    values = table[column].unique().to_pylist()
    if len(values) != 1:
        raise DataError(
            path, f"expected one {column} per file, found {sorted(map(str, values))[:5]}"
        )
    return str(values[0])


def dataset_language(params: Mapping[str, Any], dataset: str) -> str:
    return str((params.get("datasets") or {}).get(dataset, {}).get("language", "en"))


def build_set(
    test: str,
    input_path: str | Path,
    output: str | Path,
    params: Mapping[str, Any],
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    language: str | None = None,
    unlabelled: bool = False,
    dropped: str | Path | None = None,
) -> dict[str, Any]:
    """Build test set ``test`` from ``input_path`` into ``output``; write and return its manifest.

    With ``dropped``, also write there the pairs the generator's precision filters dropped
    (``Generator.records_dropped``), each naming its filter: they are no test set (their
    labels are the rule's, which the filter found unsafe), but the rows to read and judge to
    learn what a filter costs.
    """
    generator = make_generator(test, params, overrides)
    if dropped is not None:
        if not generator.records_dropped:
            raise ConfigError(f"--dropped: the {generator.name} generator keeps no dropped pairs "
                              "(the antonymy generator does)")  # fmt: skip
        if Path(dropped).resolve() == Path(output).resolve():
            raise ConfigError(f"--dropped {dropped}: it is also the output; write it somewhere else")
        generator.dropped = []
    input_path = Path(input_path)
    table, read_counts = read_input(input_path, generator.reads, params, unlabelled)
    if table.num_rows == 0:
        raise DataError(input_path, "no rows to perturb")
    dataset, split = _single(table, "dataset", input_path), _single(table, "split", input_path)
    family, _ = find_test(params, test)
    seed = seed if seed is not None else (params.get(family) or {}).get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"{family}.seed: expected an integer, got {seed!r}")
    context = Context(dataset, split, language or dataset_language(params, dataset), seed)
    counts = RowCounts(unit=generator.unit)
    labels: Counter[str] = Counter()

    def batches() -> Iterator[pa.Table]:
        for batch in generator.generate_batches(table, context, counts):
            labels.update(str(label) for label in batch["label"].to_pylist())
            yield batch

    log.info("%s: building from %s (%d rows)", test, input_path, table.num_rows)
    written = write_parquet_batches(
        with_progress(batches(), test, "rows written", log, weigh=lambda batch: batch.num_rows),
        output,
        generator.schema,
        PrepareSettings.from_params(params).parquet_compression,
    )
    if not written:
        Path(output).unlink()
        raise DataError(input_path, f"{test}: no rows generated ({counts.as_dict()['dropped']})")
    extra = {"stats": stats} if (stats := generator.extra_stats()) else {}
    # a default-mode set records the generator that would build it the authors' way
    counterpart = generator.paper_counterpart() if generator.mode == "precise" else None
    manifest = write_manifest(
        output,
        counts,
        {
            "path": str(input_path),
            "sha256": sha256_file(input_path),
            **({"rows": read_counts.as_dict()} if read_counts else {}),
        },
        {
            "family": family,
            "test": test,
            "generator": generator.name,
            "mode": generator.mode,
            **({"paper_generator": counterpart} if counterpart else {}),
            "settings": generator.settings,
            "seed": seed,
            "language": context.language,
        },
        dataset=dataset,
        split=split,
        output_rows=written,
        labels=dict(sorted(labels.items())),
        **extra,
    )
    log.info("%s: %d rows -> %s (%s)", test, written, output, json.dumps(counts.as_dict()))
    if generator.dropped is not None:
        write_parquet(rows_to_table(generator.dropped), dropped,
                      PrepareSettings.from_params(params).parquet_compression)  # fmt: skip
        by_filter = Counter(row.params["filter"] for row in generator.dropped)
        log.info("%s: %d pairs the filters dropped -> %s (%s)", test, len(generator.dropped), dropped,
                 json.dumps(dict(by_filter.most_common())))  # fmt: skip
    return manifest
