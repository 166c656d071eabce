"""The dataset registry: params.yaml sections turned into validated, typed specs.

Snakemake rules, the CLI and the tests all go through these functions, so a
typo in params.yaml is reported once, with its key path, before any step runs.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import yaml

from .errors import ConfigError
from .schema import checked_section

SOURCE_KINDS = ("url", "hf", "local")
TABLES = ("nli", "aqua")
NLI_FIELDS = ("premise", "hypothesis", "label", "id", "genre")
FILE_FORMATS = ("jsonl", "csv", "tsv")
QUOTING = ("minimal", "none")
#: the key a profile names its base params file with (see ``load_params``)
EXTENDS = "extends"


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``override`` into a copy of ``base``: dicts recursively, other values replaced.

    This is the same rule Snakemake applies to ``--configfile`` overrides, so
    ``nlistress`` subcommands given the same files see the same config.
    """
    merged = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            loaded = yaml.safe_load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{path}: params file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f", line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise ConfigError(f"{path}{where}: not valid YAML ({problem})") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as exc:
        raise ConfigError(f"{path}: cannot read the params file ({type(exc).__name__})") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, Mapping):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return dict(loaded)


def _load_with_base(path: Path, chain: tuple[Path, ...]) -> dict[str, Any]:
    """One params file merged over the file its ``extends`` key names, if any.

    A profile (``profiles/paper/params.yaml``) holds only what it changes and
    names its base with ``extends: ../../params.yaml`` (relative to itself), so
    ``--params profiles/paper/params.yaml`` alone is the whole config. Snakemake
    ignores the key: its ``--configfile`` is always merged over params.yaml.
    """
    resolved = path.resolve()
    if resolved in chain:
        raise ConfigError(f"{path}: 'extends' loops back to {path}")
    loaded = _read_yaml(path)
    base = loaded.pop(EXTENDS, None)
    if base is None:
        return loaded
    if not isinstance(base, str) or not base:
        raise ConfigError(f"{path}: extends: expected the path of a params file, got {base!r}")
    return deep_merge(_load_with_base(path.parent / base, (*chain, resolved)), loaded)


def load_params(paths: Iterable[str | Path]) -> dict[str, Any]:
    """Read YAML files in order, each deep-merged over the previous ones."""
    params: dict[str, Any] = {}
    for path in paths:
        params = deep_merge(params, _load_with_base(Path(path), ()))
    return params


def _get(mapping: Any, key: str, where: str, expected: type | tuple[type, ...]) -> Any:
    if not isinstance(mapping, Mapping):
        raise ConfigError(f"{where}: expected a mapping, got {type(mapping).__name__}")
    if key not in mapping:
        raise ConfigError(f"{where}.{key}: missing")
    value = mapping[key]
    if not isinstance(value, expected):
        names = (
            expected.__name__
            if isinstance(expected, type)
            else "/".join(t.__name__ for t in expected)
        )
        raise ConfigError(f"{where}.{key}: expected {names}, got {value!r}")
    return value


@dataclass(frozen=True)
class DownloadSpec:
    """One official file or archive to fetch."""

    name: str
    url: str
    sha256: str | None
    archive: str
    filename: str
    #: (folder in the archive, folder in the download) pairs: only those members are
    #: unpacked, each moved to its new folder; empty: every member, where it is
    unpack: tuple[tuple[PurePosixPath, PurePosixPath], ...] = ()
    #: a SHA-1 published for the file, for sources whose sha256 nobody publishes
    #: (checked as well as ``sha256`` where both are given)
    sha1: str | None = None

    @property
    def pinned(self) -> bool:
        """A published checksum will be checked: a changed or cut-off file is refused."""
        return self.sha256 is not None or self.sha1 is not None

    @classmethod
    def from_params(cls, params: Mapping[str, Any], name: str) -> DownloadSpec:
        where = f"downloads.{name}"
        entry = _get(checked_section(params, "downloads"), name, "downloads", dict)
        url, sha, archive = _get(entry, "url", where, str), entry.get("sha256"), entry.get("archive", "file")
        # Named for the URL's path: a query (Zenodo's ?download=1) is not part of the name.
        filename = _inside(entry.get("filename") or PurePosixPath(urlsplit(url).path).name, f"{where}.filename")
        unpack = tuple(
            (_inside(src, f"{where}.unpack"), _inside(dst, f"{where}.unpack.{src}"))
            for src, dst in sorted((entry.get("unpack") or {}).items())
        )
        if unpack and archive == "file":
            raise ConfigError(f"{where}.unpack: only an archive (zip, tar, tar.gz) has folders to unpack")
        sha1 = entry.get("sha1")
        return cls(
            name, url, sha.lower() if sha else None, archive, filename.as_posix(), unpack, sha1.lower() if sha1 else None
        )


