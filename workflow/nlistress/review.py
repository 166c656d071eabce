"""Human validation of generated sets: sample rows to CSV, read the judgements back.

The paper had annotators check 100 rows per set for label correctness and
grammaticality. ``sample_for_review`` draws such a sample, stratified by label
and seeded; people fill in two columns; ``import_review`` checks the file and
summarises the rates, which the set's dataset card then reports.

Sets with a ``label_status`` column (the word-pair swap sets) also hold rows
whose label no rule could decide (``needs_annotation``, label null). For
those the CSV lists every such row first, with two more columns: ``gold_label``
(the reviewer's label) and ``incoherent`` (yes: the sentence pair makes no
sense and the row is discarded). ``apply_review`` then writes the set with the
labels filled in (``label_status = annotated``) and the incoherent rows
removed, counted in its manifest.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .atomic import sha256_file, write_json_atomic, write_text_atomic
from .errors import DataError
from .manifest import RowCounts, write_manifest
from .parquet_io import write_parquet
from .perturb.base import LABELS

COLUMNS = ("uid", "label", "premise", "hypothesis", "perturbation_params")
ANSWERS = ("label_correct", "grammatical")
COMMENT = "comment"
ANNOTATION = ("gold_label", "incoherent")
NEEDS_ANNOTATION = "needs_annotation"
DROP_INCOHERENT = "marked incoherent by a reviewer"
YES = {"yes", "y", "1", "true"}
NO = {"no", "n", "0", "false"}


def _allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """Split ``n`` across strata in proportion to their sizes (largest remainder), capped by size."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    shares = {k: n * v / total for k, v in sizes.items()}
    alloc = {k: int(s) for k, s in shares.items()}
    for k in sorted(shares, key=lambda k: (alloc[k] - shares[k], k))[: n - sum(alloc.values())]:
        alloc[k] += 1
    return alloc


def _has_status(set_path: Path) -> bool:
    """The set has rows a rule could not label (a ``label_status`` column)."""
    return "label_status" in pq.read_schema(set_path).names


def sample_for_review(set_path: str | Path, output: str | Path, n: int, seed: int) -> int:
    """Write a label-stratified sample of ``n`` rows to a CSV for annotators; return its size.

    In a set with ``label_status``, every ``needs_annotation`` row comes
    first (each needs a label), then the sample of the labelled rows.
    """
    set_path = Path(set_path)
    status = _has_status(set_path)
    rows = pq.read_table(set_path, columns=[*COLUMNS, *(["label_status"] if status else [])])
    rows = rows.to_pylist()
    pending = [r for r in rows if status and r["label_status"] == NEEDS_ANNOTATION]
    rows = [r for r in rows if not (status and r["label_status"] == NEEDS_ANNOTATION)]
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_label[str(row["label"])].append(row)
    rng = random.Random(f"{seed}|{sha256_file(set_path)}")
    sample = []
    for label, k in sorted(_allocate({k: len(v) for k, v in by_label.items()}, n).items()):
        sample += rng.sample(by_label[label], k)
    sample.sort(key=lambda r: r["uid"])
    sample = pending + sample
    answers = [*ANSWERS, *(ANNOTATION if status else ())]
    fields = [*COLUMNS, *(["label_status"] if status else []), *answers, COMMENT]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fields, quoting=csv.QUOTE_ALL)
    writer.writeheader()
    for row in sample:
        writer.writerow({**row, **dict.fromkeys(answers, ""), COMMENT: ""})
    write_text_atomic(output, buffer.getvalue())
    return len(sample)


def _answer(value: str, path: Path, line: int, column: str) -> bool | None:
    value = value.strip().lower()
    if not value:
        return None
    if value in YES:
        return True
    if value in NO:
        return False
    raise DataError(path, f"column {column!r}: expected yes or no, got {value!r}", line)


def _annotation(record: Mapping[str, str], status: str, path: Path, line: int) -> str | None:
    """The reviewer's ``gold_label`` for a needs_annotation row (None: not given)."""
    value = (record.get("gold_label") or "").strip().lower()
    if not value:
        return None
    if status != NEEDS_ANNOTATION:
        raise DataError(path, f"column 'gold_label': only for needs_annotation rows (this row is "
                        f"{status}; judge its label with label_correct)", line)  # fmt: skip
    if value not in LABELS:
        raise DataError(path, f"column 'gold_label': expected one of {', '.join(LABELS)}, got {value!r}",
                        line)  # fmt: skip
    return value


