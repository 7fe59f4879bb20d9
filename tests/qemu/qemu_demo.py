#!/usr/bin/env python3
"""`make qemu-demo` as a user runs it, not on a terminal
(examples/qemu-cortex-m/demo.sh TRACEKIT DIR, standard input and output
not a terminal): the firmware's four builds run in QEMU and tracekit must
find in their recordings what the firmware was configured to do
(check_run.py).  And the stream build, its 3 s in real time:

- the demo prints the live view's URL before the firmware starts; while
  the firmware runs, /status.json says "live" with more and more events
  (at least two counts between none and the end), /data.json then holds
  the firmware's tasks and its interrupt (task1 .. task3, IRQ8), and the
  status says "ended" (the source ended) with every event of the capture
  at the end;
- the run is paced: from the URL to the end, at least the run's 3 s;
- the capture lasts the run: `tracekit info` gives a span of 3 s (the
  first event to the trace stop, a tick after the 3000th);
- the figures match: `tracekit diff` of the snapshot and the capture
  lists no row (threshold 0), the demo prints them side by side, every
  row "same", and says they match;
- not on a terminal, the server stops at the end (its port refuses).
Then a stream build of 200 ms (STREAM_MS=200: fw-stream.elf alone built
again), run twice:
- on a pseudo-terminal: the prompt after the URL, the stream build not
  started (no fw-stream.log, no events) until Enter; after the run, the
  prompt while the live view serves the capture, "ended" with as many
  events as the demo's `tracekit info` of it, the demo still waiting;
  after Enter, exit 0 and the server gone;
- with -q, also on a pseudo-terminal: exit 0, no output at all (no
  prompt: it would wait for Enter), no live view (no live.url), and the
  same 12 files byte for byte as the run on the terminal (-icount: the
  same guest run, paced or not).
Skipped (77) only where arm-none-eabi-gcc, its C library or
qemu-system-arm is not installed.
Usage: qemu_demo.py TRACEKIT DIR
"""
import hashlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

tk, d = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
demo = os.path.join(here, "..", "..", "examples", "qemu-cortex-m", "demo.sh")
NAMES = {"task1", "task2", "task3", "IRQ8"}
RUN_S = 3
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what, file=sys.stderr)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as f:
        return json.loads(f.read().decode())


env = {k: v for k, v in os.environ.items() if k not in ("STREAM_MS",)}
p = subprocess.Popen(["sh", demo, tk, d], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, env=env)
lines = []
url = None
t_url = None
seen = []          # (time, status) while the firmware runs
live_names = None  # the entities of /data.json while the status is live
done = threading.Event()


def poll():
    """/status.json every 50 ms until "ended", /data.json once the status
    is live with events"""
    global live_names
    while not done.is_set():
        try:
            st = get(url + "status.json")
        except (OSError, ValueError):
            time.sleep(0.05)
            continue
        seen.append((time.monotonic(), st))
        if st.get("state") == "ended":
            return
        if st.get("state") == "live" and st.get("events", 0) > 0 and not live_names:
            try:
                data = get(url + "data.json")
                if get(url + "status.json").get("state") == "live":
                    live_names = {e[0] for e in (data or {}).get("ents", [])}
            except (OSError, ValueError):
                pass
        time.sleep(0.05)


poller = None
for raw in p.stdout:
    line = raw.decode(errors="replace").rstrip("\n")
    lines.append(line)
    print(line)
    m = re.search(r"updating while the firmware runs: (http://127\.0\.0\.1:\d+/)$", line)
    if m and not url:
        url, t_url = m.group(1), time.monotonic()
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
rc = p.wait()
done.set()
if poller:
    poller.join(timeout=20)
if rc == 77:
    print("SKIP: the Cortex-M toolchain or QEMU is not installed; "
          "TK_QEMU_DEPS=1 sh scripts/install-deps.sh installs them")
    sys.exit(77)
