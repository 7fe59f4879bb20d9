#!/bin/sh
# verify.junit: `verify --format junit -o OUT` read back by a consumer,
# xmllint, against tests/verify/junit.xsd (the JUnit XML of Jenkins and
# GitLab): valid, a testsuite per trace, a testcase per requirement, a
# failure with the message where one fails, none where all hold; OUT is
# not written when a trace is unreadable.
set -u
cli=$1 root=$2
cd "$root" || exit 1
command -v xmllint >/dev/null || { echo "skipped: no xmllint"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
xp() { xmllint --xpath "$1" "$2" 2>/dev/null; }

"$cli" verify examples/demo.btf tests/cli/stats_chain.btf -r tests/verify/demo_fail.yaml \
	--format junit -o "$tmp/fail.xml"
[ $? = 1 ] || no "exit status of failing requirements is not 1"
xmllint --noout --schema tests/verify/junit.xsd "$tmp/fail.xml" || no "fail.xml is not valid JUnit XML"
n=$(grep -c '^- name:' tests/verify/demo_fail.yaml)
[ "$(xp 'count(//testsuite)' "$tmp/fail.xml")" = 2 ] || no "not one testsuite per trace"
[ "$(xp 'count(//testsuite[1]/testcase)' "$tmp/fail.xml")" = "$n" ] || no "not one testcase per requirement"
[ "$(xp 'count(//testsuite[1]/testcase[failure])' "$tmp/fail.xml")" = "$n" ] || no "not every requirement failed on the demo"
[ "$(xp 'string(/testsuites/@failures)' "$tmp/fail.xml")" = "$(xp 'count(//failure)' "$tmp/fail.xml")" ] ||
	no "testsuites/@failures is not the number of failures"
[ "$(xp 'string(//testsuite[1]/@name)' "$tmp/fail.xml")" = examples/demo.btf ] || no "the testsuite is not named by its trace"
msg=$(xp 'string(//testsuite[1]/testcase[@name="control-rt"]/failure/@message)' "$tmp/fail.xml")
case "$msg" in
*"max 52us, bound max 51.9999us, margin -0.0001us; worst: Task_Control instance 0 at 52000ns") ;;
*) no "control-rt's failure message: $msg" ;;
esac
msg=$(xp 'string(//testsuite[1]/testcase[@name="absent"]/failure/@message)' "$tmp/fail.xml")
case "$msg" in
*"Task_Missing is not in the trace") ;;
*) no "absent's failure message: $msg" ;;
esac

"$cli" verify examples/demo.btf -r tests/verify/demo_pass.yaml --format junit -o "$tmp/pass.xml"
[ $? = 0 ] || no "exit status of holding requirements is not 0"
xmllint --noout --schema tests/verify/junit.xsd "$tmp/pass.xml" || no "pass.xml is not valid JUnit XML"
[ "$(xp 'count(//failure)' "$tmp/pass.xml")" = 0 ] || no "a failure where every requirement holds"
[ "$(xp 'count(//testcase)' "$tmp/pass.xml")" = "$(grep -c '^  - name:' tests/verify/demo_pass.yaml)" ] ||
	no "not one testcase per requirement (pass)"

# names with markup and bytes that are not UTF-8 stay well-formed XML
printf '%s\n' '- name: "a<b>&\"c'"'"'"' '  entity: "T<&>"' '  metric: RT' '  max: 1ms' > "$tmp/markup.yaml"
"$cli" verify examples/demo.btf -r "$tmp/markup.yaml" --format junit -o "$tmp/markup.xml"
xmllint --noout --schema tests/verify/junit.xsd "$tmp/markup.xml" || no "markup.xml is not valid JUnit XML"
[ "$(xp 'string(//testcase/@name)' "$tmp/markup.xml")" = "a<b>&\"c'" ] || no "a name with markup did not come back"

# no partial output file
"$cli" verify examples/demo.btf tests/cli/no_such.btf -r tests/verify/demo_pass.yaml \
	--format junit -o "$tmp/none.xml" 2>/dev/null
[ $? = 2 ] || no "exit status of an unreadable trace is not 2"
[ ! -e "$tmp/none.xml" ] || no "an output file after an unreadable trace"
ls "$tmp" | grep -q tmpXX && no "a temporary file left"
[ $fail = 0 ] && echo "ok: JUnit XML valid and read back"
exit $fail
