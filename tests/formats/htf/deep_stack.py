#!/usr/bin/env python3
"""Deep running stacks in the HTF reader (src/core/synth.c).

Tasks started and never terminated make a core's running stack deep; the
reader keeps an index of a deep stack rather than searching it at each
push.  This test checks the events against the Python model of the rules
(tests/formats/synth_model.py) on:

- a random walk on two cores whose stacks grow to thousands of entries and
  come back to a few (so stacks become deep and shallow again, entries
  leave from the middle, the top and from stacks they are not on, and
  tasks and runnables move between cores), with activates, ISRs,
  runnables, code blocks and signals, whose sources read the stacks;
- N tasks started and never terminated, then each started again from the
  bottom of the stack up (the removal from the bottom at each start took
  O(N) each before the index: minutes at this size under a sanitizer);

and that the walks convert to HTF with --strict (the HTF writer runs the
same rules to tell what reading would not give back) and read back the same.

Usage: deep_stack.py TRACEKIT
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import synth_model as sm  # noqa: E402

cli = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="tk-deep-stack-")
failed = []

TYPES = ["Task", "ISR", "Runnable", "CodeBlock", "Signal"]
BTF_TYPE = {"Task": "T", "ISR": "I", "Runnable": "R", "CodeBlock": "IB", "Signal": "SIG"}
SK = {"Task": sm.PROCESS, "ISR": sm.PROCESS, "Runnable": sm.RUNNABLE,
      "CodeBlock": sm.BLOCK, "Signal": sm.OTHER}
EVENTS = {
    "Task": ["activate", "start", "resume", "preempt", "terminate"],
    "ISR": ["start", "resume", "preempt", "terminate"],
    "Runnable": ["start", "suspend", "resume", "terminate"],
    "CodeBlock": ["start", "stop"],
    "Signal": ["read", "write"],
}


def fail(msg):
    failed.append(msg)
    print("FAIL:", msg)


class Trace:
    """An HTF file and the events the model expects of it."""

    def __init__(self, ncores):
        self.ncores = ncores
        self.ents = []        # (name, type)
        self.index = {}       # name -> id
        self.by_type = {t: [] for t in TYPES}
        self.sections = [[] for _ in range(ncores)]
        self.expect = []
        self.time = 0
        self.model = sm.Synth(sm.HTF_RULES)

    def entity(self, name, ty):
        self.ents.append((name, ty))
        self.index[name] = len(self.ents) - 1
        self.by_type[ty].append(len(self.ents) - 1)
        return len(self.ents) - 1

    def event(self, core, ent, kind):
        name, ty = self.ents[ent]
        self.time += 1
        code = EVENTS[ty].index(kind)
        self.sections[core].append("%08X%08X%02X" % (self.time, ent, code))
        src, si, ti = self.model.event("Core_%d" % core, SK[ty], name, kind)
        model_kind = "terminate" if kind == "stop" else kind
        self.expect.append("%d,%s,%d,%s,%s,%d,%s" % (
            self.time, src, si, BTF_TYPE[ty], name, ti, model_kind))

    def write(self, path):
        with open(path, "w") as f:
            w = f.write
            w("#Format HTF\n#Version 1.0\n#NumberOfCores %d\n#TimeScale ns\n"
              "#TimestampLength 4\n#EntityLength 4\n#EventLength 1\n\n" % self.ncores)
            w("#TypeTable\n")
            for i, t in enumerate(TYPES):
                w("#-%02X %s\n" % (i, t))
            for t in TYPES:
                w("\n#%sEventTable\n" % t)
                for i, e in enumerate(EVENTS[t]):
                    w("#-%02X %s\n" % (i, e))
            w("\n#EntityTable\n")
            for i, (name, _) in enumerate(self.ents):
                w("#-%08X %s\n" % (i, name))
            w("\n#EntityTypeTable\n")
            for i, (_, ty) in enumerate(self.ents):
                w("#-%08X %02X\n" % (i, TYPES.index(ty)))
            w("\n#TraceData\n")
            for c, recs in enumerate(self.sections):
                w("#-%X\n" % c)
                w("".join(r + "\n" for r in recs))


class RandomSet:
    """A set with a uniform random choice in O(1)."""

    def __init__(self):
        self.items = []
        self.pos = {}

    def __len__(self):
        return len(self.items)

    def sync(self, item, present):
        if present and item not in self.pos:
            self.pos[item] = len(self.items)
            self.items.append(item)
        elif not present and item in self.pos:
            i = self.pos.pop(item)
            last = self.items.pop()
            if i < len(self.items):
                self.items[i] = last
                self.pos[last] = i

    def choice(self, rnd):
        return self.items[rnd.randrange(len(self.items))]


def random_walk(seed, nevents):
    rnd = random.Random(seed)
    tr = Trace(2)
    for i in range(4000):
        tr.entity("Task_%d" % i, "Task")
    for i in range(100):
        tr.entity("Isr_%d" % i, "ISR")
    for i in range(3000):
        tr.entity("Run_%d" % i, "Runnable")
    for i in range(50):
        tr.entity("Block_%d" % i, "CodeBlock")
    for i in range(20):
        tr.entity("Sig_%d" % i, "Signal")
    procs = tr.by_type["Task"] + tr.by_type["ISR"]
    runs = tr.by_type["Runnable"]
    on_procs = [RandomSet(), RandomSet()]   # what the model has on a stack
    on_runs = [RandomSet(), RandomSet()]
    # each core's stacks wander towards a depth that changes: deep, then
    # shallow (an index made and dropped), up and down in steps
    plan = [3000, 5, 400, 0, 2500, 12, 40, 1]
    deepest = [0, 0]

    def event(core, e, kind):
        tr.event(core, e, kind)
        cname = "Core_%d" % core
        name = tr.ents[e][0]
        on_procs[core].sync(e, name in tr.model.procs.get(cname, ()))
        on_runs[core].sync(e, name in tr.model.runs.get(cname, ()))

    def walk(core, on, pool, target, push_kinds, pop_kinds):
        if rnd.random() < (0.9 if len(on) < target else 0.2):
            # a push: mostly of one not on this stack, else one from it
            e = on.choice(rnd) if len(on) and rnd.random() < 0.3 else rnd.choice(pool)
            if tr.ents[e][1] == "Task" and rnd.random() < 0.3:
                event(core, e, "activate")
            event(core, e, rnd.choice(push_kinds))
        else:
            # a pop: mostly of one on the stack (the top now and then)
            if len(on) and rnd.random() < 0.9:
                top = tr.model.top(tr.model.procs.get("Core_%d" % core)
                                   if pool is procs else
                                   tr.model.runs.get("Core_%d" % core))
                e = tr.index[top[0]] if rnd.random() < 0.3 else on.choice(rnd)
            else:
                e = rnd.choice(pool)
            event(core, e, rnd.choice(pop_kinds))

    for k in range(nevents):
        phase = k * len(plan) // nevents
        core = rnd.randrange(2)
        target = plan[(phase + 3 * core) % len(plan)]
        deepest[core] = max(deepest[core], len(on_procs[core]), len(on_runs[core]))
        r = rnd.random()
        if r < 0.55:
            walk(core, on_procs[core], procs, target,
                 ["start", "resume"], ["preempt", "terminate"])
        elif r < 0.85:
            walk(core, on_runs[core], runs, target,
                 ["start", "resume"], ["suspend", "terminate"])
        elif r < 0.93:
            event(core, rnd.choice(tr.by_type["CodeBlock"]), rnd.choice(["start", "stop"]))
        else:
            event(core, rnd.choice(tr.by_type["Signal"]), rnd.choice(["read", "write"]))
    return tr, deepest


def restart_from_bottom(n):
    tr = Trace(1)
    for i in range(n):
        tr.entity("Task_%d" % i, "Task")
    for i in range(n):
        tr.event(0, i, "start")
    for i in range(n):
        tr.event(0, i, "start")       # the bottom of the stack, each time
    for i in range(0, n, 2):
        tr.event(0, i, "terminate")   # every other one, from the bottom
    return tr


def events_of(path, *extra):
    p = subprocess.run([cli, "cat", "--no-header", "-q", *extra, path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("cat %s: exit %d: %s" % (path, p.returncode, p.stderr.strip()[:300]))
        return []
    return p.stdout.splitlines()


def check(label, tr, convert=True):
    path = os.path.join(tmp, label + ".htf")
    tr.write(path)
    got = events_of(path)
    if got != tr.expect:
        bad = next((i for i, (a, b) in enumerate(zip(got, tr.expect)) if a != b),
                   min(len(got), len(tr.expect)))
        fail("%s: event %d: got %r, model %r (%d vs %d events)" % (
            label, bad, got[bad] if bad < len(got) else None,
            tr.expect[bad] if bad < len(tr.expect) else None, len(got), len(tr.expect)))
        return
    if not convert:
        return
    # the HTF writer runs the same rules to count what reading would not
    # give back: HTF to HTF is lossless (--strict refuses any loss)
    back = os.path.join(tmp, label + "_back.htf")
    p = subprocess.run([cli, "convert", "--strict", path, back],
                       capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        fail("%s: convert --strict: exit %d: %s" % (label, p.returncode, p.stderr.strip()[:300]))
    elif events_of(back) != tr.expect:
        fail("%s: the converted HTF does not read back to the same events" % label)


try:
    for seed in (1, 2):
        tr, deepest = random_walk(seed, 80000)
        # the walk must reach deep stacks, or it tests nothing new
        if max(deepest) < 1000:
            fail("walk %d: stacks only %s deep" % (seed, deepest))
        check("walk%d" % seed, tr)
    # (not converted: the HTF writer grows a table of its entities by a
    # realloc() of the same size per entity, which a sanitizer's realloc()
    # copies: O(entities^2) there)
    check("restart", restart_from_bottom(100000), convert=False)
finally:
    shutil.rmtree(tmp)

if failed:
    sys.exit(1)
print("ok")
