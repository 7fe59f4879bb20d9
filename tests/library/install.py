#!/usr/bin/env python3
"""`make install` as users use it: install the build under DESTDIR, then
build the programs of examples/c/ against the installed library only,
through pkg-config (shared and static) and through CMake's
find_package(tracekit), run them and compare their figures with the
command's.

usage: install.py CMAKE CC ROOT BUILD WORKDIR SHARED_DIR

ROOT is the source tree (examples/c/), BUILD the build tree to install,
SHARED_DIR the folder of the corpus (its S.Ha.R.K. dump).  The sanitizer
of a sanitized build is added to the programs' flags from
$TK_EXTRA_CFLAGS.  Exit 0, or 1 with what failed.
"""
import csv
import io
import os
import shutil
import subprocess
import sys

PREFIX = "/usr/local"


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode,
                                                  p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def rt_rows(tracekit, trace):
    """{task: (max, count)} of `tracekit stats --format csv`'s RT rows"""
    rows = {}
    for f in list(csv.reader(io.StringIO(run([tracekit, "stats", "--format", "csv", trace]))))[1:]:
        if f[2] == "RT":
            rows[f[0]] = (f[6], f[3])
    return rows


def man_body(path):
    """the text of a page's DESCRIPTION, roff escapes undone; a table's
    source lines are the comments before it (.\\" md: ...), the roff made
    of them (up to the .nf that ends it) is skipped"""
    lines = open(path).read().split("\n")
    i = lines.index(".SH DESCRIPTION") + 2
    body = []
    table = False
    for ln in lines[i:]:
        if ln.startswith(".SH "):
            break
        if ln.startswith('.\\" md: '):
            body.append(ln[len('.\\" md: '):].replace("\\&", "").replace("\\e", "\\"))
            table = True
            continue
        if table:
            table = ln != ".nf"
            continue
        if ln in (".fi", ".nf"):
            continue
        if ln.startswith(".SS "):
            body.append("## " + ln[4:])
            continue
        body.append(ln.replace("\\&", "").replace("\\e", "\\"))
    while body and body[-1] == "":
        body.pop()
    return "\n".join(body)


def check_man(tracekit, mandir, libmd):
    """a page per command of --help, each the command's --help text, and
    tracekit(3) docs/library.md; groff reads every page without a warning"""
    fails = []
    main_help = run([tracekit, "--help"])
    cmds = []
    table = main_help.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    for ln in table.splitlines():
        cmds.append(ln.split()[0])
    pages = [("tracekit", 1, main_help)] + \
        [("tracekit-" + c, 1, run([tracekit, c, "--help"])) for c in cmds]
    lib = open(libmd).read().split("\n", 1)[1]
    pages.append(("tracekit", 3, lib))
    for name, sec, want in pages:
        path = os.path.join(mandir, "man%d" % sec, "%s.%d" % (name, sec))
        if not os.path.exists(path):
            fails.append("no manual page %s(%d)" % (name, sec))
            continue
        got = man_body(path)
        w = "\n".join(ln if not ln.startswith("#") else "## " + ln.lstrip("# ")
                      for ln in want.rstrip("\n").split("\n"))
        if got != w:
            fails.append("%s: not the text of its source" % path)
        p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path],
                           capture_output=True, text=True,
                           env=dict(os.environ, LC_ALL="C.UTF-8"))
        if p.returncode != 0 or p.stderr:
            fails.append("groff on %s: %s" % (path, p.stderr.strip()[:300]))
    if len(pages) < 8:
        fails.append("only %d manual pages" % len(pages))
    return fails


