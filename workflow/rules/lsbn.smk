# Paper `lsbn`: LSBN, divide-and-conquer structure learning with model averaging.
# For now the target draws the paper's forward samples; the experiments follow.


rule lsbn:
    input:
        samples=[
            network_samples(name, config["lsbn"]["n_samples"], rep)
            for name in config["lsbn"]["networks"]
            for rep in range(config["lsbn"]["replicates"])
        ],
