"""Static checks of the pipeline's wiring: what DVC sees as each stage's code, and the CPU
threads every rule asks for and hands on. Fast: nothing runs."""

from __future__ import annotations

import re

import pytest
import yaml

from .support import ROOT

PACKAGE = ROOT / "workflow" / "nlistress"


def _stages() -> dict[str, dict]:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    return {name: stage.get("do", stage) for name, stage in stages.items()}


def test_every_dvc_stage_depends_on_exactly_the_code_its_command_runs() -> None:
    """A module missing from a stage's deps would let `dvc status` call stale results current;
    one too many reruns (and, without persist, deletes) outputs no changed line can affect.
    Each stage's `workflow/` deps are what tests/code_deps.py derives from the imports of the
    subcommands its rules run; Snakefile and every rule file are deps of every stage."""
    from .code_deps import stage_code_deps

    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    derived = stage_code_deps(stages)
    for name, stage in _stages().items():
        deps = [str(d) for d in stage["deps"]]
        assert {"Snakefile", "rules"} <= set(deps), name
        listed = sorted(d for d in deps if d.startswith("workflow/"))
        missing, extra = sorted(set(derived[name]) - set(listed)), sorted(set(listed) - set(derived[name]))
        assert not missing and not extra, (
            f"dvc stage {name}: misses {missing}, lists {extra} it does not run; "
            "run `python -m tests.code_deps --write`"
        )


def test_code_deps_follow_lazy_imports_and_registries_but_not_other_commands() -> None:
    """The derivation on known cases: a generator reached only through the registry's string,
    a module imported inside a function, package data named by a string; and the modules of
    subcommands a stage does not run stay out."""
    from .code_deps import stage_files

    def names(cmd: str) -> set[str]:
        return {p.relative_to(PACKAGE).as_posix() for p in stage_files(cmd) if PACKAGE in p.parents}

    sets = names(_stages()["sets"]["cmd"])
    assert {"perturb/antonymy.py", "authors/numerical.py", "swap/generators.py"} <= sets  # registry
    assert {"review.py", "cards.py", "schemas/params.schema.yaml", "defaults/params.yaml"} <= sets
    assert not {"report/render.py", "models/score.py", "release.py"} & sets
    canonical = names(_stages()["canonical"]["cmd"])
    assert {"canonical.py", "readers.py", "download.py"} <= canonical
    assert not {"perturb/antonymy.py", "models/train.py", "cards.py"} & canonical
    report = names(_stages()["report"]["cmd"])
    assert {"report/render.py", "report/papers/naik2018.yaml"} <= report


def test_expensive_outputs_persist_and_metrics_and_plots_are_declared() -> None:
    config = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))
    persistent = {
        next(iter(out)) for stage in _stages().values() for out in stage.get("outs", [])
        if isinstance(out, dict) and next(iter(out.values())).get("persist")
    }  # fmt: skip
    assert {"data/models", "data/predictions", "data/baselines"} <= persistent
    assert config["metrics"] == ["results/metrics"]
    assert "results/unli/omega_curve.png" in config["plots"]


def _rules() -> dict[str, str]:
    """Rule name -> its text, over every rule file."""
    rules: dict[str, str] = {}
    for path in (ROOT / "rules").glob("*.smk"):
        text = path.read_text(encoding="utf-8")
        starts = list(re.finditer(r"^\s*rule (\w+):", text, re.M))
        for i, match in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
            rules[match[1]] = text[match.start() : end]
    return rules


