"""Annotator review of generated sets: sample rows to CSV, read the judgements back.

The paper had annotators check 100 rows per set for label correctness and
grammaticality. ``sample_for_review`` draws such a sample, stratified by label
and seeded; annotators fill in the answer columns; ``import_review`` checks the
file and summarises the rates, which the set's dataset card then shows first,
with the sha256 of the set they were measured on (a card whose set has changed
since shows the rates as stale) and who judged them: ``annotators`` is
``human`` or ``language-model`` (an AI model reading the rows) and ``judged_by``
may say more. The same rate is a different claim from a language model than from
trained people, so a card never shows one without saying which it is, and a label
a language model gave is never published as expert-made.

A sample may span several sets (``sample_for_review([dev, test])``): the
numerical test has two small AQuA-RAT sets that are judged together. When a
set has no more rows than the sample size, every row is drawn (a census).

Sets with a ``label_status`` column (the word-pair swap sets) also hold rows
whose label no rule could decide (``needs_annotation``, label null). Their
CSV has two more columns: ``coherent`` (no: the pair makes no sense and the
row is discarded) and ``gold_label`` (the reviewer's label for a
needs_annotation row). By default such rows are a stratum of the sample like
any label; ``all_pending`` exports every one of them first instead, which is
what labelling a whole set needs. ``apply_review`` then writes the set with
the labels filled in (``label_status = annotated``) and the incoherent rows
removed, counted in its manifest.

Several judges may fill copies of one sample; ``combine_reviews`` makes them one
CSV in which a row is "yes" only where every judge said yes, the rule every review
committed here follows, with each judge's comment kept.

Each set a summary judged is named with its sha256 and its construction mode (the
``params.mode`` of the manifest beside it: ``precise`` for the default sets, ``paper``
for the authors' constructions, ``reviewed`` for the rows annotators kept). Both modes
write the same file names, so a card uses a summary only for a build of the mode it
judged; a summary that names no mode (written before modes were recorded) is read
as judging the build at hand, and its sha256 still tells a stale one.

A review may also say where each grammar fault lies, in an optional
``grammar_fault`` column on the rows answered ``grammatical = no``:
``source`` (the fault is already in the source text the row was made from,
which the generated sentence repeats) or ``edit`` (the generator's change made
a fault of its own). A generator can only be blamed for the second, and most
rows of real corpora carry some of the first, so the summary counts the two
apart and the card says how many rows the edit itself made ungrammatical.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .atomic import sha256_file, write_json_atomic, write_text_atomic
from .errors import ConfigError, DataError
from .labels import LABELS
from .manifest import RowCounts, manifest_path, write_manifest
from .parquet_io import write_parquet

COLUMNS = ("uid", "label", "premise", "hypothesis", "perturbation_params")
ANSWERS = ("label_correct", "grammatical")
COMMENT = "comment"
ANNOTATION = ("coherent", "gold_label")
GRAMMAR_FAULT = "grammar_fault"
FAULT_PLACES = ("source", "edit")
NEEDS_ANNOTATION = "needs_annotation"
#: the mode of a set built by the default (high-precision) generators
DEFAULT_MODE = "precise"
#: who may fill in a review: people, or a language model (an AI) reading the rows
ANNOTATOR_KINDS = ("human", "language-model")
#: each kind as a card names it
ANNOTATOR_NAMES = {"human": "human", "language-model": "language-model (AI)"}
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


def _paths(set_paths: Path | str | Sequence[Path | str]) -> list[Path]:
    paths = [Path(set_paths)] if isinstance(set_paths, (str, Path)) else [Path(p) for p in set_paths]
    if not paths:
        raise DataError("sample-for-review", "no set given")
    if len({p.name for p in paths}) != len(paths):
        raise DataError(paths[0], "two sets of a review share a file name")
    return paths


def _has_status(paths: Sequence[Path]) -> bool:
    """The sets have rows a rule could not label (a ``label_status`` column); all or none."""
    flags = {"label_status" in pq.read_schema(p).names for p in paths}
    if len(flags) > 1:
        raise DataError(paths[0], "a review cannot mix swap sets with other sets")
    return flags.pop()


def _stratum(row: Mapping[str, Any], status: bool) -> str:
    if status and row["label_status"] == NEEDS_ANNOTATION:
        return NEEDS_ANNOTATION
    return str(row["label"])


def sample_for_review(
    set_paths: Path | str | Sequence[Path | str],
    output: str | Path,
    n: int,
    seed: int,
    all_pending: bool = False,
) -> int:
    """Write a label-stratified sample of ``n`` rows of the set(s) to a CSV; return its size.

    In a set with ``label_status``, needs_annotation rows are one more
    stratum, or with ``all_pending`` all exported first, before ``n``
    sampled labelled rows.
    """
    paths = _paths(set_paths)
    status = _has_status(paths)
    many = len(paths) > 1
    rows: list[dict[str, Any]] = []
    for path in paths:
        table = pq.read_table(path, columns=[*COLUMNS, *(["label_status"] if status else [])])
        rows += [{**r, "set": path.name} for r in table.to_pylist()]
    pending = [r for r in rows if all_pending and _stratum(r, status) == NEEDS_ANNOTATION]
    pool = [r for r in rows if not (all_pending and _stratum(r, status) == NEEDS_ANNOTATION)]
    strata: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in pool:
        strata[_stratum(row, status)].append(row)
    rng = random.Random(f"{seed}|{'|'.join(sha256_file(p) for p in paths)}")
    sample = []
    for stratum, k in sorted(_allocate({k: len(v) for k, v in strata.items()}, n).items()):
        sample += rng.sample(strata[stratum], k)
    sample.sort(key=lambda r: r["uid"])
    sample = pending + sample
    answers = [*ANSWERS, GRAMMAR_FAULT, *(ANNOTATION if status else ())]
    fields = [
        "uid", *(["set"] if many else []), *COLUMNS[1:],
        *(["label_status"] if status else []), *answers, COMMENT,
    ]  # fmt: skip
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fields, quoting=csv.QUOTE_ALL, extrasaction="ignore")
    writer.writeheader()
    for row in sample:
        writer.writerow({**row, **dict.fromkeys(answers, ""), COMMENT: ""})
    write_text_atomic(output, buffer.getvalue())
    return len(sample)


def _answer(value: str | None, path: Path, line: int, column: str) -> bool | None:
    value = (value or "").strip().lower()
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


def _fault_place(record: Mapping[str, str], grammar_ok: bool | None, path: Path, line: int) -> str | None:
    """Where the row's grammar fault lies (``source`` or ``edit``); None: not said."""
    value = (record.get(GRAMMAR_FAULT) or "").strip().lower()
    if not value:
        return None
    if grammar_ok is not False:
        raise DataError(path, f"column {GRAMMAR_FAULT!r}: only for rows answered grammatical = no", line)
    if value not in FAULT_PLACES:
        raise DataError(path, f"column {GRAMMAR_FAULT!r}: expected one of {', '.join(FAULT_PLACES)}, "
                        f"got {value!r}", line)  # fmt: skip
    return value


