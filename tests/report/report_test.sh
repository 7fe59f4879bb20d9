#!/bin/sh
# `tracekit report` looked at as a person would: the page is opened in
# headless Chromium, which must log no JavaScript error, and the page's own
# marker (#tk-status, written after everything is drawn) must show a drawn
# timeline, metric table, histograms and load; a screenshot must come out.
# Also: the page is self-contained, bounded, and a failed run leaves no file.
# Then every corpus trace and a generated 1 M-event trace are used as a
# person would (harness.js, appended to a copy of each page: zoom, clicks on
# the metric rows, scrolled tables) and what is drawn is checked.
# usage: report_test.sh TRACEKIT ROOT SHARED            (77: no chromium)
#        report_test.sh TRACEKIT ROOT SHARED --harness GEN_BTF [GEN_ENTITIES]
# The second form runs only the harness over every trace (a test of its own,
# so that CTest runs the two halves side by side); with GEN_ENTITIES also
# over a generated trace of 8,192 cores (one lane and one load band each:
# the page must scroll them, no canvas larger than the browser draws).
# That harness is exhaustive under `make test-full` (TK_TEST_FULL=1); `make
# test` samples it: four corpus traces (BTF of Trace Compass and of Vector's
# tools, S.Ha.R.K., a Tarmac log of gem5) and the 8,192-core trace, without
# the 1 M-event one.
# TK_REPORT_SHOTS=DIR keeps a screenshot of every page in DIR.
# The pages of a run are opened by a single headless Chromium (chrome.py:
# one after the other in a tab of a profile of its own, its DOM, messages
# and screenshot as `chromium --headless --dump-dom` / `--screenshot` give
# them): a browser started per page was most of this test's time, then a
# tab and profile per page (a renderer process each).
set -u
cli=$1 root=$2 shared=$3 mode=${4:-} gen=${5:-} gen_ent=${6:-}
command -v chromium >/dev/null 2>&1 || { echo "skipped: chromium is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# the interpreter itself, found once (python3 may be a launcher that costs
# more than the scripts run by it, for every call)
py=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) && [ -x "$py" ] || py=python3
# the pages are opened by one headless Chromium (chrome.py), in turn in
# one tab: the jobs are gathered in $tmp/jobs (URL, DOM, log, and
# screenshot files, window size), then run together
jobs="$tmp/jobs"
: > "$jobs"
job() { # job URL DOM LOG [SCREENSHOT [WxH]]
	printf '%s' "$1" >> "$jobs"
	shift
	printf '\t%s' "$@" >> "$jobs"
	printf '\n' >> "$jobs"
}
chrome_run() {
	"$py" "$root/tests/report/chrome.py" "$jobs" || { echo "FAIL: chromium could not be run"; fail=1; }
	: > "$jobs"
}
# a page's JavaScript errors (uncaught, or messages that say error), or
# what kept it from loading
js_errors() { # js_errors LOG WHAT
	if grep -q '^FAIL' "$1"; then
		echo "FAIL: $2: the page was not read:"; grep '^FAIL' "$1"; fail=1
	fi
	if grep -E 'CONSOLE|Uncaught' "$1" | grep -Eiq 'error|uncaught'; then
		echo "FAIL: $2: JavaScript errors:"; grep -E 'CONSOLE|Uncaught' "$1"; fail=1
	fi
}
if [ "$mode" = --harness ]; then
# every section of every corpus trace and of a dense trace (1 M events: its
# short slices are summarised, the worst instances must still show)
traces=$(find "$shared/corpus" -type f ! -path '*/elf/*' ! -name '*.md' | sort)
if [ "${TK_TEST_FULL:-0}" != 1 ]; then
	traces=$(echo "$traces" | grep -E '/(tracecompass_[^/]*|task_migration|shark-demo-trace|calculator-aarch64-gem5)\.[a-z]+$')
	gen=
