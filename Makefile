# The two commands of the study:
#   make study   set up .venv and run the whole study, ending with reports/report.html
#   make test    set up .venv and run every check (format, lint, unit, doctests, statistical, workflow tests)
#   make slurm-test  the smoke DAG's em branch on a single-node SLURM started here (root; CI runs it)

PYTHON ?= python3
VENV ?= .venv
CORES ?= all
CONFIG ?= config/config.yaml
BIN := $(VENV)/bin
STAMP := $(VENV)/.bnstudy-installed

.PHONY: study test lint pytest slurm-test report cost clean-results

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,slurm]"
	touch $@

study: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG)
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report reports/report.html

report: $(STAMP)
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report reports/report.html

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow benchmarks
	$(BIN)/ruff format --check src tests workflow benchmarks
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/snakemake --lint --configfile $(CONFIG)

# Unit tests, then the library's docstring examples (a separate run: with --doctest-modules the
# conftest.py files of tests/ would be collected as modules and clash by name).
pytest: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/python -m pytest --doctest-modules src

test: lint pytest

slurm-test: $(STAMP)
	SNAKEMAKE=$(abspath $(BIN))/snakemake .ci/slurm-test

# Expected CPU-hours of config.yaml and paper_cpu.yaml, scaled from a finished run's benchmark
# files (by default a smoke run's: `snakemake --cores all --configfile config/smoke.yaml` first).
MEASURED ?= config/smoke.yaml
MEASURED_DIR ?= logs/benchmarks
cost: $(STAMP)
	$(BIN)/python benchmarks/cost_model.py --measured $(MEASURED) $(MEASURED_DIR) \
		--config config/config.yaml --config config/paper_cpu.yaml

clean-results:
	rm -rf results reports logs benchmarks/results .snakemake
