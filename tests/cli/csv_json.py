#!/usr/bin/env python3
"""Every command that writes CSV or JSON writes text from the input (names
of the trace, mnemonics and exception names of a Tarmac log) through one
CSV field writer (RFC 4180 quoting) and one JSON string writer
(src/cli/cli_util.c): the output of info, stats and load (--format json /
csv) on a BTF whose names hold commas, quotes, backslashes, control
characters, valid UTF-8 and a byte that is not UTF-8, and of a Tarmac
log's stats, must parse with Python's csv and json modules (from strictly
decoded UTF-8) and give the names back (the bad byte as U+FFFD).

Usage: csv_json.py TRACEKIT"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
failures = []

# entity names: by mapping (a comma cannot be in a BTF field) and in the
# fields themselves (quote, backslash, tab, control bytes, UTF-8, 0xff)
TASK_A = 'Task,1'
CORE_A = 'Co,re "1"'
TASK_B_RAW = b'Tab\there\\\\q"x\x01\x7f\xc3\xa9\xff'
TASK_B = 'Tab\there\\\\q"x\x01\x7f\u00e9\ufffd'
BTF = (b'#version 2.3.0\n#timescale ns\n'
       b'#entityMapping 7 ' + TASK_A.encode() + b'\n'
       b'#entityMapping 8 ' + CORE_A.encode() + b'\n'
       b'0,8,0,T,7,0,activate\n0,8,0,T,7,0,start\n'
       b'5,Core_2,0,T,' + TASK_B_RAW + b',0,activate\n'
       b'6,Core_2,0,T,' + TASK_B_RAW + b',0,start\n'
       b'10,8,0,T,7,0,terminate\n'
       b'12,Core_2,0,T,' + TASK_B_RAW + b',0,terminate\n')

# a Tarmac log: a mnemonic and an exception name with '"', ',' and '\'
TARMAC = (b'          0 tic ES  EXC [0x00] Re"set\\x\n'
          b'          1 tic ES  (00020150:e3a00601) A svc_s:          MO"V,\\      r0,#0x100000\n'
          b'          2 tic ES  (00020154:e1a0d000) A svc_s:          MOV      sp,r0\n')


def run(*args):
    p = subprocess.run([CLI] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        failures.append('%s: exit %d: %s' % (' '.join(args[:3]), p.returncode,
                                              p.stderr.decode(errors='replace')))
        return None
    try:
        return p.stdout.decode('utf-8')   # strict: no stray byte
    except UnicodeDecodeError as e:
        failures.append('%s: output is not UTF-8: %s' % (' '.join(args[:3]), e))
        return None


def csv_rows(what, text, column, want_names):
    if text is None:
        return
    rows = list(csv.reader(io.StringIO(text, newline='')))
    head = rows[0]
    for r in rows[1:]:
        if len(r) != len(head):
            failures.append('%s: a row of %d fields under a header of %d: %r'
                            % (what, len(r), len(head), r))
    got = {r[head.index(column)] for r in rows[1:] if len(r) == len(head)}
    for n in want_names:
        if n not in got:
            failures.append('%s: %r not in column %s (%r)' % (what, n, column, sorted(got)))


def json_doc(what, text):
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        failures.append('%s: not JSON: %s' % (what, e))
        return None


with tempfile.TemporaryDirectory() as tmp:
    btf = os.path.join(tmp, 'names.btf')
    with open(btf, 'wb') as f:
        f.write(BTF)
    log = os.path.join(tmp, 'quotes.tarmac')
    with open(log, 'wb') as f:
        f.write(TARMAC)

    csv_rows('load --format csv', run('load', '-q', '--format', 'csv', btf),
             'entity', [TASK_A, TASK_B])
    csv_rows('load --format csv (cores)', run('load', '-q', '--format', 'csv', btf),
             'core', [CORE_A, 'Core_2'])
    csv_rows('stats --format csv', run('stats', '-q', '--format', 'csv', btf),
             'entity', [TASK_A, TASK_B])
    d = json_doc('stats --format json', run('stats', '-q', '--format', 'json', btf))
    if d is not None:
        got = {r['entity'] for r in d['stats']}
        if got != {TASK_A, TASK_B}:
            failures.append('stats --format json: entities %r' % sorted(got))
    d = json_doc('info --format json', run('info', '-q', '--format', 'json', btf))
    if d is not None:
        if d['cores'] != [CORE_A, 'Core_2']:
            failures.append('info --format json: cores %r' % d['cores'])
        if {h['value'] for h in d['header'] if h['key'] == 'entityMapping'} != \
                {'7 ' + TASK_A, '8 ' + CORE_A}:
            failures.append('info --format json: header %r' % d['header'])

    # the Tarmac record view
    d = json_doc('tarmac stats --format json', run('stats', '--format', 'json', log))
    if d is not None:
        mn = {m['mnemonic'] for m in d['mix']}
        if mn != {'MO"V,\\', 'MOV'}:
            failures.append('tarmac stats --format json: mnemonics %r' % sorted(mn))
        ex = [x['name'] for x in d['exceptions']]
        if ex != ['Re"set\\x']:
            failures.append('tarmac stats --format json: exceptions %r' % ex)
    csv_rows('tarmac stats --format csv', run('stats', '--format', 'csv', log),
             'mnemonic', ['MO"V,\\', 'MOV'])
    d = json_doc('tarmac info --format json', run('info', '--format', 'json', log))

for f in failures:
    print('FAIL:', f)
if failures:
    sys.exit(1)
print('ok: info, stats, load and Tarmac stats give CSV and JSON that parse, names intact')
