#!/usr/bin/env bash
# python.sh - the Python module's Trace.to_numpy() (and to_pandas()) on the
# BTF trace of btf_read.sh, beside pandas.read_csv on the same file, measured
# in the same rounds (issue 40: to_numpy() at >= 10 M events/s, memory about
# the size of the arrays).
#
#   bash bench/python.sh
#
# Environment (all optional):
#   N=10000000 CORES=4 SEED=1   the trace of bench/btf_read.sh (made here with
#                               bench/gen_btf.c when it is missing)
#   RUNS=3                      timed runs per command; the median is reported
#   TRACEKIT=build/tracekit     the build whose python/ module is measured
#   PYTHON=/usr/bin/python3     Debian's interpreter (python3-numpy, -pandas)
#   CC=cc                       compiler for the generator and rusage helper
#
# Each row is a whole process (the interpreter's start and imports included:
# the "import tracekit, numpy" row is that part alone); events/s = N /
# median seconds; each command also times the call alone (wall and CPU
# seconds, every run: the medians are printed).  The host's load average
# is printed before and after the rounds.  The target is checked on the
# call, tracekit.open() and to_numpy() (the median of its wall seconds):
# the process adds the interpreter's start and the imports of tracekit and
# numpy, the first row.  Exit status: 0, or 1 when to_numpy() is below the
# target.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${RUNS:-3}
. "$HERE/lib.sh"
bench_init python

N=${N:-10000000}
CORES=${CORES:-4}
SEED=${SEED:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
TARGET_EPS=10000000
PYDIR=$(cd "$(dirname "$TRACEKIT")" && pwd)/python

[[ -f $PYDIR/tracekit/__init__.py ]] || bench_die "$PYDIR/tracekit is missing (build with 'make')"
"$PYTHON" -c 'import numpy, pandas' 2> /dev/null ||
	bench_die "$PYTHON has no numpy or pandas (apt-get install python3-numpy python3-pandas)"

bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"
TRACE="$OUT/trace_n${N}_c${CORES}_s${SEED}.btf"
if [[ ! -s $TRACE || $BIN/gen_btf -nt $TRACE ]]; then
	echo "generating $TRACE ..."
	"$BIN/gen_btf" -n "$N" -c "$CORES" -s "$SEED" "$TRACE.tmp"
	mv -f "$TRACE.tmp" "$TRACE"
fi
bench_input "$TRACE"
export PYTHONPATH=$PYDIR

# the columns of a BTF line (an 8th, the note, on some lines)
CSV_NAMES='["time", "source", "source_inst", "target_type", "target", "target_inst", "event", "note"]'

# each prints: events, bytes of its arrays, seconds of the call alone; and
# appends the call's wall and CPU seconds to $OUT/SLUG.calls (every run)
for s in py_numpy py_pandas py_read_csv; do : > "$OUT/$s.calls"; done
CALL_T0='import sys, time
t0, c0 = time.perf_counter(), time.process_time()'
CALL_T1='t1, c1 = time.perf_counter(), time.process_time()
print(n, nbytes, t1 - t0)
with open(sys.argv[2], "a") as f:
    f.write("%.6f %.6f\n" % (t1 - t0, c1 - c0))'
run_bench "python3 -c 'import tracekit, numpy'" py_import - - - -- \
	"$PYTHON" -c 'import tracekit, numpy'
run_bench "Trace.to_numpy()" py_numpy - - - -- "$PYTHON" -c '
import tracekit, numpy
'"$CALL_T0"'
a, names = tracekit.open(sys.argv[1]).to_numpy()
n, nbytes = len(a), a.nbytes
'"$CALL_T1" "$TRACE" "$OUT/py_numpy.calls"
run_bench "Trace.to_pandas()" py_pandas - - - -- "$PYTHON" -c '
import tracekit, pandas
'"$CALL_T0"'
df = tracekit.open(sys.argv[1]).to_pandas()
n, nbytes = len(df), df.memory_usage(deep=False).sum()
'"$CALL_T1" "$TRACE" "$OUT/py_pandas.calls"
run_bench "pandas.read_csv (the peer)" py_read_csv - - - -- "$PYTHON" -c '
import pandas
'"$CALL_T0"'
df = pandas.read_csv(sys.argv[1], comment="#", header=None, names='"$CSV_NAMES"')
n, nbytes = len(df), df.memory_usage(deep=False).sum()
'"$CALL_T1" "$TRACE" "$OUT/py_read_csv.calls"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_report "Python benchmark: $(basename "$TRACE"), $BYTES bytes, $N events" \
	"python: $("$PYTHON" -c 'import sys, numpy, pandas; print(sys.version.split()[0], "numpy", numpy.__version__, "pandas", pandas.__version__)')"

echo "load average before the rounds: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)"
# events/s of each row (rows 3-5 of the results): the process (median
# wall seconds), the call alone (median wall seconds; its median CPU
# seconds, user + system, beside)
row=3
for s in py_numpy py_pandas py_read_csv; do
	read -r nev nbytes _ < "$OUT/$s.stdout" || true
	cw=$(awk '{ print $1 }' "$OUT/$s.calls" | bench_median)
	cc=$(awk '{ print $2 }' "$OUT/$s.calls" | bench_median)
	awk -F'\t' -v n="$N" -v row=$row -v nev="${nev:-0}" -v nb="${nbytes:-0}" \
		-v cw="${cw:-0}" -v cc="${cc:-0}" 'NR == row && $2 != "-" {
		printf("%-28s %6.2f M events/s (process), %6.2f M events/s (the call alone; its CPU %.3f s), peak RSS %s MB, arrays %.1f MB, %d events\n",
		       $1, n / $2 / 1e6, cw > 0 ? n / cw / 1e6 : 0, cc, $4, nb / 1e6, nev)
	}' "$RESULTS"
	row=$((row + 1))
done
sec=$(awk -F'\t' 'NR == 3 { print $2 }' "$RESULTS")
[[ $sec != - ]] || bench_die "to_numpy() failed (see $OUT/py_numpy.stderr)"
cw=$(awk '{ print $1 }' "$OUT/py_numpy.calls" | bench_median)
eps=$(awk -v n="$N" -v s="$cw" 'BEGIN { printf("%.0f", n / s) }')
peps=$(awk -v n="$N" -v s="$sec" 'BEGIN { printf("%.0f", n / s) }')
echo "Trace.to_numpy(): $eps events/s (target >= $TARGET_EPS: open() and to_numpy(), median wall of the call; the whole process $peps)"
awk -v e="$eps" -v t="$TARGET_EPS" 'BEGIN { exit !(e + 0 >= t + 0) }' || { echo "FAIL"; exit 1; }
echo "PASS"
