#!/bin/sh
# The library users get (libtracekit.a) defines none of the tests' entry
# points, which only tracekit_test has (TK_TEST_HOOKS, CMakeLists.txt); and
# the test library does define them.
# Usage: no_test_hooks.sh LIBTRACEKIT LIBTRACEKIT_TEST
set -u
hooks='tk_source_open_mem_stream tk_reader_open_source tk_tarmac_open_source'
syms=$(nm -g --defined-only "$1") || exit 1
tsyms=$(nm -g --defined-only "$2") || exit 1
rc=0
# a sanity check that the listing is the library's
echo "$syms" | grep -q ' T tk_reader_open$' || { echo "no tk_reader_open in $1"; exit 1; }
for h in $hooks; do
	if echo "$syms" | grep -q " T $h\$"; then
		echo "$1 defines the test entry point $h"
		rc=1
	fi
	if ! echo "$tsyms" | grep -q " T $h\$"; then
		echo "$2 lacks the test entry point $h"
		rc=1
	fi
done
exit $rc