def _reader(review_csv: Path, required: Sequence[str]) -> csv.DictReader[str]:
    """The filled review CSV, checked to have the ``required`` columns."""
    try:
        text = review_csv.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(review_csv, f"cannot read ({exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise DataError(review_csv, f"missing column(s) {', '.join(missing)}", 1)
    return reader


@dataclass(frozen=True)
class Judgement:
    """What a review said of one row, and the row it said it of."""

    premise: str
    hypothesis: str
    label: str | None
    label_correct: bool | None
    grammatical: bool | None


def read_judgements(review_csv: str | Path) -> dict[str, Judgement]:
    """Every row of a filled review CSV by uid, with its answers (None: left blank).

    The text and label are kept so that a reader can tell whether a row built
    today is the row that was judged (``nlistress.perturb.reviewed``).
    """
    review_csv = Path(review_csv)
    reader = _reader(review_csv, (*COLUMNS, *ANSWERS))
    judged: dict[str, Judgement] = {}
    for record in reader:
        line = reader.line_num
        if record["uid"] in judged:
            raise DataError(review_csv, f"uid {record['uid']!r} is reviewed twice", line)
        judged[record["uid"]] = Judgement(
            record["premise"], record["hypothesis"], record["label"] or None,
            _answer(record["label_correct"], review_csv, line, "label_correct"),
            _answer(record["grammatical"], review_csv, line, "grammatical"),
        )  # fmt: skip
    return judged


def _all_said(answers: Sequence[bool | None]) -> str:
    """One answer for several judges: no where any said no, yes only where all said yes, else blank."""
    if any(a is False for a in answers):
        return "no"
    return "yes" if answers and all(a is True for a in answers) else ""


def combine_reviews(review_csvs: Sequence[str | Path], output: str | Path) -> dict[str, int]:
    """Several judges' filled copies of one review CSV as one: a row is "yes" only where every judge said yes.

    Each project review counts a row right only where all its judges passed it, so
    one judge's "no" must survive the combining: ``label_correct``, ``grammatical``
    and (swap sets) ``coherent`` are no where any judge said no, yes where all said
    yes and blank otherwise; ``grammar_fault`` on a combined "no" is ``edit`` where
    any judge who said no blamed the edit, else ``source`` where one blamed the
    source; a ``gold_label`` is kept only where every judge who gave one gave the
    same (else the row still needs a label, and the comment says why); the comment
    keeps each judge's words as "judge k: ...". The copies must hold the same rows
    (uid, text, label and params, in any order); the output keeps the first's order
    and columns. Returns the row count and how many rows the judges split on.
    """
    paths = [Path(p) for p in review_csvs]
    if len(paths) < 2:
        raise ConfigError("combine-reviews: give at least two filled copies of the review CSV")
    copies: list[tuple[Path, list[str], dict[str, tuple[int, dict[str, str]]]]] = []
    for path in paths:
        reader = _reader(path, (*COLUMNS, *ANSWERS))
        rows: dict[str, tuple[int, dict[str, str]]] = {}
        for record in reader:
            if record["uid"] in rows:
                raise DataError(path, f"uid {record['uid']!r} is reviewed twice", reader.line_num)
            rows[record["uid"]] = (reader.line_num, record)
        copies.append((path, list(reader.fieldnames or []), rows))
    first_path, columns, first = copies[0]
    for path, _, rows in copies[1:]:
        if rows.keys() != first.keys():
            extra = sorted(rows.keys() - first.keys()) or sorted(first.keys() - rows.keys())
            raise DataError(path, f"holds other rows than {first_path} (e.g. uid {extra[0]!r})")
        for uid, (line, record) in rows.items():
            changed = [c for c in COLUMNS if record[c] != first[uid][1][c]]
            if changed:
                raise DataError(path, f"uid {uid!r}: {', '.join(changed)} differ from {first_path}", line)
    combined, split = [], 0
    for uid, (_, base) in first.items():
        judged = [(path, *rows[uid]) for path, _, rows in copies]
        out = dict(base)
        said: dict[str, list[bool | None]] = {}
        for column in (*ANSWERS, *(c for c in ("coherent",) if c in columns)):
            said[column] = [_answer(r.get(column), p, line, column) for p, line, r in judged]
            out[column] = _all_said(said[column])
        split += any(len(set(a)) > 1 for a in said.values())
        notes = [f"judge {k}: {r[COMMENT].strip()}" for k, (_, _, r) in enumerate(judged, 1)
                 if (r.get(COMMENT) or "").strip()]  # fmt: skip
        if GRAMMAR_FAULT in columns:
            places = {_fault_place(r, ok, p, line) for (p, line, r), ok in zip(judged, said["grammatical"], strict=True)}
            out[GRAMMAR_FAULT] = "edit" if "edit" in places else "source" if "source" in places else ""
        if "gold_label" in columns:
            given = {g for p, line, r in judged if (g := _annotation(r, r.get("label_status", ""), p, line))}
            out["gold_label"] = next(iter(given)) if len(given) == 1 else ""
            if len(given) > 1:
                notes.append(f"the judges gave different gold labels ({', '.join(sorted(given))})")
        out[COMMENT] = " | ".join(notes)
        combined.append(out)
    columns = [*columns, *([COMMENT] if COMMENT not in columns else [])]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, quoting=csv.QUOTE_ALL)
    writer.writeheader()
    writer.writerows(combined)
    write_text_atomic(Path(output), buffer.getvalue())
    return {"rows": len(combined), "judges": len(paths), "split": split}


