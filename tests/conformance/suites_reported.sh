#!/usr/bin/env bash
# Several suites in one run are reported one by one (all, attempted, passed,
# failed with reasons grouped, skipped) and in a closing table; a case with
# only data.json (Debian's 'real' suite) is a failure, and the thresholds
# apply per suite.
set -u
tool=$1
dir=$(mktemp -d /tmp/openhtp-conf.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/alpha/test_garbage_a/test_data_set_0" "$dir/alpha/test_garbage_b/test_data_set_0" "$dir/beta/test_download"
printf 'not a protobuf' > "$dir/alpha/test_garbage_a/model.onnx"
printf 'also not a protobuf' > "$dir/alpha/test_garbage_b/model.onnx"
printf '{"model_name": "x", "url": "https://example.invalid/x.tar.gz"}' > "$dir/beta/test_download/data.json"
fail() { echo "$1"; exit 1; }
out=$("$tool" --data "$dir/alpha" --data "$dir/beta" --min-pass-rate 0 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "expected exit 0 with --min-pass-rate 0"
grep -q "^ONNX alpha conformance: 2 cases, attempted 2, passed 0, failed 2" <<<"$out" || fail "expected alpha's summary"
grep -q "^ONNX beta conformance: 1 cases, attempted 1, passed 0, failed 1" <<<"$out" || fail "expected beta's summary"
grep -q "^ *2  unreadable model: " <<<"$out" || fail "expected alpha's two unreadable models grouped as one reason"
grep -q "^FAIL test_download: no model.onnx: data.json names a model to download" <<<"$out" ||
  fail "expected the data.json-only case to fail with its reason"
grep -Eq "^alpha +2 +2 +0 +2 +0 +0.0% +0.0%" <<<"$out" || fail "expected alpha's row in the table"
grep -Eq "^beta +1 +1 +0 +1 +0 +0.0% +0.0%" <<<"$out" || fail "expected beta's row in the table"
out=$("$tool" --data "$dir/beta" --min-pass-rate 0 --min-all-rate 50 2>&1)
[ $? -eq 1 ] || fail "expected exit 1 under --min-all-rate"
grep -q "FAILED: beta: 0.0% of all cases passed, below 50.0%" <<<"$out" || fail "expected the all-cases threshold message"
"$tool" --suite nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "expected exit 2 for an unknown suite"
echo "suites_reported: ok"
