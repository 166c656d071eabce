"""Downloads: retries, checksums, truncation and safe extraction, all offline.

The official archives cannot be reached from the test machines, so every test
serves real bytes (archives built from the SNLI files in ../shared/data) from
the ``http_server`` fixture on 127.0.0.1, which can also fail on purpose. The
rule under test: a download lands in ``data/raw/<name>/`` only when it is
complete and verified, and a failure leaves nothing behind (no target folder,
no manifest, no temporary file) and says why in one ``DownloadError``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pyarrow.parquet as pq
import pytest
import yaml

from nlistress.atomic import OUTPUT_MARK, sha256_file
from nlistress.config import DownloadSettings, DownloadSpec
from nlistress.download import download_file, fetch
from nlistress.errors import ConfigError, DownloadError

from .support import ROOT, SHARED_DATA, copy_project, run_snakemake

SNLI_DEV = SHARED_DATA / "snli" / "snli_1.0_dev.jsonl"
SNLI_TEST = SHARED_DATA / "snli" / "snli_1.0_test.jsonl"
AQUA_DEV = SHARED_DATA / "aqua_rat" / "dev.json"
DEV_MEMBER = "snli_1.0/snli_1.0_dev.jsonl"
TEST_MEMBER = "snli_1.0/snli_1.0_test.jsonl"

# No waiting between attempts: the tests check how often, not how long.
FAST = DownloadSettings(retries=2, backoff_seconds=0.0, timeout_seconds=10.0)
BIN = Path(sys.executable).parent


# --------------------------------------------------------------------------- helpers


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_zip(
    members: dict[str, bytes], dirs: tuple[str, ...] = (), symlinks: dict[str, str] | None = None
) -> bytes:
    """A deflated zip; names are written exactly as given (no sanitising)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in dirs:
            zf.writestr(zipfile.ZipInfo(name), b"")
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


def make_tar(
    members: dict[str, bytes],
    gz: bool = True,
    symlinks: dict[str, str] | None = None,
    hardlinks: dict[str, str] | None = None,
) -> bytes:
    """A tar (gzipped unless ``gz`` is false); names are written exactly as given."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tf.addfile(info, io.BytesIO(data))
        for kind, links in ((tarfile.SYMTYPE, symlinks), (tarfile.LNKTYPE, hardlinks)):
            for name, target in (links or {}).items():
                info = tarfile.TarInfo(name)
                info.type = kind
                info.linkname = target
                tf.addfile(info)
    return buf.getvalue()


def corrupt(data: bytes, start: int, length: int = 100) -> bytes:
    """``data`` with ``length`` bytes inverted from ``start`` (same size, bad content)."""
    out = bytearray(data)
    for i in range(start, start + length):
        out[i] ^= 0xFF
    return bytes(out)


def serve(http_server, name: str, body: bytes, archive: str, sha: str | None = None, **route):
    """Serve ``body`` and return the DownloadSpec pointing at it (built as params.yaml would)."""
    ext = {"zip": "zip", "tar": "tar", "tar.gz": "tar.gz", "file": "json"}[archive]
    url = http_server.add(f"/files/{name}.{ext}", body, **route)
    params = {"downloads": {name: {"url": url, "sha256": sha, "archive": archive}}}
    return DownloadSpec.from_params(params, name)


def listing(folder: Path) -> list[str]:
    """Every path under ``folder`` (hidden temp files included, the output mark not), relative and sorted."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.name != OUTPUT_MARK)


@pytest.fixture(scope="module")
def snli_zip() -> bytes:
    """The SNLI archive layout with the real dev/test files, plus macOS junk to skip."""
    return make_zip(
        {
            DEV_MEMBER: SNLI_DEV.read_bytes(),
            TEST_MEMBER: SNLI_TEST.read_bytes(),
            "__MACOSX/snli_1.0/._snli_1.0_dev.jsonl": b"\x00\x05\x16\x07resource fork",
        },
        dirs=("snli_1.0/", "__MACOSX/"),
    )


@pytest.fixture
def raw(tmp_path: Path) -> Path:
    """An empty ``data/raw``-like folder: after a failure it must still be empty."""
    folder = tmp_path / "raw"
    folder.mkdir()
    return folder


