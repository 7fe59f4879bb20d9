"""tracekit.tarmac: the instruction records of Tarmac logs as arrays (the
lines `tracekit cat --pc` prints, the figures of `tracekit stats`), and
the function profile equal to `tracekit stats LOG --elf ELF --format csv`."""
import ast
import collections
import csv
import inspect
import io
import json
import os
import re
import subprocess
import unittest
import warnings

import tracekit
import tracekit.tarmac

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
SHARED = os.environ.get("TK_SHARED", os.path.join(SRC, "..", "shared"))
T = os.path.join(SHARED, "corpus", "tarmac")
ELF = os.path.join(T, "elf")

# (log, elf) of every producer variant of the corpus
PROFILED = [
    ("quicksort.tarmac", "quicksort.elf"),
    ("calltest32.tarmac", "calltest32.elf"),
    ("calltest64.tarmac", "calltest64.elf"),
    ("calculator-aarch32-fastmodel.tarmac", "calculator-aarch32.elf"),
    ("calculator-aarch32-es-ld-st-style.tarmac", "calculator-aarch32.elf"),
    ("calculator-aarch64-fastmodel.tarmac", "calculator-aarch64.elf"),
    ("calculator-aarch64-es-ld-st-style.tarmac", "calculator-aarch64.elf"),
    ("calculator-aarch64-gem5.tarmac", "calculator-aarch64.elf"),
]
OTHERS = ["crash32.tarmac", "crash32m.tarmac", "crash64.tarmac", "parsertest.txt",
          "parsertest-implicit-thumb.txt"]

IT = re.compile(r"\bI[TSFEA]\s+(?:\(\d+\)\s+)?([0-9a-fA-F]+)(?::\S+)?\s+([0-9a-fA-F]+)\s")
ES = re.compile(r"\bES\s+\(([0-9a-fA-F]+):([0-9a-fA-F]+)\)")


def run(*args):
    r = subprocess.run([CLI] + list(args), capture_output=True)
    if r.returncode:
        raise AssertionError(r.stderr.decode())
    return r.stdout.decode("utf-8", "surrogateescape")


def read(name, elf=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tracekit.TraceWarning)
        return tracekit.tarmac.open(os.path.join(T, name),
                                    elf=os.path.join(ELF, elf) if elf else None)


class Records(unittest.TestCase):
    def compare_lines(self, name):
        log = read(name)
        lines = run("cat", "-q", "--pc", "0-ffffffffffffffff", os.path.join(T, name)).splitlines()
        self.assertEqual(len(log), len(lines), name)
        self.assertEqual(len(log.pc), len(lines))
        parsed = 0
        for i, line in enumerate(lines):
            m = IT.search(line) or ES.search(line)
            tok = line.split()
            if tok[0].isdigit() and tok[1] == log.units[log.unit[i]]:
                self.assertEqual(int(tok[0]), int(log.time[i]), "%s: %s" % (name, line))
            if not m:
                continue
            self.assertEqual(int(m.group(1), 16), int(log.pc[i]), "%s: %s" % (name, line))
            self.assertEqual(int(m.group(2), 16), int(log.opcode[i]), "%s: %s" % (name, line))
            parsed += 1
        self.assertGreater(parsed, len(lines) * 0.8, name)
        return log

    def compare_stats(self, name, log):
        st = json.loads(run("stats", "-q", "--format", "json", os.path.join(T, name)))
        ins = st["instructions"]
        self.assertEqual(int(log.executed.sum()), ins["executed"], name)
        self.assertEqual(len(log), ins["executed"] + ins["skipped"] + ins["faulted"], name)
        names = log.mnemonic_names()
        mix = collections.Counter(n.upper()[:23] for n, e in zip(names, log.executed) if e)
        want = list(csv.reader(io.StringIO(run("stats", "-q", "--format", "csv",
                                               os.path.join(T, name)))))[1:]
        self.assertEqual({m: int(c) for m, c in want}, dict(mix), name)
        hot = collections.Counter(int(p) for p, e in zip(log.pc, log.executed) if e)
        top = sorted(hot.items(), key=lambda kv: (-kv[1], kv[0]))[:len(st["hottest"])]
        self.assertEqual([(int(h["address"], 16), h["count"]) for h in st["hottest"]], top, name)

    def test_every_variant(self):
        for name, _ in PROFILED:
            log = self.compare_lines(name)
            self.compare_stats(name, log)
        for name in OTHERS:
            log = self.compare_lines(name)
            self.compare_stats(name, log)

    def test_arrays(self):
        import numpy as np
        log = read("quicksort.tarmac")
        self.assertEqual(log.pc.dtype, np.uint64)
        self.assertEqual(log.opcode.dtype, np.uint64)
        self.assertEqual(log.time.dtype, np.uint64)
        self.assertEqual(log.mnemonic.dtype, np.uint32)
        self.assertEqual(log.executed.dtype, np.bool_)
        self.assertEqual(log.units[log.unit[0]], "clk")
        self.assertEqual(log.variant, "fast-models")
        self.assertEqual(list(log.mnemonic_names()[:3]), ["MOV", "MOV", "BL"])
        self.assertEqual(chr(log.iset[0]), "O")
        gem5 = read("calculator-aarch64-gem5.tarmac")
        self.assertEqual(gem5.cpus[int(gem5.cpu[0])], "cpu0")
        try:
            import pandas  # noqa: F401
        except ImportError:
            return
        df = log.to_pandas()
        self.assertEqual(len(df), len(log))
        self.assertEqual(list(df["mnemonic"][:3]), ["MOV", "MOV", "BL"])
        self.assertEqual(int(df["pc"][0]), 0x8000)