def _inside(path: str, where: str) -> PurePosixPath:
    """``path`` as a relative path that stays inside its folder (no ``..``, not absolute)."""
    posix = PurePosixPath(path)
    if posix.is_absolute() or ".." in posix.parts or not posix.parts:
        raise ConfigError(f"{where}: expected a relative path inside the download folder, got {path!r}")
    return posix


@dataclass(frozen=True)
class SourceSpec:
    """Where one split comes from: an official download, a HF dataset or a local file."""

    kind: str
    download: str | None = None
    member: str | None = None
    path: str | None = None
    hf_name: str | None = None
    hf_revision: str | None = None
    hf_split: str | None = None
    hf_config: str | None = None
    #: (field, value) pairs a row must match to be in the split, for a file that
    #: holds several splits; empty: every row of the source is the split's.
    select: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_params(cls, entry: Any, where: str) -> SourceSpec:
        kind = _get(entry, "kind", where, str)
        select = tuple(sorted((entry.get("select") or {}).items()))
        if kind == "url":
            return cls(
                kind,
                download=_get(entry, "download", where, str),
                member=_get(entry, "member", where, str),
                select=select,
            )
        if kind == "local":
            return cls(kind, path=_get(entry, "path", where, str), select=select)
        if kind == "hf":
            revision = entry.get("revision")
            return cls(
                kind,
                hf_name=_get(entry, "name", where, str),
                hf_revision=str(revision) if revision is not None else None,
                hf_split=_get(entry, "split", where, str),
                hf_config=entry.get("config"),
                select=select,
            )
        raise ConfigError(f"{where}.kind: expected one of {', '.join(SOURCE_KINDS)}, got {kind!r}")

    def describe(self) -> dict[str, Any]:
        """The fields that identify this source (for manifests)."""
        if self.kind == "url":
            out = {"kind": "url", "download": self.download, "member": self.member}
        elif self.kind == "local":
            out = {"kind": "local", "path": self.path}
        else:
            out = {
                "kind": "hf",
                "name": self.hf_name,
                "revision": self.hf_revision,
                "split": self.hf_split,
                "config": self.hf_config,
            }
        return out | ({"select": dict(self.select)} if self.select else {})


@dataclass(frozen=True)
class FileFormat:
    """How the files of a dataset are laid out: JSON lines, or delimited text (csv/tsv).

    Many NLI datasets (SciTail, SICK, RTE, FN+ ...) ship as CSV or TSV; with a
    ``format`` entry they go through the same canonicalisation as JSON lines,
    field names coming from the header line or from ``fieldnames``.
    """

    kind: str = "jsonl"
    delimiter: str = ","
    header: bool = True
    fieldnames: tuple[str, ...] = ()
    quoting: str = "minimal"

    @classmethod
    def from_params(cls, entry: Any, where: str) -> FileFormat:
        if entry is None:
            return cls()
        if isinstance(entry, str):
            entry = {"kind": entry}
        kind = _get(entry, "kind", where, str)
        if kind not in FILE_FORMATS:
            raise ConfigError(
                f"{where}.kind: expected one of {', '.join(FILE_FORMATS)}, got {kind!r}"
            )
        if kind == "jsonl":
            return cls()
        delimiter = entry.get("delimiter", "\t" if kind == "tsv" else ",")
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ConfigError(f"{where}.delimiter: expected one character, got {delimiter!r}")
        header = entry.get("header", True)
        if not isinstance(header, bool):
            raise ConfigError(f"{where}.header: expected true or false, got {header!r}")
        names = entry.get("fieldnames") or []
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise ConfigError(f"{where}.fieldnames: expected a list of field names")
        if len(set(names)) != len(names):
            raise ConfigError(f"{where}.fieldnames: names must be distinct, got {names}")
        if not header and not names:
            raise ConfigError(f"{where}.fieldnames: required when header is false")
        quoting = entry.get("quoting", "minimal")
        if quoting not in QUOTING:
            raise ConfigError(
                f"{where}.quoting: expected one of {', '.join(QUOTING)}, got {quoting!r}"
            )
        return cls(kind, delimiter, header, tuple(names), quoting)

    def describe(self) -> dict[str, Any]:
        """The layout settings (for manifests)."""
        if self.kind == "jsonl":
            return {"kind": "jsonl"}
        return {
            "kind": self.kind,
            "delimiter": self.delimiter,
            "header": self.header,
            "fieldnames": list(self.fieldnames),
            "quoting": self.quoting,
        }


