#!/bin/sh
# tracekit shark-receive (udpdump) on loopback, with a python3 sender of
# TRACER-V1.0 datagrams (reference 1.8: 24-byte header, u32 pkt_number from
# 1, u32 number_of_events, u32 total_size with the header, then 16-byte
# records; at most 60 per datagram):
# 1. packets 1 2 4 3 6 7 (5 lost, 3 late), a repeat of 2, a datagram that is
#    not TRACER, a TRACER datagram whose sizes lie; ended by SIGINT.  The
#    file must be the records of packets 1,2,3,4,6,7 in number order, the
#    report must name packet 5, the exit status is 1.
# 2. the same records without the loss, ended by --count: exit 0, and
#    tracekit reads the file to the same events as the dump the sender cut.
# 3. no packet before --timeout: exit 1, no file.
set -u
cli=$1
command -v python3 > /dev/null || { echo "python3 missing: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/send.py" <<'PY'
import socket, struct, sys
port, mode, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
CLK = 1000
def rec(code, par1, tsc, par2=0):
    return struct.pack('<HHIII', code, par1, tsc >> 32, tsc & 0xffffffff, par2)
# 7 packets of records: packet k holds 60 records (the last one 17)
recs = [rec(0x20, 256, 1000, CLK)]
for i in range(1, 60 * 6 + 17):
    recs.append(rec(0x15, 256 + 8 * (i % 3), 1000 + 10 * i))
pk = [recs[i:i + 60] for i in range(0, len(recs), 60)]
assert len(pk) == 7 and len(pk[6]) == 17
def dgram(num, rs, lie=0):
    body = b''.join(rs)
    return struct.pack('<12sIII', b'TRACER-V1.0', num, len(rs), 24 + len(body) + lie) + body
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst = ('127.0.0.1', port)
if mode == 'gaps':
    order = [1, 2, 4, 3, 6, 7]
    s.sendto(b'HELLO not a tracer packet', dst)
    for n in order:
        s.sendto(dgram(n, pk[n - 1]), dst)
        if n == 4:
            s.sendto(dgram(2, pk[1]), dst)        # a repeat
    s.sendto(dgram(8, pk[0], lie=16), dst)         # sizes disagree
    want = b''.join(b''.join(pk[n - 1]) for n in sorted(order))
else:
    for n in range(1, 8):
        s.sendto(dgram(n, pk[n - 1]), dst)
    want = b''.join(recs)
open(out, 'wb').write(want)
PY

# start the receiver on a free port; wait for its "listening" line
start() {
	"$cli" shark-receive --bind 127.0.0.1 --port 0 "$@" 2> "$tmp/err" &
	pid=$!
	i=0
	while ! grep -q "listening on" "$tmp/err" 2> /dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && { echo "FAIL: receiver did not start"; cat "$tmp/err"; exit 1; }
		sleep 0.1
	done
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/err")
}

# 1. gaps, late, repeated, foreign and malformed datagrams; SIGINT
start "$tmp/gaps.bin"
python3 "$tmp/send.py" "$port" gaps "$tmp/gaps.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.5
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL gaps: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/gaps.bin" "$tmp/gaps.want" || { echo "FAIL gaps: file differs"; fail=1; }
for want in "missing packet 5" "1 packets missing" "317 records (5072 bytes) from 6 packets, numbers 1-7" \
	    "1 packets came out of order" "1 repeated packets dropped" \
	    "2 datagrams ignored (1 not TRACER, 1 malformed)" "packet 8 ignored: 984 bytes, header says 1000 bytes and 60 events"; do
	grep -qF "$want" "$tmp/err" || { echo "FAIL gaps: report lacks '$want'"; cat "$tmp/err"; fail=1; }
done
ls "$tmp" | grep -q 'tmp-' && { echo "FAIL: a temporary file is left"; fail=1; }

# 2. complete, ended by --count; tracekit reads it like the sender's dump
start --count 377 "$tmp/all.bin"
python3 "$tmp/send.py" "$port" all "$tmp/all.want" || { echo "FAIL: sender"; exit 1; }
wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] || { echo "FAIL all: exit $rc"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/all.bin" "$tmp/all.want" || { echo "FAIL all: file differs"; fail=1; }
grep -q missing "$tmp/err" && { echo "FAIL all: reports missing packets"; fail=1; }
"$cli" cat -q --from shark "$tmp/all.bin" > "$tmp/a" && "$cli" cat -q --from shark "$tmp/all.want" > "$tmp/b" &&
	cmp -s "$tmp/a" "$tmp/b" && [ "$(grep -c context_switch "$tmp/a" || true)" -ge 0 ] ||
	{ echo "FAIL all: tracekit reads the received file differently"; fail=1; }
n=$("$cli" info -q --from shark "$tmp/all.bin" | sed -n 's/^  #records //p')
[ "$n" = 377 ] || { echo "FAIL all: $n records, expected 377"; fail=1; }

# 3. nothing comes: --timeout ends it, no file
"$cli" shark-receive -q --bind 127.0.0.1 --port 0 --timeout 1 "$tmp/none.bin" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/none.bin" ] || { echo "FAIL none: exit $rc or file written"; fail=1; }
grep -q "no TRACER packet received" "$tmp/err" || { echo "FAIL none: $(cat "$tmp/err")"; fail=1; }

# usage
"$cli" shark-receive --port 70000 x 2> /dev/null; [ $? -eq 2 ] || { echo "FAIL: --port 70000 accepted"; fail=1; }
[ $fail = 0 ] && echo "shark-receive: all passed"
exit $fail
