"""The release: every set of the families in `release.families`, with cards and manifests,
copied into data/release/ with a catalogue. `dvc pull release` fetches exactly this."""

RELEASED = [
    f"data/sets/{family}/{test}/{dataset}_{split}.parquet"
    for family in config["release"]["families"]
    for test, dataset, split in SETS[family]
]


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
    log:
        "logs/release.log",
    shell:
        "nlistress release {input.sets:q} -o {output:q} --set-json {params.config:q} 2>&1 | tee {log:q}"
