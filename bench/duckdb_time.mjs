// duckdb_time.mjs RUNS SQL: DuckDB's own time for a query, node's and
// DuckDB's start left out: the query run RUNS times in one process (the
// first on a fresh database, whose files the page cache holds), printed
// as one line: first=S median=S cpu=S rows=N threads=T (seconds; cpu the
// process's user + system time over all the runs, DuckDB's threads
// included, divided by the runs: the figure a loaded host stretches least;
// T DuckDB's threads).
// bench/parquet_fleet.sh copies it beside node_modules.
import { DuckDBInstance } from '@duckdb/node-api'

const runs = Math.max(1, parseInt(process.argv[2], 10) || 1)
const sql = process.argv[3]
const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const times = []
let rows = 0
const c0 = process.cpuUsage()
for (let i = 0; i < runs; i++) {
	const t0 = process.hrtime.bigint()
	const res = await con.runAndReadAll(sql)
	rows = res.getRows().length
	times.push(Number(process.hrtime.bigint() - t0) / 1e9)
}
const cu = process.cpuUsage(c0)
const cpu = (cu.user + cu.system) / 1e6 / runs
const th = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0]
const first = times[0]
times.sort((a, b) => a - b)
const med = times[Math.floor((times.length - 1) / 2)]
process.stdout.write(`first=${first.toFixed(4)} median=${med.toFixed(4)} cpu=${cpu.toFixed(4)} rows=${rows} threads=${th}\n`)
