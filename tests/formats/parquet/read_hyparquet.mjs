// read_hyparquet.mjs FILE...: the rows of Parquet files, read by hyparquet,
// as JSON lines: for each FILE in turn one line {"file": FILE, "kv": its
// key-value metadata, "row_groups": N, "rows": R} then its R rows (or one
// line {"file": FILE, "error": MESSAGE} when it cannot be read, and on to
// the next); BigInts as strings, nulls as null.  One process for all the
// files: node starts once.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
for (const f of process.argv.slice(2)) {
	let out
	try {
		const file = await asyncBufferFromFile(f)
		const meta = await parquetMetadataAsync(file)
		const kv = {}
		for (const e of meta.key_value_metadata || []) kv[e.key] = e.value
		const rows = await parquetReadObjects({ file, compressors, utf8: true })
		out = [JSON.stringify({ file: f, kv, row_groups: meta.row_groups.length, rows: rows.length })]
		for (const r of rows) out.push(JSON.stringify(r, big))
	} catch (e) {
		out = [JSON.stringify({ file: f, error: String(e && e.stack || e) })]
	}
	process.stdout.write(out.join('\n') + '\n')
}
