"""Everything the rules share: the config check, registry look-ups, selections, input
functions and the config hand-off. The files under rules/ hold only rules."""

import glob
import hashlib
import json
import os
import re
from pathlib import Path, PurePosixPath

from snakemake.exceptions import WorkflowError

from nlistress.hypothesis_only.settings import hypothesis_only_model
from nlistress.config import EXTENDS, DatasetSpec, canonical_targets, test_targets
from nlistress.errors import ConfigError
from nlistress.models.settings import VARIANTS, evaluation_targets, model_spec, runs, split_of
from nlistress.perturb import generator_class
from nlistress.perturb.runner import dataset_language
from nlistress.schema import validate_params
from nlistress.signals import defer_to_a_thread

# A profile's `extends` names its base for `nlistress --params`; here --configfile is
# always merged over params.yaml, so the key has nothing left to say.
config.pop(EXTENDS, None)

# The whole resolved config against schemas/params.schema.yaml before any job is planned:
# a misspelt key or a wrong type fails here, in a second, naming its key path.
try:
    validate_params(config, "config (params.yaml + --configfile)")
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

# (dataset, split) pairs the default target builds; validates the registry up front.
CANONICAL = canonical_targets(config)


#: The last line of a run that stopped early (a failed job, SIGTERM, Ctrl-C).
RESUME_HINT = (
    "nlistress: the run stopped before every job finished; every output written is complete "
    "and kept. Run the same command again to resume (after a kill -9 or a crashed node, "
    "`snakemake --unlock` first); a failed job's log is named above."
)


def _names(mapping):
    """A regex matching exactly the given registry names (never matches if empty)."""
    return "|".join(re.escape(name) for name in mapping) or "(?!)"


def dataset_spec(name):
    return DatasetSpec.from_params(config, name)


def dataset_entry(name, split=None):
    """A dataset's registry entry with only ``split`` among its splits (none without one):
    a job gets the entry it reads, so adding a split to a dataset reruns none of its jobs."""
    entry = config["datasets"][name]
    splits = entry.get("splits") or {}
    return {**entry, "splits": {split: splits[split]} if split in splits else {}}


def json_file(value):
    """``value`` as JSON in logs/config/<sha256 of the content>.json; returns the path.

    A shell command then stays one readable line, and a param naming the file still
    changes exactly when its content does (which is what triggers a rerun).
    """
    text = json.dumps(value, sort_keys=True)
    path = Path("logs/config") / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)  # atomic: parallel dry runs may write the same file
    return str(path)


def config_json(**sections):
    """The resolved config sections a `nlistress` call reads, as `--set-json @FILE`.

    Passing what Snakemake resolved (params.yaml plus any --configfile overrides) keeps
    the rule and the subcommand on exactly the same settings.
    """
    return f"@{json_file(sections)}"


# What `nlistress train` reads of `models` besides its own zoo entry, and what `nlistress
# predict` reads. A job gets these and nothing else, so adding a model to models.runs or a
# set to models.evaluate changes no built job's params and retrains nothing.
TRAIN_KEYS = ("seed", "device", "text", "training")
PREDICT_KEYS = ("device", "predict")


def train_config(model, dataset):
    """The settings one model's training reads: the shared ones, its own zoo entry, the
    language of its training split's ``dataset`` (which picks the tokenizer) and, for ALIGN,
    ``resources`` (its spaCy pipeline)."""
    models = config.get("models", {})
    section = {k: models[k] for k in TRAIN_KEYS if k in models}
    return config_json(
        models={**section, "zoo": {model: models.get("zoo", {}).get(model, {})}},
        datasets={dataset: {"language": dataset_language(config, dataset)}},
        **model_resources_config(model),
    )


def predict_config(w=None):
    """The settings a prediction job reads (the model's own settings come from its folder)."""
    models = config.get("models", {})
    return config_json(models={k: models[k] for k in PREDICT_KEYS if k in models},
                       **model_resources_config(getattr(w, "model", None)))


def needs_resources(model):
    """Whether a zoo model reads `resources` (ALIGN tags words with the spaCy pipeline)."""
    return model is not None and model_spec(config, model).kind == "align"


