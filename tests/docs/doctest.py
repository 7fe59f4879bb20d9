#!/usr/bin/env python3
"""Every tracekit command line shown in README.md and docs/*.md runs.

usage: doctest.py ROOT TRACEKIT SHARED

A command line is a line of a fenced code block that starts with
`tracekit `, `build/tracekit ` or `$ tracekit ` (a `# comment` after it is
dropped).  Each runs through `sh -c`, with `tracekit` the binary given, in
a scratch folder that holds the files the docs name (below: FIXTURES);
its standard input is empty unless the line redirects it.  It must exit 0
(`check` may exit 1: violations found) within TIMEOUT seconds, with no
"error:" on its standard error, and every output file it names must exist
and be non-empty.  A line that names a file the scratch folder does not
hold fails: a doc may only show commands that run on the files it names
here.

A code block preceded by `<!-- doctest: skip REASON -->` is not run;
a line listed in SKIP neither (each with its reason).
Exit 0, or 1 with the lines that failed.
"""
import glob
import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120

# the files the docs name -> where they come from (ROOT- or SHARED-relative)
FIXTURES = {
    "trace.btf": "ROOT/examples/demo.btf",
    "trace.btf.gz": "gzip:ROOT/examples/demo.btf",
    "demo.btf": "ROOT/examples/demo.btf",
    "new.btf": "ROOT/examples/demo.btf",
    "timing.yaml": "ROOT/tests/verify/demo_pass.yaml",
    "examples/demo.btf": "ROOT/examples/demo.btf",
    "run.atf": "ROOT/tests/formats/atf/ok/spec_example4.atf",
    "trace.atf": "ROOT/tests/formats/atf/ok/spec_example4.atf",
    "trace.htf": "ROOT/tests/formats/htf/ok/dialects.htf",
    "dump.bin": "SHARED/corpus/shark/shark-demo-trace.bin",
    "trace.bin": "SHARED/corpus/shark/shark-demo-trace.bin",
    "log.tarmac": "SHARED/corpus/tarmac/calltest64.tarmac",
    "prog.elf": "SHARED/corpus/tarmac/elf/calltest64.elf",
}

# command lines that cannot run unattended, and where they are tested
SKIP = {
    "shark-receive": "waits for a UDP sender: tests/formats/shark/receive.sh",
    "live": "serves a page until a signal: tests/live/live_sse.py, live_page.py",
}

# options that take a value as the next word (or as --opt=value)
VALUE_OPTS = {"-o", "--output", "--to", "--from", "--format", "--elf",
              "--weight", "--trace", "--input-option", "--option", "--start",
              "--end", "--entity", "--event", "--type", "--unit", "--window",
              "--top", "--max-errors", "--port", "--bind", "--timeout",
              "--count", "--threads", "--pc", "--mnemonic", "--register",
              "--addr", "--kind", "--cpu", "--idle", "--threshold", "--metric",
              "--line", "--time", "--instr", "--reg", "--len"}


def files(words):
    """(inputs, outputs): the files a command line names."""
    ins, outs, pos = [], [], []
    i = 2
    while i < len(words):
        w = words[i]
        if w == "<" and i + 1 < len(words):
            ins.append(words[i + 1])
            i += 2
        elif w in ("-o", "--output") and i + 1 < len(words):
            if words[i + 1] != "-":
                outs.append(words[i + 1])
            i += 2
        elif w in VALUE_OPTS:
            if w == "--elf" and i + 1 < len(words):
                ins.append(words[i + 1])
            i += 2
        elif w.startswith("-") and w != "-":
            i += 1
        else:
            pos.append(w)
            i += 1
    if len(words) > 1 and words[1] == "convert" and len(pos) >= 2:
        if pos[1] != "-":
            outs.append(pos[1])
        pos = pos[:1]
    if len(words) > 1 and words[1] == "tarmac" and pos[:1] == ["vcd"] and len(pos) >= 3:
        outs.append(pos[2])       # tarmac vcd IN OUT
        pos = pos[:2]
    ins += [w for w in pos if w != "-" and "." in w]
    return ins, outs


def commands(root):
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    for doc in docs:
        lines = open(doc, encoding="utf-8").read().split("\n")
        inblock = skip = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                if inblock:
                    skip = False
                inblock = not inblock
                continue
            if not inblock:
                if re.match(r"<!-- doctest: skip\b", line):
                    skip = True
                continue
            if skip:
                continue
            text = line.strip()
            if text.startswith("$ "):
                text = text[2:]
            m = re.match(r"(build/)?tracekit(\s|$)", text)
            if not m:
                continue
            if m.group(1):
                text = text[len("build/"):]
            yield doc, i + 1, strip_comment(text)


def strip_comment(text):
    """The line without a trailing `# comment` outside quotes."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text.rstrip()


def setup(d, root, shared):
    for name, src in FIXTURES.items():
        path = os.path.join(d, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gz = src.startswith("gzip:")
        src = src[5:] if gz else src
        src = src.replace("ROOT", root).replace("SHARED", shared)
        if gz:
            with open(src, "rb") as f, gzip.open(path, "wb") as g:
                g.write(f.read())
        else:
            shutil.copyfile(src, path)


def main():
    root, cli, shared = (os.path.abspath(a) for a in sys.argv[1:4])
    fails, n, skipped = [], 0, 0
    for doc, line, text in commands(root):
        where = f"{os.path.relpath(doc, root)}:{line}"
        words = shlex.split(text.replace("<", " < "))
        if any(k in words for k in SKIP):
            skipped += 1
            continue
        n += 1
        ins, outs = files(words)
        unknown = [w for w in ins if w not in FIXTURES]
        if unknown:
            fails.append(f"{where}: `{text}` names {', '.join(unknown)}, "
                         "which the doc-test does not hold (tests/docs/doctest.py FIXTURES)")
            continue
        with tempfile.TemporaryDirectory() as d:
            setup(d, root, shared)
            sh = text[len("tracekit"):]
            try:
                p = subprocess.run(["sh", "-c", shlex.quote(cli) + sh], cwd=d,
                                   stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                fails.append(f"{where}: `{text}` ran past {TIMEOUT} s")
                continue
            err = p.stderr.decode("utf-8", "replace")
            ok_codes = (0, 1) if len(words) > 1 and words[1] == "check" else (0,)
            if p.returncode not in ok_codes:
                fails.append(f"{where}: `{text}` exited {p.returncode}: "
                             f"{err.strip().splitlines()[0] if err.strip() else ''}")
                continue
            if "error:" in err:
                fails.append(f"{where}: `{text}` wrote an error: {err.strip()}")
                continue
            for o in outs:
                po = os.path.join(d, o)
                if not os.path.exists(po) or (os.path.isfile(po) and os.path.getsize(po) == 0):
                    fails.append(f"{where}: `{text}` did not write {o}")
    for f in fails:
        print("FAIL:", f)
    print(f"{n} command lines run, {skipped} skipped, {len(fails)} failures")
    return 1 if fails or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