# --------------------------------------------------------------------------- success


def test_fetch_zip_extracts_verifies_and_writes_manifest(http_server, raw, snli_zip):
    """A pinned zip is unpacked member by member; the manifest records what was checked."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip))
    dest, manifest = raw / "snli_1.0", raw / "snli_1.0.manifest.json"

    record = fetch(spec, FAST, dest, manifest)

    assert (dest / DEV_MEMBER).read_bytes() == SNLI_DEV.read_bytes()
    assert (dest / TEST_MEMBER).read_bytes() == SNLI_TEST.read_bytes()
    assert not (dest / "__MACOSX").exists()
    assert json.loads(manifest.read_text(encoding="utf-8")) == record
    assert record["sha256"] == sha256(snli_zip)
    assert record["bytes"] == len(snli_zip)
    assert record["pinned"] is True
    assert record["archive"] == "zip"
    assert record["url"] == spec.url
    assert record["members"] == {
        DEV_MEMBER: sha256_file(SNLI_DEV),
        TEST_MEMBER: sha256_file(SNLI_TEST),
    }
    assert record["skipped_members"] == 2  # the __MACOSX/ folder entry and the ._ file
    # Only the result and its manifest; the .part file and staging folders are gone.
    assert sorted(p.name for p in raw.iterdir()) == ["snli_1.0", "snli_1.0.manifest.json"]


@pytest.mark.parametrize("archive", ["tar.gz", "tar"])
def test_fetch_unpinned_tar_records_checksum(http_server, raw, caplog, archive):
    """Without a pin the download is kept, the checksum recorded and a warning logged."""
    body = make_tar({TEST_MEMBER: SNLI_TEST.read_bytes()}, gz=archive == "tar.gz")
    spec = serve(http_server, "snli_tar", body, archive)
    dest, manifest = raw / "snli_tar", raw / "snli_tar.manifest.json"

    with caplog.at_level(logging.WARNING, logger="nlistress.download"):
        record = fetch(spec, FAST, dest, manifest)

    assert (dest / TEST_MEMBER).read_bytes() == SNLI_TEST.read_bytes()
    assert record["pinned"] is False
    assert record["sha256"] == sha256(body)
    assert record["members"] == {TEST_MEMBER: sha256_file(SNLI_TEST)}
    assert record["skipped_members"] == 0
    assert "no pinned checksum" in caplog.text and sha256(body) in caplog.text
    assert manifest.exists()  # the warning says the checksum was recorded there


def test_fetch_plain_file(http_server, raw):
    """archive: file keeps the single file under its URL name (OCNLI/AQuA-RAT entries)."""
    body = AQUA_DEV.read_bytes()
    spec = serve(http_server, "aqua_dev", body, "file", sha256(body))

    record = fetch(spec, FAST, raw / "aqua_dev", raw / "aqua_dev.manifest.json")

    assert listing(raw / "aqua_dev") == ["aqua_dev.json"]
    assert (raw / "aqua_dev" / "aqua_dev.json").read_bytes() == body
    assert record["members"] == {"aqua_dev.json": sha256(body)}


def test_fetch_pinned_by_a_published_sha1(http_server, raw, caplog):
    """A file whose publisher gave only a SHA-1 (GloVe) is pinned by it: a wrong one is refused.

    The manifest records both digests, and no "not pinned" warning is logged.
    """
    body = AQUA_DEV.read_bytes()
    url = http_server.add("/files/vectors.json", body)
    entry = {"url": url, "sha256": None, "sha1": hashlib.sha1(body).hexdigest().upper(), "archive": "file"}
    spec = DownloadSpec.from_params({"downloads": {"vectors": entry}}, "vectors")
    assert spec.pinned and spec.sha1 == hashlib.sha1(body).hexdigest()

    with caplog.at_level(logging.WARNING, logger="nlistress.download"):
        record = fetch(spec, FAST, raw / "vectors", raw / "vectors.manifest.json")

    assert record["pinned"] is True
    assert (record["sha1"], record["sha256"]) == (hashlib.sha1(body).hexdigest(), sha256(body))
    assert "no pinned checksum" not in caplog.text

    wrong = DownloadSpec.from_params({"downloads": {"vectors": {**entry, "sha1": "0" * 40}}}, "vectors")
    with pytest.raises(DownloadError, match=r"sha1 mismatch .*downloads\.vectors\.sha1"):
        fetch(wrong, FAST, raw / "again", raw / "again.manifest.json")
    assert not (raw / "again").exists() and not (raw / "again.manifest.json").exists()


def test_a_url_query_is_not_part_of_the_file_name(http_server, raw):
    """Zenodo serves files at .../SICK.zip?download=1: the file is named for the URL's path."""
    body = AQUA_DEV.read_bytes()
    url = http_server.add("/record/1/files/dev.json", body) + "?download=1"
    params = {"downloads": {"aqua_dev": {"url": url, "sha256": sha256(body), "archive": "file"}}}

    fetch(DownloadSpec.from_params(params, "aqua_dev"), FAST, raw / "aqua_dev", raw / "aqua_dev.manifest.json")

    assert listing(raw / "aqua_dev") == ["dev.json"]


