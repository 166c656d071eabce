"""The release: every set of the families in `release.families`, with cards and manifests,
copied into data/release/ with a catalogue. `dvc pull release` fetches exactly this."""


rule release:
    """Assemble the released sets and write catalogue.json / catalogue.csv / CATALOGUE.md."""
    input:
        sets=RELEASED,
        cards=[path.removesuffix(".parquet") + ".card.md" for path in RELEASED],
    output:
        directory("data/release"),
    params:
        config=lambda w: config_json(
            datasets=config["datasets"],
            **{family: {"tests": config[family]["tests"]} for family in FAMILIES},
        ),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/release.log",
    shell:
        "nlistress release {input.sets:q} -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"
