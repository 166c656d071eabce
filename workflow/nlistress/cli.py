"""The ``nlistress`` command: one subcommand per pipeline step.

Snakemake rules call these subcommands, so each step runs the same way by
hand, in tests and on a cluster node. Each stage's package registers its own
subcommands (``register(sub)`` in its ``commands`` module); this module only
assembles the parser and runs a command with one-line errors. Configuration is
read the same way everywhere (``cli_support.params_from_args``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__, canonical_commands
from .atomic import replacing_any_folder
from .errors import ConfigError, NlistressError
from .evaluation import commands as evaluation_commands
from .hypothesis_only import commands as hypothesis_only_commands
from .models import commands as models_commands
from .permutations import commands as permutations_commands
from .perturb import commands as perturb_commands
from .report import commands as report_commands
from .swap import commands as swap_commands
from .swap_statistics import commands as swap_statistics_commands
from .threads import limit_threads

log = logging.getLogger("nlistress")

# Subcommands that live with their own stage's package: each module's
# `register(sub)` adds its parsers, so a stage's CLI sits next to its code.
_EXTENSIONS: list[Callable[[argparse._SubParsersAction], None]] = [
    canonical_commands.register,
    perturb_commands.register,
    permutations_commands.register,
    hypothesis_only_commands.register,
    swap_commands.register,
    swap_statistics_commands.register,
    models_commands.register,
    evaluation_commands.register,
    report_commands.register,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nlistress",
        description="Build, version and score NLI robustness test suites.",
    )
    parser.add_argument("--version", action="version", version=f"nlistress {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for register in _EXTENSIONS:
        register(sub)
    for command in sub.choices.values():
        command.add_argument(
            "--force", action="store_true",
            help="replace an existing output folder this tool did not create (default: refuse)",
        )  # fmt: skip
    return parser


#: argument names that hold what a command writes; every other path argument is read
OUTPUT_ARGS = ("output", "dest", "manifest", "dropped")


def refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """An output file that is also an input (``perturb -i X -o X``) would destroy the user's data."""
    values = vars(args)
    inputs: dict[Path, str] = {}
    for name, value in values.items():
        if name in OUTPUT_ARGS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Path) and item.exists():
                inputs[item.resolve()] = name
    for name in OUTPUT_ARGS:
        out = values.get(name)
        # a folder may be both (`report --results results -o results` adds files to it)
        if isinstance(out, Path) and out.is_file() and out.resolve() in inputs:
            raise ConfigError(f"--{name} {out}: it is also the --{inputs[out.resolve()].replace('_', '-')} "
                              "input; refusing to overwrite an input (write somewhere else)")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="nlistress %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        refuse_overwriting_inputs(args)
        if getattr(args, "threads", None) is not None:
            limit_threads(args.threads)
        with replacing_any_folder(bool(getattr(args, "force", False))):
            args.func(args)
    except NlistressError as exc:
        print(f"nlistress: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlistress: interrupted; no partial output was kept", file=sys.stderr)
        return 130
    except OSError as exc:  # disk full, a name too long, permissions: the system's word for it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"nlistress: error: {where}{exc.strerror or exc}; no partial output was kept", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