check(rc == 0, "demo.sh: exit %d" % rc)
out = "\n".join(lines)

# the live view, while the firmware ran
check(url is not None, "no URL of the live view in the demo's output")
fw_line = next((i for i, l in enumerate(lines) if l.startswith("fw: mode=stream")), None)
url_line = next((i for i, l in enumerate(lines) if "updating while the firmware runs" in l), None)
check(fw_line is not None and url_line is not None and url_line < fw_line,
      "the URL is not printed before the stream build's run")
info = json.loads(subprocess.run([tk, "info", "--format", "json", d + "/stream.tks"],
                                 capture_output=True, text=True).stdout or "null") or {}
n = info.get("events", -1)
counts = sorted({s["events"] for _, s in seen if s.get("state") == "live" and 0 < s.get("events", 0) < n})
check(len(counts) >= 2, "the live view did not update while the firmware ran: live counts %s of %d"
      % (counts, n))
check(live_names is not None and NAMES <= live_names,
      "the live view's data while the firmware ran: %s" % (sorted(live_names) if live_names else None))
ended = [(t, s) for t, s in seen if s.get("state") == "ended"]
check(bool(ended) and ended[0][1].get("events") == n and ended[0][1].get("end") == "the source ended",
      "the live view did not end with the capture's %d events: %s" % (n, ended[:1] or seen[-1:]))
if ended and t_url:
    check(ended[0][0] - t_url >= RUN_S,
          "not paced: %.2f s from the URL to the end of the stream" % (ended[0][0] - t_url))
    print("qemu demo: the live view updated %d times (%s events) while the firmware ran, "
          "%.2f s from its URL to the end" % (len(counts), "/".join(map(str, counts[:8])),
                                             ended[0][0] - t_url))
if url:
    try:
        urllib.request.urlopen(url + "status.json", timeout=5)
        check(False, "the live view still serves after the demo ended (not on a terminal)")
    except urllib.error.URLError:
        pass
check("the live view has stopped (not on a terminal)" in out, "the demo does not say the live view stopped")

# the capture lasts the run: the first event at the end of the start, the
# last a tick after the 3000th
dur = info.get("duration")
check(dur is not None and RUN_S * 1000 <= dur < RUN_S * 1000 + 10,
      "stream.tks lasts %s ms, not %d s" % (dur, RUN_S))

# the figures match, side by side
r = subprocess.run([tk, "diff", "--format", "json", d + "/snapshot.bin", d + "/stream.tks"],
                   capture_output=True, text=True)
rows = json.loads(r.stdout or "{}").get("rows")
check(r.returncode == 0 and rows == [], "diff snapshot.bin stream.tks: exit %d, rows %s"
      % (r.returncode, rows if rows is None else len(rows)))
shown = [l for l in lines if re.match(r"(same|changed|worse|only-base|only-new) +(task|IRQ)", l)]
check(len(shown) == 12 and all(l.startswith("same ") for l in shown),
      "the demo's side by side rows: %s" % shown)
check(any(re.match(r"same +task1 T PER: count 2999 -> 2999, min 1000 -> 1000 ", l) for l in shown),
      "the demo's task1 PER row")
check("the figures match: tracekit diff finds no row of stats that differs" in out,
      "the demo does not say the figures match")

r = subprocess.run([sys.executable, os.path.join(here, "check_run.py"), tk, d])
check(r.returncode == 0, "check_run.py: exit %d" % r.returncode)


# ---- on a terminal, and -q (a short stream run: only fw-stream.elf is
# built again) ----

