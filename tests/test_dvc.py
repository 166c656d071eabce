"""DVC versions the canonical sets: `dvc repro` builds them, push/pull restore them.

One scratch copy of the project (the working tree, minus generated data) is
built once per module with `dvc repro`, on the real files in ../shared/data and
a small selection of splits. The tests then check what the issue asks for:
dvc.lock pins every output, a second repro does nothing, only the stages whose
params changed rerun, and `dvc push` followed by `dvc pull` into a fresh
`git clone` gives back byte-identical files, both from the default local-folder
remote and over HTTP from a server the test runs on 127.0.0.1. Nothing here
touches the network or the checkout's data/ and .dvc-remote/.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from nlistress.atomic import sha256_file
from nlistress.config import deep_merge

from .support import ROOT, project_params, run_in_group, shared_override

pytestmark = pytest.mark.slow

# The splits built in the scratch project: small, real, and covering a drop.
SELECTION = {"snli": ["dev", "test"], "ocnli": ["dev", "test"]}
# Cheap stress sets over the selection (antonymy and numerical have their own tests).
STRESS_SETS = {"snli/dev": ["word_overlap", "spelling_error"], "ocnli/dev": ["negation"]}
STRESS_AUGMENT = {"snli/dev": ["negation_augmented"]}
STRESS_FILES = {
    "data/sets/stress/word_overlap/snli_dev",
    "data/sets/stress/spelling_error/snli_dev",
    "data/sets/stress/negation/ocnli_dev",
}
# The stages after the canonical tables, in dvc.yaml.
STAGES = ("baselines", "sets", "artifacts", "models", "report", "release")
# dataset -> split -> (rows read, rows kept)
EXPECTED_ROWS = {
    "snli": {"dev": (9842, 9842), "test": (9824, 9824)},
    "ocnli": {"dev": (3000, 2950), "test": (3000, 3000)},
}
# Never copied into the scratch project: generated or machine-local state (top-level
# folders; `models` as a package folder deeper down is code and is copied).
SKIP_TOP = {".git", "data", "logs", "results", "models", ".snakemake", ".dvc-remote", ".venv"}
SKIP_TOP |= {"benchmarks"}
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache"}
SKIP_FILES = {"dvc.lock", ".dvc/config.local"}
SKIP_PREFIXES = (".dvc/cache/", ".dvc/tmp/")


def _project_files() -> list[str]:
    """Relative paths of the working tree's project files (tracked or new, not ignored)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        paths = [p for p in listed.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        paths = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()]
    return sorted(
        p
        for p in paths
        if (ROOT / p).is_file()
        and Path(p).parts[0] not in SKIP_TOP
        and not SKIP_PARTS.intersection(Path(p).parts)
        and p not in SKIP_FILES
        and not p.startswith(SKIP_PREFIXES)
        and not p.endswith((".pyc", ".pyo"))
    )


def _offline_params() -> dict[str, Any]:
    """params.yaml merged with the offline override (absolute local paths), a few splits only."""
    params = deep_merge(project_params(), shared_override())
    # A deep merge cannot remove keys, so the selection is replaced outright.
    params["canonical_splits"] = {name: list(splits) for name, splits in SELECTION.items()}
    params["stress"]["sets"] = STRESS_SETS
    params["stress"]["augment"] = STRESS_AUGMENT
    # A small permuted set (q = 3) and its mini-tree scores (train statistic: SNLI dev).
    params["permute"]["sets"] = {"snli/dev": ["permute"]}
    params["permute"]["augment"] = {}
    params["permute"]["tests"]["permute"]["q"] = 3
    # One swap set that needs no WordNet (Baroni's hypernym pairs).
    params["swap"]["sets"] = {"snli/dev": ["hypernym_in_situ"]}
    # Give-away words and Tables 2-3 on SNLI only.
    params["artifacts"]["giveaway"] = {"snli_dev": ["snli/dev"]}
    params["artifacts"]["baselines"] = {"snli": {"train": "snli/dev", "eval": ["snli/test"]}}
    # One tiny model, trained on SNLI dev, run on SNLI test and one stress set.
    params["models"]["runs"] = {"cbow": ["plain"]}
    params["models"]["training"].update(epochs=1, train_rows=2000, embedding_dim=16, mlp_dim=16)
    params["models"]["evaluate"] = {
        "canonical": ["snli/test"],
        "families": {"stress": ["word_overlap"], "permute": ["permute"], "swap": ["hypernym_in_situ"]},
    }
    return params