@dataclass(frozen=True)
class SplitSpec:
    name: str
    source: SourceSpec
    labelled: bool = True


@dataclass(frozen=True)
class DatasetSpec:
    """How one dataset's official format maps onto the canonical table."""

    name: str
    table: str
    title: str
    license: str
    citation: str
    homepage: str
    splits: dict[str, SplitSpec]
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: tuple[str, ...] = ()
    label_map: dict[str, str] = field(default_factory=dict)
    drop_labels: tuple[str, ...] = ()
    format: FileFormat = field(default_factory=FileFormat)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], name: str) -> DatasetSpec:
        datasets = _get(params, "datasets", "params", dict)
        if name not in datasets:
            known = ", ".join(sorted(datasets))
            raise ConfigError(f"datasets.{name}: unknown dataset (known: {known})")
        where = f"datasets.{name}"
        entry = _get(datasets, name, "datasets", dict)
        table = entry.get("table", "nli")
        if table not in TABLES:
            raise ConfigError(f"{where}.table: expected one of {', '.join(TABLES)}, got {table!r}")
        splits = {}
        for split, split_entry in _get(entry, "splits", where, dict).items():
            swhere = f"{where}.splits.{split}"
            source = SourceSpec.from_params(
                _get(split_entry, "source", swhere, dict), f"{swhere}.source"
            )
            labelled = split_entry.get("labelled", True)
            if not isinstance(labelled, bool):
                raise ConfigError(f"{swhere}.labelled: expected true or false, got {labelled!r}")
            splits[str(split)] = SplitSpec(str(split), source, labelled)
        spec = cls(
            name=name,
            table=table,
            title=str(entry.get("title", name)),
            license=str(entry.get("license", "unknown")),
            citation=str(entry.get("citation", "")),
            homepage=str(entry.get("homepage", "")),
            splits=splits,
        )
        if table == "aqua":
            return spec
        columns_entry = _get(entry, "columns", where, dict)
        columns: dict[str, tuple[str, ...]] = {}
        for fld in NLI_FIELDS:
            names = columns_entry.get(fld, [])
            if isinstance(names, str):
                names = [names]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ConfigError(f"{where}.columns.{fld}: expected a list of field names")
            columns[fld] = tuple(names)
        for required in ("premise", "hypothesis", "label"):
            if not columns[required]:
                raise ConfigError(
                    f"{where}.columns.{required}: at least one source field is required"
                )
        labels = tuple(str(x) for x in _get(entry, "labels", where, list))
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ConfigError(
                f"{where}.labels: expected two or more distinct labels, got {list(labels)}"
            )
        label_map = {str(k): str(v) for k, v in (entry.get("label_map") or {}).items()}
        for src, dst in label_map.items():
            if dst not in labels:
                raise ConfigError(
                    f"{where}.label_map.{src}: maps to {dst!r}, which is not in labels {list(labels)}"
                )
        drop = tuple(str(x) for x in (entry.get("drop_labels") or []))
        return DatasetSpec(
            **{
                **spec.__dict__,
                "columns": columns,
                "labels": labels,
                "label_map": label_map,
                "drop_labels": drop,
                "format": FileFormat.from_params(entry.get("format"), f"{where}.format"),
            }
        )

    def split(self, name: str) -> SplitSpec:
        if name not in self.splits:
            known = ", ".join(self.splits)
            raise ConfigError(f"datasets.{self.name}.splits.{name}: unknown split (known: {known})")
        return self.splits[name]

    def describe(self) -> dict[str, Any]:
        """The format settings that shape the canonical table (for manifests)."""
        out: dict[str, Any] = {"table": self.table}
        if self.table == "nli":
            out |= {
                "columns": {k: list(v) for k, v in self.columns.items()},
                "labels": list(self.labels),
                "label_map": dict(sorted(self.label_map.items())),
                "drop_labels": list(self.drop_labels),
            }
            if self.format.kind != "jsonl":  # jsonl manifests stay as they were
                out["format"] = self.format.describe()
        return out


