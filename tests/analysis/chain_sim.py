#!/usr/bin/env python3
"""chain_sim.py - cause-effect chains against a simulator that knows the truth.

  chain_sim.py CLI [SEEDS]

A multi-rate system: the first signal S0 is written by a stimulus (STI) or
by a periodic task; link task Li (i = 1..n, one core each, its own period,
offset and execution offsets) reads S(i-1) once or twice and writes S(i) in
each instance, sometimes reading again after the write; a disturber task
writes S1 without reading S0 (a write with no link), a reader task reads Sn
(noise).  Times lie on a coarse grid, so reads and writes of one signal
often share a time; the lines of one time are shuffled, and the trace's
order is the order the simulator applies them in.

The simulator keeps which write each read saw (a write number per signal,
as the data flows), then finds each effect's cause by following those
links back, and each cause's first effect: the truth, from its own
bookkeeping and never from the trace.  It writes the BTF trace, runs
`tracekit stats --format csv --exact --chain ...` (and --percentiles) and
compares REACTION, AGE (count, min, exact avg, max, the max's instance and
time) and LOST, and the percentiles, exactly.

Named scenarios (the issue's list) come first, each with a check that the
scenario shows what it is for (several effects per cause, lost causes,
reads and writes at one time, a stimulus writer, one link), then random
systems for SEEDS seeds (default 30).
"""
import csv
import io
import math
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction

PCTS = ["50", "90", "99", "99.9", "100", "0.5"]


