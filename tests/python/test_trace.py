"""tracekit.open() and tracekit.Trace: the metadata, the info of the
command, the events one by one, as a numpy array and as a pandas frame,
filters and windows applied in C, warnings through `warnings`."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd

import tracekit

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
SHARED = os.environ.get("TK_SHARED", os.path.join(SRC, "..", "shared"))
DEMO = os.path.join(SRC, "examples", "demo.btf")
WARN = os.path.join(SRC, "tests", "formats", "btf", "ok", "freertos_2022.btf")

# traces of several formats and time bases: BTF (ns), the FreeRTOS trace
# logger's BTF (warnings), HTF (ms), ATF (7/3 ns), S.Ha.R.K. (1/367483 ms)
TRACES = [
    DEMO, WARN,
    os.path.join(SRC, "tests", "formats", "htf", "ok", "dialects.htf"),
    os.path.join(SRC, "tests", "exports", "ctf", "third_ns.atf"),
    os.path.join(SHARED, "corpus", "shark", "shark-demo-trace.bin"),
    os.path.join(SHARED, "corpus", "btf", "app4mc_help_atdb_example_v2_1_5.btf"),
    os.path.join(SHARED, "corpus", "btf", "tracecompass_20140219-123819.btf"),
    # names, header and notes with bytes that start no UTF-8 sequence
    os.path.join(SRC, "tests", "formats", "parquet", "utf8.btf"),
]
FIELDS = ("time", "source", "source_inst", "target_type", "target", "target_inst",
          "event", "note", "core")
UNIT_S = {"ps": Fraction(1, 10**12), "ns": Fraction(1, 10**9), "us": Fraction(1, 10**6),
          "ms": Fraction(1, 1000), "s": Fraction(1)}


def cli(*args):
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError("%s: %s" % (args, p.stderr))
    return p.stdout


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tracekit.TraceWarning)
        return fn(*args, **kw)


def from_numpy(arr, names):
    """the events of to_numpy() as tracekit.Event tuples"""
    def name(f, c):
        return None if c < 0 else names[f][c]

    def inst(v):
        return None if v == tracekit.INST_NONE else int(v)
    return [tracekit.Event((int(r["time"]), name("source", r["source"]), inst(r["source_inst"]),
                            name("target_type", r["target_type"]), name("target", r["target"]),
                            inst(r["target_inst"]), name("event", r["event"]),
                            name("note", r["note"]), name("core", r["core"])))
            for r in arr]


def from_pandas(df):
    def obj(col):
        return [None if v is pd.NA or v is None or (isinstance(v, float) and v != v)
                else (int(v) if col.endswith("inst") or col == "time" else v)
                for v in df[col].astype(object)]
    cols = [obj(c) for c in FIELDS]
    return [tracekit.Event(row) for row in zip(*cols)]


class Metadata(unittest.TestCase):
    def test_open_reads_the_header(self):
        t = tracekit.open(DEMO)
        self.assertIsInstance(t, tracekit.Trace)
        self.assertEqual(t.format, "btf")
        self.assertEqual(t.path, DEMO)
        self.assertEqual(t.timebase, Fraction(1, 10**9))
        self.assertIsInstance(t.timebase, Fraction)
        self.assertEqual(t.header[0], ("param", "version", "2.3.0"))
        self.assertIn(("param", "timescale", "ns"), t.header)
        self.assertTrue(any(k == "comment" for k, _, _ in t.header))
        self.assertIn("demo.btf", repr(t))

    def test_info_is_the_commands(self):
        for path in TRACES:
            with self.subTest(path=path):
                want = json.loads(cli("info", "--format", "json", "-q", path))
                t = quiet(tracekit.open, path)
                got = quiet(getattr, t, "info")
                self.assertEqual(got, want)
                self.assertEqual(t.format, want["format"])
                tb = want["timebase"]
                self.assertEqual(t.timebase, Fraction(tb["num"], tb["den"]) * UNIT_S[tb["unit"]])
                self.assertEqual([{"kind": k, "key": a, "value": v} for k, a, v in t.header],
                                 want["header"])
                ents = quiet(getattr, t, "entities")
                self.assertEqual(len(ents), want["entities"])
                self.assertEqual([e["name"] for e in ents if e["type"] == "C"], want["cores"])
                self.assertEqual(sum(1 for e in ents if e["type"] == "T"),
                                 want["entity_types"].get("T", 0))
        # a fractional time: the exact value beside the decimal
        info = tracekit.open(TRACES[3]).info
        self.assertEqual(info["end_exact"], "21000000007/3")
        self.assertEqual(info["time_unit"], "ns")
        # each .info is the caller's own, down to its lists and dicts
        t = tracekit.open(DEMO)
        info = t.info
        info["cores"].append("Core_9")
        info["header"].clear()
        info["event_counts"][0]["count"] = -1
        self.assertEqual(t.info, json.loads(cli("info", "--format", "json", "-q", DEMO)))

    def test_info_of_a_window(self):
        # docs/python.md: open()'s window and filters apply to info's
        # events, times and counts, not to its entities (the whole table)
        full = tracekit.open(DEMO).info
        for kw in ({"start": "30us", "end": "1ms"}, {"types": "SEM"}, {"end": 1}):
            t = tracekit.open(DEMO, **kw)
            info = t.info
            evs = list(t)
            self.assertEqual(info["events"], len(evs), kw)
            self.assertLess(info["events"], full["events"], kw)
            self.assertEqual((info["start"], info["end"]), (evs[0].time, evs[-1].time), kw)
            self.assertEqual(sum(c["count"] for c in info["event_counts"]), len(evs), kw)
            for k in ("entities", "entity_types", "cores"):
                self.assertEqual(info[k], full[k], (kw, k))

    def test_stray_bytes_as_the_commands_json(self):
        # a byte that starts no UTF-8 sequence is U+FFFD, as in the JSON
        t = quiet(tracekit.open, TRACES[7])
        self.assertIn(("param", "creator", "M\ufffdller"), t.header)
        names = [e["name"] for e in quiet(getattr, t, "entities")]
        self.assertIn("S\u00e9g", names)
        self.assertTrue(any("\ufffd" in n for n in names))
        self.assertEqual(len(set(names)), len(names))
        notes = [e.note for e in quiet(list, t) if e.note is not None]
        self.assertTrue(notes and all("\ufffd" in n for n in notes if not n.isascii()))

    def test_path_like(self):
        import pathlib
        t = tracekit.open(pathlib.Path(DEMO))
        self.assertEqual(t.path, DEMO)
        self.assertEqual(tracekit.open(os.fsencode(DEMO)).info["events"], 53)

    def test_read_once_sources(self):
        # standard input and a FIFO are read once, by open(): every reading
        # then reads those bytes (a reading reopened the FIFO and waited
        # for a writer for ever; standard input was empty the second time)
        import tempfile
        code = ("import sys, tracekit\n"
                "t = tracekit.open(sys.argv[1])\n"
                "print(t.info['events'], len(t.to_pandas()), len(t.to_numpy()[0]),\n"
                "      sum(1 for _ in t), int(tracekit.stats(t).shape[0] > 0))\n")
        env = dict(os.environ)
        with open(DEMO, "rb") as f:
            p = subprocess.run([sys.executable, "-c", code, "-"], stdin=f, env=env,
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(p.stdout.split(), ["53", "53", "53", "53", "1"], p.stderr)
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            r = subprocess.Popen([sys.executable, "-c", code, fifo], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            with open(DEMO, "rb") as f, open(fifo, "wb") as w:
                w.write(f.read())
            out, err = r.communicate(timeout=120)
            self.assertEqual(out.split(), ["53", "53", "53", "53", "1"], err)
            # an error in the bytes names the input as the command does
            os.unlink(fifo)
        bad = b"#version 2.2\nx,y\n"
        p = subprocess.run([sys.executable, "-c",
                            "import sys, tracekit\n"
                            "try:\n"
                            "    list(tracekit.open('-', format='btf'))\n"
                            "except tracekit.Error as e:\n"
                            "    print(e.file, e.line)\n"], input=bad, env=env,
                           capture_output=True, timeout=120)
        self.assertEqual(p.stdout.decode().split(), ["<stdin>", "2"], p.stderr)

    def test_entities(self):
        ents = {e["name"]: e for e in tracekit.open(DEMO).entities}
        self.assertEqual(ents["Task_Control"], {"name": "Task_Control", "type": "T",
                                                "parent": "Core_1"})
        self.assertEqual(ents["Isr_CAN"]["type"], "I")
        self.assertEqual(ents["Isr_CAN"]["parent"], "Core_2")
        self.assertEqual(ents["Run_Sample"]["parent"], "Task_Sensor")
        self.assertIsNone(ents["Core_1"]["parent"])
        self.assertEqual(ents["Sem_Actuator"]["type"], "SEM")


class Events(unittest.TestCase):
    def test_events_are_cats_lines(self):
        for path in [DEMO, WARN] + TRACES[5:7]:
            with self.subTest(path=path):
                want = cli("cat", "-q", "--no-header", path).splitlines()
                got = []
                for ev in quiet(list, quiet(tracekit.open, path)):
                    f = [ev.time, ev.source, "" if ev.source_inst is None else ev.source_inst,
                         ev.target_type, ev.target,
                         "" if ev.target_inst is None else ev.target_inst, ev.event]
                    if ev.note is not None:
                        f.append(ev.note)
                    got.append(",".join(str(x) for x in f))
                self.assertEqual(got, want)

    def test_event_fields(self):
        evs = list(tracekit.open(DEMO))
        self.assertEqual(len(evs), 53)
        ev = evs[6]
        self.assertEqual(ev, (1200, "Core_1", 0, "T", "Task_Control", 0, "start", None, "Core_1"))
        self.assertEqual(ev.core, "Core_1")
        self.assertEqual(ev.time, 1200)
        read = [e for e in evs if e.event == "read"][0]
        self.assertEqual((read.note, read.core), ("42.5", None))
        self.assertEqual(tracekit.Event.__match_args__, FIELDS)

    def test_events_filters_and_window(self):
        t = tracekit.open(DEMO)
        ctl = list(t.events(entities="Task_Control"))
        self.assertEqual(len(ctl), len(cli("cat", "--no-header", "--entity", "Task_Control",
                                           DEMO).splitlines()))
        self.assertTrue(all("Task_Control" in (e.source, e.target) for e in ctl))
        win = list(t.events(start="10us", end=30000))
        self.assertTrue(win and all(10000 <= e.time < 30000 for e in win))
        self.assertEqual(win, [e for e in t if 10000 <= e.time < 30000])
        # open()'s keywords hold for every reading, the call's take precedence
        s = tracekit.open(DEMO, events="start")
        self.assertTrue(all(e.event == "start" for e in s))
        self.assertTrue(all(e.event == "terminate" for e in s.events(events="terminate")))
        self.assertEqual(len(s.to_numpy().array), sum(1 for e in s))


class Arrays(unittest.TestCase):
    def test_numpy_is_the_events(self):
        for path in TRACES:
            with self.subTest(path=path):
                t = quiet(tracekit.open, path)
                evs = quiet(list, t)
                arr, names = quiet(t.to_numpy)
                self.assertEqual(arr.dtype["time"], np.uint64)
                self.assertEqual(arr.dtype["source_inst"], np.int64)
                for f in ("source", "target", "target_type", "event", "note", "core"):
                    self.assertEqual(arr.dtype[f], np.int32)
                self.assertEqual(list(arr.dtype.names), list(FIELDS))
                self.assertEqual(from_numpy(arr, names), evs)
                self.assertEqual(list(names["entities"]),
                                 [e["name"] for e in quiet(getattr, t, "entities")])

    def test_numpy_notes(self):
        """the note codes: one per distinct text, in order of first sight,
        whatever the notes' lengths (up to 16 bytes, and longer ones alike
        in their first 16), however many (the table grows)"""
        import random
        import tempfile
        rnd = random.Random(7)
        texts = ["", "x", "ab", "abc", "-823", "456.25", "1234567", "12345678",
                 "123456789", "a note of 16 b.!", "a note of 16 b.!?", "a note of 16 b.!!",
                 "a note of 16 b.!?" + "x" * 40, "é, ü and ß", "tab\tin"]
        texts += [str(rnd.randrange(-10**6, 10**6)) for _ in range(3000)]
        lines = ["#version 2.3.0", "#timescale ns"]
        seen, first = set(), []
        for i in range(20000):
            note = rnd.choice(texts) if i % 5 else None
            if note is not None and note not in seen:
                seen.add(note)
                first.append(note)
            lines.append("%d,Core_0,0,SIG,S%d,0,write%s" % (i, i % 7, "" if note is None else "," + note))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "notes.btf")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            t = tracekit.open(path)
            arr, names = t.to_numpy()
            self.assertEqual(from_numpy(arr, names), list(t))
            self.assertEqual(list(names["note"]), first)
            self.assertEqual(len(first), len(set(first)))
            df = t.to_pandas()
            self.assertEqual(list(df["note"].cat.categories), first)

    def test_numpy_filters(self):
        t = tracekit.open(DEMO)
        arr, names = t.to_numpy(types=["SEM", "SIG"], start=20000)
        want = list(t.events(types=["SEM", "SIG"], start=20000))
        self.assertTrue(want)
        self.assertEqual(from_numpy(arr, names), want)
        self.assertEqual(len(t.to_numpy(start="1s").array), 0)
        # the codes of the entity columns are the entity table's
        arr, names = t.to_numpy()
        core = arr["core"]
        self.assertTrue((core == -1).any())
        self.assertEqual(set(names["core"][core[core >= 0]]), {"Core_1", "Core_2"})

    def test_pandas_is_the_events(self):
        for path in TRACES:
            with self.subTest(path=path):
                t = quiet(tracekit.open, path)
                evs = quiet(list, t)
                df = quiet(t.to_pandas)
                self.assertEqual(list(df.columns),
                                 ["time", "time_ns", "source", "source_inst", "target_type",
                                  "target", "target_inst", "event", "note", "core"])
                self.assertEqual(str(df["time"].dtype), "uint64")
                for c in ("source", "target_type", "target", "event", "note", "core"):
                    self.assertEqual(str(df[c].dtype), "category", c)
                self.assertEqual(str(df["source_inst"].dtype), "Int64")
                self.assertEqual(from_pandas(df), evs)
                self.assertEqual(set(df.attrs), {"timebase", "format", "header", "entities",
                                             "cycle_unit"})
                self.assertEqual(df.attrs["timebase"], t.timebase)
                self.assertEqual(df.attrs["format"], t.format)
                self.assertEqual(df.attrs["header"], t.header)
                self.assertEqual(df.attrs["entities"], quiet(getattr, t, "entities"))
                ns = t.timebase * 10**9
                exact = [Fraction(e.time) * ns for e in evs]
                self.assertEqual(list(df["time_ns"]), exact)
                if all(v.denominator == 1 for v in exact):
                    self.assertEqual(str(df["time_ns"].dtype), "uint64")
                else:
                    self.assertEqual(df["time_ns"].dtype, object)

    def test_pandas_time_ns(self):
        df = quiet(quiet(tracekit.open, TRACES[2]).to_pandas)      # HTF in ms
        self.assertEqual(list(df["time_ns"]), [int(t) * 10**6 for t in df["time"]])
        df = tracekit.open(TRACES[3]).to_pandas()           # ATF: 7/3 ns
        self.assertEqual(list(df["time"]), [1, 2, 7, 3000000001])
        self.assertEqual(list(df["time_ns"]), [Fraction(7, 3), Fraction(14, 3), Fraction(49, 3),
                                               Fraction(21000000007, 3)])
        df = tracekit.open(DEMO).to_pandas(entities="Isr_CAN")
        self.assertEqual(set(df["target"]) | set(df["source"]) >= {"Isr_CAN"}, True)
        self.assertTrue(df["note"].isna().any())
        self.assertTrue(pd.isna(df["core"]).any())

    def test_cycle_timed(self):
        # a Tarmac log in clk cycles: its ticks have no length in ns
        log = os.path.join(SHARED, "corpus", "tarmac", "calculator-aarch64-fastmodel.tarmac")
        t = quiet(tracekit.open, log)
        self.assertEqual(t.cycle_unit, "clk")
        self.assertEqual(quiet(getattr, t, "info")["time_unit"], "clk")
        df = quiet(t.to_pandas)
        self.assertTrue(len(df) and df["time_ns"].isna().all())
        self.assertEqual(df.attrs["cycle_unit"], "clk")
        # the BTF written from it says so too, as the command's info does
        with tempfile.TemporaryDirectory() as d:
            btf = os.path.join(d, "calc.btf")
            cli("convert", "-q", log, btf)
            want = json.loads(cli("info", "--format", "json", "-q", btf))
            self.assertEqual(want["time_unit"], "clk")
            t = tracekit.open(btf)
            self.assertEqual(t.info, want)
            # the log's info is that of its events: the BTF's but for
            # what the file says of itself (event_counts' types included)
            log_info = quiet(getattr, quiet(tracekit.open, log), "info")
            for k in set(want) - {"file", "format", "header", "warnings"}:
                self.assertEqual(log_info[k], want[k], k)
            self.assertEqual(t.cycle_unit, "clk")
            self.assertTrue(t.to_pandas()["time_ns"].isna().all())
        # a log in ps is timed: its nanoseconds exact
        t = quiet(tracekit.open, os.path.join(SHARED, "corpus", "tarmac", "crash32.tarmac"))
        self.assertIsNone(t.cycle_unit)
        df = quiet(t.to_pandas)
        self.assertIsNone(df.attrs["cycle_unit"])
        self.assertEqual(list(df["time_ns"]), [int(v) // 1000 for v in df["time"]])

    def test_empty(self):
        t = tracekit.open(DEMO)
        arr, names = t.to_numpy(events="no-such-event")
        self.assertEqual(len(arr), 0)
        df = t.to_pandas(events="no-such-event")
        self.assertEqual(len(df), 0)
        self.assertEqual(str(df["time_ns"].dtype), "uint64")


class Warnings(unittest.TestCase):
    def test_warning_through_warnings(self):
        cmd = subprocess.run([CLI, "cat", WARN], capture_output=True, text=True)
        lines = [ln for ln in cmd.stderr.splitlines() if ": warning: " in ln]
        self.assertTrue(lines)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            n = sum(1 for _ in tracekit.open(WARN))
        self.assertGreater(n, 10)
        got = [str(w.message) for w in caught if issubclass(w.category, tracekit.TraceWarning)]
        self.assertEqual([g.split("btf:", 1)[1] for g in got],
                         [ln.split("btf:", 1)[1] for ln in lines])

    def test_warning_as_error_stops_cleanly(self):
        t = tracekit.open(WARN)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            it = t.events()
            seen = []
            with self.assertRaises(tracekit.TraceWarning) as cm:
                for ev in it:
                    seen.append(ev)
            self.assertIn("set_frequence", str(cm.exception))
            self.assertEqual(seen, [])
            # the reader is closed: the iterator is over
            self.assertEqual(list(it), [])
            with self.assertRaises(tracekit.TraceWarning):
                t.to_numpy()
            with self.assertRaises(tracekit.TraceWarning):
                t.to_pandas()
            with self.assertRaises(tracekit.TraceWarning):
                t.info
        # and the trace reads again once the filter is gone
        self.assertGreater(len(quiet(t.to_numpy).array), 10)

    def test_warning_in_the_middle(self):
        """docs/python.md: a warning made an error comes after the events
        read before it; one only recorded comes as the reader meets it,
        no later than its event (here past the iterator's first batch)."""
        k = 300
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "mid.btf")
            with open(path, "w") as f:
                f.write("#version 2.3.0\n#timescale ns\n")
                for i in range(2 * k):
                    f.write("%d,Core_1,0,C,Core_1,0,%s,1000\n"
                            % (i, "set_frequency" if i == k else "set_frequence"))
            with warnings.catch_warnings():
                warnings.simplefilter("error", tracekit.TraceWarning)
                seen = []
                with self.assertRaises(tracekit.TraceWarning):
                    for ev in tracekit.open(path):
                        seen.append(ev.time)
                self.assertEqual(seen, list(range(k)))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                at = None
                for n, ev in enumerate(tracekit.open(path), 1):
                    if caught and at is None:
                        at = n
                self.assertEqual(n, 2 * k)
                self.assertIsNotNone(at)
                self.assertLessEqual(at, k + 1)


if __name__ == "__main__":
    unittest.main()
