#!/usr/bin/env python3
"""Writes src/cli/report_page.c from src/report/report.html.

The page template is kept as a real HTML file so that it can be edited and
opened as such; this script turns it into the two C strings that
`tracekit report` writes around its data (split at the /*TK_DATA*/ marker).
Run it after editing the template: python3 scripts/embed_report.py
(tests/report/embed_fresh.sh fails when the two disagree).
"""
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = os.path.join(root, "src", "report", "report.html")
dst = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "src", "cli", "report_page.c")
text = open(src, encoding="utf-8").read()
head, tail = text.split("/*TK_DATA*/")


def cstr(s):
    out = []
    for line in s.splitlines(keepends=True):
        esc = "".join("\\\\" if c == "\\" else '\\"' if c == '"' else "\\n" if c == "\n"
                      else c if 0x20 <= ord(c) < 0x7f else
                      "".join("\\%03o" % b for b in c.encode("utf-8"))
                      for c in line)
        out.append('\t"' + esc + '"')
    return "\n".join(out) if out else '\t""'


with open(dst, "w", encoding="utf-8") as f:
    f.write("/* report_page.c - GENERATED from src/report/report.html by\n"
            " * scripts/embed_report.py: edit the template and re-run the script. */\n"
            '#include "report_page.h"\n\n'
            "const char tk_report_page_head[] =\n" + cstr(head) + ";\n\n"
            "const char tk_report_page_tail[] =\n" + cstr(tail) + ";\n")
