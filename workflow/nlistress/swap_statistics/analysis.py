"""From runs (model, control set, transformed set, their predictions) to every test of the paper.

For each transformed sample T with control C (e.g. I_TH from I_H) and each
model: McNemar's test C vs T, the insensitivity test of independence, the
seen/unseen test of homogeneity, and polarity x prediction independence on T;
on each control sample, polarity x prediction and its accuracies. A control
shared by several runs (I_A for I_TA1-3) is computed once per model; the
tests of one family (``swap.stats.family``: a model, or a model and
experiment number) are Bonferroni-corrected together.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import sha256_file
from ..errors import ConfigError, DataError
from ..manifest import RowCounts
from .hypothesis_tests import StatsSettings, TestResult, chi_square, correct, mcnemar
from .samples import CONTROLS, EXPERIMENTS, Sample, read_samples
from .tables import (
    Contingency,
    insensitivity_table,
    mcnemar_table,
    polarity_table,
    subset_accuracy,
    unseen_table,
)

RUN_KEYS = ("model", "control", "transformed", "predictions_control", "predictions_transformed")
# Factor -> the test that studies it (section 5.5 of the paper).
FACTOR_TESTS = {
    "mcnemar": "McNemar (control vs transformed)",
    "insensitivity": "chi-square independence",
    "unseen": "chi-square homogeneity",
    "polarity": "chi-square independence",
}
_MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


@dataclass(frozen=True)
class Run:
    """One model on one control set and one transformed set."""

    model: str
    control: Path
    transformed: Path
    predictions_control: Path
    predictions_transformed: Path

    @classmethod
    def from_mapping(cls, run: Mapping[str, Any], where: str) -> Run:
        """A run from its keys; ``transformed`` / ``predictions_transformed`` default to the
        control's (a set file that holds both the control and the transformed rows)."""
        run = dict(run)
        for key in ("transformed", "predictions_transformed"):
            run[key] = run.get(key) or run.get(key.replace("transformed", "control"))
        missing = [k for k in RUN_KEYS if not run.get(k)]
        if missing:
            raise ConfigError(f"{where}: missing {', '.join(missing)}")
        unknown = sorted(set(run) - set(RUN_KEYS))
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")
        model = str(run["model"])
        if not _MODEL_NAME.match(model):
            raise ConfigError(
                f"{where}: model name {model!r} must be letters, digits, '_', '.', '+' or '-' "
                "(it names output files)"
            )
        return cls(model, *(Path(run[k]) for k in RUN_KEYS[1:]))


@dataclass(frozen=True)
class SampleResult:
    """A model's accuracies on one sample, with the rows left out by reason."""

    model: str
    experiment: str
    set_path: str
    predictions_path: str
    counts: RowCounts
    accuracy: dict[str, tuple[int, int]]  # subset -> (rows, correct)
    set_sha256: str
    predictions_sha256: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "experiment": self.experiment,
            "exp": EXPERIMENTS[self.experiment][0], "set": self.set_path,
            "predictions": self.predictions_path, "rows": self.counts.as_dict(),
            "set_sha256": self.set_sha256, "predictions_sha256": self.predictions_sha256,
            "accuracy": {
                name: {"n": n, "correct": c, "accuracy": c / n if n else None}
                for name, (n, c) in self.accuracy.items()
            },
        }  # fmt: skip


@dataclass(frozen=True)
class TestRecord:
    """One test of one model: the sample, the factor, its table and its result."""

    model: str
    experiment: str  # the sample the table is built on
    control: str | None  # the control sample (paired tests)
    factor: str
    table: Contingency
    result: TestResult
    __test__ = False  # not a pytest class

    def family_key(self, settings: StatsSettings) -> tuple[Any, ...]:
        if settings.family == "model":
            return (self.model,)
        return (self.model, EXPERIMENTS[self.experiment][0])

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        return {
            "model": self.model, "experiment": self.experiment,
            "exp": EXPERIMENTS[self.experiment][0], "control": self.control,
            "factor": self.factor, "test": FACTOR_TESTS[self.factor], "variant": r.variant,
            "why": r.why, "statistic": r.statistic, "dof": r.dof, "p_value": r.p_value,
            "p_corrected": r.p_corrected, "family_size": r.family_size, "verdict": r.verdict,
            "dropped_rows": list(r.dropped_rows), "dropped_columns": list(r.dropped_columns),
            "table": self.table.as_dict(),
        }  # fmt: skip


@dataclass
class Analysis:
    """Everything ``nlistress stats`` writes: per-sample accuracies and corrected tests."""

    models: list[str]  # in the order of the runs
    samples: list[SampleResult]
    tests: list[TestRecord]
    settings: StatsSettings


