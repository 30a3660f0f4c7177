#!/usr/bin/env bash
# The TAN study on a GPU: does it train the same as on the CPU, and how fast, batched and not.
#
#   benchmarks/device_tan.sh DATA OUT
#
# DATA holds the authors' usps.npz and usps_mi.npz (the mirror's bnc/ folder); each check's
# output is printed and written to OUT. Run from the repository root on a machine with a CUDA
# GPU and torch; the library runs from src/ (no install needed). Each step has its own time
# limit, so one that hangs does not cost the others; about 8 minutes in all on an H200.
# ONLY="name ..." runs only the steps so named.
set -uo pipefail
data=${1:?usage: benchmarks/device_tan.sh DATA OUT}
out=${2:?usage: benchmarks/device_tan.sh DATA OUT}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
bench=(python3 benchmarks/bench_tan_training.py --device cuda --clock wall)

step() {  # step NAME SECONDS COMMAND...: run COMMAND under a time limit, output to OUT/NAME.txt
    local name=$1 limit=$2
    shift 2
    [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]] && return 0
    echo "== $name: $*"
    timeout "$limit" "$@" 2>&1 | tee "$out/$name.txt"
    echo "== $name: exit ${PIPESTATUS[0]}"
}

step machine 30 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv;
    python3 -c "import torch; print(torch.__version__, torch.cuda.is_available())";
    nproc; lscpu | grep "Model name"'
step same_results 120 python3 benchmarks/check_tan_device.py --data "$data" --device cuda \
    --rows 3000 --epochs 3
step throughput 200 "${bench[@]}" --shapes letter satimage usps mnist \
    --model tan_subset nb tan_random --settings 16 --repeats 3 --json "$out/throughput.json"
# what paper.yaml's GPU part (usps and mnist) costs at those rates
cost=(python3 benchmarks/tan_gpu_cost.py --config config/paper.yaml --datasets bnc_usps mnist)
step gpu_cost 60 "${cost[@]}" --rates "$out/throughput.json" --settings 16
step throughput_64 60 "${bench[@]}" --shapes letter mnist --settings 64 --repeats 2
step phases 50 "${bench[@]}" --phases --shapes letter mnist --settings 16 --repeats 3
# with torch's deterministic kernels: what GPU runs that repeat to the bit cost
step throughput_deterministic 150 "${bench[@]}" --deterministic --shapes letter satimage usps \
    mnist --model tan_subset nb tan_random --settings 16 --repeats 3 \
    --json "$out/throughput_deterministic.json"
step gpu_cost_deterministic 60 "${cost[@]}" --rates "$out/throughput_deterministic.json" \
    --settings 16
step throughput_64_deterministic 60 "${bench[@]}" --deterministic --shapes letter mnist \
    --settings 64 --repeats 2
