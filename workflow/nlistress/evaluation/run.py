"""One model on many sets: answers, scores, and each paper's own metrics.

* every set: accuracy with its bootstrap interval, false-neutral share,
  breakdowns (``nlistress score``), and the hypothesis-only gap: the model's
  accuracy minus what a hypothesis-only classifier gets on the same set (the
  set's artifact audit), i.e. how much of the score needs the premise at all;
* stress sets (Naik et al.): the range of the paper's seven systems beside ours;
* permuted sets (Sinha et al.): Ω_max, Ω_rand, P^c, P^f, flips and entropy,
  from the answers on the permuted rows and on the original examples;
* swap sets (Sanchez et al.): Table 1 with McNemar and chi-square tests.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import OUTPUT_MARK, check_replaceable, sha256_file
from ..errors import DataError
from ..figures import FigureSize
from ..predictions import prob_tolerance
from .answers import Answers
from .sets import EvalSet, original_of
from .specs import ModelSpec

log = logging.getLogger("nlistress")


def _score(evalset: EvalSet, predictions: Path, params: Mapping[str, Any], strict: bool) -> dict[str, Any]:
    from ..models.score import ScoreSettings, score_set

    return score_set(evalset.path, predictions, prob_tolerance(params), ScoreSettings.from_params(params), strict)


def _uncovered(table: Path, predictions: Path) -> int:
    """Rows of ``table`` (labelled or not) without an answer in ``predictions``."""
    uids = pq.read_table(table, columns=["uid"])["uid"]
    answered = pq.read_table(predictions, columns=["uid"])["uid"]
    return int(len(uids) - pc.sum(pc.is_in(uids, value_set=answered)).as_py())


def _audit(evalset: EvalSet) -> dict[str, Any] | None:
    """Majority and hypothesis-only accuracy from the set's audit, when it matches the set."""
    if not evalset.audit.is_file():
        return None
    try:
        audit = json.loads(evalset.audit.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if audit.get("sha256") != sha256_file(evalset.path):
        return None  # an audit of another build of the set
    hyp = audit.get("hypothesis_only") or {}
    return {"majority": (audit.get("majority") or {}).get("accuracy"), "hypothesis_only": hyp.get("accuracy"),
            "hypothesis_only_method": hyp.get("method")}  # fmt: skip


def _permutation_metrics(model: str, runs: Sequence[tuple[EvalSet, Path, Path, Path]],
                         params: Mapping[str, Any], output: Path) -> list[dict[str, Any]]:  # fmt: skip
    from ..permutations.metrics import MetricSettings, compute_metrics, write_tables

    section = (params.get("permute") or {}).get("metrics")
    settings = MetricSettings.from_mapping(section)
    figure = FigureSize.from_mapping((section or {}).get("figure"), "permute.metrics.figure")
    results = [compute_metrics(model, s.path, permuted, original, canonical, settings)
               for s, permuted, original, canonical in runs]  # fmt: skip
    write_tables(results, output / "permute", figure=figure)
    return [{"set": s.key, **r.summary} for (s, *_), r in zip(runs, results, strict=True)]


def _swap_statistics(model: str, runs: Sequence[tuple[EvalSet, Path]], params: Mapping[str, Any],
                     output: Path) -> dict[str, Any]:  # fmt: skip
    from ..swap_statistics.analysis import Run, analyse
    from ..swap_statistics.hypothesis_tests import StatsSettings
    from ..swap_statistics.report import write_report

    settings = StatsSettings.from_mapping((params.get("swap") or {}).get("stats"))
    analysis = analyse([Run(model, s.path, s.path, p, p) for s, p in runs], settings)
    write_report(analysis, output / "swap")
    return {"samples": [s.as_dict() for s in analysis.samples], "tests": [t.as_dict() for t in analysis.tests]}


def evaluate(spec: ModelSpec, sets: Sequence[EvalSet], output: Path, params: Mapping[str, Any],
             data: Path, device: Any, strict: bool = False, base_url: str | None = None,
             cache: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Evaluate ``spec`` on ``sets`` into ``output``; return everything the report shows.

    Answers are kept as they are made (a rerun resumes from them); a run that fails before
    any answer was written leaves no output folder behind.
    """
    check_replaceable(output)  # a user's own non-empty folder is refused unless --force
    created = not output.exists()
    output.mkdir(parents=True, exist_ok=True)
    (output / OUTPUT_MARK).touch()
    try:
        return _evaluate(spec, sets, output, params, data, device, strict, base_url, cache)
    except BaseException:
        if created and all(p.name == OUTPUT_MARK for p in output.iterdir()):
            shutil.rmtree(output)
        raise


def _evaluate(spec: ModelSpec, sets: Sequence[EvalSet], output: Path, params: Mapping[str, Any],
              data: Path, device: Any, strict: bool, base_url: str | None,
              cache: str | None) -> dict[str, Any]:  # fmt: skip
    answers = Answers(spec, params, output, device, base_url, cache)
    # A language model's unanswered rows are an outcome, counted; a predictions file's gaps are
    # what --strict is about.
    strict_scores = strict and not spec.runs_a_model
    scores, skipped, permute_runs, swap_runs = [], [], [], []
    originals = {}  # each source split once, first: the accuracy every set's drop is measured from
    for evalset in sets:
        original = original_of(evalset, data)
        if original is not None:
            originals.setdefault(original.key, original)
    answered: dict[str, Path] = {}
    for evalset in [*originals.values(), *sets]:
        context = evalset.family == "canonical"  # an original split: context, never a reason to stop
        predictions = answers.for_table(evalset.path, evalset.key)
        if predictions is None:
            if strict and not context:
                raise DataError(Path(spec.target), f"no predictions for any row of {evalset.path}")
            skipped.append({"set": evalset.key, "why": "no predictions for its rows"})
            continue
        answered[evalset.key] = predictions
        result = _score(evalset, predictions, params, strict_scores and not context)
        result.update(family=evalset.family, test=evalset.test, key=evalset.key, dataset=evalset.dataset,
                      split=evalset.split, unanswered=answers.unanswered.get(evalset.key, 0),
                      audit=_audit(evalset))  # fmt: skip
        scores.append(result)
        uncovered = _uncovered(evalset.path, predictions)
        if evalset.family in ("swap", "permute") and uncovered:
            skipped.append({"set": evalset.key, "why": f"{evalset.family} metrics need an answer on every row; "
                            f"{uncovered:,} rows have none"})  # fmt: skip
        elif evalset.family == "swap":
            swap_runs.append((evalset, predictions))
        elif evalset.family == "permute":
            original = original_of(evalset, data)
            if original is None or original.key not in answered:
                skipped.append({"set": evalset.key, "why": "permutation metrics need answers on the "
                                "original examples (canonical table or its predictions not found)"})
            else:
                permute_runs.append((evalset, predictions, answered[original.key], original.path))
    extra = answers.extra_uids()
    if extra and strict:
        raise DataError(Path(spec.target), f"{len(extra)} predictions for uids in none of the evaluated "
                        f"sets (first: {extra[0]!r})")  # fmt: skip
    if not scores:
        raise DataError(Path(spec.target), "no set could be scored: " + "; ".join(
            f"{s['set']}: {s['why']}" for s in skipped))  # fmt: skip
    return {
        "model": answers.describe(),
        "sets": scores,
        "skipped": skipped,
        "extra_predictions": {"count": len(extra), "first": extra[:5]},
        "permute": _permutation_metrics(spec.name, permute_runs, params, output) if permute_runs else [],
        "swap": _swap_statistics(spec.name, swap_runs, params, output) if swap_runs else None,
    }