def _sample_result(model: str, sample: Sample) -> SampleResult:
    return SampleResult(
        model, sample.experiment, str(sample.set_path), str(sample.predictions_path),
        sample.counts, subset_accuracy(sample), sha256_file(sample.set_path),
        sha256_file(sample.predictions_path),
    )  # fmt: skip


def _chi(table: Contingency, settings: StatsSettings) -> TestResult:
    return chi_square(table.counts, settings, table.rows, table.columns)


def _add_sample(
    seen: dict[tuple[str, str], SampleResult], result: SampleResult, role: str
) -> bool:
    """Record a sample once per model; the same sample from two different builds is an error."""
    key = (result.model, result.experiment)
    earlier = seen.get(key)
    if earlier is None:
        seen[key] = result
        return True
    if role == "transformed":
        raise DataError(
            result.set_path, f"model {result.model}: {result.experiment} is in two runs"
        )
    if (earlier.counts.as_dict(), earlier.accuracy) != (result.counts.as_dict(), result.accuracy):
        raise DataError(
            result.set_path,
            f"model {result.model}: control {result.experiment} differs from the one in "
            f"{earlier.set_path} (predictions {earlier.predictions_path}); one control per model",
        )
    return False


def _split_roles(run: Run) -> tuple[dict[str, Sample], dict[str, Sample]]:
    """The control samples of the control file and the transformed samples of the other.

    A swap set file may hold both (one experiment's control and transformed
    rows); then the same file and predictions serve as both and are read once.
    """
    control_samples = read_samples(run.control, run.predictions_control)
    same = (run.transformed, run.predictions_transformed) == (run.control, run.predictions_control)
    transformed_samples = (
        control_samples if same else read_samples(run.transformed, run.predictions_transformed)
    )
    controls = {e: s for e, s in control_samples.items() if s.role == "control"}
    transformed = {e: s for e, s in transformed_samples.items() if s.role == "transformed"}
    if not controls:
        raise DataError(run.control, f"no control rows (experiment {', '.join(CONTROLS)})")
    if not transformed:
        raise DataError(run.transformed, "no transformed rows (experiment "
                        f"{', '.join(e for e in EXPERIMENTS if e not in CONTROLS)})")  # fmt: skip
    return controls, transformed


def analyse(runs: Sequence[Run], settings: StatsSettings) -> Analysis:
    """Run every test of every run, then correct each family; see the module doc."""
    if not runs:
        raise ConfigError("no runs")
    models = list(dict.fromkeys(run.model for run in runs))
    seen: dict[tuple[str, str], SampleResult] = {}
    tests: list[TestRecord] = []
    for run in runs:
        controls, transformed = _split_roles(run)
        for name, sample in transformed.items():
            control_name = EXPERIMENTS[name][1]
            control = controls.get(control_name)
            if control is None:
                raise DataError(run.control, f"no rows of {control_name}, the control of {name}")
            if _add_sample(seen, _sample_result(run.model, control), "control"):
                table = polarity_table(control)
                tests.append(TestRecord(run.model, control_name, None, "polarity", table,
                                        _chi(table, settings)))  # fmt: skip
            _add_sample(seen, _sample_result(run.model, sample), "transformed")
            table = mcnemar_table(control, sample)
            tests.append(TestRecord(run.model, name, control_name, "mcnemar", table,
                                    mcnemar(table.counts, settings)))  # fmt: skip
            table = insensitivity_table(control, sample)
            tests.append(TestRecord(run.model, name, control_name, "insensitivity", table,
                                    _chi(table, settings)))  # fmt: skip
            for table in (unseen_table(sample), polarity_table(sample)):
                tests.append(TestRecord(run.model, name, None, table.factor, table,
                                        _chi(table, settings)))  # fmt: skip
    tests = _corrected(tests, settings)
    order = list(EXPERIMENTS)
    samples = sorted(seen.values(), key=lambda s: (models.index(s.model), order.index(s.experiment)))
    return Analysis(models, samples, tests, settings)


def _corrected(tests: list[TestRecord], settings: StatsSettings) -> list[TestRecord]:
    families: dict[tuple[Any, ...], list[int]] = {}
    for i, test in enumerate(tests):
        families.setdefault(test.family_key(settings), []).append(i)
    out = list(tests)
    for members in families.values():
        results = correct([tests[i].result for i in members], settings)
        for i, result in zip(members, results, strict=True):
            t = tests[i]
            out[i] = TestRecord(t.model, t.experiment, t.control, t.factor, t.table, result)
    return out
