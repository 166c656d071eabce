"""Fetch official dataset files: retries, size and checksum checks, safe extraction.

A download lands in ``data/raw/<name>/`` only when it is complete and verified:
bytes go to a ``.part`` file, the checksum is compared with the pinned value
from params.yaml (when one is set), archives are unpacked into a temporary
folder that is renamed into place, and any member whose path would land
outside the target folder (``../x``, ``/etc/x``, links) stops the extraction.
"""

from __future__ import annotations

import http.client
import logging
import shutil
import socket
import stat
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from . import __version__
from .atomic import (
    OUTPUT_MARK,
    atomic_dir,
    atomic_path,
    check_replaceable,
    file_digests,
    glob_escape,
    sha256_file,
    write_json_atomic,
)  # fmt: skip
from .config import DownloadSettings, DownloadSpec
from .errors import DownloadError

log = logging.getLogger(__name__)

_CHUNK = 1 << 20
_SKIPPED_PREFIXES = ("__MACOSX/",)  # resource forks zipped on macOS, never data
_PROGRESS_SECONDS = 5.0


# Said whenever a download cannot reach its host: the ways to run without a network.
OFFLINE_HINT = (
    "no network? run offline on local copies with `snakemake --configfile tests/shared.yaml` "
    "(the shared files) or `snakemake --profile profiles/small`, or point datasets.<name>.splits"
    ".<split>.source at a local file (kind: local)"
)


class _Retryable(Exception):
    """A failure worth another attempt (network error, 5xx, short read)."""


def _stream_once(url: str, part: Path, timeout: float, require_length: bool = False) -> int:
    """Download ``url`` into ``part``; return the byte count. Raises _Retryable on transient errors.

    With ``require_length``, a response that says neither its length nor uses
    chunked encoding is refused: its end cannot be told from a dropped
    connection, and nothing else (no pinned checksum) would catch a half file.
    """
    request = urllib.request.Request(url, headers={"User-Agent": f"nlistress/{__version__}"})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code == 429:
            raise _Retryable(f"HTTP {exc.code} {exc.reason}") from None
        raise DownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, socket.gaierror):  # no DNS: no network, retrying will not help
            host = urllib.parse.urlsplit(url).hostname
            raise DownloadError(f"{url}: cannot resolve {host} ({reason.strerror or reason}); {OFFLINE_HINT}") from None
        raise _Retryable(str(reason)) from None
    except http.client.HTTPException as exc:
        # e.g. BadStatusLine: the server (or a proxy in between) did not answer in HTTP.
        raise _Retryable(
            f"invalid HTTP response ({type(exc).__name__}: {str(exc).strip()!r})"
        ) from None
    with response:
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        chunked = response.headers.get("Transfer-Encoding", "").strip().lower() == "chunked"
        if require_length and expected is None and not chunked:
            raise DownloadError(
                f"{url}: the server sends no Content-Length, so a cut-off transfer cannot be told "
                "from a complete one, and the entry has no pinned checksum; pin its sha256 in params.yaml"
            )
        received = 0
        started = last_report = time.monotonic()
        try:
            with open(part, "wb") as fh:
                while chunk := response.read(_CHUNK):
                    fh.write(chunk)
                    received += len(chunk)
                    now = time.monotonic()
                    if now - last_report >= _PROGRESS_SECONDS:
                        last_report = now
                        _report(url, received, expected, now - started)
        except (OSError, http.client.HTTPException) as exc:
            raise _Retryable(f"connection lost after {received} bytes ({exc})") from None
    if expected is not None and received != expected:
        raise _Retryable(f"truncated: got {received} of {expected} bytes")
    return received


def _report(url: str, received: int, expected: int | None, elapsed: float) -> None:
    rate = received / elapsed if elapsed > 0 else 0.0
    if expected:
        eta = (expected - received) / rate if rate else float("inf")
        log.info(
            "%s: %.1f / %.1f MB (%.1f MB/s, ETA %.0f s)",
            url,
            received / 1e6,
            expected / 1e6,
            rate / 1e6,
            eta,
        )
    else:
        log.info("%s: %.1f MB (%.1f MB/s)", url, received / 1e6, rate / 1e6)