class Sim:
    def __init__(self, rng, nlinks, periods, sti, horizon, grid,
                 disturber=True):
        self.rng = rng
        self.n = nlinks
        self.sigs = ["S%d" % i for i in range(nlinks + 1)]
        self.actions = []          # (time, tiebreak, kind, args)
        self.periods = periods     # link i (1..n) -> period
        self.sti = sti             # S0 by a stimulus (else by task L0)
        self.horizon = horizon
        self.grid = grid
        self.disturber = disturber
        self.ties = 0

    def at(self, t, kind, *args, order=None):
        # order: within one instance, its actions keep their order
        self.actions.append((t, self.rng.random() if order is None else order,
                             kind, args))

    def plan(self):
        rng, g = self.rng, self.grid
        if self.sti:
            t, k = rng.randrange(0, 3) * g, 0
            while t < self.horizon:
                self.at(t, "w", "Stim", k, 0)
                k += 1
                t += rng.choice([1, 2, 3]) * g
        else:
            self.task("L0", self.periods[0], None, 0)
        for i in range(1, self.n + 1):
            self.task("L%d" % i, self.periods[i], i - 1, i)
        if self.disturber:
            t, k = rng.randrange(1, 7) * g, 0
            while t < self.horizon:
                self.at(t, "w", "Dist", k, 1)
                k += 1
                t += rng.randrange(5, 15) * g
        t, k = 0, 0
        while t < self.horizon:
            self.at(t, "r", "Mon", k, self.n)
            k += 1
            t += rng.randrange(1, 4) * g

    def task(self, name, period, rd, wr):
        """a periodic task: start, reads of S(rd), a write of S(wr), maybe a
        read after it, terminate; offsets on the grid, strictly increasing"""
        rng, g = self.rng, self.grid
        t, k = rng.randrange(0, period // g + 1) * g, 0
        core = "Core_%s" % name
        while t + period < self.horizon:
            slots = sorted(rng.sample(range(1, max(4, period // g)), 3))
            seq = [("start",)]
            if rd is not None:
                seq.append(("r", rd, slots[0]))
                if rng.random() < 0.5 and slots[1] > slots[0] + 1:
                    seq.append(("r", rd, slots[1] - 1))
            seq.append(("w", wr, slots[1]))
            if rd is not None and rng.random() < 0.3:
                seq.append(("r", rd, slots[2]))
            self.at(t, "start", core, name, k, order=-1.0)
            for j, a in enumerate(seq[1:]):
                self.at(t + a[2] * g, a[0], name, k, a[1])
            self.at(t + (slots[2] + 1) * g, "term", core, name, k, order=2.0)
            k += 1
            t += period

    def run(self):
        """apply the actions in the trace's order; the BTF lines and the
        truth"""
        self.actions.sort(key=lambda a: (a[0], a[1]))
        cur = {}          # signal -> number of its latest write
        wtime, wby, wlink = {}, {}, {}   # write -> time, (name, inst), link
        seen = {}         # (name, inst) -> {signal: write number its latest read saw}
        lines = ["#version 2.2.0", "#creator chain_sim.py", "#timeScale ns"]
        last_t, last_kinds = None, set()
        nw = 0
        effects = []      # writes of Sn, in order
        causes = []       # writes of S0, in order
        for t, _, kind, args in self.actions:
            if kind == "start" or kind == "term":
                core, name, k = args
                lines.append("%d,%s,0,T,%s,%d,%s" % (t, core, name, k,
                             "start" if kind == "start" else "terminate"))
                if kind == "term":
                    seen.pop((name, k), None)
                continue
            name, k, s = args
            sig = self.sigs[s]
            if t == last_t:
                if (sig, "w" if kind == "r" else "r") in last_kinds:
                    self.ties += 1
            else:
                last_t, last_kinds = t, set()
            last_kinds.add((sig, kind))
            if kind == "r":
                lines.append("%d,%s,%d,SIG,%s,0,read" % (t, name, k, sig))
                seen.setdefault((name, k), {})[s] = cur.get(s)
                continue
            lines.append("%d,%s,%d,SIG,%s,0,write" % (t, name, k, sig))
            nw += 1
            wtime[nw], wby[nw] = t, (name, k)
            # the link: the write of S(s-1) that this instance's latest
            # read of it saw (none for S0, or without such a read)
            wlink[nw] = seen.get((name, k), {}).get(s - 1) if s > 0 else None
            wlink[nw] = (s, wlink[nw])
            cur[s] = nw
            if s == 0:
                causes.append(nw)
            if s == self.n:
                effects.append(nw)
        self.lines = lines
        # the truth: follow each effect's links back to S0
        def back(w):
            s, prev = wlink[w]
            while s > 0:
                if prev is None:
                    return None
                w = prev
                s, prev = wlink[w]
            return w
        age, reaction, first = [], [], {}
        for e in effects:
            c = back(e)
            if c is None:
                continue
            age.append((wtime[e] - wtime[c], wby[e][1], wtime[e]))
            if c not in first:
                first[c] = e
                reaction.append((wtime[e] - wtime[c], wby[c][1], wtime[c]))
        self.age, self.reaction = age, reaction
        self.lost = len(causes) - len(first)
        self.ncauses = len(causes)
        self.multi = len(age) > len(reaction)


def exact(q):
    """a fraction as --exact writes it: the decimal where it ends, else N/D"""
    d = q.denominator
    places = 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        if d % 10 == 0:
            d //= 10
        elif d % 2 == 0:
            d //= 2
        else:
            d //= 5
        places += 1
    if d != 1:
        return "%d/%d" % (q.numerator, q.denominator)
    s = str(q.numerator * 10 ** places // q.denominator).rjust(places + 1, "0")
    if places:
        s = (s[:-places] + "." + s[-places:]).rstrip("0").rstrip(".")
    return s


def expect(vals):
    """count, min, avg, max, max_instance, max_at as tracekit writes them
    (--exact); the max's instance is the first one to reach it"""
    if not vals:
        return ["0", "", "", "", "", ""]
    mx = max(v for v, _, _ in vals)
    inst, at = next((i, a) for v, i, a in vals if v == mx)
    avg_s = exact(Fraction(sum(v for v, _, _ in vals), len(vals)))
    return [str(len(vals)), str(min(v for v, _, _ in vals)), avg_s, str(mx),
            str(inst), str(at)]


def nearest_rank(vals, p):
    """the smallest value with at least p % of the values at or below it"""
    xs = sorted(v for v, _, _ in vals)
    if not xs:
        return ""
    k = max(1, math.ceil(Fraction(p) * len(xs) / 100))
    return str(xs[k - 1])


def check(cli, sim, label, want=None):
    fd, path = tempfile.mkstemp(suffix=".btf")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(sim.lines) + "\n")
    try:
        spec = "C=" + ",".join(sim.sigs)
        args = [cli, "stats", "--format", "csv", "--exact", "--type", "CHAIN",
                "--chain", spec]
        if want != "no-pct":
            args += ["--percentiles", ",".join(PCTS)]
        out = subprocess.run(args + [path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        return ["%s: exit %d: %s" % (label, out.returncode, out.stderr.strip())]
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(out.stdout))}
    errs = []
    cols = ["count", "min", "avg", "max", "max_instance", "max_at"]
    for m, vals in (("REACTION", sim.reaction), ("AGE", sim.age)):
        r = rows.get(m)
        if r is None:
            errs.append("%s: no %s row" % (label, m))
            continue
        got = [r[c] for c in cols]
        exp = expect(vals)
        if want != "no-pct":
            got += [r["p" + p] for p in PCTS]
            exp += [nearest_rank(vals, p) for p in PCTS]
        if got != exp:
            errs.append("%s: %s got %s, want %s" % (label, m, got, exp))
    r = rows.get("LOST")
    if r is None or r["count"] != str(sim.lost):
        errs.append("%s: LOST got %s, want %d" % (label, r and r["count"], sim.lost))
    return errs


def main():
    cli = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    mode = None
    errs = []

    def scenario(label, seed, need, **kw):
        sim = Sim(random.Random(seed), **kw)
        sim.plan()
        sim.run()
        if not need(sim):
            errs.append("%s: the system does not show what it is for" % label)
        errs.extend(check(cli, sim, label, mode))
        return sim

    # consumer faster than producer: one cause, several effects
    scenario("fast consumer", 1, lambda s: s.multi and s.reaction and
             max(v for v, _, _ in s.age) != max(v for v, _, _ in s.reaction),
             nlinks=2, periods=[0, 50, 10], sti=True, horizon=2000, grid=5)
    # consumer slower than producer: lost causes
    scenario("slow consumer", 2, lambda s: s.lost > s.ncauses // 3,
             nlinks=2, periods=[0, 10, 60], sti=True, horizon=2000, grid=5)
    # equal times: reads and writes of one signal at one time
    scenario("equal times", 3, lambda s: s.ties >= 10,
             nlinks=2, periods=[0, 20, 20], sti=True, horizon=3000, grid=10)
    # the first writer a task rather than a stimulus (the others: a stimulus)
    scenario("task writer", 4, lambda s: s.reaction,
             nlinks=2, periods=[30, 20, 40], sti=False, horizon=2000, grid=5)
    # a chain of one link
    scenario("one link", 5, lambda s: s.reaction and s.lost,
             nlinks=1, periods=[0, 25], sti=True, horizon=2000, grid=5)
    for seed in range(100, 100 + seeds):
        rng = random.Random(seed)
        n = rng.randrange(1, 4)
        grid = rng.choice([1, 5, 10])
        periods = [rng.randrange(2, 12) * grid * 2 for _ in range(n + 1)]
        scenario("seed %d" % seed, seed, lambda s: True, nlinks=n,
                 periods=periods, sti=rng.random() < 0.6,
                 horizon=rng.randrange(40, 200) * grid * 5, grid=grid,
                 disturber=rng.random() < 0.7)
    for e in errs:
        print("FAIL", e)
    print("%d scenarios, %d failures" % (5 + seeds, len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
