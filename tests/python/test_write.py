"""tracekit.write() and tracekit.convert(): a frame built by hand written
as BTF reads back (`tracekit cat`) with the same events; convert gives the
bytes `tracekit convert` gives, in every writable format; errors leave no
file."""
import filecmp
import fractions
import os
import subprocess
import tempfile
import unittest
import warnings

import tracekit

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
DEMO = os.path.join(SRC, "examples", "demo.btf")
NS = fractions.Fraction(1, 10**9)

EVENTS = [
    # time, source, source_inst, target_type, target, target_inst, event, note, core
    (0, "Stim_1", 0, "STI", "Stim_1", 0, "trigger", None, None),
    (100, "Core_0", None, "T", "Task_A", 0, "activate", None, None),
    (250, "Core_0", None, "T", "Task_A", 0, "start", None, "Core_0"),
    (300, "Task_A", 0, "R", "Run_1", 0, "start", None, "Core_0"),
    (420, "Task_A", 0, "SIG", "Speed", None, "write", "42", "Core_0"),
    (500, "Task_A", 0, "R", "Run_1", 0, "terminate", None, "Core_0"),
    (1000, "Core_0", None, "T", "Task_A", 0, "terminate", None, "Core_0"),
]
COLUMNS = ["time", "source", "source_inst", "target_type", "target", "target_inst",
           "event", "note", "core"]
# what `tracekit cat` prints of them
BTF_LINES = [
    "0,Stim_1,0,STI,Stim_1,0,trigger",
    "100,Core_0,,T,Task_A,0,activate",
    "250,Core_0,,T,Task_A,0,start",
    "300,Task_A,0,R,Run_1,0,start",
    "420,Task_A,0,SIG,Speed,0,write,42",  # BTF's writer: a signal's instance is 0
    "500,Task_A,0,R,Run_1,0,terminate",
    "1000,Core_0,,T,Task_A,0,terminate",
]


