"""dscheck.py - what the check_dataset*.py scripts share: the tables of a
dataset, failures counted and the closing verdict, tracekit run, a
dataset's files read.  (Python puts a script's folder first on its path,
so `from dscheck import ...` finds this file.)"""
import os, subprocess, sys

TABLES = ("events", "instances", "metrics", "load", "traces")
_failed = 0


def fail(msg):
    global _failed
    _failed += 1
    print("FAIL " + msg)


def finish():
    """exit 1 after 'N failures' if any check failed, else print ok"""
    if _failed:
        print("%d failures" % _failed)
        sys.exit(1)
    print("ok")


def runner(tk):
    """run(*args): tracekit TK with args, output captured as text (the
    bytes of a name not UTF-8 as os.fsdecode() gives them)"""
    def run(*a):
        return subprocess.run([tk] + list(a), capture_output=True, text=True,
                              errors="surrogateescape")
    return run


def contents(d, hidden=True):
    """{(table, file name): bytes} of dataset d's files (hidden=False:
    without the names starting with '.')"""
    return {(t, f): open(os.path.join(d, t, f), "rb").read()
            for t in TABLES for f in os.listdir(os.path.join(d, t))
            if hidden or not f.startswith(".")}
