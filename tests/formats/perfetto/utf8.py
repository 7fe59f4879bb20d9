#!/usr/bin/env python3
"""Names that are not UTF-8 in the Perfetto export (issue 21).

usage: utf8.py TRACEKIT

A BTF trace whose task names hold bytes that are not UTF-8 (a lone 0xFF
0xFE, a CESU surrogate ED A0 80, a cut sequence E2 82) is converted: the
JSON must load in Python's strict UTF-8 decoder + json, and in node's
JSON.parse where node is installed; each bad byte is U+FFFD, the valid
'é' kept; one warning counts the strings; --strict refuses (exit 2, one
error line, no file).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BTF = (b"#version 2.2.1\n#timescale ns\n"
       b"0,Core_0,0,T,Task\xff\xfeA,0,start\n"
       b"10,Core_0,0,T,Task\xff\xfeA,0,preempt\n"
       b"10,Core_0,0,T,T\xc3\xa9\xed\xa0\x80,0,start\n"
       b"15,Core_0,0,SIG,Sig\xe2\x82,0,write,v\xc0\xaf\n"
       b"20,Core_0,0,T,T\xc3\xa9\xed\xa0\x80,0,terminate\n"
       b"20,Core_0,0,T,Task\xff\xfeA,0,resume\n"
       b"30,Core_0,0,T,Task\xff\xfeA,0,terminate\n")


def main():
    cli = sys.argv[1]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "bad.btf")
        with open(src, "wb") as f:
            f.write(BTF)
        out = os.path.join(tmp, "bad.json")
        p = subprocess.run([cli, "convert", src, out], capture_output=True, text=True,
                           errors="replace")
        if p.returncode != 0:
            print(f"FAIL: lenient: exit {p.returncode}: {p.stderr}")
            return 1
        if "strings are not UTF-8: their bad bytes are written as U+FFFD" not in p.stderr:
            fails.append(f"no warning: {p.stderr!r}")
        with open(out, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))  # strict decoding
        names = {e["name"] for e in doc["traceEvents"] if e.get("ph") in ("X", "i")}
        for want in ("Task\ufffd\ufffdA", "T\u00e9\ufffd\ufffd\ufffd", "Sig\ufffd\ufffd write"):
            if want not in names:
                fails.append(f"no name {want!r} in {sorted(names)!r}")
        vals = [e["args"].get("value") for e in doc["traceEvents"] if e.get("ph") == "i"]
        if vals != ["v\ufffd\ufffd"]:
            fails.append(f"note {vals!r}")
        node = shutil.which("node") or shutil.which("nodejs")
        if node:
            q = subprocess.run([node, "-e", "const d=JSON.parse(require('fs').readFileSync("
                                "process.argv[1],'utf8'));if(!d.traceEvents.some(e=>e.name"
                                "==='Task\\ufffd\\ufffdA'))process.exit(3)", out],
                               capture_output=True, text=True)
            if q.returncode != 0:
                fails.append(f"node JSON.parse: exit {q.returncode} {q.stderr[-200:]}")
        else:
            print("note: node not installed, JSON.parse not tried")
        out2 = os.path.join(tmp, "strict.json")
        p = subprocess.run([cli, "convert", "--strict", src, out2], capture_output=True,
                           text=True, errors="replace")
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or "is not UTF-8" not in p.stderr:
            fails.append(f"strict: exit {p.returncode}: {p.stderr!r}")
        if os.path.exists(out2):
            fails.append("strict: a file was left")
    for f in fails:
        print("FAIL:", f)
    print(f"utf8: {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