def test_unpack_places_one_archive_folder_where_the_reader_looks(http_server, raw):
    """Princeton's WordNet-3.0.tar.gz, laid out from the real database files: only dict/ is
    unpacked, as corpora/wordnet, and NLTK's reader (through resources.wordnet) reads it there.
    A link outside dict/ is skipped with the rest, not refused: it is never written."""
    from nlistress.config import deep_merge

    from .support import project_params

    with zipfile.ZipFile(ROOT.parent / "shared" / "nltk_data" / "corpora" / "wordnet.zip") as zf:
        database = {
            f"WordNet-3.0/dict/{PurePosixPath(name).name}": zf.read(name)
            for name in zf.namelist() if not name.endswith("/") and not name.endswith("LICENSE")
        }  # fmt: skip
    body = make_tar(
        {**database, "WordNet-3.0/README": b"WordNet 3.0", "WordNet-3.0/src/wn.c": b"int main;"},
        symlinks={"WordNet-3.0/lib/libWN.so": "libWN.so.3"},
    )
    url = http_server.add("/3.0/WordNet-3.0.tar.gz", body)
    params = deep_merge(project_params(), {"downloads": {"nltk_wordnet": {"url": url, "sha256": sha256(body)}}})
    spec = DownloadSpec.from_params(params, "nltk_wordnet")

    record = fetch(spec, FAST, raw / "nltk_wordnet", raw / "nltk_wordnet.manifest.json")

    assert sorted(record["members"]) == sorted(f"corpora/wordnet/{PurePosixPath(n).name}" for n in database)
    assert record["skipped_members"] == 3
    # NLTK's reader is one per process: read it in a fresh one, with no other WordNet around.
    probe = (
        "import sys; from nlistress.resources import wordnet; "
        "wn = wordnet({'resources': {'nltk_data': sys.argv[1]}}); "
        "print(wn.root, wn.get_version(), wn.lemmas('happy', 'a')[0].antonyms()[0].name())"
    )
    env = {k: v for k, v in os.environ.items() if k != "NLTK_DATA"}
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", probe, str(raw / "nltk_wordnet")],
                         capture_output=True, text=True, check=True, env=env).stdout.split()  # fmt: skip
    assert out == [str(raw / "nltk_wordnet" / "corpora" / "wordnet"), "3.0", "unhappy"]


@pytest.mark.parametrize("unpack", [{"../dict": "corpora/wordnet"}, {"WordNet-3.0/dict": "/etc"}])
def test_unpack_folders_must_stay_inside(unpack):
    params = {"downloads": {"x": {"url": "https://example.org/x.tar.gz", "archive": "tar.gz", "unpack": unpack}}}
    with pytest.raises(ConfigError, match=r"downloads\.x\.unpack.*expected a relative path inside"):
        DownloadSpec.from_params(params, "x")


