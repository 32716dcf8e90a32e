#!/usr/bin/env bash
# Runs the shared-buffer examples in order, then the CNN demo: the checked-in
# models/democnn converted by qnn-onnx-converter (float, and uint8 calibrated
# on its calibration list) into <build-dir>/democnn/, each binary run by
# example_cnn_classifier against PyTorch's logits; then LLM decoding with
# models/tinylm (float and uint8) by example_llm_decode; and last the CNN
# through qnn-net-run --shared_buffer and qnn-profile-viewer.
#   examples/run_demo.sh <build-dir>    (the examples are in <build-dir>/bin)
# Installed as <prefix>/bin/run_demo.sh it defaults to <prefix>; the CNN demo
# needs the source tree's models/democnn (or DEMOCNN_DIR=<dir>).
# Exits non-zero if any example fails; all of them run regardless.
set -u

root="$(cd "${1:-$(dirname "$0")/..}" && pwd)"  # absolute: the CNN demo runs the converter from the model folder
bin="$root/bin"

examples=(
  "example_ion_per_tensor|one rpcmem buffer + QNN_MEM_TYPE_ION handle per tensor (zero copy)"
  "example_multi_tensor_shared_buffer|input and output in one rpcmem buffer, one SHARED_BUFFER handle each (zero copy)"
  "example_client_buffers|plain client memory (copied in and out)"
  "example_external_buffers|context weights and spill-fill in registered rpcmem buffers (WEIGHTS_BUFFER, SHARED_SPILLFILL_BUFFER)"
  "example_nonrpc_concurrent_sharing|Non-RPC: two contexts share one malloc'd spill-fill and VTCM-backup buffer (run through openhtp-dsp-run)"
)
# Non-RPC programs run "on the DSP": the launcher serves their malloc from
# the DSP heap below 4 GiB.
nonrpc_examples=" example_nonrpc_concurrent_sharing "

failed=()
for entry in "${examples[@]}"; do
  name="${entry%%|*}"
  what="${entry#*|}"
  echo
  echo "######## $name: $what"
  if [[ ! -x "$bin/$name" ]]; then
    echo "missing $bin/$name (build it: ninja -C $root $name)"
    failed+=("$name")
    continue
  fi
  run=("$bin/$name")
  if [[ $nonrpc_examples == *" $name "* ]]; then
    if [[ ! -x "$bin/openhtp-dsp-run" ]]; then
      echo "missing $bin/openhtp-dsp-run (build it: ninja -C $root openhtp-dsp-run)"
      failed+=("$name")
      continue
    fi
    run=("$bin/openhtp-dsp-run" "${run[@]}")
  fi
  if ! "${run[@]}"; then
    failed+=("$name")
  fi
done

