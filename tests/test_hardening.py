"""Hostile input against the pipeline: what an attacker or a careless user would try.

Each test reproduces one attack and checks that it is refused or harmless.
"""

from __future__ import annotations

import re
import shutil

import pytest
import yaml

from .support import ROOT, SHARED_DATA, copy_project, run_snakemake

# Every shell metacharacter a path may carry: a quote, command substitution both ways,
# spaces, a newline. Run by a shell without quoting, each `touch` would create a file.
HOSTILE = "it's $(touch PWNED1) `touch PWNED2` ;touch PWNED3\nx"


@pytest.mark.slow
def test_rules_quote_every_value_they_put_in_a_shell_command(tmp_path) -> None:
    """A dataset path holding shell syntax is read as a path; nothing in it runs."""
    override = copy_project(tmp_path)
    source = tmp_path / "data" / f"{HOSTILE}.jsonl"
    source.parent.mkdir(parents=True)
    shutil.copyfile(SHARED_DATA / "snli" / "snli_1.0_dev.jsonl", source)
    params = yaml.safe_load(override.read_text(encoding="utf-8"))
    params["datasets"]["snli"]["splits"]["dev"]["source"]["path"] = str(source)
    override.write_text(yaml.safe_dump(params), encoding="utf-8")
    target = "data/canonical/snli/dev.parquet"
    run_snakemake(tmp_path, target, "--cores", "1", "--configfile", str(override))
    assert (tmp_path / target).is_file()
    assert not list(tmp_path.rglob("PWNED*")) and not list(ROOT.glob("PWNED*"))


def test_no_rule_builds_a_shell_command_without_quoting() -> None:
    """Every `{...}` in a rule's shell command ends in `:q` (Snakemake quotes each list item)."""
    unquoted, commands = [], 0
    for path in sorted((ROOT / "rules").glob("*.smk")):
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"shell:\n((?:\s+f?\".*\"\n)+)", text):
            commands += 1
            unquoted += [f"{path.name}: {field}" for field in re.findall(r"(?<!\{)\{([^{}]+)\}(?!\})", block)
                         if not field.endswith(":q")]  # fmt: skip
        assert "!r}" not in text, path
    assert commands >= 20 and unquoted == []


# -- no clobbered user files ----------------------------------------------------------------


def _fails(capsys, argv: list[str], *needles: str) -> None:
    from nlistress.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nlistress: error:"), err
    for needle in needles:
        assert needle in err[0], err[0]


@pytest.fixture()
def user_jsonl(tmp_path):
    """Five real SNLI dev rows in a user's file."""
    lines = (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").read_text(encoding="utf-8").splitlines()[:5]
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_output_that_is_an_input_is_refused(user_jsonl, capsys) -> None:
    before = user_jsonl.read_bytes()
    params = ["--params", str(ROOT / "params.yaml")]
    _fails(capsys, ["perturb", "negation", "-i", str(user_jsonl), "-o", str(user_jsonl), *params],
           "refusing to overwrite an input")  # fmt: skip
    _fails(capsys, ["prepare", "snli", "dev", "--source", str(user_jsonl), "-o", str(user_jsonl), *params],
           "--output", "--source")  # fmt: skip
    assert user_jsonl.read_bytes() == before


def test_a_folder_the_tool_did_not_create_is_not_replaced(tmp_path, capsys) -> None:
    from nlistress.atomic import OUTPUT_MARK, atomic_dir, replacing_any_folder
    from nlistress.errors import DataError

    mine = tmp_path / "results"
    mine.mkdir()
    (mine / "notes.txt").write_text("a week of work", encoding="utf-8")
    with pytest.raises(DataError, match="did not create"), atomic_dir(mine) as tmp:
        (tmp / "out.json").write_text("{}", encoding="utf-8")
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "a week of work"
    with replacing_any_folder(True), atomic_dir(mine) as tmp:  # --force
        (tmp / "out.json").write_text("{}", encoding="utf-8")
    assert sorted(p.name for p in mine.iterdir()) == [OUTPUT_MARK, "out.json"]
    with atomic_dir(mine) as tmp:  # ours now: replaced without --force
        (tmp / "again.json").write_text("{}", encoding="utf-8")
    assert sorted(p.name for p in mine.iterdir()) == [OUTPUT_MARK, "again.json"]


def test_download_into_a_users_folder_is_refused(tmp_path, capsys) -> None:
    source = tmp_path / "pairs.tsv"
    source.write_text("dog\tanimal\n", encoding="utf-8")
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"downloads": {"pairs": {"url": source.as_uri(), "sha256": None,
                                                              "archive": "file"}}}), encoding="utf-8")  # fmt: skip
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "keep.txt").write_text("keep", encoding="utf-8")
    _fails(capsys, ["download", "pairs", "--dest", str(dest), "--params", str(params)], "did not create", "--force")
    assert (dest / "keep.txt").exists()
    from nlistress.cli import main

    assert main(["download", "pairs", "--dest", str(dest), "--params", str(params), "--force"]) == 0
    assert (dest / "pairs.tsv").read_text(encoding="utf-8") == "dog\tanimal\n"
    assert main(["download", "pairs", "--dest", str(dest), "--params", str(params)]) == 0  # ours now