def import_review(
    review_csv: str | Path, set_path: str | Path, output: str | Path
) -> dict[str, Any]:
    """Check a filled review CSV against its set and write the summary JSON the card reads.

    For a set with ``label_status`` the summary also holds the reviewers'
    labels of needs_annotation rows (``annotations``), the rows marked
    incoherent and how many needs_annotation rows still wait for a label.
    """
    review_csv, set_path = Path(review_csv), Path(set_path)
    status = _has_status(set_path)
    columns = ["uid", "label", *(["label_status"] if status else [])]
    table = pq.read_table(set_path, columns=columns).to_pydict()
    labels = dict(zip(table["uid"], table["label"], strict=True))
    statuses = dict(zip(table["uid"], table["label_status"], strict=True)) if status else {}
    try:
        text = review_csv.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(review_csv, f"cannot read ({exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    required = ("uid", *ANSWERS, *(ANNOTATION if status else ()))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise DataError(review_csv, f"missing column(s) {', '.join(missing)}", 1)
    sampled, reviewed = 0, 0
    correct: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    grammatical = 0
    annotations: dict[str, str] = {}
    incoherent: list[str] = []
    for record in reader:
        line = reader.line_num
        sampled += 1
        uid = record["uid"]
        if uid not in labels:
            raise DataError(review_csv, f"uid {uid!r} is not in {set_path.name}", line)
        if status:
            if _answer(record["incoherent"], review_csv, line, "incoherent"):
                incoherent.append(uid)
                continue
            label = _annotation(record, statuses[uid], review_csv, line)
            if label is not None:
                annotations[uid] = label
            if statuses[uid] == NEEDS_ANNOTATION:
                continue  # no generated label to judge
        label_ok = _answer(record["label_correct"], review_csv, line, "label_correct")
        grammar_ok = _answer(record["grammatical"], review_csv, line, "grammatical")
        if label_ok is None or grammar_ok is None:
            continue  # not (fully) reviewed yet
        reviewed += 1
        label = str(labels[uid])
        judged[label] += 1
        correct[label] += label_ok
        grammatical += grammar_ok
    if reviewed == 0 and not (annotations or incoherent):
        raise DataError(review_csv, "no row has both label_correct and grammatical filled in")
    summary: dict[str, Any] = {
        "set": set_path.name,
        "set_sha256": sha256_file(set_path),
        "sampled": sampled,
        "reviewed": reviewed,
        "label_correct_rate": sum(correct.values()) / reviewed if reviewed else None,
        "grammatical_rate": grammatical / reviewed if reviewed else None,
        "label_correct_by_label": {k: correct[k] / judged[k] for k in sorted(judged)},
    }
    if status:
        done = set(annotations) | set(incoherent)
        summary |= {
            "annotations": dict(sorted(annotations.items())),
            "incoherent": sorted(incoherent),
            "pending": sum(1 for u, s in statuses.items() if s == NEEDS_ANNOTATION and u not in done),
        }
    write_json_atomic(output, summary)
    return summary


def apply_review(set_path: str | Path, summary_path: str | Path, output: str | Path) -> dict[str, Any]:
    """Write ``set_path`` with the reviewed labels filled in and incoherent rows removed.

    Annotated rows get ``label_status = annotated`` and ``gold_label_changed``
    against the control label recorded in ``perturbation_params``; rows still
    pending keep a null label. The manifest counts the discarded rows.
    """
    set_path, summary_path = Path(set_path), Path(summary_path)
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(summary_path, f"not a readable review summary ({exc})") from None
    if "annotations" not in summary:
        raise DataError(summary_path, "no annotations: import a review of a set with label_status")
    if summary.get("set_sha256") != sha256_file(set_path):
        raise DataError(summary_path, f"reviews another version of {set_path.name} (sha256 differs)")
    table = pq.read_table(set_path)
    annotations, incoherent = summary["annotations"], set(summary["incoherent"])
    counts = RowCounts(unit="row", input=table.num_rows)
    rows = []
    for row in table.to_pylist():
        if row["uid"] in incoherent:
            counts.drop(DROP_INCOHERENT)
            continue
        label = annotations.get(row["uid"])
        if label is not None:
            control = json.loads(row["perturbation_params"]).get("control_label")
            row |= {"label": label, "label_id": LABELS.index(label), "label_status": "annotated",
                    "gold_label_changed": label != control}  # fmt: skip
        rows.append(row)
    counts.kept = len(rows)
    write_parquet(pa.Table.from_pylist(rows, schema=table.schema), output)
    return write_manifest(
        output, counts,
        {"path": str(set_path), "sha256": sha256_file(set_path), "review": str(summary_path)},
        {"annotated": len(annotations), "incoherent": len(incoherent)},
        output_rows=len(rows),
        pending=sum(1 for r in rows if r["label_status"] == NEEDS_ANNOTATION),
    )  # fmt: skip
