// query_duckdb.mjs SQL: the rows of a DuckDB query as JSON lines (one
// object per row, by column name; integers as strings), for the dataset
// tests (check_dataset.py) and the benches.
// query_duckdb.mjs --each SQL...: the queries in turn in one database (node
// and DuckDB start once), one JSON line for each: the array of its rows.
import { DuckDBInstance } from '@duckdb/node-api'

const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
const each = process.argv[2] === '--each'
for (const sql of each ? process.argv.slice(3) : process.argv.slice(2, 3)) {
	const res = await con.runAndReadAll(sql)
	const names = res.columnNames()
	const out = []
	for (const row of res.getRows()) {
		const o = {}
		names.forEach((n, i) => { o[n] = row[i] })
		out.push(each ? o : JSON.stringify(o, big))
	}
	process.stdout.write(each ? JSON.stringify(out, big) + '\n' : out.map(l => l + '\n').join(''))
}
