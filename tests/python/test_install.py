"""The module as users install it: `make install` (cmake --install) puts the
package where Debian's python3 finds it for PREFIX /usr/local, and `pip
install ./python` in a virtual environment builds it against the installed
library found with pkg-config; both import outside the source tree and give
the command's figures."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unittest

SRC = os.environ.get("TK_SRC", "../..")
CLI = os.environ.get("TK_CLI", "tracekit")
BUILD = os.path.dirname(os.path.abspath(CLI))
DEMO = os.path.abspath(os.path.join(SRC, "examples", "demo.btf"))
PREFIX = "/usr/local"
SITE = "lib/python%d.%d/dist-packages" % sys.version_info[:2]

# what the installed module prints: its file and the info of the demo
PROBE = ("import json, sys, tracekit; t = tracekit.open(sys.argv[1]); "
         "print(json.dumps({'file': tracekit.__file__, 'info': t.info, "
         "'n': len(t.to_numpy().array)}))")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode,
                                                    p.stdout[-3000:], p.stderr[-3000:]))
    return p.stdout


def clean_env(**extra):
    """the environment without the build tree's PYTHONPATH"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra)
    return env


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cmake = shutil.which("cmake")
        if not cls.cmake:
            raise unittest.SkipTest("no cmake")
        cls.work = tempfile.mkdtemp(prefix="tk-pyinstall-")
        cls.dest = os.path.join(cls.work, "root")
        run([cls.cmake, "--install", BUILD, "--prefix", PREFIX],
            env=dict(os.environ, DESTDIR=cls.dest))
        cls.inst = cls.dest + PREFIX
        cls.want = json.loads(run([CLI, "info", "--format", "json", DEMO]))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def probe(self, python, **env):
        out = json.loads(run([python, "-c", PROBE, DEMO], cwd=self.work, env=clean_env(**env)))
        self.assertEqual(out["info"], self.want)
        self.assertEqual(out["n"], self.want["events"])
        return out["file"]

    def test_make_install(self):
        site = os.path.join(self.inst, SITE)
        for f in ("__init__.py", "_frames.py", "__init__.pyi", "py.typed"):
            self.assertTrue(os.path.exists(os.path.join(site, "tracekit", f)), f)
        # Debian's python3 searches PREFIX's folder for PREFIX /usr/local
        self.assertIn(os.path.join(PREFIX, SITE), run([sys.executable, "-c",
                      "import sys; print('\\n'.join(sys.path))"], env=clean_env()).split("\n"))
        got = self.probe(sys.executable, PYTHONPATH=site)
        self.assertTrue(got.startswith(site), got)

    def test_pip_install_in_a_venv(self):
        venv = os.path.join(self.work, "venv")
        run([sys.executable, "-m", "venv", "--system-site-packages", venv])
        # a copy of python/: the build's own files stay out of the sources
        src = os.path.join(self.work, "python")
        shutil.copytree(os.path.join(SRC, "python"), src,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        pc = os.path.join(self.inst, "lib", "pkgconfig")
        # the compilers of the build run without the sanitizers' preload
        env = {k: v for k, v in clean_env().items() if k != "LD_PRELOAD"}
        env.update(PKG_CONFIG_PATH=pc, PKG_CONFIG_SYSROOT_DIR=self.dest)
        run([os.path.join(venv, "bin", "pip"), "install", "--no-index", "--no-build-isolation",
             src], env=env, cwd=self.work)
        got = self.probe(os.path.join(venv, "bin", "python"))
        self.assertTrue(got.startswith(venv), got)
        # the extension is the one built against the installed library
        ext = [f for f in os.listdir(os.path.dirname(got)) if f.startswith("_tracekit")]
        self.assertEqual(len(ext), 1)
        ldd = run(["ldd", os.path.join(os.path.dirname(got), ext[0])])
        self.assertIn(os.path.join(self.inst, "lib", "libtracekit.so"), ldd)


if __name__ == "__main__":
    unittest.main()