def test_outputs_follow_the_umask_and_stale_temporaries_are_removed(tmp_path) -> None:
    import os

    from nlistress.atomic import atomic_dir, write_text_atomic

    stale = tmp_path / ".out.txt.abc123.tmp"
    stale.write_text("left by a killed run", encoding="utf-8")
    old = os.umask(0o002)
    try:
        write_text_atomic(tmp_path / "out.txt", "x")
        with atomic_dir(tmp_path / "folder") as folder:
            (folder / "f").write_text("y", encoding="utf-8")
    finally:
        os.umask(old)
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o664
    assert (tmp_path / "folder").stat().st_mode & 0o777 == 0o775
    assert not stale.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# -- release integrity ------------------------------------------------------------------------


@pytest.fixture()
def released_set(tmp_path):
    """A real negation set from SNLI dev, with manifest and card."""
    from nlistress.cards import write_card
    from nlistress.config import deep_merge
    from nlistress.perturb.runner import build_set

    from .support import canonical_table, project_params, shared_override

    params = deep_merge(project_params(), shared_override())
    table = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", tmp_path)
    path = tmp_path / "stress" / "negation" / "snli_dev.parquet"
    path.parent.mkdir(parents=True)
    build_set("negation", table, path, params)
    write_card(path, path.with_name("snli_dev.card.md"), params)
    return path, params


def test_release_checks_rows_labels_and_card_of_what_it_ships(released_set, tmp_path) -> None:
    import json

    import pyarrow.parquet as pq

    from nlistress.atomic import sha256_file
    from nlistress.errors import DataError
    from nlistress.manifest import manifest_path
    from nlistress.release import build_release

    path, params = released_set
    build_release([path], tmp_path / "ok", params)
    # a set rewritten with 10 rows and its manifest's sha256 updated to match
    pq.write_table(pq.read_table(path).slice(0, 10), path)
    manifest = json.loads(manifest_path(path).read_text(encoding="utf-8"))
    manifest["sha256"] = sha256_file(path)
    manifest_path(path).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match="10 rows, its manifest says 9842"):
        build_release([path], tmp_path / "bad", params)
    assert not (tmp_path / "bad").exists()
    # rows right but labels not: the manifest's label counts are checked too
    manifest["output_rows"] = 10
    manifest_path(path).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match="label counts"):
        build_release([path], tmp_path / "bad", params)
    manifest["labels"] = dict(json.loads(json.dumps(
        {k: int(v) for k, v in pq.read_table(path).to_pandas()["label"].value_counts().items()})))
    manifest_path(path).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match="card.md: does not name the set's sha256"):
        build_release([path], tmp_path / "bad", params)


