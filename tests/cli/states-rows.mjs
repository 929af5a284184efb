// states-rows.mjs: the rows states-check.py compares (its FORMAT rows: S
// END_TS CPU END_STATE; T TS TID ID STATE, tab-separated), read by DuckDB
// from tdat Parquet datasets (t-states.sh).  One node for all of a test's
// datasets (lib.sh's t_serve): each line of standard input, "DIR<TAB>OUT",
// writes the rows of the dataset DIR to the file OUT and is answered by a
// line, "done" or the error.  NPMDIR names the folder where npm installed
// @duckdb/node-api.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';

const { DuckDBInstance } = createRequire(process.env.NPMDIR + '/')('@duckdb/node-api');
// one thread: the files are small, and the test runs beside others
const con = await (await DuckDBInstance.create(':memory:', { threads: '1', enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();

async function rows(dir) {
	const out = [];
	for (const r of await q(`select ts + dur, cpu, end_state from '${dir}sched_slice.parquet'
			where dur >= 0 and end_state is not null`))
		out.push(['S', ...r].join('\t'));
	for (const r of await q(`select s.ts, t.tid, s.id, s.state from '${dir}thread_state.parquet' s
			join '${dir}thread.parquet' t using (utid) where s.state != 'Running'`))
		out.push(['T', ...r].join('\t'));
	return out.map((l) => l + '\n').join('');
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
	const [dir, out] = line.split('\t');
	try {
		writeFileSync(out, await rows(dir + '/analysis/'));
		process.stdout.write('done\n');
	} catch (e) {
		process.stdout.write(`${dir}: ${String(e.message).split('\n')[0]}\n`);
	}
}
