"""The cluster path against a real scheduler: `snakemake --profile slurm` on a one-node SLURM.

The test starts munge, slurmctld and slurmd itself (Debian packages, as
root; see tests/slurm_cluster.py) and runs a small target through the
repository's `slurm/` profile. Where SLURM cannot start, the test is skipped
and the reason is printed in pytest's summary (`-ra`), never passed silently.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .slurm_cluster import ClusterUnavailable, single_node_slurm
from .support import ROOT, copy_project, run_snakemake

pytestmark = pytest.mark.slow

# An OCNLI set: its audit needs no hypothesis-only model (OCNLI has no artifacts.baselines
# entry), so no job asks the GPU-less test cluster for a GPU.
TARGETS = (
    "data/canonical/ocnli/dev.parquet",
    "data/sets/stress/negation/ocnli_dev.parquet",
    "data/sets/stress/negation/ocnli_dev.card.md",
)
# Polling settings for a test cluster whose jobs take seconds; the profile's
# per-rule memory requests are scaled down to what this machine has.
FAST_POLLING = (
    "--slurm-status-command", "squeue",
    "--slurm-init-seconds-before-status-checks", "1",
    "--seconds-between-status-checks", "2",
    "--latency-wait", "5",
    "--set-resources", "test_set:mem_mb=1000", "set_card:mem_mb=500", "canonical:mem_mb=1000",
    "set_audit:mem_mb=1000",
    "--default-resources", "mem_mb=500", "runtime=10",
)  # fmt: skip


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_profile_runs_a_target_through_slurm(tmp_path: Path) -> None:
    work = tmp_path / "project"
    override = copy_project(work)
    shutil.copytree(ROOT / "slurm", work / "slurm")
    try:
        with single_node_slurm(tmp_path / "slurm-cluster") as env:
            proc = subprocess.run(
                ["snakemake", *TARGETS, "--profile", "slurm", "--cores", "2",
                 "--configfile", str(override), *FAST_POLLING],
                cwd=work, env=env, capture_output=True, text=True, check=False, timeout=600,
            )  # fmt: skip
            log = proc.stdout + proc.stderr
            assert proc.returncode == 0, log[-4000:]
            job_ids = re.findall(r"submitted with SLURM jobid (\d+)", log)
            queue = subprocess.run(
                ["squeue", "--states=all", "--noheader", "--format=%i %T"],
                env=env, capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
    except ClusterUnavailable as exc:
        pytest.skip(f"SLURM could not start here: {exc}")

    # One SLURM job per rule (canonical table, set, its audit, card), each completed.
    assert len(job_ids) == 4, log[-4000:]
    states = dict(line.split() for line in queue.splitlines())
    assert all(states.get(job) == "COMPLETED" for job in job_ids), (job_ids, queue)

    # The cluster built exactly what a local run builds.
    local = tmp_path / "local"
    local_override = copy_project(local)
    run_snakemake(local, *TARGETS[:2], "--cores", "1", "--configfile", str(local_override))
    for target in TARGETS[:2]:
        assert _sha256(work / target) == _sha256(local / target), target
