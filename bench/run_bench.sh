#!/usr/bin/env bash
# Runs bench_execute from a build tree and prints the ratio summary.
#   bench/run_bench.sh <build-dir> [extra benchmark flags...]
# The JSON goes to <build-dir>/bench_results.json (or $BENCH_JSON) and, for
# the pinned-placement diagnostics, bench_results_pinned.json next to it;
# bench_memory's and bench_nonrpc's go to bench_results_memory.json and
# bench_results_nonrpc.json.
# Repetitions are interleaved at random so that a burst of load from other
# processes on this shared machine does not land on one benchmark only; the
# whole run takes well under two minutes.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 <build-dir> [benchmark flags...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
bin="$build/bin/bench_execute"
json="${BENCH_JSON:-$build/bench_results.json}"
here=$(cd "$(dirname "$0")" && pwd)

if [[ ! -x "$bin" ]]; then
  echo "$bin not found: build it with ninja -C $build bench_execute" >&2
  exit 1
fi

common=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true
        --benchmark_enable_random_interleaving=true --benchmark_format=json)

# The main suite. timeout: a wedged DSP process must not hang a CI job; a
# normal run takes well under a minute.
timeout 300 "$bin" "${common[@]}" --benchmark_min_time=0.3 --benchmark_filter="-same_cpu|cpus_apart" "$@" >"$json"

# The pinned-placement diagnostics run in a process of their own, after the
# main suite: threads stay where a pin left them until the scheduler has a
# reason to move them (and a client and DSP thread that take turns sleeping
# never give it one), which would skew whatever ran next. A co-located
# spinning trip takes ~1 ms, hence the shorter minimum time.
diag_json="${json%.json}_pinned.json"
timeout 300 "$bin" "${common[@]}" --benchmark_min_time=0.1 --benchmark_filter="same_cpu|cpus_apart" "$@" >"$diag_json"

python3 "$here/summarize.py" "$json" "$diag_json"

# DSP-process memory with external weights / spill-fill buffers: a plain
# program (each configuration in a fresh DSP process), a few seconds.
mem_bin="$build/bin/bench_memory"
mem_json="${json%.json}_memory.json"
if [[ -x "$mem_bin" ]]; then
  echo
  timeout 300 "$mem_bin" --json "$mem_json"
  python3 "$here/summarize_memory.py" "$mem_json"
else
  echo "$mem_bin not found: build it with ninja -C $build bench_memory" >&2
  exit 1
fi

# The Non-RPC domain: bench_nonrpc runs "on the DSP", through openhtp-dsp-run
# (its malloc is the DSP heap's): DSP-heap memory of N contexts sharing one
# spill-fill + VTCM-backup pair vs a pair each, preemption latency of a
# HIGH-priority tiny graph behind a LOW-priority long one, and the tiny
# execute against its own raw ping-pong, next to bench_execute's in-process
# ratio from the main suite above. About ten seconds.
nonrpc_bin="$build/bin/bench_nonrpc"
launcher="$build/bin/openhtp-dsp-run"
nonrpc_json="${json%.json}_nonrpc.json"
echo
if [[ ! -x "$nonrpc_bin" || ! -x "$launcher" ]]; then
  echo "bench_nonrpc CANNOT RUN: $nonrpc_bin or $launcher not found (build them: ninja -C $build bench_nonrpc" \
       "openhtp-dsp-run; a sanitizer tree has neither)" >&2
  exit 1
fi
nonrpc_status=0
timeout 120 "$launcher" "$nonrpc_bin" --json "$nonrpc_json" || nonrpc_status=$?
echo
python3 "$here/summarize_nonrpc.py" "$nonrpc_json" "$json"

# Real CNNs against OpenCV DNN: torchvision ResNet-18 (opset 13) and
# MobileNetV2 (opset 10), random weights with randomised BatchNorm, generated
# into <build-dir>/bench_models (not checked in: ResNet-18 is 45 MB), each
# converted by qnn-onnx-converter to fp32 and uint8 binaries, then
# bench_onnx_models (a few minutes at most). Needs Debian's python3-torch /
# python3-torchvision / python3-onnx, seen only by /usr/bin/python3.
onnx_bin="$build/bin/bench_onnx_models"
converter="$build/bin/qnn-onnx-converter"
models="$build/bench_models"
echo
if ! /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
  echo "bench_onnx_models skipped: /usr/bin/python3 cannot import torch, torchvision and onnx" \
       "(apt-get install python3-torch python3-torchvision python3-onnx)"
elif [[ ! -x "$onnx_bin" || ! -x "$converter" ]]; then
  echo "$onnx_bin or $converter not found: build them with ninja -C $build bench_onnx_models qnn-onnx-converter" >&2
  exit 1
else
  /usr/bin/python3 "$here/models/make_bench_models.py" "$models"
  for m in resnet18 mobilenet_v2; do
    for t in 1 2; do
      "$converter" -i "$models/$m.onnx" -o "$models/${m}_fp32_t$t.bin" --num_hvx_threads $t
      "$converter" -i "$models/$m.onnx" -o "$models/${m}_uint8_t$t.bin" --num_hvx_threads $t \
        --input_list "$models/${m}_calibration_list.txt" --act_bitwidth 8 --use_per_channel_quantization
    done
  done
  timeout 900 "$onnx_bin" --models "$models" --binaries "$models" --runs "${ONNX_BENCH_RUNS:-11}" --threads 1,2
fi

if ((nonrpc_status != 0)); then
  echo "bench_nonrpc failed (exit status $nonrpc_status): see its output above" >&2
  exit 1
fi
