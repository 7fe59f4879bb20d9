#!/bin/sh
# Installs the Debian packages tracekit needs to build and test, when absent.
# Called by `make demo` and `make test`; safe to run again (installs nothing
# when everything is there).
set -eu

need="cmake make gcc pkg-config zlib1g-dev libzstd-dev libexpat1-dev libsqlite3-dev libelf-dev libyaml-dev nettle-dev"
# the Python module (python/) is built against Debian's python3
need="$need python3-dev python3-setuptools"
optional=""
if [ "${TK_TEST_DEPS:-0}" = 1 ]; then
	# the test suite also uses these
	need="$need clang zstd gzip python3 libxml2-utils sqlite3 babeltrace2"
	# the Python module's tests: its arrays and frames, and `pip install
	# ./python` into a virtual environment
	need="$need python3-numpy python3-pandas python3-venv python3-pip"
	# the VCD export is read by GTKWave (under xvfb-run) and its
	# converters (format.vcd.viewers; skipped with a message without them)
	need="$need gtkwave xvfb"
	# the Perfetto export is also parsed by node's JSON.parse
	# (format.perfetto_utf8, format.perfetto_import)
	need="$need nodejs"
	# the report test looks at the page in a real browser; it is skipped
	# when the browser cannot be installed
	optional="chromium"
	# the exports' linearity test counts instructions with callgrind
	optional="$optional valgrind"
fi
if [ "${TK_TEST_DEPS:-0}" = 1 ] || [ "${TK_QEMU_DEPS:-0}" = 1 ]; then
	# `make qemu-demo` and its test (recorder.qemu_cortex_m): the recorder
	# built for a Cortex-M3 and run in QEMU; the test is skipped when they
	# cannot be installed
	optional="$optional gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
fi
if [ "${TK_CI_DEPS:-0}" = 1 ]; then
	# CI (.ci/run) also uses: clang for its build, the static analyzer and
	# the fuzz targets, gcovr for `make coverage`
	need="$need clang gcovr"
fi

absent() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			printf ' %s' "$p"
	done
}

missing=$(absent $need)
missing_opt=$(absent $optional)
[ -z "$missing$missing_opt" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: missing packages:$missing$missing_opt (run as root or install them)" >&2
	[ -z "$missing" ] && exit 0
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing:$missing$missing_opt"
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi
if [ -n "$missing_opt" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing_opt ||
		echo "install-deps: could not install$missing_opt; the tests that need it are skipped" >&2
fi
