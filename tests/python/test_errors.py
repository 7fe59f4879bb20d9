"""tracekit's exceptions: one class per status, the position of the error,
and str() as the command's one-line message."""
import os
import subprocess
import unittest

import tracekit

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
FAIL = os.path.join(SRC, "tests", "formats", "btf", "fail")


class Errors(unittest.TestCase):
    def test_missing_file(self):
        with self.assertRaises(tracekit.IOError) as cm:
            tracekit.open("no/such/file.btf")
        e = cm.exception
        self.assertIsInstance(e, OSError)
        self.assertIsInstance(e, tracekit.Error)
        self.assertEqual(e.file, "no/such/file.btf")
        self.assertIsNone(e.line)
        self.assertEqual(e.code, -1)
        self.assertTrue(str(e).startswith("no/such/file.btf: error: "))

    def test_parse_error_has_position(self):
        # every failing BTF input of the format tests: the exception's line
        # is the command's
        seen = 0
        for name in sorted(os.listdir(FAIL)):
            if not name.endswith(".btf"):
                continue
            path = os.path.join(FAIL, name)
            # NAME.args: the command's options for it (--strict)
            args = path[:-4] + ".args"
            args = open(args).read().split() if os.path.exists(args) else []
            self.assertTrue(set(args) <= {"--strict"}, name)
            cli = subprocess.run([CLI, "cat", "--from", "btf"] + args + [path],
                                 capture_output=True, text=True)
            self.assertNotEqual(cli.returncode, 0, name)
            line = cli.stderr.strip().splitlines()[-1]
            with self.assertRaises(tracekit.Error) as cm:
                for _ in tracekit.open(path, format="btf",
                                       strict="--strict" in args).events():
                    pass
            e = cm.exception
            self.assertEqual(str(e), line, name)
            if e.line is not None:
                self.assertIn(":%d:" % e.line, line)
            seen += 1
        self.assertGreater(seen, 5)

    def test_usage_errors_are_value_errors(self):
        demo = os.path.join(SRC, "examples", "demo.btf")
        with self.assertRaises(tracekit.UsageError) as cm:
            tracekit.open(demo, start="10 parsecs")
        self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaises(tracekit.UsageError):
            tracekit.open(demo, hz=5)
        with self.assertRaises(TypeError):
            tracekit.open(demo, entities=[1, 2])
        # a format option is an int or a str: a float or a list was sent
        # as its text, and a ',' in a str started another option
        for bad in (1.5, [1], None):
            with self.assertRaises(TypeError) as cm:
                tracekit.open(demo, time_digits=bad)
            self.assertIn("time_digits: expected an int or a str", str(cm.exception))
            self.assertIn(type(bad).__name__, str(cm.exception))
        with self.assertRaisesRegex(ValueError, "trace: a format option's value holds no ','"):
            tracekit.open(demo, trace="1,time-digits=3")
        # a window bound is an int of ticks or a duration str: a bool is
        # not tick 1, a float is named as what it is
        for bad in (True, False, 1.5):
            with self.assertRaises(TypeError) as cm:
                tracekit.open(demo, start=bad)
            self.assertIn("expected an int (ticks) or a str", str(cm.exception))
            self.assertIn(type(bad).__name__, str(cm.exception))
        with self.assertRaises(TypeError):
            tracekit.open(demo, end=True)

    def test_wrong_types_name_the_keyword(self):
        # a value of the wrong type is a TypeError that names the keyword
        # and what it takes, not Python's bare "'int' object is not iterable"
        demo = os.path.join(SRC, "examples", "demo.btf")
        req = os.path.join(SRC, "tests", "verify", "demo_pass.yaml")
        out = os.path.join(SRC, "no-such-dir", "x.btf")
        cases = [
            ("idle: expected a str or an iterable of str", lambda: tracekit.load(demo, idle=5)),
            ("idle: expected patterns (str), found int", lambda: tracekit.load(demo, idle=[5])),
            ("percentiles: expected a number or an iterable of numbers, not object",
             lambda: tracekit.stats(demo, percentiles=object())),
            ("percentiles: expected numbers", lambda: tracekit.stats(demo, percentiles=[None])),
            ("source: expected str, bytes, os.PathLike or a tracekit.Trace, not int",
             lambda: tracekit.stats(5)),
            ("source: expected", lambda: tracekit.load(None)),
            ("source: expected", lambda: tracekit.check(5)),
            ("source: expected", lambda: tracekit.verify(5, req)),
            ("requirements: expected str, bytes or os.PathLike, not int",
             lambda: tracekit.verify(demo, 5)),
            ("src: expected str, bytes, os.PathLike or a tracekit.Trace, not int",
             lambda: tracekit.convert(5, out)),
            ("dst: expected str, bytes or os.PathLike, not NoneType",
             lambda: tracekit.convert(demo, None)),
            ("dst: expected", lambda: tracekit.convert(demo, tracekit.open(demo))),
            ("path: expected str, bytes, os.PathLike or a tracekit.Trace, not list",
             lambda: tracekit.open([demo])),
            ("log: expected str, bytes or os.PathLike, not int", lambda: tracekit.tarmac.open(5)),
            ("elf: expected str, bytes or os.PathLike, not int",
             lambda: tracekit.tarmac.open(demo, elf=5)),
            ("load_offset: expected an int", lambda: tracekit.tarmac.open(demo, load_offset="1")),
            # write()'s keywords: the errors were Python's own ("'int' object
            # is not iterable", "bad argument type for built-in operation")
            ("format: expected a format's name (str) or None, not int",
             lambda: tracekit.write([], out, timebase=1, format=3)),
            ("header: expected a list of (kind, key, value) tuples, not int",
             lambda: tracekit.write([], out, timebase=1, header=5)),
            ("header: expected a list of (kind, key, value) tuples, not str",
             lambda: tracekit.write([], out, timebase=1, header="#a")),
            ("header: expected a (kind, key, value) tuple per entry, not str",
             lambda: tracekit.write([], out, timebase=1, header=["#a"])),
            ("header: expected (kind, key, value) tuples, not one of 2 items",
             lambda: tracekit.write([], out, timebase=1, header=[("param", "k")])),
            ("entities: expected a list of dicts (name, type, parent), not str",
             lambda: tracekit.write([], out, timebase=1, entities="Task_A")),
            ("entities: expected a dict (name, type, parent) per entry, not int",
             lambda: tracekit.write([], out, timebase=1, entities=[1])),
        ]
        for want, call in cases:
            with self.assertRaises(TypeError, msg=want) as cm:
                call()
            self.assertIn(want, str(cm.exception))

    def test_flags_take_a_bool(self):
        # strict="no" is truthy: it turned strict mode on; a flag takes
        # True or False (None: the default) and refuses anything else
        demo = os.path.join(SRC, "examples", "demo.btf")
        t = tracekit.open(demo)
        calls = [lambda **kw: tracekit.open(demo, **kw), lambda **kw: t.to_numpy(**kw),
                 lambda **kw: tracekit.stats(demo, **kw), lambda **kw: tracekit.check(demo, **kw),
                 lambda **kw: tracekit.convert(demo, os.path.join(SRC, "no-such-dir", "x.btf"),
                                               **kw)]
        for key in ("strict", "end_closed", "force_format"):
            for bad in ("no", 1, 0, [], 1.0):
                for call in calls:
                    with self.assertRaises(TypeError, msg="%s=%r" % (key, bad)) as cm:
                        call(**{key: bad})
                    self.assertEqual(str(cm.exception), "%s: expected True or False, not %s"
                                     % (key, type(bad).__name__))
        self.assertEqual(tracekit.open(demo, strict=None, end_closed=False).info["events"], 53)
        for bad in ("no", 0, 1):
            with self.assertRaises(TypeError) as cm:
                tracekit.stats(demo, as_frame=bad)
            self.assertIn("as_frame: expected None, True or False", str(cm.exception))
            with self.assertRaises(TypeError) as cm:
                tracekit.tarmac.open(demo, strict=bad)
            self.assertIn("strict: expected True or False", str(cm.exception))

    def test_hints_in_the_keywords_words(self):
        # the library's hints name its C API; Python's name the keywords,
        # as the command's name its flags
        import tempfile
        import warnings
        demo = os.path.join(SRC, "examples", "demo.btf")
        with tempfile.TemporaryDirectory() as d:
            junk = os.path.join(d, "junk.dat")
            with open(junk, "wb") as f:
                f.write(b"hello world\n")
            with self.assertRaises(tracekit.FormatError) as cm:
                tracekit.open(junk)
            self.assertIn("(give format=NAME; 'tracekit formats' lists the formats)",
                          str(cm.exception))
            self.assertNotIn("tk_", cm.exception.message)
            with self.assertRaises(tracekit.FormatError) as cm:
                tracekit.open(demo, format="htf")
            self.assertIn("force_format=True reads it as htf anyway", str(cm.exception))
            # and force_format=True does, as the command's --force-format
            cli = subprocess.run([CLI, "cat", "--from", "htf", "--force-format", demo],
                                 capture_output=True, text=True)
            with self.assertRaises(tracekit.ParseError) as cm:
                tracekit.open(demo, format="htf", force_format=True)
            self.assertEqual(str(cm.exception), cli.stderr.splitlines()[-1])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tracekit.convert(os.path.join(SRC, "tests", "exports", "ctf", "third_ns.atf"),
                                 os.path.join(d, "out.btf"))
            lines = [str(w.message) for w in caught]
            self.assertTrue(any("(strict=True refuses)" in ln for ln in lines), lines)
            self.assertFalse(any("strict mode" in ln for ln in lines), lines)

    def test_types_are_not_constructors(self):
        # tracekit.Trace("x.btf") is a mistake to be told, not a crash: a
        # Trace comes from open(), an iterator from events()
        import sys
        code = """if 1:
            import tracekit
            for make in (tracekit.Trace, lambda: tracekit.Trace("x.btf"),
                         lambda: type(iter(tracekit.open(%r)))()):
                try:
                    obj = make()
                except TypeError as e:
                    print(e)
                else:
                    print(repr(obj), obj.info, list(obj))
        """ % os.path.join(SRC, "examples", "demo.btf")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "cannot create 'tracekit.Trace' objects: "
                         "tracekit.open(path) opens a trace")
        self.assertEqual(lines[1], lines[0])
        self.assertEqual(lines[2], "cannot create 'tracekit.EventIterator' objects")

    def test_path_not_utf8(self):
        # a file name that is no UTF-8 (as os.listdir() gives it): every
        # function reads it, and names it with U+FFFD as the command does
        import json
        import shutil
        import tempfile
        import warnings
        with tempfile.TemporaryDirectory() as d:
            db = os.fsencode(d)
            demo, warn = db + b"/d\xff.btf", db + b"/w\xff.btf"
            shutil.copy(os.path.join(SRC, "examples", "demo.btf"), demo)
            shutil.copy(os.path.join(SRC, "tests", "formats", "btf", "ok",
                                     "freertos_2022.btf"), warn)
            t = tracekit.open(demo)
            cli = subprocess.run([os.fsencode(CLI), b"info", b"--format", b"json", demo],
                                 capture_output=True, check=True)
            self.assertEqual(t.info, json.loads(cli.stdout))
            self.assertEqual(len(tracekit.open(os.fsdecode(demo)).to_numpy()[0]), 53)
            tracekit.convert(demo, db + b"/c\xff.btf")
            tracekit.write(t.to_pandas(), db + b"/o\xff.btf")
            self.assertEqual(tracekit.open(db + b"/o\xff.btf").info["events"], 53)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.assertEqual(len(tracekit.open(warn).to_numpy()[0]), 15)
            self.assertTrue(caught)
            self.assertIn("/w\ufffd.btf:5:25: warning: ", str(caught[0].message))
            with self.assertRaises(tracekit.IOError) as cm:
                tracekit.open(db + b"/none\xff.btf")
            self.assertIn("/none\ufffd.btf: error: ", str(cm.exception))
            self.assertEqual(os.fsencode(cm.exception.file), db + b"/none\xff.btf")


if __name__ == "__main__":
    unittest.main()
