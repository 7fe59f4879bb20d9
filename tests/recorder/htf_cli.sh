#!/bin/sh
# The .htf written by test_recorder_htf (recorder.htf), read by the CLI in
# strict mode: `info` counts 12 events on 2 cores with no warning, `cat`
# gives back exactly the logged events (htf_dump.expected).
# Usage: htf_cli.sh TRACEKIT FILE.htf
set -eu
tk=$1
f=$2
here=$(dirname "$0")
info=$("$tk" info --strict "$f")
echo "$info" | grep -q '^events: *12$' || { echo "info: not 12 events" >&2; echo "$info" >&2; exit 1; }
echo "$info" | grep -q '^cores: *2 (Core_0, Core_1)$' || { echo "info: cores" >&2; exit 1; }
echo "$info" | grep -q '^warnings: *0$' || { echo "info: warnings" >&2; exit 1; }
"$tk" cat --strict --no-header "$f" | diff -u "$here/htf_dump.expected" -
