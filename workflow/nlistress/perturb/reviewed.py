"""A rule-made set, kept only where annotators judged each row right.

Precision filters can drop every row a parse can show to be doubtful, but some
wrong labels leave no trace a parse can see ("Ibizan folklore is available" is
a generic statement; "Driving is easy because it is time consuming" gives no
reason), and a source text's own grammar faults are no rule's to find. Where
annotators have judged every row of a set (a census, ``reviews/``), the
``reviewed`` generator runs the set's base test and keeps only the rows every
judge passed: the rows the reviews have, with the same text and label, answered
``yes`` on each answer in ``require``. Every other row is dropped and counted by
reason, so a release can hold the judged rows alone while the rule-made set stays
as it is, with its own measured rate.

The filters also drop pairs whose label is right: they cannot tell them from the
wrong ones (``perturb --dropped`` writes them, each naming its filter). Where the
base generator keeps those pairs (``records_dropped``), the ones annotators judged
and passed are kept too, each still naming the filter that dropped it; the rest
are counted as ``review: not judged (dropped by filter <name>)``. Judging dropped
pairs is how the set grows where no rule can tell the right labels from the wrong.

A row is matched to its judgement by uid, and only where the premise,
hypothesis and label are still the ones judged: a change to the base generator
cannot carry an old "yes" over to a new row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa

from ..atomic import sha256_file
from ..errors import ConfigError, DataError
from ..manifest import RowCounts
from ..review import Judgement, read_judgements
from .base import Context, Generator, SetRow

# Drop reasons, in the order a row is checked.
DROP_UNJUDGED = "review: not judged (no row with this uid, text and label)"
DROP_UNANSWERED = "review: judged, answer left blank"
#: a pair the base test's filter dropped, which no review judged
DROP_FILTERED_UNJUDGED = "review: not judged (dropped by filter {})"
DROP_BY_ANSWER = {
    "label_correct": "review: label judged wrong",
    "grammatical": "review: judged ungrammatical",
}


class Reviewed(Generator):
    name: ClassVar[str] = "reviewed"
    unit: ClassVar[str] = "row"
    mode: ClassVar[str] = "reviewed"
    settings_keys: ClassVar[tuple[str, ...]] = ("base", "reviews", "require")
    tests_for: ClassVar[str] = (
        "The rows of another test's default build, and the pairs its precision filters dropped, that "
        "annotators judged one by one, kept only where every judge said the label is right and the "
        "text grammatical (its cards name the test)."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        from . import find_test, make_generator  # the registry imports this module lazily

        super().__init__(test, settings, params)
        where = f"{self.family}.tests.{test}"
        base = self.settings.get("base")
        if not base:
            raise ConfigError(f"{where}.base: missing (the test whose rows were judged)")
        if find_test(params, base)[1].get("generator") == self.name:
            raise ConfigError(f"{where}.base: {base} is itself a reviewed test; name the test that makes the rows")
        generator = make_generator(base, params)
        if generator.mode != "precise":
            raise ConfigError(f"{where}.base: {base} is built in {generator.mode} mode here, and the reviews "
                              "judged the rows of the default build")  # fmt: skip
        self.base = base
        self.base_generator = generator
        self.reads = generator.reads  # type: ignore[misc]  # the base test's input: it runs here
        self.reviews: dict[str, tuple[str, ...]] = {
            key: (paths,) if isinstance(paths, str) else tuple(paths)
            for key, paths in (self.settings.get("reviews") or {}).items()
        }
        self.require = tuple(self.settings.get("require") or DROP_BY_ANSWER)
        # The card tells what the base test tests and cites its paper.
        self.cites = generator.cites  # type: ignore[misc]
        self.paper_quality = generator.paper_quality  # type: ignore[misc]
        self.tests_for = (  # type: ignore[misc]
            f"{generator.tests_for} This set keeps only the rows of test `{base}` that annotators "
            f"judged, one by one, and every judge answered yes on {' and '.join(self.require)}; "
            "the rest are dropped and counted under Counts."
            + (" Pairs the precision filters dropped and annotators passed are kept too, each naming "
               "its filter (`perturbation_params.filter`)." if generator.records_dropped else "")
        )
        self._stats: dict[str, Any] = {}

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        """The rows the base test builds from ``table``, and the pairs its filters dropped, that
        every judge passed."""
        key = f"{context.dataset}/{context.split}"
        if key not in self.reviews:
            known = ", ".join(sorted(self.reviews)) or "none"
            raise ConfigError(f"{self.family}.tests.{self.test}.reviews: no review of {key} (reviewed: {known})")
        paths = [Path(p) for p in self.reviews[key]]
        judged: dict[str, Judgement] = {}
        for path in paths:
            for uid, judgement in read_judgements(path).items():
                if uid in judged:
                    raise DataError(path, f"uid {uid!r} is judged in another review of {key} too")
                judged[uid] = judgement
        base = self.base_generator
        base.dropped = [] if base.records_dropped else None
        base_counts = RowCounts(unit=base.unit)
        rows = list(base.generate(table, context, base_counts))
        dropped = base.dropped or []
        kept: Counter[str] = Counter()
        for row in [*rows, *dropped]:
            counts.input += 1
            judgement = judged.get(row.uid)
            origin = row.params.get("filter")
            if origin is not None and judgement is None:
                counts.drop(DROP_FILTERED_UNJUDGED.format(origin))
                continue
            reason = self._fault(row, judgement)
            if reason is None:
                counts.kept += 1
                kept["kept by the rules" if origin is None else f"dropped by filter {origin}"] += 1
                yield row
            else:
                counts.drop(reason)
        self._stats = {
            "base": {"rows": len(rows), "dropped_pairs": len(dropped), "sentences": base_counts.as_dict()},
            "kept_by_origin": dict(sorted(kept.items())),
            "review": {"paths": [str(p) for p in paths], "sha256": [sha256_file(p) for p in paths],
                       "rows": len(judged), "require": list(self.require)},
        }  # fmt: skip

    def _fault(self, row: SetRow, judgement: Judgement | None) -> str | None:
        """Why ``row`` is dropped, or None when every judge passed it."""
        if judgement is None or (judgement.premise, judgement.hypothesis, judgement.label) != (
            row.premise, row.hypothesis, row.label,
        ):  # fmt: skip
            return DROP_UNJUDGED
        answers = {"label_correct": judgement.label_correct, "grammatical": judgement.grammatical}
        if any(answers[name] is None for name in self.require):
            return DROP_UNANSWERED
        return next((DROP_BY_ANSWER[name] for name in self.require if not answers[name]), None)

    def extra_stats(self) -> dict[str, Any]:
        return self._stats