# The CNN demo. The calibration list's paths are relative to the model's
# folder, so the converter runs there.
democnn="${DEMOCNN_DIR:-$(cd "$(dirname "$0")/.." && pwd)/models/democnn}"
out="$root/democnn"
converter="$bin/qnn-onnx-converter"
classifier="$bin/example_cnn_classifier"
total=$((${#examples[@]} + 2))
for precision in float uint8; do
  echo
  echo "######## example_cnn_classifier ($precision): models/democnn converted by qnn-onnx-converter, run with memhandle I/O"
  if [[ ! -f "$democnn/democnn.onnx" ]]; then
    echo "missing $democnn/democnn.onnx (set DEMOCNN_DIR to the source tree's models/democnn)"
    failed+=("cnn_classifier_$precision")
    continue
  fi
  if [[ ! -x "$converter" || ! -x "$classifier" ]]; then
    echo "missing $converter or $classifier (build them: ninja -C $root qnn-onnx-converter example_cnn_classifier)"
    failed+=("cnn_classifier_$precision")
    continue
  fi
  mkdir -p "$out"
  args=(-i "$democnn/democnn.onnx" -o "$out/democnn_$precision.bin")
  bound=float
  if [[ $precision == uint8 ]]; then
    args+=(--input_list calibration_list.txt --act_bitwidth 8 --use_per_channel_quantization)
    bound=quantized
  fi
  echo "qnn-onnx-converter ${args[*]}"
  if ! (cd "$democnn" && "$converter" "${args[@]}"); then
    failed+=("cnn_classifier_$precision")
    continue
  fi
  if ! "$classifier" --binary "$out/democnn_$precision.bin" --data "$democnn" --precision "$bound"; then
    failed+=("cnn_classifier_$precision")
  fi
done

# LLM decoding (docs/llm-decoding.md): models/tinylm's prefill and decode
# graphs in ONE context binary with shared weights; the KV cache in one
# rpcmem buffer, updated in place by every decode step (0 bytes copied).
# Float first; its run writes the calibration lists for the uint8 binary.
tinylm="${TINYLM_DIR:-$(cd "$(dirname "$0")/.." && pwd)/models/tinylm}"
llm_out="$root/tinylm"
decoder="$bin/example_llm_decode"
for precision in float uint8; do
  total=$((total + 1))
  echo
  echo "######## example_llm_decode ($precision): models/tinylm prefill + decode, KV cache in one shared buffer"
  if [[ ! -f "$tinylm/prefill.onnx" || ! -x "$converter" || ! -x "$decoder" ]]; then
    echo "missing $tinylm/prefill.onnx (set TINYLM_DIR), $converter or $decoder (build: ninja -C $root example_llm_decode)"
    failed+=("llm_decode_$precision")
    continue
  fi
  mkdir -p "$llm_out/calibration"
  args=(-i "$tinylm/prefill.onnx" -i "$tinylm/decode.onnx" -o "$llm_out/tinylm_$precision.bin" --weight_sharing_enabled)
  run=(--binary "$llm_out/tinylm_$precision.bin" --data "$tinylm")
  if [[ $precision == float ]]; then
    run+=(--precision float --dump_calibration "$llm_out/calibration")
  else
    args+=(--input_list prefill_list.txt --input_list decode_list.txt --use_per_channel_quantization
           --preserve_io datatype)
    run+=(--precision quantized)
  fi
  echo "qnn-onnx-converter ${args[*]}"
  if ! (cd "$llm_out/calibration" && "$converter" "${args[@]}" 2> >(grep -v "%)$" >&2)); then
    failed+=("llm_decode_$precision")
    continue
  fi
  if ! "$decoder" "${run[@]}"; then
    failed+=("llm_decode_$precision")
  fi
done

# The same float binary through QNN's everyday tools: qnn-net-run with every
# input and output in a registered rpcmem buffer (zero copy), profiled, then
# qnn-profile-viewer on its log.
total=$((total + 1))
echo
echo "######## qnn-net-run --shared_buffer + qnn-profile-viewer: the CNN's test inputs, outputs written as Result_N/*.raw"
netrun="$bin/qnn-net-run"
viewer="$bin/qnn-profile-viewer"
backend="$root/lib/libQnnHtp.so"
if [[ ! -x "$netrun" || ! -x "$viewer" || ! -f "$out/democnn_float.bin" ]]; then
  echo "missing $netrun, $viewer or $out/democnn_float.bin (build: ninja -C $root qnn-net-run qnn-profile-viewer)"
  failed+=("net_run")
else
  rm -rf "$out/net_run"
  echo "qnn-net-run --backend $backend --retrieve_context $out/democnn_float.bin --input_list input_list.txt --shared_buffer --profiling_level detailed --output_dir $out/net_run"
  if (cd "$democnn" && "$netrun" --backend "$backend" --retrieve_context "$out/democnn_float.bin" \
        --input_list input_list.txt --shared_buffer --profiling_level detailed --output_dir "$out/net_run" \
        | grep '^qnn-net-run:') &&
     "$viewer" --input_log "$out/net_run/qnn-profiling-data_0.log" | sed -n '/Execute Stats (Average)/,/^$/p'; then
    results=("$out"/net_run/Result_*)
    echo "where the outputs went (${#results[@]} inferences):"
    for i in 0 1 2; do
      for f in "$out/net_run/Result_$i"/*.raw; do echo "  $f ($(stat -c %s "$f") bytes)"; done
    done
    echo "  ..."
  else
    failed+=("net_run")
  fi
fi

echo
if ((${#failed[@]})); then
  echo "run_demo: FAILED: ${failed[*]}"
  exit 1
fi
echo "run_demo: all $total examples passed"
