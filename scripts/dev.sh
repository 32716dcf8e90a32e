#!/usr/bin/env bash
# One entry point for people and CI:
#   scripts/dev.sh demo   install Debian packages, build, run the demo
#   scripts/dev.sh test   install Debian packages, build, run every test, then
#                         the tests again under ASan+UBSan and under TSan
#   scripts/dev.sh bench  install Debian packages, build, run the benchmarks
# Builds go to build/ (and build-asan/, build-tsan/). Nothing is downloaded
# except Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ ccache python3 zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
          libflatbuffers-dev flatbuffers-compiler nlohmann-json3-dev
          libpthreadpool-dev libcpuinfo-dev libxnnpack-dev libdnnl-dev
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata chromium)

# What only the benchmarks use, installed by `bench` alone: the peers they
# compare against (OpenCV DNN; ONNX Runtime comes from npm, for the benchmark
# only) and Debian's PyTorch, which makes their models.
BENCH_PACKAGES=(libopencv-dnn-dev python3-torch python3-torchvision python3-onnx)
# Node.js and npm carry the ONNX Runtime peer. Debian's npm package is asked
# for only where no npm is on the PATH: a machine whose nodejs comes from
# NodeSource already has npm inside it, and Debian's npm conflicts with it.
command -v npm >/dev/null 2>&1 || BENCH_PACKAGES+=(nodejs npm)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "== installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# build DIR [cmake args...] -- [targets...]
build() {
  local dir=$1; shift
  local args=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targets=("$@")
  # ccache: a rebuild of unchanged sources (another checkout, CI's clean
  # clone) is a cache hit. BASEDIR makes paths relative so checkouts in
  # different directories share the cache.
  if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
  cmake --build "$dir" ${targets[@]+--target "${targets[@]}"}
}

# Under ASan+UBSan: the process-boundary and API tests, the kernels (reference
# and fast paths), and the ONNX importer's passes (it parses untrusted files).
SANITIZED_TESTS=(fastrpc_test parallel_copy_test qnn_test qnn_no_throw_test qnn_nonrpc_test ops_test kernels_test
  htp_test threads_test threads_alloc_test openmp_places_test_1 openmp_places_test_0 fuzz_context_binary fuzz_graph_prepare fuzz_system_binary_info
  fuzz_execute_request onnx_passes_test dsp_heap_test)

case "${1:-}" in
  demo)
    install_packages
    build build
    examples/run_demo.sh build
    ;;
  test)
    install_packages
    build build -DOPENHTP_BUILD_BENCH=OFF
    ctest --test-dir build --output-on-failure -j2
    echo "== ASan + UBSan"
    build build-asan -DOPENHTP_SANITIZE=address -DOPENHTP_BUILD_BENCH=OFF -- "${SANITIZED_TESTS[@]}" \
      QnnHtpSkel openhtp-cdsp openhtp_test_skel
    ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j2 \
      -R '^(fastrpc|qnn|ops|kernels|htp|threads|fuzz|onnx|dsp_heap)\.'
    # The in-process door on the reference kernels: LeakSanitizer's exit-time
    # tracer crashes ("Tracer caught signal 11") on the OpenMP threads of the
    # oneDNN that the skel brings in by dlopen. The fast paths stay covered
    # under ASan by kernels.* and by qnn.* (in the DSP process).
    OPENHTP_KERNELS=reference ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j2 \
      -R '^qnn_inproc\.'
    echo "== TSan"
    build build-tsan -DOPENHTP_SANITIZE=thread -DOPENHTP_BUILD_BENCH=OFF -- fastrpc_test parallel_copy_test qnn_test qnn_no_throw_test \
      qnn_nonrpc_test htp_test QnnHtpSkel openhtp-cdsp openhtp_test_skel
    # The DSP side runs reference kernels here: oneDNN's OpenMP and XNNPACK's
    # pthreadpool are not TSan-instrumented, so their internal hand-offs would
    # be reported as races. TSan checks our own threads: channels, handles,
    # object tables, executes racing frees, the HTP's priority queue and
    # preemption (htp.Preemption).
    OPENHTP_KERNELS=reference TSAN_OPTIONS="halt_on_error=1" \
      ctest --test-dir build-tsan --output-on-failure -j2 -R '^(fastrpc|qnn|qnn_inproc)\.|^htp\.Preemption\.'
    ;;
  bench)
    install_packages "${BENCH_PACKAGES[@]}"
    build build
    bench/run_bench.sh build
    ;;
  *)
    echo "usage: $0 demo|test|bench" >&2
    exit 2
    ;;
esac
