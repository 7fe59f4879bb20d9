#!/usr/bin/env python3
"""profile.py - write a Cortex-M Tarmac log of a known program, and what the
function profile of it must be.

  profile.py LAYOUT OUTDIR [open]

LAYOUT has one function a line, "NAME ADDR SIZE" (hex; SIZE 0 when the ELF
symbol has none, the next function's address then ends it).  It must hold
main, foo, bar, baz, helper, recur and SysTick_Handler.  The program
(below, run()) walks through calls (BL), returns (BX lr, POP {..,pc}), a
tail call (B), recursion, a skipped instruction and two exceptions (one
returning through BX lr with EXC_RETURN in lr, one through POP {pc} reading
EXC_RETURN from the stack; the handler calls bar).  With "open" the log ends
inside a third exception.

The simulator keeps the true stack of every instruction it writes, so the
expected figures come from it, not from tracekit's rules:
  OUTDIR/log.tarmac        the log
  OUTDIR/want.folded       folded stacks weighted by instructions
  OUTDIR/want_time.folded  ... by time (ns from an instruction to the next)
  OUTDIR/want.csv          `stats --elf --format csv`
  OUTDIR/want_tree.json    the call tree: [name, exception, calls,
                           self_instructions, instructions, self_time, time,
                           children]
"""
import json
import sys


class Sim:
    def __init__(self, layout):
        self.f = layout
        self.lines = []
        self.t = 100
        self.n = 0
        self.stack = [("main", False)]
        self.pc = layout["main"][0]
        self.lr = None
        self.calls = {}
        self.count(("main",), "main")
        self.owner = None      # stack of the last executed instruction
        self.pending = None    # (time, owner) of the last instruction
        self.node_calls = {("main",): 1}
        self.node_exc = set()
        self.self_i = {}
        self.self_t = {}
        self.saved = []
        self.saved_lr = []

    def count(self, stack, name):
        self.calls[name] = self.calls.get(name, 0) + 1

    def names(self):
        return tuple(n for n, _ in self.stack)

    def enter(self, name, exc=False):
        self.stack.append((name, exc))
        self.calls[name] = self.calls.get(name, 0) + 1
        k = self.names()
        self.node_calls[k] = self.node_calls.get(k, 0) + 1
        if exc:
            self.node_exc.add(k)

    def check_pc(self):
        name = self.stack[-1][0]
        a, s = self.f[name]
        assert a <= self.pc < a + s, (name, hex(self.pc))

    def instr(self, op, disasm, executed=True, size=None):
        if size is None:
            size = 2 if len(op) == 4 else 4
        self.check_pc()
        if self.pending is not None:
            t0, owner = self.pending
            self.self_t[owner] = self.self_t.get(owner, 0) + self.t - t0
        if executed:
            self.owner = self.names()
            self.self_i[self.owner] = self.self_i.get(self.owner, 0) + 1
        self.pending = (self.t, self.owner)
        self.n += 1
        self.lines.append("%d ns %s (%08x:%08x) %08x %s %s %s" % (
            self.t, "IT" if executed else "IS", self.pc, self.n, self.pc, op,
            "T16" if size == 2 else "T32", disasm))
        at = self.pc
        self.pc += size
        self.t += 10 + 5 * (self.n % 3)
        return at

    def line(self, text):
        self.lines.append("%d ns %s" % (self.t, text))

    def run(self, k, what="MOVS r0,#1"):
        for _ in range(k):
            self.instr("2001", what)

    def call(self, name):
        at = self.instr("f000f800", "BL %s" % name, size=4)
        self.lr = at + 4
        self.line("R lr %08x" % (self.lr | 1))
        self.saved.append(self.lr)
        self.enter(name)
        self.pc = self.f[name][0]

    def ret_bx(self):
        self.instr("4770", "BX lr")
        self.stack.pop()
        self.pc = self.saved.pop()

    def ret_pop(self):
        self.instr("bd10", "POP {r4,pc}")
        self.line("MR4 20000ff8 00000000")
        self.line("MR4 20000ffc %08x" % (self.saved[-1] | 1))
        self.stack.pop()
        self.pc = self.saved.pop()

    def tail(self, name):
        self.instr("e000", "B %s" % name)
        self.stack.pop()
        self.enter(name)
        self.pc = self.f[name][0]

    def exception(self, name, handler, num):
        self.line("E %s" % name)
        self.line("R psr %08x" % (0x61000000 | num))
        self.saved_lr.append(self.lr)
        self.line("R lr fffffff9")
        self.lr = 0xfffffff9
        self.saved.append(self.pc)
        self.enter(handler, exc=True)
        self.pc = self.f[handler][0]

    def unstack_lr(self):
        self.lr = self.saved_lr.pop()
        if self.lr is not None:
            self.line("R lr %08x" % (self.lr | 1))

    def exc_return_bx(self):
        self.instr("4770", "BX lr")
        self.line("R psr 61000000")
        self.unstack_lr()
        self.stack.pop()
        self.pc = self.saved.pop()

    def exc_return_pop(self):
        self.instr("bd00", "POP {pc}")
        self.line("MR4 20000fe0 fffffff9")
        self.line("R psr 61000000")
        self.unstack_lr()
        self.stack.pop()
        self.pc = self.saved.pop()

    def finish(self):
        if self.pending is not None:  # the last instruction: time 0
            t0, owner = self.pending
            self.self_t.setdefault(owner, 0)


