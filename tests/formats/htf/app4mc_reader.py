#!/usr/bin/env python3
"""Our HTF as APP4MC's HTF reader reads it (issue 37, 11).

usage: app4mc_reader.py TRACEKIT INPUT...

APP4MC's converter (org.eclipse.app4mc.tracing.converter,
Htf2Ot1Converter.java) splits an HTF file at fixed keywords, case
sensitive: the header ends at `#TypeTable`, the tables at `#Tracedata`,
and the tables are cut, in this order, at `#TaskEventTable`,
`#ISREventTable`, `#RunnableEventTable`, `#CodeBlockEventTable`,
`#SignalEventTable`, `#SemaphoreEventTable`, `#EntityTable`,
`#EntityTypeTable`; a keyword that is missing makes it fail.  Names are
matched without case against its enums; the data is split at `#-` into
core sections of fixed-width hex records.

This script does the same on the HTF that `tracekit convert` writes from
each INPUT (and from an HTF written from it again): every keyword found in
order, every type and event table complete with the spec's names, every
record's entity typed and its event id in its type's table, and as many
records as the trace has events in HTF.
"""
import os
import re
import subprocess
import sys
import tempfile

TABLES = ["TaskEventTable", "ISREventTable", "RunnableEventTable",
          "CodeBlockEventTable", "SignalEventTable", "SemaphoreEventTable"]
TYPES = ["TASK", "ISR", "RUNNABLE", "CODEBLOCK", "SIGNAL", "SEMAPHORE"]
EVENTS = {
    "TASK": ["ACTIVATE", "START", "RESUME", "PREEMPT", "TERMINATE", "WAIT", "RELEASE",
             "POLL", "RUN_POLLING", "PARK", "POLL_PARKING", "RELEASE_PARKING"],
    "ISR": ["START", "RESUME", "PREEMPT", "TERMINATE"],
    "RUNNABLE": ["START", "SUSPEND", "RESUME", "TERMINATE"],
    "CODEBLOCK": ["START", "STOP"],
    "SIGNAL": ["READ", "WRITE"],
    "SEMAPHORE": ["LOCK", "UNLOCK"],
}


def cut(text, key):
    """Java's Scanner.useDelimiter(key).next(): the text before the key
    (which must be there) and the rest after it."""
    i = text.find(key)
    if i < 0:
        raise ValueError("no %s" % key)
    return text[:i], text[i + len(key):]


def rows(part, enum):
    out = {}
    for line in part.splitlines():
        line = line.strip()
        if not line.startswith("#-"):
            continue
        ident, _, value = line[2:].partition(" ")
        if enum is None or value.upper() in enum:
            out[int(ident, 16)] = value.upper() if enum is not None else value
    return out


def read(text):
    header, rest = cut(text, "#TypeTable")
    hdr = {}
    for line in header.splitlines():
        k, _, v = line.partition(" ")
        hdr[k.lstrip("#").upper()] = v
    tables, data = cut(rest, "#Tracedata")
    part, tables = cut(tables, "#" + TABLES[0])
    types = rows(part, TYPES)
    ev = {}
    for k, name in enumerate(TABLES):
        nxt = "#" + TABLES[k + 1] if k + 1 < len(TABLES) else "#EntityTable"
        part, tables = cut(tables, nxt)
        ev[TYPES[k]] = rows(part, EVENTS[TYPES[k]])
    part, tables = cut(tables, "#EntityTypeTable")
    ents = rows(part, None)
    etypes = {e: types[int(t, 16)] for e, t in rows(tables, None).items()}
    tl, el, vl = (2 * int(hdr[k]) for k in ("TIMESTAMPLENGTH", "ENTITYLENGTH", "EVENTLENGTH"))
    n = 0
    for sec in data.split("#-")[1:]:
        words = sec.split()
        int(words[0], 16)
        for rec in words[1:]:
            if len(rec) != tl + el + vl:
                raise ValueError("record %r" % rec)
            ent, evid = int(rec[tl:tl + el], 16), int(rec[tl + el:], 16)
            if ent not in ents or etypes[ent] not in ev or evid not in ev[etypes[ent]]:
                raise ValueError("record %r: entity or event unknown" % rec)
            n += 1
    if sorted(types.values()) != sorted(TYPES) or \
            any(sorted(ev[t].values()) != sorted(EVENTS[t]) for t in TYPES):
        raise ValueError("incomplete tables: %r %r" % (types, ev))
    return n


def main():
    tk = sys.argv[1]
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        for k, src in enumerate(sys.argv[2:]):
            if not os.path.exists(src):
                print("skip (absent):", src)
                continue
            one = os.path.join(d, "%d.htf" % k)
            two = os.path.join(d, "%d.again.htf" % k)
            for inp, out in ((src, one), (one, two)):
                r = subprocess.run([tk, "convert", "-q", inp, out], capture_output=True, text=True)
                if r.returncode != 0:
                    print("FAIL %s: convert: %s" % (inp, r.stderr.strip()))
                    fails += 1
                    break
                text = open(out, encoding="utf-8", errors="replace").read()
                info = subprocess.run([tk, "info", "--format", "json", out],
                                      capture_output=True, text=True).stdout
                m = re.search(r'"events":\s*(\d+)', info)
                try:
                    n = read(text)
                except (ValueError, KeyError) as e:
                    print("FAIL %s: as APP4MC reads it: %s" % (src, e))
                    fails += 1
                    break
                if not m or int(m.group(1)) != n:
                    print("FAIL %s: %d records, tracekit info says %s" % (src, n, m and m.group(1)))
                    fails += 1
                    break
            else:
                print("ok", src)
    return 1 if fails else 0


sys.exit(main())
