#!/usr/bin/env python3
"""tracekit live in headless Chromium, driven over the DevTools protocol
(--remote-debugging-pipe: no library).  The stream of recorder.stream
(DIR/stream.tks) goes into a FIFO in two parts.  While the first part is
in, the page shows the running tasks' names in the report's metric table,
its timeline and load drawn, and says it updates; the same page, left
open while the second part goes in and the FIFO is closed, updates to the
whole stream and says the stream ended; then the server is stopped and the
page still shows its data.  No JavaScript error.  A screenshot is taken
(TK_LIVE_SHOT=FILE keeps it).
With --qemu ROOT, the stream is that of the QEMU firmware's stream build
(examples/qemu-cortex-m/, TKREC_STREAM 1; here its run of 100 ms, not
the demo's 3 s: STREAM_MS=100), written by QEMU's UART into the FIFO as
the firmware runs: QEMU's GDB stub halts the firmware halfway
(its mark fw_halfway()), where the page, updating, shows its tasks
(task1 .. task3, IRQ8) and fewer events than at the end (the screenshot
is taken there); then the firmware runs to its end and stops (no miss,
no lost event), the page updates and says the stream ended, and keeps
its data after the server stops.
Usage: live_page.py TRACEKIT DIR        (77: no chromium)
       live_page.py TRACEKIT DIR --qemu ROOT  (77: no chromium, QEMU or
                                               arm-none-eabi-gcc)
"""
import base64
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

tk, d = sys.argv[1], sys.argv[2]
chromium = shutil.which('chromium')
if not chromium:
    print('skipped: chromium is not installed')
    sys.exit(77)
qemu_root = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == '--qemu' else None
if qemu_root:
    for tool in ('qemu-system-arm', 'arm-none-eabi-gcc'):
        if not shutil.which(tool):
            print('skipped: %s is not installed' % tool)
            sys.exit(77)
stream = open(os.path.join(d, 'stream.tks'), 'rb').read()
tmp = tempfile.mkdtemp()
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print('FAIL:', what)


class Chrome:
    """headless Chromium and one page, over its DevTools pipe"""

    def __init__(self):
        r1, w1 = os.pipe()   # to chromium (its fd 3)
        r2, w2 = os.pipe()   # from chromium (its fd 4)

        # (the two ends moved above 4 first, so that neither is 3 or 4)
        a, b = os.dup(r1) if r1 > 4 else fcntl.fcntl(r1, fcntl.F_DUPFD, 10), \
            os.dup(w2) if w2 > 4 else fcntl.fcntl(w2, fcntl.F_DUPFD, 10)
        os.close(r1)
        os.close(w2)
        r1, w2 = a, b

        def fds():
            os.dup2(r1, 3)
            os.dup2(w2, 4)
        self.p = subprocess.Popen(
            [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync',
             '--hide-scrollbars', '--remote-debugging-pipe', '--user-data-dir=' + tmp + '/ud',
             '--window-size=1400,1000'],
            preexec_fn=fds, pass_fds=(r1, w2, 3, 4), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w = os.fdopen(w1, 'wb')
        self.r = os.fdopen(r2, 'rb')
        self.n = 0
        self.buf = b''
        self.session = None

    def call(self, method, params=None, session=True):
        self.n += 1
        msg = {'id': self.n, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        self.w.write(json.dumps(msg).encode() + b'\0')
        self.w.flush()
        while True:
            while b'\0' not in self.buf:
                chunk = os.read(self.r.fileno(), 1 << 16)
                if not chunk:
                    raise RuntimeError('chromium closed its pipe')
                self.buf += chunk
            raw, self.buf = self.buf.split(b'\0', 1)
            m = json.loads(raw)
            if m.get('id') == self.n:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m['result']

    def open(self, url):
        t = self.call('Target.createTarget', {'url': url}, session=False)['targetId']
        self.session = self.call('Target.attachToTarget', {'targetId': t, 'flatten': True},
                                 session=False)['sessionId']

    def js(self, expr):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True})
        return r['result'].get('value')

    def page(self):
        """what the page shows: the live bar's state and text, the metric
        rows' entities, the report's status line, its errors"""
        return self.js('''(()=>{const b=document.getElementById('tk-live'),s=document.getElementById('tk-status');
            return {state:b?b.dataset.state:null,updates:b?+b.dataset.updates:0,
             msg:b?b.textContent:'',names:[...document.querySelectorAll('#stats tr td:first-child')].map(t=>t.textContent),
             status:s?s.textContent:'',errors:(document.getElementById('tk-errors')||{}).textContent||'',
             meta:(document.getElementById('meta')||{}).textContent||''};})()''')

    def wait(self, pred, what, secs=30):
        end = time.time() + secs
        pg = None
        while time.time() < end:
            try:
                pg = self.page()
            except RuntimeError:
                pg = None
            if pg and pred(pg):
                return pg
            time.sleep(0.1)
        check(False, '%s: the page stays %s' % (what, pg))
        return pg or {}

    def shot(self, path):
        data = self.call('Page.captureScreenshot', {'format': 'png'})['data']
        open(path, 'wb').write(base64.b64decode(data))

    def close(self):
        try:
            self.call('Browser.close', session=False)
        except RuntimeError:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()


