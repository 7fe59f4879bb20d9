"""tracekit.stats(), load(), check() and verify(): every row and number is the one the
command prints (`tracekit stats|load --format csv|json`, `--exact`,
`tracekit check`), for traces of every reader family."""
import csv
import fractions
import glob
import io
import json
import os
import subprocess
import unittest
import warnings

import tracekit

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
SHARED = os.environ.get("TK_SHARED", os.path.join(SRC, "..", "shared"))
CORPUS = os.path.join(SHARED, "corpus")
DEMO = os.path.join(SRC, "examples", "demo.btf")
FREERTOS = os.path.join(SRC, "tests", "corpus", "freertos", "example-2022.btf")


def traces():
    """(path, reader keywords, CLI options) of BTF, HTF, ATF, S.Ha.R.K. and
    FreeRTOS logger traces"""
    out = [(DEMO, {}, [])]
    for p in [os.path.join(CORPUS, "btf", "app4mc_help_atdb_example_v2_1_5.btf"),
              os.path.join(CORPUS, "btf", "freertos_btf_trace_example_head200.btf"),
              os.path.join(CORPUS, "btf", "tracecompass_20140219-123819.btf"),
              os.path.join(CORPUS, "shark", "shark-demo-trace.bin"),
              FREERTOS]:
        if os.path.exists(p):
            out.append((p, {}, []))
    fm = os.path.join(SRC, "tests", "formats")
    for p in sorted(glob.glob(os.path.join(fm, "htf", "ok", "*.htf")))[:6]:
        if not os.path.exists(p[:-4] + ".args"):
            out.append((p, {}, []))
    for p in sorted(glob.glob(os.path.join(fm, "atf", "ok", "spec_example*.atf"))):
        out.append((p, {}, []))
    return out


def run(*args):
    r = subprocess.run([CLI] + list(args), capture_output=True)
    return r.returncode, r.stdout.decode("utf-8", "surrogateescape")


def num(s):
    """a CSV cell as the module gives it"""
    if s == "":
        return None
    if "." in s:
        return float(s)
    return int(s)


def written():
    """the bytes this process has written (Linux's /proc/self/io), or None"""
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def same(test, got, want, what):
    test.assertEqual(got, want, what)
    test.assertIs(type(got), type(want), what)


