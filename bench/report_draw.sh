#!/usr/bin/env bash
# report_draw.sh - time the HTML report's timeline drawing (draw() in
# src/exports/report/report.html) in headless Chromium on the page of a
# generated dense trace (the page report.harness checks at 1 M events),
# as its own handlers run it (report_draw.js, appended to a copy of the
# page, opened by tests/report/chrome.py):
#   near-whole-view     one wheel step in from the whole trace (80 % of it:
#                       every interval of it drawn)
#   whole-trace-button  the "whole trace" button after a zoom
#   metric-row-click    a click on a metric row (zoom onto its worst
#                       instance, outlined)
#
#   bash bench/report_draw.sh
#
# Environment (all optional): N=1M events, CORES=4, RUNS=15 draws of each
# (the median, min and max are printed), TRACEKIT, CC.
# Writes to bench/out/ (gitignored): gen_btf, the trace, the page.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
RUNS=${RUNS:-15}
bench_init report_draw
N=${N:-1M}
CORES=${CORES:-4}
command -v chromium > /dev/null || bench_die "no chromium"
bench_build "$HERE/gen_btf.c" "$BIN/gen_btf"
[[ -x $TRACEKIT ]] || bench_die "no $TRACEKIT (build first)"
trace="$OUT/report_draw_n${N}_c${CORES}.btf"
if [[ ! -s $trace || $BIN/gen_btf -nt $trace ]]; then
	"$BIN/gen_btf" -n "$N" -c "$CORES" -s 1 "$trace.tmp" 2> /dev/null
	mv -f "$trace.tmp" "$trace"
fi
"$TRACEKIT" report -q "$trace" -o "$OUT/report_draw.html"
{ cat "$OUT/report_draw.html"; printf '<script>window.TK_BENCH_RUNS=%d;\n' "$RUNS"; cat "$HERE/report_draw.js"; printf '</script>\n'; } > "$OUT/report_draw_t.html"
printf 'file://%s\t%s\t%s\n' "$OUT/report_draw_t.html" "$OUT/report_draw.dom" "$OUT/report_draw.log" > "$OUT/report_draw.jobs"
python3 "$ROOT/tests/report/chrome.py" "$OUT/report_draw.jobs"
res=$(python3 -c 'import re,sys; m=re.findall(r"<pre id=\"tk-bench\">(.*?)</pre>",open(sys.argv[1],encoding="utf-8").read(),re.S); print(m[-1] if m else "")' "$OUT/report_draw.dom")
[[ -n $res ]] || { cat "$OUT/report_draw.log" >&2; bench_die "the page gave no figures"; }
echo "report draw(), $N events on $CORES cores ($(wc -c < "$OUT/report_draw.html") byte page), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %10s %10s %10s %4s\n' measure median_ms min_ms max_ms n
echo "$res" | while read -r name med lo hi n; do printf '%-20s %10s %10s %10s %4s\n' "$name" "$med" "$lo" "$hi" "$n"; done
