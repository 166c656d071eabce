"""A real single-node SLURM cluster for one test: munge, slurmctld and slurmd.

Everything lives in a temporary folder (keys, sockets, state, logs) and uses
free ports, so it does not touch a site's SLURM. One file outside is needed:
the Snakemake job-step plugin runs `srun` with SLURM_CONF removed from its
environment, so `srun` only finds the configuration at the default path
/etc/slurm/slurm.conf; the cluster links it there for its lifetime and refuses
to start when a real configuration is already installed.

Any reason the cluster cannot start is raised as ``ClusterUnavailable`` with a
message the test prints when it skips.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

DEFAULT_CONF = Path("/etc/slurm/slurm.conf")
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "srun", "sinfo", "scancel")
DEBIAN_PACKAGES = "slurmctld slurmd slurm-client munge"


class ClusterUnavailable(RuntimeError):
    """SLURM cannot run here (not root, packages missing, ...); the message says why."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise ClusterUnavailable("cannot read MemTotal from /proc/meminfo")


def _slurm_conf(folder: Path, host: str) -> str:
    return "\n".join(
        [
            "ClusterName=nlistress-test",
            f"SlurmctldHost={host}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={folder}/munge.sock",
            f"StateSaveLocation={folder}/state",
            f"SlurmdSpoolDir={folder}/spool",
            f"SlurmctldPidFile={folder}/slurmctld.pid",
            f"SlurmdPidFile={folder}/slurmd.pid",
            f"SlurmctldLogFile={folder}/slurmctld.log",
            f"SlurmdLogFile={folder}/slurmd.log",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            # No cgroups, accounting or MPI: the smallest cluster that runs jobs.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "ReturnToService=2",
            # Finished jobs stay visible to squeue, which the executor polls
            # (sacct needs an accounting database).
            "MinJobAge=3600",
            f"NodeName={host} CPUs={os.cpu_count() or 1} RealMemory={_memory_mb() * 3 // 4} State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def _check_prerequisites() -> None:
    if os.geteuid() != 0:
        raise ClusterUnavailable("starting slurmctld, slurmd and munged needs root")
    missing = [b for b in (*DAEMONS, *CLIENTS) if shutil.which(b) is None]
    if missing:
        raise ClusterUnavailable(
            f"{', '.join(missing)} not installed (Debian: apt-get install {DEBIAN_PACKAGES})"
        )
    if DEFAULT_CONF.exists() or DEFAULT_CONF.is_symlink():
        raise ClusterUnavailable(f"{DEFAULT_CONF} exists: not replacing a real SLURM setup")


def _start(args: list[str], env: dict[str, str], log: Path) -> None:
    proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False, timeout=60)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
        raise ClusterUnavailable(
            f"{args[0]} did not start (exit {proc.returncode}): {proc.stderr.strip()} {tail}"
        )


def _wait_for_idle_node(env: dict[str, str], folder: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        proc = subprocess.run(
            ["sinfo", "--noheader", "--format=%t"], env=env, capture_output=True, text=True,
            check=False, timeout=30,
        )  # fmt: skip
        state = proc.stdout.strip() or proc.stderr.strip()
        if state == "idle":
            return
        time.sleep(1)
    logs = "".join(
        (folder / name).read_text(errors="replace")[-800:]
        for name in ("slurmctld.log", "slurmd.log")
        if (folder / name).exists()
    )
    raise ClusterUnavailable(f"the node did not become idle within {timeout:.0f} s ({state}); {logs}")


def _stop(folder: Path, env: dict[str, str]) -> None:
    subprocess.run(["scancel", "--full", "--user=root"], env=env, capture_output=True, check=False)
    for name in ("slurmd", "slurmctld", "munged"):
        pid_file = folder / f"{name}.pid"
        if pid_file.exists():
            with suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
    time.sleep(1)


@contextmanager
def single_node_slurm(folder: Path) -> Iterator[dict[str, str]]:
    """Run a one-node SLURM cluster while the block runs; yield the environment to use it.

    The daemons see ``folder`` through a short link in /tmp: slurmd's step sockets live in
    its spool folder, and a Unix socket path may not exceed 108 bytes (a pytest folder such
    as /tmp/pytest-of-root/pytest-134/popen-gw1/<test>/... is longer).
    """
    _check_prerequisites()
    folder.mkdir(parents=True, exist_ok=True)
    alias = Path(tempfile.mkdtemp(prefix="slurm-", dir="/tmp"))
    (alias / "c").symlink_to(folder.resolve(), target_is_directory=True)
    try:
        with _single_node_slurm(alias / "c") as env:
            yield env
    finally:
        shutil.rmtree(alias, ignore_errors=True)


@contextmanager
def _single_node_slurm(folder: Path) -> Iterator[dict[str, str]]:
    for sub in ("state", "spool"):
        (folder / sub).mkdir(exist_ok=True)
    host = socket.gethostname().split(".")[0]
    conf = folder / "slurm.conf"
    conf.write_text(_slurm_conf(folder, host), encoding="utf-8")
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    env = dict(os.environ, SLURM_CONF=str(conf))
    DEFAULT_CONF.parent.mkdir(parents=True, exist_ok=True)
    DEFAULT_CONF.symlink_to(conf)
    try:
        _start(
            [
                "munged", "--force", f"--socket={folder}/munge.sock", f"--key-file={key}",
                f"--pid-file={folder}/munged.pid", f"--log-file={folder}/munged.log",
                f"--seed-file={folder}/munge.seed",
            ],
            env, folder / "munged.log",
        )  # fmt: skip
        _start(["slurmctld", "-f", str(conf)], env, folder / "slurmctld.log")
        _start(["slurmd", "-f", str(conf)], env, folder / "slurmd.log")
        _wait_for_idle_node(env, folder)
        yield env
    finally:
        _stop(folder, env)
        DEFAULT_CONF.unlink(missing_ok=True)
