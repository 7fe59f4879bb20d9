"""A Python model of the synthesis of sources and instances that the HTF and
ATF readers run (src/core/synth.h; docs/mappings.md, "Sources" and
"Instances"), for tests that check the readers' events against it.

Each core has a running stack of processes and one of runnables, kept here
as OrderedDicts (entity -> instance, the last item the top), so that a deep
stack costs the model O(1) per event, as it should the reader.
"""
from collections import OrderedDict

PROCESS, RUNNABLE, BLOCK, OTHER = range(4)

# what an event does to the running stacks, per format
HTF_RULES = {
    "proc_push": {"start", "resume", "run", "poll", "poll_parking"},
    "proc_pop": {"preempt", "terminate", "wait", "park", "release_parking"},
    "run_push": {"start", "resume"},
    "run_pop": {"suspend", "terminate"},
}
ATF_RULES = {
    "proc_push": {"start", "resume"},
    "proc_pop": {"preempt", "terminate", "stop"},
    "run_push": {"start", "resume"},
    "run_pop": {"suspend", "terminate", "stop"},
}


class Synth:
    def __init__(self, rules):
        self.rules = rules
        self.acts = {}
        self.starts = {}
        self.procs = {}
        self.runs = {}

    def stack(self, stacks, core):
        st = stacks.get(core)
        if st is None:
            st = stacks[core] = OrderedDict()
        return st

    @staticmethod
    def top(st):
        return next(reversed(st.items())) if st else None

    def instance(self, sk, ent, kind):
        """The target's instance (tk_synth_count_)."""
        a = self.acts.get(ent, 0)
        s = self.starts.get(ent, 0)
        if sk == PROCESS and kind == "activate":
            self.acts[ent] = a + 1
            return a
        ns = max(s + (sk != OTHER and kind == "start"), 1)
        self.starts[ent] = ns
        self.acts[ent] = max(a, ns)
        return ns - 1 if sk != OTHER else 0

    @staticmethod
    def apply(st, push, pop, kind, ent, inst):
        if kind in push:
            st.pop(ent, None)
            st[ent] = inst
        elif kind in pop:
            st.pop(ent, None)

    def event(self, core, sk, ent, kind):
        """(source, source instance, target instance) of an event on the
        core named `core`."""
        inst = self.instance(sk, ent, kind)
        procs = self.stack(self.procs, core)
        runs = self.stack(self.runs, core)
        src = (core, 0)
        r = self.rules
        if sk == PROCESS:
            self.apply(procs, r["proc_push"], r["proc_pop"], kind, ent, inst)
        elif sk == RUNNABLE:
            src = self.top(procs) or src
            self.apply(runs, r["run_push"], r["run_pop"], kind, ent, inst)
        elif sk == BLOCK:
            src = self.top(runs) or self.top(procs) or src
        else:
            src = self.top(procs) or src
        return src[0], src[1], inst

    def depth(self, core):
        return len(self.procs.get(core, ())), len(self.runs.get(core, ()))
