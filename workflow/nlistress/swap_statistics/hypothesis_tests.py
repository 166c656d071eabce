"""McNemar, chi-square (Pearson, Yates) and Fisher tests, and the Bonferroni correction.

The tests are written out from their definitions over scipy's chi2 and binom
distributions, so every statistic, degree of freedom and decision can be
recorded (and checked against statsmodels / scipy in the tests). Which variant
runs is decided from the table by the rule below, with thresholds from
``swap.stats`` in params.yaml; the result says which variant ran and why.

McNemar (paired correct/incorrect on control and transformed rows), with
b and c the discordant counts:

- ``b + c < mcnemar.exact_below``: exact two-sided binomial test,
  p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2); statistic min(b, c).
- otherwise: chi-square with 1 dof, (|b - c| - k)^2 / (b + c), with k = 1
  (Edwards' continuity correction) if ``mcnemar.continuity``, else 0.

Chi-square independence / homogeneity (both compute the same Pearson
statistic; they differ in how the sample was drawn). Rows or columns that
are all zero are dropped first (their expected counts would be 0); fewer than
two rows or columns left: not applicable. With E the smallest expected count:

- 2x2 and E < ``chi2.fisher_below``: Fisher's exact test (two-sided);
- 2x2 and E < ``chi2.small_expected``: ``chi2.small_2x2`` (``yates``:
  Pearson with Yates' correction, |O - E| reduced by min(0.5, |O - E|);
  ``fisher``: Fisher's exact test);
- otherwise Pearson's chi-square with (r - 1)(c - 1) dof. A larger table with
  small expected counts has no exact alternative here; the result says how
  many cells fall below ``chi2.small_expected``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats

from ..errors import ConfigError
from ..schema import checked


@dataclass(frozen=True)
class StatsSettings:
    """``swap.stats`` of params.yaml: significance level, correction and small-count rules."""

    alpha: float = 0.0001
    correction: str = "bonferroni"
    family: str = "model"
    mcnemar_exact_below: int = 25
    mcnemar_continuity: bool = True
    small_expected: float = 5.0
    fisher_below: float = 1.0
    small_2x2: str = "yates"

    @classmethod
    def from_mapping(cls, section: Any) -> StatsSettings:
        """``swap.stats`` as typed settings (None: the defaults). The schema checks each
        value; only the relation of the two chi-square thresholds is checked here."""
        if section is None:
            return cls()
        section = checked(section, "swap", "stats")
        mcnemar, chi2, default = section.get("mcnemar") or {}, section.get("chi2") or {}, cls()
        settings = cls(
            alpha=float(section.get("alpha", default.alpha)),
            correction=section.get("correction", default.correction),
            family=section.get("family", default.family),
            mcnemar_exact_below=mcnemar.get("exact_below", default.mcnemar_exact_below),
            mcnemar_continuity=mcnemar.get("continuity", default.mcnemar_continuity),
            small_expected=float(chi2.get("small_expected", default.small_expected)),
            fisher_below=float(chi2.get("fisher_below", default.fisher_below)),
            small_2x2=chi2.get("small_2x2", default.small_2x2),
        )
        if settings.fisher_below > settings.small_expected:
            raise ConfigError(
                f"swap.stats.chi2.fisher_below ({settings.fisher_below}) must not exceed "
                f"small_expected ({settings.small_expected})"
            )
        return settings

    def as_dict(self) -> dict[str, Any]:
        """The settings in params.yaml's shape, for stats.json."""
        return {
            "alpha": self.alpha, "correction": self.correction, "family": self.family,
            "mcnemar": {"exact_below": self.mcnemar_exact_below, "continuity": self.mcnemar_continuity},
            "chi2": {"small_expected": self.small_expected, "fisher_below": self.fisher_below,
                     "small_2x2": self.small_2x2},
        }  # fmt: skip


@dataclass(frozen=True)
class TestResult:
    """One test: which variant ran and why, its statistic, dof and p-values, and the verdict.

    ``p_corrected`` and ``verdict`` are filled by :func:`correct`; a test that
    could not run (``variant == "not_applicable"``) has no p-value and is not
    part of the family.
    """

    variant: str  # mcnemar_exact, mcnemar_chi2, chi2, chi2_yates, fisher_exact, not_applicable
    why: str
    statistic: float | None
    dof: int | None
    p_value: float | None
    dropped_rows: tuple[str, ...] = ()
    dropped_columns: tuple[str, ...] = ()
    p_corrected: float | None = None
    family_size: int | None = None
    verdict: str = "n/a"
    __test__ = False  # not a pytest class

    @property
    def applicable(self) -> bool:
        return self.p_value is not None


