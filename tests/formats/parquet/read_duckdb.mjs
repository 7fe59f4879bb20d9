// read_duckdb.mjs FILE...: the rows of Parquet files, read by DuckDB, as
// JSON lines: for each FILE in turn one line {"file": FILE, "kv": its
// key-value metadata, "row_groups": N, "chunks": its column chunks' codec,
// encodings and statistics, "rows": R} then its R rows (or one line
// {"file": FILE, "error": MESSAGE} when it cannot be read, and on to the
// next); integers as strings.  One process and one database for all the
// files: node and DuckDB start once.
import { DuckDBInstance } from '@duckdb/node-api'

const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
for (const f of process.argv.slice(2)) {
	const path = f.replaceAll("'", "''")
	let out
	try {
		const kvr = await con.runAndReadAll(
			`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`)
		const kv = {}
		for (const [k, v] of kvr.getRows()) kv[k] = v
		const md = await con.runAndReadAll(
			`SELECT row_group_id, path_in_schema, compression, encodings,
			        stats_min_value, stats_max_value, stats_null_count,
			        total_compressed_size, total_uncompressed_size
			 FROM parquet_metadata('${path}') ORDER BY row_group_id, column_id`)
		const chunks = md.getRows().map(([g, col, codec, enc, min, max, nulls, size, usize]) => (
			{ group: Number(g), column: col, codec, encodings: enc, min, max,
			  nulls: nulls === null ? null : Number(nulls),
			  size: Number(size), usize: Number(usize) }))
		const groups = new Set(chunks.map(c => c.group)).size
		const res = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
		const names = res.columnNames()
		const rows = res.getRows()
		out = [JSON.stringify({ file: f, kv, row_groups: groups, chunks, rows: rows.length })]
		for (const row of rows) {
			const o = {}
			names.forEach((n, i) => { o[n] = row[i] })
			out.push(JSON.stringify(o, big))
		}
	} catch (e) {
		out = [JSON.stringify({ file: f, error: String(e && e.stack || e) })]
	}
	process.stdout.write(out.join('\n') + '\n')
}
