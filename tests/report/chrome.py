#!/usr/bin/env python3
"""One headless Chromium for many pages (report_test.sh): what `chromium
--headless --dump-dom URL` and `--screenshot` give for one page each, for
every page of a list, from a single browser driven over its DevTools
protocol on a pipe (--remote-debugging-pipe: no port, no websocket).

The pages are opened one after the other in one tab of a browser context
of its own (a profile of its own, as a new --user-data-dir gave), in a
window of the size --window-size gave: a new tab and context for every
page started a renderer process for each, which was most of the time of
many pages (the page keeps nothing in the profile: no storage, no
cookies).  A page gets a new tab and context when its window size differs
from the last one's, when it is the last page's document again (a
navigation to another fragment of it would not load it) and after a page
that failed.  After its load event a page's DOM is written as --dump-dom
writes it; its
console messages and uncaught exceptions are written as Chromium logs them
with --enable-logging=stderr (lines 'CONSOLE ... "TEXT", source: URL
(LINE)': those from the navigation to it on); a screenshot, if asked for,
is taken as --screenshot takes it.
A page that does not load within the timeout, or that the browser fails
on, gets a line 'FAIL: ...' in its log and no DOM file; a browser that
died is started again for the next page.

usage: chrome.py JOBS [CHROMIUM_OPTION...]
JOBS: one page a line, fields separated by tabs:
  URL  DOM_FILE  LOG_FILE  [SCREENSHOT_FILE  [WIDTHxHEIGHT]]
('-' for a file not wanted; the window is 1400x900 unless given)."""
import base64
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = float(os.environ.get("TK_CHROME_TIMEOUT", "120"))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--window-size=1400,900"]
# what --dump-dom writes (the doctype, then the document)
DUMP = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype)"
        " + '\\n' : '') + document.documentElement.outerHTML")


class Dead(Exception):
    """the browser exited or stopped answering"""


