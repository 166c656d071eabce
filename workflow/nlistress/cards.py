"""Dataset cards: a Markdown page next to every generated set.

It opens with the Hugging Face card header (licence, language, task, size,
source dataset), so the card reads as a Hub dataset card on its own.

The card says what the set tests, how it was built (generator, settings,
seed, source file and checksum, the command that rebuilds it), how many rows
went in and out and why any were dropped, the source data's licence and
citation, and, once annotators have reviewed a sample, how often the generated
labels were right and the sentences grammatical, and who judged them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import yaml

from .atomic import write_text_atomic
from .dataset_card import front_matter, header
from .errors import DataError
from .manifest import manifest_path
from .perturb import find_test, make_generator
from .review import (
    ANNOTATOR_NAMES,
    below_target,
    human_judged,
    judged_mode,
    review_of,
    who_judged,
    wilson_interval,
)
from .tables import markdown_table


def _examples(set_path: Path, n: int = 3) -> list[dict[str, Any]]:
    """``n`` rows from different source examples, spread over the set (a permuted set's
    first rows are all word orders of one pair)."""
    names = pq.read_schema(set_path).names
    columns = ["uid", "premise", "hypothesis", "label", *(["source_uid"] if "source_uid" in names else [])]
    rows = pq.read_table(set_path, columns=columns).to_pylist()
    step = max(1, len(rows) // n)
    chosen: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for index in [*range(0, len(rows), step), *range(len(rows))]:
        source = rows[index].get("source_uid", rows[index]["uid"])
        if source not in seen:
            seen.add(source)
            chosen.append(rows[index])
        if len(chosen) == n:
            break
    return chosen


def _mode_key(run: Mapping[str, Any], generator: Any) -> str:
    """The ``MODES`` entry of a set: its mode, and for a default-mode set whether a paper mode exists."""
    mode = run.get("mode", generator.mode)
    return "precise_only" if mode == "precise" and not run.get("paper_generator") else mode


#: a construction mode in a sentence ("judged the default build")
_MODE_NAMES = {"precise": "default", "paper": "paper-mode", "reviewed": "reviewed"}

#: what a set's construction mode means, for its card
MODES = {
    "precise": "**Mode: default (high-precision).** The project's own construction: precision "
    "filters keep a row only where its label is certain. `profiles/paper/params.yaml` builds the "
    "paper-mode set instead.",
    "precise_only": "**Mode: default (high-precision).** The project's own construction, following "
    "the paper's description; the authors released no code for it, so there is no paper-mode build.",
    "reviewed": "**Mode: default (high-precision), then reviewed.** The rows of the base test's "
    "default build that annotators judged right, one by one (README \"Reviewed sets\"); there is no "
    "paper-mode build of it, as the authors' annotators judged a sample, not every row.",
    "paper": "**Mode: paper.** Built the way the authors' released code built it "
    "(`nlistress.authors`), so numbers on it compare like with like with the paper's; its labels "
    "are the construction's, right or wrong: the label quality above is what our judges measured "
    "on this build where it says so, the paper's own figure beside it.",
}


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.1%}"


def _judged(review: Mapping[str, Any] | None, set_name: str) -> Mapping[str, Any] | None:
    """The review's entry for this set file, or None when the review does not cover it."""
    return review_of(review, set_name) if review else None


def _other_mode(review: Mapping[str, Any] | None, set_name: str, mode: str) -> str | None:
    """The mode of the build ``review`` judged under this file name, when it is not ``mode``."""
    entry = _judged(review, set_name)
    judged = judged_mode(entry) if entry is not None else None
    return judged if judged not in (None, mode) else None


def paper_mode_measure(paper_review: Mapping[str, Any] | None, set_name: str) -> str:
    """What our judges measured on the paper-mode build of this set, as one sentence ("" if
    no summary of that build is given): beside the paper's own figure it says how far the
    construction the paper evaluated can be trusted."""
    entry = _judged(paper_review, set_name)
    if paper_review is None or entry is None or judged_mode(entry) != "paper":
        return ""
    scope = "every row" if paper_review.get("census") else f"{paper_review['reviewed']} rows"
    label, census, n = paper_review.get("label_correct_rate"), bool(paper_review.get("census")), paper_review["reviewed"]
    rates = ([f"label correct **{_pct(label)}**{_interval(label, paper_review['label_judged'], census)}"]
             if label is not None else []) + [
        f"grammatical **{_pct(paper_review['grammatical_rate'])}**"
        f"{_interval(paper_review['grammatical_rate'], n, census)}"]  # fmt: skip
    kind = ANNOTATOR_NAMES.get(paper_review.get("annotators"))
    return (f" Our {f'{kind} ' if kind else ''}judges, on the paper-mode build of this set (the authors' construction; {scope}, "
            f"sha256 `{entry['sha256'][:12]}…`): {', '.join(rates)}.")


