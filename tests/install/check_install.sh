#!/usr/bin/env bash
# Installs the build into a fresh prefix and uses it the ways clients do:
# the SDK layout (lib/x86_64-linux-clang, bin/x86_64-linux-clang) and the flat
# one, a backend reached through a symlink, a backend copied next to the
# client (found again through QNN_SDK_ROOT, refused clearly without it), and
# the tools from both bin/ folders.
set -euo pipefail
build=$1
src=$2
prefix=$(mktemp -d /tmp/openhtp-sdk.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
sdk=lib/x86_64-linux-clang
for f in include/QNN/QnnInterface.h include/QNN/HTP/QnnHtpMem.h include/QNN/System/QnnSystemInterface.h \
         include/rpcmem.h include/remote.h \
         $sdk/libcdsprpc.so $sdk/libQnnHtp.so $sdk/libQnnSystem.so $sdk/dsp/openhtp-cdsp $sdk/dsp/libQnnHtpSkel.so \
         bin/x86_64-linux-clang/qnn-context-binary-utility bin/x86_64-linux-clang/qnn-context-binary-generator; do
  [ -e "$prefix/$f" ] && [ ! -L "$prefix/$f" ] || { echo "missing (or not a file) in install: $f"; exit 1; }
done
# The flat layout: one copy of each file, reached by relative symlinks.
for f in lib/libcdsprpc.so lib/libQnnHtp.so lib/libQnnSystem.so lib/dsp bin/qnn-context-binary-utility; do
  [ -L "$prefix/$f" ] && [ -e "$prefix/$f" ] || { echo "not a working symlink in install: $f"; exit 1; }
done
# The backend has no DT_NEEDED on libcdsprpc: copying it alone must load.
if readelf -d "$prefix/$sdk/libQnnHtp.so" | grep -q 'NEEDED.*libcdsprpc'; then
  echo "libQnnHtp.so must not need libcdsprpc.so at load time"; exit 1
fi

cc -std=c11 -Wall -Wextra -Werror -I"$prefix/include/QNN" -I"$prefix/include" \
   "$src/tests/install/consumer.c" -ldl -o "$prefix/consumer"
echo "== SDK layout, LD_LIBRARY_PATH=<sdk>/lib/x86_64-linux-clang"
env -u QNN_SDK_ROOT LD_LIBRARY_PATH="$prefix/$sdk" "$prefix/consumer"
echo "== flat layout, LD_LIBRARY_PATH=<sdk>/lib"
env -u QNN_SDK_ROOT LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer"

app=$(mktemp -d /tmp/openhtp-app.XXXXXX)
trap 'rm -rf "$prefix" "$app"' EXIT
echo "== a symlink to libQnnHtp.so beside the client, nothing set"
mkdir "$app/linked"
ln -s "$prefix/$sdk/libQnnHtp.so" "$app/linked/libQnnHtp.so"
env -u QNN_SDK_ROOT -u LD_LIBRARY_PATH "$prefix/consumer" "$app/linked/libQnnHtp.so"
echo "== a copy of libQnnHtp.so beside the client, QNN_SDK_ROOT set"
mkdir "$app/copied"
cp "$prefix/$sdk/libQnnHtp.so" "$app/copied/"
env -u LD_LIBRARY_PATH QNN_SDK_ROOT="$prefix" "$prefix/consumer" "$app/copied/libQnnHtp.so"
# Without QNN_SDK_ROOT, the copy can only fall back on the configured install
# prefix; where nothing is installed there, the refusal is what is checked.
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
if [ ! -e "$configured/$sdk/libcdsprpc.so" ]; then
  echo "== the same copy, nothing set: refused with one line saying what to set"
  log=$(env -u QNN_SDK_ROOT -u LD_LIBRARY_PATH "$prefix/consumer" "$app/copied/libQnnHtp.so" --expect-no-sdk 2>&1)
  echo "$log"
  grep -q "libcdsprpc.so not found beside libQnnHtp.so.*QNN_SDK_ROOT" <<<"$log" || {
    echo "expected an error line naming libcdsprpc.so and QNN_SDK_ROOT"; exit 1; }
fi
echo "== a latency-minded client (votes, capabilities, SoC info, rpcmem probing, one graph per op), QNN_SDK_ROOT only"
c++ -std=c++17 -Wall -Wextra -Werror -I"$prefix/include/QNN" -I"$prefix/include" \
    "$src/tests/install/startup_client.cpp" -ldl -o "$prefix/startup_client"
env -u LD_LIBRARY_PATH QNN_SDK_ROOT="$prefix" "$prefix/startup_client"
echo "== the tools, from bin/x86_64-linux-clang and through bin/"
env -u LD_LIBRARY_PATH "$prefix/bin/x86_64-linux-clang/qnn-context-binary-utility" --help >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/qnn-context-binary-utility" --help >/dev/null
echo "install: ok"
