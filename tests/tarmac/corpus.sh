#!/bin/sh
# Every file of the shared Tarmac corpus read in strict mode, its counts per
# line kind checked against values counted here independently with awk (the
# classification below looks only at the first word after the stamp and the
# CPU prefix, and for LD/ST lines the runs of bytes shown; it shares no
# code with the reader), and the ISR events of the
# adapter written as BTF.
# Usage: corpus.sh CLI DRIVER CORPUS_DIR
set -u
cli=$1 corpus=$2
[ -d "$corpus" ] || { echo "corpus not found at $corpus: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

count_awk='
function kind(line,   w, n, t) {
	sub(/\r$/, "", line)
	if (line ~ /^[ \t]*$/ || line ~ /^[ \t]*#/) return ""
	stamped = 0
	if (match(line, /^[ \t]*[0-9]+(\.[0-9]+)?[ \t]*(fs|ps|ns|us|ms|s|clk|cyc|tic|cs)[ \t]+/)) {
		line = substr(line, RLENGTH + 1); stamped = 1
	}
	sub(/^[ \t]+/, "", line)
	if (stamped && match(line, /^([A-Za-z0-9_]+\.)*cpu[0-9]+[ \t]+/)) line = substr(line, RLENGTH + 1)
	n = split(line, w, /[ \t]+/)
	t = w[1]
	if (t ~ /^I[TSFEA]$/) return "instruction"
	if (t == "ES") return (w[2] ~ /^\(/) ? "instruction" : "event"
	if (t == "R") return "register"
	if (t == "E" || t == "EXC" || t == "CADI" || t == "SIGNAL:" || t == "INFO_EXCEPTION_REASON:") return "event"
	if (t == "BR" || t == "FD") return "branch"
	if (t ~ /^B[NS][RW][0-9][O_][L_][S_][IDS_]$/) return "bus"
	if (t ~ /^M/ || t == "LD" || t == "ST" || t ~ /^[RW][0-9][0-9]$/) return "memory"
	if (!stamped && t ~ /^[0-9a-f]+$/) return "memory"
	if (t == "Tarmac" || t == "CACHE") return "other"
	return "unknown"
}
# an LD/ST line is one access per run of bytes its lanes show (pairs that
# are not ".."), as the parser of the Arm tools reads them
function runs(line,   w, n, s, i, r, inrun) {
	sub(/^.*[ \t](LD|ST)[ \t]+/, "", line)
	n = split(line, w, /[ \t]+/)
	s = w[2] w[3] w[4] w[5]
	r = 0; inrun = 0
	for (i = 1; i < length(s); i += 2)
		if (substr(s, i, 2) == "..") inrun = 0
		else if (!inrun) { r++; inrun = 1 }
	return r ? r : 1
}
{ k = kind($0); if (k != "") c[k] += (k == "memory" && $0 ~ /[ \t](LD|ST)[ \t]/) ? runs($0) : 1 }
END {
	printf "{\"instruction\": %d, \"register\": %d, \"event\": %d, \"memory\": %d, \"bus\": %d, \"branch\": %d, \"other\": %d}\n",
		c["instruction"], c["register"], c["event"], c["memory"], c["bus"], c["branch"], c["other"]
	if (c["unknown"]) print "unknown lines: " c["unknown"]
}'

n=0
for f in "$corpus"/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	n=$((n + 1))
	want=$(awk "$count_awk" "$f")
	if ! "$cli" info --strict --format json "$f" > "$tmp/info" 2> "$tmp/err"; then
		echo "FAIL $b: strict read: $(head -n 1 "$tmp/err")"; fail=1; continue
	fi
	got=$(sed -n 's/^  "kinds": \(.*\),$/\1/p' "$tmp/info")
	if [ "$got" != "$want" ]; then
		echo "FAIL $b: counts $got"; echo "     expected $want"; fail=1
	fi
	skipped=$(sed -n 's/^  "skipped": \([0-9]*\),$/\1/p' "$tmp/info")
	[ "$skipped" = 0 ] || { echo "FAIL $b: $skipped lines skipped"; fail=1; }
	# the ISR timeline: converts in lenient mode (parsertest mixes units)
	if ! "$cli" convert -q --from tarmac "$f" "$tmp/out.btf" 2> "$tmp/err"; then
		echo "FAIL $b: convert: $(head -n 1 "$tmp/err")"; fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "no corpus files"; exit 77; }

# exceptions derived from the corpus logs (counts of ISR starts per name)
starts() { "$cli" convert -q --from tarmac --to btf "$corpus/$1" - | awk -F, '$7 == "start" { c[$5]++ } END { for (k in c) print k "=" c[k] }' | sort | tr '\n' ' '; }
check_starts() {
	got=$(starts "$1")
	[ "$got" = "$2" ] || { echo "FAIL $1: ISR starts '$got', expected '$2'"; fail=1; }
}
check_starts crash32m.tarmac "HardFault=1 Reset=1 SVCall=1 "
check_starts crash64.tarmac "CURRENT_SPx_SYNC=6 "
check_starts crash32.tarmac "DataAbort=1 SWI=6 "
check_starts calculator-aarch64-es-ld-st-style.tarmac "Reset=1 "
check_starts edge-cases-real-producers.txt "Reset=1 SysTick=1 "
[ $fail = 0 ] && echo "corpus tarmac: $n files, all checks passed"
exit $fail