def test_every_nlistress_rule_declares_threads_and_hands_them_on() -> None:
    """Snakemake caps `threads:` at --cores and the SLURM plugin turns it into --cpus-per-task;
    `--threads {threads:q}` makes torch, BLAS and OpenMP use exactly that many."""
    running = {name: text for name, text in _rules().items() if '"nlistress ' in text}
    assert len(running) > 20
    for name, text in running.items():
        assert re.search(r"^\s+threads: (1|MODEL_THREADS)$", text, re.M), f"rule {name}: no threads:"
        assert "--threads {threads:q}" in text, f"rule {name}: threads not handed to nlistress"
    model_rules = {n for n, t in running.items() if "threads: MODEL_THREADS" in t}
    assert {"train", "predict", "baseline_train"} <= model_rules
    # predict_canonical, baseline_predict and set_hypothesis_only are `use rule predict as ...`
    reused = set(re.findall(r"use rule predict as (\w+) with:", "".join(_rules().values())))
    assert reused == {"predict_canonical", "baseline_predict", "set_hypothesis_only"}
    slurm = (ROOT / "slurm" / "config.yaml").read_text(encoding="utf-8")
    assert "cpus_per_task" not in yaml.safe_load(slurm).get("default-resources", {})
    assert not any("cpus_per_task" in r for r in yaml.safe_load(slurm).get("set-resources", {}).values())


def test_threads_reach_torch_and_blas() -> None:
    """`--threads N` (every rule passes its job's threads) caps numpy's BLAS, and torch whether
    it is imported before or after; the models' `models.threads` is only the CLI's fallback."""
    import subprocess
    import sys

    code = (
        "import numpy, torch; from nlistress.cli import main; import sys\n"
        "from threadpoolctl import threadpool_info\n"
        "main(['datasets', '--threads', '1'])\n"
        "assert torch.get_num_threads() == 1, torch.get_num_threads()\n"
        "assert all(i['num_threads'] == 1 for i in threadpool_info()), threadpool_info()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = subprocess.run([sys.executable, "-m", "nlistress.cli", "datasets", "--threads", "0"], cwd=ROOT,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "nlistress: error: --threads: expected a positive integer, got 0"
    )


def _schema_words(node: object) -> set[str]:
    """Every key name and enum value anywhere under a schema node."""
    words: set[str] = set()
    if isinstance(node, dict):
        words.update(str(k) for k in (node.get("properties") or {}))
        words.update(str(v) for v in node.get("enum") or [])
        for value in node.values():
            words |= _schema_words(value)
    elif isinstance(node, list):
        for value in node:
            words |= _schema_words(value)
    return words


def test_the_readme_parameter_reference_matches_the_schema() -> None:
    """Each section of params.yaml has its README row, and every key a row names exists in the
    schema under that section (so the reference cannot drift from what is checked)."""
    from nlistress.schema import params_schema

    schema = params_schema()["properties"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Parameters", 1)[1].split("\n\n")[2]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", table, re.M))
    assert set(rows) == set(schema) - {"extends"}
    literals = {"null", "true", "false"}
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))

    def names(node: object) -> set[str]:  # registry entries (test names, datasets) are not schema keys
        return {str(k) for k in node} | {w for v in node.values() for w in names(v)} if isinstance(node, dict) else set()

    for section, text in rows.items():
        words = _schema_words(schema[section]) | names(params[section]) | literals
        named = set(re.findall(r"`([a-z][a-z0-9_.]*)`", text))  # keys, dotted key paths, enum values
        unknown = {w for w in named if w not in words and not set(w.split(".")) <= words}
        assert not unknown, f"README's `{section}` row names {sorted(unknown)}, which the schema lacks"


def test_generators_built_on_the_python_api_are_checked_by_the_schema() -> None:
    """A generator made directly (not through the CLI, which validates params first) still
    refuses a bound the schema sets, e.g. a repeat or q that would multiply every row."""
    from nlistress.errors import ConfigError
    from nlistress.permutations.minitree import N_TAGS
    from nlistress.permutations.permute import Permute
    from nlistress.perturb.tautology import Tautology
    from nlistress.schema import params_schema

    from .support import project_params

    params = project_params()
    stress, permute = params["stress"]["tests"], params["permute"]["tests"]
    with pytest.raises(ConfigError) as caught:
        Tautology("length_mismatch", {**stress["length_mismatch"], "repeat": 10**8}, params)
    assert str(caught.value) == "stress.tests.length_mismatch.repeat: expected a value <= 100, got 100000000"
    with pytest.raises(ConfigError) as caught:
        Permute("permute", {**permute["permute"], "q": 10**9}, params)
    assert str(caught.value) == "permute.tests.permute.q: expected a value <= 1000, got 1000000000"
    schema = params_schema()["properties"]
    assert schema["permute"]["properties"]["minitree"]["properties"]["k"]["maximum"] == N_TAGS