class Env:
    """Runs git and DVC in scratch folders with an isolated, offline environment."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        gitconfig = home / "gitconfig"
        gitconfig.write_text(
            "[user]\n\tname = nlistress tests\n\temail = tests@nlistress.invalid\n"
            "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
            encoding="utf-8",
        )
        bindir = str(Path(sys.executable).parent)
        self.env = {
            **os.environ,
            # `snakemake` and `nlistress` (run by the DVC stages) from this interpreter's env.
            "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
            "GIT_CONFIG_GLOBAL": str(gitconfig),
            "GIT_CONFIG_NOSYSTEM": "1",
            "DVC_NO_ANALYTICS": "1",
            "DVC_GLOBAL_CONFIG_DIR": str(home / "dvc-global"),
            "DVC_SYSTEM_CONFIG_DIR": str(home / "dvc-system"),
            "DVC_SITE_CACHE_DIR": str(home / "dvc-site-cache"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
        for name in ("snakemake", "nlistress"):
            if shutil.which(name, path=self.env["PATH"]) is None:
                pytest.fail(f"`{name}` is not on PATH next to {sys.executable}")
        dvc = Path(bindir) / "dvc"
        self.dvc_cmd = [str(dvc)] if dvc.is_file() else [sys.executable, "-m", "dvc"]

    def run(self, args: list[str], cwd: Path) -> str:
        # Its own process group, ended whole on a hang; the limit is for hangs, not speed.
        proc = run_in_group(args, cwd, self.env, timeout=1800)
        if proc.returncode != 0:
            pytest.fail(
                f"{' '.join(args)} (in {cwd}) exited {proc.returncode}\n"
                f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
            )
        return proc.stdout + proc.stderr

    def git(self, *args: str, cwd: Path) -> str:
        return self.run(["git", *args], cwd)

    def dvc(self, *args: str, cwd: Path) -> str:
        return self.run([*self.dvc_cmd, *args], cwd)


def _hashes(project: Path) -> dict[str, str]:
    """sha256 of every file under data/ and results/, by path relative to the project."""
    return {
        p.relative_to(project).as_posix(): sha256_file(p)
        for root in (project / "data", project / "results")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Env:
    return Env(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def built(tmp_path_factory, env: Env) -> tuple[Path, dict[str, str]]:
    """A committed scratch project after `dvc repro` and `dvc push` to its default remote."""
    project = tmp_path_factory.mktemp("project")
    for rel in _project_files():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, project / rel)
    (project / "params.yaml").write_text(
        yaml.safe_dump(_offline_params(), sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    env.git("init", "-q", cwd=project)
    env.git("add", "-A", cwd=project)
    env.git("commit", "-q", "-m", "project", cwd=project)
    env.dvc("repro", cwd=project)
    env.git("add", "dvc.lock", cwd=project)
    env.git("commit", "-q", "-m", "dvc repro", cwd=project)
    # The committed default remote: the folder .dvc-remote/ at the project root.
    env.dvc("push", cwd=project)
    return project, _hashes(project)


def _clone(env: Env, project: Path, dst: Path) -> Path:
    env.git("clone", "-q", str(project), str(dst), cwd=dst.parent)
    assert not (dst / "data").exists()
    return dst


def test_repro_builds_the_selected_canonical_sets(built):
    project, hashes = built
    for dataset, splits in EXPECTED_ROWS.items():
        index = json.loads((project / f"data/canonical/{dataset}/index.json").read_text())
        assert sorted(index["splits"]) == sorted(splits)
        for split, (read, kept) in splits.items():
            assert index["splits"][split]["rows"]["input"] == read
            assert index["splits"][split]["rows"]["kept"] == kept
            table = project / f"data/canonical/{dataset}/{split}.parquet"
            assert pq.read_metadata(table).num_rows == kept
            manifest = project / f"data/canonical/{dataset}/{split}.manifest.json"
            assert (
                json.loads(manifest.read_text())["sha256"]
                == hashes[table.relative_to(project).as_posix()]
            )
    # Only the selected datasets were built.
    assert sorted(p.name for p in (project / "data/canonical").iterdir()) == sorted(SELECTION)


def test_repro_builds_the_sets_with_cards(built):
    project, hashes = built
    built_files = {p for p in hashes if p.startswith("data/sets/")}
    stems = {*STRESS_FILES, "data/sets/permute/permute/snli_dev", "data/sets/swap/hypernym_in_situ/snli_dev"}
    expected = {
        f"{stem}{ext}"
        for stem in stems
        for ext in (".parquet", ".manifest.json", ".card.md", ".audit.json")
    }
    # SNLI sets also hold the predictions of SNLI's hypothesis-only model (the audit's
    # second figure); OCNLI has no entry in artifacts.baselines, so no model.
    expected |= {f"{stem}.hyp_only.parquet" for stem in stems if stem.endswith("/snli_dev")}
    assert built_files == expected
    card = (project / "data/sets/stress/word_overlap/snli_dev.card.md").read_text()
    assert "| hypothesis only, infersent_hyp trained on `data/canonical/snli/dev.parquet` |" in card
    assert (
        pq.read_metadata(project / "data/sets/stress/negation/ocnli_dev.parquet").num_rows == 2950
    )
    augmented = project / "data/augmented/negation_augmented/snli_dev.parquet"
    assert pq.read_metadata(augmented).num_rows == 2 * 9842
    assert (project / "data/unli/minitree/permute/snli_dev.parquet").is_file()


def test_dvc_lock_pins_every_output_and_its_inputs(built):
    project, hashes = built
    lock = yaml.safe_load((project / "dvc.lock").read_text())
    assert sorted(lock["stages"]) == sorted(
        [*(f"canonical@{n}" for n in SELECTION), *STAGES]
    )
    stress = lock["stages"]["sets"]
    assert {out["path"] for out in stress["outs"]} == {"data/sets", "data/augmented", "data/unli"}
    assert "data/canonical" in {dep["path"] for dep in stress["deps"]}
    for name in SELECTION:
        stage = lock["stages"][f"canonical@{name}"]
        assert stage["cmd"] == (
            f"snakemake --cores 1 --allowed-rules download canonical canonical_index -- "
            f"data/canonical/{name}/index.json"
        )
        [out] = stage["outs"]
        assert out["path"] == f"data/canonical/{name}"
        assert out["md5"].endswith(".dir")
        assert out["nfiles"] == 1 + 2 * len(SELECTION[name])
        deps = {dep["path"]: dep["md5"] for dep in stage["deps"]}
        # The code its command runs (tests/code_deps.py), not the whole package.
        assert {"Snakefile", "rules", "workflow/nlistress/canonical.py"} <= set(deps)
        assert "workflow/nlistress/report/render.py" not in deps
        params = stage["params"]["params.yaml"]
        assert params[f"canonical_splits.{name}"] == SELECTION[name]
        assert {f"datasets.{name}", "prepare", "downloads", "download"} <= set(params)
    # The .dir object in the cache lists the md5 of each file of the folder.
    cache = project / ".dvc" / "cache" / "files" / "md5"
    listed = set()
    for name in SELECTION:
        digest = lock["stages"][f"canonical@{name}"]["outs"][0]["md5"]
        entries = json.loads((cache / digest[:2] / digest[2:]).read_text())
        listed |= {f"data/canonical/{name}/{e['relpath']}" for e in entries}
    for stage in STAGES:
        for out in lock["stages"][stage]["outs"]:
            if not out["md5"].endswith(".dir"):  # a single file
                listed.add(out["path"])
                continue
            entries = json.loads((cache / out["md5"][:2] / out["md5"][2:]).read_text())
            listed |= {f"{out['path']}/{e['relpath']}" for e in entries}
    assert listed == set(hashes)


def test_second_repro_has_nothing_to_do(built, env):
    project, hashes = built
    out = env.dvc("repro", cwd=project)
    assert "Data and pipelines are up to date" in out
    assert "Running stage" not in out
    assert "Data and pipelines are up to date" in env.dvc("status", cwd=project)
    assert _hashes(project) == hashes


def test_push_then_pull_from_local_remote_restores_files(built, env, tmp_path):
    project, hashes = built
    remote = project / ".dvc-remote"
    assert (remote / "files" / "md5").is_dir(), "dvc push did not reach the default remote"
    clone = _clone(env, project, tmp_path / "clone")
    # The clone's default remote is its own (empty) .dvc-remote/; override it locally.
    env.dvc("remote", "modify", "--local", "local", "url", str(remote), cwd=clone)
    env.dvc("pull", cwd=clone)
    assert _hashes(clone) == hashes
    assert "Data and pipelines are up to date" in env.dvc("status", cwd=clone)
    # The override stays out of git: the committed default is untouched.
    assert env.git("status", "--porcelain", cwd=clone).strip() == ""


def test_pull_release_restores_only_the_released_sets(built, env, http_remote, tmp_path):
    project, hashes = built
    released = {k: v for k, v in hashes.items() if k.startswith("data/release/")}
    catalogue = json.loads((project / "data/release/catalogue.json").read_text())
    assert catalogue["count"] == len(STRESS_FILES) + 2  # the stress sets, one permuted, one swap
    # The folder is a Hugging Face dataset repository (tests/test_release.py loads it).
    card = yaml.safe_load((project / "data/release/README.md").read_text().split("\n---\n", 1)[0][4:])
    assert card["language"] == ["en", "zh"] and card["multilinguality"] == ["multilingual"]
    assert "data/release/croissant.json" in released
    # The release reports a committed review's rates for exactly the set files it judged.
    judged = {s["sha256"] for path in (ROOT / "reviews").rglob("*.json")
              for s in json.loads(path.read_text(encoding="utf-8"))["sets"]}  # fmt: skip
    assert any(e["sha256"] in judged for e in catalogue["sets"])  # the hypernym_in_situ set
    for entry in catalogue["sets"]:
        assert (entry["judged_rows"] is not None) == (entry["sha256"] in judged), entry["name"]
    for remote in (str(project / ".dvc-remote"), http_remote):
        clone = _clone(env, project, tmp_path / f"clone{len(remote)}")
        env.dvc("remote", "add", "-d", "--local", "release", remote, cwd=clone)
        env.dvc("pull", "release", cwd=clone)
        assert _hashes(clone) == released
        for entry in catalogue["sets"]:
            assert sha256_file(clone / "data/release" / entry["path"]) == entry["sha256"]


def test_the_project_is_a_data_registry_for_dvc_get_and_import(built, env, tmp_path):
    """A user's own repository takes one released set with `dvc import` (and `dvc get`) from the
    project's git URL and its pushed remote, and follows the project with `dvc update`."""
    project, hashes = built
    target = "data/release/stress/word_overlap/snli_dev.parquet"
    url, remote = project.as_uri(), f"url={project / '.dvc-remote'}"
    env.dvc("get", url, target, "-o", str(tmp_path / "got.parquet"), "--remote-config", remote, cwd=tmp_path)
    assert sha256_file(tmp_path / "got.parquet") == hashes[target]

    user = tmp_path / "analysis"
    user.mkdir()
    env.git("init", "-q", cwd=user)
    env.dvc("init", "-q", cwd=user)
    env.dvc("import", url, target, "-o", "word_overlap.parquet", "--remote-config", remote, cwd=user)
    assert sha256_file(user / "word_overlap.parquet") == hashes[target]
    pinned = yaml.safe_load((user / "word_overlap.parquet.dvc").read_text())["deps"][0]["repo"]
    head = env.git("rev-parse", "HEAD", cwd=project).strip()
    assert pinned["url"] == url and pinned["rev_lock"] == head

    env.git("commit", "-q", "--allow-empty", "-m", "a later commit", cwd=project)
    env.dvc("update", "word_overlap.parquet.dvc", cwd=user)
    pinned = yaml.safe_load((user / "word_overlap.parquet.dvc").read_text())["deps"][0]["repo"]
    assert pinned["rev_lock"] == env.git("rev-parse", "HEAD", cwd=project).strip() != head
    assert sha256_file(user / "word_overlap.parquet") == hashes[target]


