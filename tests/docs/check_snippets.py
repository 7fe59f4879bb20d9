#!/usr/bin/env python3
"""The code blocks of the docs that say where they come from are still there.

usage: check_snippets.py ROOT

In README.md and docs/*.md, a fenced code block preceded by the line
`<!-- snippet: PATH -->` must be a run of whole lines of PATH (relative to
ROOT), exactly.  The examples themselves are compiled and run by their own
tests, so a block that passes here cannot have rotted.  Exit 0, or 1 with
the blocks that differ.
"""
import glob
import os
import re
import sys


def main():
    root = sys.argv[1]
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    fails, n = [], 0
    for doc in docs:
        lines = open(doc, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = re.fullmatch(r"<!-- snippet: (\S+) -->", lines[i])
            if not m:
                i += 1
                continue
            start = i + 1
            if start >= len(lines) or not lines[start].startswith("```"):
                fails.append(f"{doc}:{i + 1}: no code block after the marker")
                i += 1
                continue
            end = start + 1
            while end < len(lines) and lines[end] != "```":
                end += 1
            block = lines[start + 1:end]
            path = os.path.join(root, m.group(1))
            n += 1
            try:
                src = open(path, encoding="utf-8").read().split("\n")
            except OSError as e:
                fails.append(f"{doc}:{i + 1}: {e}")
                i = end + 1
                continue
            if not any(src[k:k + len(block)] == block
                       for k in range(len(src) - len(block) + 1)):
                fails.append(f"{doc}:{start + 1}: the block is not in {m.group(1)}")
            i = end + 1
    for f in fails:
        print("FAIL:", f)
    print(f"{n} snippets, {len(fails)} failures")
    return 1 if fails or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
