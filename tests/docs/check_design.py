#!/usr/bin/env python3
"""docs/design.md's table of the format operations lists every field.

usage: check_design.py ROOT

Every field of `struct tk_format_ops` (src/core/internal.h) has a row in
the table under "## The format table" of docs/design.md (its first cell
names it in backquotes, as `name` or `name(...)`), and the table names no
field the struct does not have.
"""
import os
import re
import sys


def main():
    root = sys.argv[1]
    hdr = open(os.path.join(root, "src/core/internal.h"), encoding="utf-8").read()
    m = re.search(r"struct tk_format_ops \{(.*?)\n\};", hdr, re.S)
    if not m:
        print("FAIL: no struct tk_format_ops in src/core/internal.h")
        return 1
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    fields = set(re.findall(r"\(\*(\w+)\)", body))
    for decl in body.split(";"):
        decl = re.sub(r"\(\*\w+\)\s*\(.*", "", decl, flags=re.S).strip()
        w = re.findall(r"\w+", decl)
        if len(w) >= 2 and "(" not in decl:
            fields.add(w[-1])
    doc = open(os.path.join(root, "docs/design.md"), encoding="utf-8").read()
    sec = doc.split("\n## The format table\n", 1)
    if len(sec) != 2:
        print("FAIL: docs/design.md has no '## The format table'")
        return 1
    named = set()
    for line in sec[1].split("\n## ", 1)[0].splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            named |= {n.split(".")[0] for n in re.findall(r"`(\w+(?:\.\w+)?)", first)}
    fails = ["the field '%s' of tk_format_ops has no row in docs/design.md" % f
             for f in sorted(fields - named)]
    fails += ["docs/design.md's table names '%s', which tk_format_ops does not have" % f
              for f in sorted(named - fields)]
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("docs/design.md: the %d fields of tk_format_ops" % len(fields))
    return 1 if fails else 0


sys.exit(main())
