#!/bin/sh
# Builds every reader's libFuzzer target (and the requirements file's,
# fuzz_reqs.c) with clang (ASan + UBSan) and runs
# each for a bounded time on a seed corpus made from the test inputs.  Any
# crash, leak or sanitizer report fails the run.
# Usage: tests/fuzz/run.sh SECONDS
set -eu
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
mkdir -p "$out"
cd "$root"
srcs="$(ls src/registry.c src/core/*.c src/formats/*/*.c src/analysis/*.c src/exports/*/*.c)"
# the report's page as C strings (src/exports/report/report.c uses them),
# made as the build makes it
cmake -DIN=src/exports/report/report.html \
	-DHEADER="$root/src/exports/report/report_page.h" \
	-DOUT="$out/report_page.c" -P scripts/embed_report.cmake
srcs="$srcs $out/report_page.c"
# TK_TEST_HOOKS: the library's test entry points (the memory stream)
cflags="-std=c11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -Iinclude -DTK_TEST_HOOKS"
libs="-lz -lzstd -lexpat -lsqlite3 -lelf -lyaml -lnettle -lpthread"
status=0

# the library's sources are compiled once (instrumented for the fuzzer,
# two at a time) and linked into each target
mkdir -p "$out/obj"
echo "fuzz: compiling $(echo "$srcs" | wc -w) sources with clang"
# shellcheck disable=SC2086
printf '%s\n' $srcs | xargs -P "${FUZZ_JOBS:-2}" -I SRC sh -c \
	'o="$1/obj/$(echo "$2" | tr / _).o"; clang $3 -fsanitize=fuzzer-no-link -c "$2" -o "$o"' \
	sh "$out" SRC "$cflags"
objs=$(for f in $srcs; do printf '%s ' "$out/obj/$(echo "$f" | tr / _).o"; done)