class Stats(unittest.TestCase):
    def compare_csv(self, path, kw, opts, pct=None, pct_cli=None):
        extra = ["--percentiles", pct_cli] if pct else []
        rc, out = run("stats", "-q", "--format", "csv", *extra, *opts, path)
        self.assertEqual(rc, 0, path)
        rc, exact = run("stats", "-q", "--format", "csv", "--exact", *extra, *opts, path)
        self.assertEqual(rc, 0, path)
        want = list(csv.reader(io.StringIO(out)))
        wexact = list(csv.reader(io.StringIO(exact)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            rows = tracekit.stats(path, percentiles=pct, as_frame=False, **kw)
        head = want[0]
        self.assertEqual(len(rows), len(want) - 1, path)
        for row, w, x in zip(rows, want[1:], wexact[1:]):
            self.assertEqual(list(row)[:len(head)], head, path)
            for k, cell, ecell in zip(head, w, x):
                what = "%s: %s %s %s" % (path, w[0], w[2], k)
                if k in ("entity", "type", "metric", "unit"):
                    self.assertEqual(row[k], cell, what)
                    continue
                same(self, row[k], num(cell), what)
                if k + "_exact" in row:
                    want_x = None if ecell == "" else fractions.Fraction(ecell)
                    self.assertEqual(row[k + "_exact"], want_x, what)
                    if want_x is not None:
                        self.assertIsInstance(row[k + "_exact"], fractions.Fraction)
        return len(rows)

    def test_cycles(self):
        # a Tarmac log timed in cycles, and a BTF of it: times in clk, as
        # the command gives them (the unit said ns)
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "clk.tarmac")
            with open(log, "w") as f:
                f.write("0 clk E 00000000:000000000000 00000001 CoreEvent_Reset\n")
                for i in range(6):
                    f.write("%d clk IT (%d) %08x d2a00200 O EL3h_s : MOV      x0,#0x100000\n"
                            % (250 * i, i, 8 * i))
                f.write("1500 clk CADI E simulation_stopped\n")
            btf = os.path.join(d, "clk.btf")
            self.assertEqual(run("convert", "-q", log, btf)[0], 0)
            self.assertGreater(self.compare_csv(btf, {}, []), 0)
            rows = tracekit.stats(btf, as_frame=False)
            self.assertEqual({r["unit"] for r in rows if r["metric"] != "NPRE"}, {"clk"})

    def test_every_reader_as_csv(self):
        seen = 0
        for path, kw, opts in traces():
            seen += self.compare_csv(path, kw, opts) > 0
        self.assertGreater(seen, 6)

    def test_percentiles(self):
        n = self.compare_csv(DEMO, {}, [], pct=[50, 99.9, "90"], pct_cli="50,99.9,90")
        self.assertGreater(n, 0)
        rows = tracekit.stats(DEMO, percentiles=[99.9], as_frame=False)
        self.assertIn("p99.9_exact", rows[0])

    def test_json_types(self):
        # the JSON's numbers are ints where whole, floats where decimal
        for path in (DEMO, os.path.join(CORPUS, "shark", "shark-demo-trace.bin")):
            rc, out = run("stats", "-q", "--format", "json", path)
            self.assertEqual(rc, 0)
            want = json.loads(out)["stats"]
            rows = tracekit.stats(path, as_frame=False)
            self.assertEqual(len(rows), len(want))
            for row, w in zip(rows, want):
                for k, v in w.items():
                    same(self, row[k], v, "%s %s %s %s" % (path, w["entity"], w["metric"], k))

    def test_frame(self):
        try:
            import pandas
        except ImportError:
            self.skipTest("no pandas")
        df = tracekit.stats(DEMO)
        self.assertIsInstance(df, pandas.DataFrame)
        rows = tracekit.stats(DEMO, as_frame=False)
        self.assertEqual(len(df), len(rows))
        self.assertEqual(str(df["count"].dtype), "int64")
        for i, r in enumerate(rows):
            for k, v in r.items():
                got = df[k].iloc[i]
                if v is None:
                    self.assertTrue(pandas.isna(got), k)
                else:
                    self.assertEqual(got, v, k)

    def test_trace_and_filters(self):
        if not hasattr(tracekit, "open"):
            self.skipTest("no tracekit.open")
        t = tracekit.open(DEMO)
        self.assertEqual(tracekit.stats(t, as_frame=False), tracekit.stats(DEMO, as_frame=False))
        # the window applied by the reader: the stats of the events that
        # `tracekit convert --end` keeps
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            cut = os.path.join(d, "cut.btf")
            rc, _ = run("convert", "-q", "--end", "500us", DEMO, cut)
            self.assertEqual(rc, 0)
            rc, out = run("stats", "-q", "--format", "csv", cut)
        rows = tracekit.stats(DEMO, end="500us", as_frame=False)
        want = [(w[0], w[2], int(w[3]), num(w[6])) for w in list(csv.reader(io.StringIO(out)))[1:]]
        self.assertTrue(want)
        self.assertEqual([(r["entity"], r["metric"], r["count"], r["max"]) for r in rows], want)
        self.assertLess(len(rows), len(tracekit.stats(DEMO, as_frame=False)))

    def test_errors(self):
        with self.assertRaises(tracekit.IOError):
            tracekit.stats("no/such/file.btf")
        bad = sorted(glob.glob(os.path.join(SRC, "tests", "formats", "btf", "fail", "*.btf")))[0]
        with self.assertRaises(tracekit.Error):
            tracekit.stats(bad, format="btf")
        for p in ([0], [101], [1.0000001], ["x"]):
            with self.assertRaises(tracekit.UsageError, msg=repr(p)):
                tracekit.stats(DEMO, percentiles=p)
        with self.assertRaises(TypeError):
            tracekit.stats(DEMO, entities=[1])

    def test_percentile_twice(self):
        # two columns of one name: refused as the command refuses
        # --percentiles 50,50 ("50 is given twice")
        rc, out = run("stats", "-q", "--percentiles", "50,50", DEMO)
        self.assertEqual(rc, 2)
        for p, name in (([50, 50], "50"), ([99.9, "99.900"], "99.9"), ([90, 50, 50.0], "50")):
            with self.assertRaises(tracekit.UsageError, msg=repr(p)) as cm:
                tracekit.stats(DEMO, percentiles=p)
            self.assertIsInstance(cm.exception, ValueError)
            self.assertIn("percentiles: %s is given twice" % name, str(cm.exception))


class Load(unittest.TestCase):
    def compare(self, path, window=None, cli_window=None, idle=None, cli_idle=()):
        opts = ["--window", cli_window] if window is not None else []
        for i in cli_idle:
            opts += ["--idle", i]
        rc, out = run("load", "-q", "--format", "csv", *opts, path)
        self.assertEqual(rc, 0, path)
        rc, exact = run("load", "-q", "--format", "csv", "--exact", *opts, path)
        self.assertEqual(rc, 0, path)
        want = list(csv.reader(io.StringIO(out)))
        wexact = list(csv.reader(io.StringIO(exact)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            rows = tracekit.load(path, window=window, idle=idle, as_frame=False)
        head = want[0]
        self.assertEqual(len(rows), len(want) - 1, path)
        for row, w, x in zip(rows, want[1:], wexact[1:]):
            for k, cell, ecell in zip(head, w, x):
                what = "%s: %s %s" % (path, w, k)
                if k in ("kind", "core", "entity"):
                    self.assertEqual(row[k], cell if cell != "" else (None if k != "kind" else ""), what)
                    continue
                same(self, row[k], num(cell), what)
                if k != "percent":
                    self.assertEqual(row[k + "_exact"],
                                     None if ecell == "" else fractions.Fraction(ecell), what)
            if row["percent"] is not None:
                pe = row["percent_exact"]
                self.assertEqual(pe, row["busy_exact"] * 100 / row["length_exact"])
        return rows

    def test_every_reader(self):
        seen = 0
        for path, kw, opts in traces():
            seen += len(self.compare(path)) > 0
        self.assertGreater(seen, 4)

    def test_windows(self):
        rows = self.compare(DEMO, "100us", "100us")
        self.assertIn("window", {r["kind"] for r in rows})
        rows2 = tracekit.load(DEMO, window=100000, as_frame=False)  # ticks of 1 ns
        self.assertEqual(rows, rows2)
        self.compare(DEMO, "33333", "33333")
        self.compare(os.path.join(CORPUS, "shark", "shark-demo-trace.bin"), "1ms", "1ms")

    def test_idle(self):
        rows = self.compare(FREERTOS)
        self.assertIn("idle", {r["kind"] for r in rows})
        self.compare(FREERTOS, idle="IDLE*", cli_idle=["IDLE*"])
        self.compare(DEMO, idle=["Task_A", "Task_?"], cli_idle=["Task_A", "Task_?"])
        none = tracekit.load(FREERTOS, idle=[], as_frame=False)
        self.assertNotIn("idle", {r["kind"] for r in none})

    def test_core_busy_warning(self):
        # a process allocated on a core another one holds: the warning of
        # `tracekit load`, so that busy times below stats' CET are not silent
        path = os.path.join(SRC, "tests", "analysis", "broken", "core_busy.btf")
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always", tracekit.TraceWarning)
            tracekit.load(path, as_frame=False)
        self.assertIn("1 process event allocated a core another process held",
                      " ".join(str(w.message) for w in got))

    def test_frame(self):
        try:
            import pandas
        except ImportError:
            self.skipTest("no pandas")
        df = tracekit.load(DEMO, window="100us")
        self.assertEqual(len(df), len(tracekit.load(DEMO, window="100us", as_frame=False)))
        self.assertEqual(str(df["busy"].dtype), "int64")
        self.assertEqual(str(df["percent"].dtype), "float64")

    def test_errors(self):
        for w in ("0", 0, -5, "1ps", "ten", "1.5ms5", 2**64, True, ""):
            with self.assertRaises(tracekit.UsageError, msg=repr(w)):
                tracekit.load(DEMO, window=w)
        with self.assertRaises(TypeError):
            tracekit.load(DEMO, window=1.5)
        wrote = written()
        with self.assertRaises(tracekit.RangeError):
            # ten million windows and more, as the command refuses them
            tracekit.load(os.path.join(CORPUS, "btf", "tracecompass_20140219-123819.btf"),
                          window=10)
        if wrote is not None:
            # refused before its windows are made, the span of the file read
            # ahead (its first ten million windows, 400 MB, were written to a
            # temporary file first)
            self.assertLess(written() - wrote, 16 << 20)
        with self.assertRaises(tracekit.IOError):
            tracekit.load("no/such/file.btf")
        with self.assertRaises(TypeError):
            tracekit.load(DEMO, idle=[3])


class Check(unittest.TestCase):
    def compare(self, path, strict=False):
        opts = ["--strict"] if strict else []
        rc, out = run("check", "-q", *opts, path)
        self.assertIn(rc, (0, 1), path)
        lines = out.splitlines()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            rows = tracekit.check(path, strict=strict, as_frame=False)
        self.assertEqual(["%s:%d: error: %s [%s]" % (path, r["pos"], r["message"], r["rule"])
                          for r in rows], lines[:-1], path)
        for r in rows:
            self.assertIs(type(r["time"]), int)
        return rows, lines[-1]

    def test_every_reader(self):
        bad = 0
        for path, kw, opts in traces():
            rows, summary = self.compare(path)
            bad += len(rows) > 0
        self.assertGreater(bad, 0)

    def test_violations(self):
        p = os.path.join(SRC, "tests", "cli", "data")
        for path in sorted(glob.glob(os.path.join(SRC, "tests", "**", "*.btf"), recursive=True)):
            if "/fail/" in path:
                continue
            rc, _ = run("check", "-q", path)
            if rc == 1:
                rows, summary = self.compare(path)
                self.assertTrue(rows)
                try:
                    import pandas  # noqa: F401
                except ImportError:
                    return
                df = tracekit.check(path)
                self.assertEqual(df.attrs["events"], int(summary.split(" in ")[1].split()[0]))
                self.assertEqual(sum(df.attrs["violations"].values()), len(rows))
                self.assertEqual(list(df["rule"]), [r["rule"] for r in rows])
                return
        self.fail("no trace with violations among the tests' BTF files")

    def test_errors(self):
        with self.assertRaises(tracekit.IOError):
            tracekit.check("no/such/file.btf")
        with self.assertRaises(tracekit.UsageError):
            tracekit.check(DEMO, window_stop="sometimes")


class Verify(unittest.TestCase):
    REQS = ["demo_pass", "demo_fail", "chain", "hung_task", "type_sparse"]

    def compare(self, path, req, kw=None, opts=()):
        """tracekit.verify() row for row as `verify --format json`"""
        reqpath = os.path.join(SRC, "tests", "verify", req + ".yaml")
        rc, out = run("verify", "-q", "--format", "json", *opts, path, "-r", reqpath)
        self.assertIn(rc, (0, 1), (path, req))
        want = json.loads(out)["traces"][0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            rows = tracekit.verify(path, reqpath, as_frame=False, **(kw or {}))
        self.assertEqual(len(rows), len(want["requirements"]), (path, req))
        for got, w in zip(rows, want["requirements"]):
            w = dict(w)
            w["message"] = w.pop("message")
            for k, v in w.items():
                same(self, got[k], v, (path, req, w["name"], k))
        self.assertEqual(sum(not r["ok"] for r in rows), want["failures"])
        return rows

    def test_every_file(self):
        failed = passed = 0
        for req in self.REQS:
            for path, kw, opts in traces()[:3]:
                rows = self.compare(path, req, kw, opts)
                failed += sum(not r["ok"] for r in rows)
                passed += sum(r["ok"] for r in rows)
        self.assertGreater(failed, 0)
        self.assertGreater(passed, 0)

    def test_filters_and_trace(self):
        # reader keywords as the command's options; a Trace as the source
        self.compare(DEMO, "demo_pass", {"format": "btf", "strict": True},
                     ["--from", "btf", "--strict"])
        atf = os.path.join(SRC, "tests", "formats", "atf", "ok", "spec_example4.atf")
        if os.path.exists(atf):
            self.compare(atf, "hung_task", {"trace": 2}, ["--trace", "2"])
        req = os.path.join(SRC, "tests", "verify", "demo_pass.yaml")
        self.assertEqual(tracekit.verify(tracekit.open(DEMO), req, as_frame=False),
                         tracekit.verify(DEMO, req, as_frame=False))

    def test_frame(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("no pandas")
        req = os.path.join(SRC, "tests", "verify", "demo_fail.yaml")
        df = tracekit.verify(DEMO, req)
        self.assertEqual(str(df["ok"].dtype), "bool")
        self.assertEqual(str(df["instance"].dtype), "Int64")
        self.assertEqual(df.attrs["failures"], int((~df["ok"]).sum()))
        self.assertGreater(df.attrs["failures"], 0)
        df = tracekit.verify(DEMO, os.path.join(SRC, "tests", "verify", "demo_pass.yaml"))
        self.assertEqual(df.attrs["failures"], 0)
        self.assertTrue(df["ok"].all())

    def test_errors(self):
        bad = os.path.join(SRC, "tests", "verify", "err_empty.yaml")
        with self.assertRaises(tracekit.ParseError) as cm:
            tracekit.verify(DEMO, bad)
        self.assertIn(bad + ":1:1: error:", str(cm.exception))
        with self.assertRaises(tracekit.IOError):
            tracekit.verify(DEMO, "no/such/requirements.yaml")
        with self.assertRaises(tracekit.IOError):
            tracekit.verify("no/such/file.btf",
                            os.path.join(SRC, "tests", "verify", "demo_pass.yaml"))
        with self.assertRaises(TypeError):
            tracekit.verify(DEMO, 3)
        # a load window of a fraction of the trace's tick
        with self.assertRaises(tracekit.RangeError):
            tracekit.verify(DEMO, os.path.join(SRC, "tests", "verify", "window_sub_tick.yaml"))


class TimeLines(unittest.TestCase):
    """An ATF file of two TraceData, two time lines whose time starts again:
    the module gives what the command gives"""
    PATH = os.path.join(SRC, "tests", "cli", "atf_timelines.atf")

    def read(self, fn, *a, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            return fn(*a, **kw)

    def test_stats_load_check(self):
        self.assertEqual(Stats.compare_csv(self, self.PATH, {}, []), 10)
        rows = Load.compare(self, self.PATH)
        self.assertEqual({r["length"] for r in rows}, {143000})  # 45 us + 98 us
        rows, summary = Check.compare(self, self.PATH)
        self.assertEqual(rows, [])
        # each TraceData alone, as --trace N reads it
        for k in (1, 2):
            rc, out = run("stats", "-q", "--format", "csv", "--trace", str(k), self.PATH)
            got = self.read(tracekit.stats, self.PATH, trace=k, as_frame=False)
            self.assertEqual(len(got), len(out.splitlines()) - 1)

    def test_span(self):
        t = self.read(tracekit.open, self.PATH)
        rc, out = run("info", "--format", "json", self.PATH)
        self.assertEqual(rc, 0)
        info = self.read(lambda: t.info)
        self.assertEqual(info, json.loads(out))
        self.assertEqual((info["start"], info["end"], info["duration"], info["time_lines"]),
                         (5, 100, 143, 2))
        one = self.read(lambda: tracekit.open(self.PATH, trace=2).info)
        self.assertEqual((one["duration"], one["time_lines"]), (98, 1))

    def test_instances(self):
        # the second TraceData's instances, read whole, are those it has alone
        whole = self.read(lambda: list(tracekit.open(self.PATH)))
        alone = self.read(lambda: list(tracekit.open(self.PATH, trace=2)))
        self.assertEqual(whole[-len(alone):], alone)
        self.assertEqual([(e.target, e.target_inst) for e in alone[:2]],
                         [("TaskA", 0), ("TaskA", 0)])

    def test_windows_refused(self):
        rc, _ = run("load", "-q", "--window", "10us", self.PATH)
        self.assertEqual(rc, 2)
        with self.assertRaises(tracekit.UnsupportedError) as cm:
            self.read(tracekit.load, self.PATH, window="10us")
        self.assertTrue(str(cm.exception).startswith(self.PATH + ":32: error: load windows "
                                                     "over several time lines"),
                        str(cm.exception))


if __name__ == "__main__":
    unittest.main()
