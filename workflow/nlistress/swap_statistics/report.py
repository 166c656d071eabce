"""Write an analysis: Table 1, the tests with their verdicts, the contingency tables, stats.json.

Files (under the output folder):

- ``table1.{md,csv,tex}``: the paper's Table 1, one row per sample (Exp,
  sample), accuracy per subset and model (empty where a subset has no rows);
- ``accuracy.csv``: the same in long form with rows and correct counts, and
  the rows each sample left out (no gold label);
- ``tests.{md,csv,tex}``: every test: variant, statistic, dof, p, corrected p,
  family size, verdict at alpha;
- ``contingency.md`` and ``contingency/<model>/<sample>_<factor>.csv``: the
  tables the tests ran on (the paper's Tables 2-4 for every model and sample);
- ``stats.json``: all of the above plus why each variant was chosen.

Rows are sorted (models in run order, samples in the paper's order) and
numbers printed with fixed digits, so equal inputs give equal bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..atomic import write_json_atomic, write_text_atomic
from ..tables import csv_table, fmt_cell, markdown_table, tex_escape
from .analysis import FACTOR_TESTS, Analysis, TestRecord
from .samples import EXPERIMENTS
from .tables import SUBSET_TITLES, SUBSETS, Contingency

CSV_DIGITS = 6
DISPLAY_DIGITS = 3


def _p(value: float | None, digits: int) -> str | None:
    """p-values span hundreds of orders of magnitude: significant digits, not decimals."""
    return None if value is None else f"{value:.{digits}g}"


def _table1_rows(analysis: Analysis) -> list[tuple[Any, ...]]:
    by_key = {(s.model, s.experiment): s for s in analysis.samples}
    experiments = [e for e in EXPERIMENTS if any(s.experiment == e for s in analysis.samples)]
    rows = []
    for experiment in experiments:
        cells: list[Any] = [EXPERIMENTS[experiment][0], experiment]
        for subset in SUBSETS:
            for model in analysis.models:
                sample = by_key.get((model, experiment))
                n, c = sample.accuracy[subset] if sample else (0, 0)
                cells.append(c / n if n else None)
        rows.append(tuple(cells))
    return rows


def _table1latex_table(analysis: Analysis, rows: list[tuple[Any, ...]]) -> str:
    models = [tex_escape(m) for m in analysis.models]
    k = len(models)
    spec = "ll" + ("|" + "r" * k) * len(SUBSETS)
    titles = [tex_escape(SUBSET_TITLES[s]).replace("≠", r"$\neq$") for s in SUBSETS]
    groups = " & ".join(rf"\multicolumn{{{k}}}{{c}}{{{title}}}" for title in titles)
    lines = [
        rf"\begin{{tabular}}{{{spec}}}", r"\toprule", rf" & & {groups} \\",
        "Exp & Sample & " + " & ".join(models * len(SUBSETS)) + r" \\", r"\midrule",
    ]  # fmt: skip
    for exp, sample, *values in rows:
        name = tex_escape(sample).replace(r"\_", "_")
        head, _, tail = name.partition("_")
        cells = [str(exp), rf"$\mathit{{{head}}}_{{\mathit{{{tail}}}}}$"]
        cells += [fmt_cell(v, DISPLAY_DIGITS, "") for v in values]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _write_table1(analysis: Analysis, out_dir: Path) -> list[Path]:
    rows = _table1_rows(analysis)
    csv_header = ["exp", "sample", *(f"{s}_{m}" for s in SUBSETS for m in analysis.models)]
    md_header = ["Exp", "Sample",
                 *(f"{SUBSET_TITLES[s].split(':')[0]}: {m}" for s in SUBSETS for m in analysis.models)]  # fmt: skip
    paths = [out_dir / f"table1.{ext}" for ext in ("md", "csv", "tex")]
    md_rows = [tuple("" if v is None else v for v in row) for row in rows]
    legend = "".join(f"- {SUBSET_TITLES[s]}\n" for s in SUBSETS)
    write_text_atomic(paths[0], markdown_table(md_header, md_rows, DISPLAY_DIGITS) + "\n" + legend)
    write_text_atomic(paths[1], csv_table(csv_header, rows, CSV_DIGITS))
    write_text_atomic(paths[2], _table1latex_table(analysis, rows))
    return paths


def _accuracycsv_table(analysis: Analysis) -> str:
    header = ["model", "exp", "sample", "subset", "n", "correct", "accuracy", "rows_in", "excluded_no_gold"]
    rows = []
    for s in analysis.samples:
        excluded = s.counts.input - s.counts.kept
        for subset in SUBSETS:
            n, c = s.accuracy[subset]
            rows.append((s.model, EXPERIMENTS[s.experiment][0], s.experiment, subset, n, c,
                         c / n if n else None, s.counts.input, excluded))  # fmt: skip
    return csv_table(header, rows, CSV_DIGITS)


_FACTORS = list(FACTOR_TESTS)


def _ordered(analysis: Analysis) -> list[TestRecord]:
    order = list(EXPERIMENTS)
    return sorted(analysis.tests, key=lambda t: (
        analysis.models.index(t.model), order.index(t.experiment), _FACTORS.index(t.factor)))  # fmt: skip


def _test_rows(tests: Sequence[TestRecord], digits: int) -> list[tuple[Any, ...]]:
    return [
        (t.model, EXPERIMENTS[t.experiment][0], t.experiment, t.factor, FACTOR_TESTS[t.factor],
         t.result.variant, t.table.n, t.result.statistic, t.result.dof,
         _p(t.result.p_value, digits), _p(t.result.p_corrected, digits), t.result.family_size,
         t.result.verdict)
        for t in tests
    ]  # fmt: skip


def _testslatex_table(header: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> str:
    lines = [r"\begin{tabular}{llllllrrrrrrl}", r"\toprule",
             " & ".join(tex_escape(h) for h in header) + r" \\", r"\midrule"]  # fmt: skip
    for row in rows:
        cells = [tex_escape(v) if isinstance(v, str) else fmt_cell(v, DISPLAY_DIGITS, "--") for v in row]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _write_tests(analysis: Analysis, out_dir: Path) -> list[Path]:
    tests = _ordered(analysis)
    header = ["model", "exp", "sample", "factor", "test", "variant", "n", "statistic", "dof",
              "p", "p_corrected", "family_size", "verdict"]  # fmt: skip
    paths = [out_dir / f"tests.{ext}" for ext in ("md", "csv", "tex")]
    alpha = analysis.settings.alpha
    note = (f"\nVerdict: reject when the {analysis.settings.correction}-corrected p < alpha = {alpha:g}; "
            "`stats.json` says why each variant ran.\n")  # fmt: skip
    write_text_atomic(paths[0], markdown_table(header, _test_rows(tests, 3), DISPLAY_DIGITS) + note)
    write_text_atomic(paths[1], csv_table(header, _test_rows(tests, CSV_DIGITS), CSV_DIGITS))
    write_text_atomic(paths[2], _testslatex_table(header, _test_rows(tests, 3)))
    return paths


def _contingency_rows(table: Contingency) -> tuple[list[str], list[tuple[Any, ...]]]:
    header = [f"{table.row_title} \\ {table.column_title}", *table.columns]
    rows = [(label, *(int(v) for v in counts)) for label, counts in zip(table.rows, table.counts, strict=True)]
    return header, rows


def _write_contingency(analysis: Analysis, out_dir: Path) -> list[Path]:
    paths = []
    parts = ["# Contingency tables\n"]
    for t in _ordered(analysis):
        header, rows = _contingency_rows(t.table)
        path = out_dir / "contingency" / t.model / f"{t.experiment}_{t.factor}.csv"
        write_text_atomic(path, csv_table(header, rows, CSV_DIGITS))
        paths.append(path)
        excluded = ", ".join(f"{n} {why}" for why, n in sorted(t.table.excluded.items())) or "none"
        stat = fmt_cell(t.result.statistic, DISPLAY_DIGITS, "n/a")
        parts.append(
            f"\n## {t.model}, {t.experiment}: {t.factor} ({FACTOR_TESTS[t.factor]})\n\n"
            + markdown_table(header, rows, DISPLAY_DIGITS)
            + f"\n{t.result.variant}: statistic {stat}, dof {fmt_cell(t.result.dof, 0, 'n/a')}, "
            f"p {_p(t.result.p_value, 3) or 'n/a'}, corrected p {_p(t.result.p_corrected, 3) or 'n/a'}, "
            f"verdict {t.result.verdict} ({t.result.why}). Rows left out: {excluded}.\n"
        )
    path = out_dir / "contingency.md"
    write_text_atomic(path, "".join(parts))
    return [path, *paths]


def write_report(analysis: Analysis, out_dir: str | Path) -> list[Path]:
    """Write every output file of ``nlistress stats`` (module doc); return the paths."""
    out_dir = Path(out_dir)
    written = _write_table1(analysis, out_dir)
    path = out_dir / "accuracy.csv"
    write_text_atomic(path, _accuracycsv_table(analysis))
    written.append(path)
    written += _write_tests(analysis, out_dir)
    written += _write_contingency(analysis, out_dir)
    path = out_dir / "stats.json"
    write_json_atomic(path, {
        "settings": analysis.settings.as_dict(),
        "models": analysis.models,
        "samples": [s.as_dict() for s in analysis.samples],
        "tests": [t.as_dict() for t in _ordered(analysis)],
    })  # fmt: skip
    written.append(path)
    return written
