"""Turn every selected dataset split into its canonical Parquet table."""


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


rule canonical:
    """Canonicalise one split: Parquet table plus manifest (rows, drops by reason, sha256)."""
    input:
        unpack(canonical_source),
    output:
        table="data/canonical/{dataset}/{split}.parquet",
        manifest="data/canonical/{dataset}/{split}.manifest.json",
    params:
        source=prepare_args,
        config=lambda w: config_json(
            datasets={w.dataset: config["datasets"][w.dataset]},
            prepare=config.get("prepare", {}),
        ),
    log:
        "logs/canonical/{dataset}/{split}.log",
    shell:
        "nlistress prepare {wildcards.dataset:q} {wildcards.split:q} {params.source:q}"
        " -o {output.table:q} --set-json {params.config:q} 2>&1 | tee {log:q}"


def canonical_manifests(w):
    return [
        f"data/canonical/{w.dataset}/{split}.manifest.json"
        for dataset, split in CANONICAL
        if dataset == w.dataset
    ]


def canonical_indexes():
    return sorted({f"data/canonical/{dataset}/index.json" for dataset, _ in CANONICAL})


rule canonical_index:
    """Per-dataset index of its canonical splits (rows, sha256, source, licence)."""
    input:
        canonical_manifests,
    output:
        "data/canonical/{dataset}/index.json",
    params:
        config=lambda w: config_json(datasets={w.dataset: config["datasets"][w.dataset]}),
    log:
        "logs/canonical/{dataset}/index.log",
    shell:
        "nlistress index {wildcards.dataset:q} {input:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"
