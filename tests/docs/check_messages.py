#!/usr/bin/env python3
"""check_messages.py ROOT - the library's messages name no command-line flag.

A library user has no flags: a string literal of the library (src/ outside
src/cli/, comments left out) that holds "--x" (a long option) or names a
tracekit command ('tracekit formats') is printed, and the check fails.  So
is any line of a page template the library writes whole (a .html under
src/ outside src/cli/: the report's page, whose text and comments are all
in every page).  The
CLI says the library's phrases in its flags' words (cli_words in
src/cli/cli_util.c): each phrase it rewrites must be one the library says,
or the command would silently lose the hint.  Exit 1 on any failure.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
src = os.path.join(root, "src")
cli = os.path.join(src, "cli")

COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                     re.S)
STRING = re.compile(r'"((?:\\.|[^"\\\n])*)"')
FLAG = re.compile(r'(?<![-\w])--[a-z]')
COMMAND = re.compile(r"'tracekit [a-z]")


def strip_comments(text):
    def keep(m):
        s = m.group(0)
        if s.startswith('/'):
            return '\n' * s.count('\n')  # keep the line numbers
        return s
    return COMMENT.sub(keep, text)


bad = 0
literals = []
for d, subdirs, files in os.walk(src):
    subdirs.sort()
    if d == cli or d.startswith(cli + os.sep):
        continue
    for name in sorted(files):
        path = os.path.join(d, name)
        if name.endswith('.html'):
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    if FLAG.search(line) or COMMAND.search(line):
                        print("%s:%d: a page the library writes names a flag "
                              "or command: %s" % (os.path.relpath(path, root),
                                                  no, line.strip()[:120]))
                        bad = 1
            continue
        if not name.endswith(('.c', '.h')):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for m in STRING.finditer(text):
            s = m.group(1)
            literals.append(s)
            if FLAG.search(s) or COMMAND.search(s):
                line = text.count('\n', 0, m.start()) + 1
                print("%s:%d: a library message names a flag or command: \"%s\""
                      % (os.path.relpath(path, root), line, s))
                bad = 1

# the CLI's phrases: each left one occurs in a library literal
with open(os.path.join(cli, "cli_util.c"), encoding="utf-8") as f:
    text = f.read()
m = re.search(r'cli_words\[\] = \{(.*?)\n\};', text, re.S)
if not m:
    print("src/cli/cli_util.c: no cli_words table")
    sys.exit(1)
pairs = re.findall(r'\{\s*"((?:\\.|[^"\\])*)",\s*"((?:\\.|[^"\\])*)"\s*\}', m.group(1))
if not pairs:
    print("src/cli/cli_util.c: cli_words is empty")
    bad = 1
joined = "\n".join(literals)
for lib, cmd in pairs:
    lib = lib.replace('\\"', '"')
    if lib not in joined:
        print("src/cli/cli_util.c: cli_words: the library never says \"%s\" "
              "(the hint \"%s\" is lost)" % (lib, cmd))
        bad = 1
    if FLAG.search(lib):
        print("src/cli/cli_util.c: cli_words: \"%s\" names a flag" % lib)
        bad = 1
sys.exit(bad)
