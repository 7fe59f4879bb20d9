"""The C extension tracekit._tracekit, built against the INSTALLED tracekit
library that pkg-config finds (tracekit.pc: `make install` puts it in
PREFIX/lib/pkgconfig; set PKG_CONFIG_PATH for another prefix).  The
library's folder is the extension's run path, so that a library outside
the loader's folders is found at import.  The metadata is pyproject.toml's.
"""
import glob
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config"] + list(args) + ["tracekit"], check=True,
                             capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("setup.py: pkg-config is not installed (apt-get install pkg-config)")
    except subprocess.CalledProcessError as e:
        sys.exit("setup.py: pkg-config does not find tracekit (install the library "
                 "with `make install`, or set PKG_CONFIG_PATH to PREFIX/lib/pkgconfig): "
                 + e.stderr.strip())
    return shlex.split(out)


cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
libdirs = [f[2:] for f in libs if f.startswith("-L")]

ext = Extension(
    "tracekit._tracekit",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c"))),
    include_dirs=[f[2:] for f in cflags if f.startswith("-I")],
    extra_compile_args=[f for f in cflags if not f.startswith("-I")],
    library_dirs=libdirs,
    libraries=[f[2:] for f in libs if f.startswith("-l")],
    extra_link_args=[f for f in libs if not f.startswith(("-l", "-L"))],
    runtime_library_dirs=libdirs,
)

setup(ext_modules=[ext])
