"""What every test-set generator shares: the set schema, provenance, seeded randomness.

A generator reads a canonical table (NLI, or AQuA-RAT for the numerical test)
and yields set rows. Each row keeps the uid of the example it came from, the
generator's name and the parameters of this particular edit, so any row can be
traced and re-derived. Dropped inputs are counted by reason in ``RowCounts``.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa

from ..canonical import NLI_SCHEMA
from ..manifest import RowCounts
from ..schema import checked

# A set row is a canonical NLI row whose `source_id` gives way to provenance.
SET_SCHEMA = pa.schema(
    [
        *(field for field in NLI_SCHEMA if field.name != "source_id"),
        pa.field("source_uid", pa.string(), nullable=False),
        pa.field("perturbation", pa.string(), nullable=False),
        # JSON object (sorted keys): what exactly this row's edit was.
        pa.field("perturbation_params", pa.string(), nullable=False),
    ]
)


@dataclass(frozen=True)
class SetRow:
    """One generated example and its provenance."""

    uid: str
    dataset: str
    split: str
    premise: str
    hypothesis: str
    label: str | None
    label_id: int | None
    genre: str | None
    source_uid: str
    perturbation: str
    params: Mapping[str, Any]

    def as_record(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "dataset": self.dataset,
            "split": self.split,
            "premise": self.premise,
            "hypothesis": self.hypothesis,
            "label": self.label,
            "label_id": self.label_id,
            "genre": self.genre,
            "source_uid": self.source_uid,
            "perturbation": self.perturbation,
            "perturbation_params": json.dumps(self.params, sort_keys=True, ensure_ascii=False),
        }


def rows_to_table(rows: list[SetRow]) -> pa.Table:
    columns: dict[str, list[Any]] = {name: [] for name in SET_SCHEMA.names}
    for row in rows:
        for key, value in row.as_record().items():
            columns[key].append(value)
    return pa.Table.from_pydict(columns, schema=SET_SCHEMA)


def row_rng(seed: int, key: str) -> random.Random:
    """A random generator for one example, from the base seed and the example's uid.

    Seeding per example (string seeds hash with SHA-512, the same on every
    platform) means a subset of a dataset gets the same edits as the whole.
    """
    return random.Random(f"{seed}|{key}")


@dataclass(frozen=True)
class Context:
    """What a generator knows about its input beyond the rows."""

    dataset: str
    split: str
    language: str
    seed: int


class Generator(ABC):
    """A test-set generator: settings in, set rows out, every dropped input counted."""

    #: registry name (the ``generator:`` of a test in params.yaml)
    name: ClassVar[str]
    #: the canonical table it reads: "nli" or "aqua"
    reads: ClassVar[str] = "nli"
    #: what one input unit is (manifest ``rows.unit``): "example", "sentence", ...
    unit: ClassVar[str] = "example"
    #: the schema of the set it writes
    schema: ClassVar[pa.Schema] = SET_SCHEMA
    #: rows per batch handed to the Parquet writer
    batch_rows: ClassVar[int] = 50_000
    #: one paragraph for the dataset card: what the set tests
    tests_for: ClassVar[str]
    #: the paper behind the test, for the dataset card
    cites: ClassVar[str] = (
        "Naik, Ravichander, Sadeh, Rose and Neubig (2018). Stress Test Evaluation for Natural "
        "Language Inference. COLING."
    )
    #: what the paper measured of its own set's labels, shown beside ours on the card as context
    paper_quality: ClassVar[str] = "The paper reports no human validation of this kind of set."
    #: how the set is built: "precise" (the default, high-precision construction), "paper"
    #: (the authors' released code, reproduced: ``nlistress.authors``) or "reviewed" (a
    #: precise set narrowed to the rows annotators passed: ``nlistress.perturb.reviewed``)
    mode: ClassVar[str] = "precise"
    #: the settings it reads; others are left out of ``self.settings`` (and so of the
    #: manifest). A paper-mode profile switches a test's ``generator`` by merging over the
    #: default params, which cannot remove the default generator's own keys. None: all kept.
    settings_keys: ClassVar[tuple[str, ...] | None] = None
    #: the params family whose ``tests`` hold its settings (and their schema)
    family: ClassVar[str] = "stress"
    #: the paper-mode generator that builds this test the authors' way, if their code exists
    #: (``results/REPORT.md`` withholds the difference to the paper for a set built without it)
    paper_generator: ClassVar[str | None] = None
    #: top-level params sections the generator reads besides its family's and ``resources``
    #: (``source_grammar``); a Snakemake set job is handed exactly these
    shared_sections: ClassVar[tuple[str, ...]] = ()
    #: whether ``generate`` can also keep the pairs its precision filters dropped, so they can
    #: be read and judged (``nlistress perturb --dropped``)
    records_dropped: ClassVar[bool] = False
    #: set to a list before ``generate`` (where ``records_dropped``) to collect those pairs:
    #: each as the rule would have built it, its filter's name in its params (``filter``)
    dropped: list[SetRow] | None = None

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        """``settings`` are the test's own (``<family>.tests.<test>``); ``params`` the whole config.

        The schema checks each setting here, for callers of the Python API too; a
        generator checks only what depends on it (a side it cannot edit, a required key).
        """
        checked(dict(settings), self.family, "tests", test)
        self.test = test
        keep = self.settings_keys
        self.settings = {k: v for k, v in settings.items() if keep is None or k in ("generator", *keep)}
        self.params = params

    def paper_counterpart(self) -> str | None:
        """The paper-mode generator of this test with these settings (``paper_generator``)."""
        return self.paper_generator

    @abstractmethod
    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        """Yield set rows, keeping ``counts`` in input units (see ``unit``).

        Every unit read adds to ``counts.input``; every unit that yields rows
        adds to ``counts.kept``; every other unit is ``counts.drop(reason)``.
        A kept unit may yield several rows (the numerical test yields three).
        """

    def generate_batches(
        self, table: pa.Table, context: Context, counts: RowCounts
    ) -> Iterator[pa.Table]:
        """The set as a stream of tables of ``schema``, for the writer.

        Generators of very large sets (permutations) override this to build
        columns directly; the others batch the rows of ``generate``.
        """
        batch: list[SetRow] = []
        for row in self.generate(table, context, counts):
            batch.append(row)
            if len(batch) == self.batch_rows:
                yield rows_to_table(batch)
                batch = []
        if batch:
            yield rows_to_table(batch)

    def extra_stats(self) -> dict[str, Any]:
        """Counts beyond ``rows`` from the last ``generate`` (e.g. per stage), for the manifest."""
        return {}

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        """Extra Markdown for the dataset card (e.g. comparison with the paper's counts)."""
        return ""