def download_file(
    url: str,
    target: Path,
    settings: DownloadSettings,
    sleep: Callable[[float], None] = time.sleep,
    require_length: bool = False,
) -> int:
    """Download ``url`` to ``target`` (atomically), retrying transient failures.

    ``require_length``: refuse a response whose completeness cannot be checked
    (see ``_stream_once``); set for entries without a pinned checksum.
    """
    attempts = settings.retries + 1
    with atomic_path(target) as part:
        for attempt in range(1, attempts + 1):
            try:
                size = _stream_once(url, part, settings.timeout_seconds, require_length)
                log.info("%s: %.1f MB downloaded", url, size / 1e6)
                return size
            except _Retryable as exc:
                if attempt == attempts:
                    raise DownloadError(f"{url}: failed after {attempts} attempts: {exc}; {OFFLINE_HINT}") from None
                wait = settings.backoff_seconds * 2 ** (attempt - 1)
                log.warning(
                    "%s: attempt %d/%d failed (%s); retrying in %.1f s",
                    url,
                    attempt,
                    attempts,
                    exc,
                    wait,
                )
                sleep(wait)
    raise AssertionError("unreachable")


def _safe_member_path(name: str, archive: Path) -> PurePosixPath | None:
    """The member's relative path, or None for skipped junk; refuses paths that escape."""
    posix = PurePosixPath(name.replace("\\", "/"))
    if posix.is_absolute() or (posix.parts and ":" in posix.parts[0]):
        raise DownloadError(
            f"{archive.name}: member {name!r} has an absolute path; refusing to extract"
        )
    parts = [p for p in posix.parts if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 1
        if depth < 0:
            raise DownloadError(
                f"{archive.name}: member {name!r} would be written outside the target folder; "
                "refusing to extract"
            )
    if not parts or any(name.startswith(p) for p in _SKIPPED_PREFIXES):
        return None
    return PurePosixPath(*parts)


#: below this many unpacked bytes the ratio bound does not apply (small text files compress well)
_RATIO_FLOOR = 16 * 2**20


def _check_members(archive: Path, members: list[tuple[PurePosixPath, bool, int]],
                   settings: DownloadSettings) -> None:  # fmt: skip
    """Refuse an archive that repeats a path, uses one as file and folder, or unpacks too big.

    ``members``: (path, is_dir, unpacked size) of every member to extract.
    """
    files: set[PurePosixPath] = set()
    folders: set[PurePosixPath] = set()
    for rel, is_dir, _ in members:
        if not is_dir and rel in files:
            raise DownloadError(f"{archive.name}: member {rel.as_posix()!r} appears twice; refusing to extract")
        (folders if is_dir else files).add(rel)
        folders.update(rel.parents)
    clash = sorted(p.as_posix() for p in files & folders)
    if clash:
        raise DownloadError(f"{archive.name}: {clash[0]!r} is both a file and a folder; refusing to extract")
    total = sum(size for _, _, size in members)
    packed = max(archive.stat().st_size, 1)
    if total > settings.max_unpacked_bytes or (total > _RATIO_FLOOR and total > settings.max_ratio * packed):
        raise DownloadError(
            f"{archive.name}: would unpack to {total:,} bytes ({total / packed:.0f} times its size), "
            f"over download.max_unpacked_bytes ({settings.max_unpacked_bytes:,}) or max_ratio "
            f"({settings.max_ratio:g}); refusing to extract"
        )


Unpack = tuple[tuple[PurePosixPath, PurePosixPath], ...]


def _placed(rel: PurePosixPath | None, unpack: Unpack) -> PurePosixPath | None:
    """Where a safe member goes: under its ``unpack`` folder's new name, or None if not wanted.

    Both sides are relative paths without ``..`` (DownloadSpec checks them), so a
    member that was safe stays inside the target folder.
    """
    if rel is None or not unpack:
        return rel
    for src, dst in unpack:
        if rel == src or src in rel.parents:
            return dst / rel.relative_to(src)
    return None


def _extract_zip(archive: Path, dest: Path, settings: DownloadSettings, unpack: Unpack) -> int:
    skipped = 0
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            wanted = [(rel, info.is_dir(), info.file_size) for info in infos
                      if (rel := _placed(_safe_member_path(info.filename, archive), unpack)) is not None]  # fmt: skip
            _check_members(archive, wanted, settings)
            for info in infos:
                rel = _placed(_safe_member_path(info.filename, archive), unpack)
                if rel is None:  # not written, so a link here cannot point anywhere
                    skipped += 1
                    continue
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise DownloadError(
                        f"{archive.name}: member {info.filename!r} is a link; refusing to extract"
                    )
                target = dest.joinpath(*rel.parts)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile, zlib.error) as exc:
        raise DownloadError(f"{archive.name}: archive is truncated or corrupt ({exc})") from None
    return skipped


