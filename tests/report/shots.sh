#!/bin/sh
# The report's screenshots in docs/ (docs/exports.md shows them), taken in
# headless Chromium from pages written by this build:
#   report-tracecompass.png  the Trace Compass corpus trace, top of the page
#   report-worst-dense.png   a generated 1 M-event trace (short slices
#                            summarised), zoomed onto a worst RT by a click
#                            on its metric row: the instance is outlined
#   report-hists.png         histograms with their axes
#   report-tarmac-load.png   a Tarmac log where no handler runs: the core
#                            load says why it is empty
# usage: tests/report/shots.sh TRACEKIT GEN_BTF [SHARED]   (from the root)
set -eu
cli=$1 gen=$2 shared=${3:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# only(ID): the section holding ID moved up under the page's header (as drawn)
only="function only(id){const s=document.getElementById(id).closest('section');document.body.insertBefore(s,document.querySelector('section'));}"
# shot NAME TRACE WIDTHxHEIGHT SCRIPT: the page of TRACE, SCRIPT run after it
shot() {
	"$cli" report -q "$2" -o "$tmp/p.html"
	{ cat "$tmp/p.html"; printf '<script>%s\n%s</script>\n' "$only" "$4"; } > "$tmp/s.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/u" --hide-scrollbars --window-size="$3" \
		--screenshot="docs/$1" "file://$tmp/s.html" > /dev/null 2>&1
	echo "docs/$1: $(wc -c < "docs/$1") bytes"
}
"$gen" -n 1M -c 4 -s 1 "$tmp/dense.btf" 2> /dev/null
shot report-tracecompass.png "$shared/corpus/btf/tracecompass_20140219-123819.btf" 1100,560 ''
# the RT row of T1_1ms (its slices are shorter than the summary's threshold)
shot report-worst-dense.png "$tmp/dense.btf" 1100,520 \
	"const k=D.stats.findIndex(r=>D.ents[r.e][0]==='T1_1ms'&&r.m==='RT');document.querySelector('#stats tr[data-k=\"'+k+'\"]').click();window.scrollTo(0,0);"
shot report-hists.png "$shared/corpus/btf/tracecompass_20140219-123819.btf" 1100,470 \
	"only('hists');"
shot report-tarmac-load.png "$shared/corpus/tarmac/crash32m.tarmac" 1100,300 \
	"only('load');"
