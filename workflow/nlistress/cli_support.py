"""Argument helpers shared by every ``nlistress`` subcommand.

Each stage package registers its own subcommands (``register(sub)``); they all
read configuration the same way: ``params.yaml`` of the current folder (or, outside
a project folder, the defaults shipped in the package), each ``--params`` file merged
over it, plus an optional ``--set-json`` object
deep-merged on top, which is how Snakemake rules pass the exact config they
resolved (including ``--configfile`` overrides).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from .config import deep_merge, load_params
from .errors import ConfigError
from .schema import validate_params

log = logging.getLogger("nlistress")


def default_params_file() -> Path:
    """The params.yaml shipped inside the package (the project's own, as a package file)."""
    return Path(str(resources.files(__package__).joinpath("defaults", "params.yaml")))


_ANNOUNCED: set[Path] = set()


def base_params_file(announce: bool = True) -> Path | None:
    """``params.yaml`` of the current folder, else the package's defaults (said once)."""
    here = Path("params.yaml")
    if here.is_file():
        return here
    default = default_params_file()
    if default.is_file():
        if announce and Path.cwd() not in _ANNOUNCED:  # said once per folder, not once per read
            _ANNOUNCED.add(Path.cwd())
            log.info("no params.yaml in %s: using the defaults shipped with nlistress (%s)", Path.cwd(), default)
        return default
    return None


def params_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The params a subcommand runs with: ``params.yaml`` of the current folder (else the
    package's defaults), each ``--params`` file merged over it, then ``--set-json``."""
    base = base_params_file()
    files = [*([base] if base is not None else []), *(args.params or [])]
    params = load_params(files)
    if args.set_json:
        text, where = args.set_json, "--set-json"
        if text.startswith("@"):  # a file, as the Snakemake rules hand settings over
            where = f"--set-json {text}"
            try:
                text = Path(text[1:]).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{where}: cannot read the settings file ({exc})") from None
        try:
            override = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON ({exc})") from None
        if not isinstance(override, dict):
            raise ConfigError("--set-json: expected a JSON object")
        params = deep_merge(params, override)
    if not params:
        raise ConfigError(
            "no params: run from the project folder (params.yaml) or pass --params FILE"
        )
    source = " + ".join([*(str(f) for f in files), *([args.set_json if args.set_json.startswith("@") else "--set-json"]
                                                       if args.set_json else [])])  # fmt: skip
    validate_params(params, source)
    return params


def add_params_options(parser: argparse.ArgumentParser) -> None:
    """``--params`` and ``--set-json``, the two ways a subcommand receives config, and ``--threads``."""
    parser.add_argument(
        "--params",
        action="append",
        type=Path,
        metavar="FILE",
        help="params YAML file; repeat to layer overrides (default: ./params.yaml)",
    )
    parser.add_argument(
        "--set-json",
        metavar="JSON",
        help="JSON object deep-merged over the params, or @FILE holding one (the Snakemake rules "
        "hand each job the settings it reads this way)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="CPU threads for torch, BLAS and OpenMP (the Snakemake rules pass the job's threads; "
        "default: models.threads for train and predict, else the libraries' own choice)",
    )


def key_values(pairs: Sequence[str]) -> dict[str, Any]:
    """``["a=1", "b=[x, y]"]`` -> ``{"a": 1, "b": ["x", "y"]}`` (values parsed as YAML)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {pair!r}: expected key=value")
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise ConfigError(f"--set {pair!r}: value is not valid YAML ({exc})") from None
    return out


def add_runs_options(parser: argparse.ArgumentParser, keys: Sequence[str], purpose: str) -> None:
    """``--runs FILE`` (a YAML list of runs) and ``--runs-json`` (the same list inline).

    Commands that put many models in one table take their runs either way: a
    person writes a file, a Snakemake rule passes the list it built as JSON.
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--runs",
        type=Path,
        metavar="FILE",
        help=f"YAML list of runs (keys {', '.join(keys)}) instead of the single-run options, {purpose}",
    )
    group.add_argument("--runs-json", metavar="JSON", help="the same list of runs, as JSON")


def runs_from_args(args: argparse.Namespace, keys: Sequence[str]) -> list[dict[str, Any]] | None:
    """The runs of ``--runs`` / ``--runs-json``, checked to be a non-empty list of mappings."""
    if args.runs is None and args.runs_json is None:
        return None
    where = str(args.runs) if args.runs is not None else "--runs-json"
    try:
        if args.runs is not None:
            runs = yaml.safe_load(args.runs.read_text(encoding="utf-8"))
        else:
            runs = json.loads(args.runs_json)
    except (OSError, yaml.YAMLError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{where}: not a readable list of runs ({exc})") from None
    if not isinstance(runs, list) or not runs or not all(isinstance(r, dict) for r in runs):
        raise ConfigError(f"{where}: expected a non-empty list of runs ({', '.join(keys)})")
    return runs
