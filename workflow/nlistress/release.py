"""The release: every published set with its card and manifest, plus a catalogue.

``data/release/`` is what users fetch with ``dvc pull release`` and what a
maintainer uploads as a Hugging Face dataset repository: a copy of each
released set (Parquet, manifest, dataset card) under
``<family>/<test>/<dataset>_<split>.*``; ``README.md``, the Hub's dataset card,
whose front matter makes ``datasets.load_dataset(folder, "<family>-<test>")``
work (one config per test, one split per source split, typed features);
``croissant.json`` (MLCommons Croissant metadata); and a catalogue (JSON, CSV and
Markdown) naming each set's paper, mode, row count, measured label quality,
settings hash, code version, sha256 and the licence of the data it was made
from. DVC stores a file once per content hash, so the copies cost nothing in
the cache or on the remote.

Every check runs on the bytes that ship, after they are copied: the copy's
sha256 must equal its manifest's, its Parquet row count and label counts must
equal the manifest's, and its card must name that sha256. A set changed while
the release was being made, or a manifest edited to match a rewritten set, is
refused; a release never ships a file that differs from what its manifest and
card describe.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .atomic import atomic_dir, sha256_file, write_json_atomic, write_text_atomic
from .croissant import croissant
from .dataset_card import FIELDS, config_name, features, front_matter, header, split_name
from .errors import DataError
from .manifest import manifest_path
from .perturb import find_test, generator_class
from .review import ANNOTATOR_NAMES, below_target, human_judged
from .tables import markdown_table


@dataclass(frozen=True)
class CatalogueEntry:
    """One released set, as the catalogue lists it."""

    name: str
    family: str
    test: str
    dataset: str
    split: str
    paper: str
    #: ``precise`` (the project's default construction) or ``paper`` (the authors' code)
    mode: str
    rows: int
    #: judged on this very build (sha256), else None: ``label_correct`` is None also for sets
    #: whose rows carry no rule label to judge
    label_correct: float | None
    #: rows whose rule label was judged (swap sets also judge rows that carry no label)
    label_judged: int | None
    grammatical: float | None
    #: share of judged rows with no grammar fault made by the generator's edit (the review's
    #: ``grammar_fault`` column), None where the review does not say where the faults lie
    edit_grammatical: float | None
    judged_rows: int | None
    #: share of judged rows whose sentences make sense together (swap sets), else None
    coherent: float | None
    #: the judged rates under their ``review.targets`` ("label_correct, grammatical"), the same
    #: the card names as "Below target"; "" where every rate reaches its target or none was judged
    below_target: str
    #: who judged the rows: ``human``, ``language-model`` (an AI read them) or ``not recorded``;
    #: None when not judged
    annotators: str | None
    #: the first 16 hex digits of the sha256 of the generator's settings (manifest ``params``)
    settings_sha256: str
    code_version: str
    sha256: str
    license: str
    path: str

    @property
    def config(self) -> str:
        return config_name(self.family, self.test)

    @property
    def hub_split(self) -> str:
        return split_name(self.dataset, self.split)


def _card_path(set_path: Path) -> Path:
    return set_path.with_name(f"{set_path.stem}.card.md")


def _verify_shipped(set_path: Path, manifest: Mapping[str, Any], card: Path) -> str:
    """Check the copied set against its copied manifest and card; return its sha256."""
    digest = sha256_file(set_path)
    if digest != manifest.get("sha256"):
        raise DataError(set_path, f"sha256 {digest} differs from its manifest "
                        f"({manifest.get('sha256')}): the set changed; rebuild it")  # fmt: skip
    table = pq.read_table(set_path, columns=["label"])
    if table.num_rows != manifest.get("output_rows"):
        raise DataError(set_path, f"{table.num_rows} rows, its manifest says "
                        f"{manifest.get('output_rows')}: rebuild the set")  # fmt: skip
    labels = table["label"].value_counts().to_pylist()
    counts = {str(x["values"]): int(x["counts"]) for x in labels}
    if "labels" in manifest and counts != {str(k): int(v) for k, v in manifest["labels"].items()}:
        raise DataError(set_path, f"label counts {counts} differ from its manifest's "
                        f"{manifest['labels']}: rebuild the set")  # fmt: skip
    if digest not in card.read_text(encoding="utf-8"):
        raise DataError(card, f"does not name the set's sha256 {digest[:12]}…: rebuild the card")
    return digest


def _reviews(paths: Sequence[str | Path]) -> dict[str, Mapping[str, Any]]:
    """Review summaries by the sha256 of each set file they judged (a review covers the
    exact bytes it judged: a rebuilt set is not covered). Where several judged the same
    bytes (a sample and a census), the one with the most judged rows is the measure."""
    by_digest: dict[str, Mapping[str, Any]] = {}
    for path in paths:
        try:
            summary = json.loads(Path(path).read_text(encoding="utf-8"))
            for judged in summary["sets"]:
                held = by_digest.get(judged["sha256"])
                if held is None or summary["reviewed"] > held["reviewed"]:
                    by_digest[judged["sha256"]] = summary
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DataError(path, f"not a review summary ({exc})") from None
    return by_digest


def _settings_hash(run: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(run, sort_keys=True).encode()).hexdigest()[:16]


def _entry(
    set_path: Path, params: Mapping[str, Any], reviews: Mapping[str, Mapping[str, Any]]
) -> CatalogueEntry:
    """Check a set against its manifest and describe it for the catalogue."""
    for needed in (manifest_path(set_path), _card_path(set_path)):
        if not needed.exists():
            raise DataError(needed, "missing: build the set's manifest and card before releasing")
    try:
        manifest = json.loads(manifest_path(set_path).read_text(encoding="utf-8"))
        test, dataset, split = (manifest["params"]["test"], manifest["dataset"],
                                manifest["split"])  # fmt: skip
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DataError(manifest_path(set_path), f"not a set manifest ({exc})") from None
    digest = sha256_file(set_path)
    if digest != manifest.get("sha256"):
        raise DataError(
            set_path, f"sha256 {digest} differs from its manifest ({manifest.get('sha256')}): rebuild it"
        )
    family, settings = find_test(params, test)
    source = (params.get("datasets") or {}).get(dataset) or {}
    run = manifest["params"]
    generator = generator_class(run.get("generator", settings["generator"]))
    review = reviews.get(digest)
    return CatalogueEntry(
        name=f"{family}/{test}/{dataset}_{split}",
        family=family,
        test=test,
        dataset=dataset,
        split=split,
        paper=generator.cites,
        mode=str(run.get("mode", generator.mode)),
        rows=pq.ParquetFile(set_path).metadata.num_rows,
        label_correct=review.get("label_correct_rate") if review else None,
        label_judged=review.get("label_judged") if review else None,
        grammatical=review.get("grammatical_rate") if review else None,
        edit_grammatical=review.get("edit_grammatical_rate") if review else None,
        judged_rows=review.get("reviewed") if review else None,
        coherent=review.get("coherent_rate") if review else None,
        below_target=", ".join(below_target(review, (params.get("review") or {}).get("targets") or {})),
        annotators=(review.get("annotators") or "not recorded") if review else None,
        settings_sha256=_settings_hash(run),
        code_version=str(manifest.get("nlistress_version", "unknown")),
        sha256=digest,
        license=str(source.get("license") or "unknown"),
        path=f"{family}/{test}/{set_path.name}",
    )


def _quality(entry: CatalogueEntry) -> str:
    """Measured label quality as the catalogue and the card print it."""
    if entry.judged_rows is None:
        return "not judged"
    label = ("no rule labels" if entry.label_correct is None
             else f"label {entry.label_correct:.1%} of {entry.label_judged}")  # fmt: skip
    edit = ("" if entry.edit_grammatical is None
            else f" ({entry.edit_grammatical:.1%} with no fault made by the edit)")  # fmt: skip
    coherent = "" if entry.coherent is None else f", coherent {entry.coherent:.1%}"
    kind = ANNOTATOR_NAMES.get(str(entry.annotators))
    who = f"{kind} annotators" if kind else "annotators not recorded"
    short = f"; **below target**: {entry.below_target.replace('_', ' ')}" if entry.below_target else ""
    return f"{label}, grammatical {entry.grammatical:.1%}{edit}{coherent} (n = {entry.judged_rows}, {who}){short}"


def _markdown(entries: Sequence[CatalogueEntry]) -> str:
    rows = [[f"`{e.name}`", f"{e.rows:,}", e.mode, _quality(e), e.license, e.paper, f"`{e.sha256[:12]}…`"]
            for e in entries]  # fmt: skip
    return "\n".join([
        "# nlistress release catalogue",
        "",
        "Every released test set, with the paper it reproduces, the mode that built it (`precise`: "
        "the project's high-precision construction; `paper`: the authors' code), our measured label "
        "quality on this very build (a rate under its target, `review.targets` in the project's "
        "params.yaml, is marked **below target**, as on the set's card), and the licence of the data "
        "it was generated from (a set inherits its source's licence). Each set's dataset card (`*.card.md`) says how it was "
        "built; its manifest (`*.manifest.json`) counts every row kept and dropped. "
        "`catalogue.json` / `catalogue.csv` add the settings hash and the code version.",
        "",
        markdown_table(["set", "rows", "mode", "label quality (judged)", "source licence", "paper", "sha256"],
                       rows, align="lrlllll"),
    ])  # fmt: skip


def _csv(entries: Sequence[CatalogueEntry]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(CatalogueEntry.__dataclass_fields__),
                            lineterminator="\n")  # fmt: skip
    writer.writeheader()
    writer.writerows(asdict(e) for e in entries)
    return out.getvalue()


def _config_schemas(entries: Sequence[CatalogueEntry], folder: Path) -> dict[str, pa.Schema]:
    """The Parquet schema of each config; its splits must share it, or `load_dataset` fails."""
    schemas: dict[str, pa.Schema] = {}
    for entry in entries:
        schema = pq.read_schema(folder / entry.path).remove_metadata()
        first = schemas.setdefault(entry.config, schema)
        if not schema.equals(first):
            raise DataError(folder / entry.path, f"its columns differ from the other sets of config "
                            f"{entry.config!r}: a config's splits must share one schema")  # fmt: skip
    return schemas


def _expert_labels(entries: Sequence[CatalogueEntry], folder: Path) -> bool:
    """Whether any released row carries a label people gave (``label_status`` ``annotated``,
    from a review whose annotators were human). A label a language model gave is machine-made,
    and so is one whose review cannot be read to say who gave it."""
    for entry in entries:
        path = folder / entry.path
        if "label_status" in pq.read_schema(path).names:
            statuses = pq.read_table(path, columns=["label_status"])["label_status"]
            if "annotated" in statuses.unique().to_pylist() and human_judged(_applied_review(path)):
                return True
    return False


def _applied_review(set_path: Path) -> Mapping[str, Any] | None:
    """The review summary whose labels ``import-review --apply`` wrote into the set, if readable."""
    try:
        source = json.loads(manifest_path(set_path).read_text(encoding="utf-8")).get("source") or {}
        return json.loads(Path(source["review"]).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, KeyError, TypeError, AttributeError):
        return None


def _short_sets(entries: Sequence[CatalogueEntry], params: Mapping[str, Any]) -> str:
    """The dataset card's warning naming each set judged below a target, and the released
    judged set built from its rows (a ``reviewed`` test whose ``base`` it is), else ""."""
    targets = (params.get("review") or {}).get("targets") or {}
    short = []
    for entry in (e for e in entries if e.below_target):
        instead = [f"`{e.name}`" for e in entries
                   if (e.dataset, e.split) == (entry.dataset, entry.split)
                   and find_test(params, e.test)[1].get("base") == entry.test]  # fmt: skip
        use = f"; use {' or '.join(instead)}, its rows that annotators passed" if instead else ""
        short.append(f"`{entry.name}` ({entry.below_target.replace('_', ' ')}{use})")
    if not short:
        return ""
    wanted = ", ".join(f"{name.replace('_', ' ')} {rate:.0%}" for name, rate in targets.items())
    return (f" **Below target** ({wanted}): {'; '.join(short)}. Each card lists the rows the "
            "annotators faulted, and why.")


def _readme(entries: Sequence[CatalogueEntry], folder: Path, params: Mapping[str, Any]) -> str:
    """The release's Hugging Face dataset card: front matter with configs and typed features,
    then the Hub's card sections."""
    settings = params.get("release") or {}
    registry = params.get("datasets") or {}
    sources = {e.dataset: registry.get(e.dataset) or {} for e in entries}
    schemas = _config_schemas(entries, folder)
    by_config: dict[str, list[CatalogueEntry]] = {}
    for entry in entries:
        by_config.setdefault(entry.config, []).append(entry)
    configs = [{"config_name": name, "data_files": [{"split": e.hub_split, "path": e.path} for e in group]}
               for name, group in by_config.items()]  # fmt: skip
    infos = [{"config_name": name, "features": features(schemas[name], name),
              "splits": [{"name": e.hub_split, "num_examples": e.rows} for e in group]}
             for name, group in by_config.items()]  # fmt: skip
    families = sorted({e.family for e in entries})
    meta = header(
        settings.get("title", "nlistress"), sources, sum(e.rows for e in entries),
        tags=["nli", "robustness", "stress-test", *families], expert_labels=_expert_labels(entries, folder),
        extra={"configs": configs, "dataset_info": infos},
    )  # fmt: skip
    first = entries[0]
    columns = list(dict.fromkeys(f.name for schema in schemas.values() for f in schema))
    types = {f.name: str(f.type) for schema in schemas.values() for f in schema}
    judged = [e for e in entries if e.judged_rows is not None]
    built = []
    for name, group in by_config.items():
        generator = generator_class(find_test(params, group[0].test)[1]["generator"])
        cards = ", ".join(f"[{e.hub_split}]({e.path.removesuffix('.parquet')}.card.md)" for e in group)
        built.append(f"- `{name}` ({group[0].paper}): {' '.join(generator.tests_for.split())} Cards: {cards}.")
    citations = sorted({e.paper for e in entries}) + sorted(
        f"{(sources[d].get('title') or d)}: {sources[d].get('citation', 'see its homepage')}" for d in sources
    )  # fmt: skip
    body = [
        f"# {settings.get('title', 'nlistress')}",
        "NLI robustness test sets rebuilt from the public datasets by "
        "the nlistress pipeline: the stress tests of Naik et al. (2018), the "
        "word-pair swaps of Sanchez et al. (2018) and the word-order permutations of Sinha et al. (2021). "
        "Every row keeps the uid of the example it came from and exactly what was changed; every set has a "
        "manifest counting each row kept and dropped and a card saying how it was built.",
        "## Loading",
        "One config per test, one split per source split:",
        f"```python\nfrom datasets import load_dataset\n\nds = load_dataset(\"<this repository or folder>\", "
        f"\"{first.config}\", split=\"{first.hub_split}\")\n```",
        "## Sets",
        markdown_table(
            ["config", "split", "rows", "mode", "label quality (judged)", "source licence"],
            [[f"`{e.config}`", f"`{e.hub_split}`", f"{e.rows:,}", e.mode, _quality(e), e.license] for e in entries],
            align="llrlll",
        ).rstrip("\n"),
        "`mode`: `precise` is the project's high-precision construction (a rule sets a label only where "
        "it is certain); `paper` rebuilds the authors' released code, errors included.",
        "## Fields",
        markdown_table(["column", "type", "meaning"],
                       [[f"`{c}`", types[c], FIELDS.get(c, "")] for c in columns]).rstrip("\n"),
        "## How the sets were built",
        "\n".join(built),
        "## Measured label quality",
        ("Rows drawn at random (stratified by label) and judged one by one, blind to the rule that made "
         "them, for label correctness and grammaticality; the review files are in the project's `reviews/` "
         "folder and cover exactly the bytes released here (by sha256). The table above says who judged "
         "each set: `language-model` annotators are an AI model reading the rows, not people, so their "
         "rates are that model's strict reading, not a human annotation. "
         + (f"Judged: {', '.join(f'`{e.name}`' for e in judged)}; the other sets are not judged yet."
            if judged else "No released set has been judged yet.")
         + _short_sets(entries, params)),
        "## Licences",
        "A set inherits the licence of the data it was made from:\n\n" + "\n".join(
            f"- {sources[d].get('title', d)} ({sources[d].get('homepage', 'no homepage recorded')}): "
            f"{sources[d].get('license', 'unknown')}" for d in sources),
        "## Citations",
        "\n".join(f"- {c}" for c in citations),
    ]  # fmt: skip
    return front_matter(meta) + "\n\n".join(body) + "\n"


