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

# Real models against OpenCV DNN and ONNX Runtime: torchvision ResNet-18
# (opset 13), MobileNetV2 (opset 10), EfficientNet-B0 (opset 13) and a 2-layer
# torch.nn.TransformerEncoder (seq 128, d 256), random weights with randomised
# BatchNorm, generated into <build-dir>/bench_models (not checked in: ResNet-18
# is 45 MB), each converted by qnn-onnx-converter to fp32 and uint8 binaries,
# then bench_onnx_models (a few minutes at most). This machine's fp32 GEMM rate
# (bench_gemm_peak, dnnl_sgemm) is measured inside that run, 1024^3 (~20-40 ms,
# as long as a model's run) taking turns with the models like one more engine,
# and on its own at 2048^3 just before and just after it, so that each model's
# GFLOP/s can be put against it (bench/summarize_models.py). Needs
# Debian's python3-torch / python3-torchvision / python3-onnx, seen only by
# /usr/bin/python3.
onnx_bin="$build/bin/bench_onnx_models"
gemm_bin="$build/bin/bench_gemm_peak"
converter="$build/bin/qnn-onnx-converter"
models="$build/bench_models"
onnx_status=0

# ONNX Runtime (CPU) as a peer in the same run: npm's onnxruntime-node,
# pinned in bench/ort_peer/package.json, installed into <build-dir>/ort_peer
# for the benchmark only (never for the build or the tests). Without node, npm
# or the network the peer is skipped, with one line that says why.
ort_args=()
ort_setup_done=
setup_ort_peer() {
  local dir="$build/ort_peer" want have
  ort_setup_done=1
  if ! command -v node >/dev/null 2>&1; then
    echo "ONNX Runtime peer skipped: node not found (apt-get install nodejs npm)"
    return
  fi
  mkdir -p "$dir"
  cp "$here/ort_peer/package.json" "$dir/package.json"
  want=$(node -p "require('$here/ort_peer/package.json').dependencies['onnxruntime-node']")
  have=$(node -p "try { require('$dir/node_modules/onnxruntime-node/package.json').version } catch (e) { '' }")
  if [[ "$have" != "$want" ]]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "ONNX Runtime peer skipped: npm not found (apt-get install npm)"
      return
    fi
    # ONNXRUNTIME_NODE_INSTALL=skip: its postinstall would fetch the CUDA EP
    # binaries, which a CPU benchmark does not need.
    if ! ONNXRUNTIME_NODE_INSTALL=skip timeout 300 npm install --prefix "$dir" --no-audit --no-fund \
        --loglevel=error >"$dir/npm.log" 2>&1; then
      echo "ONNX Runtime peer skipped: npm install onnxruntime-node@$want failed (no network?):" \
           "$(grep -m1 -i 'err' "$dir/npm.log" || tail -n1 "$dir/npm.log")"
      return
    fi
  fi
  if ! NODE_PATH="$dir/node_modules" node -e "require('onnxruntime-node')" >"$dir/load.log" 2>&1; then
    echo "ONNX Runtime peer skipped: onnxruntime-node@$want does not load: $(head -n1 "$dir/load.log")"
    return
  fi
  echo "ONNX Runtime peer: onnxruntime-node@$want (CPU EP) from $dir/node_modules"
  ort_args=(--ort-runner "$here/ort_peer/run.js" --ort-node-path "$dir/node_modules")
}

echo
if ! /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
  echo "bench_onnx_models skipped: /usr/bin/python3 cannot import torch, torchvision and onnx" \
       "(apt-get install python3-torch python3-torchvision python3-onnx)"
elif [[ ! -x "$onnx_bin" || ! -x "$converter" || ! -x "$gemm_bin" ]]; then
  echo "$onnx_bin, $gemm_bin or $converter not found: build them with" \
       "ninja -C $build bench_onnx_models bench_gemm_peak qnn-onnx-converter" >&2
  exit 1