def test_refetch_replaces_stale_contents(http_server, raw, snli_zip):
    """A new download replaces its earlier folder wholesale: no file of an older version survives."""
    dest = raw / "snli_1.0"
    (dest / "old").mkdir(parents=True)
    (dest / "old" / "stale.jsonl").write_text("left over\n")
    (dest / OUTPUT_MARK).touch()  # an earlier download made it
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip))

    fetch(spec, FAST, dest, raw / "snli_1.0.manifest.json")

    assert listing(dest) == ["snli_1.0", DEV_MEMBER, TEST_MEMBER]


# --------------------------------------------------------------------------- retries


def test_retries_503_with_exponential_backoff(http_server, raw):
    """Two 503s then success: three requests, waits of backoff * 2**(k-1) between them."""
    body = SNLI_DEV.read_bytes()
    url = http_server.add("/dev.jsonl", body, fail_first=2)
    waits: list[float] = []
    settings = DownloadSettings(retries=2, backoff_seconds=1.5, timeout_seconds=10.0)

    size = download_file(url, raw / "dev.jsonl", settings, sleep=waits.append)

    assert size == len(body)
    assert (raw / "dev.jsonl").read_bytes() == body
    assert http_server.hits("/dev.jsonl") == 3
    assert waits == [1.5, 3.0]
    assert listing(raw) == ["dev.jsonl"]


def test_an_unresolvable_host_fails_at_once_naming_the_offline_routes(raw):
    """No DNS means no network: no retries (the offline Quick start used to spend 35 s in
    them), one error that says how to run on local copies instead."""
    waits: list[float] = []
    settings = DownloadSettings(retries=5, backoff_seconds=2.0, timeout_seconds=10.0)
    with pytest.raises(DownloadError) as caught:
        download_file("https://nlistress-test.invalid/snli.zip", raw / "snli.zip", settings, sleep=waits.append)
    message = str(caught.value)
    assert waits == [] and "\n" not in message
    assert "cannot resolve nlistress-test.invalid" in message
    assert "--configfile tests/shared.yaml" in message and "--profile profiles/small" in message
    assert listing(raw) == []


def test_fetch_recovers_from_503s(http_server, raw, snli_zip):
    """The retry policy from params (backoff 0 here) also applies through fetch()."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip), fail_first=2)

    record = fetch(spec, FAST, raw / "snli_1.0", raw / "snli_1.0.manifest.json")

    assert record["sha256"] == sha256(snli_zip)
    assert http_server.hits("/files/snli_1.0.zip") == 3


def test_too_few_retries_fails_naming_url_and_attempts(http_server, raw, snli_zip):
    """When retries run out the error names the URL, the attempt count and the last failure."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip), fail_first=2)
    settings = DownloadSettings(retries=1, backoff_seconds=0.0, timeout_seconds=10.0)

    with pytest.raises(DownloadError) as err:
        fetch(spec, settings, raw / "snli_1.0", raw / "snli_1.0.manifest.json")

    message = str(err.value)
    assert spec.url in message
    assert "after 2 attempts" in message
    assert "HTTP 503" in message
    assert http_server.hits("/files/snli_1.0.zip") == 2
    assert listing(raw) == []


def test_404_fails_at_once(http_server, raw):
    """A 404 is permanent: one request, no wait, and the status in the message."""
    url = http_server.url("/no/such/file.zip")
    waits: list[float] = []
    settings = DownloadSettings(retries=4, backoff_seconds=1.0, timeout_seconds=10.0)

    with pytest.raises(DownloadError, match="HTTP 404") as err:
        download_file(url, raw / "file.zip", settings, sleep=waits.append)

    assert url in str(err.value)
    assert waits == []
    assert listing(raw) == []