fi
if [ -n "$gen" ]; then
	"$gen" -n 1M -c 4 -s 1 "$tmp/dense-1M.btf" 2>/dev/null || { echo "FAIL: the 1 M-event trace"; fail=1; }
	traces="$traces $tmp/dense-1M.btf"
fi
if [ -n "$gen_ent" ]; then
	"$gen_ent" -t 8192 -c 8192 -i 4 "$tmp/cores-8192.btf" || { echo "FAIL: the 8,192-core trace"; fail=1; }
	traces="$traces $tmp/cores-8192.btf"
fi
k=0
for trace in "$root/examples/demo.btf" $traces; do
	k=$((k + 1))
	name=$(basename "$trace")
	page="$tmp/h-$name.html"
	if ! "$cli" report -q "$trace" -o "$page"; then
		echo "FAIL: $name: report failed"; fail=1; continue
	fi
	{ cat "$page"; printf '<script>\n'; cat "$root/tests/report/harness.js"; printf '</script>\n'; } > "$tmp/t$k.html"
	job "file://$tmp/t$k.html" "$tmp/dom$k" "$tmp/log$k"
	if [ -n "${TK_REPORT_SHOTS:-}" ]; then
		job "file://$page" - - "$TK_REPORT_SHOTS/$name.png" 1400x2400
	fi
done
chrome_run
k=0
for trace in "$root/examples/demo.btf" $traces; do
	k=$((k + 1))
	name=$(basename "$trace")
	[ -f "$tmp/t$k.html" ] || continue
	touch "$tmp/dom$k" "$tmp/log$k"
	"$py" "$root/tests/report/harness_result.py" "$tmp/dom$k" "$name" || fail=1
	js_errors "$tmp/log$k" "$name"
done
exit $fail
fi
pages="$root/examples/demo.btf
$shared/corpus/btf/tracecompass_20140219-123819.btf
$shared/corpus/btf/app4mc_example1_task_only_short.btf
$shared/corpus/shark/shark-demo-trace.bin"
# make test: without the APP4MC one (make test-full: all)
[ "${TK_TEST_FULL:-0}" = 1 ] || pages=$(echo "$pages" | grep -v app4mc_)
k=0
for trace in $pages; do
	k=$((k + 1))
	[ -f "$trace" ] || continue
	name=$(basename "$trace" .btf)
	page="$tmp/$name.html"
	if ! "$cli" report -q "$trace" -o "$page"; then
		echo "FAIL: $name: report failed"; fail=1; continue
	fi
	size=$(wc -c < "$page")
	[ "$size" -le 10485760 ] || { echo "FAIL: $name: page is $size bytes"; fail=1; }
	# self-contained: nothing is fetched
	if grep -Eiq '<(link|img|iframe)|src=|https?://' "$page"; then
		echo "FAIL: $name: the page refers to something outside it"; fail=1
	fi
	# a screenshot of every page (make test: of the first)
	shot=-
	if [ "${TK_TEST_FULL:-0}" = 1 ] || [ -z "${shot_taken:-}" ]; then
		shot_taken=1
		shot="$tmp/$name.png"
	fi
	job "file://$page" "$tmp/dom$k" "$tmp/log$k" "$shot"
