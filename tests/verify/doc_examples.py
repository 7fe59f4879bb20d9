#!/usr/bin/env python3
"""verify.doc_examples: the requirements examples of docs/verify.md hold.

usage: doc_examples.py TRACEKIT ROOT

Each ```yaml block of docs/verify.md preceded by `<!-- verify: TRACE -->`
is a requirements file that holds on TRACE: `tracekit verify TRACE -r
BLOCK` must exit 0.  There must be one for each kind of subject (entity,
entities, type, chain, load).  The verdict lines the doc quotes
("examples/demo.btf: FAIL ...") must be lines that verify writes for
tests/verify/demo_fail.yaml.
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    cli, root = sys.argv[1], sys.argv[2]
    text = open(os.path.join(root, "docs", "verify.md"), encoding="utf-8").read()
    blocks = re.findall(r"<!-- verify: (\S+) -->\n```yaml\n(.*?)```", text, re.S)
    fails = []
    kinds = set()
    with tempfile.TemporaryDirectory() as tmp:
        for k, (trace, body) in enumerate(blocks):
            for key in ("entity", "entities", "type", "chain", "load"):
                if re.search(r"^\s*(- )?%s:" % key, body, re.M):
                    kinds.add(key)
            path = os.path.join(tmp, "example%d.yaml" % k)
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
            p = subprocess.run([cli, "verify", trace, "-r", path], cwd=root,
                               capture_output=True, text=True)
            if p.returncode != 0:
                fails.append("example %d on %s: exit %d\n%s%s" %
                             (k + 1, trace, p.returncode, p.stdout, p.stderr))
    missing = {"entity", "entities", "type", "chain", "load"} - kinds
    if missing:
        fails.append("no example of: " + ", ".join(sorted(missing)))
    p = subprocess.run([cli, "verify", "examples/demo.btf", "-r",
                        "tests/verify/demo_fail.yaml"], cwd=root,
                       capture_output=True, text=True)
    quoted = [l for l in text.split("\n") if l.startswith("examples/demo.btf: ")]
    if not quoted:
        fails.append("the doc quotes no verdict line")
    for line in quoted:
        if line not in p.stdout.split("\n"):
            fails.append("a verdict line of the doc is not verify's: " + line)
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print("ok: %d examples hold, %d verdict lines are verify's" % (len(blocks), len(quoted)))
    return 1 if fails else 0


sys.exit(main())