@contextlib.contextmanager
def not_http_server(reply: bytes) -> Iterator[str]:
    """A TCP server on 127.0.0.1 answering every connection with ``reply`` (not HTTP)."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.settimeout(0.1)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                conn.recv(65536)
                conn.sendall(reply)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/snli_1.0.zip"
    finally:
        stop.set()
        thread.join(timeout=5)
        sock.close()


def test_non_http_reply_is_a_download_error(raw):
    """A server (or proxy) that does not speak HTTP gives a DownloadError, not a traceback."""
    with not_http_server(b"SSH-2.0-OpenSSH_9.6\r\n") as url, pytest.raises(DownloadError) as err:
        download_file(url, raw / "snli_1.0.zip", FAST, sleep=lambda _: None)

    message = str(err.value)
    assert url in message and "after 3 attempts" in message
    assert "invalid HTTP response" in message
    assert "\n" not in message
    assert listing(raw) == []


# --------------------------------------------------------------------------- integrity


def test_checksum_mismatch_keeps_nothing(http_server, raw, snli_zip):
    """A pinned checksum that differs is refused outright: no retry, nothing kept."""
    wrong = "0" * 64
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", wrong)

    with pytest.raises(DownloadError) as err:
        fetch(spec, FAST, raw / "snli_1.0", raw / "snli_1.0.manifest.json")

    message = str(err.value)
    assert f"expected {wrong}" in message
    assert f"got {sha256(snli_zip)}" in message
    assert "downloads.snli_1.0.sha256" in message
    assert http_server.hits("/files/snli_1.0.zip") == 1
    assert listing(raw) == []


def test_checksum_mismatch_leaves_previous_download_alone(http_server, raw, snli_zip):
    """A failed re-download must not damage the verified copy already in place."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip))
    dest, manifest = raw / "snli_1.0", raw / "snli_1.0.manifest.json"
    fetch(spec, FAST, dest, manifest)
    before = {p: sha256_file(raw / p) for p in listing(raw) if (raw / p).is_file()}

    changed = make_zip({DEV_MEMBER: b"not the real file\n"})
    bad = serve(http_server, "snli_1.0", changed, "zip", sha256(snli_zip))
    with pytest.raises(DownloadError, match="sha256 mismatch"):
        fetch(bad, FAST, dest, manifest)

    assert {p: sha256_file(raw / p) for p in listing(raw) if (raw / p).is_file()} == before


