# Benchmark Bayesian networks: forward-sampled datasets.
#
# results/samples/<network>/n=<n>/rep=<rep>.npz   n forward samples (state indices, one column per
#                                                 node in topological order), seeded by the wildcards


# Draw n samples from a benchmark network, vectorized over samples.
rule sample_network:
    input:
        network=network_input,
    output:
        samples=network_samples("{network}", "{n}", "{rep}"),
    log:
        "logs/sample_network/{network}/n={n}/rep={rep}.log",
    benchmark:
        "logs/benchmarks/sample_network/{network}/n={n}/rep={rep}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("sample_network.py"),
        seed=lambda wildcards: seed_for(
            "sample_network", wildcards.network, wildcards.n, wildcards.rep
        ),
    message:
        "Sampling {wildcards.n} rows from {wildcards.network} (rep {wildcards.rep})"
    script:
        "../scripts/sample_network.py"