def quality_section(
    review: Mapping[str, Any] | None, set_name: str, sha256: str, paper: str, other_mode: str | None = None,
    mode: str = "precise", paper_measured: str = "", targets: Mapping[str, float] | None = None,
) -> str:
    """The card's first word on label quality: our measured rates, stale or "not judged".

    Ours come first, with n and the set sha256 they were measured on; the
    paper's figure follows as context (only context for a default set, which it does
    not describe). A review of the same file name built in the other mode
    (``other_mode``) says nothing of this build's rows, and the card says so. A measured
    rate below its ``targets`` entry (``review.targets``) is named as such, so a set that
    cannot reach the project's bar says so where its rates are read.
    """
    entry = _judged(review, set_name)
    context = (f"For context (the paper's own judgement of its sample of this construction): {paper}"
               if mode == "paper" else f"For context only (another set, built another way): {paper}{paper_measured}")
    if entry is None:
        elsewhere = (
            f" The review of `{set_name}` it was given judged the {_MODE_NAMES.get(other_mode, other_mode)} "
            "build of that name, whose rows are other rows." if other_mode else ""
        )
        return (
            "**Label quality: not judged.** No sample of this build has been judged yet "
            f"(see Annotator review below for how to judge one).{elsewhere}\n\n" + context
        )
    n = review["reviewed"]
    scope = "every row of " if review.get("census") else "a stratified sample of "
    names = " + ".join(f"`{s['set']}`" for s in review["sets"])
    if entry["sha256"] != sha256:
        return (
            f"**Label quality: stale.** {n} rows ({scope}{names}) were judged on an earlier build "
            f"(sha256 `{entry['sha256'][:12]}…`); this build (sha256 `{sha256[:12]}…`) has not been "
            "judged, so those rates do not describe it.\n\n" + context
        )
    census = bool(review.get("census"))
    rates = []
    if review.get("label_correct_rate") is not None:
        rates.append(f"label correct **{_pct(review['label_correct_rate'])}**"
                     f"{_interval(review['label_correct_rate'], review['label_judged'], census)} "
                     f"({review['label_judged']} labelled rows)")  # fmt: skip
    rates.append(f"grammatical **{_pct(review['grammatical_rate'])}**"
                 f"{_interval(review['grammatical_rate'], n, census)}{_fault_places(review)}")  # fmt: skip
    if "coherent_rate" in review:
        rates.append(f"coherent **{_pct(review['coherent_rate'])}**{_interval(review['coherent_rate'], n, census)}")
    spread = ("Every row was judged, so the rates have no sampling error (the judges' own errors remain)."
              if census else "In brackets: the 95% Wilson interval of each rate (sampling error only).")
    return (
        f"**Label quality, measured on this build:** {', '.join(rates)}; n = {n} judged rows "
        f"({scope}{names}), set sha256 `{sha256[:12]}…`. {spread} {who_judged(review)}"
        f"{_short_of(review, targets or {})}\n\n" + context
    )


def _short_of(review: Mapping[str, Any], targets: Mapping[str, float]) -> str:
    """The "Below target" sentence naming each measured rate under its target, else ""."""
    short = [f"{name.replace('_', ' ')} {_pct(review[f'{name}_rate'])} (target {targets[name]:.0%})"
             for name in below_target(review, targets)]  # fmt: skip
    if not short:
        return ""
    return (f" **Below target:** {', '.join(short)}; the rows the annotators faulted, and why, are "
            "listed under Annotator review.")


def _interval(rate: float | None, n: int, census: bool) -> str:
    """A sample's rate with its 95% interval ("" for a census, which has no sampling error)."""
    if census or rate is None or not n:
        return ""
    low, high = wilson_interval(rate, n)
    return f" [{low:.1%} to {high:.1%}]"