def _extract_tar(archive: Path, dest: Path, settings: DownloadSettings, unpack: Unpack) -> int:
    skipped = 0
    try:
        with tarfile.open(archive) as tf:
            members = []
            for member in tf.getmembers():
                rel = _placed(_safe_member_path(member.name, archive), unpack)
                if rel is None:  # not written, so a link here cannot point anywhere
                    skipped += 1
                    continue
                if member.issym() or member.islnk() or member.isdev():
                    raise DownloadError(
                        f"{archive.name}: member {member.name!r} is a link or device; refusing to extract"
                    )
                member.name = rel.as_posix()  # written where it is placed
                members.append(member)
            _check_members(archive, [(PurePosixPath(m.name), m.isdir(), m.size) for m in members], settings)
            kwargs: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tf.extractall(dest, members=members, **kwargs)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        if isinstance(exc, DownloadError):
            raise
        raise DownloadError(f"{archive.name}: archive is truncated or corrupt ({exc})") from None
    return skipped


def extract(
    archive: Path, kind: str, dest: Path, settings: DownloadSettings | None = None, unpack: Unpack = ()
) -> int:
    """Unpack ``archive`` into the new folder ``dest`` atomically; return skipped member count.

    Bounded by ``settings`` (``download.max_unpacked_bytes``, ``max_ratio``):
    a zip or tar bomb is refused before anything is written. With ``unpack``,
    only the members under its archive folders are written, each under its new
    folder (WordNet's ``WordNet-3.0/dict`` becomes NLTK's ``corpora/wordnet``).
    """
    bounds = settings or DownloadSettings()
    with atomic_dir(dest) as tmp:
        return (_extract_zip if kind == "zip" else _extract_tar)(archive, tmp, bounds, unpack)


def _member_hashes(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): sha256_file(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() != OUTPUT_MARK
    }


def fetch(
    spec: DownloadSpec, settings: DownloadSettings, dest: Path, manifest: Path
) -> dict[str, Any]:
    """Download, verify and unpack one registry entry into ``dest``; write ``manifest``."""
    dest = Path(dest)
    check_replaceable(dest)  # before the transfer, not after it
    dest.parent.mkdir(parents=True, exist_ok=True)
    for stale in dest.parent.glob(f".{glob_escape(spec.name)}.*.download"):  # interrupted runs
        shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".{spec.name}.", suffix=".download", dir=dest.parent))
    try:
        blob = work / PurePosixPath(spec.filename).name
        size = download_file(spec.url, blob, settings, require_length=not spec.pinned)
        digests = file_digests(blob, ("sha256", "sha1") if spec.sha1 else ("sha256",))
        for algorithm, expected in (("sha256", spec.sha256), ("sha1", spec.sha1)):
            if expected is not None and digests[algorithm] != expected:
                raise DownloadError(
                    f"{spec.url}: {algorithm} mismatch (expected {expected}, got {digests[algorithm]}); "
                    f"the file changed upstream or the transfer was corrupted. Nothing was kept. If the "
                    f"new file is right, update downloads.{spec.name}.{algorithm} in params.yaml"
                )
        skipped = 0
        if spec.archive == "file":
            with atomic_dir(dest) as staged:
                target = staged.joinpath(*PurePosixPath(spec.filename).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(blob, target)
        else:
            try:
                skipped = extract(blob, spec.archive, dest, settings, spec.unpack)
            except DownloadError as exc:
                # extract() names the temporary copy, deleted below: name the URL instead.
                raise DownloadError(f"{spec.url}: {exc}; nothing was kept") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    record = {
        "name": spec.name,
        "url": spec.url,
        "archive": spec.archive,
        "bytes": size,
        **digests,
        "pinned": spec.pinned,
        "members": _member_hashes(dest),
        "skipped_members": skipped,
        "nlistress_version": __version__,
    }
    write_json_atomic(manifest, record)
    if not spec.pinned:
        log.warning("%s: no pinned checksum; recorded %s in %s", spec.name, digests["sha256"], manifest)
    return record