def mcnemar(table: np.ndarray, settings: StatsSettings) -> TestResult:
    """McNemar's test on a 2x2 table of paired outcomes (rows: control, columns: transformed)."""
    table = np.asarray(table, dtype=np.int64)
    if table.shape != (2, 2):
        raise ValueError(f"mcnemar: expected a 2x2 table, got shape {table.shape}")
    b, c = int(table[0, 1]), int(table[1, 0])
    n = b + c
    if n < settings.mcnemar_exact_below or n == 0:
        k = min(b, c)
        p = min(1.0, 2.0 * float(stats.binom.cdf(k, n, 0.5)))
        why = f"discordant pairs b + c = {n} < exact_below {settings.mcnemar_exact_below}: exact binomial test"
        return TestResult("mcnemar_exact", why, float(k), None, p)
    k = 1 if settings.mcnemar_continuity else 0
    statistic = (abs(b - c) - k) ** 2 / n
    why = (
        f"discordant pairs b + c = {n} >= exact_below {settings.mcnemar_exact_below}: chi-square"
        + (" with continuity correction" if k else "")
    )
    return TestResult("mcnemar_chi2", why, float(statistic), 1, float(stats.chi2.sf(statistic, 1)))


def expected_counts(table: np.ndarray) -> np.ndarray:
    """Expected counts under independence: row total x column total / grand total."""
    table = np.asarray(table, dtype=np.float64)
    return np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()


def pearson(table: np.ndarray, yates: bool = False) -> tuple[float, int, float]:
    """Pearson's chi-square statistic, dof and p-value (Yates' correction on request)."""
    observed = np.asarray(table, dtype=np.float64)
    expected = expected_counts(observed)
    deviation = np.abs(observed - expected)
    if yates:
        deviation = deviation - np.minimum(0.5, deviation)
    statistic = float((deviation**2 / expected).sum())
    dof = (observed.shape[0] - 1) * (observed.shape[1] - 1)
    return statistic, dof, float(stats.chi2.sf(statistic, dof))


def chi_square(
    table: np.ndarray,
    settings: StatsSettings,
    rows: Sequence[str],
    columns: Sequence[str],
) -> TestResult:
    """Chi-square test of independence / homogeneity, or Fisher's exact test (rule in the module doc)."""
    table = np.asarray(table, dtype=np.int64)
    keep_rows = table.sum(axis=1) > 0
    keep_cols = table.sum(axis=0) > 0
    dropped_rows = tuple(r for r, keep in zip(rows, keep_rows, strict=True) if not keep)
    dropped_cols = tuple(c for c, keep in zip(columns, keep_cols, strict=True) if not keep)
    table = table[keep_rows][:, keep_cols]
    if table.shape[0] < 2 or table.shape[1] < 2:
        why = f"{table.shape[0]} non-empty row(s) x {table.shape[1]} non-empty column(s): no test"
        return TestResult("not_applicable", why, None, None, None, dropped_rows, dropped_cols)
    expected = expected_counts(table)
    smallest = float(expected.min())
    small = int((expected < settings.small_expected).sum())
    base = TestResult("chi2", "", None, None, None, dropped_rows, dropped_cols)
    if table.shape == (2, 2):
        if smallest < settings.fisher_below:
            rule = f"< fisher_below {settings.fisher_below:g}"
        elif smallest < settings.small_expected and settings.small_2x2 == "fisher":
            rule = f"< small_expected {settings.small_expected:g} and small_2x2 is fisher"
        else:
            rule = ""
        if rule:
            odds, p = stats.fisher_exact(table)
            why = f"2x2, smallest expected count {smallest:.3g} {rule}: Fisher's exact test"
            odds = float(odds)
            return replace(base, variant="fisher_exact", why=why, p_value=float(p),
                           statistic=odds if np.isfinite(odds) else None)  # fmt: skip
        if smallest < settings.small_expected:
            statistic, dof, p = pearson(table, yates=True)
            why = (
                f"2x2, smallest expected count {smallest:.3g} < small_expected "
                f"{settings.small_expected:g}: Yates' correction"
            )
            return replace(base, variant="chi2_yates", why=why, statistic=statistic, dof=dof, p_value=p)
    statistic, dof, p = pearson(table)
    why = f"smallest expected count {smallest:.3g}"
    if small:
        why += (
            f"; {small} of {table.size} cells below {settings.small_expected:g} "
            "(no exact test for larger tables; read with care)"
        )
    else:
        why += f" >= {settings.small_expected:g}: Pearson chi-square"
    return replace(base, why=why, statistic=statistic, dof=dof, p_value=p)


def correct(results: Sequence[TestResult], settings: StatsSettings) -> list[TestResult]:
    """Bonferroni-correct one family: p x m (capped at 1), m = tests that ran; verdict at alpha.

    The null hypothesis is rejected when the corrected p-value is below alpha
    (the paper's "p < 0.0001"). With ``correction: none`` p is kept as is.
    """
    m = sum(r.applicable for r in results)
    out = []
    for r in results:
        if not r.applicable:
            out.append(r)
            continue
        p = min(1.0, r.p_value * m) if settings.correction == "bonferroni" else r.p_value
        verdict = "reject" if p < settings.alpha else "not reject"
        out.append(replace(r, p_corrected=p, family_size=m, verdict=verdict))
    return out
