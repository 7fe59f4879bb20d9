#!/bin/sh
# verify.report: `tracekit report TRACE -r REQ.yaml` lists the requirements
# with pass or fail and links each failure's worst instance to the
# timeline: the page's data holds each verdict and its time (since the
# first event), and headless Chromium (when installed) draws the section,
# FAIL rows and the links (#view=..., the window the page zooms to).
# A bad requirements file: exit 2, no page.
set -u
cli=$1 root=$2
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

"$cli" report examples/demo.btf -r tests/verify/demo_fail.yaml -o "$tmp/fail.html"
[ $? = 0 ] || no "report -r: exit status not 0"
grep -qF '"reqs":[{"n":"control-rt","ok":0,"msg":"Task_Control RT: max 52us, bound max 51.9999us, margin -0.0001us; worst: Task_Control instance 0 at 52000ns","t":52000}' "$tmp/fail.html" ||
	no "the page's data lacks control-rt's verdict and time"
grep -qF '{"n":"core2-load-20us","ok":0,"msg":"Core_2 load per window of 20us: highest 100%, bound max 90%, margin -10%; worst: window of Core_2 from 2020000ns","t":2020000}' "$tmp/fail.html" ||
	no "the page's data lacks the window's verdict and start"
grep -qF '{"n":"absent","ok":0,"msg":"Task_Missing RT: Task_Missing is not in the trace"}' "$tmp/fail.html" ||
	no "the page's data lacks the absent entity's verdict"
"$cli" report examples/demo.btf -o "$tmp/none.html"
grep -qF '"reqs":[]' "$tmp/none.html" || no "a report without -r has requirements"
"$cli" report examples/demo.btf -r tests/verify/err_unit.yaml -o "$tmp/bad.html" 2> "$tmp/err"
[ $? = 2 ] || no "a bad requirements file: exit status not 2"
grep -q '^tests/verify/err_unit.yaml:5:8: error: ' "$tmp/err" || no "a bad requirements file: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.html" ] || no "a page after a bad requirements file"

if command -v chromium >/dev/null 2>&1; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$tmp/prof" --virtual-time-budget=5000 \
		--dump-dom "file://$tmp/fail.html" > "$tmp/dom.html" 2>/dev/null
	grep -q '<section id="reqsec">' "$tmp/dom.html" || no "the requirements section is not shown"
	n=$(grep -o '<td class="l"><b>FAIL</b></td>' "$tmp/dom.html" | wc -l)
	[ "$n" = "$(grep -c '^- name:' tests/verify/demo_fail.yaml)" ] || no "$n FAIL rows drawn"
	# the span is 2036000 ns: the link zooms to t -+ span/200
	grep -q 'href="#view=41820,62180" data-k="0"' "$tmp/dom.html" || no "control-rt's link to the timeline"
	grep -q 'href="#view=2009820,2030180" data-k="8"' "$tmp/dom.html" || no "the window's link to the timeline"
else
	echo "note: chromium not installed: the page's data checked, not its drawing"
fi
[ $fail = 0 ] && echo "ok: the report's requirements"
exit $fail
