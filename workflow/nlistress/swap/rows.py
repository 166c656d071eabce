"""A swap-set row: a set row plus the columns of ``SWAP_SCHEMA`` (the stats contract)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..perturb.base import SetRow
from .schema import SWAP_COLUMNS, SWAP_SCHEMA


@dataclass(frozen=True)
class SwapRow(SetRow):
    """One control or transformed example with its pair, label provenance and factors."""

    experiment: str
    pair_id: str
    w1: str
    w2: str
    relation: str
    label_status: str
    gold_label_changed: bool | None
    polarity: str
    unseen: bool

    def as_record(self) -> dict[str, Any]:
        return {
            **super().as_record(),
            **{field.name: getattr(self, field.name) for field in SWAP_COLUMNS},
        }


def swap_rows_to_table(rows: list[SwapRow]) -> pa.Table:
    columns: dict[str, list[Any]] = {name: [] for name in SWAP_SCHEMA.names}
    for row in rows:
        for key, value in row.as_record().items():
            columns[key].append(value)
    return pa.Table.from_pydict(columns, schema=SWAP_SCHEMA)
