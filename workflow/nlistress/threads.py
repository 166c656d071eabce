"""CPU threads: every numeric library in a job uses exactly the threads the job was given.

Snakemake passes a rule's ``threads`` (capped by ``--cores`` locally, turned into
``cpus_per_task`` on SLURM) as ``--threads N``. Without a limit, torch, BLAS and
OpenMP each size their pools to the whole machine, so jobs running side by side
oversubscribe the cores, and a SLURM job's allocation is ignored.
"""

from __future__ import annotations

import os
import sys

from .errors import ConfigError

# Read by OpenMP, OpenBLAS, MKL and the like when their pools are first created.
_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
_limit: int | None = None


def limit_threads(threads: int) -> None:
    """Cap this process (and its children) at ``threads`` CPU threads in every library.

    Environment variables cover libraries not loaded yet (and child processes);
    threadpoolctl resizes the pools of those already loaded (numpy's BLAS); torch,
    when loaded, gets its intra-op count set directly.
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"--threads: expected a positive integer, got {threads!r}")
    global _limit
    _limit = threads
    for name in _ENV_VARS:
        os.environ[name] = str(threads)
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)
    if "torch" in sys.modules:
        set_torch_threads(threads)


def set_torch_threads(threads: int) -> None:
    """torch's intra-op thread count (torch reads OMP_NUM_THREADS only when first imported)."""
    import torch

    torch.set_num_threads(threads)


def configured_threads() -> int | None:
    """The limit ``limit_threads`` set for this process, if any."""
    return _limit