class Gdb:
    """QEMU's GDB stub: the remote protocol's few packets the test needs"""

    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port), timeout=60)
        self.buf = b''

    def send(self, pkt):
        self.s.sendall(b'$%s#%02x' % (pkt.encode(), sum(pkt.encode()) & 0xff))

    def reply(self):
        while True:
            while b'#' not in self.buf or len(self.buf) < self.buf.index(b'#') + 3:
                chunk = self.s.recv(4096)
                if not chunk:
                    raise OSError('the GDB stub closed')
                self.buf += chunk
            i = self.buf.index(b'#')
            pkt, self.buf = self.buf[:i], self.buf[i + 3:]
            self.s.sendall(b'+')
            pkt = pkt.lstrip(b'+')
            if pkt.startswith(b'$'):
                return pkt[1:].decode()

    def cmd(self, pkt):
        self.send(pkt)
        return self.reply()

    def close(self):
        self.s.close()


fifo = os.path.join(tmp, 'fifo')
os.mkfifo(fifo)
if qemu_root:
    fw = os.path.join(tmp, 'fw')
    env = {k: v for k, v in os.environ.items() if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
    r = subprocess.run(['make', '-s', '-C', os.path.join(qemu_root, 'examples', 'qemu-cortex-m'),
                        'O=' + fw, 'STREAM_MS=100', fw + '/fw-stream.elf'], env=env, capture_output=True,
                       text=True)
    if r.returncode != 0:
        print('skipped: the firmware does not build here (no C library?):', r.stderr.strip()[-300:])
        sys.exit(77)
    # the server opens the FIFO when QEMU does; QEMU starts halted (-S)
    # with its GDB stub on a free port: the test runs the firmware to its
    # mark fw_halfway() (one breakpoint, hit once, in the idle thread after
    # half the run's ticks: halts elsewhere, in a handler or again and
    # again, perturb the schedule, as QEMU's -icount sleep=off moves the
    # virtual clock on to the next timer while the core is halted), where
    # it stays, running but halted, while the page is read; then lets it
    # run to its end
    nm = subprocess.run(['arm-none-eabi-nm', os.path.join(fw, 'fw-stream.elf')],
                        capture_output=True, text=True).stdout
    mark = [int(l.split()[0], 16) & ~1 for l in nm.splitlines() if l.endswith(' fw_halfway')]
    if not mark:
        print('FAIL: no fw_halfway in the firmware (arm-none-eabi-nm: %r)' % nm[:200])
        sys.exit(1)
    sk = socket.socket()
    sk.bind(('127.0.0.1', 0))
    port = sk.getsockname()[1]
    sk.close()
    live = subprocess.Popen([tk, 'live', '--window', '0', '--interval', '100', fifo],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    qemu = subprocess.Popen(['timeout', '120', 'qemu-system-arm', '-M', 'mps2-an385', '-display', 'none',
                             '-monitor', 'none', '-serial', 'file:' + fifo, '-S',
                             '-gdb', 'tcp:127.0.0.1:%d' % port,
                             '-icount', 'shift=5,align=off,sleep=off',
                             '-semihosting-config', 'enable=on,target=native',
                             '-kernel', 'fw-stream.elf'], cwd=fw, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    url = live.stdout.readline().decode().strip()
    names = {'task1', 'task2', 'task3', 'IRQ8'}
    ch = None
    gdb = None
    try:
        for _ in range(100):
            try:
                gdb = Gdb(port)
                break
            except OSError:
                time.sleep(0.1)
        check(gdb is not None, 'qemu: no GDB stub on port %d' % port)
        ch = Chrome()
        ch.open(url)
        if gdb:
            bp = '%x,2' % mark[0]
            gdb.cmd('Z0,' + bp)
            r = gdb.cmd('c')
            check(r.startswith('T') and qemu.poll() is None, 'qemu: not halted at fw_halfway: %r' % r)
        # 1. the firmware running (halted halfway): its tasks, and not all
        #    of its events yet
        pg = ch.wait(lambda p: p['state'] == 'live' and names <= set(p['names']), 'qemu: running')
        check('updating as events arrive' in pg.get('msg', ''), 'qemu: running: %r' % pg.get('msg'))
        check(pg.get('status', '').startswith('drawn: timeline slices='), 'qemu: running: %r' % pg.get('status'))
        check(qemu.poll() is None, 'qemu: the firmware ended before the page was read')
        ch.shot(os.path.join(tmp, 'live.png'))
        if os.environ.get('TK_LIVE_SHOT'):
            shutil.copy(os.path.join(tmp, 'live.png'), os.environ['TK_LIVE_SHOT'])
        running_msg = pg.get('msg', '')
        m = re.search(r'(\d+) events', running_msg)
        running_n = int(m.group(1)) if m else 0
        check(running_n > 0, 'qemu: running: no event count in %r' % running_msg)
        # 2. the firmware runs to its end and stops: the page says so
        if gdb:
            gdb.cmd('z0,' + bp)
            gdb.send('c')
        try:
            fwlog = qemu.communicate(timeout=60)[0].decode()
        except subprocess.TimeoutExpired:
            qemu.kill()
            fwlog = qemu.communicate()[0].decode()
        check(qemu.returncode == 0 and 'lost=0' in fwlog, 'qemu: %d %s' % (qemu.returncode, fwlog))
        pg = ch.wait(lambda p: p['state'] == 'ended' and p['updates'] >= 2, 'qemu: ended')
        check(names <= set(pg.get('names', [])), 'qemu: names %s' % sorted(set(pg.get('names', []))))
        check('the stream ended (the source ended)' in pg.get('msg', ''), 'qemu: %r' % pg.get('msg'))
        m = re.search(r'(\d+) events', pg.get('msg', ''))
        check(m and int(m.group(1)) > running_n,
              'qemu: the page did not update after the firmware went on: %r, %r' % (running_msg, pg.get('msg')))
        check(pg.get('status', '').startswith('drawn: timeline slices='), 'qemu: %r' % pg.get('status'))
        # 3. the server stops: the page keeps its data
        live.send_signal(signal.SIGTERM)
        check(live.wait(timeout=20) == 0, 'qemu: live exit status after SIGTERM')
        time.sleep(1)
        pg = ch.page()
        check(names <= set(pg.get('names', [])) and not pg.get('errors'),
              'qemu: after the server stopped: %s' % pg)
    finally:
        if gdb:
            gdb.close()
        if ch:
            ch.close()
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
        if live.poll() is None:
            live.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d failures' % len(fails))
    sys.exit(1 if fails else 0)
live = subprocess.Popen([tk, 'live', '--window', '0', '--interval', '100', fifo],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
fw = open(fifo, 'wb')
url = live.stdout.readline().decode().strip()
half = len(stream) // 2 + 7
fw.write(stream[:half])
fw.flush()
tasks = {'control', 'comms', 'idle', 'USART1'}
ch = None
try:
    ch = Chrome()
    ch.open(url)
    # 1. the running stream
    pg = ch.wait(lambda p: p['state'] == 'live' and p['updates'] >= 1, 'running')
    check(tasks <= set(pg.get('names', [])), 'running: names %s' % sorted(set(pg.get('names', []))))
    check('updating as events arrive' in pg.get('msg', ''), 'running: %r' % pg.get('msg'))
    check(pg.get('status', '').startswith('drawn: timeline slices=') and ' load=1' in pg.get('status', ''),
          'running: the report is not drawn: %r' % pg.get('status'))
    first_meta = pg.get('meta', '')
    # 2. the stream ends while the page is open
    fw.write(stream[half:])
    fw.close()
    n = subprocess.run([tk, 'info', os.path.join(d, 'stream.tks')], capture_output=True,
                       text=True).stdout.split('events:')[1].split()[0]
    pg = ch.wait(lambda p: p['state'] == 'ended' and (n + ' events') in p['msg'], 'ended')
    check(pg.get('updates', 0) >= 2, 'ended: %s updates' % pg.get('updates'))
    check('the stream ended (the source ended)' in pg.get('msg', ''), 'ended: %r' % pg.get('msg'))
    check(tasks <= set(pg.get('names', [])), 'ended: names %s' % pg.get('names'))
    check(pg.get('meta') != first_meta, 'ended: the timeline is the first part\'s still')
    ch.shot(os.path.join(tmp, 'live.png'))
    if os.environ.get('TK_LIVE_SHOT'):
        shutil.copy(os.path.join(tmp, 'live.png'), os.environ['TK_LIVE_SHOT'])
    # 3. the server stops: the page keeps its data
    live.send_signal(signal.SIGTERM)
    check(live.wait(timeout=20) == 0, 'live: exit status after SIGTERM')
    time.sleep(1)
    pg = ch.page()
    check(tasks <= set(pg.get('names', [])) and pg.get('status', '').startswith('drawn:'),
          'after the server stopped: %s' % pg)
    check(not pg.get('errors'), 'JavaScript errors: %r' % pg.get('errors'))
    check(os.path.getsize(os.path.join(tmp, 'live.png')) > 10000, 'the screenshot')
finally:
    if ch:
        ch.close()
    if live.poll() is None:
        live.kill()
    shutil.rmtree(tmp, ignore_errors=True)
print('%d failures' % len(fails))
sys.exit(1 if fails else 0)
