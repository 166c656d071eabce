"""``results/REPORT.md``: every paper table with the paper's numbers and ours side by side.

For each comparable table the report prints the paper's layout with cells
``paper / ours (ours minus paper)``, then why the empty cells are empty (grouped
by reason), then which of our runs and training data produced the numbers.
Tables we cannot compare are listed with the reason. ``report.csv`` holds
every cell in long form; ``tables/<paper>/<table>.{md,csv,tex}`` hold our
numbers alone in the paper's layout. No timestamps: the same results give
the same bytes.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..models import MODEL_CARD
from ..tables import csv_table, latex_table, markdown_table, md_cell, tex_escape
from .ours import Found, Lookup, Missing, OurResults
from .papers import Paper, PaperTable

LEGEND = (
    "Cells: paper / ours (ours minus paper), in the paper's unit; n/a: no number. A number of "
    "ours marked * comes from a set built in the default (high-precision) mode where the "
    "authors' code builds it differently: not like for like, so no difference is given; "
    "`--configfile profiles/paper/params.yaml` builds every such set the authors' way."
)


@dataclass(frozen=True)
class Cell:
    """One cell of a paper table, with our lookup."""

    table: PaperTable
    row: int
    column: int
    paper: Any  # a number, None, or (word tables) a word list
    ours: Lookup


def compare(table: PaperTable, ours: OurResults) -> list[Cell]:
    """Every cell of ``table`` with our value (empty list for tables we cannot compare)."""
    if not table.comparable:
        return []
    cells = []
    for r, values in enumerate(table.values):
        columns = [0] if table.is_words else range(len(table.columns))
        for c in columns:
            paper = values if table.is_words else values[c]
            cells.append(Cell(table, r, c, paper, ours.lookup(table, table.cell_link(r, c))))
    return cells


def _fmt(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _difference(cell: Cell) -> float | None:
    """Ours minus the paper's, only where the two are like for like."""
    if cell.paper is None or not isinstance(cell.ours, Found) or not cell.ours.like_for_like:
        return None
    return float(cell.ours.value) - float(cell.paper)


def _cell_text(cell: Cell) -> str:
    digits = cell.table.digits
    ours = cell.ours.value if isinstance(cell.ours, Found) else None
    mark = "*" if isinstance(cell.ours, Found) and not cell.ours.like_for_like else ""
    text = f"{_fmt(cell.paper, digits)} / {_fmt(ours, digits)}{mark}"
    delta = _difference(cell)
    return text if delta is None else f"{text} ({delta:+.{digits}f})"


def _modes(cells: Iterable[Cell]) -> str:
    """Which build modes the table's numbers of ours come from, for the line under it."""
    modes = sorted({c.ours.mode for c in cells if isinstance(c.ours, Found) and c.ours.mode})
    names = {"paper": "paper mode (the authors' construction)", "precise": "the default mode"}
    return " and ".join(names.get(m, m) for m in modes)


def _reasons(cells: Sequence[Cell]) -> list[str]:
    """Bullet lines: each reason for an empty cell once, with its rows and the items it covers."""
    grouped: dict[str, list[Cell]] = defaultdict(list)
    for cell in cells:
        if isinstance(cell.ours, Missing) and cell.paper is not None:
            grouped[cell.ours.reason].append(cell)
    lines = []
    for reason, group in grouped.items():
        rows = list(dict.fromkeys(group[0].table.rows[c.row].label for c in group))
        items = list(dict.fromkeys(c.ours.what for c in group if c.ours.what))  # type: ignore[union-attr]
        shown = ", ".join(rows[:8]) + (f" and {len(rows) - 8} more" if len(rows) > 8 else "")
        listed = f": {', '.join(items)}" if items else ""
        lines.append(f"- {md_cell(shown)}: {reason}{listed} ({len(group)} cell{'s' if len(group) > 1 else ''})")
    return lines


def _words_section(table: PaperTable, cells: Sequence[Cell]) -> list[str]:
    rows = []
    for cell in cells:
        row = table.rows[cell.row]
        name = f"{row.link.get('dataset', '')} {row.label}".strip()
        paper_words = list(cell.paper)
        if isinstance(cell.ours, Found):
            mine = list(cell.ours.value)
            both = [w for w in paper_words if w in set(mine)]
            rows.append([name, ", ".join(paper_words), ", ".join(mine) or "none",
                         f"{len(both)} of {len(paper_words)}: {', '.join(both) or 'none'}"])  # fmt: skip
        else:
            rows.append([name, ", ".join(paper_words), "n/a", "n/a"])
    return _lines(markdown_table(["list", "the paper's words", "ours", "in both"], rows))


