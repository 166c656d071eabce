"""Training data of every variant, and sets read in chunks for inference.

One function assembles what a model trains on, for encoders and transformers
alike: the canonical train split plus, by variant, the negation twins (Naik et
al. section 4.6), the permuted copies (Sinha et al. appendix F) or the permuted
copies as maximum-entropy rows (``label_id = -1``: equation 5 pushes the
model's prediction on them towards the uniform distribution). Every row read
is either kept or counted as dropped with its reason.

A model's label set is its training table's (``model_labels``): 3-way for
SNLI/MNLI, ``entailment, not_entailment`` for a 2-way dataset such as SciTail.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import ConfigError, DataError
from ..hypothesis_only.labelled import label_order, read_columns
from ..manifest import RowCounts
from ..parquet_io import open_parquet

MAX_ENTROPY_LABEL = -1
FRAME_COLUMNS = ["uid", "premise", "hypothesis", "label_id"]
LABEL_COLUMNS = ["label_id", "label"]
# Which augmentation file each variant reads, and whether its labels are replaced by -1.
VARIANT_INPUTS: dict[str, tuple[str, ...]] = {
    "plain": (),
    "negation": ("negation",),
    "permute": ("permuted",),
    "max_entropy": ("permuted",),
}
SET_COLUMNS = ("uid", "premise", "hypothesis")


def _read(path: Path, columns: list[str]) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(path, f"not a Parquet file ({exc})") from None
    missing = [c for c in columns if c not in schema.names]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}")
    frame = pq.read_table(path, columns=columns).to_pandas()
    for name in ("premise", "hypothesis"):
        if name in frame and frame[name].isna().any():
            first = int(np.flatnonzero(frame[name].isna().to_numpy())[0])
            raise DataError(path, f"{name} is empty", first, unit="row")
    return frame


def _labelled(frame: pd.DataFrame, counts: RowCounts) -> pd.DataFrame:
    unlabelled = frame["label_id"].isna()
    if unlabelled.any():
        counts.drop("no gold label", int(unlabelled.sum()))
    return frame[~unlabelled].astype({"label_id": "int64"})


def training_frame(
    train: Path, variant: str, augment: Mapping[str, Path], counts: RowCounts
) -> pd.DataFrame:
    """Rows a model of ``variant`` trains on: ``uid, premise, hypothesis, label_id``.

    ``augment`` maps ``negation`` / ``permuted`` to the augmented Parquet files
    the variant needs. Negation files also hold each original (``{"original":
    true}``); those are already in ``train`` and are counted as dropped.
    """
    if variant not in VARIANT_INPUTS:
        raise ConfigError(f"unknown training variant {variant!r} (known: {', '.join(VARIANT_INPUTS)})")
    frames = []
    base = _read(train, FRAME_COLUMNS)
    counts.input += len(base)
    frames.append(_labelled(base, counts))
    for role in VARIANT_INPUTS[variant]:
        path = augment.get(role)
        if path is None:
            raise ConfigError(f"training variant {variant!r} needs the {role} augmentation file")
        extra = _read(Path(path), [*FRAME_COLUMNS, "perturbation_params"])
        counts.input += len(extra)
        original = extra["perturbation_params"].map(lambda s: bool(json.loads(s).get("original")))
        if original.any():
            counts.drop("original already in the train split", int(original.sum()))
            extra = extra[~original.to_numpy()]
        extra = extra[FRAME_COLUMNS]
        if variant == "max_entropy":
            extra = extra.assign(label_id=MAX_ENTROPY_LABEL).astype({"label_id": "int64"})
        else:
            extra = _labelled(extra, counts)
        frames.append(extra)
    frame = pd.concat(frames, ignore_index=True)
    counts.kept = len(frame)
    return frame


def model_labels(
    train: Path, variant: str, augment: Mapping[str, Path], dev: Path | None
) -> tuple[str, ...]:
    """The labels a model of ``variant`` learns: the train table's names in ``label_id`` order.

    The head has one output per label and is trained on ``label_id``, so the
    ids must be 0..n-1, and every other labelled file must give the same name
    to the same id: the augmentation files carry their source's labels (not
    read for ``max_entropy``, whose rows get ``-1``); the dev table may lack a
    label (a subset) but not add or renumber one. Else a DataError naming the file.
    """
    train_labels = read_columns(train, LABEL_COLUMNS)
    labels = label_order([(train, train_labels)])
    ids = sorted(pc.unique(train_labels["label_id"].drop_null()).to_pylist())
    if len(labels) < 2 or ids != list(range(len(labels))):
        raise DataError(train, f"label_ids {ids} of labels {list(labels)} are not 0..n-1 with n >= 2: "
                               "a model needs every label of its set in its training table")  # fmt: skip
    checked = [] if variant == "max_entropy" else [(role, augment[role]) for role in VARIANT_INPUTS[variant]]
    for role, path in [*checked, *([("dev", dev)] if dev is not None else [])]:
        table = read_columns(path, LABEL_COLUMNS)
        try:  # train alone is consistent, so any disagreement is this file's
            union = label_order([(train, train_labels), (path, table)])
            problem = f"it adds {list(union[len(labels) :])}" if union != labels else ""
        except DataError as exc:
            problem = exc.message
        if problem:
            raise DataError(path, f"the {role} labels do not fit the model's labels {list(labels)} "
                                  f"from {train} ({problem}): use the same names and label_ids, or a subset")  # fmt: skip
    return labels


def table_language(params: Mapping[str, Any], path: Path) -> str:
    """The language of a canonical table: its ``dataset`` column's registry entry
    (``datasets.<name>.language``; English where the registry or the column has none)."""
    from ..perturb.runner import dataset_language

    table = read_columns(path, [], optional=["dataset"])
    if "dataset" not in table.column_names:
        return "en"
    datasets = pc.unique(table["dataset"].drop_null()).to_pylist()
    languages = sorted({dataset_language(params, str(name)) for name in datasets})
    if len(languages) > 1:
        raise DataError(path, f"rows of datasets {datasets} in languages {languages}: a model reads one language")
    return languages[0] if languages else "en"


def subsample(frame: pd.DataFrame, rows: int | None, seed: int, counts: RowCounts) -> pd.DataFrame:
    """A seeded sample of ``rows`` rows in their original order (``None``: all rows)."""
    if rows is None or rows >= len(frame):
        return frame
    keep = np.sort(np.random.default_rng(seed).choice(len(frame), size=rows, replace=False))
    counts.drop("not in the seeded training sample (train_rows)", len(frame) - rows)
    counts.kept = rows
    return frame.iloc[keep].reset_index(drop=True)


def dev_frame(path: Path) -> pd.DataFrame:
    """The labelled rows of a canonical dev split (unlabelled rows cannot be scored)."""
    return _labelled(_read(path, FRAME_COLUMNS), RowCounts())


def iter_set_chunks(path: Path, chunk_rows: int) -> Iterator[pa.RecordBatch]:
    """``uid, premise, hypothesis`` of a set in record batches of ``chunk_rows``, in file order."""
    parquet = open_parquet(path, SET_COLUMNS, "set")
    for name in SET_COLUMNS:
        given = parquet.schema_arrow.field(name).type
        if not (pa.types.is_string(given) or pa.types.is_large_string(given)):
            raise DataError(path, f"set column {name!r} must hold text, got {given}")
    offset = 0
    seen: set[str] = set()
    try:
        for batch in parquet.iter_batches(batch_size=chunk_rows, columns=list(SET_COLUMNS)):
            for name in SET_COLUMNS:
                nulls = batch.column(name).null_count
                if nulls:
                    first = int(np.flatnonzero(batch.column(name).is_null().to_numpy(zero_copy_only=False))[0])
                    raise DataError(path, f"{name} is empty", offset + first, unit="row")
            uids = batch.column("uid").to_pylist()
            if len(set(uids)) < len(uids) or not seen.isdisjoint(uids):
                repeated = next(u for i, u in enumerate(uids) if u in seen or u in uids[:i])
                raise DataError(path, f"uid {repeated!r} appears twice; uids must be unique")
            seen.update(uids)
            offset += batch.num_rows
            yield batch
    except (OSError, pa.ArrowException) as exc:  # a truncated or corrupt file
        raise DataError(path, f"not a readable Parquet file ({exc})") from None


@contextmanager
def as_parquet_set(path: Path, params: Mapping[str, Any]) -> Iterator[tuple[Path, RowCounts | None]]:
    """``path`` as a Parquet set: a .jsonl in one of the formats ``perturb`` reads is
    canonicalised (uids ``custom:<file stem>:<id or line>``, as ``perturb`` gives them) into
    a temporary file, so ``predict`` and ``score`` take the same inputs ``perturb`` does.
    Yields the Parquet path and, for a .jsonl, the rows read, kept and dropped (by reason)."""
    if path.suffix not in (".jsonl", ".json"):
        yield path, None
        return
    from ..perturb.runner import read_input

    table, counts = read_input(path, "nli", params, unlabelled=True)
    with tempfile.TemporaryDirectory(prefix=".nlistress-") as tmp:
        out = Path(tmp) / f"{path.stem}.parquet"
        pq.write_table(table, out)
        yield out, counts
