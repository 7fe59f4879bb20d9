"""The readings run in C with the GIL released: another Python thread makes
progress while a large to_numpy() reads, and the readers' warnings still
come through the warnings module (taken with the GIL by the reading
thread), in order with the events."""

import math
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
import warnings

import numpy  # noqa: F401  (imported now, not inside the first to_numpy())

import tracekit

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
GEN = os.environ.get("TK_BTF_GEN", "")
WARN = os.path.join(SRC, "tests", "formats", "btf", "ok", "freertos_2022.btf")

# the read must last long enough to see the other thread run inside it
EVENTS = 1_000_000
BUCKET = 0.01      # seconds: the other thread's progress is seen per bucket
EDGE = 0.03        # seconds at each end of the read not looked at
LONG_ENOUGH = 0.4  # seconds of read wanted (10 buckets past the edges, and room)
MAX_EVENTS = 8_000_000


def make_trace(path, n):
    """A BTF trace of n events: bench/gen_btf.c's when built, else written here."""
    if GEN and os.access(GEN, os.X_OK):
        subprocess.run([GEN, "-n", str(n), "-c", "4", "-s", "1", path], check=True,
                       stdout=subprocess.DEVNULL)
        return
    with open(path, "w") as f:
        f.write("#version 2.2.0\n#timeScale ns\n")
        lines = []
        for i in range(n // 2):
            t = 10 * i
            lines.append("%d,Core_%d,0,T,Task_%d,%d,start,\n" % (t, i % 4, i % 50, i))
            lines.append("%d,Core_%d,0,T,Task_%d,%d,terminate,\n" % (t + 5, i % 4, i % 50, i))
            if len(lines) >= 100000:
                f.writelines(lines)
                lines = []
        f.writelines(lines)


class Counter(threading.Thread):
    """Counts as fast as it can, noting the time every 256 counts."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = False
        self.count = 0
        self.stamps = []

    def run(self):
        clock = time.perf_counter
        while not self.stop:
            self.count += 1
            if not self.count & 255:
                self.stamps.append(clock())

    def busy_buckets(self, t0, t1):
        """The BUCKET-long spans of [t0 + EDGE, t1 - EDGE] it counted in."""
        lo, hi = t0 + EDGE, t1 - EDGE
        return {int((s - lo) / BUCKET) for s in self.stamps if lo <= s < hi}


class GilReleased(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tk_threads_")
        cls.path = os.path.join(cls.dir, "big.btf")
        make_trace(cls.path, EVENTS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_beside_counter(self, fn):
        c = Counter()
        c.start()
        # the counter is running before the reading starts
        while len(c.stamps) < 10:
            time.sleep(0.001)
        t0 = time.perf_counter()
        r = fn()
        t1 = time.perf_counter()
        c.stop = True
        c.join()
        return r, c, t0, t1

    def test_info_asked_by_two_threads_at_once(self):
        # both threads read (the GIL released); the Trace keeps the first
        # dict and frees the second, which was left without an owner
        import gc

        def infos():
            gc.collect()
            return [o for o in gc.get_objects()
                    if type(o) is dict and "event_counts" in o and o.get("file") == self.path]

        before = len(infos())
        for _ in range(2):
            t = tracekit.open(self.path)
            barrier = threading.Barrier(2)
            got = []

            def ask():
                barrier.wait()
                got.append((t.info["events"], len(t.entities)))

            threads = [threading.Thread(target=ask) for _ in range(2)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            self.assertEqual(len(got), 2)
            self.assertEqual(got[0], got[1])
            self.assertEqual(got[0][0], EVENTS)
            del t
        self.assertEqual(len(infos()), before)

    def test_other_thread_runs_during_to_numpy(self):
        t = tracekit.open(self.path)
        t.to_numpy(events="no-such-event")   # tracekit._frames imported
        (arr, names), c, t0, t1 = self.run_beside_counter(t.to_numpy)
        self.assertEqual(len(arr), EVENTS)
        if t1 - t0 < LONG_ENOUGH:
            # an optimised build on a quiet host reads the million events
            # in about 0.1 s: a trace as many times larger as makes the
            # read last LONG_ENOUGH (at most MAX_EVENTS events)
            n = min(MAX_EVENTS, EVENTS * math.ceil(LONG_ENOUGH * 1.25 / max(t1 - t0, 1e-3)))
            path = os.path.join(self.dir, "bigger.btf")
            make_trace(path, n)
            t = tracekit.open(path)
            (arr, names), c, t0, t1 = self.run_beside_counter(t.to_numpy)
            self.assertEqual(len(arr), n)
        span = t1 - t0 - 2 * EDGE
        self.assertGreater(span, 10 * BUCKET, "the read is too short to tell")
        got = len(c.busy_buckets(t0, t1))
        # holding the GIL the whole read, the counter counts in none of
        # the read's middle (a switch interval at each end at most)
        self.assertGreaterEqual(got, 5, "the counter thread counted in %d of the %d "
                                "spans of %g s of the read" % (got, int(span / BUCKET), BUCKET))

    def test_other_thread_runs_during_stats(self):
        (rows), c, t0, t1 = self.run_beside_counter(lambda: tracekit.stats(self.path))
        self.assertTrue(len(rows))
        if t1 - t0 - 2 * EDGE > 10 * BUCKET:
            self.assertGreaterEqual(len(c.busy_buckets(t0, t1)), 3)

    def test_same_columns_with_a_thread_beside(self):
        # the reading released the GIL while another thread made objects
        t = tracekit.open(self.path, events="start")
        (arr, names), _, _, _ = self.run_beside_counter(t.to_numpy)
        alone, _ = t.to_numpy()
        self.assertEqual(len(arr), len(alone))
        self.assertTrue((arr == alone).all())

    def test_iteration_beside_a_thread(self):
        t = tracekit.open(self.path, events="terminate")

        def first():
            n = 0
            last = None
            for ev in t.events():
                n += 1
                last = ev
                if n == 3000:
                    break
            return n, last
        (n, last), _, _, _ = self.run_beside_counter(first)
        self.assertEqual(n, 3000)
        self.assertEqual(last.event, "terminate")


class Warnings(unittest.TestCase):
    def cli_warnings(self):
        cmd = subprocess.run([CLI, "cat", WARN], capture_output=True, text=True)
        lines = [ln.split("btf:", 1)[1] for ln in cmd.stderr.splitlines() if ": warning: " in ln]
        self.assertTrue(lines)
        return lines

    def caught(self, fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
        return [str(w.message).split("btf:", 1)[1] for w in caught
                if issubclass(w.category, tracekit.TraceWarning)]

    def test_to_numpy_warns(self):
        t = tracekit.open(WARN)
        self.assertEqual(self.caught(t.to_numpy), self.cli_warnings())

    def test_warnings_from_a_thread(self):
        # a reading in another thread warns there, with the GIL taken back
        t = tracekit.open(WARN)
        out = {}

        def read():
            out["w"] = self.caught(t.to_numpy)
        th = threading.Thread(target=read)
        th.start()
        th.join()
        self.assertEqual(out["w"], self.cli_warnings())

    def test_info_stats_check_convert_warn(self):
        want = self.cli_warnings()
        t = tracekit.open(WARN)
        self.assertEqual(self.caught(lambda: t.info), want)
        self.assertEqual(self.caught(lambda: tracekit.stats(WARN)), want)
        self.assertEqual(self.caught(lambda: tracekit.check(WARN)), want)
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.caught(lambda: tracekit.convert(WARN, os.path.join(d, "o.btf"))),
                             want)

    def test_error_after_the_events_before_it(self):
        # the warning of line 8 made an error: the events of lines 5-7 come
        # out first (read in one batch with it), then the exception
        t = tracekit.open(WARN)
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.filterwarnings("error", message=".*process event", category=tracekit.TraceWarning)
            it = t.events()
            with self.assertRaises(tracekit.TraceWarning) as cm:
                for ev in it:
                    seen.append(ev)
        self.assertIn(":8:", str(cm.exception))
        self.assertEqual([ev.time for ev in seen], [100, 100, 110])
        self.assertEqual(list(it), [])

    def test_error_stops_to_numpy_in_a_thread(self):
        t = tracekit.open(WARN)
        out = {}

        def read():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    t.to_numpy()
                except tracekit.TraceWarning as e:
                    out["e"] = e
        th = threading.Thread(target=read)
        th.start()
        th.join()
        self.assertIn("set_frequence", str(out.get("e")))


if __name__ == "__main__":
    unittest.main()