def test_a_generator_declares_the_shared_sections_its_filters_read() -> None:
    """A set job gets the top-level sections its generator declares (`shared_sections`); one
    that runs the source_grammar filter without declaring it would fall back to the defaults
    and miss a --configfile override of `source_grammar`."""
    import sys

    from nlistress.perturb import GENERATORS, generator_class

    for name in GENERATORS:
        cls = generator_class(name)
        runs = "source_grammar" in getattr(sys.modules[cls.__module__], "FILTERS", ())
        assert runs == ("source_grammar" in cls.shared_sections), name
        assert set(cls.shared_sections) <= {"source_grammar"}, name


def test_schema_enums_match_the_code_registries() -> None:
    """The typed specs no longer check names the schema checks; so the schema's lists must be
    the code's own (a new architecture, variant or tokenizer is added in both or fails here)."""
    from nlistress.models.settings import ARCHS, VARIANTS
    from nlistress.models.text import TOKENIZERS, UNKNOWN
    from nlistress.schema import params_schema

    models = params_schema()["properties"]["models"]["properties"]
    zoo = models["zoo"]["additionalProperties"]["properties"]
    assert set(zoo["arch"]["enum"]) == set(ARCHS)
    assert set(models["runs"]["additionalProperties"]["items"]["enum"]) == set(VARIANTS)
    assert set(zoo["tokenizer"]["enum"]) == set(TOKENIZERS)
    assert set(zoo["unknown"]["enum"]) == set(UNKNOWN)
    from nlistress.permutations.tokenize import TOKENIZERS as WORD_TOKENIZERS

    artifacts = params_schema()["properties"]["artifacts"]["properties"]
    assert set(artifacts["tokenizers"]["additionalProperties"]["enum"]) == set(WORD_TOKENIZERS)
    from nlistress.permutations.permute import SIDES
    from nlistress.perturb.spelling import KINDS
    from nlistress.resources import WORDNET_POS

    def entry_keys(family: str) -> dict:
        return params_schema()["properties"][family]["properties"]["tests"]["additionalProperties"]["properties"]

    assert set(entry_keys("stress")["pos"]["items"]["enum"]) == set(WORDNET_POS)
    assert set(entry_keys("stress")["kinds"]["items"]["enum"]) == set(KINDS)
    assert set(entry_keys("permute")["sides"]["items"]["enum"]) == set(SIDES)


def test_every_shipped_params_file_is_valid() -> None:
    """params.yaml, the paper profile and the offline and small overrides pass the schema."""
    from nlistress.config import deep_merge, load_params
    from nlistress.schema import validate_params

    base = load_params([ROOT / "params.yaml"])
    validate_params(base)
    validate_params(load_params([ROOT / "profiles/paper/params.yaml"]))
    shared = deep_merge(base, load_params([ROOT / "tests/shared.yaml"]))
    validate_params(shared)
    validate_params(deep_merge(shared, load_params([ROOT / "profiles/small/params.yaml"])))


def test_a_misspelt_key_stops_snakemake_before_any_job(tmp_path) -> None:
    """The Snakefile checks the resolved config when it loads: `snakemake -n` fails at once,
    naming the key path and what is allowed there (not after every model has trained)."""
    import subprocess
    import sys

    from .support import copy_project

    override = copy_project(tmp_path)
    for text, expected in (
        ("swap:\n  stats:\n    alpah: 0.1\n", "swap.stats.alpah: unknown key (allowed here: alpha, correction"),
        ("permute:\n  metrics:\n    bleu_edgez: [0, 1]\n", "permute.metrics.bleu_edgez: unknown key"),
        ("models:\n  training:\n    max_length: long\n", "models.training.max_length: expected an integer, got 'long'"),
    ):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text, encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(override), str(bad)],
                              cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)  # fmt: skip
        assert proc.returncode != 0
        assert expected in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-1500:]