def cat(path, *opts):
    r = subprocess.run([CLI, "cat", "-q", *opts, path], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(r.stderr)
    return [l for l in r.stdout.splitlines() if l and not l.startswith("#")]


def frame(events=EVENTS):
    import pandas as pd
    df = pd.DataFrame(events, columns=COLUMNS)
    df["source_inst"] = df["source_inst"].astype("Int64")
    df["target_inst"] = df["target_inst"].astype("Int64")
    for c in ("source", "target_type", "target", "event", "core"):
        df[c] = df[c].astype("category")
    df.attrs["timebase"] = NS
    return df


class Write(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_events_to_btf(self):
        p = os.path.join(self.d, "t.btf")
        self.assertEqual(tracekit.write(EVENTS, p, timebase=NS), len(EVENTS))
        self.assertEqual(cat(p), BTF_LINES)
        # dicts, and short tuples
        p2 = os.path.join(self.d, "d.btf")
        tracekit.write([dict(zip(COLUMNS, e)) for e in EVENTS], p2, timebase=NS)
        self.assertEqual(cat(p2), BTF_LINES)
        # without the core column the task's core is its entity's parent
        p3 = os.path.join(self.d, "s.btf")
        tracekit.write([e[:7] for e in EVENTS], p3, timebase=NS,
                       entities=[{"name": "Task_A", "type": "T", "parent": "Core_0"},
                                 {"name": "Core_0", "type": "C", "parent": None}])
        self.assertEqual(cat(p3), [l[:-3] if l.endswith(",42") else l for l in BTF_LINES])
        # and with neither, BTF's writer writes the task's state changes
        # from their source of no known type, as given: every event
        p4 = os.path.join(self.d, "n.btf")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always", tracekit.TraceWarning)
            tracekit.write([e[:7] for e in EVENTS], p4, timebase=NS)
        self.assertEqual(cat(p4), cat(p3))
        self.assertFalse(any("no known core" in str(x.message) for x in w))
        # a source of a known type other than core (a task) on no core:
        # from the placeholder core, with a warning
        p5 = os.path.join(self.d, "p.btf")
        ev5 = [(0, "Task_B", 0, "T", "Task_A", 0, "resume", None)]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always", tracekit.TraceWarning)
            tracekit.write(ev5, p5, timebase=NS,
                           entities=[{"name": "Task_B", "type": "T", "parent": None}])
        self.assertEqual(cat(p5), ["0,Core_unknown,0,T,Task_A,0,resume"])
        self.assertIn("written from the placeholder core", str(w[0].message))

    def test_frame_to_btf(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("no pandas")
        p = os.path.join(self.d, "f.btf")
        df = frame()
        df.attrs["header"] = [("param", "creator", "a frame"), ("comment", "", "made by hand")]
        df.attrs["entities"] = [{"name": "Core_0", "type": "C", "parent": None},
                                {"name": "Task_A", "type": "T", "parent": "Core_0"}]
        self.assertEqual(tracekit.write(df, p), len(EVENTS))
        self.assertEqual(cat(p), BTF_LINES)
        # the header goes where the format keeps it (SQLite's metaInformation)
        import sqlite3
        q = os.path.join(self.d, "f.sqlite")
        tracekit.write(df, q)
        db = sqlite3.connect(q)
        meta = dict(db.execute("select * from metaInformation"))
        db.close()
        self.assertEqual(meta["creator"], "a frame")
        # the keywords win over attrs: 10 ns ticks
        p2 = os.path.join(self.d, "f10.btf")
        tracekit.write(df, p2, timebase=fractions.Fraction(1, 10**8))
        self.assertEqual(cat(p2)[2], "2500,Core_0,,T,Task_A,0,start")

    def test_exact_timebase(self):
        # a tick of 1/3 ns is written as such (HTF keeps num/den), no rounding
        p = os.path.join(self.d, "third.htf")
        tb = fractions.Fraction(1, 3 * 10**9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            tracekit.write(EVENTS, p, timebase=tb)
        if hasattr(tracekit.Trace, "timebase"):
            self.assertEqual(tracekit.open(p).timebase, tb)
        r = subprocess.run([CLI, "info", "--format", "json", p], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"end_exact": "1000/3"', r.stdout)  # 1000 ticks of 1/3 ns
        for tb, unit in ((fractions.Fraction(1, 10**6), "us"), (fractions.Fraction(1, 1000), "ms"),
                         (fractions.Fraction(1, 10**12), "ps"), ("1/1000000000", "ns")):
            p = os.path.join(self.d, "u.btf")
            tracekit.write(EVENTS, p, timebase=tb)
            with open(p) as f:
                self.assertIn("#timescale %s\n" % unit, f.read())

    def test_round_trip_open(self):
        p = os.path.join(self.d, "rt.btf")
        tracekit.write(EVENTS, p, timebase=NS)
        t = tracekit.open(p)
        self.assertEqual(sum(1 for _ in t.events()), len(EVENTS))
        df = t.to_pandas()
        p2 = os.path.join(self.d, "rt2.btf")
        tracekit.write(df, p2)
        self.assertEqual(cat(p2), BTF_LINES)
        self.assertEqual(list(df["time"]), [e[0] for e in EVENTS])

    def test_corpus_btf_round_trip_exact(self):
        # a real producer's BTF read into a DataFrame and written back is
        # the file `tracekit convert` writes, byte for byte: its header
        # (keys written alone too), its producers' spellings of event names
        # ("set_frequency"), its type names
        shared = os.environ.get("TK_SHARED", os.path.join(SRC, "..", "shared"))
        d = os.path.join(shared, "corpus", "btf")
        if not os.path.isdir(d):
            self.skipTest("no corpus")
        seen = 0
        for name in sorted(os.listdir(d)):
            if not name.endswith(".btf"):
                continue
            src = os.path.join(d, name)
            a, b = os.path.join(self.d, "a.btf"), os.path.join(self.d, "b.btf")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", tracekit.TraceWarning)
                tracekit.write(tracekit.open(src).to_pandas(), a)
            conv = subprocess.run([CLI, "convert", src, b], capture_output=True)
            self.assertEqual(conv.returncode, 0, name)
            with open(a, "rb") as f, open(b, "rb") as g:
                self.assertEqual(f.read(), g.read(), name)
            seen += 1
        self.assertGreaterEqual(seen, 4)

    def test_errors_leave_no_file(self):
        cases = [
            (tracekit.UsageError, dict(timebase=0), "t.btf"),
            (tracekit.UsageError, dict(timebase=-NS), "t.btf"),
            (tracekit.RangeError, dict(timebase=fractions.Fraction(1, 3**80)), "t.btf"),
            (tracekit.RangeError, dict(timebase=1e-9), "t.btf"),  # a float is not 1 ns
            (tracekit.UsageError, dict(), "t.btf"),  # no timebase
            (tracekit.UsageError, dict(timebase=NS), "t.unknown"),
            (tracekit.UsageError, dict(timebase=NS, format="nosuch"), "t.btf"),
            (tracekit.UnsupportedError, dict(timebase=NS, format="shark"), "t.bin"),
            (tracekit.UsageError, dict(timebase="ns"), "t.btf"),
            (TypeError, dict(timebase=[1]), "t.btf"),
        ]
        for exc, kw, name in cases:
            with self.assertRaises((exc,), msg=repr(kw)):
                tracekit.write(EVENTS, os.path.join(self.d, name), **kw)
            self.assertEqual(os.listdir(self.d), [], repr(kw))
        bad_events = [
            [{"time": 0, "source": "A", "target": "B"}],           # no event field
            [(0, "A", None, "T")],                                 # too short
            [(0, "A", None, "T", "B", 0, "start", None, None, 1)],  # too long
        ]
        for evs in bad_events:
            with self.assertRaises(tracekit.UsageError, msg=repr(evs)):
                tracekit.write(evs, os.path.join(self.d, "e.btf"), timebase=NS)
            self.assertEqual(os.listdir(self.d), [])
        # an error after events were written: the temporary file goes too
        late = EVENTS + [(2000, "Core_0", None, "T", "Task_A", "x", "start", None, None)]
        with self.assertRaises(TypeError):
            tracekit.write(late, os.path.join(self.d, "late.btf"), timebase=NS)
        late = EVENTS + [(-1, "Core_0", None, "T", "Task_A", 0, "start", None, None)]
        with self.assertRaises(tracekit.RangeError):
            tracekit.write(late, os.path.join(self.d, "late.btf"), timebase=NS)
        self.assertEqual(os.listdir(self.d), [])

    def test_frame_missing_column(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("no pandas")
        df = frame().drop(columns=["event"])
        with self.assertRaises(tracekit.UsageError) as cm:
            tracekit.write(df, os.path.join(self.d, "m.btf"))
        self.assertIn("'event'", str(cm.exception))
        self.assertEqual(os.listdir(self.d), [])
        # optional columns may be absent
        df = frame().drop(columns=["note", "core"])
        df.attrs["entities"] = [{"name": "Task_A", "type": "T", "parent": "Core_0"},
                                {"name": "Core_0", "type": "C", "parent": None}]
        tracekit.write(df, os.path.join(self.d, "o.btf"))
        self.assertEqual(len(cat(os.path.join(self.d, "o.btf"))), len(EVENTS))


class Convert(unittest.TestCase):
    def test_every_writable_format(self):
        r = subprocess.run([CLI, "formats"], capture_output=True, text=True)
        exts = []
        for line in r.stdout.splitlines()[1:]:
            f = line.split()
            if len(f) > 3 and f[2] == "yes":
                exts.append(f[3])
        self.assertGreaterEqual(len(exts), 7, r.stdout)
        exts.append("btf.gz")
        with tempfile.TemporaryDirectory() as d:
            for e in exts:
                a, b = os.path.join(d, "cli." + e), os.path.join(d, "py." + e)
                c = subprocess.run([CLI, "convert", "-q", DEMO, a], capture_output=True)
                self.assertEqual(c.returncode, 0, c.stderr)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", tracekit.TraceWarning)
                    tracekit.convert(DEMO, b)
                if os.path.isdir(a):
                    cmp = filecmp.dircmp(a, b)
                    self.assertEqual(cmp.left_only + cmp.right_only + cmp.diff_files, [], e)
                    for n in os.listdir(a):
                        self.assertTrue(filecmp.cmp(os.path.join(a, n), os.path.join(b, n),
                                                    shallow=False), e + "/" + n)
                else:
                    self.assertTrue(filecmp.cmp(a, b, shallow=False), e)

    def test_reader_options_and_trace(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.btf"), os.path.join(d, "b.btf")
            subprocess.run([CLI, "convert", "-q", "--end", "500us", "--entity", "Task_A",
                            DEMO, a], check=True)
            tracekit.convert(DEMO, b, end="500us", entities="Task_A")
            self.assertTrue(filecmp.cmp(a, b, shallow=False))
            if hasattr(tracekit, "open"):
                c = os.path.join(d, "c.btf")
                tracekit.convert(tracekit.open(DEMO, end="500us", entities="Task_A"), c)
                self.assertTrue(filecmp.cmp(a, c, shallow=False))

    def test_errors(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(tracekit.UsageError):
                tracekit.convert(DEMO, os.path.join(d, "x.unknown"))
            with self.assertRaises(tracekit.IOError):
                tracekit.convert("no/such/file.btf", os.path.join(d, "x.btf"))
            fail = os.path.join(SRC, "tests", "formats", "btf", "fail")
            bad = sorted(f for f in os.listdir(fail) if f.endswith(".btf"))[0]
            with self.assertRaises(tracekit.Error):
                tracekit.convert(os.path.join(fail, bad), os.path.join(d, "x.btf"), format="btf")
            # strict: what HTF cannot hold is refused
            with self.assertRaises(tracekit.UnsupportedError):
                tracekit.convert(DEMO, os.path.join(d, "x.htf"), strict=True)
            # an event the output cannot hold: named by the input's line
            big = os.path.join(SRC, "tests", "cli", "time_beyond_perfetto.btf")
            with self.assertRaises(tracekit.RangeError) as e:
                tracekit.convert(big, os.path.join(d, "x.json"))
            self.assertTrue(str(e.exception).startswith(big + ":5: error: a time of "), str(e.exception))
            self.assertTrue(str(e.exception).endswith(" (writing %s)" % os.path.join(d, "x.json")),
                            str(e.exception))
            # a warning made an error: no file either
            with warnings.catch_warnings():
                warnings.simplefilter("error", tracekit.TraceWarning)
                with self.assertRaises(tracekit.TraceWarning):
                    tracekit.convert(DEMO, os.path.join(d, "x.htf"))
            self.assertEqual(os.listdir(d), [])


if __name__ == "__main__":
    unittest.main()
