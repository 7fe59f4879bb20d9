#!/usr/bin/env python3
"""ATF inputs whose reading took time superlinear in their size, at a
moderate size, each checked against a Python model of the events or
against an equivalent input (the TIMEOUT of the test is the hang guard):

- stack: tasks started and never terminated, then each started again
  from the bottom of the running stack, with runnables on top (the search
  of the whole stack at each push: src/core/synth.c);
- resources: one Resource per task (each new Resource ID was checked
  against every earlier one), a Resource ID defined twice after them;
- comments: comments of 4 MB (just under TK_LINE_MAX, the longest token
  the reader takes) in the SystemConfiguration and in the
  TraceData (expat 2.5 scanned an unfinished token again at each 64 KB
  slice), and comments of 60 KB full of "<TraceEntry" (slices were cut at
  each), against the same file without them, and an error after them;
- writer: a task of 20,000 runnables with a Comment each, ATF to ATF
  (the writer grew a task's list of children by one per child);
- collide: SystemElement IDs and user ReferenceIDs that are multiples of
  2^50 (all in one slot of the reader's tables under a fixed hash), against
  the same file with the ids 1..n;

Usage: scale.py TRACEKIT   (KEEP=1: leave the generated files)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import synth_model as sm  # noqa: E402

cli = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="tk-atf-scale-")
failed = []

EVENT_IDS = {"activation-OS": 1, "start": 2, "terminate": 3, "preempt": 4, "resume": 5}
KINDS = {"activation-OS": "activate", "start": "start", "terminate": "terminate",
         "preempt": "preempt", "resume": "resume"}
BTF_TYPE = {"task": "T", "runnable": "R"}
SK = {"task": sm.PROCESS, "runnable": sm.RUNNABLE}


def fail(msg):
    failed.append(msg)
    print("FAIL:", msg)


class Atf:
    """An ATF file: Resources of SystemElements, and the TraceEntries with
    the events the model expects of them."""

    def __init__(self):
        self.resources = []   # (id, [(name, id, type, [children])])
        self.elems = {}       # id -> (name, type, core name)
        self.entries = []
        self.expect = []
        self.model = sm.Synth(sm.ATF_RULES)
        self.time = 0

    def resource(self, rid):
        self.resources.append((rid, []))
        return self.resources[-1][1]

    def element(self, parent, name, eid, ty):
        kids = []
        parent.append((name, eid, ty, kids))
        self.elems[eid] = (name, ty, "Core_%d" % self.resources[-1][0])
        return kids

    def event(self, eid, etype):
        name, ty, core = self.elems[eid]
        self.time += 1
        self.entries.append('<TraceEntry Time="%d" EventID="%d" ReferenceID="%d"/>\n'
                            % (self.time, EVENT_IDS[etype], eid))
        kind = KINDS[etype]
        if ty == "runnable" and kind == "preempt":
            kind = "suspend"
        src, si, ti = self.model.event(core, SK[ty], name, kind)
        self.expect.append("%d,%s,%d,%s,%s,%d,%s" % (
            self.time, src, si, BTF_TYPE[ty], name, ti, kind))

    def text(self, config_extra="", data_extra=""):
        out = ['<?xml version="1.0"?>\n<CommonFormat Version="1.0">\n'
               '<SystemConfiguration Name="scale">\n']

        def elems(lst, depth):
            for name, eid, ty, kids in lst:
                out.append('%s<SystemElement Name="%s" ID="%d" Type="%s"%s\n' % (
                    " " * depth, name, eid, ty, ">" if kids else "/>"))
                if kids:
                    elems(kids, depth + 1)
                    out.append("%s</SystemElement>\n" % (" " * depth))
        for rid, lst in self.resources:
            out.append('<Resource ID="%d" Scheduler="s">\n' % rid)
            elems(lst, 1)
            out.append("</Resource>\n")
        out.append(config_extra)
        out.append("<EventIDMappings>\n")
        for t, i in EVENT_IDS.items():
            out.append('<EventIDMapping EventID="%d" EventType="%s"/>\n' % (i, t))
        out.append('</EventIDMappings>\n<TimeBase Unit="ns"><Value Numerator="1" '
                   'Denominator="1"/></TimeBase>\n</SystemConfiguration>\n'
                   '<TraceData Start="0">\n')
        out.extend(self.entries)
        out.append(data_extra)
        out.append("</TraceData>\n</CommonFormat>\n")
        return "".join(out)


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def events_of(path):
    p = run("cat", "--no-header", "-q", path)
    if p.returncode != 0:
        fail("cat %s: exit %d: %s" % (os.path.basename(path), p.returncode,
                                      p.stderr.strip()[:300]))
        return None
    return p.stdout.splitlines()


def same(label, got, want):
    if got is None:
        return
    if got != want:
        bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                   min(len(got), len(want)))
        fail("%s: event %d: got %r, expected %r (%d vs %d events)" % (
            label, bad, got[bad] if bad < len(got) else None,
            want[bad] if bad < len(want) else None, len(got), len(want)))


def stack_case(n):
    a = Atf()
    res = a.resource(0)
    for i in range(n):
        kids = a.element(res, "T%d" % i, 2 * i + 1, "task")
        a.element(kids, "R%d" % i, 2 * i + 2, "runnable")
    for i in range(n):
        a.event(2 * i + 1, "start")
        a.event(2 * i + 2, "start")
    for i in range(n):
        a.event(2 * i + 1, "start")       # the bottom of the stack, each time
        a.event(2 * i + 2, "resume")
    for i in range(0, n, 2):
        a.event(2 * i + 1, "terminate")
        a.event(2 * i + 2, "preempt")
    path = write("stack.atf", a.text())
    same("stack", events_of(path), a.expect)


def resources_case(n):
    a = Atf()
    for i in range(n):
        a.element(a.resource(i), "T%d" % i, i, "task")
    # the tasks in an order that jumps between the cores
    for k in range(n):
        i = k * 7919 % n
        a.event(i, "activation-OS")
        a.event(i, "start")
    path = write("resources.atf", a.text())
    same("resources", events_of(path), a.expect)
    p = run("info", path)
    cores = re.search(r"^cores: +(\d+) \(Core_0, Core_1, ", p.stdout, re.M)
    if p.returncode != 0 or not cores or int(cores.group(1)) != n:
        fail("resources: info does not give %d cores: exit %d, %r" % (
            n, p.returncode, cores.group(0) if cores else p.stderr.strip()[:200]))
    # a Resource ID defined twice, after all the others
    text = a.text(config_extra='<Resource ID="%d" Scheduler="s"/>\n' % (n // 2))
    path = write("resources_twice.atf", text)
    line = text[:text.index('<Resource ID="%d" Scheduler="s"/>' % (n // 2))].count("\n") + 1
    p = run("info", path)
    want = "resources_twice.atf:%d:1: error: Resource ID %d defined twice" % (line, n // 2)
    if p.returncode != 2 or want not in p.stderr:
        fail("resources: a Resource ID twice: exit %d, %r (expected %r)" % (
            p.returncode, p.stderr.strip()[:300], want))


def collide_text(n, key):
    """n tasks and n user Infos whose ids are key(i), an entry on each."""
    out = ['<?xml version="1.0"?>\n<CommonFormat Version="1.0">\n'
           '<SystemConfiguration Name="ids">\n<Resource ID="0" Scheduler="s">\n']
    for i in range(n):
        out.append('<SystemElement Name="T%d" ID="%d" Type="task"/>\n' % (i, key(i)))
    out.append('</Resource>\n<EventIDMappings>\n'
               '<EventIDMapping EventID="1" EventType="start"/>\n'
               '<EventIDMapping EventID="2" EventType="user"><UserTable>\n')
    for i in range(n):
        out.append('<Info ReferenceID="%d">I%d</Info>\n' % (key(i), i))
    out.append('</UserTable></EventIDMapping>\n</EventIDMappings>\n'
               '<TimeBase Unit="ns"><Value Numerator="1" Denominator="1"/></TimeBase>\n'
               '</SystemConfiguration>\n<TraceData Start="0">\n')
    for k in range(n):
        i = k * 7919 % n
        out.append('<TraceEntry Time="%d" EventID="1" ReferenceID="%d"/>\n'
                   '<TraceEntry Time="%d" EventID="2" ReferenceID="%d"/>\n'
                   % (2 * k, key(i), 2 * k + 1, key(i)))
    out.append("</TraceData>\n</CommonFormat>\n")
    return "".join(out)


def collide_case(n):
    # ids that are multiples of 2^50 (a fixed multiply's hash put them all
    # in one slot) read as the same file with the ids 1..n
    assert n < 1 << 14
    want = events_of(write("ids_small.atf", collide_text(n, lambda i: i + 1)))
    if want is not None and len(want) != 2 * n:
        fail("collide: %d events, not %d" % (len(want), 2 * n))
    got = events_of(write("ids_2_50.atf", collide_text(n, lambda i: (i + 1) << 50)))
    same("collide", got, want)


def comments_text(kb, nsmall, with_comments):
    """Comments of `kb` KB in the SystemConfiguration and between two
    entries, and `nsmall` comments of 60 KB full of "<TraceEntry" after an
    element the scanner leaves to expat (each was cut into slices at every
    "<TraceEntry" in it); without_comments: the same file without them."""
    def big():
        return "<!--" + ("c" * 1023 + "\n") * kb + "-->\n" if with_comments else ""
    a = Atf()
    res = a.resource(0)
    for i in range(4):
        a.element(res, "T%d" % i, i + 1, "task")
    for k in range(nsmall + 2):
        a.event(k % 4 + 1, "start")
        a.event(k % 4 + 1, "terminate")
    entries = a.entries
    small = '<X/><!-- ' + "<TraceEntry " * 5000 + '-->\n' if with_comments else '<X/>\n'
    a.entries = [entries[0], big()] + [e + (small if i % 2 else "")
                                        for i, e in enumerate(entries[1:])]
    return a.text(config_extra=big()), a.expect


def comments_case(kb, nsmall):
    plain, expect = comments_text(kb, nsmall, False)
    text, _ = comments_text(kb, nsmall, True)
    same("comments (plain)", events_of(write("plain.atf", plain)), expect)
    same("comments", events_of(write("comments.atf", text)), expect)
    # an error after them: at its line, column 1 (its start tag)
    bad = '<TraceEntry Time="%d" EventID="99" ReferenceID="1"/>\n' % (2 * nsmall + 5)
    i = text.index("</TraceData>")
    path = write("comments_bad.atf", text[:i] + bad + text[i:])
    p = run("cat", "-q", path)
    want = "comments_bad.atf:%d:1: error: EventID 99 is not in the EventIDMappings" % (
        text[:i].count("\n") + 1)
    if p.returncode != 2 or want not in p.stderr:
        fail("comments: an error after them: exit %d, %r (expected %r)" % (
            p.returncode, p.stderr.strip()[:300], want))


def writer_case(n):
    """A task of n runnables with a Comment each, ATF to ATF: the same
    events, each runnable in the task with its Comment (the writer grew a
    task's list of children by one per child: 26 s for 20,000 under ASan)."""
    a = Atf()
    kids = a.element(a.resource(0), "T", 1, "task")
    for i in range(n):
        a.element(kids, "R%d" % i, i + 2, "runnable")
    a.event(1, "start")
    for i in range(n):
        a.event(i + 2, "start")
        a.event(i + 2, "terminate")
    text = re.sub(r'(<SystemElement Name="R(\d+)" ID="\d+" Type="runnable")/>',
                  r'\1><Comment>c\2</Comment></SystemElement>', a.text())
    src = write("writer.atf", text)
    out = os.path.join(tmp, "writer_out.atf")
    p = run("convert", "--strict", src, out)
    if p.returncode != 0 or p.stderr:
        fail("writer: convert: exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
        return
    same("writer", events_of(out), a.expect)
    root = ET.parse(out).getroot()
    task = root.find("./SystemConfiguration/Resource/SystemElement[@Name='T']")
    kids = [] if task is None else task.findall("SystemElement")
    got = [(k.get("Name"), k.findtext("Comment")) for k in kids]
    want = [("R%d" % i, "c%d" % i) for i in range(n)]
    if got != want:
        fail("writer: the task holds %d runnables, not the %d with their Comments"
             % (len(got), n))


try:
    writer_case(20000)
    comments_case(4000, 30)
    stack_case(30000)
    resources_case(60000)
    collide_case(16000)
finally:
    if os.environ.get("KEEP"):
        print("kept", tmp)
    else:
        shutil.rmtree(tmp)

if failed:
    sys.exit(1)
print("ok")
