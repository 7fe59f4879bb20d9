#!/bin/sh
# install_readers.sh DIR: the Parquet readers the tests use, from the npm
# registry, into DIR (under build/): hyparquet (JavaScript) with
# hyparquet-compressors (zstd), DuckDB (@duckdb/node-api, C++) and
# parquet-wasm (Rust's arrow-rs as WebAssembly, its node build) with
# apache-arrow to read the Arrow IPC stream it returns.
# Exit 77 when npm or the registry is not there (the tests then skip).
set -u
dir=$1
if [ -f "$dir/.done3" ]; then exit 0; fi
command -v npm >/dev/null 2>&1 || exit 77
command -v node >/dev/null 2>&1 || exit 77
mkdir -p "$dir" || exit 77
[ -f "$dir/package.json" ] || echo '{"private":true,"type":"module"}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
	hyparquet hyparquet-compressors @duckdb/node-api parquet-wasm apache-arrow >"$dir/npm.log" 2>&1 || {
	cat "$dir/npm.log" >&2
	exit 77
}
touch "$dir/.done3"
