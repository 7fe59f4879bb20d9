// read_files.mjs READER FILE...: the rows of Parquet files as JSON lines
// {"file": FILE, "row": {...}}, read by READER: hyparquet (JavaScript) or
// parquet-wasm (Rust's arrow-rs as WebAssembly, its node build, into an
// Arrow table of apache-arrow); integers as strings, nulls as null.
import { readFileSync } from 'node:fs'

const [reader, ...files] = process.argv.slice(2)
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
const out = []
if (reader === 'hyparquet') {
	const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet')
	const { compressors } = await import('hyparquet-compressors')
	for (const f of files) {
		const file = await asyncBufferFromFile(f)
		for (const row of await parquetReadObjects({ file, compressors, utf8: true }))
			out.push(JSON.stringify({ file: f, row }, big))
	}
} else if (reader === 'parquet-wasm') {
	const { readParquet } = await import('parquet-wasm/node')
	const { tableFromIPC } = await import('apache-arrow')
	for (const f of files) {
		const t = tableFromIPC(readParquet(new Uint8Array(readFileSync(f))).intoIPCStream())
		for (const r of t.toArray())
			out.push(JSON.stringify({ file: f, row: r.toJSON() }, big))
	}
} else {
	throw new Error('unknown reader ' + reader)
}
process.stdout.write(out.map(l => l + '\n').join(''))