class Browser:
    def __init__(self, extra, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        # Chromium reads commands on fd 3 and answers on fd 4
        argv = ["chromium"] + FLAGS + extra + [
            "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$@" 3<&%d 4>&%d' % (cmd_r, res_w), "sh"] + argv,
            pass_fds=(cmd_r, res_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        # the tab pages are opened in: (context, target, session, window
        # size, document opened last), or None
        self.tab = None

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.cmd_w, self.res_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.cmd_w, data):]
        except OSError as e:
            raise Dead("cannot write to the browser: %s" % e)
        return self.next_id

    def receive(self, deadline):
        """the next message, events kept in self.events"""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            r, _, _ = select.select([self.res_r], [], [], left)
            if not r:
                raise TimeoutError
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                raise Dead("the browser exited (status %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, deadline=None):
        want = self.send(method, params, session)
        deadline = deadline or time.monotonic() + TIMEOUT
        while True:
            msg = self.receive(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait(self, test, deadline):
        """waits for an event (kept or to come) that test() accepts"""
        k = 0
        while True:
            while k < len(self.events):
                if test(self.events[k]):
                    return
                k += 1
            msg = self.receive(deadline)
            if "method" in msg:
                self.events.append(msg)


def remote_text(o):
    """an argument of console.log as Chromium's log writes it"""
    if "value" in o:
        v = o["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return o.get("description", o.get("type", ""))


def log_lines(events, session):
    """the page's console messages and exceptions, as --enable-logging
    writes them"""
    out = []
    for ev in events:
        if ev.get("sessionId") != session:
            continue
        m, p = ev["method"], ev.get("params", {})
        if m == "Runtime.consoleAPICalled":
            frame = (p.get("stackTrace", {}).get("callFrames") or [{}])[0]
            text = " ".join(remote_text(a) for a in p.get("args", []))
            out.append('CONSOLE:%s "%s", source: %s (%d)' % (
                p.get("type"), text, frame.get("url", ""), frame.get("lineNumber", -1) + 1))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description", "").split("\n")[0]
            out.append('CONSOLE "%s %s", source: %s (%d)' % (
                d.get("text", "Uncaught"), desc, d.get("url", ""), d.get("lineNumber", -1) + 1))
        elif m == "Log.entryAdded":
            e = p.get("entry", {})
            out.append('CONSOLE:%s "%s", source: %s (%d)' % (
                e.get("source"), e.get("text", ""), e.get("url", ""), e.get("lineNumber", -1) + 1))
    return out


def close_tab(b):
    """closes the tab and its context, if any"""
    tab, b.tab = b.tab, None
    if not tab:
        return
    ctx, target = tab[0], tab[1]
    try:
        if target:
            b.call("Target.closeTarget", {"targetId": target}, deadline=time.monotonic() + 30)
        b.call("Target.disposeBrowserContext", {"browserContextId": ctx},
               deadline=time.monotonic() + 30)
    except (RuntimeError, TimeoutError):
        pass


def new_tab(b, size, deadline):
    """a tab of a context of its own, of the window size, its session
    attached with the events of pages on"""
    w, h = size
    ctx = b.call("Target.createBrowserContext", deadline=deadline)["browserContextId"]
    b.tab = (ctx, None, None, size, None)
    target = b.call("Target.createTarget", {
        "url": "about:blank", "browserContextId": ctx, "newWindow": True,
        "width": w, "height": h}, deadline=deadline)["targetId"]
    b.tab = (ctx, target, None, size, None)
    session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                     deadline=deadline)["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        b.call(domain + ".enable", session=session, deadline=deadline)
    b.call("Page.setLifecycleEventsEnabled", {"enabled": True}, session=session,
           deadline=deadline)
    b.tab = (ctx, target, session, size, None)


def open_page(b, url, dom_file, shot_file, size):
    """DOM and screenshot of one page; returns its log lines"""
    deadline = time.monotonic() + TIMEOUT
    doc = url.split("#", 1)[0]
    if b.tab and (b.tab[3] != size or b.tab[4] == doc):
        close_tab(b)
    ok = False
    try:
        if not b.tab:
            new_tab(b, size, deadline)
        ctx, target, session = b.tab[:3]
        b.tab = (ctx, target, session, size, doc)
        # the messages of the page from its navigation on
        b.events = []
        nav = b.call("Page.navigate", {"url": url}, session=session, deadline=deadline)
        if nav.get("errorText"):
            raise RuntimeError("cannot open %s: %s" % (url, nav["errorText"]))
        loader = nav.get("loaderId")
        b.wait(lambda ev: (ev.get("sessionId") == session and ev["method"] == "Page.lifecycleEvent"
                           and ev["params"].get("name") == "load"
                           and ev["params"].get("loaderId") == loader), deadline)
        dom = b.call("Runtime.evaluate", {"expression": DUMP, "returnByValue": True},
                     session=session, deadline=deadline)
        if "exceptionDetails" in dom:
            raise RuntimeError("cannot read the DOM")
        shot = None
        if shot_file:
            shot = b.call("Page.captureScreenshot", {"format": "png"}, session=session,
                          deadline=deadline)["data"]
        # the messages of the page, up to now
        lines = log_lines(b.events, session)
        if dom_file:
            with open(dom_file, "w", encoding="utf-8") as f:
                f.write(dom["result"]["value"] + "\n")
        if shot_file:
            with open(shot_file, "wb") as f:
                f.write(base64.b64decode(shot))
        ok = True
        return lines
    finally:
        b.events = []
        if not ok:
            # (a browser that died is closed by the caller)
            if b.proc.poll() is None:
                close_tab(b)
            b.tab = None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    jobs = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                jobs.append(line.rstrip("\n").split("\t"))
    extra = sys.argv[2:]
    # a test stopped (CTest's timeout) closes the browser and its profile
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    profile = tempfile.mkdtemp(prefix="tk-chrome-")
    b = None
    try:
        for job in jobs:
            url, dom_file, log_file = job[:3]
            shot_file = job[3] if len(job) > 3 and job[3] != "-" else None
            size = tuple(int(v) for v in job[4].split("x")) if len(job) > 4 else (1400, 900)
            dom_file = None if dom_file == "-" else dom_file
            for f in (dom_file, shot_file):
                if f and os.path.exists(f):
                    os.unlink(f)
            try:
                if b is None:
                    b = Browser(extra, profile)
                lines = open_page(b, url, dom_file, shot_file, size)
            except TimeoutError:
                lines = ["FAIL: %s: no load within %g s" % (url, TIMEOUT)]
                b.close()
                b = None
            except Dead as e:
                lines = ["FAIL: %s: %s" % (url, e)]
                b.close()
                b = None
            except RuntimeError as e:
                lines = ["FAIL: %s: %s" % (url, e)]
            if log_file != "-":
                with open(log_file, "w", encoding="utf-8") as f:
                    f.writelines(line + "\n" for line in lines)
    finally:
        if b:
            b.close()
        subprocess.run(["rm", "-rf", profile], check=False)


if __name__ == "__main__":
    main()