def _param_values(path: Path, data: Mapping[str, list[Any]], key: str) -> dict[str, str]:
    """Each row's value of ``key`` in its ``perturbation_params`` (uid -> value, as text)."""
    values = {}
    for uid, params in zip(data["uid"], data["perturbation_params"], strict=True):
        value = json.loads(params).get(key) if params else None
        if value is None:
            raise DataError(path, f"row {uid!r} has no {key!r} in its perturbation_params (--by {key})")
        values[uid] = str(value)
    return values


def _rate(good: int, total: int) -> float | None:
    return good / total if total else None


def import_review(
    review_csv: str | Path, set_paths: Path | str | Sequence[Path | str], output: str | Path,
    annotators: str | None = None, judged_by: str | None = None, by: str | None = None,
) -> dict[str, Any]:
    """Check a filled review CSV against its set(s) and write the summary JSON the card reads.

    ``annotators`` (one of ``ANNOTATOR_KINDS``) and ``judged_by`` (free text: "two
    linguists") say who filled the answers; the summary keeps them and the cards say it
    beside the rates (``who_judged``).

    A row counts as reviewed when ``grammatical`` is filled, and (swap sets)
    ``coherent``, and ``label_correct`` for a row with a label. Rates:
    label correct over reviewed rows with a label (by label and, for swap
    sets, by label status), grammatical over reviewed rows, coherent over
    reviewed swap rows. Every row answered "no" somewhere is listed under
    ``problems`` with its comment, so a card can name the failures that
    remain. Where the ``grammar_fault`` column is used, the summary also counts the
    ungrammatical rows by where the fault lies (``grammar_faults``; a row
    left blank is ``unattributed``) and gives ``edit_grammatical_rate``, the
    share of reviewed rows with no fault made by the edit, counting
    unattributed ones as made by it.

    ``by`` names a key of the rows' ``perturbation_params`` (``filter`` in a file of the
    pairs a generator's filters dropped): the summary then also gives the rates of each of its
    values (``by``), as a sample drawn per value needs.
    """
    review_csv = Path(review_csv)
    if annotators is not None and annotators not in ANNOTATOR_KINDS:
        raise ConfigError(f"annotators: {annotators!r} is not one of {', '.join(ANNOTATOR_KINDS)}")
    paths = _paths(set_paths)
    status = _has_status(paths)
    labels: dict[str, Any] = {}
    statuses: dict[str, str] = {}
    groups: dict[str, str] = {}  # uid -> its value of ``by``
    by_counts: dict[str, Counter[str]] = defaultdict(Counter)
    sets = []
    for path in paths:
        table = pq.read_table(path, columns=["uid", "label", *(["label_status"] if status else []),
                                             *(["perturbation_params"] if by else [])])  # fmt: skip
        data = table.to_pydict()
        labels.update(zip(data["uid"], data["label"], strict=True))
        if by:
            groups.update(_param_values(path, data, by))
        if status:
            statuses.update(zip(data["uid"], data["label_status"], strict=True))
        sets.append({"set": path.name, "sha256": sha256_file(path), "rows": table.num_rows, "mode": set_mode(path)})
    reader = _reader(review_csv, ("uid", *ANSWERS, *(ANNOTATION if status else ())))
    sampled = reviewed = label_judged = grammatical = coherent = 0
    correct: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    correct_by_status: Counter[str] = Counter()
    judged_by_status: Counter[str] = Counter()
    annotations: dict[str, str] = {}
    incoherent: list[str] = []
    problems: list[dict[str, Any]] = []
    places: Counter[str] = Counter()
    seen: set[str] = set()
    for record in reader:
        line = reader.line_num
        sampled += 1
        uid = record["uid"]
        if uid not in labels:
            raise DataError(review_csv, f"uid {uid!r} is not in {', '.join(p.name for p in paths)}", line)
        if uid in seen:
            raise DataError(review_csv, f"uid {uid!r} is reviewed twice", line)
        seen.add(uid)
        row_status = statuses.get(uid, "rule")
        is_coherent = _answer(record.get("coherent"), review_csv, line, "coherent") if status else True
        grammar_ok = _answer(record["grammatical"], review_csv, line, "grammatical")
        label_ok = _answer(record["label_correct"], review_csv, line, "label_correct")
        gold = _annotation(record, row_status, review_csv, line) if status else None
        place = _fault_place(record, grammar_ok, review_csv, line)
        if is_coherent is False:
            incoherent.append(uid)
        if gold is not None and is_coherent is not False:
            annotations[uid] = gold
        has_label = row_status != NEEDS_ANNOTATION
        if grammar_ok is None or is_coherent is None or (has_label and label_ok is None):
            continue  # not (fully) reviewed yet
        reviewed += 1
        grammatical += grammar_ok
        if by:
            tally = by_counts[groups[uid]]
            tally["reviewed"] += 1
            tally["grammatical"] += grammar_ok
            if has_label:
                tally["label_judged"] += 1
                tally["label_correct"] += bool(label_ok)
        if not grammar_ok:
            places[place or "unattributed"] += 1
        coherent += is_coherent
        if has_label:
            label_judged += 1
            label = str(labels[uid])
            judged[label] += 1
            correct[label] += label_ok
            judged_by_status[row_status] += 1
            correct_by_status[row_status] += label_ok
        if label_ok is False or not grammar_ok or not is_coherent:
            problems.append({
                "uid": uid, "label_correct": label_ok, "grammatical": grammar_ok,
                **({"coherent": is_coherent} if status else {}),
                **({GRAMMAR_FAULT: place} if place else {}),
                "comment": (record.get(COMMENT) or "").strip(),
            })  # fmt: skip
    if reviewed == 0 and not (annotations or incoherent):
        raise DataError(review_csv, "no row has its answers filled in")
    summary: dict[str, Any] = {
        "sets": sets,
        **({"annotators": annotators} if annotators else {}),
        **({"judged_by": judged_by.strip()} if judged_by and judged_by.strip() else {}),
        "sampled": sampled,
        "census": sampled == sum(s["rows"] for s in sets),
        "reviewed": reviewed,
        "label_judged": label_judged,
        "label_correct_rate": _rate(sum(correct.values()), label_judged),
        "grammatical_rate": _rate(grammatical, reviewed),
        "label_correct_by_label": {k: correct[k] / judged[k] for k in sorted(judged)},
    }
    if places["source"] or places["edit"]:  # the column is there and used
        summary["grammar_faults"] = {k: places[k] for k in (*FAULT_PLACES, "unattributed")}
        summary["edit_grammatical_rate"] = _rate(reviewed - places["edit"] - places["unattributed"], reviewed)
    if status:
        done = set(annotations) | set(incoherent)
        summary |= {
            "coherent_rate": _rate(coherent, reviewed),
            "label_correct_by_status": {
                k: correct_by_status[k] / judged_by_status[k] for k in sorted(judged_by_status)
            },
            "annotations": dict(sorted(annotations.items())),
            "incoherent": sorted(incoherent),
            "pending": sum(1 for u, s in statuses.items() if s == NEEDS_ANNOTATION and u not in done),
        }
    if by:
        summary["by"] = {"param": by, "groups": {
            value: {"reviewed": t["reviewed"], "label_judged": t["label_judged"],
                    "label_correct_rate": _rate(t["label_correct"], t["label_judged"]),
                    "grammatical_rate": _rate(t["grammatical"], t["reviewed"])}
            for value, t in sorted(by_counts.items())}}  # fmt: skip
    summary["problems"] = problems
    write_json_atomic(output, summary)
    return summary


