#!/bin/sh
# Runs test_stream_source (every input read from its file and from memory
# streams of small pieces, compared) on the inputs of every reader: the
# ok/ and fail/ inputs of tests/formats, the S.Ha.R.K. cases made by their
# script, the examples and the small files of the shared corpus.
# Usage: stream_source.sh TEST_BINARY TESTS_DIR SHARED_DIR
set -u
bin=$1 tests=$2 shared=$3
root=$(cd "$tests/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
set --
# every format's folder (a format added needs no line here): the inputs
# named after it (the exports' folders hold none)
for dir in "$tests"/formats/*/; do
	fmt=$(basename "$dir")
	for f in "$tests/formats/$fmt"/ok/*."$fmt" "$tests/formats/$fmt"/fail/*."$fmt" \
		"$tests/formats/$fmt"/ok/*."$fmt".gz "$tests/formats/$fmt"/ok/*."$fmt".zst; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
done
if command -v python3 > /dev/null 2>&1; then
	python3 "$tests/formats/shark/make_cases.py" "$tmp/shark" > /dev/null ||
		{ echo "FAIL: make_cases.py"; exit 1; }
	for f in "$tmp"/shark/ok/*.bin "$tmp"/shark/fail/*.bin; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
fi
for f in "$root"/examples/* "$shared"/corpus/btf/*.btf "$shared"/corpus/tarmac/*.tarmac \
	"$shared"/corpus/tarmac/*.txt "$shared"/corpus/shark/*.bin; do
	[ -f "$f" ] || continue
	# up to 1 MiB: the big ones are the matrix test's (tests/stream/)
	[ "$(wc -c < "$f")" -le 1048576 ] && set -- "$@" "$f"
done
exec "$bin" "$@"