def doc_block(cmake, root, build, work, extra, demo):
    """docs/library.md's first sh block as a user types it, HOME in WORKDIR:
    `make install PREFIX=$HOME/.local` as the Makefile runs it (its
    install recipe, without the build and the packages before it), then
    each line as written, on examples/c/worst_rt.c as prog.c; the
    programs run.  tracekit.pc named /usr/local whatever PREFIX was."""
    fails = []
    md = open(os.path.join(root, "docs", "library.md")).read()
    block = md.split("## Building and linking", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    mk = open(os.path.join(root, "Makefile")).read()
    recipe = mk.split("\ninstall:", 1)[1].split("\n\t", 1)[1].split("\n", 1)[0]
    home = os.path.join(work, "home")
    os.makedirs(home)
    shutil.copy(os.path.join(root, "examples", "c", "worst_rt.c"), os.path.join(home, "prog.c"))
    lines = block.replace("\\\n", " ").strip().split("\n")
    if not lines[0].startswith("make install PREFIX="):
        return ["docs/library.md: the first sh block does not start with make install PREFIX=: %r" % lines[0]]
    prefix = lines[0].split("=", 1)[1]
    lines[0] = recipe.replace("$(BUILD)", build).replace("$(PREFIX)", prefix).replace("$(CMAKE)", cmake)
    env = dict(os.environ, HOME=home, CFLAGS=" ".join(extra))
    env.pop("PKG_CONFIG_PATH", None)
    env.pop("PKG_CONFIG_SYSROOT_DIR", None)
    # each cc line with the build's own flags (a sanitizer's), its program
    # run on the demo
    script = "set -e\ncd \"$HOME\"\n"
    for k, ln in enumerate(lines):
        if ln.startswith("cc "):
            ln = ln.replace("-o prog", "$CFLAGS -o prog%d" % k)
        script += ln + "\n"
    p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return ["docs/library.md's sh block, run as written: exit %d\n%s\n%s%s"
                % (p.returncode, script, p.stdout[-1500:], p.stderr[-1500:])]
    pc = open(os.path.join(home, ".local", "lib", "pkgconfig", "tracekit.pc")).read()
    if "prefix=" + os.path.join(home, ".local") + "\n" not in pc:
        fails.append("tracekit.pc installed under PREFIX=$HOME/.local names another prefix:\n" + pc)
    renv = dict(env, LD_LIBRARY_PATH=os.path.join(home, ".local", "lib"))
    outs = []
    for k, ln in enumerate(lines):
        if ln.startswith("cc "):
            q = subprocess.run([os.path.join(home, "prog%d" % k), demo],
                               capture_output=True, text=True, env=renv)
            if q.returncode != 0 or not q.stdout:
                fails.append("prog%d of %r: exit %d %s" % (k, ln, q.returncode, q.stderr[-300:]))
            outs.append(q.stdout)
    if len(outs) != 2 or outs[0] != outs[1]:
        fails.append("the block's programs (shared and static) differ or are not 2: %r" % outs)
    return fails


def main():
    cmake, cc, root, build, work, shared = sys.argv[1:7]
    extra = os.environ.get("TK_EXTRA_CFLAGS", "").split()
    if os.path.exists(work):
        shutil.rmtree(work)
    dest = os.path.join(work, "root")
    env = dict(os.environ, DESTDIR=dest)
    run([cmake, "--install", build, "--prefix", PREFIX], env=env)
    inst = dest + PREFIX
    fails = []
    for f in ["bin/tracekit", "lib/libtracekit.a", "lib/libtracekit.so",
              "lib/libtracekit.so.0", "include/tracekit/tracekit.h",
              "include/tracekit/analysis.h", "lib/pkgconfig/tracekit.pc",
              "lib/cmake/tracekit/tracekitConfig.cmake",
              "lib/cmake/tracekit/tracekitConfigVersion.cmake"] + \
            ["include/tracekit/" + h for h in
             sorted(os.listdir(os.path.join(root, "include", "tracekit")))
             if h.endswith(".h")]:
        if not os.path.exists(os.path.join(inst, f)):
            fails.append("not installed: " + f)
    if fails:
        print("\n".join(fails))
        return 1
    tracekit = os.path.join(inst, "bin", "tracekit")
    fails += doc_block(cmake, root, build, work, extra,
                       os.path.join(root, "examples", "demo.btf"))
    fails += check_man(tracekit, os.path.join(inst, "share", "man"),
                       os.path.join(root, "docs", "library.md"))
    pc = dict(os.environ, PKG_CONFIG_PATH=os.path.join(inst, "lib", "pkgconfig"),
              PKG_CONFIG_SYSROOT_DIR=dest, PKG_CONFIG_LIBDIR="/nonexistent")
    # pkg-config finds the system's zlib, zstd ... through their own .pc
    pc["PKG_CONFIG_LIBDIR"] = run(["pkg-config", "--variable", "pc_path", "pkg-config"]).strip()
    cflags = run(["pkg-config", "--cflags", "tracekit"], env=pc).split()
    libs = run(["pkg-config", "--libs", "tracekit"], env=pc).split()
    slibs = [x for x in run(["pkg-config", "--static", "--libs", "tracekit"], env=pc).split()
             if x != "-ltracekit"]
    if not any(x.startswith("-I" + dest) for x in cflags):
        fails.append("pkg-config --cflags does not point into the install: %s" % cflags)
    progs = {}
    for name in ("worst_rt", "shark_to_btf", "build_trace"):
        src = os.path.join(root, "examples", "c", name + ".c")
        for kind, link in (("shared", libs),
                           ("static", [os.path.join(inst, "lib", "libtracekit.a")] + slibs)):
            exe = os.path.join(work, "%s-%s" % (name, kind))
            run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"] + cflags +
                [src, "-o", exe] + link + extra)
            progs[(name, kind)] = exe
    # CMake: find_package(tracekit) and tracekit::tracekit
    proj = os.path.join(work, "cmake-consumer")
    os.makedirs(proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(consumer C)\n"
                "find_package(tracekit 0.1 REQUIRED)\n"
                "add_executable(worst_rt %s)\n"
                "target_link_libraries(worst_rt PRIVATE tracekit::tracekit)\n"
                % os.path.join(root, "examples", "c", "worst_rt.c"))
    run([cmake, "-S", proj, "-B", os.path.join(proj, "b"), "-DCMAKE_C_COMPILER=" + cc,
         "-DCMAKE_PREFIX_PATH=" + inst, "-DCMAKE_C_FLAGS=" + " ".join(extra)])
    run([cmake, "--build", os.path.join(proj, "b")])
    progs[("worst_rt", "cmake")] = os.path.join(proj, "b", "worst_rt")
    renv = dict(os.environ, LD_LIBRARY_PATH=os.path.join(inst, "lib"))
    # the shared programs load the installed library
    ldd = run(["ldd", progs[("worst_rt", "shared")]], env=renv)
    if os.path.join(inst, "lib", "libtracekit.so.0") not in ldd:
        fails.append("worst_rt-shared does not load the installed libtracekit.so.0:\n" + ldd)
    shark = os.path.join(shared, "corpus", "shark", "shark-demo-trace.bin")
    traces = [os.path.join(root, "examples", "demo.btf"),
              os.path.join(root, "tests", "formats", "htf", "ok", "dialects.htf"),
              os.path.join(root, "tests", "exports", "ctf", "third_ns.atf")]
    if os.path.exists(shark):
        traces.append(shark)
    nrt = 0
    for t in traces:
        want = rt_rows(tracekit, t)
        nrt += len(want)
        for kind in ("shared", "static", "cmake"):
            got = {}
            for line in run([progs[("worst_rt", kind)], t], env=renv).splitlines():
                name, mx, n = line.rsplit(None, 2)
                got[name] = (mx, n)
            if got != want:
                fails.append("worst_rt-%s %s: %s, stats says %s" % (kind, t, got, want))
    if nrt == 0:
        fails.append("no RT rows in %s" % traces)
    # a filtered conversion equals `tracekit convert --entity`
    src = shark if os.path.exists(shark) else traces[0]
    names = ["task1", "task3"] if src == shark else ["Task_Control", "Isr_CAN"]
    want = os.path.join(work, "want.btf")
    run([tracekit, "convert", src, want] + [a for n in names for a in ("--entity", n)])
    for kind in ("shared", "static"):
        out = os.path.join(work, "got-%s.btf" % kind)
        n = int(run([progs[("shark_to_btf", kind)], src, out] + names, env=renv))
        with open(out, "rb") as a, open(want, "rb") as b:
            if a.read() != b.read():
                fails.append("shark_to_btf-%s: %s differs from tracekit convert's %s" % (kind, out, want))
        if n < 10:
            fails.append("shark_to_btf-%s wrote only %d events" % (kind, n))
    # a trace built in code, in three formats: check finds it clean and
    # stats gives the response times the program built
    for fmt in ("btf", "htf", "atf"):
        for kind in ("shared", "static"):
            out = os.path.join(work, "built-%s.%s" % (kind, fmt))
            run([progs[("build_trace", kind)], out], env=renv)
            p = subprocess.run([tracekit, "check", out], capture_output=True, text=True)
            if p.returncode != 0:
                fails.append("build_trace-%s %s: check exit %d: %s" % (kind, fmt, p.returncode, p.stdout[-300:]))
            rows = {k: v[0] for k, v in rt_rows(tracekit, out).items()}
            if rows != {"T1": "400", "T2": "150"}:
                fails.append("build_trace-%s %s: RT %s, built 400 and 150" % (kind, fmt, rows))
    for f in fails:
        print("FAIL:", f)
    print("%d traces, %d RT rows, programs %s: %d failures"
          % (len(traces), nrt, ", ".join("%s-%s" % k for k in sorted(progs)), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("FAIL:", e)
        sys.exit(1)