def test_nlistress_validate_names_the_first_problem(tmp_path) -> None:
    import subprocess
    import sys

    def validate(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "nlistress.cli", "validate", *args], cwd=ROOT,
                              capture_output=True, text=True, check=False)  # fmt: skip

    ok = validate("--params", "params.yaml", "--params", "tests/shared.yaml")
    assert ok.returncode == 0 and "valid" in ok.stdout
    assert validate("--params", "profiles/paper/params.yaml").returncode == 0
    bad = validate("--set-json", '{"models": {"zoo": {"cbow": {"dropout": 2.0}}, "runs": {"cbow": ["plian"]}}}')
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "nlistress: error: params.yaml + --set-json: models.runs.cbow[0]: expected one of plain, negation, "
        "permute, max_entropy, got 'plian' (and 1 more problem(s))"
    )


def test_every_download_is_pinned_and_points_at_bytes_that_cannot_move() -> None:
    """Every entry has a published checksum (sha256, or a SHA-1 where that is all its source
    has) and an https URL that cannot move."""
    from nlistress.atomic import sha256_file

    from .support import SHARED_DATA, project_params

    downloads = project_params()["downloads"]
    for name, entry in downloads.items():
        url = entry["url"]
        assert url.startswith("https://"), f"downloads.{name}: not https"
        assert not re.search(r"/(master|main|gh-pages|HEAD|latest)/", url), f"downloads.{name}: a moving URL"
        if "githubusercontent.com" in url or ("github.com" in url and "/releases/download/" not in url):
            assert re.search(r"/[0-9a-f]{40}/", url), f"downloads.{name}: not pinned to a commit"
    unpinned = {name for name, entry in downloads.items() if not (entry.get("sha256") or entry.get("sha1"))}
    assert not unpinned, f"downloads without a pinned checksum: {sorted(unpinned)}"
    # The pins taken from the shared copies (identical to the files at the pinned commits).
    for download, copy in (("ocnli_dev", "ocnli/dev.json"), ("ocnli_test", "ocnli/test.json"),
                           ("aqua_dev", "aqua_rat/dev.json"), ("aqua_test", "aqua_rat/test.json")):
        assert sha256_file(SHARED_DATA / copy) == downloads[download]["sha256"], download
    assert sha256_file(SHARED_DATA / "lexicons/baroni2012.tsv") == downloads["baroni2012"]["sha256"]


def test_typed_specs_read_their_section_through_the_schema() -> None:
    """A spec built on the Python API, from params nobody validated, names a bad value by its
    key path with the schema's words, and keeps its own check of values that relate."""
    from nlistress.config import deep_merge
    from nlistress.errors import ConfigError
    from nlistress.hypothesis_only.settings import ArtifactSettings

    from .support import project_params

    params = project_params()
    assert ArtifactSettings.from_params(params).thresholds[-1] == 1.0
    for override, message in (
        ({"top_min_p": 1.5}, "artifacts.top_min_p: expected a value <= 1, got 1.5"),
        ({"audit": {"folds": 1}}, "artifacts.audit.folds: expected a value >= 2, got 1"),
        ({"tokenizers": {"en": "spacy"}}, "artifacts.tokenizers.en: expected one of whitespace, jieba, char, got 'spacy'"),
        ({"coverage": {"start": 0.5, "stop": 0.5}}, "artifacts.coverage: start (0.5) must be below stop (0.5)"),
    ):
        with pytest.raises(ConfigError) as caught:
            ArtifactSettings.from_params(deep_merge(params, {"artifacts": override}))
        assert str(caught.value) == message
