// parquet-text.mjs DIR DB: the strings of a tdat Parquet dataset DIR equal
// those of the sqlite database DB made from the same capture, row for row
// (t-parquet-text.sh).  For every DIR/event/SYSTEM.NAME.parquet and the
// table NAME of DB, every column that is a string in both (VARCHAR as
// DuckDB reads the Parquet file, TEXT as sqlite3 declares it) is read in
// row order: the Parquet file with DuckDB (@duckdb/node-api from NPMDIR),
// the table with the sqlite3 program (-json, ORDER BY id), all of a file's
// columns in one query and all of a table's in one sqlite3 run.  It prints
//   text TABLE COL N same           N rows, every value equal (ts too)
//   text TABLE COL N differ I P S   the first row I that differs, both values
//                                   as JSON
//   escapes N                       values with a newline, tab or backslash
//   fffd N                          values with U+FFFD (a byte that is not UTF-8)
// With no arguments it reads "DIR<TAB>DB<TAB>OUT" lines from standard input
// and writes those lines for each to OUT, answering "done" (lib.sh's
// t_serve: one node for all of a test's captures).
import { createRequire } from 'module';
import { readdirSync, writeFileSync } from 'fs';
import { createInterface } from 'readline';
import { spawnSync } from 'child_process';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';

function sqlite(db, sql) {
	const r = spawnSync('sqlite3', ['-json', db, sql], { encoding: 'utf8', maxBuffer: 1 << 30 });
	if (r.status !== 0)
		throw new Error(`sqlite3: ${r.stderr}`);
	return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

// check DIR DB LOG: the lines above, each given to LOG
async function check(dir, db, log) {
	// the TEXT columns of every table, in one sqlite3 run
	const textCols = new Map();
	for (const r of sqlite(db, `select m.name t, p.name c from sqlite_master m, pragma_table_info(m.name) p
				where m.type = 'table' and p.type = 'TEXT'`)) {
		if (!textCols.has(r.t))
			textCols.set(r.t, new Set());
		textCols.get(r.t).add(r.c);
	}

	let escapes = 0, fffd = 0;
	for (const f of readdirSync(dir + '/event').filter((n) => n.endsWith('.parquet')).sort()) {
		const table = f.slice(0, -8).split('.').slice(1).join('.'), path = `${dir}/event/${f}`;
		const text = textCols.get(table) ?? new Set();
		/* a field named as a common column is field_NAME in the Parquet file */
		const cols = (await q(`describe select * from ${lit(path)}`))
			.filter((r) => r[1] === 'VARCHAR' && r[0] !== 'comm')
			.map((r) => [r[0], r[0].replace(/^field_(comm|pid|cpu|ts|input|lost|buffer)$/, '$1')])
			.filter((r) => text.has(r[1]));
		cols.unshift(['ts', 'ts']);	/* the rows' alignment */
		/* all the columns at once: one DuckDB query, one sqlite3 run a table */
		const prow = await q(`select ${cols.map(([pc]) => id(pc)).join(', ')} from ${lit(path)}`);
		const srow = sqlite(db, `select ${cols.map(([, c], k) => `cast(${id(c)} as text) v${k}`).join(', ')}
				     from ${id(table)} order by id`);
		cols.forEach(([, c], k) => {
			const p = prow.map((r) => typeof r[k] === 'bigint' ? String(r[k]) : r[k]);
			const s = srow.map((r) => r['v' + k]);
			let i = 0;
			while (i < p.length && i < s.length && p[i] === s[i])
				i++;
			if (c !== 'ts') {
				escapes += p.filter((v) => v !== null && /[\n\t\\]/.test(v)).length;
				fffd += p.filter((v) => v !== null && v.includes('\uFFFD')).length;
			}
			log(i === p.length && i === s.length ? `text ${table} ${c} ${p.length} same` :
				    `text ${table} ${c} ${p.length} differ ${i} ${JSON.stringify(p[i])} ` +
				    JSON.stringify(s[i]));
		});
	}
	log(`escapes ${escapes}`);
	log(`fffd ${fffd}`);
}

if (process.argv.length > 2) {
	await check(process.argv[2], process.argv[3], console.log);
} else {
	// no arguments: "DIR<TAB>DB<TAB>OUT" lines from standard input (lib.sh's
	// t_serve), the lines of each written to OUT (an error as "error ..."),
	// answered by "done"
	for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
		const [dir, db, out] = line.split('\t');
		const lines = [];
		try {
			await check(dir, db, (l) => lines.push(l));
		} catch (e) {
			lines.push(`error ${String(e.message).split('\n')[0]}`);
		}
		writeFileSync(out, lines.map((l) => l + '\n').join(''));
		process.stdout.write('done\n');
	}
}
