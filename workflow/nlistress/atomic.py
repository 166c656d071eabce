"""Atomic file writes and content hashing.

Every artifact is written to a temporary file in the destination folder and
renamed into place, so an interrupted step never leaves a half-written file
that a later run (Snakemake, DVC) would mistake for a finished one.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import DataError

_CHUNK = 1 << 20
#: the empty file every output folder holds, so a later run knows it may replace the folder
OUTPUT_MARK = ".nlistress-output"
_REPLACE_ANY = contextvars.ContextVar("replace_any_folder", default=False)


@contextlib.contextmanager
def replacing_any_folder(allowed: bool) -> Iterator[None]:
    """Within this block, output folders not made by nlistress may be replaced (``--force``)."""
    token = _REPLACE_ANY.set(allowed)
    try:
        yield
    finally:
        _REPLACE_ANY.reset(token)


def check_replaceable(target: Path) -> None:
    """Refuse to replace ``target`` unless it is absent, empty, or an output folder of ours.

    A folder a user made (``-o ~/results``) may hold files nothing else has a
    copy of; replacing it needs ``--force``.
    """
    if _REPLACE_ANY.get() or not (target.exists() or target.is_symlink()):
        return
    if target.is_dir() and not target.is_symlink():
        if (target / OUTPUT_MARK).is_file() or not any(target.iterdir()):
            return
        raise DataError(target, "a folder this command did not create, and not empty: "
                        "refusing to replace it (pass --force to replace it)")  # fmt: skip
    raise DataError(target, "exists and is not a folder: refusing to replace it (pass --force)")


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_stale(target: Path) -> None:
    """Remove temporaries an interrupted write of ``target`` left (``.<name>.*.tmp`` / ``.old``).

    Snakemake never runs two jobs with the same output, so any such file
    next to the target belongs to an earlier run that was killed.
    """
    for stale in target.parent.glob(f".{glob_escape(target.name)}.*"):
        if stale.suffix in (".tmp", ".old"):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)


def glob_escape(name: str) -> str:
    """``name`` with glob metacharacters escaped."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in name)


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; rename it onto ``target`` on success.

    The temporary file is removed if the body raises, so nothing partial stays;
    the file gets the permissions the umask gives a new file (``mkstemp`` alone
    would leave it readable by its owner only).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextlib.contextmanager
def atomic_dir(target: str | Path) -> Iterator[Path]:
    """Yield a temporary folder next to ``target``; it replaces ``target`` on success.

    For outputs that are folders (a trained model): readers see the old
    folder or the complete new one, never a half-written mix. The folder is
    removed if the body raises. An existing ``target`` is replaced only if it
    is one of ours (it holds ``OUTPUT_MARK``) or empty, unless ``--force``.
    """
    target = Path(target)
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        (tmp / OUTPUT_MARK).touch()
        os.chmod(tmp, 0o777 & ~_umask())
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            target.unlink()
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / target.name)
            os.replace(tmp, target)
            shutil.rmtree(old)
        else:
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def write_text_atomic(target: str | Path, text: str) -> None:
    """Write UTF-8 text atomically."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(target: str | Path, obj: Any) -> None:
    """Write JSON atomically with sorted keys, so equal content gives equal bytes."""
    write_text_atomic(target, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def file_digests(path: str | Path, algorithms: tuple[str, ...] = ("sha256",)) -> dict[str, str]:
    """Hex digests of a file under each of ``algorithms`` (hashlib names), in one read.

    One pass over the bytes: a multi-GB archive pinned by a published SHA-1 is
    read once for its SHA-1 and the sha256 its manifest records.
    """
    digests = {name: hashlib.new(name) for name in algorithms}
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            for digest in digests.values():
                digest.update(chunk)
    return {name: digest.hexdigest() for name, digest in digests.items()}


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file, read in chunks (works for multi-GB archives)."""
    return file_digests(path)["sha256"]
