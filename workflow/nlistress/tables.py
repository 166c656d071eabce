"""Tables in the three forms the papers' results are written in: Markdown, CSV and LaTeX.

Every table (results, cards, the release catalogue, the report) goes through
these writers, so numbers are formatted one way everywhere:
CSV keeps more digits for machines, Markdown and LaTeX the digits a reader
compares with the paper.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def fmt_cell(value: Any, digits: int, empty: str) -> str:
    """One cell: ``empty`` for missing values, ints as ints, floats to ``digits`` places."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return empty
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):.{digits}f}"
    return str(value)


def csv_table(header: Sequence[str], rows: Iterable[Sequence[Any]], digits: int) -> str:
    """CSV text; missing values are empty cells."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([fmt_cell(v, digits, "") for v in row])
    return buffer.getvalue()


def md_cell(value: Any, digits: int = 2, empty: str = "n/a") -> str:
    """``value`` as the text of one Markdown table cell.

    A ``|`` would end the cell and a line break the row, so a premise holding
    either would break the table: ``|`` is escaped and line breaks become spaces.
    """
    return re.sub(r"\s*[\r\n]+\s*", " ", fmt_cell(value, digits, empty).replace("|", r"\|"))


def markdown_table(
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    digits: int = 2,
    align: str | None = None,
) -> str:
    """A GitHub Markdown table, every cell through :func:`md_cell`; missing values read ``n/a``.

    ``align`` has one letter per column, ``l`` or ``r`` (default: all left).
    """
    rule = {"l": "---", "r": "---:"}
    marks = [rule[a] for a in (align or "l" * len(header))]
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(md_cell(v, digits) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


TEX_ESCAPES = {c: "\\" + c for c in "&%$#_{}"} | {
    "\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def tex_escape(text: str) -> str:
    """Text safe inside a LaTeX table cell."""
    return "".join(TEX_ESCAPES.get(c, c) for c in text)


def latex_table(header: Sequence[str], rows: Iterable[Sequence[Any]], n_text: int, digits: int) -> str:
    """A booktabs tabular: ``n_text`` left-aligned text columns, then numbers (missing: --)."""
    spec = "l" * n_text + "r" * (len(header) - n_text)
    lines = [
        rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule",
    ]  # fmt: skip
    for row in rows:
        cells = [tex_escape(v) if isinstance(v, str) else fmt_cell(v, digits, "--") for v in row]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
