#!/usr/bin/env python3
"""The result of harness.js in a page's DOM (chromium --dump-dom): prints
each failed check and a summary line "NAME: N checks, M failed"; exit 1 when
a check failed, the harness did not finish, or the page logged an error.
usage: harness_result.py DOM NAME"""
import html
import re
import sys

t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
m = re.search(r'<pre id="tk-test">(.*?)</pre>', t, re.S)
lines = html.unescape(m.group(1)).split("\n") if m else ["FAIL: the harness did not finish"]
e = re.search(r'id="tk-errors">([^<]*)<', t)
if e and e.group(1).strip():
    lines.append("FAIL: page errors: " + html.unescape(e.group(1)).strip())
bad = [line for line in lines if not line.startswith("ok: ")]
for line in bad:
    print(sys.argv[2] + ": " + line)
print("%s: %d checks, %d failed" % (sys.argv[2], len(lines), len(bad)))
sys.exit(1 if bad else 0)