def _fault_places(review: Mapping[str, Any]) -> str:
    """Where the ungrammatical rows' faults lie, when the review says (``grammar_fault``)."""
    places = review.get("grammar_faults")
    if not places or not sum(places.values()):
        return ""
    unsaid = f", {places['unattributed']} not attributed" if places["unattributed"] else ""
    total, source, edit = sum(places.values()), places["source"], places["edit"]
    rows = "the ungrammatical row" if total == 1 else f"the {total} ungrammatical rows"
    return (f" (of {rows}, {source} {'repeats' if source == 1 else 'repeat'} a fault of the source text "
            f"and {edit} {'has' if edit == 1 else 'have'} one the edit made{unsaid}: "
            f"{_pct(review['edit_grammatical_rate'])} of rows have no fault made by the edit)")


def _review_section(review: Mapping[str, Any] | None, set_name: str, sha256: str, review_path: str) -> str:
    entry = _judged(review, set_name)
    if entry is None:
        return (
            "Not reviewed yet. Draw a stratified sample with "
            f"`nlistress sample-for-review {set_name} -o review.csv`, fill in the `label_correct` "
            "and `grammatical` columns (yes/no; swap sets also `coherent`, and `gold_label` for "
            "rows that need one), and read it back with `nlistress import-review review.csv --set "
            f"{set_name} -o {review_path}`; the pipeline then rebuilds this "
            "card with the rates."
        )
    stale = " (stale: judged on an earlier build)" if entry["sha256"] != sha256 else ""
    rates = [["generated label correct", _pct(review["label_correct_rate"])],
             ["grammatical", _pct(review["grammatical_rate"])]]  # fmt: skip
    if review.get("edit_grammatical_rate") is not None:
        rates.append(["no grammar fault made by the edit", _pct(review["edit_grammatical_rate"])])
    if "coherent_rate" in review:
        rates.append(["coherent", _pct(review["coherent_rate"])])
    rates += [[f"label correct, {label}", _pct(rate)]
              for label, rate in sorted(review.get("label_correct_by_label", {}).items())]  # fmt: skip
    rates += [[f"label correct, {status} labels", _pct(rate)]
              for status, rate in sorted(review.get("label_correct_by_status", {}).items())]  # fmt: skip
    lines = [
        f"{review['reviewed']} rows reviewed{stale} "
        + ("(every row). " if review.get("census") else f"(sample of {review['sampled']}, stratified by label). ")
        + who_judged(review),
        "",
        markdown_table(["measure", "rate"], rates).rstrip("\n"),
    ]
    if "annotations" in review:  # sets with rows no rule could label
        lines += ["", f"Labelled by reviewers: {len(review['annotations'])} rows; marked incoherent "
                  f"(discarded): {len(review['incoherent'])}; still without a label: {review['pending']}."]
    problems = review.get("problems") or []
    if problems:
        lines += ["", "Rows the reviewers faulted (what still goes wrong):", ""]
        for p in problems:
            faults = [name for name in ("label_correct", "grammatical", "coherent") if p.get(name) is False]
            if p.get("grammar_fault"):
                faults[faults.index("grammatical")] = f"grammatical: {p['grammar_fault']}"
            note = f": {p['comment']}" if p.get("comment") else ""
            lines.append(f"- `{p['uid']}` ({', '.join(faults)}){note}".replace("\n", " "))
    return "\n".join(lines)