else
  /usr/bin/python3 "$here/models/make_bench_models.py" "$models"
  # ResNet-18 and MobileNetV2 must convert; for the others a converter failure
  # is reported (its error line) and the model is benched on the peers only.
  for m in resnet18 mobilenet_v2 efficientnet_b0 transformer_encoder; do
    for t in 1 2; do
      for kind in fp32 uint8; do
        out="$models/${m}_${kind}_t$t.bin"
        rm -f "$out"
        args=(-i "$models/$m.onnx" -o "$out" --num_hvx_threads $t)
        [[ $kind == uint8 ]] && args+=(--input_list "$models/${m}_calibration_list.txt" --act_bitwidth 8
                                       --use_per_channel_quantization)
        log="$models/${m}_${kind}_t$t.convert.log"
        if ! "$converter" "${args[@]}" >"$log" 2>&1; then
          rm -f "$out"
          echo "$m $kind: qnn-onnx-converter failed: $(grep -m1 -iE 'error|unsupported|fail' "$log" || tail -n1 "$log")"
          case $m in resnet18 | mobilenet_v2) cat "$log" >&2; exit 1 ;; esac
        fi
      done
    done
  done
  setup_ort_peer
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  # How unequal the vCPUs are this hour: the ceiling the two-thread rows are
  # read against (docs/performance.md, "Session 11").
  balance_bin="$build/bin/bench_cpu_balance"
  if [[ -x "$balance_bin" ]]; then timeout 60 "$balance_bin" 50 || true
  else echo "bench_cpu_balance not built (ninja -C $build bench_cpu_balance): vCPU balance not measured"; fi
  # What a split step pays the thread team on top of its work, against a bare
  # two-thread ping-pong (team_dispatch_bench.cpp).
  dispatch_bin="$build/bin/bench_team_dispatch"
  if [[ -x "$dispatch_bin" ]]; then timeout 60 "$dispatch_bin" --benchmark_format=console 2>/dev/null | grep -E "median" || true
  else echo "bench_team_dispatch not built (ninja -C $build bench_team_dispatch): team dispatch not measured"; fi
  timeout 120 "$gemm_bin" --threads 1,2 --json "$models/gemm_peak_before.json"
  timeout 900 "$onnx_bin" --models "$models" --binaries "$models" --runs "${ONNX_BENCH_RUNS:-11}" --threads 1,2 \
    --gemm-peak "$gemm_bin" --gemm-n 1024 --json "$models/onnx_models.json" ${ort_args[@]+"${ort_args[@]}"} || onnx_status=$?
  timeout 120 "$gemm_bin" --threads 1,2 --json "$models/gemm_peak_after.json"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ -f "$models/onnx_models.json" ]]; then
    /usr/bin/python3 "$here/summarize_models.py" "$models/onnx_models.json" "$models" \
      "$models/gemm_peak_before.json" "$models/gemm_peak_after.json"
  fi
  # Issue 14 item 3's ceiling this hour: two one-thread processes side by
  # side against the two-thread graph (bench/pair_ceiling.py says why; ~2 min).
  echo
  timeout 600 /usr/bin/python3 "$here/pair_ceiling.py" "$build" "$models" || true
fi

# LLM decoding: models/tinylm (a 4-block decoder-only LM, or the folder in
# $LLM_BENCH_MODEL) through examples/llm_decode.cpp, float and uint8, against
# ONNX Runtime on the same prefill.onnx / decode.onnx (bench/ort_peer/llm.js,
# the same greedy decode). The binaries are converted into
# <build-dir>/llm_bench (uint8 calibrated on the inputs the float run
# dumps), one per --num_hvx_threads; bench/llm_bench.py interleaves the
# engines' repetitions ($LLM_BENCH_REPS, 7) and prints tokens/s (decode steps
# only) with the ratio to ORT. About a minute.
llm_model=$(cd "${LLM_BENCH_MODEL:-$here/../models/tinylm}" 2>/dev/null && pwd || echo "${LLM_BENCH_MODEL:-$here/../models/tinylm}")
llm_example="$build/bin/example_llm_decode"
llm_dir="$build/llm_bench"
llm_status=0
echo
if [[ ! -f "$llm_model/prefill.onnx" || ! -f "$llm_model/decode.onnx" || ! -f "$llm_model/expected.txt" ]]; then
  echo "LLM decoding skipped: $llm_model has no prefill.onnx, decode.onnx and expected.txt" \
       "(/usr/bin/python3 models/tinylm/make_tinylm.py makes them)"
