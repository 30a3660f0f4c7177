# Paper `mrf`: Liu & Page (2013), latently-grouped parameters in binary pairwise MRFs.
# For now the target prepares the Senate vote matrices; the experiments follow.


rule mrf:
    input:
        datasets=[prepared_dataset(name) for name in config["mrf"]["datasets"]],