done
# what the page shows and does, checked on a small trace (behaviour.js:
# run intervals, the preemption outlined, relative and absolute times, the
# unit column and sorting, the view in the address, the load's axes and
# zoom), on a window of it (--start/--end: lanes and axis as in the whole),
# and opened with a view in its address
behave() { # behave CASE PAGE [#FRAGMENT]
	{ cat "$2"; printf '<script>window.TK_CASE="%s";\n' "$1"; cat "$root/tests/report/behaviour.js"; printf '</script>\n'; } > "$tmp/b-$1.html"
	job "file://$tmp/b-$1.html${3:-}" "$tmp/dom-$1" "$tmp/log-$1"
}
b="$root/tests/report/behaviour.btf"
cases=
if "$cli" report -q "$b" -o "$tmp/b1.html" && "$cli" report -q "$b" --start 410ns --end 1200ns -o "$tmp/b2.html"; then
	behave whole "$tmp/b1.html"
	behave window "$tmp/b2.html"
	behave address "$tmp/b1.html" '#view=20,60&time=abs'
	cases="whole window address"
	# the same an hour and a bit later: absolute moments to the ns
	awk -F, -v OFS=, '/^#/ { print; next } { $1 = sprintf("%.0f", $1 + 3600123456789); print }' "$b" > "$tmp/late.btf" &&
		"$cli" report -q "$tmp/late.btf" -o "$tmp/b3.html" && behave late "$tmp/b3.html" '#time=abs' &&
		cases="$cases late" || { echo "FAIL: report of behaviour.btf an hour later"; fail=1; }
else
	echo "FAIL: report of behaviour.btf"; fail=1