class Profile(unittest.TestCase):
    def test_equal_to_stats_csv(self):
        for name, elf in PROFILED:
            want = list(csv.reader(io.StringIO(run(
                "stats", "-q", "--format", "csv", "--elf", os.path.join(ELF, elf),
                os.path.join(T, name)))))
            log = read(name, elf)
            rows = log.profile(as_frame=False)
            self.assertEqual(list(rows[0]), want[0], name)
            self.assertEqual(len(rows), len(want) - 1, name)
            self.assertGreater(len(rows), 1, name)
            for r, w in zip(rows, want[1:]):
                self.assertEqual([r["function"]] + [r[k] for k in want[0][1:6]] + [r["unit"]],
                                 [w[0]] + [int(x) for x in w[1:6]] + [w[6]], name)
            try:
                import pandas
            except ImportError:
                continue
            df = log.profile()
            self.assertIsInstance(df, pandas.DataFrame)
            self.assertEqual(list(df["function"]), [w[0] for w in want[1:]])
            self.assertEqual(str(df["instructions"].dtype), "int64")

    def test_load_offset(self):
        """load_offset= as --load-offset: any 64-bit offset, a negative one
        below (2^63 and more raised a bare OverflowError)."""
        log = os.path.join(SRC, "tests", "cli", "tarmac_load_offset.tarmac")
        elf = os.path.join(ELF, "quicksort.elf")
        for cli, off in (("0x100000", 0x100000), ("0x8000000000000000", 1 << 63),
                         ("-0x100000", -0x100000), ("0xffffffffffffffff", (1 << 64) - 1),
                         ("-0xffffffffffffffff", 1 - (1 << 64))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", tracekit.TraceWarning)
                rows = tracekit.tarmac.open(log, elf=elf, load_offset=off).profile(as_frame=False)
            want = list(csv.reader(io.StringIO(run("stats", "-q", "--format", "csv", "--elf", elf,
                                                   "--load-offset", cli, log))))
            self.assertEqual([[r["function"], str(r["calls"])] for r in rows],
                             [w[:2] for w in want[1:]], cli)
        for off in (1 << 64, -(1 << 64)):
            with self.assertRaisesRegex(ValueError, "load_offset: .* does not fit 64 bits"):
                tracekit.tarmac.open(log, elf=elf, load_offset=off)

    def test_errors(self):
        with self.assertRaises(tracekit.UsageError):
            read("quicksort.tarmac").profile()
        with self.assertRaises(tracekit.IOError):
            tracekit.tarmac.open("no/such/log.tarmac")
        with self.assertRaises(tracekit.Error):
            tracekit.tarmac.open(os.path.join(T, "quicksort.tarmac"), elf="no/such.elf")
        with self.assertRaises(tracekit.Error):
            # not an ELF file
            tracekit.tarmac.open(os.path.join(T, "quicksort.tarmac"),
                                 elf=os.path.join(T, "crash32.tarmac"))
        # strict: the line the command names
        bad = os.path.join(SRC, "tests", "formats", "tarmac", "fail", "bad_opcode_strict.tarmac")
        with self.assertRaises(tracekit.ParseError) as cm:
            tracekit.tarmac.open(bad, strict=True)
        self.assertEqual((cm.exception.line, cm.exception.column), (2, 7))
        self.assertIn("malformed instruction line", str(cm.exception))
        # lenient: the line skipped with a warning
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always", tracekit.TraceWarning)
            tracekit.tarmac.open(bad)
        self.assertTrue(any("malformed instruction line" in str(x.message) for x in w))


if __name__ == "__main__":
    unittest.main()


class EventView(unittest.TestCase):
    def test_as_its_btf_but_where_docs_say(self):
        """docs/python.md: a log's info and stats() are those of the BTF
        `convert LOG x.btf` writes, but for the cores the BTF cannot name
        (a CPU without exceptions) and, on a log whose times go backwards,
        the figures the writer's raised times change (the metrics between
        activations and starts; start and duration)."""
        import tempfile
        log = os.path.join(T, "parsertest.txt")
        if not os.path.exists(log):
            self.skipTest("no corpus")
        with tempfile.TemporaryDirectory() as d:
            x = os.path.join(d, "x.btf")
            subprocess.run([CLI, "convert", "-q", log, x], check=True)
            info_x = json.loads(run("info", "--format", "json", "-q", x))
            stats_x = list(csv.DictReader(io.StringIO(run("stats", "-q", "--format", "csv", x))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tracekit.TraceWarning)
            info = tracekit.open(log).info
            stats = tracekit.stats(log, as_frame=False)
        differ = {k for k in set(info) | set(info_x) if info.get(k) != info_x.get(k)}
        self.assertEqual(differ, {"file", "format", "header", "warnings", "cores", "entities",
                                  "entity_types"})
        self.assertEqual(set(info["cores"]) - set(info_x["cores"]), {"cpu1"})
        self.assertEqual(len(stats), len(stats_x))
        changed = set()
        for a, b in zip(stats, stats_x):
            self.assertEqual((a["entity"], a["metric"]), (b["entity"], b["metric"]))
            for k, v in b.items():
                if str("" if a[k] is None else a[k]) != v:
                    changed.add(a["metric"] if k != "max_at" else "max_at")
        self.assertEqual(changed, {"DT", "PER", "ST", "JIT", "max_at"})
        dt = {r["metric"]: r["count"] for r in stats if r["entity"] == "Reset"}["DT"]
        self.assertEqual((dt, [r["count"] for r in stats_x
                               if r["entity"] == "Reset" and r["metric"] == "DT"]), (3, ["5"]))


class Stubs(unittest.TestCase):
    def test_stub_signatures(self):
        """The type stubs (PEP 561) name the parameters the functions
        written in Python take (tracekit.tarmac.open's stub lacked strict=
        and load_offset=); the C functions have no signature to compare."""
        base = os.path.dirname(tracekit.__file__)
        P = inspect.Parameter

        def shape(names_kinds):
            pos = [n for n, k in names_kinds if k in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
            kw = [n for n, k in names_kinds if k == P.KEYWORD_ONLY]
            return (pos, kw, any(k == P.VAR_POSITIONAL for _, k in names_kinds),
                    any(k == P.VAR_KEYWORD for _, k in names_kinds))

        checked = 0
        for mod, stub in ((tracekit, "__init__.pyi"), (tracekit.tarmac, "tarmac.pyi")):
            with open(os.path.join(base, stub)) as f:
                tree = ast.parse(f.read())
            for node in tree.body:
                if not isinstance(node, ast.FunctionDef):
                    continue
                fn = getattr(mod, node.name)
                try:
                    sig = inspect.signature(fn)
                except ValueError:
                    continue
                a = node.args
                st = ([(x.arg, P.POSITIONAL_ONLY) for x in a.posonlyargs]
                      + [(x.arg, P.POSITIONAL_OR_KEYWORD) for x in a.args]
                      + ([(a.vararg.arg, P.VAR_POSITIONAL)] if a.vararg else [])
                      + [(x.arg, P.KEYWORD_ONLY) for x in a.kwonlyargs]
                      + ([(a.kwarg.arg, P.VAR_KEYWORD)] if a.kwarg else []))
                real = [(p.name, p.kind) for p in sig.parameters.values()]
                self.assertEqual(shape(st), shape(real), "%s.%s" % (mod.__name__, node.name))
                checked += 1
        self.assertGreater(checked, 5)

    def test_open_stub_keywords(self):
        """tracekit.open() (in C, no signature to compare) takes the path
        alone as a positional argument: its stub made format and strict
        positional too, which the call refuses."""
        with open(os.path.join(os.path.dirname(tracekit.__file__), "__init__.pyi")) as f:
            node = next(n for n in ast.parse(f.read()).body
                        if isinstance(n, ast.FunctionDef) and n.name == "open")
        self.assertEqual([a.arg for a in node.args.args], ["path"])
        self.assertIn("format", [a.arg for a in node.args.kwonlyargs])
        demo = os.path.join(SRC, "examples", "demo.btf")
        with self.assertRaises(TypeError):
            tracekit.open(demo, "btf")
        self.assertEqual(tracekit.open(demo, format="btf", strict=True).format, "btf")
