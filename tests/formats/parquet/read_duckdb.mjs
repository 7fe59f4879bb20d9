// read_duckdb.mjs FILE: the rows of a Parquet file as JSON lines (after one
// line of its key-value metadata), read by DuckDB; integers as strings.
import { DuckDBInstance } from '@duckdb/node-api'

const path = process.argv[2].replaceAll("'", "''")
const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const kvr = await con.runAndReadAll(
	`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`)
const kv = {}
for (const [k, v] of kvr.getRows()) kv[k] = v
const rg = await con.runAndReadAll(
	`SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${path}')`)
const out = [JSON.stringify({ kv, row_groups: Number(rg.getRows()[0][0]) })]
const res = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
const names = res.columnNames()
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
for (const row of res.getRows()) {
	const o = {}
	names.forEach((n, i) => { o[n] = row[i] })
	out.push(JSON.stringify(o, big))
}
process.stdout.write(out.join('\n') + '\n')