elif [[ ! -x "$llm_example" || ! -x "$converter" ]]; then
  echo "$llm_example or $converter not found: build them with ninja -C $build bench_llm_decode" >&2
  exit 1
else
  mkdir -p "$llm_dir/calib"
  llm_convert() {  # <kind> <threads> [converter flags...]: one binary, its log kept next to it
    local kind=$1 t=$2 out="$llm_dir/tinylm_$1_t$2.bin"
    shift 2
    rm -f "$out"
    if ! "$converter" -i "$llm_model/prefill.onnx" -i "$llm_model/decode.onnx" -o "$out" \
        --weight_sharing_enabled --num_hvx_threads "$t" "$@" >"$llm_dir/tinylm_${kind}_t$t.convert.log" 2>&1; then
      rm -f "$out"
      echo "tinylm $kind ${t}T: qnn-onnx-converter failed:" \
           "$(grep -m1 -iE 'error|unsupported|fail' "$llm_dir/tinylm_${kind}_t$t.convert.log" ||
              tail -n1 "$llm_dir/tinylm_${kind}_t$t.convert.log")"
      return 1
    fi
  }
  for t in 1 2; do llm_convert fp32 "$t" || llm_status=1; done
  # The uint8 binaries: calibrated on what the float graphs see (the
  # example's --dump_calibration: the prompts and four decode steps each).
  rm -f "$llm_dir"/calib/*
  if [[ -f "$llm_dir/tinylm_fp32_t1.bin" ]] &&
     "$llm_example" --binary "$llm_dir/tinylm_fp32_t1.bin" --data "$llm_model" \
       --dump_calibration "$llm_dir/calib" >"$llm_dir/calibration.log" 2>&1; then
    for t in 1 2; do
      (cd "$llm_dir/calib" && llm_convert uint8 "$t" --input_list prefill_list.txt --input_list decode_list.txt \
         --use_per_channel_quantization --preserve_io datatype) || true
    done
  else
    echo "tinylm uint8: no calibration data (example_llm_decode --dump_calibration failed:" \
         "$(grep -m1 -E 'FAILED' "$llm_dir/calibration.log" 2>/dev/null || echo 'no float binary'))"
  fi
  [[ -n "$ort_setup_done" ]] || setup_ort_peer
  llm_ort=()
  ((${#ort_args[@]})) && llm_ort=(--ort-runner "$here/ort_peer/llm.js" --ort-node-path "$build/ort_peer/node_modules")
  timeout 600 python3 "$here/llm_bench.py" --data "$llm_model" --binaries "$llm_dir" --example "$llm_example" \
    --threads 1,2 --reps "${LLM_BENCH_REPS:-7}" --json "$llm_dir/llm_bench.json" ${llm_ort[@]+"${llm_ort[@]}"} ||
    llm_status=$?
fi

if ((nonrpc_status != 0)); then
  echo "bench_nonrpc failed (exit status $nonrpc_status): see its output above" >&2
  exit 1
fi
if ((onnx_status != 0)); then
  echo "bench_onnx_models failed (exit status $onnx_status): see its output above" >&2
  exit 1
fi
if ((llm_status != 0)); then
  echo "LLM decoding benchmark failed (exit status $llm_status): see its output above" >&2
  exit 1
fi
