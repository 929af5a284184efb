// damage-model-check.mjs PREFIX...: the Parquet side of t-damage-model.sh,
// in one DuckDB (@duckdb/node-api, from the folder NPMDIR names).  For each
// PREFIX, the dataset PREFIX.pq/ (tdat-convert -f parquet of a damaged copy):
//   PREFIX inv NAME COUNT   an invariant of damage-model.sql that it breaks
//                           (its analysis tables read for the query's tables)
//   PREFIX except TABLE P C rows of analysis/TABLE.parquet not in the SQLite
//                           table of the same copy (PREFIX.exp/TABLE.csv, from
//                           damage-model.py) and the other way round (EXCEPT
//                           ALL), for sched_slice, thread_state and slice
//   PREFIX events N         rows of events.parquet, then
//   PREFIX events-except P C  its (ts, cpu, system, event) against PREFIX.csv
//                           (an event of no format is named by its type id in
//                           Parquet, with no name in CSV: compared by system "")
// A text that is not printable ASCII (a slice named by a damaged field) is
// compared as NULL on both sides: how bytes that are not UTF-8 are written
// differs between the formats (doc/tdat-parquet.7), and is not the model's.
import { createRequire } from 'module';
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { fileURLToPath } from 'url';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:', { threads: '1', enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';
const TABLES = ['sched_slice', 'thread_state', 'slice', 'track', 'counter', 'thread', 'process'];
const SAME = ['sched_slice', 'thread_state', 'slice'];
const types = {};	// the columns of each of SAME, from the first dataset

// the queries of damage-model.sql: "-- NAME" before each, "---" a comment
const queries = [];
for (const line of readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'damage-model.sql'),
	'utf8').split('\n')) {
	if (line.startsWith('---') || !line.trim())
		continue;
	if (line.startsWith('-- '))
		queries.push({ name: line.slice(3).trim(), sql: '' });
	else
		queries.at(-1).sql += ' ' + line.trim();
}

// read_csv() options for a CSV of @names, all read as text (no sniffing: it is slow)
const text = (names) => `header = true, auto_detect = false, quote = '"', escape = '"',
	delim = ',', columns = {${names.map((n) => `${lit(n)}: 'VARCHAR'`).join(', ')}}`;
const CSV = ['ts', 'cpu', 'input', 'buffer', 'pid', 'comm', 'system', 'event', 'lost', 'fields'];
const plain = (c) => `case when regexp_matches(${c}, '^[ -\\[\\]-~]*$') then ${c} end`;

async function check(p) {
	const dir = `${p}.pq`;
	for (const t of TABLES)
		await con.run(`create or replace view ${t} as
			select * from read_parquet(${lit(`${dir}/analysis/${t}.parquet`)})`);
	// every invariant in one query: its name and count, one row each
	for (const [name, n] of await q(queries.map(({ name, sql }) =>
		`select ${lit(name)}, (${sql})`).join(' union all ')))
		if (Number(n))
			console.log(`${p} inv ${name} ${n}`);
	for (const t of SAME) {
		const cols = types[t] ??= await q(`select column_name, column_type from (describe ${t})`);
		const P = `select ${cols.map(([n, ty]) => ty === 'VARCHAR' ? plain(id(n)) : id(n)).join(', ')}
			from ${t}`;
		const C = `select ${cols.map(([n, ty]) => ty === 'VARCHAR' ? plain(id(n)) :
			`cast(${id(n)} as ${ty})`).join(', ')}
			from read_csv(${lit(`${p}.exp/${t}.csv`)}, ${text(cols.map((c) => c[0]))},
				      nullstr = '\\N')`;
		const [[a, b]] = await q(`with p as materialized (${P}), c as materialized (${C})
			select (select count(*) from (from p except all from c)),
			       (select count(*) from (from c except all from p))`);
		console.log(`${p} except ${t} ${a} ${b}`);
	}
	const ev = `${dir}/events.parquet`;
	console.log(`${p} events ${(await q(`select count(*) from ${lit(ev)}`))[0][0]}`);
	// a time of 2^63 ns or more is a negative BIGINT in Parquet (as in SQLite)
	const E = `select case when ts < 0 then ts::hugeint + 18446744073709551616 else ts::hugeint end,
			cpu, coalesce(system, ''), case when coalesce(system, '') <> '' then event else '' end
		from ${lit(ev)}`;
	const C = `select ts::hugeint, cpu::integer, coalesce(system, ''), coalesce(event, '')
		from read_csv(${lit(`${p}.csv`)}, ${text(CSV)})`;
	const [[a, b]] = await q(`with e as materialized (${E}), c as materialized (${C})
		select (select count(*) from (from e except all from c)),
		       (select count(*) from (from c except all from e))`);
	console.log(`${p} events-except ${a} ${b}`);
}

for (const p of process.argv.slice(2)) {
	try {
		await check(p);
	} catch (e) {
		console.log(`${p} error ${String(e.message).split('\n')[0]}`);
	}
}
