// read_hyparquet.mjs FILE: the rows of a Parquet file as JSON lines (after
// one line of its key-value metadata), read by hyparquet; BigInts as
// strings, nulls as null.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const file = await asyncBufferFromFile(process.argv[2])
const meta = await parquetMetadataAsync(file)
const kv = {}
for (const e of meta.key_value_metadata || []) kv[e.key] = e.value
const out = [JSON.stringify({ kv, row_groups: meta.row_groups.length })]
const rows = await parquetReadObjects({ file, compressors, utf8: true })
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v)
for (const r of rows) out.push(JSON.stringify(r, big))
process.stdout.write(out.join('\n') + '\n')