fi
chrome_run
k=0
for trace in $pages; do
	k=$((k + 1))
	name=$(basename "$trace" .btf)
	page="$tmp/$name.html"
	[ -f "$page" ] || continue
	size=$(wc -c < "$page")
	touch "$tmp/dom$k" "$tmp/log$k"
	status=$(sed -n 's/.*id="tk-status"[^>]*>\([^<]*\)<.*/\1/p' "$tmp/dom$k")
	errors=$(sed -n 's/.*id="tk-errors">\([^<]*\)<.*/\1/p' "$tmp/dom$k")
	case "$status" in
	"drawn: timeline slices="[1-9]*" lanes="[1-9]*" stats="[1-9]*" hists="[0-9]*" load="[1-9]*) ;;
	*) echo "FAIL: $name: page status '$status'"; fail=1 ;;
	esac
	[ -z "$errors" ] || { echo "FAIL: $name: page errors: $errors"; fail=1; }
	js_errors "$tmp/log$k" "$name"
	grep -q '<tr class="click"' "$tmp/dom$k" || { echo "FAIL: $name: no metric rows drawn"; fail=1; }
	# the text shown has decimals, no fraction N/D (tooltips may have them)
	frac=$("$py" -c 'import re,sys
t=open(sys.argv[1],encoding="utf-8").read()
t=re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<[^>]*>"," ",t)
t=t.replace(sys.argv[2]," ")
print(" ".join(re.findall(r"\d+/\d+",t)[:3]))' "$tmp/dom$k" "$trace")
	[ -z "$frac" ] || { echo "FAIL: $name: fractions shown: $frac"; fail=1; }
	if [ "${TK_TEST_FULL:-0}" = 1 ] || [ -z "${shot_checked:-}" ]; then
		shot_checked=1
		shot=$(wc -c < "$tmp/$name.png" 2>/dev/null || echo 0)
		[ "$shot" -gt 20000 ] || { echo "FAIL: $name: screenshot missing or blank ($shot bytes)"; fail=1; }
	fi
	echo "ok: $name: $size bytes, $status"
done
for c in $cases; do
	touch "$tmp/dom-$c" "$tmp/log-$c"
	"$py" "$root/tests/report/harness_result.py" "$tmp/dom-$c" "behaviour.btf $c" || fail=1
	js_errors "$tmp/log-$c" "behaviour $c"
done
# the check problems are listed
if [ -f "$shared/corpus/btf/app4mc_example1_task_only_short.btf" ]; then
	"$cli" report -q "$shared/corpus/btf/app4mc_example1_task_only_short.btf" -o "$tmp/p.html"
	grep -q '"rule":"activator"' "$tmp/p.html" || { echo "FAIL: the check problems are not in the page"; fail=1; }
fi
# names in UTF-8 are kept as they are, a stray byte becomes U+FFFD, and
# nothing in a name can close the page's <script>
printf '#version 2.2.0\n#timescale ns\n0,Core_1,0,T,T\303\242che</script>,0,start\n5,Core_1,0,T,Bad\377,0,start\n9,Core_1,0,T,Bad\377,0,terminate\n9,Core_1,0,T,Sep\342\200\250\342\200\251,0,start\n10,Core_1,0,T,T\303\242che</script>,0,terminate\n' > "$tmp/u.btf"
if "$cli" report -q "$tmp/u.btf" -o "$tmp/u.html"; then
	grep -qF "$(printf 'T\303\242che\\u003c/script\\u003e')" "$tmp/u.html" ||
		{ echo "FAIL: a UTF-8 name is not kept (or '</script>' not escaped)"; fail=1; }
	grep -qF 'Bad\ufffd' "$tmp/u.html" || { echo "FAIL: a stray byte is not U+FFFD"; fail=1; }
	# U+2028/U+2029 escaped: a script before ES2019 ends its string there
	if grep -q "$(printf '\342\200\250')" "$tmp/u.html" || ! grep -qF 'Sep\u2028\u2029' "$tmp/u.html"; then
		echo "FAIL: U+2028/U+2029 in a name are not escaped in the page's script"; fail=1
	fi
else
	echo "FAIL: report of UTF-8 names"; fail=1
fi
# a failed run leaves nothing
printf '#version 2.3.0\n#timescale ns\n0,A,0,T,B,0,strat\n' > "$tmp/bad.btf"
if "$cli" report -q --strict "$tmp/bad.btf" -o "$tmp/bad.html" 2>/dev/null; then
	echo "FAIL: a bad trace gave a report"; fail=1
fi
if ls "$tmp"/bad.html* >/dev/null 2>&1; then echo "FAIL: a failed run left a file"; fail=1; fi
"$cli" report "$root/examples/demo.btf" > /dev/null 2>&1 && { echo "FAIL: no -o accepted"; fail=1; }
# -o '' (an empty name): one error that says so, for the report and an export
for c in "report -q $root/examples/demo.btf -o" "convert -q $root/examples/demo.btf --to json" "convert -q $root/examples/demo.btf --to ctf"; do
	(cd "$tmp" && "$cli" $c '' 2> "$tmp/empty.err")
	st=$?
	if [ $st -ne 2 ] || [ "$(wc -l < "$tmp/empty.err")" -ne 1 ] || ! grep -q "name is empty" "$tmp/empty.err"; then
		echo "FAIL: $c '': exit $st: $(cat "$tmp/empty.err")"; fail=1
	fi
done
# -o naming the trace itself (or a link to it) is an error: the trace stays
cp "$root/examples/demo.btf" "$tmp/self.btf" && ln -s self.btf "$tmp/self-link.html"
for o in "$tmp/self.btf" "$tmp/self-link.html"; do
	"$cli" report -q "$tmp/self.btf" -o "$o" 2> "$tmp/self.err"
	st=$?
	if [ $st -ne 2 ] || [ "$(wc -l < "$tmp/self.err")" -ne 1 ] || ! cmp -s "$tmp/self.btf" "$root/examples/demo.btf"; then
		echo "FAIL: report -o $(basename "$o") (the input): exit $st, the trace replaced or not one error: $(cat "$tmp/self.err")"; fail=1
		cp "$root/examples/demo.btf" "$tmp/self.btf"
	fi
done
# -o a symbolic link whose file is not there yet (a chain of two, one
# relative): the links stay, the file they lead to is written
mkdir "$tmp/ln"
ln -s ln/page.html "$tmp/link1.html" && ln -s link1.html "$tmp/link2.html"
if "$cli" report -q "$root/examples/demo.btf" -o "$tmp/link2.html" &&
   [ -L "$tmp/link2.html" ] && [ -L "$tmp/link1.html" ] && [ -s "$tmp/ln/page.html" ]; then :; else
	echo "FAIL: -o a dangling symbolic link: the link was not kept, or its file not written"; fail=1
fi
exit $fail