def test_a_download_that_may_be_cut_off_is_refused_unless_pinned(http_server, tmp_path) -> None:
    """No Content-Length and a connection closed half way: indistinguishable from the end."""
    from nlistress.atomic import sha256_file
    from nlistress.config import DownloadSettings, DownloadSpec
    from nlistress.download import fetch
    from nlistress.errors import DownloadError

    body = (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").read_bytes()[:200_000]
    url = http_server.add("/dev.jsonl", body, truncate_first=1, no_length=1)
    settings = DownloadSettings(retries=0, backoff_seconds=0.0, timeout_seconds=10.0)
    entry = {"url": url, "sha256": None, "archive": "file"}
    spec = DownloadSpec.from_params({"downloads": {"dev": entry}}, "dev")
    with pytest.raises(DownloadError, match="no Content-Length"):
        fetch(spec, settings, tmp_path / "dev", tmp_path / "dev.manifest.json")
    assert not (tmp_path / "dev").exists()
    # pinned, the full body is accepted (the checksum proves it complete)
    source = tmp_path / "full.jsonl"
    source.write_bytes(body)
    pinned = DownloadSpec.from_params({"downloads": {"dev": {**entry, "sha256": sha256_file(source)}}}, "dev")
    fetch(pinned, settings, tmp_path / "dev", tmp_path / "dev.manifest.json")
    assert (tmp_path / "dev" / "dev.jsonl").read_bytes() == body


# -- bounded resources ------------------------------------------------------------------------


def test_archive_bombs_and_ambiguous_members_are_refused(tmp_path) -> None:
    import io
    import tarfile
    import zipfile

    from nlistress.config import DownloadSettings
    from nlistress.download import extract
    from nlistress.errors import DownloadError

    real = (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").read_bytes()[:100_000]
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros.bin", b"\0" * (64 * 2**20))  # 64 MiB in about 64 KB
    with pytest.raises(DownloadError, match="would unpack to 67,108,864 bytes"):
        extract(bomb, "zip", tmp_path / "out")
    small = DownloadSettings(max_unpacked_bytes=50_000)
    ok = tmp_path / "ok.zip"
    with zipfile.ZipFile(ok, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("dev.jsonl", real)
    with pytest.raises(DownloadError, match="max_unpacked_bytes"):
        extract(ok, "zip", tmp_path / "out", small)
    assert extract(ok, "zip", tmp_path / "out") == 0 and (tmp_path / "out" / "dev.jsonl").read_bytes() == real

    twice = tmp_path / "twice.zip"
    with zipfile.ZipFile(twice, "w") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("dev.jsonl", real)
        zf.writestr("dev.jsonl", b"{}\n")
    with pytest.raises(DownloadError, match="appears twice"):
        extract(twice, "zip", tmp_path / "out2")
    clash = tmp_path / "clash.tar"
    with tarfile.open(clash, "w") as tf:
        for name, data in (("a", b"file"), ("a/b.jsonl", real)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    with pytest.raises(DownloadError, match="both a file and a folder"):
        extract(clash, "tar", tmp_path / "out3")
    assert not (tmp_path / "out2").exists() and not (tmp_path / "out3").exists()


@pytest.mark.parametrize(("test", "setting", "value", "message"), [
    ("length_mismatch", "repeat", 100_000_000, "repeat: expected an integer from 1 to 100"),
    ("permute", "q", 10**9, "q: expected an integer from 1 to 1000"),
    ("permute", "q", "many", "q: expected an integer"),
])  # fmt: skip
def test_multiplying_settings_are_bounded(test, setting, value, message) -> None:
    from nlistress.errors import ConfigError
    from nlistress.perturb import make_generator

    from .support import project_params

    with pytest.raises(ConfigError, match=message):
        make_generator(test, project_params(), {setting: value})
