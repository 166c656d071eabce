"""The evaluation's report: ``REPORT.md``, ``evaluation.json`` and ``figures/accuracy.png``.

The Markdown opens with what answered (for a prompted model the template's
name, version and sha256: numbers from different templates are not
comparable), then one table over every set, then each paper's view: Naik et
al.'s accuracy and false-neutral share with the range of the paper's seven
systems beside ours, Sinha et al.'s permutation acceptance, Sanchez et al.'s
Table 1 and tests (the ``swap/`` files), and the breakdowns by genre /
category / experiment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomic import write_json_atomic, write_text_atomic
from ..figures import FigureSize, new_figure, save_png
from ..models.score import breakdown_sections, interval_text, percent
from ..report.papers import PAPERS_DIR, load_paper
from ..tables import markdown_table

#: Naik et al.'s tables whose columns are stress sets: accuracy (Table 3), false neutral (Table 4)
NAIK_TABLES = {"table3": "accuracy", "table4": "false_neutral_share"}


def paper_ranges(papers: Path = PAPERS_DIR) -> dict[str, dict[tuple[str, str, str], tuple[float, float]]]:
    """For each Naik metric, (test, dataset, split) -> (lowest, highest) of the paper's systems (0-1)."""
    paper = load_paper(papers / "naik2018.yaml")
    ranges: dict[str, dict[tuple[str, str, str], tuple[float, float]]] = {}
    for table in paper.tables:
        metric = NAIK_TABLES.get(table.id)
        if metric is None:
            continue
        for c, column in enumerate(table.columns):
            link = {**table.link, **column.link}
            values = [row[c] / table.scale for row in table.values if row[c] is not None]
            if values:
                key = (str(link.get("test")), str(link.get("dataset")), str(link.get("split")))
                ranges.setdefault(metric, {})[key] = (min(values), max(values))
    return ranges


def _range_for(ranges: Mapping[tuple[str, str, str], tuple[float, float]], r: Mapping[str, Any]) -> str:
    """The paper's range for this set: same test and split, else same test (split named)."""
    test = "canonical" if r["family"] == "canonical" else r["test"]
    exact = ranges.get((test, str(r.get("dataset")), str(r.get("split"))))
    if exact is not None:
        return f"{100 * exact[0]:.1f} to {100 * exact[1]:.1f}"
    same_test = [(k, v) for k, v in ranges.items() if k[0] == test]
    if same_test and test != "canonical":  # e.g. numerical: the paper's column is AQuA-RAT train
        (_, d, s), (low, high) = same_test[0]
        return f"{100 * low:.1f} to {100 * high:.1f} ({d} {s})"
    return "—"


def _gap(r: Mapping[str, Any]) -> tuple[str, str]:
    audit = r.get("audit") or {}
    hyp = audit.get("hypothesis_only")
    if hyp is None:
        return "—", "—"
    return percent(hyp), f"{100 * (r['accuracy'] - hyp):+.1f}"


