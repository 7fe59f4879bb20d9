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

# the non-characters U+FFFE and U+FFFF (well-formed UTF-8 that XML 1.0
# does not allow) in a trace's path, an entity's name and a requirement's
# name come out as U+FFFD: XML a consumer reads
nc=$(printf 'x\357\277\276y\357\277\277z')
sed "s/Task_Control/Task_$nc/g" examples/demo.btf > "$tmp/$nc.btf"
printf '%s\n' '- name: "r\uFFFEs\uFFFFt"' '  entity: "Task_x\uFFFEy\uFFFFz"' '  metric: RT' '  max: 1us' \
	> "$tmp/nonchar.yaml"
"$cli" verify "$tmp/$nc.btf" -r "$tmp/nonchar.yaml" --format junit -o "$tmp/nonchar.xml"
[ $? = 1 ] || no "non-characters: exit status not 1"
xmllint --noout --schema tests/verify/junit.xsd "$tmp/nonchar.xml" || no "nonchar.xml is not valid JUnit XML"
LC_ALL=C grep -q "$(printf '\357\277[\276\277]')" "$tmp/nonchar.xml" && no "nonchar.xml holds U+FFFE or U+FFFF"
fffd=$(printf '\357\277\275')
[ "$(xp 'string(//testcase/@name)' "$tmp/nonchar.xml")" = "r${fffd}s${fffd}t" ] ||
	no "a requirement's name with U+FFFE, U+FFFF is not written with U+FFFD"
case "$(xp 'string(//testcase/failure/@message)' "$tmp/nonchar.xml")" in
*"worst: Task_x${fffd}y${fffd}z instance 0 at "*) ;;
*) no "an entity's name with U+FFFE, U+FFFF is not written with U+FFFD" ;;
esac
case "$(xp 'string(//testsuite/@name)' "$tmp/nonchar.xml")" in
*"/x${fffd}y${fffd}z.btf") ;;
*) no "a trace's path with U+FFFE, U+FFFF is not written with U+FFFD" ;;
esac

# no partial output file
"$cli" verify examples/demo.btf tests/cli/no_such.btf -r tests/verify/demo_pass.yaml \
	--format junit -o "$tmp/none.xml" 2>/dev/null
[ $? = 2 ] || no "exit status of an unreadable trace is not 2"
[ ! -e "$tmp/none.xml" ] || no "an output file after an unreadable trace"
ls -A "$tmp" | grep -q '\.tmp' && no "a temporary file left"

# OUT that is not a regular file is written as it is, never replaced by
# one: a symbolic link's file, a FIFO (read by a reader of its own)
echo old > "$tmp/target.xml"
ln -s target.xml "$tmp/link.xml"
"$cli" verify examples/demo.btf -r tests/verify/demo_pass.yaml --format junit -o "$tmp/link.xml"
[ $? = 0 ] || no "-o a symbolic link: exit status not 0"
[ -L "$tmp/link.xml" ] || no "-o a symbolic link: the link was replaced by a file"
cmp -s "$tmp/target.xml" "$tmp/pass.xml" || no "-o a symbolic link: its file not written"
if mkfifo "$tmp/fifo"; then
	timeout 20 cat "$tmp/fifo" > "$tmp/fifo.xml" &
	reader=$!
	"$cli" verify examples/demo.btf -r tests/verify/demo_pass.yaml --format junit -o "$tmp/fifo"
	[ $? = 0 ] || no "-o a FIFO: exit status not 0"
	[ -p "$tmp/fifo" ] || { no "-o a FIFO: the FIFO was replaced by a file"; kill $reader; }
	wait $reader
	cmp -s "$tmp/fifo.xml" "$tmp/pass.xml" || no "-o a FIFO: the reader did not get the output"
fi
# a device that fails a write (only once the above holds: a binary that
# replaces what OUT names would replace the device, as root)
if [ $fail = 0 ] && [ -c /dev/full ] && [ -w /dev/full ]; then
	"$cli" verify examples/demo.btf -r tests/verify/demo_pass.yaml -o /dev/full 2> "$tmp/err"
	[ $? = 2 ] || no "-o /dev/full: exit status not 2"
	[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'No space left on device' "$tmp/err" ||
		no "-o /dev/full: not one line naming the error: $(cat "$tmp/err")"
	[ -c /dev/full ] || no "-o /dev/full: /dev/full is no longer a device"
fi
# OUT naming a trace or the requirements file: refused, both left whole
cp examples/demo.btf "$tmp/self.btf"
cp tests/verify/demo_pass.yaml "$tmp/self.yaml"
for o in "$tmp/self.btf" "$tmp/self.yaml"; do
	"$cli" verify "$tmp/self.btf" -r "$tmp/self.yaml" -o "$o" > /dev/null 2> "$tmp/err"
	[ $? = 2 ] || no "-o $o (an input): exit status not 2"
	[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'error: the output is the input' "$tmp/err" ||
		no "-o $o (an input): not one line saying so: $(cat "$tmp/err")"
done
cmp -s "$tmp/self.btf" examples/demo.btf || no "-o the trace: the trace was replaced"
cmp -s "$tmp/self.yaml" tests/verify/demo_pass.yaml || no "-o the requirements: the file was replaced"
[ $fail = 0 ] && echo "ok: JUnit XML valid and read back"
exit $fail
