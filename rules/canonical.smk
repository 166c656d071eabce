"""Turn every selected dataset split into its canonical Parquet table."""


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
            datasets={w.dataset: dataset_entry(w.dataset, w.split)},
            prepare=config.get("prepare", {}),
        ),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/canonical/{dataset}/{split}.log",
    shell:
        "nlistress prepare {wildcards.dataset:q} {wildcards.split:q} {params.source:q}"
        " -o {output.table:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule canonical_index:
    """Per-dataset index of its canonical splits (rows, sha256, source, licence)."""
    input:
        canonical_manifests,
    output:
        "data/canonical/{dataset}/index.json",
    params:
        config=lambda w: config_json(datasets={w.dataset: config["datasets"][w.dataset]}),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/canonical/{dataset}/index.log",
    shell:
        "nlistress index {wildcards.dataset:q} {input:q} -o {output:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"
