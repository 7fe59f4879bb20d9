#!/bin/sh
# Installs the Debian packages tracekit needs to build and test, when absent.
# Called by `make demo` and `make test`; safe to run again (installs nothing
# when everything is there).
set -eu

need="cmake make gcc pkg-config zlib1g-dev libzstd-dev"
if [ "${TK_TEST_DEPS:-0}" = 1 ]; then
	# the test suite also uses these
	need="$need clang zstd gzip python3"
fi

missing=""
for p in $need; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: missing packages:$missing (run as root or install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
