"""Fetch official archives and files listed under `downloads` in params.yaml."""


rule download:
    """Download, verify (the pinned sha256 or SHA-1) and unpack one official source into data/raw/."""
    output:
        folder=directory("data/raw/{download}"),
        manifest="data/raw/{download}.manifest.json",
    params:
        config=lambda w: config_json(
            downloads={w.download: config["downloads"][w.download]},
            download=config.get("download", {}),
        ),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/download/{download}.log",
    shell:
        "nlistress download {wildcards.download:q} --dest {output.folder:q}"
        " --manifest {output.manifest:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"