@pytest.fixture
def http_remote(built) -> Iterator[str]:
    """The pushed remote folder, read-only over HTTP on 127.0.0.1 (a free port)."""
    project, _ = built

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(project / ".dvc-remote"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_pull_from_http_remote_restores_files(built, env, http_remote, tmp_path):
    project, hashes = built
    clone = _clone(env, project, tmp_path / "clone")
    env.dvc("remote", "add", "-d", "--local", "http", http_remote, cwd=clone)
    env.dvc("pull", cwd=clone)
    assert _hashes(clone) == hashes
    assert "Data and pipelines are up to date" in env.dvc("status", cwd=clone)


def test_changed_params_rerun_only_their_stages(built, env, tmp_path):
    project, hashes = built
    clone = _clone(env, project, tmp_path / "clone")
    env.dvc("remote", "modify", "--local", "local", "url", str(project / ".dvc-remote"), cwd=clone)
    env.dvc("pull", cwd=clone)
    # Code deps are per stage (tests/code_deps.py): a change to the report's code marks only
    # the report stage; one to the file readers marks the canonical tables and what follows.
    for module, changed, unchanged in (
        ("report/render.py", ["report:"], ["canonical@", "sets:", "models:", "baselines:"]),
        ("readers.py", ["canonical@snli", "sets:", "models:"], []),
    ):
        path = clone / "workflow/nlistress" / module
        original = path.read_bytes()
        path.write_bytes(original + b"\n# changed\n")
        status = env.dvc("status", cwd=clone)
        assert all(s in status for s in changed) and not any(s in status for s in unchanged), status
        path.write_bytes(original)
    assert "Data and pipelines are up to date" in env.dvc("status", cwd=clone)
    params_file = clone / "params.yaml"
    params = yaml.safe_load(params_file.read_text(encoding="utf-8"))
    params["datasets"]["snli"]["title"] = "SNLI (retitled)"
    params_file.write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True))

    out = env.dvc("repro", cwd=clone)
    assert "Running stage 'canonical@snli'" in out
    assert "Running stage 'canonical@ocnli'" not in out
    # The sets stage reads the registry (licences, titles for the cards): it reruns too.
    assert "Running stage 'sets'" in out
    index = json.loads((clone / "data/canonical/snli/index.json").read_text())
    assert index["title"] == "SNLI (retitled)"
    now = _hashes(clone)
    assert {k: v for k, v in now.items() if "/ocnli/" in k} == {
        k: v for k, v in hashes.items() if "/ocnli/" in k
    }

    # A section every stage reads reruns them all.
    params["prepare"]["parquet_compression"] = "snappy"
    params_file.write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True))
    status = env.dvc("status", cwd=clone)
    assert "canonical@snli" in status and "canonical@ocnli" in status and "sets:" in status
    # One stage is enough to see it rerun (the whole rebuild would add minutes, not checks).
    out = env.dvc("repro", "--single-item", "canonical@ocnli", cwd=clone)
    assert "Running stage 'canonical@ocnli'" in out