def model_resources_config(model):
    return {"resources": config.get("resources", {})} if needs_resources(model) else {}


def model_resources(w):
    """The resource downloads (spaCy model) a model's jobs read, for ALIGN."""
    names = config.get("resources", {}).get("downloads", []) if needs_resources(w.model) else []
    return [f"data/raw/{name}.manifest.json" for name in names]


# CPU threads of a training or prediction job (Snakemake's `threads:`, capped by --cores
# and turned into cpus_per_task on SLURM); every other job is single-threaded. Each job
# passes its threads on as `--threads`, which torch, BLAS and OpenMP then use exactly.
MODEL_THREADS = config.get("models", {}).get("threads") or 4


# --- canonical.smk -------------------------------------------------------------

def canonical_source(w):
    """Input files of one split: the download manifest (url) or the local file."""
    source = dataset_spec(w.dataset).split(w.split).source
    if source.kind == "url":
        return {"download": f"data/raw/{source.download}.manifest.json"}
    if source.kind == "local":
        return {"source": source.path}
    return {}


def prepare_args(w):
    """`nlistress prepare` options naming where the split's rows come from (a list: each
    word is shell-quoted by `{params.source:q}`)."""
    source = dataset_spec(w.dataset).split(w.split).source
    if source.kind == "url":
        member = f"data/raw/{source.download}/{source.member}"
        manifest = f"data/raw/{source.download}.manifest.json"
        return ["--source", member, "--download-manifest", manifest]
    if source.kind == "local":
        return ["--source", str(source.path)]
    return []


def canonical_manifests(w):
    return [
        f"data/canonical/{w.dataset}/{split}.manifest.json"
        for dataset, split in CANONICAL
        if dataset == w.dataset
    ]


def canonical_indexes():
    return sorted({f"data/canonical/{dataset}/index.json" for dataset, _ in CANONICAL})


# --- sets.smk ------------------------------------------------------------------

FAMILIES = ("stress", "permute", "swap")
SETS = {family: test_targets(config, family, "sets") for family in FAMILIES}
AUGMENT = [t for family in FAMILIES for t in test_targets(config, family, "augment")]
# generators that load spaCy / WordNet
NEEDS_RESOURCES = ("antonymy", "numerical", "swap_pairs", "spelling_error", "antonymy_authors", "numerical_authors")


def family_of(test):
    return next(f for f in FAMILIES if test in config[f]["tests"])


def test_chain(test):
    """The test and, for a reviewed test (generator `reviewed`), the test whose rows it keeps."""
    settings = config[family_of(test)]["tests"][test]
    return [test, *test_chain(settings["base"])] if settings["generator"] == "reviewed" else [test]


def _set_sections(w):
    """The config sections a set job reads: its family's settings and test (and a reviewed
    test's base test, whose settings it checks), resources, the dataset, and the top-level
    sections its generator declares it reads (`shared_sections`)."""
    family = family_of(w.test)
    section = {k: v for k, v in config[family].items() if k not in ("sets", "augment", "tests")}
    tests = {t: config[family]["tests"][t] for t in test_chain(w.test)}
    # a reviewed test runs its base test, which reads its own shared sections
    shared = dict.fromkeys(name for t in tests for name in generator_class(tests[t]["generator"]).shared_sections)
    return {
        family: {**section, "tests": tests},
        **{name: config.get(name, {}) for name in shared},
        "resources": config.get("resources", {}),
        "datasets": {w.dataset: dataset_entry(w.dataset, w.split)},
        "prepare": config.get("prepare", {}),
    }


def set_config(w):
    """The config a set job needs (`_set_sections`)."""
    return config_json(**_set_sections(w))


def card_config(w):
    """A card job's config: its set's, and the review targets a measured rate is set against."""
    targets = (config.get("review") or {}).get("targets", {})
    return config_json(**_set_sections(w), review={"targets": targets})


