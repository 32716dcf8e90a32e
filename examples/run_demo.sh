#!/usr/bin/env bash
# Runs the shared-buffer examples in order.
#   examples/run_demo.sh <build-dir>    (the examples are in <build-dir>/bin)
# Installed as <prefix>/bin/run_demo.sh it defaults to <prefix>.
# Exits non-zero if any example fails; all of them run regardless.
set -u

root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
bin="$root/bin"

examples=(
  "example_ion_per_tensor|one rpcmem buffer + QNN_MEM_TYPE_ION handle per tensor (zero copy)"
  "example_multi_tensor_shared_buffer|input and output in one rpcmem buffer, one SHARED_BUFFER handle each (zero copy)"
  "example_client_buffers|plain client memory (copied in and out)"
  "example_external_buffers|context weights and spill-fill in registered rpcmem buffers (WEIGHTS_BUFFER, SHARED_SPILLFILL_BUFFER)"
)

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
  if ! "$bin/$name"; then
    failed+=("$name")
  fi
done

echo
if ((${#failed[@]})); then
  echo "run_demo: FAILED: ${failed[*]}"
  exit 1
fi
echo "run_demo: all ${#examples[@]} examples passed"
