# Paper `tan`: Roth & Pernkopf (2020), differentiable TAN structure learning.
# For now the target prepares the paper's datasets and conditional-MI graphs; the experiments follow.


rule tan:
    input:
        datasets=[prepared_dataset(name) for name in config["tan"]["datasets"]],
        mi_graphs=[
            raw_path(path)
            for name in config["tan"]["mi_graphs"]
            for path in DATASETS[name].files
            if path.endswith("_mi.npz")
        ],