def program(s, open_end):
    s.run(3)
    s.call("foo")               # main -> foo
    s.run(2)
    s.call("bar")               # foo -> bar
    s.run(2)
    s.exception("SysTick", "SysTick_Handler", 15)   # in bar
    s.run(1, "PUSH {lr}")
    s.call("bar")               # the handler calls bar too
    s.run(3)
    s.ret_bx()
    s.run(1)
    s.exc_return_pop()          # EXC_RETURN read by POP {pc}
    s.run(2)                    # bar goes on
    s.instr("d001", "BEQ {pc}+6", executed=False)
    s.run(1)
    s.ret_bx()                  # bar -> foo
    s.run(1)
    s.tail("helper")            # foo ends in a tail call
    s.run(4)
    s.ret_pop()                 # helper returns to main (foo's caller)
    s.run(1)
    s.call("baz")               # a symbol without a size
    s.run(5)
    s.exception("SysTick", "SysTick_Handler", 15)
    s.run(2)
    s.exc_return_bx()           # EXC_RETURN in lr
    s.run(1)
    s.ret_bx()
    s.call("recur")             # recursion, three deep
    s.run(1)
    s.call("recur")
    s.run(1)
    s.call("recur")
    s.run(2)
    s.ret_bx()
    s.run(1)
    s.ret_bx()
    s.run(1)
    s.ret_bx()
    s.run(2)
    if open_end:
        s.exception("SysTick", "SysTick_Handler", 15)
        s.run(3)
    s.finish()


def main(argv):
    layout = {}
    with open(argv[1]) as fp:
        for ln in fp:
            if ln.strip():
                name, addr, size = ln.split()
                layout[name] = [int(addr, 16), int(size, 16)]
    # size 0: up to the next function
    starts = sorted(a for a, _ in layout.values())
    for name, v in layout.items():
        if v[1] == 0:
            v[1] = min(a for a in starts if a > v[0]) - v[0]
    out = argv[2]
    s = Sim(layout)
    program(s, len(argv) > 3 and argv[3] == "open")
    with open(out + "/log.tarmac", "w") as fp:
        fp.write("0 ns E Reset\n")
        fp.write("\n".join(s.lines) + "\n")
    stacks = sorted(set(s.self_i) | set(s.self_t))
    with open(out + "/want.folded", "w") as fp:
        for k in stacks:
            if s.self_i.get(k, 0):
                fp.write("%s %d\n" % (";".join(k), s.self_i[k]))
    with open(out + "/want_time.folded", "w") as fp:
        for k in stacks:
            if s.self_t.get(k, 0):
                fp.write("%s %d\n" % (";".join(k), s.self_t[k]))
    # per function: inclusive counts an instruction once per function on
    # its stack
    funcs = {}
    for k in set(s.self_i) | set(s.self_t):
        i, t = s.self_i.get(k, 0), s.self_t.get(k, 0)
        f = funcs.setdefault(k[-1], [0, 0, 0, 0])
        f[0] += i
        f[2] += t
        for name in set(k):
            g = funcs.setdefault(name, [0, 0, 0, 0])
            g[1] += i
            g[3] += t
    rows = sorted(funcs.items(), key=lambda kv: (-kv[1][1], kv[0]))
    with open(out + "/want.csv", "w") as fp:
        fp.write("function,calls,self_instructions,instructions,self_time,time,unit\n")
        for name, (si, ii, st, tt) in rows:
            fp.write("%s,%d,%d,%d,%d,%d,ns\n" % (name, s.calls[name], si, ii, st, tt))
    # the tree
    nodes = set(s.node_calls)
    for k in list(nodes):
        for d in range(1, len(k)):
            nodes.add(k[:d])

    def tree(prefix):
        kids = sorted(k for k in nodes if len(k) == len(prefix) + 1 and k[:len(prefix)] == prefix)
        res = []
        for k in kids:
            incl_i = sum(v for kk, v in s.self_i.items() if kk[:len(k)] == k)
            incl_t = sum(v for kk, v in s.self_t.items() if kk[:len(k)] == k)
            res.append([k[-1], k in s.node_exc, s.node_calls.get(k, 0),
                        s.self_i.get(k, 0), incl_i, s.self_t.get(k, 0), incl_t,
                        tree(k)])
        return sorted(res)
    with open(out + "/want_tree.json", "w") as fp:
        json.dump(tree(()), fp)


if __name__ == "__main__":
    main(sys.argv)
