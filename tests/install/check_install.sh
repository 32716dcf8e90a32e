#!/usr/bin/env bash
# Installs the build into a fresh prefix, checks the SDK layout, then builds
# and runs a C client against the prefix alone.
set -euo pipefail
build=$1
src=$2
prefix=$(mktemp -d /tmp/openhtp-sdk.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/QNN/QnnInterface.h include/QNN/HTP/QnnHtpMem.h include/QNN/System/QnnSystemInterface.h \
         include/rpcmem.h include/remote.h lib/libcdsprpc.so lib/libQnnHtp.so \
         lib/dsp/openhtp-cdsp lib/dsp/libQnnHtpSkel.so; do
  [ -e "$prefix/$f" ] || { echo "missing in install: $f"; exit 1; }
done
cc -std=c11 -Wall -Wextra -Werror -I"$prefix/include/QNN" -I"$prefix/include" \
   "$src/tests/install/consumer.c" -L"$prefix/lib" -lcdsprpc -ldl -o "$prefix/consumer"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer"
