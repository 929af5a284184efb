// parquet-text.mjs DIR DB: the strings of a tdat Parquet dataset DIR equal
// those of the sqlite database DB made from the same capture, row for row
// (t-parquet-text.sh).  For every DIR/event/SYSTEM.NAME.parquet and the
// table NAME of DB, every column that is a string in both (VARCHAR as
// DuckDB reads the Parquet file, TEXT as sqlite3 declares it) is read in
// row order: the Parquet file with DuckDB (@duckdb/node-api from NPMDIR),
// the table with the sqlite3 program (-json, ORDER BY id).  It prints
//   text TABLE COL N same           N rows, every value equal (ts too)
//   text TABLE COL N differ I P S   the first row I that differs, both values
//                                   as JSON
//   escapes N                       values with a newline, tab or backslash
//   fffd N                          values with U+FFFD (a byte that is not UTF-8)
import { createRequire } from 'module';
import { readdirSync } from 'fs';
import { spawnSync } from 'child_process';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const [dir, db] = process.argv.slice(2);
const con = await (await DuckDBInstance.create(':memory:')).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';

function sqlite(sql) {
	const r = spawnSync('sqlite3', ['-json', db, sql], { encoding: 'utf8', maxBuffer: 1 << 30 });
	if (r.status !== 0)
		throw new Error(`sqlite3: ${r.stderr}`);
	return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

let escapes = 0, fffd = 0;
for (const f of readdirSync(dir + '/event').filter((n) => n.endsWith('.parquet')).sort()) {
	const table = f.slice(0, -8).split('.').slice(1).join('.'), path = `${dir}/event/${f}`;
	const text = new Set(sqlite(`select name from pragma_table_info(${lit(table)})
				      where type = 'TEXT'`).map((r) => r.name));
	/* a field named as a common column is field_NAME in the Parquet file */
	const cols = (await q(`describe select * from ${lit(path)}`))
		.filter((r) => r[1] === 'VARCHAR' && r[0] !== 'comm')
		.map((r) => [r[0], r[0].replace(/^field_(comm|pid|cpu|ts|input|lost|buffer)$/, '$1')])
		.filter((r) => text.has(r[1]));
	cols.unshift(['ts', 'ts']);	/* the rows' alignment */
	for (const [pc, c] of cols) {
		const p = (await q(`select ${id(pc)} from ${lit(path)}`)).map((r) =>
			typeof r[0] === 'bigint' ? String(r[0]) : r[0]);
		const s = sqlite(`select cast(${id(c)} as text) v from ${id(table)} order by id`)
			.map((r) => r.v);
		let i = 0;
		while (i < p.length && i < s.length && p[i] === s[i])
			i++;
		if (c !== 'ts') {
			escapes += p.filter((v) => v !== null && /[\n\t\\]/.test(v)).length;
			fffd += p.filter((v) => v !== null && v.includes('\uFFFD')).length;
		}
		console.log(i === p.length && i === s.length ? `text ${table} ${c} ${p.length} same` :
			    `text ${table} ${c} ${p.length} differ ${i} ${JSON.stringify(p[i])} ` +
			    JSON.stringify(s[i]));
	}
}
console.log(`escapes ${escapes}`);
console.log(`fffd ${fffd}`);
