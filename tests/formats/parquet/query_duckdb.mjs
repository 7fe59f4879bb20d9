// query_duckdb.mjs SQL: the rows of a DuckDB query as JSON lines (one
// object per row, by column name; integers as strings), for the dataset
// tests (check_dataset.py).
import { DuckDBInstance } from '@duckdb/node-api'

const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const res = await con.runAndReadAll(process.argv[2])
const names = res.columnNames()
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
const out = []
for (const row of res.getRows()) {
	const o = {}
	names.forEach((n, i) => { o[n] = row[i] })
	out.push(JSON.stringify(o, big))
}
process.stdout.write(out.map(l => l + '\n').join(''))