def render_card(
    set_path: str | Path,
    manifest: Mapping[str, Any],
    params: Mapping[str, Any],
    review: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
    paper_review: Mapping[str, Any] | None = None,
) -> str:
    """The Markdown card of one set, from its manifest and the registry (and its audit, if given;
    ``paper_review``: a summary of the paper-mode build of the same set, quoted as context)."""
    set_path = Path(set_path)
    run = manifest["params"]
    generator = make_generator(run["test"], params, run["settings"])
    other_mode = _other_mode(review, set_path.name, str(run.get("mode", generator.mode)))
    if other_mode is not None:
        review = None  # it judged the other mode's build, whose rows are other rows
    family = run.get("family") or find_test(params, run["test"])[0]
    dataset = (params.get("datasets") or {}).get(manifest["dataset"], {})
    rows = manifest["rows"]
    labels = ", ".join(f"{label} {n:,}" for label, n in manifest.get("labels", {}).items())
    settings = yaml.safe_dump(
        {"generator": run["generator"], **run["settings"]}, sort_keys=True, allow_unicode=True
    ).strip()
    examples = markdown_table(["label", "premise", "hypothesis"],
                              [[e["label"], e["premise"], e["hypothesis"]] for e in _examples(set_path)])  # fmt: skip
    notes = generator.card_notes(manifest).strip()
    meta = header(
        f"{run['test']}: {manifest['dataset']} {manifest['split']}", {manifest["dataset"]: dataset},
        manifest["output_rows"], tags=["nli", family, run["test"], f"mode-{run.get('mode', generator.mode)}"],
        expert_labels=human_judged(review) and bool(review.get("annotations")),
    )  # fmt: skip
    sections = [
        f"# {run['test']}: {manifest['dataset']} {manifest['split']}",
        f"`{set_path.name}` · {manifest['output_rows']:,} rows · sha256 `{manifest['sha256']}`",
        quality_section(review, set_path.name, manifest["sha256"], generator.paper_quality, other_mode,
                        str(run.get("mode", generator.mode)), paper_mode_measure(paper_review, set_path.name),
                        (params.get("review") or {}).get("targets")),
        "## What it tests",
        generator.tests_for,
        "## How it was built",
        MODES[_mode_key(run, generator)],
        f"Generator `{run['generator']}` with seed {run['seed']} and language `{run['language']}`, "
        f"from `{manifest['source']['path']}` (sha256 `{manifest['source']['sha256']}`). "
        "Each row keeps `source_uid` (the example it came from), `perturbation` and "
        "`perturbation_params` (exactly what was changed), so any row can be traced and rebuilt.",
        f"```yaml\n{settings}\n```",
        "Rebuild it with:",
        f"```bash\nnlistress perturb {run['test']} -i {manifest['source']['path']} "
        f"-o {set_path} --seed {run['seed']}\n```",
        "## Counts",
        markdown_table([f"{rows['unit']}s", "count"], [
            ["read", f"{rows['input']:,}"], ["kept", f"{rows['kept']:,}"],
            *([f"dropped: {why}", f"{n:,}"] for why, n in rows["dropped"].items()),
        ]).rstrip("\n"),
        f"Rows in the set: {manifest['output_rows']:,} ({labels}).",
    ]
    filtered = sum(n for why, n in rows["dropped"].items() if why.startswith("filter: "))
    if filtered:
        sections.append(
            f"Before the precision filters {rows['kept'] + filtered:,} {rows['unit']}s would have "
            f"been kept; the filters dropped {filtered:,} of them (the `filter:` rows above), "
            f"leaving {rows['kept']:,}."
        )
    if manifest.get("stats"):
        stats = yaml.safe_dump(dict(manifest["stats"]), sort_keys=False, allow_unicode=True)
        sections += ["Counts at each stage:", f"```yaml\n{stats.strip()}\n```"]
    if notes:
        sections += ["## Notes", notes]
    sections += [
        "## Examples",
        examples.rstrip("\n"),
        "## Annotator review",
        _review_section(review, set_path.name, manifest["sha256"],
                        f"reviews/{family}/{run['test']}/{manifest['dataset']}_{manifest['split']}.json"),
    ]
    if audit:
        from .hypothesis_only.card_section import audit_section

        sections += ["## Artifact audit", audit_section(audit, permuted=family == "permute")]
    sections += [
        "## Source data, licence and citation",
        f"Built from {dataset.get('title', manifest['dataset'])} "
        f"({dataset.get('homepage', 'no homepage recorded')}), licence: "
        f"{dataset.get('license', 'unknown')}. The set inherits this licence.",
        f"- Source data: {dataset.get('citation', 'see the dataset homepage')}",
        f"- Test construction: {generator.cites}",
    ]
    return front_matter(meta) + "\n\n".join(sections) + "\n"


def write_card(
    set_path: str | Path,
    output: str | Path,
    params: Mapping[str, Any],
    review_path: str | Path | None = None,
    audit_path: str | Path | None = None,
    paper_review_path: str | Path | None = None,
) -> None:
    """Render the card of ``set_path`` (its manifest beside it) into ``output``."""
    manifest = json.loads(manifest_path(set_path).read_text(encoding="utf-8"))
    review = paper_review = None
    if review_path is not None and Path(review_path).exists():
        review = json.loads(Path(review_path).read_text(encoding="utf-8"))
    if paper_review_path is not None:
        if not Path(paper_review_path).is_file():
            raise DataError(paper_review_path, "paper-mode review summary not found")
        paper_review = json.loads(Path(paper_review_path).read_text(encoding="utf-8"))
    audit = None
    if audit_path is not None:
        if not Path(audit_path).is_file():
            raise DataError(audit_path, "audit not found; write it with `nlistress audit --set SET -o FILE`")
        audit = json.loads(Path(audit_path).read_text(encoding="utf-8"))
    write_text_atomic(output, render_card(set_path, manifest, params, review, audit, paper_review))