def wilson_interval(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% for ``z`` 1.96) of a rate measured on ``n`` sampled rows.

    A sample's rate is an estimate of the set's: 97 of 100 right does not show the set
    is above 95% (the interval reaches 91.5%). Wilson's interval stays inside 0 and 1 and
    keeps its coverage near 0% and 100%, where these rates lie and the normal
    approximation fails.
    """
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def below_target(summary: Mapping[str, Any] | None, targets: Mapping[str, float]) -> list[str]:
    """The names of the summary's rates under their ``review.targets`` (``label_correct``,
    ``grammatical``, ``coherent``), in the targets' order: the card and the release catalogue
    both mark these, so they must agree on which they are."""
    if not summary:
        return []
    return [name for name, target in targets.items()
            if summary.get(f"{name}_rate") is not None and summary[f"{name}_rate"] < target]  # fmt: skip


def who_judged(summary: Mapping[str, Any]) -> str:
    """Who judged the rows, as the sentence a card prints beside the rates."""
    detail = f": {summary['judged_by']}" if summary.get("judged_by") else ""
    kind = summary.get("annotators")
    if kind == "language-model":
        return f"Judged by {ANNOTATOR_NAMES[kind]} annotators, not by people{detail}."
    if kind == "human":
        return f"Judged by {ANNOTATOR_NAMES[kind]} annotators{detail}."
    return f"Who judged the rows is not recorded{detail} (`nlistress import-review --annotators`)."


def human_judged(summary: Mapping[str, Any] | None) -> bool:
    """Whether people judged the rows: only their labels are published as expert-made."""
    return bool(summary) and summary.get("annotators") == "human"


def review_of(summary: Mapping[str, Any], set_name: str) -> Mapping[str, Any] | None:
    """The entry of ``summary["sets"]`` for the set file ``set_name``, or None."""
    return next((s for s in summary.get("sets", []) if s["set"] == set_name), None)


def set_mode(set_path: str | Path) -> str:
    """The construction mode its manifest records for ``set_path`` (``precise`` without one)."""
    path = manifest_path(set_path)
    if not path.exists():
        return DEFAULT_MODE
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["params"].get("mode", DEFAULT_MODE))
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise DataError(path, "not a set manifest (no params)") from None


def judged_mode(entry: Mapping[str, Any]) -> str | None:
    """The mode of the build a summary's set entry judged; None where the summary names none."""
    mode = entry.get("mode")
    return None if mode is None else str(mode)


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
    entry = review_of(summary, set_path.name)
    if entry is None:
        raise DataError(summary_path, f"does not review {set_path.name}")
    if entry["sha256"] != sha256_file(set_path):
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
