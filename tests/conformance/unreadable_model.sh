#!/usr/bin/env bash
# A case whose model cannot be read is a failure with its reason, never a
# skip (which is only for op types the importer does not have).
set -u
tool=$1
dir=$(mktemp -d /tmp/openhtp-conf.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/test_garbage/test_data_set_0"
printf 'this is not a protobuf' > "$dir/test_garbage/model.onnx"
out=$("$tool" --data "$dir" 2>&1)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "expected a non-zero exit"; exit 1; }
grep -q "^FAIL test_garbage: unreadable model" <<<"$out" || { echo "expected a FAIL line naming the case"; exit 1; }
grep -q "attempted 1, passed 0, failed 1" <<<"$out" || { echo "expected it counted as attempted and failed"; exit 1; }
grep -q "skipped 0" <<<"$out" || { echo "expected no skip"; exit 1; }
echo "unreadable_model: ok"
