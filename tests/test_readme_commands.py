"""The README's commands, as written: "Your own data" from a folder outside the project,
and the Quick start routes as dry runs. A command the README shows must work."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .support import ROOT, SHARED_DATA, copy_project

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str) -> list[str]:
    """The command lines of the first bash block after ``heading``."""
    section = README.split(heading, 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, heading
    return [line for line in block[1].splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _env() -> dict[str, str]:
    bindir = str(Path(sys.executable).parent)
    return dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                NLTK_DATA=str(SHARED_DATA.parent / "nltk_data"))  # fmt: skip


def test_your_own_data_commands_work_from_any_folder(tmp_path: Path) -> None:
    lines = (SHARED_DATA / "snli/snli_1.0_dev.jsonl").read_text(encoding="utf-8").splitlines()[:40]
    (tmp_path / "my_dev.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    zh = (SHARED_DATA / "ocnli/dev.json").read_text(encoding="utf-8").splitlines()[:20]
    (tmp_path / "my_chinese.jsonl").write_text("\n".join(zh) + "\n", encoding="utf-8")
    # The user's model said "entailment" for every row, keyed by the documented uids.
    (tmp_path / "my_predictions.jsonl").write_text("".join(
        json.dumps({"uid": f"custom:my_dev:{i}", "prediction": "entailment"}) + "\n" for i in range(1, 41)
    ))  # fmt: skip
    commands = _block_after("### Your own data")
    assert len(commands) >= 5 and all(c.startswith("nlistress ") for c in commands)
    for command in commands:
        proc = subprocess.run(shlex.split(command), cwd=tmp_path, env=_env(), capture_output=True, text=True,
                              check=False, timeout=600)  # fmt: skip
        assert proc.returncode == 0, f"{command}\n{proc.stderr[-2000:]}"
        assert "no params.yaml in" in proc.stderr  # said once, with where the defaults are
    scores = json.loads((tmp_path / "my_scores.json").read_text())
    entailment = sum(json.loads(line)["gold_label"] == "entailment" for line in lines)
    scored = scores["sets"][0]
    assert scored["rows"]["scored"] == 40 and scored["accuracy"] == pytest.approx(entailment / 40)
    assert scored["set_path"] == "my_dev.jsonl"
    assert scored["rows"]["read"]["input"] == 40  # what reading the user's file kept and dropped
    assert scored["rows"]["read"]["input"] == scored["rows"]["read"]["kept"] + sum(scored["rows"]["read"]["dropped"].values())
    assert not (tmp_path / "params.yaml").exists()


@pytest.mark.slow
def test_quick_start_routes_plan_their_jobs(tmp_path: Path) -> None:
    """The routes of the Quick start table, dry run in a copy of the project (the real runs are
    tests/test_snakemake.py's): each command as written plans its jobs without an error."""
    copy_project(tmp_path)
    table = README.split("Which route, and what it costs", 1)[1].split("\n\n", 2)[1]
    commands = [c for c in re.findall(r"\| `(snakemake [^`]+)` \|", table) if "slurm" not in c]
    assert len(commands) == 2
    for command in commands:
        proc = subprocess.run([sys.executable, "-m", *shlex.split(command), "-n"], cwd=tmp_path, env=_env(),
                              capture_output=True, text=True, check=False, timeout=300)  # fmt: skip
        assert proc.returncode == 0, f"{command}\n{(proc.stdout + proc.stderr)[-2000:]}"
        assert "Job stats:" in proc.stdout + proc.stderr