def set_inputs(w):
    """The canonical split, plus the NLP resource downloads for generators that need them; for a
    reviewed test, those of the base test it runs and the review CSVs of that split."""
    family = family_of(w.test)
    test = config[family]["tests"][w.test]
    inputs, base = {}, w.test
    if test["generator"] == "reviewed":  # the base test's inputs, and the review CSVs it keeps rows by
        key = f"{w.dataset}/{w.split}"
        reviews = test.get("reviews", {}).get(key)
        if not reviews:  # an input no rule makes, so that this rule never claims another's file
            # ("mnli_dev_matched.hyp_only.parquet"), and a request for such a set says what is missing
            return {"review": f"no review of {key} in {family}.tests.{w.test}.reviews"}
        for i, path in enumerate([reviews] if isinstance(reviews, str) else reviews):
            inputs[f"review{i}"] = path
        base = test["base"]
        test = config[family]["tests"][base]
    inputs["table"] = f"data/canonical/{w.dataset}/{w.split}.parquet"
    if test["generator"] in NEEDS_RESOURCES:
        for name in config.get("resources", {}).get("downloads", []):
            inputs[name] = f"data/raw/{name}.manifest.json"
    if family == "swap":
        inputs.update(swap_inputs(base))
    return inputs


def swap_inputs(test):
    """A swap set also reads the training split (polarity, unseen) and its lexicon."""
    section = config["swap"]
    train = section.get("train_table")
    if not train:
        dataset, _, split = section["train"].partition("/")
        train = f"data/canonical/{dataset}/{split}.parquet"
    inputs = {"train": train}
    lexicons = section.get("lexicons", {})
    if section["tests"][test].get("relation") == "hypernym":
        hypernyms = lexicons.get("hypernyms", {})
        if hypernyms.get("source") == "baroni2012" and hypernyms.get("download"):
            inputs["lexicon"] = f"data/raw/{hypernyms['download']}.manifest.json"
    elif lexicons.get("antonyms", {}).get("path"):
        inputs["lexicon"] = lexicons["antonyms"]["path"]
    return inputs


# With the WordNet source, the antonym list is an artifact of its own: walking WordNet
# once here instead of in every swap job.
ANTONYMS = config.get("swap", {}).get("lexicons", {}).get("antonyms", {})


def review_summary(w):
    """The human-review summary that covers this set, if any (reviews/ is in git).

    A summary may cover several sets (the numerical test's AQuA-RAT dev and
    test are judged together); it lists each set file it judged under `sets`.
    Where several cover it (a sample and a census), the one with the most judged
    rows is the card's measure, as it is the release's (`nlistress release`). Paper
    mode writes the same file names, so only a summary of a build of this config's
    mode covers it (one that names no mode predates paper-mode reviews and covers any).
    A default-mode card also gets the review of the paper-mode build of the same set,
    if there is one (`paper_review`), to quote beside the paper's own figure.
    """
    mode = generator_class(config[w.family]["tests"][w.test]["generator"]).mode
    found = {"review": _covering_review(w, mode)}
    if mode == "precise":  # the paper-mode build's review, quoted beside the paper's own figure
        found["paper_review"] = _covering_review(w, "paper", named=True)
    return {key: path for key, path in found.items() if path}


def _covering_review(w, mode, named=False):
    """The summary with the most judged rows of this set file built in ``mode`` (a summary that
    names no mode counts for any, unless ``named``), or None."""
    name = f"{w.dataset}_{w.split}.parquet"
    covering = []
    for path in sorted(glob.glob(f"reviews/{w.family}/{w.test}/*.json")):
        with open(path, encoding="utf-8") as handle:
            summary = json.load(handle)
        if any(s.get("set") == name and s.get("mode", None if named else mode) == mode
               for s in summary.get("sets", [])):
            covering.append((-summary.get("reviewed", 0), path))
    return min(covering)[1] if covering else None


def family_outputs(family):
    cards = [f"data/sets/{family}/{t}/{d}_{s}.card.md" for t, d, s in SETS[family]]
    augmented = [
        f"data/augmented/{t}/{d}_{s}.parquet"
        for t, d, s in AUGMENT
        if family_of(t) == family
    ]
    return cards + augmented


# --- unli.smk ------------------------------------------------------------------

MINITREE = config["permute"].get("minitree", {})
MINITREE_TRAIN = MINITREE.get("train", "")
MINITREE_SETS = [
    (d, s)
    for t, d, s in SETS["permute"]
    if t == "permute" and config["datasets"][d].get("language", "en") == "en"
]


