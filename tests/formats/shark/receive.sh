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
# 4. the default address is 127.0.0.1 (the kernel's socket table says so),
#    --bind 0.0.0.0 opens it; --port 0 prints the port even with -q.
# 5. repeats: three copies of packet 1 do not end a --count 120 run (it
#    counts distinct records); packet 2 does; the repeats are counted.
#    20000 copies of one datagram leave the receiver's peak memory flat.
# 6. an output that cannot be created (no such directory) fails at once,
#    exit 2, before listening; a FIFO no one reads is given up on SIGTERM
#    or at --timeout.
# 7. SIGHUP and SIGTERM end the run like SIGINT: what came is written.
# 8. a datagram of 61 records (the sender puts 60 at most) is refused and
#    counted (exit 1); 300 datagrams of 4092 records (64 KB) leave the peak
#    memory flat.
# 9. --max-memory: what passes the bound is refused and counted (exit 1);
#    6000 distinct datagrams of 60 records (5.8 MB) under --max-memory 1M
#    raise the peak memory by less than 3 MB.
set -u
cli=$1
command -v python3 > /dev/null || { echo "python3 missing: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/send.py" <<'PY'
import socket, struct, sys, time
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
    s.sendto(dgram(0, pk[0][:1]), dst)             # numbers start at 1
    want = b''.join(b''.join(pk[n - 1]) for n in sorted(order))
elif mode == 'all':
    for n in range(1, 8):
        s.sendto(dgram(n, pk[n - 1]), dst)
    want = b''.join(recs)
elif mode in ('huge', 'many'):
    # huge: 300 datagrams of 4092 records (numbers 100..399); many: 6000
    # distinct datagrams of 60 records (numbers 1..6000)
    n, size = (300, 4092) if mode == 'huge' else (6000, 60)
    body = (recs * 12)[:size]
    for i in range(n):
        s.sendto(dgram(100 + i if mode == 'huge' else 1 + i, body), dst)
        # paced: the loopback's socket buffer holds few 64 KB datagrams
        if mode == 'huge':
            time.sleep(0.002)
        elif i % 20 == 19:
            time.sleep(0.002)
    want = b''
else:
    # a list: N sends packet N, N*K sends it K times, big sends packet 8
    # with 61 records (refused: not in the file); the file must be the
    # distinct packets in order
    got = {}
    for spec in mode.split(','):
        if spec == 'big':
            s.sendto(dgram(8, recs[:61]), dst)
            continue
        n, _, k = spec.partition('*')
        n, k = int(n), int(k or 1)
        d = dgram(n, pk[n - 1])
        for i in range(k):
            s.sendto(d, dst)
            if i % 100 == 99:
                time.sleep(0.001)  # a flood the loopback can carry
        got[n] = pk[n - 1]
    want = b''.join(b''.join(got[n]) for n in sorted(got))
open(out, 'wb').write(want)
PY

# start the receiver on a free port; wait for its "listening" line
start() {
	# emptied here: the receiver's own redirection happens in the
	# background, maybe after the first look below, which would then read
	# the run before's line
	: > "$tmp/err"
	"$cli" shark-receive --port 0 "$@" 2> "$tmp/err" &
	pid=$!
	i=0
	port=
	while [ -z "$port" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && { echo "FAIL: receiver did not start"; cat "$tmp/err"; exit 1; }
		sleep 0.1
		port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\)$/\1/p' "$tmp/err" 2> /dev/null)
	done
}
# the receiver's socket in the kernel's table: "ADDR:PORT" in hex
bound() {
	awk -v p="$(printf ':%04X' "$port")" '$2 ~ p"$" { print $2 }' /proc/net/udp
}
# still running after a moment?
alive() { sleep 0.5; kill -0 "$pid" 2> /dev/null; }


# 1. gaps, late, repeated, foreign and malformed datagrams; SIGINT
start "$tmp/gaps.bin"
python3 "$tmp/send.py" "$port" gaps "$tmp/gaps.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.5
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL gaps: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/gaps.bin" "$tmp/gaps.want" || { echo "FAIL gaps: file differs"; fail=1; }
for want in "missing packet 5" "1 packets missing" "317 records (5072 bytes) from 6 packets, numbers 1-7" \
	    "1 packets came out of order" "1 repeated packets dropped" \
	    "3 datagrams ignored (1 not TRACER, 2 malformed)" "packet 8 ignored: 984 bytes, header says 1000 bytes and 60 events" \
	    "packet 0 ignored: packet numbers start at 1 (40 bytes, header says 40 bytes and 1 events)"; do
	grep -qF "$want" "$tmp/err" || { echo "FAIL gaps: report lacks '$want'"; cat "$tmp/err"; fail=1; }
done
ls -A "$tmp" | grep -q 'tmp-' && { echo "FAIL: a temporary file is left"; fail=1; }

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

# 4. the address: 127.0.0.1 by default, --bind opens it; -q still prints the port
start -q --timeout 20 "$tmp/b.bin"
grep -q "listening on 127.0.0.1:$port" "$tmp/err" || { echo "FAIL bind: $(cat "$tmp/err")"; fail=1; }
if [ -r /proc/net/udp ]; then
	[ "$(bound)" = "$(printf '0100007F:%04X' "$port")" ] || { echo "FAIL bind: socket is $(bound), not loopback"; fail=1; }
fi
kill -INT "$pid"; wait "$pid"; pid=
start -q --bind 0.0.0.0 --timeout 20 "$tmp/b.bin"
if [ -r /proc/net/udp ]; then
	[ "$(bound)" = "$(printf '00000000:%04X' "$port")" ] || { echo "FAIL --bind 0.0.0.0: socket is $(bound)"; fail=1; }
fi
kill -INT "$pid"; wait "$pid"; pid=

# 5. repeats: --count counts distinct records, the repeats are counted
start --count 120 --timeout 20 "$tmp/dup.bin"
python3 "$tmp/send.py" "$port" '1*3' "$tmp/dup1.want" || { echo "FAIL: sender"; exit 1; }
alive || { echo "FAIL dups: three copies of packet 1 ended a --count 120 run"; cat "$tmp/err"; fail=1; }
python3 "$tmp/send.py" "$port" '1*3,2' "$tmp/dup.want" || { echo "FAIL: sender"; exit 1; }
wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] || { echo "FAIL dups: exit $rc"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/dup.bin" "$tmp/dup.want" || { echo "FAIL dups: file differs"; fail=1; }
grep -qF "120 records (1920 bytes) from 2 packets, numbers 1-2" "$tmp/err" &&
	grep -qF "5 repeated packets dropped" "$tmp/err" || { echo "FAIL dups: report"; cat "$tmp/err"; fail=1; }
# a flood of one datagram: kept once, the peak memory stays flat (20000 x
# 984 bytes would be 19 MB if each copy were stored)
start -q --timeout 30 "$tmp/flood.bin"
python3 "$tmp/send.py" "$port" 1 "$tmp/flood.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.3
hwm0=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
python3 "$tmp/send.py" "$port" '1*20000' "$tmp/flood.want" || { echo "FAIL: sender"; exit 1; }
sleep 1
hwm1=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] || { echo "FAIL flood: exit $rc"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/flood.bin" "$tmp/flood.want" || { echo "FAIL flood: file differs"; fail=1; }
if [ -r /proc/self/status ]; then
	[ -n "$hwm0" ] && [ -n "$hwm1" ] && [ $((hwm1 - hwm0)) -lt 4096 ] || { echo "FAIL flood: peak memory grew by $((hwm1 - hwm0)) kB"; fail=1; }
fi

# 6. an output that cannot be created: at once, before listening
# a FIFO no one reads: the open waits for a reader; SIGTERM and --timeout
# end that wait, exit 2 (the stop signals were blocked: it hung until
# SIGKILL, whatever --timeout said)
mkfifo "$tmp/fifo"
"$cli" shark-receive --port 0 "$tmp/fifo" 2> "$tmp/err" &
fpid=$!
sleep 1
kill -TERM $fpid
i=0
while kill -0 $fpid 2> /dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $fpid 2> /dev/null; then
	echo "FAIL fifo: SIGTERM did not end the open of a FIFO no one reads"; kill -KILL $fpid; fail=1
fi
wait $fpid
rc=$?
[ $rc -eq 2 ] && grep -q "fifo: error: stopped by signal 15 while opening it" "$tmp/err" ||
	{ echo "FAIL fifo: exit $rc: $(cat "$tmp/err")"; fail=1; }
timeout -k 2 10 "$cli" shark-receive --port 0 --timeout 1 "$tmp/fifo" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "fifo: error: --timeout 1 reached while opening it" "$tmp/err" ||
	{ echo "FAIL fifo --timeout: exit $rc: $(cat "$tmp/err")"; fail=1; }
rm -f "$tmp/fifo"
timeout 10 "$cli" shark-receive --port 0 "$tmp/nodir/d.bin" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL nodir: exit $rc, expected 2"; fail=1; }
grep -q "nodir/d.bin: error: cannot create" "$tmp/err" && ! grep -q listening "$tmp/err" ||
	{ echo "FAIL nodir: $(cat "$tmp/err")"; fail=1; }

# 7. SIGHUP and SIGTERM write what came
for sig in HUP TERM; do
	start --timeout 20 "$tmp/$sig.bin"
	python3 "$tmp/send.py" "$port" 1,2,3 "$tmp/$sig.want" || { echo "FAIL: sender"; exit 1; }
	sleep 0.5
	kill -$sig "$pid"; wait "$pid"; rc=$?; pid=
	[ $rc -eq 0 ] || { echo "FAIL SIG$sig: exit $rc"; cat "$tmp/err"; fail=1; }
	cmp -s "$tmp/$sig.bin" "$tmp/$sig.want" || { echo "FAIL SIG$sig: file differs or missing"; fail=1; }
done

# 8. more records in a datagram than the sender puts: refused, counted
start --timeout 20 "$tmp/big.bin"
python3 "$tmp/send.py" "$port" 1,2,3,4,5,6,7,big "$tmp/big.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.5
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL big: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/big.bin" "$tmp/big.want" || { echo "FAIL big: file differs"; fail=1; }
grep -qF "packet 8 refused: it holds 61 records, more than the 60 of the sender's datagrams" "$tmp/err" &&
	grep -qF "1 packets refused: more than 60 records" "$tmp/err" || { echo "FAIL big: report"; cat "$tmp/err"; fail=1; }
ls -A "$tmp" | grep -q 'tmp-' && { echo "FAIL: a temporary file is left"; fail=1; }
# 64 KB datagrams: none kept, the peak memory stays flat (300 x 64 KB
# would be 19 MB)
start -q --timeout 30 "$tmp/huge.bin"
python3 "$tmp/send.py" "$port" 1 "$tmp/huge.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.3
hwm0=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
python3 "$tmp/send.py" "$port" huge "$tmp/x.want" || { echo "FAIL: sender"; exit 1; }
sleep 1
hwm1=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL huge: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/huge.bin" "$tmp/huge.want" || { echo "FAIL huge: file differs"; fail=1; }
grep -q "packets refused: more than 60 records" "$tmp/err" || { echo "FAIL huge: report"; cat "$tmp/err"; fail=1; }
if [ -r /proc/self/status ]; then
	[ -n "$hwm0" ] && [ -n "$hwm1" ] && [ $((hwm1 - hwm0)) -lt 1024 ] || { echo "FAIL huge: peak memory grew by $((hwm1 - hwm0)) kB"; fail=1; }
fi

# 9. --max-memory 3K: packets 1 and 2 (2 x (960 + 144) bytes) are kept, 3
#    (1104 more) and the rest are refused and counted
start --max-memory 3K --idle 1 --timeout 20 "$tmp/cap.bin"
python3 "$tmp/send.py" "$port" all "$tmp/all.want" || { echo "FAIL: sender"; exit 1; }
wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL cap: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
head -c 1920 "$tmp/all.want" | cmp -s - "$tmp/cap.bin" || { echo "FAIL cap: file is not packets 1-2"; fail=1; }
grep -qF "packet 3 refused: 2208 bytes kept, --max-memory 3072 reached" "$tmp/err" &&
	grep -qF "5 packets refused (257 records): --max-memory 3072 reached" "$tmp/err" ||
	{ echo "FAIL cap: report"; cat "$tmp/err"; fail=1; }
# a flood of distinct datagrams: the memory stays within about the bound
start -q --max-memory 1M --timeout 30 "$tmp/flood2.bin"
python3 "$tmp/send.py" "$port" 1 "$tmp/x.want" || { echo "FAIL: sender"; exit 1; }
sleep 0.3
hwm0=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
python3 "$tmp/send.py" "$port" many "$tmp/x.want" || { echo "FAIL: sender"; exit 1; }
sleep 1
hwm1=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2> /dev/null)
kill -INT "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 1 ] || { echo "FAIL many: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
grep -q "packets refused (.* records): --max-memory 1048576 reached" "$tmp/err" || { echo "FAIL many: report"; cat "$tmp/err"; fail=1; }
if [ -r /proc/self/status ]; then
	[ -n "$hwm0" ] && [ -n "$hwm1" ] && [ $((hwm1 - hwm0)) -lt 3072 ] || { echo "FAIL many: peak memory grew by $((hwm1 - hwm0)) kB"; fail=1; }
fi
ls -A "$tmp" | grep -q 'tmp-' && { echo "FAIL: a temporary file is left"; fail=1; }

# usage
"$cli" shark-receive --port 70000 x 2> /dev/null; [ $? -eq 2 ] || { echo "FAIL: --port 70000 accepted"; fail=1; }
for m in 0 1X -5 2000000G; do
	"$cli" shark-receive --max-memory "$m" x 2> /dev/null; [ $? -eq 2 ] || { echo "FAIL: --max-memory $m accepted"; fail=1; }
done
[ $fail = 0 ] && echo "shark-receive: all passed"
exit $fail
