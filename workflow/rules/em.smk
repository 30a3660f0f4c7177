# Paper `em`: Reed & Mengshoel (2014), EM with parameter sharing.
# For now the target verifies the paper's networks and their summary table; the experiments follow.


rule em:
    input:
        networks=[raw_inputs(name)[0] for name in config["em"]["networks"]],
        table=table("networks", "networks")["csv"],
