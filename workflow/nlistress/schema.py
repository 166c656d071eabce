"""One schema for params.yaml (``schemas/params.schema.yaml``), checked before anything runs.

The Snakefile checks the resolved config when it loads, and every ``nlistress``
subcommand checks its params (files, ``--set-json`` and ``--set`` overrides merged),
so a misspelt key or a wrong type anywhere fails at once, naming the key path and
what is allowed there, instead of after hours of jobs. The schema fixes the shape
(keys, types, enums, simple bounds); the constructors of the typed specs keep the
checks that relate several values (e.g. a zoo model's GloVe file and its ``unknown``
policy).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import yaml

from .errors import ConfigError

SCHEMA_FILE = "params.schema.yaml"


@cache
def params_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a fully merged params mapping."""
    text = resources.files(__package__).joinpath("schemas", SCHEMA_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def key_path(parts: Sequence[Any]) -> str:
    """``["swap", "stats", "alpha"]`` -> ``swap.stats.alpha``; list positions as ``[i]``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "params"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _types(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    words = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
             "array": "a list", "object": "a mapping", "null": "null"}  # fmt: skip
    return " or ".join(words.get(n, n) for n in names)


def describe(error: Any, prefix: Sequence[Any] = ()) -> str:
    """One line for one schema violation: the key path, then what is allowed there.

    ``prefix`` is the key path of the part that was checked (e.g. ``["models"]``).
    """
    from jsonschema.exceptions import best_match

    if error.validator == "anyOf" and error.context:
        # The branch of the value's own type says what is wrong inside it (a list's bad item,
        # not "expected a mapping"); a plain type mismatch only where no branch fits.
        inside = [e for e in error.context if e.validator != "type" or e.relative_path]
        return describe(best_match(inside or error.context), prefix)
    where = key_path([*prefix, *error.absolute_path])
    schema, value = error.schema, error.instance
    if error.validator == "additionalProperties" and isinstance(value, Mapping):
        allowed = list(schema.get("properties") or {})
        unknown = [k for k in value if k not in allowed]
        key = unknown[0]
        close = difflib.get_close_matches(str(key), allowed, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"{key_path([*prefix, *error.absolute_path, key])}: unknown key (allowed here: {', '.join(allowed)}){hint}"
    if "propertyNames" in error.absolute_schema_path:  # a key of a mapping, not a value
        allowed = ", ".join(map(str, schema.get("enum") or [])) or schema
        return f"{key_path([*prefix, *error.absolute_path, value])}: unknown key (allowed here: {allowed})"
    if error.validator == "type":
        return f"{where}: expected {_types(error.validator_value)}, got {_shown(value)}"
    if error.validator == "enum":
        return f"{where}: expected one of {', '.join(map(str, error.validator_value))}, got {_shown(value)}"
    if error.validator == "required":
        return f"{where}: missing key {error.message.split(' ')[0]}"
    if error.validator == "pattern" and "description" in schema:
        return f"{where}: expected {schema['description']}, got {_shown(value)}"
    bound = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
    if error.validator in bound:
        return f"{where}: expected a value {bound[error.validator]} {error.validator_value}, got {_shown(value)}"
    return f"{where}: {error.message}"


@cache
def _part_validator(path: tuple[str, ...]) -> Any:
    """The validator of the schema at key path ``path`` (``()``: the whole of params)."""
    from jsonschema import Draft202012Validator

    schema = params_schema()
    for key in path:  # a name the schema does not list is a registry entry (a test, a model)
        properties = schema.get("properties") or {}
        schema = properties[key] if key in properties else schema["additionalProperties"]
    return Draft202012Validator(schema)


def _first_problem(value: Any, path: tuple[str, ...]) -> str | None:
    """The first violation (by key path) of ``value`` at ``path``, and how many there are."""
    errors = sorted(_part_validator(path).iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return None
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return f"{describe(errors[0], path)}{more}"


def validate_params(params: Mapping[str, Any], source: str = "params") -> None:
    """Raise one ``ConfigError`` naming the first violation (by key path) and how many there are."""
    problem = _first_problem(params, ())
    if problem:
        raise ConfigError(f"{source}: {problem}")


# (key path, JSON text) of parts that passed ``checked``: 2.5 ms to validate ``models``,
# 0.1 ms to serialise it, and Snakemake resolves a model's settings for every job.
_VALID_PARTS: set[tuple[tuple[str, ...], str]] = set()


def checked(value: Any, *path: str) -> Any:
    """``value``, the part of params at key path ``path``, checked against its schema.

    The Python API (and a test) can hand a typed spec params that never went
    through ``validate_params``; the specs read their part through this, so the
    schema stays the one place that fixes its shape (keys, types, enums, bounds)
    and the specs keep only the checks that relate several values.
    """
    try:  # a part seen valid before is not checked again: the DAG reads models.* per job
        seen = (path, json.dumps(value, sort_keys=True))
    except (TypeError, ValueError):  # not plain data (or mixed key types): always checked
        seen = None
    if seen is not None and seen in _VALID_PARTS:
        return value
    problem = _first_problem(value, path)
    if problem:
        raise ConfigError(problem)
    if seen is not None:
        if len(_VALID_PARTS) >= 1024:
            _VALID_PARTS.clear()
        _VALID_PARTS.add(seen)
    return value


def checked_section(params: Mapping[str, Any], name: str) -> Any:
    """``params[name]``, checked against its part of the schema (see ``checked``)."""
    return checked(params.get(name), name)