def _grid(table: PaperTable, cells: Sequence[Cell]) -> list[str]:
    by_position = {(c.row, c.column): c for c in cells}
    header = ["", *(c.label for c in table.columns)]
    rows = [[row.label, *(_cell_text(by_position[r, c]) for c in range(len(table.columns)))]
            for r, row in enumerate(table.rows)]  # fmt: skip
    return _lines(markdown_table(header, rows))


def _lines(table: str) -> list[str]:
    """A table's text as the list of lines the sections are assembled from."""
    return table.rstrip("\n").split("\n")


def _filled(cells: Iterable[Cell]) -> int:
    return sum(isinstance(c.ours, Found) for c in cells if c.paper is not None)


def _printed(cells: Iterable[Cell]) -> int:
    return sum(c.paper is not None for c in cells)


def table_section(table: PaperTable, cells: Sequence[Cell]) -> list[str]:
    """The Markdown of one table: caption, grid (or word lists), reasons for empty cells."""
    lines = [f"### {table.caption}", ""]
    if not table.comparable:
        return [*lines, f"Not compared: {table.why_not}", ""]
    lines += _words_section(table, cells) if table.is_words else _grid(table, cells)
    reasons = _reasons(cells)
    sources = sorted({c.ours.where for c in cells if isinstance(c.ours, Found)})
    lines.append("")
    lines.append(f"{_filled(cells)} of {_printed(cells)} printed cells filled"
                 + (f" from {', '.join(f'`{s}`' for s in sources)}." if sources else "."))  # fmt: skip
    if modes := _modes(cells):
        lines.append(f"Sets built in {modes}.")
    if reasons:
        lines += ["", "Empty cells of ours:", *reasons]
    if table.notes:
        notes = " ".join(str(table.notes).split())
        lines += ["", "<details><summary>How the paper's numbers were read</summary>", "",
                  md_cell(notes), "", "</details>"]  # fmt: skip
    return [*lines, ""]


def _runs_used(cells: Iterable[Cell], ours: OurResults) -> list[tuple[str, str]]:
    runs = []
    for cell in cells:
        if isinstance(cell.ours, Found) and "model" in (link := cell.table.cell_link(cell.row, cell.column)):
            run = ours.run_of(cell.table.paper, link)
            if isinstance(run, tuple):
                runs.append(run)
    return sorted(set(runs))


def describe_model(folder: Path) -> str:
    """What a trained model folder was trained on and with which sizes (from its config.json)."""
    path = folder / "config.json"
    if not path.is_file():
        return f"`{folder}` (no config.json)"
    config = json.loads(path.read_text(encoding="utf-8"))
    train = config["train"]
    inputs = ", ".join(f"{role} `{entry['path']}`" for role, entry in train["inputs"].items())
    settings = config.get("settings", {})
    shown = ("checkpoint", "epochs", "train_rows", "embedding_dim", "hidden_dim", "max_length")
    sizes = ", ".join(f"{k} {settings[k]}" for k in shown if settings.get(k) is not None)
    return (f"{config['arch']}, trained on {train['rows']['kept']:,} rows ({inputs}); {sizes}")  # fmt: skip


def card_link(folder: Path, output: Path) -> str:
    """``; [model card](…)``: the card ``nlistress train`` wrote into ``folder``, linked relative
    to the report in ``output`` (empty for a model trained before cards were written)."""
    card = folder / MODEL_CARD
    return f"; [model card]({Path(os.path.relpath(card, output)).as_posix()})" if card.is_file() else ""


def provenance(paper: Paper, cells: Sequence[Cell], ours: OurResults, output: Path) -> list[str]:
    """Which runs and training data produced our numbers for ``paper``, each with its model card."""
    lines = []
    for zoo, variant in _runs_used(cells, ours):
        labels = [k for k, v in ours.models.get(paper.id, {}).items() if v == zoo]
        folder = ours.data / "models" / zoo / variant
        lines.append(f"- {' / '.join(labels)} → our `{zoo}.{variant}`: "
                     f"{describe_model(folder)}{card_link(folder, output)}")  # fmt: skip
    baselines = ours.results / "baselines" / "baselines.json"
    if any(c.table.source.startswith("baselines") and isinstance(c.ours, Found) for c in cells):
        record = json.loads(baselines.read_text(encoding="utf-8"))
        predictor = record.get("predictor", "hypothesis-only predictor")
        for dataset, train in sorted({(r["dataset"], r.get("train")) for r in record["results"]}):
            folder = ours.data / "baselines" / predictor / dataset / "model"
            if folder.is_dir():
                trained = describe_model(folder) + card_link(folder, output)
            else:
                trained = f"fitted on `{train}`"
            lines.append(f"- Hyp-Only of {dataset} → {predictor}: {trained}")
    return lines


