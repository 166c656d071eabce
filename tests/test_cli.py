"""Every subcommand has --help, and the registry can be listed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nlistress.cli import build_parser

from .support import ROOT

SUBCOMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)


def nlistress(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nlistress.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_subcommands_exist():
    assert {"download", "prepare", "index", "datasets"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help(command):
    proc = nlistress(command, "--help")
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"usage: nlistress {command}")


def test_datasets_lists_the_registry_after_overrides():
    proc = nlistress("datasets", "--params", "params.yaml", "--params", "tests/shared.yaml")
    assert proc.returncode == 0
    rows = {tuple(line.split("\t")[:3]) for line in proc.stdout.splitlines()}
    assert ("snli", "dev", "local") in rows
    assert ("snli", "train", "url") in rows
    assert ("aqua_rat", "test", "local") in rows


def test_unknown_dataset_is_a_clear_error():
    proc = nlistress("prepare", "no_such_dataset", "dev", "-o", "/tmp/never.parquet")
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "datasets.no_such_dataset: unknown dataset (known: anli, aqua_rat, custom, mnli, ocnli, "
        "scitail, sick, snli)"
    )


def test_prepare_of_an_undownloaded_split_says_what_to_run(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "nlistress.cli", "prepare", "snli", "dev", "-o", "x.parquet",
         "--params", str(ROOT / "params.yaml")],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "run `nlistress download snli_1.0` first, or pass --source" in proc.stderr
