#!/bin/sh
# Builds every reader's libFuzzer target with clang (ASan + UBSan) and runs
# each for a bounded time on a seed corpus made from the test inputs.
# Usage: tests/fuzz/run.sh SECONDS
set -eu
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
mkdir -p "$out"
cd "$root"
srcs="$(ls src/core/*.c src/formats/*.c src/formats/*/*.c src/analysis/*.c)"
for target in tests/fuzz/fuzz_*.c; do
	name=$(basename "$target" .c)
	fmt=${name#fuzz_}
	# shellcheck disable=SC2086
	clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Iinclude $srcs "$target" \
		-lz -lzstd -lexpat -lsqlite3 -lpthread -o "$out/$name"
	seeds=$(mktemp -d)
	# seeds: the format's test inputs, prefixed with the mode byte
	for f in tests/formats/"$fmt"/*/* examples/*."$fmt" ../shared/corpus/"$fmt"/*/* ../shared/corpus/"$fmt"/*; do
		[ -f "$f" ] || continue
		[ "$(wc -c < "$f")" -le 65536 ] || continue
		b=$(basename "$f")
		{ printf '\001'; cat "$f"; } > "$seeds/s_$b"
		{ printf '\002'; cat "$f"; } > "$seeds/l_$b"
	done
	work=$(mktemp -d)
	echo "fuzz: $name for ${secs}s on $(ls "$seeds" | wc -l) seeds"
	"$out/$name" -max_total_time="$secs" -max_len=8192 -timeout=10 \
		-print_final_stats=1 "$work" "$seeds" 2>&1 | tail -n 12
	rm -rf "$seeds" "$work"
done
