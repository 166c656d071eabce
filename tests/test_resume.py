"""Killing a run midway and starting it again: finished outputs stay, nothing is corrupt.

Two ways a run ends early: SIGTERM (a scheduler's time limit, `kill`), after
which Snakemake cleans up and simply starts again, and SIGKILL (no chance to
clean up, e.g. the OOM killer), after which its lock stays and
`snakemake --unlock` comes first, as the README says. The workflow profile
(profiles/default) reruns incomplete jobs; atomic writes mean no output is
ever half written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlistress.atomic import sha256_file
from nlistress.manifest import manifest_path

from .support import copy_project

pytestmark = pytest.mark.slow

TESTS = ("negation", "word_overlap", "length_mismatch", "tautology", "spelling_error")
SETS = [f"data/sets/stress/{test}/snli_dev.parquet" for test in TESTS]


def _snakemake(work: Path, override: Path) -> list[str]:
    return [sys.executable, "-m", "snakemake", *SETS, "--cores", "1",
            "--configfile", str(override)]  # fmt: skip


def _env() -> dict[str, str]:
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_run_resumes_without_redoing_finished_outputs(tmp_path: Path, sig) -> None:
    work = tmp_path / "project"
    override = copy_project(work)
    log = (tmp_path / "stopped.log").open("w", encoding="utf-8")
    run = subprocess.Popen(
        _snakemake(work, override), cwd=work, env=_env(), start_new_session=True,
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    # Jobs run one at a time: once a second set is written, the job of the first
    # has finished and Snakemake has recorded it; the second may not be recorded.
    appeared: list[str] = []
    deadline = time.monotonic() + 300
    while len(appeared) < 2 and time.monotonic() < deadline:
        assert run.poll() is None, "snakemake ended before it was killed"
        appeared += [s for s in SETS if s not in appeared and (work / s).exists()]
        time.sleep(0.05)
    # SIGTERM to Snakemake alone (it lets its running job finish, then exits; its own
    # handler could hang here, see nlistress/signals.py), SIGKILL to everything it runs.
    if sig == signal.SIGTERM:
        run.send_signal(sig)
    else:
        os.killpg(run.pid, sig)
    run.wait(timeout=300)
    log.close()
    if sig == signal.SIGTERM:  # a stop Snakemake sees ends with how to resume
        last = (tmp_path / "stopped.log").read_text(encoding="utf-8").strip().splitlines()[-1]
        assert "Run the same command again to resume" in last, last

    recorded = work / appeared[0]
    recorded_mtime = recorded.stat().st_mtime_ns
    assert any(not (work / s).exists() for s in SETS), "nothing was left to do"
    assert not list(work.joinpath("data").rglob("*.tmp")), "a partial file was left"

    if sig == signal.SIGKILL:
        subprocess.run([*_snakemake(work, override), "--unlock"], cwd=work, env=_env(),
                       capture_output=True, check=True, timeout=120)  # fmt: skip
    resumed = subprocess.run(_snakemake(work, override), cwd=work, env=_env(),
                             capture_output=True, text=True, check=False, timeout=600)  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]

    assert recorded.stat().st_mtime_ns == recorded_mtime, f"{recorded} was rebuilt"
    # Every set is complete and matches the checksum its manifest recorded.
    for target in SETS:
        path = work / target
        manifest = json.loads(manifest_path(path).read_text(encoding="utf-8"))
        assert manifest["sha256"] == sha256_file(path), target
