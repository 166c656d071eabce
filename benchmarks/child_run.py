"""Time one `nlistress` subcommand in a fresh process, as a pipeline job runs it.

The benchmarks measure each step the way Snakemake runs it: a new process,
nothing cached from an earlier step. `os.wait4` gives the child's own peak RSS
(RUSAGE_CHILDREN would report the largest of all children so far).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def run_nlistress(args: list[str], params: Path) -> tuple[float, float]:
    """Wall seconds (start-up included) and peak RSS in MB of ``nlistress ARGS --params PARAMS``."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    start = time.perf_counter()
    child = subprocess.Popen(["nlistress", "-q", *args, "--params", str(params)], env=env)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    return elapsed, usage.ru_maxrss / 1024