def test_adding_a_model_retrains_nothing_already_built(built, env):
    """Last in this module, as it extends the built project: a model added to models.runs reruns
    the models stage, which keeps the trained model and its predictions (persist) and trains only
    the new one; `dvc metrics` and `dvc plots` read the declared scores and figures."""
    project, _ = built
    params_file = project / "params.yaml"
    params = yaml.safe_load(params_file.read_text(encoding="utf-8"))
    params["models"]["runs"] = {**params["models"]["runs"], "bilstm": ["plain"]}
    params_file.write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True), encoding="utf-8")
    kept = sorted(p for root in ("data/models/cbow", "data/predictions/cbow") for p in (project / root).rglob("*")
                  if p.is_file())  # fmt: skip
    assert kept
    before = {p: (sha256_file(p), p.stat().st_mtime_ns) for p in kept}

    status = env.dvc("status", cwd=project)
    assert "models:" in status and "canonical@" not in status and "sets:" not in status
    out = env.dvc("repro", cwd=project)
    assert "Running stage 'models'" in out and "Running stage 'sets'" not in out
    assert (project / "data/models/bilstm/plain/model.safetensors").is_file()
    assert {p: (sha256_file(p), p.stat().st_mtime_ns) for p in kept} == before

    shown = env.dvc("metrics", "show", "--json", cwd=project)
    assert "failed to load" not in shown
    metrics = json.loads(next(line for line in shown.splitlines() if line.startswith("{")))
    accuracy = metrics[""]["data"]["results/metrics/bilstm/plain.json"]["data"]
    assert 0 < accuracy["canonical/snli_test"]["accuracy"] < 1
    plots = env.dvc("plots", "show", "--json", cwd=project)
    assert "results/unli/omega_curve.png" in json.loads(next(line for line in plots.splitlines() if line.startswith("{")))["data"]