def build_release(
    sets: Sequence[str | Path],
    output: str | Path,
    params: Mapping[str, Any],
    reviews: Sequence[str | Path] = (),
) -> list[CatalogueEntry]:
    """Copy ``sets`` (with manifests and cards) into ``output`` and write the dataset card,
    the Croissant metadata and the catalogue. ``reviews``: review summaries (``reviews/``)
    whose judged rates the catalogue reports for the exact set files they judged.

    The folder is replaced as a whole, so a release never mixes old and new sets.
    """
    judged = _reviews(reviews)
    checked = sorted(((_entry(Path(s), params, judged), Path(s)) for s in sets), key=lambda x: x[0].name)
    entries = [entry for entry, _ in checked]
    names = [e.name for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataError(Path(output), f"released twice under one name: {', '.join(duplicates)}")
    if not entries:
        raise DataError(Path(output), "nothing to release: give at least one set")
    with atomic_dir(output) as folder:
        for entry, set_path in checked:
            target = folder / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            for src in (set_path, manifest_path(set_path), _card_path(set_path)):
                shutil.copyfile(src, target.parent / src.name)
            shipped = json.loads(manifest_path(target).read_text(encoding="utf-8"))
            if _verify_shipped(target, shipped, _card_path(target)) != entry.sha256:
                raise DataError(set_path, "changed while the release was being made: release again")
        catalogue = [{**asdict(e), "config": e.config, "hub_split": e.hub_split} for e in entries]
        write_json_atomic(folder / "catalogue.json", {"count": len(catalogue), "sets": catalogue})
        write_text_atomic(folder / "catalogue.csv", _csv(entries))
        write_text_atomic(folder / "CATALOGUE.md", _markdown(entries))
        write_text_atomic(folder / "README.md", _readme(entries, folder, params))
        write_json_atomic(folder / "croissant.json", croissant(entries, folder, params))
    return entries
