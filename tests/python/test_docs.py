"""docs/python.md runs: its ```python blocks, in order, in one namespace,
from the top of the source tree (examples/demo.btf) with the command on
PATH; then README.md's ```python blocks the same way.  The blocks assert
the figures they show."""
import contextlib
import io
import os
import re
import unittest

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")


def blocks(path):
    text = open(path, encoding="utf-8").read()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def run_blocks(test, path, min_blocks):
    found = blocks(path)
    test.assertGreaterEqual(len(found), min_blocks, path)
    ns = {"__name__": "__doc__"}
    old_cwd, old_path = os.getcwd(), os.environ.get("PATH", "")
    os.chdir(SRC)
    os.environ["PATH"] = os.path.dirname(os.path.abspath(CLI)) + os.pathsep + old_path
    try:
        for i, code in enumerate(found):
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(code, "%s block %d" % (path, i + 1), "exec"), ns)
            except Exception as e:
                raise AssertionError("%s, block %d: %r\n%s\n%s" % (path, i + 1, e, code,
                                                                  out.getvalue()))
    finally:
        os.chdir(old_cwd)
        os.environ["PATH"] = old_path
    return ns


class Docs(unittest.TestCase):
    def test_python_md(self):
        ns = run_blocks(self, os.path.join(os.path.abspath(SRC), "docs", "python.md"), 8)
        self.assertIn("df", ns)

    def test_docstrings(self):
        # every public name of the package, and every public member of its
        # types, says what it is
        import inspect
        import tracekit
        missing = []
        for name in dir(tracekit):
            if name.startswith("_"):
                continue
            obj = getattr(tracekit, name)
            if inspect.ismodule(obj) or isinstance(obj, (int, str)):
                continue
            if not (obj.__doc__ or "").strip():
                missing.append(name)
            if isinstance(obj, type) and obj.__module__.startswith("tracekit"):
                for m, v in vars(obj).items():
                    if not m.startswith("_") and not (getattr(v, "__doc__", "") or "").strip():
                        missing.append("%s.%s" % (name, m))
        self.assertEqual(missing, [])
        for m in ("open", "Trace", "Event", "Error", "TraceWarning"):
            self.assertIn(m, dir(tracekit))

    def test_readme(self):
        run_blocks(self, os.path.join(os.path.abspath(SRC), "README.md"), 1)


if __name__ == "__main__":
    unittest.main()
