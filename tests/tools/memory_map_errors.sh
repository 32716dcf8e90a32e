#!/bin/sh
# openhtp-memory-map's refusals: each failure exits non-zero with one line
# "openhtp-memory-map: error: <cause>" naming the value; --help exits 0.
#   memory_map_errors.sh <openhtp-memory-map> <workdir> <a valid context binary>
tool=$1 work=$2 good=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fails=0

# expect_error <pattern> <args...>: exit 1, stderr's first line matches.
expect_error() {
  pattern=$1
  shift
  "$tool" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  line=$(head -n 1 "$work/err")
  if [ "$rc" -ne 1 ] || ! printf '%s\n' "$line" | grep -q "^openhtp-memory-map: error: .*$pattern"; then
    echo "FAIL: $* -> exit $rc, stderr: $line (wanted: $pattern)"
    fails=$((fails + 1))
  fi
}

"$tool" --help >"$work/help" 2>&1 || { echo "FAIL: --help exits non-zero"; fails=$((fails + 1)); }
for opt in --context_binary --output_dir --help; do
  grep -q -- "$opt" "$work/help" || { echo "FAIL: --help does not list $opt"; fails=$((fails + 1)); }
done

expect_error "missing required option --context_binary"
expect_error "--colour" --context_binary "$good" --colour red
expect_error "$work/missing.bin: cannot open" --context_binary "$work/missing.bin"
: >"$work/empty.bin"
expect_error "$work/empty.bin: file is empty" --context_binary "$work/empty.bin"
head -c 1000 "$good" >"$work/truncated.bin"
expect_error "$work/truncated.bin: " --context_binary "$work/truncated.bin"
printf 'not a context binary at all, just text\n' >"$work/text.bin"
expect_error "$work/text.bin: " --context_binary "$work/text.bin"
: >"$work/a_file"
expect_error "$work/a_file/sub: cannot create the output directory" --context_binary "$good" --output_dir "$work/a_file/sub"
# Nothing may be written when the binary is refused.
if [ -e "$work/should_not_exist" ]; then echo "FAIL: output dir made"; fails=$((fails + 1)); fi
expect_error "$work/text.bin: " --context_binary "$work/text.bin" --output_dir "$work/should_not_exist"
if [ -e "$work/should_not_exist" ]; then echo "FAIL: output dir made for a refused binary"; fails=$((fails + 1)); fi

[ "$fails" -eq 0 ] && echo "ok: all refusals" || echo "$fails failures"
[ "$fails" -eq 0 ]
