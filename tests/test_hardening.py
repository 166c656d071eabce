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
    ("length_mismatch", "repeat", 100_000_000, "length_mismatch.repeat: expected a value <= 100"),
    ("permute", "q", 10**9, "permute.q: expected a value <= 1000"),
    ("permute", "q", "many", "q: expected an integer"),
])  # fmt: skip
def test_multiplying_settings_are_bounded(test, setting, value, message) -> None:
    from nlistress.errors import ConfigError
    from nlistress.perturb import make_generator

    from .support import project_params

    with pytest.raises(ConfigError, match=message):
        make_generator(test, project_params(), {setting: value})


# -- one-line errors for bad input --------------------------------------------------------------


def _one_line_error(capsys, argv: list[str]) -> str:
    from nlistress.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nlistress: error:"), err
    return err[0]


@pytest.mark.parametrize(("line", "needle"), [
    ('{"sentence1": "\\ud800 x", "sentence2": "y", "gold_label": "neutral"}', "lone surrogate"),
    ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
    ('{"sentence1": "a", "sentence1": "b", "sentence2": "y", "gold_label": "neutral"}', "appears twice"),
    ('{"sentence1": "a\\u0000b", "sentence2": "y", "gold_label": "neutral"}', "NUL"),
    ('{"sentence1": "\\u00a0\\u200b ", "sentence2": "y", "gold_label": "neutral"}', "empty premise"),
    ('{"sentence1": "a", "sentence2": "y", "gold_label": "neutral", "pairID": {"a": 1}}', "id must be"),
])  # fmt: skip
def test_bad_json_lines_get_one_line_errors(tmp_path, capsys, line: str, needle: str) -> None:
    real = (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").read_text(encoding="utf-8").splitlines()[0]
    source = tmp_path / "mine.jsonl"
    source.write_text(real + "\n" + line + "\n", encoding="utf-8")
    out = tmp_path / "out.parquet"
    err = _one_line_error(capsys, ["prepare", "snli", "dev", "--source", str(source), "-o", str(out),
                                   "--params", str(ROOT / "params.yaml")])  # fmt: skip
    assert needle in err and "line 2" in err, err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_special_files_and_bad_params_get_one_line_errors(tmp_path, capsys) -> None:
    import os

    params = ["--params", str(ROOT / "params.yaml")]
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for source in (fifo, "/dev/zero"):
        err = _one_line_error(capsys, ["prepare", "snli", "dev", "--source", str(source), "-o",
                                       str(tmp_path / "o.parquet"), *params])  # fmt: skip
        assert "not a regular file" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("a:\n  b: [1, 2\nc: 3\n", encoding="utf-8")
    assert "bad.yaml, line 3 column 2: not valid YAML" in _one_line_error(capsys, ["datasets", "--params", str(bad)])
    lines = (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = _one_line_error(capsys, ["perturb", "negation", "-i", str(mine), "-o", str(tmp_path / "n.parquet"),
                                   "--set", "colour=blue", *params])  # fmt: skip
    assert "unknown setting(s) colour" in err
    err = _one_line_error(capsys, ["perturb", "negation", "-i", str(mine), "-o", str(tmp_path / "n.parquet"),
                                   "--set-json", '{"stress": {"seed": "abc"}}', *params])  # fmt: skip
    assert "stress.seed: expected an integer" in err


def test_bad_sets_and_predictions_get_one_line_errors(tmp_path, capsys) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    params = ["--params", str(ROOT / "params.yaml")]
    rows = {"uid": ["a", "b"], "premise": ["A man sleeps.", "A dog runs."],
            "hypothesis": ["A man is awake.", "An animal moves."], "label": ["contradiction", "entailment"]}
    good = tmp_path / "set.parquet"
    pq.write_table(pa.table(rows), good)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(f'{{"uid": "{u}", "prediction": "neutral"}}\n' for u in ("a", "b", "zzz")),
                     encoding="utf-8")  # fmt: skip
    score = ["score", "--strict", "--model", "m", "--set", str(good), "--predictions", str(preds),
             "-o", str(tmp_path / "s.json")]  # fmt: skip
    assert "1 predictions for uids not in" in _one_line_error(capsys, [*score, *params])
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[:-40])
    score[score.index("--set") + 1] = str(truncated)
    assert "not a readable Parquet file" in _one_line_error(capsys, [*score, *params])
    pq.write_table(pa.table({**rows, "label": [0, 2]}), truncated)
    assert "must hold label names" in _one_line_error(capsys, [*score, *params])
    pq.write_table(pa.table({**rows, "label": pa.nulls(2, pa.string())}), truncated)
    assert "no labelled rows to score" in _one_line_error(capsys, [*score, *params])
    for bad in ({**rows, "premise": [1, 2]}, {**rows, "uid": ["a", "a"]}, {**rows, "premise": [None, "x"]}):
        pq.write_table(pa.table(bad), truncated)
        err = _one_line_error(capsys, ["perturb", "negation", "-i", str(truncated), "-o",
                                       str(tmp_path / "n.parquet"), *params])  # fmt: skip
        assert "must hold text" in err or "appears 2 times" in err or "premise is empty" in err, err


