#!/usr/bin/env python3
"""tracekit live: the data a client of /events gets.

1. The stream of recorder.stream (DIR/stream.tks) fed on standard input in
   two parts: while the first is in, /status.json says live with the events
   of its whole records; a client of /events gets a status and a data event
   at once, then, after the second part and the end of the input, a data
   event whose metrics, entities, lanes, slices and load are those of
   `tracekit report` of the stream (--window 0: the whole trace), and a
   status "ended" (the source ended) with every event and byte; the server
   still serves the page and the data after the end, and SIGTERM ends it
   (exit 0, its temporary directory removed, -o OUT a whole capture).
2. FILE with --window 5ms --no-follow: the data is that of `tracekit report
   --start LAST-5ms` (the last 5 ms exactly), the status ended at once.
3. A FILE that grows is followed: more events when it grows, ended when
   the end record of `tracekit record` is appended.
4. Bad input: one-line errors, exit 2; an unknown path is 404.
Usage: live_sse.py TRACEKIT DIR
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

tk, d = sys.argv[1], sys.argv[2]
src = os.path.join(d, 'stream.tks')
stream = open(src, 'rb').read()
tmp = tempfile.mkdtemp()
env = dict(os.environ, TMPDIR=tmp)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print('FAIL:', what)


def run(*args):
    return subprocess.run([tk, *args], capture_output=True, text=True)


def info_events(path):
    for line in run('info', path).stdout.splitlines():
        if line.startswith('events:'):
            return int(line.split()[1])
    return -1


def report_data(*args):
    """the data object of `tracekit report ARGS` (between the template's
    head and tail)"""
    out = os.path.join(tmp, 'ref.html')
    r = run('report', '-q', *args, '-o', out)
    assert r.returncode == 0, r.stderr
    page = open(out, encoding='utf-8').read()
    i = page.index('const D=') + len('const D=')
    j = page.index(';\n(function(){', i)
    return json.loads(page[i:j])


def get(url):
    with urllib.request.urlopen(url, timeout=10) as f:
        return f.read().decode()


def wait_status(url, pred, what, secs=20):
    end = time.time() + secs
    st = None
    while time.time() < end:
        st = json.loads(get(url + 'status.json'))
        if pred(st):
            return st
        time.sleep(0.05)
    check(False, '%s: status stays %s' % (what, st))
    return st


class SSE:
    """a client of /events: its events one by one"""

    def __init__(self, url):
        self.f = urllib.request.urlopen(url + 'events', timeout=20)
        check(self.f.headers.get('Content-Type') == 'text/event-stream',
              'events: content type %s' % self.f.headers.get('Content-Type'))

    def next(self):
        name, data = None, []
        while True:
            line = self.f.readline()
            if not line:
                return None, None
            line = line.decode().rstrip('\n')
            if line == '':
                if name:
                    return name, json.loads('\n'.join(data))
                continue
            if line.startswith('event: '):
                name = line[7:]
            elif line.startswith('data: '):
                data.append(line[6:])

    def close(self):
        self.f.close()


SAME = ('ents', 'lanes', 'stats', 'slices', 'load', 'hists', 'instants', 'span', 'first')


def same_data(got, want, what):
    for k in SAME:
        check(got.get(k) == want.get(k), '%s: %s differs from the report\'s' % (what, k))


def start(*args, **kw):
    p = subprocess.Popen([tk, 'live', *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, **kw)
    url = p.stdout.readline().decode().strip()
    check(url.startswith('http://127.0.0.1:') and url.endswith('/'), 'url %r' % url)
    return p, url


def stop(p, what):
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = 'hung'
    check(rc == 0, '%s: exit %s after SIGTERM' % (what, rc))


# ---- 1. a stream on standard input --------------------------------------
half = len(stream) // 2 + 7
part1 = os.path.join(tmp, 'part1.tks')
open(part1, 'wb').write(stream[:half])
cap = os.path.join(tmp, 'cap.tks')
p, url = start('--window', '0', '--interval', '100', '-o', cap, '-', stdin=subprocess.PIPE)
check(json.loads(get(url + 'data.json')) is None, 'data.json before the first events: null')
p.stdin.write(stream[:half])
p.stdin.flush()
n1 = info_events(part1)
check(n1 > 0, 'the first part has events')
st = wait_status(url, lambda s: s['state'] == 'live' and s['events'] == n1, 'first part')
check(st['source'] == '-' and st['window'] == '0 s', 'first part: status %s' % st)
sse = SSE(url)
ev = [sse.next(), sse.next()]
check(ev[0][0] == 'status' and ev[0][1]['state'] == 'live', 'events: a status first: %s' % (ev[0][0],))
check(ev[1][0] == 'data' and ev[1][1] is not None and ev[1][1]['format'] == 'ftstream',
      'events: then the data')
first_names = {e[0] for e in ev[1][1]['ents']} if ev[1][0] == 'data' else set()
check({'control', 'comms', 'idle'} <= first_names, 'first part: task names %s' % sorted(first_names))
p.stdin.write(stream[half:])
p.stdin.close()
last_data, last_status, seen = None, None, 0
while True:
    name, obj = sse.next()
    if name is None:
        check(False, 'events: the stream closed before the status "ended"')
        break
    seen += 1
    if name == 'data':
        last_data = obj
    elif name == 'status':
        last_status = obj
        if obj['state'] == 'ended':
            # the data of the end follows its status
            name, obj = sse.next()
            check(name == 'data', 'events: data after the status "ended"')
            last_data = obj
            break
sse.close()
n = info_events(src)
check(last_status is not None and last_status.get('events') == n and
      last_status.get('bytes') == len(stream) and last_status.get('end') == 'the source ended',
      'end: status %s (want %d events, %d bytes)' % (last_status, n, len(stream)))
check(last_data is not None, 'end: data sent')
if last_data:
    same_data(last_data, report_data(src), 'whole stream')
    check({'control', 'comms', 'idle', 'USART1'} <= {e[0] for e in last_data['ents']},
          'end: names')
# the page and the data stay after the end
page = get(url)
check('function tkReportRun(D){' in page and 'new EventSource' in page and
      '<canvas id="tl">' in page, 'the page is the report\'s, made live')
check(json.loads(get(url + 'data.json')) == last_data, 'data.json after the end')
try:
    get(url + 'nope')
    check(False, '/nope: not 404')
except urllib.error.HTTPError as e:
    check(e.code == 404, '/nope: %d' % e.code)
stop(p, 'stdin')
check(os.listdir(tmp) and not [f for f in os.listdir(tmp) if f.startswith('tk-live.')],
      'the temporary directory is left: %s' % os.listdir(tmp))
check(info_events(cap) == n and 'stream_end the source ended' in run('info', cap).stdout,
      '-o OUT: the capture')

# ---- 2. a FILE, the last 5 ms --------------------------------------------
p, url = start('--window', '5ms', '--no-follow', src)
st = wait_status(url, lambda s: s['updates'] >= 1, 'window')
check(st['state'] == 'ended' and st['events'] == n, 'window: status %s' % st)
got = json.loads(get(url + 'data.json'))
stop(p, 'window')
# the last event's time, in ticks (72000 a ms in this stream)
whole = report_data(src)
last = round(float(whole['first']) / whole['nsPerTick']) + whole['span']
check(last > 5 * 72000, 'the last tick of the stream: %d' % last)
want = report_data('--start', str(last - 5 * 72000), src)
same_data(got, want, 'the last 5 ms')
check(got['span'] * got['nsPerTick'] <= 5e6 + 1, 'window: span %s ticks' % got['span'])

# ---- 3. a FILE that grows --------------------------------------------------
grow = os.path.join(tmp, 'grow.tks')
open(grow, 'wb').write(stream[:half])
p, url = start('--interval', '100', grow)
wait_status(url, lambda s: s['events'] == n1 and s['state'] == 'live', 'grow: first part')
with open(grow, 'ab') as f:
    f.write(stream[half:])
st = wait_status(url, lambda s: s['events'] == n, 'grow: whole')
check(st['state'] == 'live', 'grow: not ended without an end record: %s' % st)
with open(grow, 'ab') as f:
    f.write(b'\x00\x05\x00')
wait_status(url, lambda s: s['state'] == 'ended', 'grow: end record')
stop(p, 'grow')

# ---- 5. hostile clients ----------------------------------------------------
t5 = time.time()
p, url = start('--no-follow', src)
port = int(url.rsplit(':', 1)[1].strip('/'))


def raw(data, secs=5, rst=False):
    """the answer to the bytes data (b'' when closed without one)"""
    s = socket.create_connection(('127.0.0.1', port), timeout=secs)
    if rst:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    s.sendall(data)
    if rst:
        s.close()
        return b''
    out = b''
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except socket.timeout:
        out += b'<timeout>'
    except ConnectionResetError:
        out += b'<reset>'
    s.close()
    return out


def status_line(data):
    return raw(data).split(b'\r\n', 1)[0].decode('latin-1')


for req, want in [(b'GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n', '403'),
                  (b'GET /status.json HTTP/1.1\r\nHost: evil.example:%d\r\n\r\n' % port, '403'),
                  (b'GET /status.json HTTP/1.1\r\nHost: localhost:1\r\n\r\n', '403'),
                  (b'GET /status.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n' % port, '200'),
                  (b'GET /status.json HTTP/1.1\r\nhost: localhost:%d\r\n\r\n' % port, '200'),
                  (b'GET /status.json HTTP/1.1\r\nHost: [::1]:%d\r\n\r\n' % port, '200'),
                  (b'GET /status.json HTTP/1.0\r\n\r\n', '200'),
                  (b'GET /../status.json HTTP/1.1\r\n\r\n', '404'),
                  (b'GET /%2e%2e/etc/passwd HTTP/1.1\r\n\r\n', '404'),
                  (b'GET http://evil.example/ HTTP/1.1\r\n\r\n', '404'),
                  (b'\x00\x01\xff garbage\r\n\r\n', '400'),
                  (b'\x00\x01\xff garbage', '400'),
                  (b'GETGETGETGETGETGET/status.json HTTP/1.1\r\n\r\n', '400'),
                  (b'GET /' + b'a' * 300 + b' HTTP/1.1\r\n\r\n', '414'),
                  (b'GET /' + b'a' * 9000 + b' HTTP/1.1\r\n\r\n', '431'),
                  (b'GET / HTTP/1.1\r\n' + b'X-A: b\r\n' * 2000 + b'\r\n', '431'),
                  (b'POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc', '405')]:
    got = status_line(req)
    check(got.startswith('HTTP/1.1 ' + want), '%r...: %r, want %s' % (req[:40], got, want))
# (the first build is over: answers came)
fds = len(os.listdir('/proc/%d/fd' % p.pid)) if os.path.isdir('/proc/%d/fd' % p.pid) else None
a = raw(b'POST / HTTP/1.1\r\n\r\n')
check(b'\r\nAllow: GET, HEAD\r\n' in a, '405 without Allow: %r' % a[:200])
a = raw(b'HEAD / HTTP/1.1\r\n\r\n')
hd, _, body = a.partition(b'\r\n\r\n')
check(hd.startswith(b'HTTP/1.1 200') and b'Content-Length: %d' % len(get(url).encode()) in hd
      and body == b'', 'HEAD /: %r' % a[:200])
# clients that hang up at once, mid-answer, or reset (no SIGPIPE)
for i in range(50):
    raw(b'GET / HTTP/1.1\r\n\r\n', rst=True)
    raw(b'GET /events HTTP/1.1\r\n\r\n', rst=True)
check(p.poll() is None and status_line(b'GET /status.json HTTP/1.0\r\n\r\n').endswith('200 OK'),
      'reset clients: the server died (%s)' % p.poll())
# more clients than it serves at once, none sending a whole request
# (slowloris): another client is still answered, at once
idle = [socket.create_connection(('127.0.0.1', port)) for _ in range(100)]
for s in idle[:50]:
    s.sendall(b'GET / HTTP/1.1\r\n')
time.sleep(0.3)
t0 = time.time()
got = status_line(b'GET /status.json HTTP/1.0\r\n\r\n')
check(got.endswith('200 OK') and time.time() - t0 < 3, 'with 100 idle clients: %r after %.1f s'
      % (got, time.time() - t0))
for s in idle:
    s.close()
# hundreds at once, then gone: no descriptor left
many = []
for i in range(300):
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(b'GET /status.json HTTP/1.0\r\n\r\n' if i % 2 else b'GET /events HTTP/1.1\r\n\r\n')
    many.append(s)
for s in many:
    s.close()
time.sleep(0.5)
got = status_line(b'GET /status.json HTTP/1.0\r\n\r\n')
check(got.endswith('200 OK'), 'after 300 clients: %r' % got)
if fds is not None:
    end = time.time() + 5
    while time.time() < end and len(os.listdir('/proc/%d/fd' % p.pid)) > fds:
        time.sleep(0.1)
    check(len(os.listdir('/proc/%d/fd' % p.pid)) <= fds, 'descriptors after 300 clients: %d, were %d'
          % (len(os.listdir('/proc/%d/fd' % p.pid)), fds))
stop(p, 'hostile')
print('hostile: %.1f s' % (time.time() - t5))

# ---- 4. bad input ----------------------------------------------------------
for args, msg in [([], "tracekit live: expected one SOURCE or FILE (see 'tracekit live --help')"),
                  (['/nonexistent.tks'], '/nonexistent.tks: error: No such file or directory'),
                  (['--port', '70000', src], "tracekit live: --port: expected a whole number from 0 to 65535, not '70000' (see 'tracekit live --help')"),
                  (['--window', 'abc', src], "tracekit live: --window: expected a time (10s, 500ms, 0), not 'abc' (see 'tracekit live --help')"),
                  (['--interval', '5', src], "tracekit live: --interval: expected a whole number from 100 to 3600000, not '5' (see 'tracekit live --help')"),
                  (['-o', 'x', src], "tracekit live: -o is for a SOURCE (a stream), not a FILE (see 'tracekit live --help')"),
                  (['--bind', '1.2.3.4.5', src], None),
                  (['tcp:127.0.0.1:1'], 'tcp:127.0.0.1:1: error: Connection refused'),
                  ([tmp], tmp + ': error: not a file, a FIFO or a serial device')]:
    r = subprocess.run([tk, 'live', *args], capture_output=True, text=True, timeout=20)
    lines = r.stderr.splitlines()
    check(r.returncode == 2 and len(lines) == 1 and (msg is None or lines[0] == msg) and not r.stdout,
          'live %s: exit %d, %r' % (args, r.returncode, r.stderr))

# -o naming the source itself (it was truncated, or a FIFO written into
# itself until stuck past SIGTERM): an error, the source whole
same = os.path.join(tmp, 'same.tks')
open(same, 'wb').write(stream)
with open(same, 'rb') as f:
    r = subprocess.run([tk, 'live', '-o', same, '-'], stdin=f, capture_output=True, text=True,
                       env=env, timeout=20)
check(r.returncode == 2 and r.stderr == same + ': error: the output is the source -\n' and
      not r.stdout and open(same, 'rb').read() == stream,
      'live -o SOURCE: exit %d, %r' % (r.returncode, r.stderr))
# OUT that cannot be written: one line, exit 2
with open(src, 'rb') as f:
    r = subprocess.run([tk, 'live', '-q', '-o', '/dev/full', '-'], stdin=f, capture_output=True,
                       text=True, env=env, timeout=20)
check(r.returncode == 2 and r.stderr == '/dev/full: error: No space left on device\n',
      'live -o /dev/full: exit %d, %r' % (r.returncode, r.stderr))

# stdout closed before the URL is written: exit 2, one line, no temporary
# directory left (SIGPIPE killed it, the directory left)
rd, wr = os.pipe()
os.close(rd)
r = subprocess.run([tk, 'live', '--no-follow', src], stdout=wr, stderr=subprocess.PIPE,
                   env=env, timeout=20)
os.close(wr)
check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
      not [f for f in os.listdir(tmp) if f.startswith('tk-live.')],
      'live with stdout closed: exit %d, %r, %s' % (r.returncode, r.stderr, os.listdir(tmp)))

subprocess.run(['rm', '-rf', tmp])
print('%d failures' % len(fails))
sys.exit(1 if fails else 0)
