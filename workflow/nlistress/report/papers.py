"""The papers' printed numbers (``papers/<paper>.yaml``), read and checked.

Each table names the ``source`` of ours that fills it and the ``metric`` taken
from it; every cell links to one result through link fields merged from the
table, its column and its row (the row wins). The fields each source reads
are fixed here, so a typo in a link is an error naming the file and table,
not a silently empty cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import DataError

PAPERS_DIR = Path(__file__).with_name("papers")

#: source -> (link fields it reads, metrics it has); ``none`` marks tables we cannot compare
SOURCES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "scores": (frozenset({"model", "variant", "test", "dataset", "split"}),
               frozenset({"accuracy", "false_neutral_share"})),
    "swap_table1": (frozenset({"model", "variant", "sample", "subset"}), frozenset({"accuracy"})),
    "swap_contingency": (frozenset({"model", "variant", "sample", "factor", "row", "column"}),
                         frozenset({"count"})),
    "swap_tests": (frozenset({"model", "variant", "sample", "factor"}),
                   frozenset({"statistic", "dof", "p"})),
    "unli_table2": (frozenset({"model", "variant", "test", "dataset", "split"}),
                    frozenset({"A", "omega_max", "omega_rand", "P_c", "P_f"})),
    "unli_table7": (frozenset({"test", "dataset", "split"}),
                    frozenset({"test_examples", "used_examples"})),
    "baselines_table2": (frozenset({"dataset", "split"}),
                         frozenset({"hyp_only", "majority", "delta", "relative"})),
    "baselines_table3": (frozenset({"dataset", "split", "gold_label"}),
                         frozenset({"hyp_only", "majority", "delta", "relative"})),
    "giveaway_words": (frozenset({"dataset", "gold_label"}), frozenset({"words"})),
    "set_rows": (frozenset({"family", "test", "dataset", "split", "experiment"}), frozenset({"rows"})),
    "canonical_rows": (frozenset({"dataset", "split"}), frozenset({"rows"})),
}  # fmt: skip
#: the link fields a cell of each source must name (``experiment`` and ``variant`` are optional)
REQUIRED: dict[str, frozenset[str]] = {
    source: fields - {"experiment", "variant"} for source, (fields, _) in SOURCES.items()
}


@dataclass(frozen=True)
class Line:
    """A row or column of a paper table: its printed label and its link fields."""

    label: str
    link: Mapping[str, Any]


@dataclass(frozen=True)
class PaperTable:
    """One table (or in-text figure set) of a paper, as printed."""

    paper: str
    id: str
    caption: str
    source: str
    why_not: str | None
    metric: str | None
    scale: float
    digits: int
    link: Mapping[str, Any]
    columns: tuple[Line, ...]
    rows: tuple[Line, ...]
    #: one entry per row: the printed numbers (None = no number), or a word list
    values: tuple[tuple[Any, ...], ...]
    notes: str | None

    @property
    def comparable(self) -> bool:
        return self.source != "none"

    @property
    def is_words(self) -> bool:
        return self.source == "giveaway_words"

    def cell_link(self, row: int, column: int) -> dict[str, Any]:
        """The link of one cell: the table's fields, then the column's, then the row's."""
        return {**self.link, **self.columns[column].link, **self.rows[row].link}


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    citation: str
    path: Path
    tables: tuple[PaperTable, ...]


def _line(entry: Any, where: str, path: Path, data_keys: Sequence[str]) -> Line:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("label"), str | int | float):
        raise DataError(path, f"{where}: expected a mapping with a label")
    link = {k: v for k, v in entry.items() if k not in ("label", *data_keys)}
    return Line(str(entry["label"]), link)


def _table(entry: Any, paper: str, index: int, path: Path) -> PaperTable:
    where = f"tables[{index}]"
    if not isinstance(entry, Mapping) or not entry.get("id"):
        raise DataError(path, f"{where}: expected a mapping with an id")
    where = f"table {entry['id']}"
    source = entry.get("source")
    if source != "none" and source not in SOURCES:
        raise DataError(path, f"{where}: source {source!r} (expected none or {', '.join(SOURCES)})")
    if source == "none" and not entry.get("why_not"):
        raise DataError(path, f"{where}: a table with source none needs why_not")
    metric = entry.get("metric")
    if source in SOURCES and source != "giveaway_words" and metric not in SOURCES[source][1]:
        raise DataError(path, f"{where}: metric {metric!r} (source {source} has {sorted(SOURCES[source][1])})")
    columns = tuple(_line(c, f"{where} column {i + 1}", path, ())
                    for i, c in enumerate(entry.get("columns") or []))  # fmt: skip
    raw_rows = entry.get("rows") or []
    rows = tuple(_line(r, f"{where} row {i + 1}", path, ("values", "words"))
                 for i, r in enumerate(raw_rows))  # fmt: skip
    if not columns or not rows:
        raise DataError(path, f"{where}: needs columns and rows")
    values = []
    for row, raw in zip(rows, raw_rows, strict=True):
        if source == "giveaway_words":
            words = raw.get("words")
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise DataError(path, f"{where} row {row.label!r}: expected words: [a list of words]")
            values.append(tuple(words))
            continue
        cells = raw.get("values")
        if not isinstance(cells, list) or len(cells) != len(columns):
            raise DataError(path, f"{where} row {row.label!r}: expected {len(columns)} values, one per column")
        if any(v is not None and (isinstance(v, bool) or not isinstance(v, int | float)) for v in cells):
            raise DataError(path, f"{where} row {row.label!r}: values must be numbers or null")
        values.append(tuple(cells))
    link = dict(entry.get("link") or {})
    if source in SOURCES:
        allowed = SOURCES[source][0]
        for name, fields in [("table link", link), *((f"column {c.label!r}", c.link) for c in columns),
                             *((f"row {r.label!r}", r.link) for r in rows)]:  # fmt: skip
            unknown = sorted(set(fields) - allowed)
            if unknown:
                raise DataError(path, f"{where}, {name}: link fields {unknown} are not read by source {source} ({sorted(allowed)})")
    return PaperTable(
        paper=paper, id=str(entry["id"]), caption=str(entry.get("caption") or entry["id"]),
        source=str(source), why_not=entry.get("why_not"), metric=metric,
        scale=float(entry.get("scale") or 1), digits=int(entry.get("digits") or 0), link=link,
        columns=columns, rows=rows, values=tuple(values), notes=entry.get("notes"),
    )  # fmt: skip


def load_paper(path: str | Path) -> Paper:
    """One paper file, checked: every table's source, metric, links and value counts."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(path, "file not found") from None
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(path, f"not readable YAML ({exc})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("tables"), list):
        raise DataError(path, "expected paper, title, citation and a list of tables")
    paper = str(data.get("paper") or path.stem)
    tables = tuple(_table(t, paper, i, path) for i, t in enumerate(data["tables"]))
    ids = [t.id for t in tables]
    if len(set(ids)) != len(ids):
        raise DataError(path, f"table ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return Paper(paper, str(data.get("title", "")), str(data.get("citation", "")), path, tables)


def load_papers(folder: str | Path = PAPERS_DIR) -> list[Paper]:
    """Every ``*.yaml`` in ``folder``, in file-name order."""
    paths = sorted(Path(folder).glob("*.yaml"))
    if not paths:
        raise DataError(Path(folder), "no paper files (*.yaml)")
    return [load_paper(p) for p in paths]
