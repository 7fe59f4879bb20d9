#!/usr/bin/env python3
"""README's table of formats says what the registry says.

usage: check_formats.py TRACEKIT README.md

Every format of `tracekit formats --format csv` has a row in README's
"## Formats" table, whose first cell starts with the format's name in
backquotes, and whose read and write cells (yes or -) are the registry's;
no row names a format the registry does not have.
"""
import csv
import io
import re
import subprocess
import sys


def main():
    cli, readme = sys.argv[1:3]
    out = subprocess.run([cli, "formats", "--format", "csv"], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    reg = {r["format"]: r for r in csv.DictReader(io.StringIO(out))}
    text = open(readme, encoding="utf-8").read()
    sec = text.split("\n## Formats\n", 1)
    if len(sec) != 2:
        print("FAIL: README.md has no '## Formats' section")
        return 1
    rows = {}
    for line in sec[1].split("\n## ", 1)[0].splitlines():
        m = re.match(r"\|\s*`([a-z0-9_]+)`[^|]*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    fails = []
    for name, r in reg.items():
        want = ("yes" if r["read"] == "yes" else "-", "yes" if r["write"] == "yes" else "-")
        if name not in rows:
            fails.append("format '%s' has no row in README's table" % name)
        elif rows[name] != want:
            fails.append("README says %s reads/writes %s, the registry %s" % (name, rows[name], want))
    for name in rows:
        if name not in reg:
            fails.append("README's table names '%s', which the registry does not have" % name)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("README's table: %d formats, as the registry" % len(reg))
    return 1 if fails else 0


sys.exit(main())