class Term:
    """A command on a pseudo-terminal (its standard input, output and
    error), in a session of its own"""

    def __init__(self, args, env):
        self.fd, slave = pty.openpty()
        self.p = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave,
                                  env=env, start_new_session=True)
        os.close(slave)
        self.out = b""
        self.eof = False

    def until(self, pat, secs):
        """the first match of pat in the output, read for at most secs
        (None: not there when the output ended or the time ran out)"""
        end = time.monotonic() + secs
        while True:
            m = re.search(pat, self.out)
            if m or self.eof:
                return m
            left = end - time.monotonic()
            if left <= 0:
                return None
            if select.select([self.fd], [], [], left)[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # EIO: no process has the terminal open
                    chunk = b""
                self.out += chunk
                self.eof = not chunk

    def wait(self, secs):
        """its exit status, its output read to the end (None: still
        running after secs: its session is ended)"""
        self.until(rb"(?!)", secs)
        try:
            rc = self.p.wait(timeout=max(0.1, secs))
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGTERM)
            self.p.wait()
            rc = None
        os.close(self.fd)
        return rc


def served(u):
    try:
        return get(u + "status.json")
    except (OSError, ValueError):
        return None


FILES = ("trace.bin", "uart.bin", "trace.htf", "uart.htf", "trace-user.bin",
         "uart-user.bin", "snapshot.bin", "stream.tks", "fw-ftrace.log",
         "fw-htf.log", "fw-user.log", "fw-stream.log")


def files():
    out = {}
    for f in FILES:
        try:
            with open(os.path.join(d, f), "rb") as fh:
                out[f] = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            out[f] = None
    return out


short = dict(env, STREAM_MS="200")
# on a terminal: the demo waits for Enter before the stream build starts,
# then serves the live view after the run until Enter
t = Term(["sh", demo, tk, d], short)
m = t.until(rb"updating while the firmware runs: (http://127\.0\.0\.1:\d+/)\r?\n"
            rb"open it in a browser, then press Enter to start the firmware: $", 120)
check(m is not None, "on a terminal: no prompt before the stream build")
if m:
    turl = m.group(1).decode()
    time.sleep(0.3)
    st = served(turl)
    check(st is not None and st.get("events") == 0 and not os.path.exists(d + "/fw-stream.log"),
          "on a terminal: the stream build did not wait for Enter (status %s)" % st)
    os.write(t.fd, b"\n")
    m = t.until(rb"the live view still serves the capture: (http://\S+) \(press Enter to stop\) $", 120)
    check(m is not None and m.group(1).decode() == turl,
          "on a terminal: no prompt to stop the live view after the run")
    n_ev = re.findall(rb"stream\.tks\r?\nformat: +ftstream\r?\n(?:.*\r?\n)*?events: +(\d+)", t.out)
    if m:
        # the capture ended: the page says so once live looks again (an
        # interval), and it is still served while the demo waits
        st = None
        for _ in range(100):
            st = served(turl)
            if st and st.get("state") == "ended":
                break
            time.sleep(0.1)
        check(bool(n_ev) and st is not None and st.get("state") == "ended" and
              st.get("events") == int(n_ev[-1]) > 0 and t.p.poll() is None,
              "on a terminal: the live view after the run: %s, the capture's events %s"
              % (st, n_ev[-1:]))
        os.write(t.fd, b"\n")
rc = t.wait(30)
check(rc == 0, "on a terminal: demo.sh exit %s" % rc)
check(b"not on a terminal" not in t.out, "on a terminal: the demo says it is not on one")
if m:
    check(served(turl) is None, "on a terminal: the live view still serves after Enter")
term_files = files()

# -q (also on a terminal): no output, no prompt, no live view, the same
# files as the run above
q = Term(["sh", demo, tk, d, "-q"], short)
rc = q.wait(120)
check(rc == 0 and q.out == b"", "demo.sh -q: exit %s, output %r" % (rc, q.out[:300]))
check(not os.path.exists(d + "/live.url"), "demo.sh -q started the live view")
qf = files()
check(None not in qf.values() and qf == term_files,
      "demo.sh -q: other files than the same run on a terminal: %s"
      % [f for f in FILES if qf[f] is None or qf[f] != term_files[f]])
print("qemu demo: on a terminal, both prompts and the live view served until Enter; "
      "-q silent, the same %d files" % len(FILES))
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