def minitree_config(w=None):
    return config_json(
        permute={"minitree": MINITREE}, resources=config.get("resources", {})
    )


# --- artifacts.smk -------------------------------------------------------------


ARTIFACTS = config.get("artifacts", {})
# Analyses and baseline datasets with nothing selected (e.g. in an offline override) are skipped.
GIVEAWAY = {name: splits for name, splits in ARTIFACTS.get("giveaway", {}).items() if splits}
BASELINES = {d: b for d, b in ARTIFACTS.get("baselines", {}).items() if b.get("eval")}
GIVEAWAY_FILES = ("top_words.csv", "top_words.md", "coverage.csv", "coverage.png", "words.json")
BASELINE_FILES = [f"table{n}.{ext}" for n in (2, 3) for ext in ("md", "csv", "tex")] + ["baselines.json"]
HYP_MODEL = hypothesis_only_model(config)
# Where one dataset's hypothesis-only predictor keeps its model and predictions.
PREDICTOR = HYP_MODEL or "bow"


# The selections (which analyses, which baseline datasets, which model) are read by the
# Snakefile alone; a job gets the word-statistics settings, so that adding an analysis or a
# baselines dataset changes no built audit's params.
SELECTION_KEYS = ("giveaway", "baselines", "hypothesis_only_model")


def artifacts_config(*datasets):
    """The artifacts settings the analyses read, plus the registry entries of ``datasets`` (their language)."""
    return config_json(
        artifacts={k: v for k, v in ARTIFACTS.items() if k not in SELECTION_KEYS},
        datasets={d: dataset_entry(d) for d in datasets},
    )


def canonical_path(dataset_split):
    return f"data/canonical/{dataset_split}.parquet"


def predictions_of(dataset):
    """Hypothesis-only predictions on every evaluation split of one baselines dataset."""
    return [f"data/baselines/{PREDICTOR}/{dataset}/{'_'.join(PurePosixPath(s).parts)}.parquet"
            for s in BASELINES[dataset]["eval"]]


def set_model_inputs(w):
    """The set's dataset's hypothesis-only model and its predictions on the set, where one is trained."""
    if not HYP_MODEL or w.dataset not in BASELINES:
        return {}
    return {
        "model": f"data/baselines/{HYP_MODEL}/{w.dataset}/model",
        "predictions": f"data/sets/{w.family}/{w.test}/{w.dataset}_{w.split}.hyp_only.parquet",
    }


# --- release.smk ---------------------------------------------------------------

RELEASED = [
    f"data/sets/{family}/{test}/{dataset}_{split}.parquet"
    for family in config["release"]["families"]
    for test, dataset, split in SETS[family]
]
# Every review of a released family's test (reviews/ is in git); the release reports a
# review's rates only for the set files it judged, matched by sha256.
RELEASE_REVIEWS = sorted(
    path
    for family in config["release"]["families"]
    for test in config[family]["tests"]
    for path in glob.glob(f"reviews/{family}/{test}/*.json")
)


# --- models.smk ----------------------------------------------------------------


MODELS = config.get("models", {})
MODEL_RUNS = runs(config)
MODEL_RESOURCES = MODELS.get("resources", {})
# The sets each trained model runs on: models.evaluate, in its training split's language.
MODEL_EVAL = {model: evaluation_targets(config, model) for model in {m for m, _ in MODEL_RUNS}}


def model_eval(model):
    """(family, test, dataset, split) of every set ``model`` is evaluated on."""
    if model not in MODEL_EVAL:
        MODEL_EVAL[model] = evaluation_targets(config, model)
    return MODEL_EVAL[model]


def train_split(model):
    """(dataset, split) a model trains on: its zoo entry's train_split, else models.train_split."""
    return split_of(config, "train_split", model)


def train_inputs(w):
    """The canonical train (and dev) split, plus the augmentation file of the variant."""
    dataset, split = train_split(w.model)
    inputs = {"train": f"data/canonical/{dataset}/{split}.parquet"}
    dev = split_of(config, "dev_split", w.model)
    if dev:
        inputs["dev"] = f"data/canonical/{dev[0]}/{dev[1]}.parquet"
    inputs["resources"] = model_resources(w)
    tests = MODELS.get("augment_tests", {})
    roles = {"negation": ["negation"], "permute": ["permuted"], "max_entropy": ["permuted"]}
    for role in roles.get(w.variant, []):
        inputs[role] = f"data/augmented/{tests[role]}/{dataset}_{split}.parquet"
    glove = model_spec(config, w.model).settings.get("glove")
    download = glove_download(glove) if glove else None
    if download:
        inputs["glove"] = f"data/raw/{download}.manifest.json"
    return inputs