def test_a_corrupt_model_file_gets_a_one_line_error(tmp_path) -> None:
    import json

    import torch

    from nlistress.errors import DataError
    from nlistress.models.predict import EncoderPredictor
    from nlistress.models.text import PAD, UNK, Vocabulary

    from .support import project_params

    folder = tmp_path / "model"
    folder.mkdir()
    Vocabulary([PAD, UNK, "a"], True).save(folder / "vocab.json")
    settings = {**project_params()["models"]["training"], "hypothesis_only": False}
    (folder / "model.safetensors").write_bytes(b"")
    config = {"arch": "cbow", "labels": ["entailment", "neutral", "contradiction"], "settings": settings}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(DataError, match="not a readable safetensors file"):
        EncoderPredictor.load(folder, config, {"batch_size": 8, "mixed_precision": False}, torch.device("cpu"))


# -- the readers under arbitrary input ---------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_ROW = st.fixed_dictionaries(
    {}, optional={"sentence1": st.text(max_size=30) | _JSON, "sentence2": st.text(max_size=30) | _JSON,
                  "gold_label": st.sampled_from(["entailment", "neutral", "contradiction", "-", "x"]) | _JSON,
                  "pairID": st.text(max_size=10) | _JSON},
)  # fmt: skip


def _prepare_fuzzed(tmp_path_factory, data: bytes) -> None:
    from nlistress.canonical import prepare
    from nlistress.config import DatasetSpec, PrepareSettings
    from nlistress.errors import DataError

    from .support import project_params

    folder = tmp_path_factory.mktemp("fuzz")
    source, out = folder / "in.jsonl", folder / "out.parquet"
    source.write_bytes(data)
    try:
        prepare(DatasetSpec.from_params(project_params(), "snli"), "dev", out, PrepareSettings(),
                source_path=source)  # fmt: skip
    except DataError as exc:
        assert "\n" not in str(exc)
        assert not out.exists()
    else:
        assert out.exists()
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_fuzz_arbitrary_bytes_give_a_table_or_a_data_error(tmp_path_factory, data: bytes) -> None:
    _prepare_fuzzed(tmp_path_factory, data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_ROW | _JSON, min_size=1, max_size=6))
def test_fuzz_arbitrary_json_lines_give_a_table_or_a_data_error(tmp_path_factory, rows) -> None:
    import json

    _prepare_fuzzed(tmp_path_factory, "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8"))


def test_a_full_disk_gets_a_one_line_error(tmp_path, capsys, monkeypatch) -> None:
    """ENOSPC while the table is written: the system's message, one line, nothing partial."""
    import errno

    import nlistress.parquet_io as parquet_io

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out.parquet"))

    monkeypatch.setattr(parquet_io.pq, "ParquetWriter", full)
    err = _one_line_error(capsys, ["prepare", "snli", "dev", "--source", str(SHARED_DATA / "snli" / "snli_1.0_dev.jsonl"),
                                   "-o", str(tmp_path / "out.parquet"), "--params", str(ROOT / "params.yaml")])  # fmt: skip
    assert "No space left on device" in err
    assert list(tmp_path.iterdir()) == []
