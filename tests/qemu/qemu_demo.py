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
Skipped (77) only where arm-none-eabi-gcc, its C library or
qemu-system-arm is not installed.
Usage: qemu_demo.py TRACEKIT DIR
"""
import json
import os
import re
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
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