def _overview(results: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for r in results:
        hyp, gap = _gap(r)
        missing = r["rows"]["unscored"].get("no prediction", 0)
        note = f"{missing:,} without an answer" if missing else ""
        rows.append([r["family"], r["key"].split("/", 1)[1], f"{r['rows']['scored']:,}", percent(r["accuracy"]),
                     interval_text(r.get("accuracy_interval")), percent(r["false_neutral_share"]), hyp, gap, note])  # fmt: skip
    header = ["family", "set", "rows", "accuracy (%)", "interval (%)", "false neutral (% of errors)",
              "hypothesis-only (%)", "gap (pp)", "not scored"]  # fmt: skip
    return markdown_table(header, rows, align="lllrrrrrl")


def _naik(results: Sequence[Mapping[str, Any]], ranges: Mapping[str, Any]) -> str:
    papers_columns = ranges.get("accuracy", {})
    stress = [r for r in results if r["family"] == "stress" or (
        r["family"] == "canonical" and ("canonical", r.get("dataset"), r.get("split")) in papers_columns)]
    if not any(r["family"] == "stress" for r in stress):
        return ""
    rows = [[r["test"], r["key"].split("/", 1)[1], percent(r["accuracy"]), _range_for(ranges.get("accuracy", {}), r),
             percent(r["false_neutral_share"]), _range_for(ranges.get("false_neutral_share", {}), r)]
            for r in stress]  # fmt: skip
    header = ["test", "set", "accuracy (%)", "paper's 7 systems (%)", "false neutral (% of errors)",
              "paper's systems (%)"]  # fmt: skip
    return ("\n## Stress tests (Naik et al. 2018)\n\nThe paper's range is the lowest and highest of its "
            "systems (Tables 3 and 4, MultiNLI-trained); ours beside it.\n\n"
            + markdown_table(header, rows, align="llrrrr"))  # fmt: skip


def _sinha(permute: Sequence[Mapping[str, Any]]) -> str:
    if not permute:
        return ""

    def num(value: Any) -> str:
        return "—" if value is None else f"{value:.3f}"

    rows = [[p["set"], f"{p['used_examples']:,}", num(p["A"]), num(p["omega_max"]), num(p["omega_rand"]),
             num(p["P_c"]), num(p["P_f"]), num(p["mean_entropy_accepted"])] for p in permute]  # fmt: skip
    header = ["set", "examples used", "A", "Ω_max", "Ω_rand", "P^c", "P^f", "entropy (accepted)"]
    return ("\n## Word-order permutations (Sinha et al. 2021)\n\nΩ_max: share of examples with at least one "
            "permutation answered with the gold label; Ω_rand: with at least the configured share; P^c / P^f: "
            "mean share of permutations accepted for examples the model gets right / wrong. Tables and "
            "figures: `permute/`.\n\n" + markdown_table(header, rows, align="lrrrrrrr"))  # fmt: skip


def _sanchez(output: Path, swap: Mapping[str, Any] | None) -> str:
    if not swap:
        return ""
    parts = ["\n## Word-pair swaps (Sanchez et al. 2018)\n\nFiles: `swap/` (contingency tables, stats.json).\n"]
    for name in ("table1.md", "tests.md"):
        path = output / "swap" / name
        if path.is_file():
            parts.append("\n" + path.read_text(encoding="utf-8").replace("\n# ", "\n### ").lstrip("# ").strip() + "\n")
    return "".join(parts)


def _model_lines(model: Mapping[str, Any]) -> str:
    lines = [f"- answered by: `{model['kind']}:{model['target']}`" if model["kind"] != "model"
             else f"- answered by: model `{model['target']}`"]  # fmt: skip
    template = model.get("template")
    if template:
        lines.append(f"- prompt template: `{template['name']}` version {template['version']} "
                     f"(sha256 {template['sha256'][:12]}…), {model.get('shots', 0)}-shot, "
                     f"answer read by {'likelihood of each label' if model.get('answer') == 'loglik' else 'parsing the reply'}")  # fmt: skip
        verbalisers = ", ".join(f"{label} = “{word.strip()}”" for label, word in template["verbalisers"].items())
        lines.append(f"- label words: {verbalisers}")
    if model.get("endpoint"):
        lines.append(f"- endpoint: {model['endpoint']} ({model['api']} API), requests sent this run "
                     f"{model.get('requests_sent', 0):,}, answered from the cache {model.get('cache_hits', 0):,}")  # fmt: skip
    return "\n".join(lines)


def _accuracy_figure(results: Sequence[Mapping[str, Any]], output: Path, size: FigureSize) -> Path:
    figure, (axis,) = new_figure(FigureSize(max(size.width, 0.5 * len(results) + 2), size.height, size.dpi), 1)
    names = [r["key"] for r in results]
    acc = [100 * r["accuracy"] for r in results]
    low = [100 * (r["accuracy"] - (r.get("accuracy_interval") or [r["accuracy"]] * 2)[0]) for r in results]
    high = [100 * ((r.get("accuracy_interval") or [r["accuracy"]] * 2)[1] - r["accuracy"]) for r in results]
    axis.bar(range(len(names)), acc, yerr=[low, high], capsize=3, color="#4c72b0")
    axis.set_xticks(range(len(names)))
    axis.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    axis.set_ylabel("accuracy (%)")
    axis.set_ylim(0, 100)
    return save_png(figure, output / "figures" / "accuracy.png", size)


def write_report(evaluation: Mapping[str, Any], output: Path, figure: FigureSize) -> list[Path]:
    """Write REPORT.md, evaluation.json and the accuracy figure into ``output``."""
    results = evaluation["sets"]
    model = evaluation["model"]
    notes = [f"- {s['set']}: {s['why']}" for s in evaluation["skipped"]]
    extra = evaluation["extra_predictions"]
    if extra["count"]:
        notes.append(f"- {extra['count']:,} predictions for uids in none of these sets were ignored "
                     f"(first: {', '.join(extra['first'])})")  # fmt: skip
    confidence = next((r["bootstrap"]["confidence"] for r in results if r.get("bootstrap")), 0.95)
    text = (
        f"# Evaluation of {model['name']}\n\n{_model_lines(model)}\n- nlistress {__version__}\n\n"
        f"## Every set\n\nIntervals: {confidence:.0%} percentile bootstrap over source examples. "
        "Gap: our accuracy minus a hypothesis-only classifier's on the same set (the set's audit), "
        "what the premise adds.\n\n" + _overview(results)
        + ("\n\nNot evaluated or left out:\n\n" + "\n".join(notes) + "\n" if notes else "\n")
        + _naik(results, paper_ranges()) + _sinha(evaluation["permute"]) + _sanchez(output, evaluation["swap"])
        + ("\n## Breakdowns\n" + breakdown_sections(results) if any(r.get("breakdown") for r in results) else "")
    )  # fmt: skip
    written = [output / "REPORT.md", output / "evaluation.json"]
    write_text_atomic(written[0], text.rstrip() + "\n")
    write_json_atomic(written[1], evaluation)
    written.append(_accuracy_figure(results, output, figure))
    return written
