#!/usr/bin/env python3
"""One UTF-8 rule for every writer (docs/exports.md, "Text"): a BTF whose
names, note and header value hold bytes that are not UTF-8 converts to
every writable format with one warning that counts the strings, and each
output is UTF-8 (its readers decode it strictly: Python's sqlite3 reads
entity.name, babeltrace2 reads the CTF, the text formats decode, the
strings of a binary one are UTF-8 among its bytes); VCD
writes every byte outside '!'..'~' as '_'.  --strict refuses each, leaving
no output.  The BTF reader's encoding option reads a Latin-1 or Windows-
1252 file as UTF-8 (no warning, the names as meant).  OUT naming IN (a
link to it, or the file on standard input) is refused for every writer.

Usage: utf8_writers.py TRACEKIT"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
failures = []

TASKS = (b'#version 2.3.0\n#creator M\xfcller\n#timescale ns\n'
         b'0,Core_1,0,T,T\xe2che_\xff,0,activate\n'
         b'0,Core_1,0,T,T\xe2che_\xff,0,start\n'
         b'9,Core_1,0,T,T\xe2che_\xff,0,terminate\n'
         b'9,Core_1,0,T,S\xc3\xa9g,0,activate\n'
         b'10,Core_1,0,T,S\xc3\xa9g,0,start\n'
         b'12,Core_1,0,T,S\xc3\xa9g,0,terminate\n')
# and a signal's note (which HTF and ATF cannot hold: lenient drops it)
BAD = TASKS + b'12,S\xc3\xa9g,0,SIG,Sig,0,write,v\xe9\n'
FIXED = 'T\ufffdche_\ufffd'   # each bad byte one U+FFFD; valid UTF-8 kept

# every format written, by the first extension of its name (the registry:
# a format added needs no line here)
WRITERS = [r['extensions'].split()[0] for r in csv.DictReader(io.StringIO(
    subprocess.run([CLI, 'formats', '--format', 'csv'], check=True,
                   stdout=subprocess.PIPE).stdout.decode()))
    if r['write'] == 'yes']

def run(args):
    return subprocess.run([CLI] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)

def text_of(path):
    """The output's text, strictly decoded (a CTF: metadata + babeltrace2)."""
    if os.path.isdir(path):
        with open(os.path.join(path, 'metadata'), 'rb') as f:
            text = f.read().decode('utf-8')
        if shutil.which('babeltrace2'):
            p = subprocess.run(['babeltrace2', path], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            if p.returncode != 0:
                raise ValueError('babeltrace2: ' + p.stderr.decode(errors='replace'))
            text += p.stdout.decode('utf-8')
        return text
    if path.endswith('.sqlite'):
        db = sqlite3.connect(path)   # text_factory str: strict UTF-8
        try:
            names = [r[0] for r in db.execute('SELECT name FROM entity')]
            names += [r[0] for r in db.execute('SELECT value FROM traceEvent WHERE value IS NOT NULL')]
            names += [r[0] for r in db.execute("SELECT value FROM header WHERE value IS NOT NULL")]
        finally:
            db.close()
        return '\n'.join(names)
    with open(path, 'rb') as f:
        data = f.read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        # a binary format (Parquet): its strings are UTF-8 among its
        # bytes (a bad byte written as it came is dropped here, so it
        # does not pass for its U+FFFD)
        if b'\0' not in data:
            raise
        return data.decode('utf-8', 'ignore')
    if path.endswith('.json'):
        text = json.dumps(json.loads(text), ensure_ascii=False)
    return text

with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, 'bad.btf')
    with open(src, 'wb') as f:
        f.write(BAD)
    tasks = os.path.join(tmp, 'tasks.btf')
    with open(tasks, 'wb') as f:
        f.write(TASKS)
    for fmt in WRITERS:
        out = os.path.join(tmp, 'out.' + fmt)
        p = run(['convert', src, out])
        err = p.stderr.decode(errors='replace')
        if p.returncode != 0:
            failures.append('%s: exit %d: %s' % (fmt, p.returncode, err))
            continue
        if err.count('strings are not UTF-8: their bad bytes are written as') != 1:
            failures.append('%s: not one warning that counts the strings: %s' % (fmt, err))
        try:
            text = text_of(out)
        except (UnicodeDecodeError, ValueError, sqlite3.Error) as e:
            failures.append('%s: output not read as UTF-8: %s' % (fmt, e))
            continue
        if fmt == 'vcd':
            if 'T_che__' not in text:
                failures.append('vcd: the name not written with _ for each byte')
        elif FIXED not in text:
            failures.append('%s: %r not in the output' % (fmt, FIXED))
        if fmt != 'vcd' and 'S\u00e9g' not in text:
            failures.append('%s: valid UTF-8 not kept' % fmt)
        # --strict refuses, no output left
        sout = os.path.join(tmp, 'strict.' + fmt)
        p = run(['convert', '--strict', tasks, sout])
        err = p.stderr.decode(errors='replace')
        if p.returncode != 2 or 'is not UTF-8' not in err and 'are not UTF-8' not in err:
            failures.append('%s --strict: exit %d: %s' % (fmt, p.returncode, err))
        if os.path.exists(sout):
            failures.append('%s --strict: output left behind' % fmt)
        left = [n for n in os.listdir(tmp) if '.tmp-' in n]
        if left:
            failures.append('%s: temporaries left: %r' % (fmt, left))

    # the same bytes as Latin-1 / Windows-1252: names as meant, no warning
    for enc, name, note in (('latin1', 'T\u00e2che_\u00ff', 'v\u00e9'),
                            ('cp1252', 'T\u00e2che_\u00ff', 'v\u00e9')):
        out = os.path.join(tmp, 'enc-%s.sqlite' % enc)
        p = run(['convert', '--strict', '--input-option', 'encoding=' + enc, src, out])
        if p.returncode != 0 or p.stderr:
            failures.append('encoding=%s: exit %d: %s' % (enc, p.returncode,
                                                         p.stderr.decode(errors='replace')))
            continue
        db = sqlite3.connect(out)
        names = {r[0] for r in db.execute('SELECT name FROM entity')}
        notes = {r[0] for r in db.execute('SELECT value FROM traceEvent WHERE value IS NOT NULL')}
        creator = db.execute("SELECT value FROM metaInformation WHERE name = 'creator'").fetchone()
        db.close()
        # (0xC3 0xA9 is two characters in either code page)
        if name not in names or 'S\u00c3\u00a9g' not in names:
            failures.append('encoding=%s: names %r' % (enc, sorted(names)))
        if notes != {note}:
            failures.append('encoding=%s: notes %r' % (enc, notes))
        if creator != ('M\u00fcller',):
            failures.append('encoding=%s: creator %r' % (enc, creator))
    # Windows-1252's own characters
    cp = os.path.join(tmp, 'cp.btf')
    with open(cp, 'wb') as f:
        f.write(b'#version 2.3.0\n#timescale ns\n0,Core_1,0,T,\x80\x9c\x81,0,start\n')
    p = run(['cat', '--input-option', 'encoding=cp1252', cp])
    if p.returncode != 0 or '\u20ac\u0153\u0081,' not in p.stdout.decode('utf-8'):
        failures.append('encoding=cp1252: %r' % p.stdout)

