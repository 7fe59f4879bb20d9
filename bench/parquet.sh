#!/usr/bin/env bash
# parquet.sh - Parquet (issue 44): `tracekit convert T out.parquet` on the
# bench BTF (target: >= 10 M events/s single-threaded; the file at most 1/8
# of the BTF and smaller than `zstd -3` of it, measured in the same run;
# `tracekit info` on the same BTF, which reads every event and writes
# nothing, splits the convert's time into reading and writing),
# DuckDB's max(RT) per task over a dataset of DN traces from the generator
# (target < 1 s; DuckDB reading the BTF as CSV is the peer), and
# `tracekit dataset` of those traces; then DuckDB's checksum over every
# column of the converted trace (the same before and after an encoder
# change that keeps the values).
#
#   bash bench/parquet.sh
#
# Environment (all optional):
#   N=10000000 CORES=4 SEED=1   the trace (made here when missing, as
#                               bench/btf_read.sh makes it)
#   DN=100 DEVENTS=100000       the dataset: DN traces of DEVENTS events
#   RUNS=3                      timed runs per command; the median is reported
#   TRACEKIT=build/tracekit     the binary under test
#   NPM=build/npm-parquet       DuckDB from npm (tests/formats/parquet/
#                               install_readers.sh; the DuckDB rows are
#                               skipped without it)
# Exit status: 0, or 1 when a target is missed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-3}
. "$HERE/lib.sh"
bench_init parquet

N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
DN=${DN:-100}
DEVENTS=${DEVENTS:-100000}
NPM=${NPM:-$ROOT/build/npm-parquet}
[[ -x $TRACEKIT ]] || bench_die "$TRACEKIT does not exist (build it with 'make')"
bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"

TRACE="$OUT/trace_n${N}_c${CORES}_s${SEED}.btf"
if [[ ! -s $TRACE || $BIN/gen_btf -nt $TRACE ]]; then
	echo "generating $TRACE ..."
	"$BIN/gen_btf" -n "$N" -c "$CORES" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
# the dataset's inputs: DN traces of other seeds
DIN="$OUT/parquet_in_${DN}x${DEVENTS}"
if [[ ! -f $DIN/.done ]]; then
	echo "generating $DN traces of $DEVENTS events in $DIN ..."
	rm -rf "$DIN"
	mkdir -p "$DIN"
	for ((i = 1; i <= DN; i++)); do
		"$BIN/gen_btf" -n "$DEVENTS" -c "$CORES" -s "$((SEED + i))" "$(printf '%s/run%03d.btf' "$DIN" "$i")"
	done
	touch "$DIN/.done"
fi
DS="$OUT/parquet_ds"
rm -rf "$DS"
"$TRACEKIT" dataset -q "$DS" "$DIN"/run*.btf

bench_input "$TRACE"
run_bench "tracekit convert T out.parquet" parquet_convert - - "$OUT/bench.parquet" -- \
	"$TRACEKIT" convert "$TRACE" "$OUT/bench.parquet"
run_bench "tracekit info T (the reader alone)" parquet_info - - - -- \
	"$TRACEKIT" info "$TRACE"
run_bench "zstd -3 (the peer)" parquet_zstd - - "$OUT/bench.btf.zst" -- \
	zstd -q -3 -f "$TRACE" -o "$OUT/bench.btf.zst"
run_bench "tracekit dataset ($DN traces)" parquet_ds - - "$OUT/parquet_ds1" -- \
	"$TRACEKIT" dataset -q "$OUT/parquet_ds1" "$DIN"/run*.btf
if sh "$ROOT/tests/formats/parquet/install_readers.sh" "$NPM"; then
	cp "$ROOT/tests/formats/parquet/query_duckdb.mjs" "$NPM/"
	run_bench "DuckDB max(rt_ns) per task over $DN traces" parquet_duck_rt - - - -- \
		node "$NPM/query_duckdb.mjs" \
		"SELECT entity, max(rt_ns) FROM read_parquet('$DS/instances/*.parquet') WHERE type = 'T' GROUP BY entity"
	run_bench "DuckDB max time per target, the BTF as CSV (the peer)" parquet_duck_csv - - - -- \
		node "$NPM/query_duckdb.mjs" \
		"SELECT target, max(time) FROM read_csv('$TRACE', comment = '#', header = false, delim = ',', null_padding = true, names = ['time', 'source', 'sinst', 'type', 'target', 'tinst', 'event', 'note'], types = {'time': 'BIGINT'}) GROUP BY target"
	run_bench "node starting DuckDB (no query)" parquet_duck_none - - - -- \
		node "$NPM/query_duckdb.mjs" "SELECT 1"
else
	bench_skip "DuckDB max(rt_ns) per task over $DN traces" "< 1 s"
fi
bench_report "parquet benchmark: $(basename "$TRACE"), $BYTES bytes"

"$TRACEKIT" convert "$TRACE" "$OUT/bench.parquet"
zstd -q -3 -f "$TRACE" -o "$OUT/bench.btf.zst"
# DuckDB's checksum over every column, rows in order: an encoder change
# that keeps the values keeps it
if [[ -f $NPM/query_duckdb.mjs ]]; then
	echo "checksum (DuckDB, every column): $(node "$NPM/query_duckdb.mjs" \
		"SELECT count(*) AS n, sum(hash(file_row_number, time, time_ns, source, source_instance, type, target, instance, event, note, core)) AS h FROM read_parquet('$OUT/bench.parquet', file_row_number = true)")"
fi
pq=$(stat -c %s "$OUT/bench.parquet")
zs=$(stat -c %s "$OUT/bench.btf.zst")
conv_s=$(awk -F'\t' 'NR == 2 { print $2 }' "$RESULTS")
info_s=$(awk -F'\t' 'NR == 3 { print $2 }' "$RESULTS")
ds_s=$(awk -F'\t' 'NR == 5 { print $2 }' "$RESULTS")
duck=$(awk -F'\t' 'NR == 6 { print $2 }' "$RESULTS")
none=$(awk -F'\t' 'NR == 8 { print $2 }' "$RESULTS")
awk -v n="$N" -v s="$conv_s" -v rd="$info_s" -v pq="$pq" -v zs="$zs" -v b="$BYTES" -v ds="$ds_s" -v dn="$DN" -v de="$DEVENTS" \
    -v d="$duck" -v z="$none" 'BEGIN {
	eps = s > 0 ? n / s : 0
	printf("convert: %.2f M events/s (target >= 10)\n", eps / 1e6)
	if (rd > 0 && s > 0)
		printf("  of its %.3f s: the BTF reader alone %.3f s (%.2f M events/s), the rest (Parquet encoding, zstd, the write) %.3f s\n",
		       s, rd, n / rd / 1e6, s - rd)
	printf("Parquet %d bytes: 1/%.1f of the BTF (target >= 1/8), %.2f x zstd -3 (%d bytes; target < 1)\n",
	       pq, b / pq, pq / zs, zs)
	if (ds > 0) printf("dataset: %.2f M events/s (%d traces of %d events)\n", dn * de / ds / 1e6, dn, de)
	if (d > 0) printf("DuckDB max(rt_ns): %.3f s, %.3f s of it node and DuckDB starting (target < 1 s)\n", d, z)
	bad = eps < 10e6 || b / pq < 8 || pq >= zs || (d > 0 && d >= 1)
	print bad ? "FAIL" : "PASS"
	exit bad
}'
