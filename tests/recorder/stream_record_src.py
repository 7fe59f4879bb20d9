#!/usr/bin/env python3
"""tracekit record from a TCP server (tcp:HOST:PORT, as QEMU's -serial
tcp:...,server) and from a serial device (the slave of a pty pair, which
tracekit puts in raw mode: the stream's bytes 0x03, 0x0d, 0x0a, 0x11 ...
would otherwise be signals, line endings and flow control, and be echoed
back): the capture gives the events of the stream itself.
Usage: stream_record_src.py TRACEKIT DIR (DIR/stream.tks: recorder.stream's)"""
import os
import pty
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

tk, d = sys.argv[1], sys.argv[2]
src = os.path.join(d, 'stream.tks')
data = open(src, 'rb').read()
want = subprocess.run([tk, 'cat', src], capture_output=True, check=True).stdout
tmp = tempfile.mkdtemp()
fails = 0


def check(cond, what):
    global fails
    if not cond:
        print('FAIL: ' + what, file=sys.stderr)
        fails += 1


def same_events(out, end):
    got = subprocess.run([tk, 'cat', out], capture_output=True).stdout
    check(got == want, out + ': the events differ from the stream\'s')
    info = subprocess.run([tk, 'info', out], capture_output=True).stdout.decode()
    check('stream_end ' + end in info, out + ': stream_end is not "' + end + '"')


# 1. a TCP server that sends the stream in pieces, then closes
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(('127.0.0.1', 0))
srv.listen(1)
port = srv.getsockname()[1]


def serve():
    srv.settimeout(20)
    try:
        c, _ = srv.accept()
    except OSError:
        return
    for i in range(0, len(data), 1000):
        c.sendall(data[i:i + 1000])
        time.sleep(0.01)
    c.close()


th = threading.Thread(target=serve)
th.start()
out = os.path.join(tmp, 'tcp.tks')
r = subprocess.run([tk, 'record', '-q', 'tcp:127.0.0.1:%d' % port, '-o', out],
                   timeout=60)
th.join()
check(r.returncode == 0, 'record tcp: exit %d' % r.returncode)
same_events(out, 'the source ended')
# no server: an error, exit 2
srv.close()
r = subprocess.run([tk, 'record', '-q', 'tcp:127.0.0.1:%d' % port, '-o',
                    os.path.join(tmp, 'none.tks')], capture_output=True, timeout=60)
check(r.returncode == 2 and b'error' in r.stderr, 'record tcp with no server: exit %d' % r.returncode)
r = subprocess.run([tk, 'record', '-q', 'tcp:nohostport', '-o',
                    os.path.join(tmp, 'none.tks')], capture_output=True, timeout=60)
check(r.returncode == 2 and b'tcp:HOST:PORT' in r.stderr, 'record tcp:nohostport: exit %d' % r.returncode)

# 2. a serial device: the slave of a pty pair, in its default (cooked) mode
check(any(b in data for b in (b'\x03', b'\x0d', b'\x11', b'\x13')),
      'the stream has no byte a cooked tty would change')
master, slave = pty.openpty()
name = os.ttyname(slave)
os.close(slave)
out = os.path.join(tmp, 'tty.tks')
p = subprocess.Popen([tk, 'record', '-q', name, '-o', out])
time.sleep(0.5)  # tracekit opens the tty and sets it raw
for i in range(0, len(data), 512):
    os.write(master, data[i:i + 512])
    time.sleep(0.005)
deadline = time.time() + 30
while time.time() < deadline:
    if os.path.exists(out) and os.path.getsize(out) >= len(data) - 64:
        break
    time.sleep(0.05)
time.sleep(0.3)
p.send_signal(signal.SIGTERM)
p.wait(timeout=30)
os.close(master)
check(p.returncode == 0, 'record tty: exit %d' % p.returncode)
same_events(out, 'stopped by a signal')
shutil.rmtree(tmp)
sys.exit(1 if fails else 0)
