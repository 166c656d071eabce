"""Our number for one linked cell of a paper table, or the reason there is none.

Every lookup reads the files the pipeline writes (``results/`` and ``data/``)
and nothing else, so the report says exactly what the run produced. A missing
number always comes with a reason a reader can act on: the paper's model has
no counterpart (``report.models``), a run was not trained (``models.runs``), a
set was not built or not evaluated, a subset is empty in our sample.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .papers import REQUIRED, PaperTable


@dataclass(frozen=True)
class Found:
    """Our value (a number, or a word list), the file it was read from, and how its set was built.

    ``mode`` is the set's build mode ("paper": the authors' construction; "precise": the
    default one) when the number comes from a generated set, else None. ``like_for_like``
    is False for a default-mode set of a test the authors' code builds differently: the
    report then prints our number but no difference to the paper's.
    """

    value: Any
    where: str
    mode: str | None = None
    like_for_like: bool = True


@dataclass(frozen=True)
class Missing:
    """Why a cell has no number of ours: a reason shared by many cells, and this cell's item.

    ``what`` names the particular set or result the reason is about, so the
    report can list one reason once with all the items it covers.
    """

    reason: str
    what: str = ""

    def __str__(self) -> str:
        return f"{self.reason}: {self.what}" if self.what else self.reason


Lookup = Found | Missing


def model_map(params: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """``report.models``: paper -> {the paper's model label -> a models.zoo name}."""
    section = (params.get("report") or {}).get("models") or {}
    zoo = (params.get("models") or {}).get("zoo") or {}
    if not isinstance(section, Mapping):
        raise ConfigError("report.models: expected paper -> {paper's model label: zoo model}")
    out: dict[str, dict[str, str]] = {}
    for paper, mapping in section.items():
        if not isinstance(mapping, Mapping):
            raise ConfigError(f"report.models.{paper}: expected {{paper's model label: zoo model}}")
        for label, name in mapping.items():
            if name not in zoo:
                raise ConfigError(f"report.models.{paper}.{label}: {name!r} is not in models.zoo")
        out[str(paper)] = {str(k): str(v) for k, v in mapping.items()}
    return out


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _number(text: str | None) -> float | None:
    return None if text in (None, "") else float(text)


class OurResults:
    """Lookups into one pipeline run: ``results`` (tables) and ``data`` (sets, models, tables)."""

    def __init__(self, results: Path, data: Path, params: Mapping[str, Any]) -> None:
        self.results, self.data = Path(results), Path(data)
        self.models = model_map(params)
        self.runs = {(m, v) for m, vs in ((params.get("models") or {}).get("runs") or {}).items()
                     for v in vs or []}  # fmt: skip
        self.registry = {
            name: set((entry or {}).get("splits") or {})
            for name, entry in (params.get("datasets") or {}).items()
        }
        self.giveaway = (params.get("artifacts") or {}).get("giveaway") or {}
        self._files: dict[Path, Any] = {}

    # -- shared -------------------------------------------------------------

    def _read(self, path: Path, reader: Callable[[Path], Any]) -> Any:
        """The parsed file (read once per report), or None when it does not exist."""
        if path not in self._files:
            self._files[path] = reader(path) if path.is_file() else None
        return self._files[path]

    def _rows(self, path: Path) -> list[dict[str, str]] | None:
        return self._read(path, _csv_rows)

    def _json(self, path: Path) -> Any:
        return self._read(path, lambda p: json.loads(p.read_text(encoding="utf-8")))

    def run_of(self, paper: str, link: Mapping[str, Any]) -> tuple[str, str] | Missing:
        """(zoo model, training variant) standing for the paper's model, or why none does."""
        label = str(link["model"])
        variant = str(link.get("variant") or "plain")
        zoo = self.models.get(paper, {}).get(label)
        if zoo is None:
            return Missing(f"no model of ours stands for it (report.models.{paper})")
        if (zoo, variant) not in self.runs:
            return Missing(f"{zoo}.{variant} is not trained in this run (models.runs)")
        return zoo, variant

    def dataset_missing(self, link: Mapping[str, Any]) -> Missing | None:
        """Why the dataset (and split) of ``link`` cannot be ours: not in the registry."""
        dataset, split = str(link["dataset"]), link.get("split")
        if dataset not in self.registry:
            return Missing("not in the dataset registry (datasets in params.yaml)", dataset)
        if split is not None and str(split) not in self.registry[dataset]:
            return Missing("not a split of the registry (datasets in params.yaml)", f"{dataset}/{split}")
        return None

    def lookup(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        """Our value for a cell with ``link`` in ``table`` (already scaled to the paper's unit)."""
        absent = sorted(REQUIRED[table.source] - set(link))
        if absent:
            return Missing("an aggregate of the paper's, with nothing of ours to match (no " + ", ".join(absent) + ")")
        if "dataset" in link and (why := self.dataset_missing(link)):
            return why
        found = getattr(self, f"_{table.source}")(table, link)
        if not isinstance(found, Found):
            return found
        value = found.value * table.scale if isinstance(found.value, int | float) else found.value
        mode, like = self.set_mode(link)
        return Found(value, found.where, mode, like)

    def set_mode(self, link: Mapping[str, Any]) -> tuple[str | None, bool]:
        """How the set a cell reads was built, and whether that is the authors' construction.

        A set built before modes were recorded counts as the default mode.
        """
        if not {"test", "dataset", "split"} <= set(link):
            return None, True
        name = f"{link['test']}/{link['dataset']}_{link['split']}.manifest.json"
        families = [str(link["family"])] if "family" in link else ["stress", "permute", "swap"]
        for family in families:
            manifest = self._json(self.data / "sets" / family / name)
            if manifest is not None:
                params = manifest.get("params", {})
                mode = str(params.get("mode", "precise"))
                return mode, not (mode == "precise" and params.get("paper_generator"))
        return None, True

    # -- sources ------------------------------------------------------------

    def _scores(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        run = self.run_of(table.paper, link)
        if isinstance(run, Missing):
            return run
        path = self.results / "scores" / run[0] / f"{run[1]}.json"
        scores = self._json(path)
        if scores is None:
            return Missing("not written (snakemake models)", str(path))
        key = f"{link['test']}/{link['dataset']}_{link['split']}"
        for entry in scores["sets"]:
            if entry["set"] == key:
                value = entry.get(table.metric)
                if value is None:
                    return Missing(f"no {table.metric} (no errors or no labelled rows)", key)
                return Found(value, str(path))
        return Missing(f"{run[0]}.{run[1]} was not scored on these sets (stress.sets, models.evaluate)", key)

    def _run_table(
        self, table: PaperTable, link: Mapping[str, Any], path: Path, why: str
    ) -> tuple[str, list[dict[str, str]], Path] | Missing:
        """The run (``<model>.<variant>``) of a cell and the rows of a results CSV naming runs."""
        run = self.run_of(table.paper, link)
        if isinstance(run, Missing):
            return run
        rows = self._rows(path)
        if rows is None:
            return Missing(f"not written ({why})", str(path))
        return f"{run[0]}.{run[1]}", rows, path

    def _swap_table1(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        found = self._run_table(table, link, self.results / "swap" / "accuracy.csv",
                                "no swap set in models.evaluate")  # fmt: skip
        if isinstance(found, Missing):
            return found
        name, rows, path = found
        for row in rows:
            if (row["model"], row["sample"], row["subset"]) == (name, link["sample"], link["subset"]):
                if row["accuracy"] == "":
                    if int(row["rows_in"]) and int(row["excluded_no_gold"]) == int(row["rows_in"]):
                        return Missing("every row of the sample awaits annotation (nlistress "
                                       "sample-for-review)", link["sample"])  # fmt: skip
                    return Missing("this subset is empty in our sample", f"{link['sample']} {link['subset']}")
                return Found(float(row["accuracy"]), str(path))
        return Missing(f"{name} has no result on these samples (swap.sets, models.evaluate)", link["sample"])

    def _swap_contingency(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        run = self.run_of(table.paper, link)
        if isinstance(run, Missing):
            return run
        path = (self.results / "swap" / "contingency" / f"{run[0]}.{run[1]}"
                / f"{link['sample']}_{link['factor']}.csv")  # fmt: skip
        rows = self._rows(path)
        if rows is None:
            return Missing("no contingency table (sample not built, or the test did not apply)", str(path))
        for row in rows:
            if next(iter(row.values())) == str(link["row"]):
                if str(link["column"]) not in row:
                    return Missing("our table has no such column", f"{link['column']} in {path}")
                return Found(float(row[str(link["column"])]), str(path))
        return Missing("no row of ours has this value", f"{link['row']} in {path}")

    def _swap_tests(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        found = self._run_table(table, link, self.results / "swap" / "tests.csv",
                                "no swap set in models.evaluate")  # fmt: skip
        if isinstance(found, Missing):
            return found
        name, rows, path = found
        what = f"{link['factor']} on {link['sample']}"
        for row in rows:
            if (row["model"], row["sample"], row["factor"]) == (name, link["sample"], link["factor"]):
                value = _number(row.get(table.metric))
                if value is None:
                    return Missing("the test did not apply to our sample", what)
                return Found(value, str(path))
        return Missing(f"{name} has no such test (swap.sets, models.evaluate)", what)

    def _unli_table2(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        found = self._run_table(table, link, self.results / "unli" / "table2.csv",
                                "no permuted set in models.evaluate")  # fmt: skip
        if isinstance(found, Missing):
            return found
        name, rows, path = found
        key = (name, str(link["test"]), str(link["dataset"]), str(link["split"]))
        for row in rows:
            if (row["model"], row["variant"], row["dataset"], row["split"]) == key:
                return Found(float(row[str(table.metric)]), str(path))
        return Missing(f"{name} was not run on these permuted sets (permute.sets, models.evaluate)",
                       f"{link['test']}/{link['dataset']}_{link['split']}")  # fmt: skip

    def _set_manifest(self, family: str, link: Mapping[str, Any]) -> tuple[Path, Any]:
        path = (self.data / "sets" / family / str(link["test"])
                / f"{link['dataset']}_{link['split']}.manifest.json")  # fmt: skip
        return path, self._json(path)

    def _unli_table7(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        path, manifest = self._set_manifest("permute", link)
        if manifest is None:
            return Missing("permuted set not built (permute.sets)",
                           f"{link['test']}/{link['dataset']}_{link['split']}")  # fmt: skip
        key = "input" if table.metric == "test_examples" else "kept"
        return Found(int(manifest["rows"][key]), str(path))

    def _set_rows(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        path, manifest = self._set_manifest(str(link["family"]), link)
        if manifest is None:
            return Missing(f"set not built ({link['family']}.sets)",
                           f"{link['family']}/{link['test']}/{link['dataset']}_{link['split']}")  # fmt: skip
        if "experiment" in link:
            counts = manifest.get("stats", {}).get("rows_by_experiment", {})
            return Found(int(counts.get(str(link["experiment"]), 0)), str(path))
        return Found(int(manifest["output_rows"]), str(path))

    def _canonical_rows(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        path = self.data / "canonical" / str(link["dataset"]) / "index.json"
        index = self._json(path)
        split = (index or {}).get("splits", {}).get(str(link["split"]))
        if split is None:
            return Missing("split not built (canonical_splits)", f"{link['dataset']}/{link['split']}")
        return Found(int(split["rows"]["kept"]), str(path))

    def _baselines(self, name: str, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        path = self.results / "baselines" / name
        rows = self._rows(path)
        if rows is None:
            return Missing("not written (artifacts.baselines)", str(path))
        for row in rows:
            if (row["dataset"], row["split"]) == (link["dataset"], link["split"]) and (
                "gold_label" not in link or row["label"] == link["gold_label"]
            ):
                return Found(float(row[str(table.metric)]), str(path))
        return Missing("split not evaluated (artifacts.baselines)", f"{link['dataset']}/{link['split']}")

    def _baselines_table2(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        return self._baselines("table2.csv", table, link)

    def _baselines_table3(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        return self._baselines("table3.csv", table, link)

    def analysis_of(self, dataset: str) -> str | None:
        """The first give-away analysis of artifacts.giveaway that pools only ``dataset``'s splits."""
        for name, splits in self.giveaway.items():
            if splits and all(str(s).split("/")[0] == dataset for s in splits):
                return str(name)
        return None

    def _giveaway_words(self, table: PaperTable, link: Mapping[str, Any]) -> Lookup:
        analysis = self.analysis_of(str(link["dataset"]))
        if analysis is None:
            return Missing("no give-away analysis of the dataset alone (artifacts.giveaway)", str(link["dataset"]))
        path = self.results / "giveaway" / analysis / "top_words.csv"
        rows = self._rows(path)
        if rows is None:
            return Missing("not written (snakemake artifacts)", str(path))
        words = [r["word"] for r in sorted(rows, key=lambda r: int(r["rank"]))
                 if r["label"] == link["gold_label"]]  # fmt: skip
        splits = ", ".join(self.giveaway[analysis])
        return Found(words, f"{path} ({splits})")