def test_truncated_body_is_retried_then_fails(http_server, raw, snli_zip):
    """A body shorter than its Content-Length counts as a failed attempt, every time."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip), truncate_first=99)

    with pytest.raises(DownloadError) as err:
        fetch(spec, FAST, raw / "snli_1.0", raw / "snli_1.0.manifest.json")

    message = str(err.value)
    assert "truncated" in message
    assert f"got {len(snli_zip) // 2} of {len(snli_zip)} bytes" in message
    assert "after 3 attempts" in message
    assert http_server.hits("/files/snli_1.0.zip") == 3
    assert listing(raw) == []


def test_truncated_body_then_full_body_succeeds(http_server, raw, snli_zip):
    """One short read is recovered by the retry, and the partial bytes are not kept."""
    spec = serve(http_server, "snli_1.0", snli_zip, "zip", sha256(snli_zip), truncate_first=1)

    record = fetch(spec, FAST, raw / "snli_1.0", raw / "snli_1.0.manifest.json")

    assert record["bytes"] == len(snli_zip)
    assert record["members"][DEV_MEMBER] == sha256_file(SNLI_DEV)
    assert http_server.hits("/files/snli_1.0.zip") == 2


def _snli_tar_gz() -> bytes:
    return make_tar({DEV_MEMBER: SNLI_DEV.read_bytes()})


CORRUPT = {
    "zip-cut-in-half": ("zip", lambda z: z[: len(z) // 2]),
    "zip-bad-deflate-data": ("zip", lambda z: corrupt(z, 1000)),
    "tgz-cut-in-half": ("tar.gz", lambda _: _snli_tar_gz()[: len(_snli_tar_gz()) // 2]),
    "tgz-bad-deflate-data": ("tar.gz", lambda _: corrupt(_snli_tar_gz(), 5000)),
}


@pytest.mark.parametrize("case", CORRUPT)
def test_corrupt_archive_is_refused(http_server, raw, snli_zip, case):
    """Bytes that arrive complete but do not unpack: one clear error, no partial folder.

    Served with the right Content-Length and no pin, so only extraction can
    notice. (Corrupt deflate data used to escape as a bare zlib.error.)
    """
    archive, build = CORRUPT[case]
    spec = serve(http_server, "broken", build(snli_zip), archive)

    with pytest.raises(DownloadError, match="truncated or corrupt") as err:
        fetch(spec, FAST, raw / "broken", raw / "broken.manifest.json")

    # Names the URL, not the temporary copy (already deleted when the user reads this).
    assert str(err.value).startswith(f"{spec.url}: ")
    assert str(raw) not in str(err.value)
    assert listing(raw) == []


# --------------------------------------------------------------------------- unsafe paths

GOOD = {DEV_MEMBER: SNLI_DEV.read_bytes()[:2000]}  # a real member, extracted before the bad one
EVIL = b"pwned\n"

# Each builder gets ``outside``, an absolute folder beside the target's parent.
ESCAPES = {
    "zip-dotdot": ("zip", lambda o: make_zip({**GOOD, "../evil.txt": EVIL})),
    "zip-nested-dotdot": ("zip", lambda o: make_zip({**GOOD, "snli_1.0/../../evil.txt": EVIL})),
    "zip-absolute": ("zip", lambda o: make_zip({**GOOD, f"{o}/evil.txt": EVIL})),
    "zip-junk-prefix": ("zip", lambda o: make_zip({**GOOD, "__MACOSX/../../evil.txt": EVIL})),
    "zip-symlink": ("zip", lambda o: make_zip(GOOD, symlinks={"snli_1.0/link": str(o)})),
    "tar-dotdot": ("tar.gz", lambda o: make_tar({**GOOD, "../evil": EVIL})),
    "tar-absolute": ("tar.gz", lambda o: make_tar({**GOOD, f"{o}/evil": EVIL})),
    "tar-symlink": ("tar.gz", lambda o: make_tar(GOOD, symlinks={"snli_1.0/link": str(o)})),
    "tar-hardlink": ("tar.gz", lambda o: make_tar(GOOD, hardlinks={"h": "/etc/passwd"})),
}


@pytest.mark.parametrize("case", ESCAPES)
def test_archive_path_escape_is_refused(http_server, tmp_path, raw, case):
    """Members that would land outside the target folder stop the whole extraction.

    Nothing may appear in the target's parent (no target, manifest, temp
    folder or ../evil) nor one level up (the absolute paths point there).
    """
    archive, build = ESCAPES[case]
    spec = serve(http_server, "evil", build(tmp_path / "outside"), archive)

    with pytest.raises(DownloadError, match="refusing to extract") as err:
        fetch(spec, FAST, raw / "evil", raw / "evil.manifest.json")

    assert str(err.value).startswith(f"{spec.url}: ")

    assert listing(raw) == []
    assert listing(tmp_path) == ["raw"]


# --------------------------------------------------------------------------- CLI


def nlistress(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the installed ``nlistress`` entry point (the one Snakemake rules call)."""
    exe = shutil.which("nlistress", path=str(BIN)) or shutil.which("nlistress")
    command = [exe] if exe else [sys.executable, "-m", "nlistress.cli"]
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_cli_download_with_set_json_override(http_server, tmp_path, snli_zip):
    """`nlistress download` as the rule runs it: params.yaml plus a --set-json override."""
    url = http_server.add("/snli_1.0.zip", snli_zip)
    override = {
        "downloads": {"snli_1.0": {"url": url, "sha256": sha256(snli_zip)}},
        "download": {"retries": 0, "backoff_seconds": 0},
    }
    dest, manifest = tmp_path / "raw" / "snli_1.0", tmp_path / "raw" / "snli_1.0.manifest.json"

    proc = nlistress(
        "download", "snli_1.0", "--dest", str(dest), "--manifest", str(manifest),
        "--params", str(ROOT / "params.yaml"), "--set-json", json.dumps(override),
        cwd=tmp_path,
    )  # fmt: skip

    assert proc.returncode == 0, proc.stderr
    assert (dest / DEV_MEMBER).read_bytes() == SNLI_DEV.read_bytes()
    record = json.loads(manifest.read_text(encoding="utf-8"))
    assert record["sha256"] == sha256(snli_zip)
    assert record["archive"] == "zip"  # kept from params.yaml by the deep merge
    assert record["url"] == url
    assert sha256(snli_zip) in proc.stderr  # the final log line reports the checksum


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("bad-checksum", "sha256 mismatch"),
        ("corrupt-archive", "truncated or corrupt"),
        ("missing", "HTTP 404"),
    ],
)
def test_cli_download_failure_is_one_line_exit_2(http_server, tmp_path, snli_zip, case, expected):
    """Failures exit with status 2 and one `nlistress: error:` line, never a traceback.

    The corrupt archive is unpinned: no "no pinned checksum; recorded ..." warning
    may come before the error, since no manifest was written.
    """
    body = corrupt(snli_zip, 1000) if case == "corrupt-archive" else snli_zip
    url = http_server.add("/snli_1.0.zip", body)
    if case == "missing":
        url = http_server.url("/gone.zip")
    entry = {"url": url, "archive": "zip", "sha256": "0" * 64 if case == "bad-checksum" else None}
    config = {"downloads": {"snli_1.0": entry}, "download": {"retries": 0}}
    raw = tmp_path / "raw"

    proc = nlistress(
        "-q", "download", "snli_1.0", "--dest", str(raw / "snli_1.0"),
        "--manifest", str(raw / "snli_1.0.manifest.json"), "--set-json", json.dumps(config),
        cwd=tmp_path,
    )  # fmt: skip

    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("nlistress: error: ")
    assert expected in lines[0]
    assert listing(raw) == []


