"""Models (issue 6): train every (model × variant) of models.runs, run each on every set of
models.evaluate, score them. `snakemake models` builds all of it; `train` and the two
predict rules declare GPU resources (models.resources) for the SLURM profile and run on
the CPU when no GPU is present."""

from nlistress.models.settings import VARIANTS, evaluation_targets, model_spec, runs, split_of

MODELS = config.get("models", {})
MODEL_RUNS = runs(config)
MODEL_EVAL = evaluation_targets(config)
MODEL_RESOURCES = MODELS.get("resources", {})


wildcard_constraints:
    model=_names(MODELS.get("zoo", {})),
    variant="|".join(VARIANTS),


def models_config(w=None):
    return config_json(models=MODELS)


def train_inputs(w):
    """The canonical train (and dev) split, plus the augmentation file of the variant."""
    dataset, split = split_of(config, "train_split")
    inputs = {"train": f"data/canonical/{dataset}/{split}.parquet"}
    dev = split_of(config, "dev_split")
    if dev:
        inputs["dev"] = f"data/canonical/{dev[0]}/{dev[1]}.parquet"
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


rule train:
    """Train one zoo model in one training variant."""
    input:
        unpack(train_inputs),
    output:
        directory("data/models/{model}/{variant}"),
    params:
        config=models_config,
        options=train_options,
    resources:
        **MODEL_RESOURCES.get("train", {}),
    log:
        "logs/models/train/{model}/{variant}.log",
    shell:
        "nlistress train {wildcards.model:q} --variant {wildcards.variant:q} --train {input.train:q}"
        " {params.options:q} -o {output:q} --set-json {params.config:q} 2>&1 | tee {log:q}"


rule predict:
    """Predictions of one trained model on one generated set."""
    input:
        model="data/models/{model}/{variant}",
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
    output:
        "data/predictions/{model}/{variant}/{family}/{test}/{dataset}_{split}.parquet",
    params:
        config=models_config,
    resources:
        **MODEL_RESOURCES.get("predict", {}),
    log:
        "logs/models/predict/{model}/{variant}/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress predict --model {input.model:q} --set {input.table:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule predict_canonical:
    """Predictions of one trained model on one canonical split."""
    input:
        model="data/models/{model}/{variant}",
        table="data/canonical/{dataset}/{split}.parquet",
    output:
        "data/predictions/{model}/{variant}/canonical/{dataset}_{split}.parquet",
    params:
        config=models_config,
    resources:
        **MODEL_RESOURCES.get("predict", {}),
    log:
        "logs/models/predict/{model}/{variant}/canonical/{dataset}_{split}.log",
    shell:
        "nlistress predict --model {input.model:q} --set {input.table:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


def evaluation_pairs(w):
    """(set, predictions) paths of every models.evaluate set for this model and variant."""
    pairs = []
    for family, test, dataset, split in MODEL_EVAL:
        if family == "canonical":
            table = f"data/canonical/{dataset}/{split}.parquet"
            where = f"canonical/{dataset}_{split}"
        else:
            table = f"data/sets/{family}/{test}/{dataset}_{split}.parquet"
            where = f"{family}/{test}/{dataset}_{split}"
        pairs.append((table, f"data/predictions/{w.model}/{w.variant}/{where}.parquet"))
    return pairs


rule score:
    """Accuracy, confusion matrices and false-neutral share of one model on every evaluated set."""
    input:
        sets=lambda w: [s for s, _ in evaluation_pairs(w)],
        predictions=lambda w: [p for _, p in evaluation_pairs(w)],
    output:
        json="results/scores/{model}/{variant}.json",
        md="results/scores/{model}/{variant}.md",
        csv="results/scores/{model}/{variant}.csv",
    params:
        config=lambda w: config_json(permute={"metrics": config.get("permute", {}).get("metrics", {})}),
        pairs=lambda w: [word for s, p in evaluation_pairs(w) for word in ("--set", s, "--predictions", p)],
        run=lambda w: f"{w.model}/{w.variant}",
    log:
        "logs/models/score/{model}/{variant}.log",
    shell:
        "nlistress score --model {params.run:q} {params.pairs:q}"
        " -o {output.json:q} --set-json {params.config:q} 2>&1 | tee {log:q}"


rule models:
    """Every (model × variant) of models.runs trained, run on every evaluated set and scored."""
    input:
        [f"results/scores/{model}/{variant}.json" for model, variant in MODEL_RUNS],