# a target per format the registry says is read (list_readers.c); the
# event readers share one target, a format with tests/fuzz/fuzz_FMT.c
# (Tarmac: also its record API) has its own
# shellcheck disable=SC2086
clang $cflags tests/fuzz/list_readers.c $objs $libs -o "$out/list_readers"
targets=$("$out/list_readers") || exit 1
# and the requirements files of `tracekit verify` (fuzz_reqs.c)
targets="$targets reqs"
# each target is linked and its seeds made FUZZ_JOBS at a time (one per
# CPU: each is one CPU's work); a failure of either fails the run, once
# the targets under way are made
prepare() {
	fmt=$1
	name=fuzz_$fmt
	if [ -f "tests/fuzz/fuzz_$fmt.c" ]; then
		# shellcheck disable=SC2086
		clang $cflags -fsanitize=fuzzer "tests/fuzz/fuzz_$fmt.c" $objs $libs -o "$out/$name"
	else
		# shellcheck disable=SC2086
		clang $cflags -fsanitize=fuzzer -DFUZZ_FORMAT="\"$fmt\"" tests/fuzz/fuzz_reader.c $objs $libs -o "$out/$name"
	fi
	seeds=$(mktemp -d)
	inputs=$(mktemp -d)
	if [ "$fmt" = reqs ]; then
		# seeds: the requirements files of the tests, as they are
		cp tests/verify/*.yaml "$seeds/"
		echo "$seeds" > "$out/$name.seeds"
		rm -rf "$inputs"
		return 0
	fi
	# binary inputs made by a script of the format's tests
	if [ -f "tests/formats/$fmt/make_cases.py" ]; then
		python3 "tests/formats/$fmt/make_cases.py" "$inputs" > /dev/null
	fi
	# seeds: the format's test inputs of at most 64 KiB, each prefixed with
	# the mode byte: strict, lenient, tolerant (s_, l_, t_); from a file,
	# the source's pread() path (f_, ft_); from a memory stream of pieces
	# of 1, 1 to 7 (the format probed), 1 to 61 (strict), 1 to 4096 bytes
	# (m1_, m7_, m61_, m4096_); written by one process (a printf and a cat
	# per seed were thousands of processes)
	python3 - "$seeds" tests/formats/"$fmt"/*/* "$inputs"/*/* examples/*."$fmt" \
		../shared/corpus/"$fmt"/*/* ../shared/corpus/"$fmt"/* <<'EOF'
import os, sys
modes = ((0o001, "s_"), (0o002, "l_"), (0o004, "t_"), (0o010, "f_"), (0o014, "ft_"),
         (0o020, "m1_"), (0o162, "m7_"), (0o265, "m61_"), (0o360, "m4096_"))
for f in sys.argv[2:]:
    if not os.path.isfile(f) or os.path.getsize(f) > 65536:
        continue
    data = open(f, "rb").read()
    b = os.path.basename(f)
    for mode, prefix in modes:
        with open(os.path.join(sys.argv[1], prefix + b), "wb") as o:
            o.write(bytes([mode]) + data)
EOF
	# Tarmac: seeds with an ELF image for the function profile (mode byte
	# with bit 2, the ELF's length in 2 bytes little-endian, the ELF, the
	# log), made here by the scripts of tests/tarmac (no binary committed)
	if [ "$fmt" = tarmac ] && command -v python3 > /dev/null 2>&1; then
		# the program of tests/tarmac/profile.sh
		layout=$inputs/layout
		printf '%s\n' "main 1000 40" "foo 1040 40" "bar 1080 20" "baz 10a0 0" \
			"SysTick_Handler 10c0 20" "helper 10e0 20" "recur 1100 20" > "$layout"
		# shellcheck disable=SC2046
		python3 tests/tarmac/mkelf.py "$inputs/prog.elf" --thumb \
			$(awk '{ printf "%s:%s:%s ", $1, $2, $3 }' "$layout") > /dev/null &&
		python3 tests/tarmac/profile.py "$layout" "$inputs" > /dev/null &&
		python3 - "$inputs/prog.elf" "$inputs/log.tarmac" "$seeds/e_prog" <<'EOF'
import struct, sys
elf = open(sys.argv[1], "rb").read()
log = open(sys.argv[2], "rb").read()
# (and the log from a memory stream of pieces of 1 to 7 bytes: 0x60 | 0x10)
for mode, suffix in ((5, "_strict"), (4, "_lenient"), (0x75, "_strict_m7"), (0x74, "_lenient_m7")):
    with open(sys.argv[3] + suffix, "wb") as f:
        f.write(bytes([mode]) + struct.pack("<H", len(elf)) + elf + log)
EOF
	fi
	echo "$seeds" > "$out/$name.seeds"
	rm -rf "$inputs"
}
jobs=${FUZZ_JOBS:-2}
set --
for fmt in $targets; do
	prepare "$fmt" &
	set -- "$@" $!
	if [ $# -ge "$jobs" ]; then
		for pid in "$@"; do wait "$pid" || status=1; done
		set --
		[ "$status" = 0 ] || exit 1
	fi
done
for pid in "$@"; do wait "$pid" || status=1; done
[ "$status" = 0 ] || exit 1

# the targets run FUZZ_JOBS at a time (each for its whole time: a pair
# finishes together), one per CPU
run_one() {
	name=$1
	seeds=$(cat "$out/$name.seeds")
	work=$(mktemp -d)
	echo "fuzz: $name for ${secs}s on $(ls "$seeds" | wc -l) seeds"
	if "$out/$name" -max_total_time="$secs" -max_len=8192 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$out/$name-" \
		"$work" "$seeds" > "$out/$name.log" 2>&1; then
		echo ok > "$out/$name.status"
	else
		echo failed > "$out/$name.status"
	fi
	rm -rf "$seeds" "$work" "$out/$name.seeds"
}
jobs=${FUZZ_JOBS:-2}
set --
for fmt in $targets; do
	run_one "fuzz_$fmt" &
	set -- "$@" "fuzz_$fmt"
	if [ $# -ge "$jobs" ]; then
		wait
		set --
	fi
done
wait
for fmt in $targets; do
	name=fuzz_$fmt
	if [ "$(cat "$out/$name.status" 2>/dev/null)" = ok ]; then
		echo "fuzz: $name:"
		tail -n 3 "$out/$name.log"
	else
		echo "fuzz: $name FAILED (artifacts: $out/$name-*):"
		tail -n 40 "$out/$name.log"
		status=1
	fi
	rm -f "$out/$name.status"
done
exit $status