# OUT naming IN itself (or a link to it) is refused for every writer, with
# one error, the trace kept (it was replaced by its own conversion)
with tempfile.TemporaryDirectory() as tmp:
    for ext in WRITERS:
        if ext == 'ctf':
            continue    # a directory, and OUT must not exist
        src = os.path.join(tmp, 'self.' + ext)
        with open(src, 'wb') as f:
            f.write(TASKS)
        link = os.path.join(tmp, 'link.' + ext)
        os.symlink('self.' + ext, link)
        for out in (src, link):
            p = run(['convert', '-q', '--from', 'btf', '--to', ext, src, out])
            with open(src, 'rb') as f:
                kept = f.read() == TASKS
            if p.returncode != 2 or len(p.stderr.splitlines()) != 1 or not kept:
                failures.append('convert to %s over its input (%s): exit %d, kept %s: %r'
                                % (ext, os.path.basename(out), p.returncode, kept, p.stderr))
                with open(src, 'wb') as f:
                    f.write(TASKS)
        os.remove(link)
    # and standard input read from OUT
    src = os.path.join(tmp, 'self.btf')
    with open(src, 'wb') as f:
        f.write(TASKS)
    with open(src, 'rb') as f:
        p = subprocess.run([CLI, 'convert', '-q', '--from', 'btf', '-', src],
                           stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(src, 'rb') as f:
        kept = f.read() == TASKS
    if p.returncode != 2 or len(p.stderr.splitlines()) != 1 or not kept:
        failures.append('convert - OUT < OUT: exit %d, kept %s: %r' % (p.returncode, kept, p.stderr))

for f in failures:
    print('FAIL:', f)
if failures:
    sys.exit(1)
print('ok: every writer: bad bytes as U+FFFD with one warning, --strict refuses; encoding=latin1|cp1252')