def glove_download(path):
    """The `downloads` entry whose folder holds a model's GloVe file (data/raw/<name>/...), if any."""
    parts = str(path).split("/")
    if len(parts) > 3 and parts[:2] == ["data", "raw"] and parts[2] in config.get("downloads", {}):
        return parts[2]
    return None


def train_options(w, input):
    """`--dev`, `--negation`, `--permuted` with their files (a list: `{params.options:q}` quotes each)."""
    return [word for role in ("dev", "negation", "permuted") if role in input.keys()
            for word in (f"--{role}", str(input[role]))]


def evaluation_pairs(w):
    """(set, predictions) paths of every models.evaluate set for this model and variant."""
    pairs = []
    for family, test, dataset, split in model_eval(w.model):
        if family == "canonical":
            table = f"data/canonical/{dataset}/{split}.parquet"
            where = f"canonical/{dataset}_{split}"
        else:
            table = f"data/sets/{family}/{test}/{dataset}_{split}.parquet"
            where = f"{family}/{test}/{dataset}_{split}"
        pairs.append((table, f"data/predictions/{w.model}/{w.variant}/{where}.parquet"))
    return pairs


# --- tables.smk ----------------------------------------------------------------

def family_eval(model, family):
    """(test, dataset, split) of the sets of one family a model is evaluated on."""
    return [(t, d, s) for f, t, d, s in model_eval(model) if f == family]


def run_name(model, variant):
    """A model's name in the tables: `infersent.negation` (model, then training variant)."""
    return f"{model}.{variant}"


def unli_runs():
    """Permuted set, its predictions, and the predictions on the unpermuted split."""
    runs = []
    for model, variant in MODEL_RUNS:
        pred = f"data/predictions/{model}/{variant}"
        for test, dataset, split in family_eval(model, "permute"):
            run = {
                "model": run_name(model, variant),
                "set": f"data/sets/permute/{test}/{dataset}_{split}.parquet",
                "predictions": f"{pred}/permute/{test}/{dataset}_{split}.parquet",
                "original_predictions": f"{pred}/canonical/{dataset}_{split}.parquet",
                "canonical": f"data/canonical/{dataset}/{split}.parquet",
            }
            if test == "permute" and (dataset, split) in MINITREE_SETS:
                run["minitree"] = f"data/unli/minitree/permute/{dataset}_{split}.parquet"
            runs.append(run)
    return runs


def swap_runs():
    """Each swap set holds an experiment's control and transformed rows, so one file serves both."""
    return [
        {
            "model": run_name(model, variant),
            "control": f"data/sets/swap/{test}/{dataset}_{split}.parquet",
            "predictions_control": f"data/predictions/{model}/{variant}/swap/{test}/{dataset}_{split}.parquet",
        }
        for model, variant in MODEL_RUNS
        for test, dataset, split in family_eval(model, "swap")
    ]


def evaluated_sets_and_predictions(w):
    """(set, predictions) of every models.evaluate set of a family (canonical splits excluded:
    `nlistress evaluate` adds each set's original split itself)."""
    return [(table, pred) for table, pred in evaluation_pairs(w) if not table.startswith("data/canonical/")]


def original_predictions(w):
    """The predictions on the original split of every evaluated permuted set (Sinha et al.'s metrics)."""
    return sorted({f"data/predictions/{w.model}/{w.variant}/canonical/{d}_{s}.parquet"
                   for _, d, s in family_eval(w.model, "permute")})


def run_files(runs):
    return sorted({path for run in runs for key, path in run.items() if key != "model"})


REPORT_FILES = ["results/REPORT.md", "results/report.csv"]


# The software environment every rule runs in under `snakemake --use-conda`.
CONDA_ENV = "../workflow/envs/nlistress.yaml"
