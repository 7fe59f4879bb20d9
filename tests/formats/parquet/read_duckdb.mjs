// read_duckdb.mjs FILE: the rows of a Parquet file as JSON lines (after one
// line of its key-value metadata and its column chunks' codec, encodings
// and statistics), read by DuckDB; integers as strings.
import { DuckDBInstance } from '@duckdb/node-api'

const path = process.argv[2].replaceAll("'", "''")
const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const kvr = await con.runAndReadAll(
	`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`)
const kv = {}
for (const [k, v] of kvr.getRows()) kv[k] = v
const md = await con.runAndReadAll(
	`SELECT row_group_id, path_in_schema, compression, encodings,
	        stats_min_value, stats_max_value, stats_null_count
	 FROM parquet_metadata('${path}') ORDER BY row_group_id, column_id`)
const chunks = md.getRows().map(([g, col, codec, enc, min, max, nulls]) => (
	{ group: Number(g), column: col, codec, encodings: enc, min, max,
	  nulls: nulls === null ? null : Number(nulls) }))
const groups = new Set(chunks.map(c => c.group)).size
const out = [JSON.stringify({ kv, row_groups: groups, chunks })]
const res = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
const names = res.columnNames()
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
for (const row of res.getRows()) {
	const o = {}
	names.forEach((n, i) => { o[n] = row[i] })
	out.push(JSON.stringify(o, big))
}
process.stdout.write(out.join('\n') + '\n')