def paper_section(paper: Paper, ours: OurResults, output: Path) -> tuple[list[str], list[Cell]]:
    all_cells: list[Cell] = []
    body: list[str] = []
    for table in paper.tables:
        cells = compare(table, ours)
        all_cells += cells
        body += table_section(table, cells)
    lines = [f"## {paper.citation}", ""]
    used = provenance(paper, all_cells, ours, output)
    lines += ["Our numbers come from:", *used, ""] if used else [
        "No number of ours comes from a trained model here (see each table).", ""]
    return [*lines, *body], all_cells


def summary(papers: Sequence[Paper], cells: dict[str, list[Cell]]) -> list[str]:
    header = ["paper", "tables", "compared", "printed cells of those", "filled with ours"]
    rows = [[paper.id, len(paper.tables), sum(t.comparable for t in paper.tables),
             _printed(cells[paper.id]), _filled(cells[paper.id])] for paper in papers]  # fmt: skip
    return _lines(markdown_table(header, rows))


def write_report(papers: Sequence[Paper], ours: OurResults, output: Path, config_note: str) -> list[Path]:
    """REPORT.md, report.csv and our tables in the papers' layouts; the paths written."""
    output = Path(output)
    sections: list[str] = []
    cells: dict[str, list[Cell]] = {}
    for paper in papers:
        lines, cells[paper.id] = paper_section(paper, ours, output)
        sections += lines
    head = [
        "# Reproduction report",
        "",
        "Each table the four papers print, with the paper's numbers beside ours. " + LEGEND,
        "The paper numbers are transcribed in `workflow/nlistress/report/papers/*.yaml` (with "
        "how each garbled cell was read); ours are read from this run's `results/` and `data/`.",
        config_note,
        "",
        *summary(papers, cells),
        "",
    ]
    report = output / "REPORT.md"
    write_text_atomic(report, "\n".join([*head, *sections]).rstrip() + "\n")
    written = [report, _write_long(papers, cells, output / "report.csv")]
    for paper in papers:
        for table in paper.tables:
            if table.comparable and not table.is_words:
                mine = [c for c in cells[paper.id] if c.table is table]
                written += _write_ours(table, mine, output / "tables" / paper.id)
    return written


def _write_long(papers: Sequence[Paper], cells: dict[str, list[Cell]], path: Path) -> Path:
    header = ["paper", "table", "row", "column", "metric", "paper_value", "our_value",
              "difference", "mode", "source_or_reason"]  # fmt: skip
    rows = []
    for paper in papers:
        for cell in cells[paper.id]:
            table = cell.table
            found = isinstance(cell.ours, Found)
            value = cell.ours.value if found else None
            if table.is_words:
                paper_value, value = " ".join(cell.paper), " ".join(value or [])
            else:
                paper_value = cell.paper
            rows.append([
                paper.id, table.id, table.rows[cell.row].label, table.columns[cell.column].label,
                table.metric, paper_value, value, _difference(cell) if not table.is_words else None,
                cell.ours.mode if found else None, cell.ours.where if found else str(cell.ours),
            ])  # fmt: skip
    write_text_atomic(path, csv_table(header, rows, 6))
    return path


def _write_ours(table: PaperTable, cells: Sequence[Cell], folder: Path) -> list[Path]:
    """Our numbers alone, in the paper's layout (rows and columns as printed)."""
    by_position = {(c.row, c.column): c.ours for c in cells}
    header = ["", *(c.label for c in table.columns)]
    rows = [[row.label, *(by_position[r, c].value if isinstance(by_position[r, c], Found) else None
                          for c in range(len(table.columns)))]
            for r, row in enumerate(table.rows)]  # fmt: skip
    paths = [folder / f"{table.id}.{ext}" for ext in ("md", "csv", "tex")]
    caption = f"\n{table.caption} — our numbers ({table.metric}, the paper's unit).\n"
    write_text_atomic(paths[0], markdown_table(header, rows, table.digits) + caption)
    write_text_atomic(paths[1], csv_table(header, rows, 6))
    write_text_atomic(paths[2], latex_table([tex_escape(h) for h in header], rows, 1, table.digits))
    return paths
