"""Hugging Face dataset-card metadata: the YAML front matter of the release and of each set card.

`datasets.load_dataset(<release folder>, <config>)` reads the release's
``README.md`` front matter: one ``configs`` entry per released test (its splits
are the source splits the test was applied to) and, per config, the typed
features, so ``label_id`` loads as a ``ClassLabel`` and the provenance columns
as strings. The Hub reads the same header for licences, languages and tasks
(https://huggingface.co/docs/hub/datasets-cards).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import yaml

from .errors import DataError
from .labels import LABELS

#: the Hub's size buckets: (upper bound, name)
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
          (10_000_000, "1M<n<10M"))  # fmt: skip

#: Arrow types of the set columns, as the Hub's feature dtypes
_DTYPES = {pa.string(): "string", pa.large_string(): "string", pa.bool_(): "bool", pa.int8(): "int8",
           pa.int16(): "int16", pa.int32(): "int32", pa.int64(): "int64", pa.float32(): "float32",
           pa.float64(): "float64"}  # fmt: skip


def size_category(rows: int) -> str:
    """The Hub's ``size_categories`` bucket for ``rows`` examples."""
    return next((name for bound, name in _SIZES if rows < bound), "n>10M")


def config_name(family: str, test: str) -> str:
    """The ``load_dataset`` config of one test, e.g. ``stress-antonymy``."""
    return f"{family}-{test}"


def features(schema: pa.Schema, where: str) -> list[dict[str, Any]]:
    """The card's ``features`` list for a set's Parquet schema; ``label_id`` as a ClassLabel."""
    out: list[dict[str, Any]] = []
    for field in schema:
        if field.name == "label_id":
            names = {str(i): label for i, label in enumerate(LABELS)}
            out.append({"name": field.name, "dtype": {"class_label": {"names": names}}})
        elif field.type in _DTYPES:
            out.append({"name": field.name, "dtype": _DTYPES[field.type]})
        elif pa.types.is_list(field.type) and field.type.value_type in _DTYPES:
            out.append({"name": field.name, "list": _DTYPES[field.type.value_type]})
        else:
            raise DataError(where, f"column {field.name!r} has type {field.type}, which the dataset card "
                            "cannot describe: sets hold strings, booleans, numbers and lists of those")  # fmt: skip
    return out


def licences(datasets: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``license`` (and ``license_name`` / ``license_link`` for ``other``) of the source datasets."""
    entries = list(datasets)
    ids = sorted({str(d.get("license_id") or "unknown") for d in entries})
    header: dict[str, Any] = {"license": ids[0] if len(ids) == 1 else ids}
    others = [d for d in entries if d.get("license_id") == "other"]
    if others:
        header["license_name"] = " / ".join(sorted({str(d.get("license", "other")) for d in others}))
        header["license_link"] = str(others[0].get("license_link") or others[0].get("homepage", ""))
    return header


def _languages(datasets: Iterable[Mapping[str, Any]]) -> list[str]:
    return sorted({str(d.get("language", "en")) for d in datasets})


def _source_datasets(datasets: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """``extended|<hub id>``: each set is derived from (extends) a source dataset."""
    return sorted(f"extended|{entry.get('hub_id') or name}" for name, entry in datasets.items())


def _annotation(expert: bool) -> dict[str, list[str]]:
    """Who made the labels and the text: the source's crowd workers, our rules, and reviewers
    where a judged review supplied labels."""
    creators = ["crowdsourced", "machine-generated", *(["expert-generated"] if expert else [])]
    return {"annotations_creators": creators, "language_creators": ["crowdsourced", "machine-generated"]}


def header(
    pretty_name: str,
    datasets: Mapping[str, Mapping[str, Any]],
    rows: int,
    tags: Sequence[str],
    expert_labels: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The front matter every card shares (before ``configs`` / ``dataset_info``)."""
    return {
        "pretty_name": pretty_name,
        **licences(datasets.values()),
        "language": _languages(datasets.values()),
        "task_categories": ["text-classification"],
        "task_ids": ["natural-language-inference"],
        "size_categories": [size_category(rows)],
        "source_datasets": _source_datasets(datasets),
        **_annotation(expert_labels),
        "multilinguality": ["monolingual"] if len(_languages(datasets.values())) == 1 else ["multilingual"],
        "tags": list(tags),
        **(extra or {}),
    }


def front_matter(fields: Mapping[str, Any]) -> str:
    """``fields`` as a Markdown file's YAML front matter (``---`` … ``---``)."""
    text = yaml.safe_dump(dict(fields), sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{text}---\n\n"


def split_name(dataset: str, split: str) -> str:
    """The Hub split of a set made from ``dataset``/``split`` (``\\w+`` only)."""
    return re.sub(r"\W", "_", f"{dataset}_{split}")


#: what each set column holds, for the release card's "Fields" section
FIELDS = {
    "uid": "unique id of the row, built from its source uid and what was changed",
    "dataset": "source dataset (registry name, e.g. `mnli`)",
    "split": "source split (e.g. `dev_matched`)",
    "premise": "premise text after the test's edit",
    "hypothesis": "hypothesis text after the test's edit",
    "label": "`entailment`, `neutral` or `contradiction`; null where no rule could set it (needs annotation)",
    "label_id": "`label` as a class id: 0 entailment, 1 neutral, 2 contradiction",
    "genre": "source genre (MultiNLI, OCNLI); null where the source has none",
    "source_uid": "uid of the source example the row was made from",
    "perturbation": "the test that made the row",
    "perturbation_params": "JSON object: exactly what was changed (words, positions, rule, settings)",
    "experiment": "swap sets: the paper's set code (`I_A`, `I_TA1`, `E_A`, …)",
    "pair_id": "swap sets: one occurrence; a control row and the rows derived from it share it",
    "w1": "swap sets: the premise word of the pair",
    "w2": "swap sets: the hypothesis word of the pair",
    "relation": "swap sets: `antonym`, `hyponym`, `hypernym` or `synonym` (premise word → hypothesis word)",
    "label_status": "swap sets: `gold`, `rule`, `needs_annotation` or `annotated`",
    "gold_label_changed": "swap sets: whether the label differs from the control row's",
    "polarity": "swap sets: the label the ordered pair takes in the training split (`none` when unseen)",
    "unseen": "swap sets: whether the ordered pair never occurs in the training split",
    "perm_index": "permuted sets: which permutation of the source example (0-based)",
    "premise_tokens": "permuted sets: tokens in the premise",
    "hypothesis_tokens": "permuted sets: tokens in the hypothesis",
    "premise_order": "permuted sets: the original token positions in permuted order (premise)",
    "hypothesis_order": "permuted sets: the original token positions in permuted order (hypothesis)",
    **{f"bleu{n}_{side}": f"permuted sets: BLEU-{n} of the permuted {side} against the original"
       for n in (2, 3, 4) for side in ("premise", "hypothesis")},
}
