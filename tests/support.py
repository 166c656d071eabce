"""Paths and helpers the tests share: the checkout, the real data, project params."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from nlistress.config import load_params

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = (ROOT / ".." / "shared" / "data").resolve()


def project_params(*overrides: Path) -> dict[str, Any]:
    """params.yaml of the checkout, with optional override files merged on top."""
    return load_params([ROOT / "params.yaml", *overrides])


def shared_override() -> dict[str, Any]:
    """tests/shared.yaml with its ``../shared/data`` paths made absolute (usable from any folder)."""
    shared = load_params([ROOT / "tests" / "shared.yaml"])
    for dataset in shared["datasets"].values():
        for split in dataset["splits"].values():
            source = split["source"]
            source["path"] = str((ROOT / source["path"]).resolve())
    resources = shared["resources"]
    for key in ("spacy_model", "nltk_data"):
        resources[key] = str((ROOT / resources[key]).resolve())
    hypernyms = shared["swap"]["lexicons"]["hypernyms"]
    hypernyms["path"] = str((ROOT / hypernyms["path"]).resolve())
    return shared


def copy_project(dst: Path) -> Path:
    """Copy the workflow (Snakefile, rules, params, profiles, conda env, the review CSVs reviewed
    tests read) into ``dst``; return the offline override file.

    The override is ``dst/tests/shared.yaml`` with absolute paths, where the
    small profile looks for it. Snakemake then runs in a scratch folder
    without touching the checkout's data/.
    """
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "Snakefile", dst / "Snakefile")
    shutil.copy2(ROOT / "params.yaml", dst / "params.yaml")
    shutil.copytree(ROOT / "rules", dst / "rules", dirs_exist_ok=True)
    shutil.copytree(ROOT / "profiles", dst / "profiles", dirs_exist_ok=True)
    shutil.copytree(ROOT / "workflow" / "envs", dst / "workflow" / "envs", dirs_exist_ok=True)  # rules' conda:
    # the review CSVs a reviewed test keeps its rows by (an input of its set job)
    for family in ("stress", "permute", "swap"):
        for test in (yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))[family]["tests"]).values():
            for reviews in (test.get("reviews") or {}).values():
                for review in [reviews] if isinstance(reviews, str) else reviews:
                    (dst / review).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / review, dst / review)
    override = dst / "tests" / "shared.yaml"
    override.parent.mkdir(exist_ok=True)
    override.write_text(yaml.safe_dump(shared_override(), sort_keys=False), encoding="utf-8")
    return override


def run_in_group(args: list[str], cwd: Path, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess:
    """Run ``args`` in its own process group; on timeout end the whole group (Snakemake and
    the jobs it started), so no process outlives the test, and fail with its last output."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
        raise AssertionError(f"{' '.join(args)} ran over {timeout} s and was stopped:\n{(stdout + stderr)[-3000:]}") from None
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr)


def run_snakemake(workdir: Path, *args: str, timeout: int = 1800) -> subprocess.CompletedProcess:
    """Run Snakemake from the test's interpreter, with the same venv's `nlistress` on PATH.

    The timeout is generous (a loaded 2-core machine is slow); it guards against a hang only.
    """
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    proc = run_in_group([sys.executable, "-m", "snakemake", *args], workdir, env, timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def canonical_table(
    params: dict[str, Any], dataset: str, split: str, rel: str, folder: Path
) -> Path:
    """Canonicalise the real file ``../shared/data/<rel>`` into ``folder``; return the table."""
    from nlistress.canonical import prepare
    from nlistress.config import DatasetSpec, PrepareSettings

    out = folder / f"{dataset}_{split}.parquet"
    prepare(DatasetSpec.from_params(params, dataset), split, out, PrepareSettings(),
            source_path=SHARED_DATA / rel)  # fmt: skip
    return out


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a review CSV (as annotators edit it)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    """Write review rows back, as a spreadsheet would after annotation."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def reimport(summary_path: Path, sets: Any, output: Path) -> dict[str, Any]:
    """The committed review summary's CSV (beside it) imported today, saying who judged it as
    the summary does: a test compares the two to catch a CSV edited without re-importing."""
    from nlistress.review import import_review

    committed = json.loads(summary_path.read_text(encoding="utf-8"))
    return import_review(summary_path.with_suffix(".csv"), sets, output,
                         annotators=committed.get("annotators"), judged_by=committed.get("judged_by"),
                         by=(committed.get("by") or {}).get("param"))  # fmt: skip
