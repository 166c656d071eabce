"""Which sets an evaluation covers, and what each one is (family, test, source split).

A built set sits at ``data/sets/<family>/<test>/<dataset>_<split>.parquet``
with its manifest beside it; the manifest names the family, the test and the
canonical table the set was made from (the permutation metrics need the
model's answers on those original examples too). A set a user names that has
no manifest is evaluated as family ``user``: it is scored, and no family's
metrics are computed for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ..manifest import manifest_path

FAMILIES = ("stress", "permute", "swap")


@dataclass(frozen=True)
class EvalSet:
    """One set to evaluate on."""

    family: str
    test: str
    name: str  # <dataset>_<split>, or the file's stem
    path: Path
    dataset: str | None = None
    split: str | None = None
    canonical: Path | None = None  # the table of the original examples, from the manifest

    @property
    def key(self) -> str:
        """Where its answers go: ``<family>/<test>/<name>``, ``canonical/<name>`` for an
        original split (the pipeline's ``data/predictions/<model>/<variant>`` layout)."""
        return f"canonical/{self.name}" if self.family == "canonical" else f"{self.family}/{self.test}/{self.name}"

    @property
    def audit(self) -> Path:
        """The set's artifact audit (majority and hypothesis-only accuracy), when it was built."""
        return self.path.with_name(f"{self.name}.audit.json")


def describe_set(path: Path) -> EvalSet:
    """An ``EvalSet`` for ``path`` from the manifest beside it (family ``user`` without one)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "set not found")
    if path.suffix != ".parquet":
        raise DataError(path, "expected a set in Parquet (.parquet); `nlistress perturb` writes one")
    name = path.name.removesuffix(".parquet")
    manifest = manifest_path(path)
    if not manifest.is_file():
        return EvalSet("user", name, name, path)
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
        params = record["params"]
        family, test = str(params["family"]), str(params["test"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(manifest, f"not a set manifest ({type(exc).__name__}: {exc})") from None
    source = (record.get("source") or {}).get("path")
    canonical = Path(source) if isinstance(source, str) else None
    return EvalSet(family, test, name, path, record.get("dataset"), record.get("split"), canonical)


def original_of(evalset: EvalSet, data: Path) -> EvalSet | None:
    """The canonical split ``evalset`` was made from, as a set of family ``canonical``.

    Its path is as the manifest wrote it (relative to where the pipeline ran), else taken
    under ``data``'s parent; None when neither exists.
    """
    if evalset.canonical is None or evalset.dataset is None or evalset.split is None:
        return None
    for path in (evalset.canonical, data.parent / evalset.canonical):
        if path.is_file():
            name = f"{evalset.dataset}_{evalset.split}"
            return EvalSet("canonical", "original", name, path, evalset.dataset, evalset.split)
    return None


def discover_sets(data: Path, families: Sequence[str] = FAMILIES) -> list[EvalSet]:
    """Every built set of ``families`` under ``data/sets``, in a stable order."""
    found = []
    for family in families:
        for manifest in sorted((data / "sets" / family).glob("*/*.manifest.json")):
            table = manifest.with_name(manifest.name.removesuffix(".manifest.json") + ".parquet")
            if table.is_file():
                found.append(describe_set(table))
    if not found:
        raise DataError(data / "sets", f"no built sets of {', '.join(families)} here: build them "
                        "(`snakemake --cores all sets`) or name sets with --sets")  # fmt: skip
    return found