# --------------------------------------------------------------------------- Snakemake


def _output_hashes(folder: Path) -> dict[str, str]:
    return {p: sha256_file(folder / p) for p in listing(folder) if (folder / p).is_file()}


@pytest.mark.slow
def test_snakemake_download_to_canonical(http_server, tmp_path, snli_zip):
    """The pipeline end to end: download rule -> canonical SNLI dev/test, then nothing to redo.

    The target is SNLI's index; the override selects its dev and test splits
    and gives every other dataset an empty list (Snakemake deep-merges
    --configfile, so omitting them would keep params.yaml's full selection).
    The server fails the first request, so the retry goes through the rule too.
    """
    project = tmp_path / "project"
    copy_project(project)
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    url = http_server.add("/snli/snli_1.0.zip", snli_zip, fail_first=1)
    override = {
        "downloads": {"snli_1.0": {"url": url, "sha256": sha256(snli_zip)}},
        "download": {"retries": 2, "backoff_seconds": 0, "timeout_seconds": 30},
        "canonical_splits": {name: [] for name in params["canonical_splits"]}
        | {"snli": ["dev", "test"]},
    }
    (project / "override.yaml").write_text(yaml.safe_dump(override), encoding="utf-8")

    def run() -> subprocess.CompletedProcess:
        target = "data/canonical/snli/index.json"
        return run_snakemake(project, "--cores", "2", target, "--configfile", "override.yaml")

    first = run()
    assert first.returncode == 0, first.stdout + first.stderr
    canonical = project / "data" / "canonical"
    assert pq.read_metadata(canonical / "snli" / "dev.parquet").num_rows == 9842
    assert pq.read_metadata(canonical / "snli" / "test.parquet").num_rows == 9824
    assert sorted(p.name for p in canonical.iterdir()) == ["snli"]
    for split in ("dev", "test"):
        manifest = json.loads((canonical / "snli" / f"{split}.manifest.json").read_text())
        assert manifest["source"]["download"]["sha256"] == sha256(snli_zip)
        assert manifest["source"]["download"]["pinned"] is True
    index = json.loads((canonical / "snli" / "index.json").read_text())
    assert sorted(index["splits"]) == ["dev", "test"]
    raw = project / "data" / "raw"
    assert (raw / "snli_1.0" / DEV_MEMBER).read_bytes() == SNLI_DEV.read_bytes()
    assert http_server.hits("/snli/snli_1.0.zip") == 2  # one 503, one download for both splits
    before = _output_hashes(project / "data")

    second = run()
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to be done" in second.stdout + second.stderr
    assert http_server.hits("/snli/snli_1.0.zip") == 2
    assert _output_hashes(project / "data") == before