@dataclass(frozen=True)
class PrepareSettings:
    """The ``prepare`` section: row policies and output format."""

    empty_text: str = "error"
    parquet_compression: str = "zstd"

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> PrepareSettings:
        section = checked_section(params, "prepare") if "prepare" in params else {}
        return cls(section.get("empty_text", cls.empty_text),
                   section.get("parquet_compression", cls.parquet_compression))  # fmt: skip


@dataclass(frozen=True)
class DownloadSettings:
    """The ``download`` section: retry policy for network fetches."""

    retries: int = 4
    backoff_seconds: float = 2.0
    timeout_seconds: float = 60.0
    #: an archive may unpack to at most this many bytes, and at most max_ratio times its size
    max_unpacked_bytes: int = 20 * 2**30
    max_ratio: float = 200.0

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> DownloadSettings:
        section = checked_section(params, "download") if "download" in params else {}
        return cls(
            int(section.get("retries", cls.retries)),
            float(section.get("backoff_seconds", cls.backoff_seconds)),
            float(section.get("timeout_seconds", cls.timeout_seconds)),
            int(section.get("max_unpacked_bytes", cls.max_unpacked_bytes)),
            float(section.get("max_ratio", cls.max_ratio)),
        )


def canonical_targets(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(dataset, split) pairs the default target builds, validated against the registry."""
    selection = _get(params, "canonical_splits", "params", dict)
    targets = []
    for dataset, splits in selection.items():
        spec = DatasetSpec.from_params(params, dataset)
        if not isinstance(splits, list):
            raise ConfigError(f"canonical_splits.{dataset}: expected a list of split names")
        for split in splits:
            spec.split(str(split))
            targets.append((dataset, str(split)))
    return targets


def test_targets(
    params: Mapping[str, Any], family: str, section: str = "sets"
) -> list[tuple[str, str, str]]:
    """(test, dataset, split) triples of ``<family>.<section>`` (sets or augment), validated."""
    where = f"{family}.{section}"
    tests = _get(_get(params, family, "params", dict), "tests", family, dict)
    selection = (params.get(family) or {}).get(section) or {}
    if not isinstance(selection, Mapping):
        raise ConfigError(f"{where}: expected a mapping of dataset/split -> tests")
    targets = []
    for source, names in selection.items():
        dataset, sep, split = str(source).partition("/")
        if not sep:
            raise ConfigError(f"{where}.{source}: expected dataset/split, e.g. mnli/dev_matched")
        DatasetSpec.from_params(params, dataset).split(split)
        if not isinstance(names, list):
            raise ConfigError(f"{where}.{source}: expected a list of test names")
        for test in names:
            if test not in tests:
                raise ConfigError(
                    f"{where}.{source}: unknown test {test!r} (known: {', '.join(sorted(tests))})"
                )
            reviews = tests[test].get("reviews") if isinstance(tests[test], Mapping) else None
            if isinstance(reviews, Mapping) and source not in reviews:  # a `reviewed` test
                raise ConfigError(f"{where}.{source}: test {test!r} has no review of {source} "
                                  f"({family}.tests.{test}.reviews names {', '.join(sorted(reviews))})")  # fmt: skip
            targets.append((str(test), dataset, split))
    return targets
