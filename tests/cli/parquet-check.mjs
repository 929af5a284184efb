// parquet-check.mjs DIR CSVDIR: checks a tdat parquet dataset with two
// independent readers (t-parquet.sh).  NPMDIR names the folder where npm
// installed @duckdb/node-api, hyparquet and hyparquet-compressors.
//
// It prints "events SYSTEM.EVENT N", the rows per type of DIR/events.parquet;
// for every DIR/BASE.parquet but events.parquet it prints
//   rows BASE N              DuckDB's row count
//   type BASE COL GOT WANT   a column whose DuckDB type is not the one the
//                            event's format (the file's tdat.format) declares
//   except BASE P C          rows of the Parquet file not in CSVDIR/BASE.csv
//                            (EXCEPT ALL) and the other way round, both read
//                            by DuckDB, the CSV as text cast to the Parquet
//                            column's type
//   big BASE N               values >= 2^63 in its UBIGINT columns (if any)
//   sym EVENT CPU SECS.USECS FIELD SYMBOL
//                            every value of a FIELD_sym column (the columns
//                            expected after each field the format's print
//                            fmt prints with %ps, %pS, %pf, %pF or %pB), the
//                            time rounded to us as trace-cmd report prints it
//   hyparquet BASE N SAME    hyparquet's row count, and whether its ts and
//                            last column equal DuckDB's (yes/no)
import { createRequire } from 'module';
import { readdirSync } from 'fs';
import { pathToFileURL } from 'url';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const hyp = await import(pathToFileURL(req.resolve('hyparquet')));
const { compressors } = await import(pathToFileURL(req.resolve('hyparquet-compressors')));
const [dir, csvdir] = process.argv.slice(2);
const con = await (await DuckDBInstance.create(':memory:')).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';

const fixed = { ts: 'BIGINT', cpu: 'INTEGER', input: 'INTEGER', buffer: 'VARCHAR', pid: 'INTEGER',
		comm: 'VARCHAR', lost: 'BIGINT' };
const ints = { 1: 'TINYINT', 2: 'SMALLINT', 4: 'INTEGER', 8: 'BIGINT' };

// [name, DuckDB type] of each field of a format text, common_* left out
function formatTypes(text) {
	const out = [];
	for (const m of text.matchAll(/field:([^;]*);\s*offset:\d+;\s*size:(\d+);\s*signed:(\d+);/g)) {
		const decl = m[1].trim(), size = +m[2], signed = m[3] === '1';
		const name = (decl.match(/(\w+)\s*(\[[^\]]*\])?$/) || [, decl])[1];
		if (name.startsWith('common_'))
			continue;
		const array = /\[/.test(decl) || /^__(data|rel)_loc/.test(decl) || size === 0;
		out.push([name, array || !ints[size] ? 'VARCHAR' : (signed ? '' : 'U') + ints[size]]);
	}
	return out;
}

// The arguments of a print fmt's argument list, split at its top-level commas.
function splitArgs(text) {
	const out = [];
	let depth = 0, cur = '', quote = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quote) {
			if (c === '\\')
				cur += text[i++];
			else if (c === '"')
				quote = false;
		} else if (c === '"') {
			quote = true;
		} else if ('([{'.includes(c)) {
			depth++;
		} else if (')]}'.includes(c)) {
			depth--;
		} else if (c === ',' && depth === 0) {
			out.push(cur.trim());
			cur = '';
			continue;
		}
		cur += c;
	}
	if (cur.trim())
		out.push(cur.trim());
	return out;
}

// The fields a format's print fmt prints as kernel symbols: REC->FIELD (casts
// aside) given to %ps, %pS, %pf, %pF or %pB; each conversion takes the next
// argument, after one for each '*' of its width or precision.
function symFields(text) {
	const m = text.match(/^print fmt: ((?:"(?:[^"\\]|\\.)*"\s*)+)(?:,(.*))?$/m);
	if (!m)
		return new Set();
	const fmt = [...m[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1]).join('');
	const args = splitArgs(m[2] || ''), syms = new Set();
	let a = 0;
	for (const c of fmt.matchAll(/%([-+ #0]*)(\*|\d*)(?:\.(\*|\d*))?[hlLqjzt]*(.)(?=(.?))/g)) {
		if (c[4] === '%')
			continue;
		a += (c[2] === '*') + (c[3] === '*');
		const arg = (args[a++] || '').replace(/^(\([^()]*\)\s*)+/, '');
		const f = arg.match(/^REC->(\w+)$/);
		if (f && c[4] === 'p' && c[5] && 'sSfFB'.includes(c[5]))
			syms.add(f[1]);
	}
	return syms;
}

const ev = await q(`select system, event, count(*) from ${lit(dir + '/events.parquet')} group by all`);
for (const [s, e, n] of ev)
	console.log(`events ${s}.${e} ${n}`);

// the analysis tables (thread, process, ...) are t-parquet-model.sh's
const model = new Set(['thread', 'process', 'sched_slice', 'thread_state', 'slice', 'track', 'counter',
	'cpu_counter_track', 'process_counter_track', 'thread_track', 'cpu_track'].map((n) => n + '.parquet'));
for (const f of readdirSync(dir).filter((n) => n.endsWith('.parquet') && !model.has(n)).sort()) {
	if (f === 'events.parquet')
		continue;
	const base = f.slice(0, -8), path = dir + '/' + f, csv = csvdir + '/' + base + '.csv';
	const cols = (await q(`describe select * from ${lit(path)}`)).map((r) => [r[0], r[1]]);
	console.log(`rows ${base} ${(await q(`select count(*) from ${lit(path)}`))[0][0]}`);

	const kv = await q(`select decode(value) from parquet_kv_metadata(${lit(path)})
			    where decode(key) = 'tdat.format'`);
	const format = kv.length ? kv[0][0] : '', syms = symFields(format);
	const want = Object.entries(fixed).concat(formatTypes(format).flatMap(([n, t]) =>
		syms.has(n) && t !== 'VARCHAR' ? [[n, t], [n + '_sym', 'VARCHAR']] : [[n, t]]));
	cols.forEach(([name, type], i) => {
		const w = want[i] || [name, 'VARCHAR'];	/* a message field past the format */
		if (type !== w[1] || (name !== w[0] && name !== 'field_' + w[0]))
			console.log(`type ${base} ${name} ${type} ${w[0]}:${w[1]}`);
	});

	const pq = cols.map(([c, t]) => t === 'VARCHAR' ? `coalesce(${id(c)}, '')` : id(c));
	const cs = cols.map(([c, t]) => t === 'VARCHAR' ? `coalesce(${id(c)}, '')` :
			    `cast(${id(c)} as ${t})`);
	const P = `select ${pq.join(', ')} from ${lit(path)}`;
	const C = `select ${cs.join(', ')} from read_csv(${lit(csv)}, header = true, all_varchar = true,
		   delim = ',', quote = '"', escape = '"')`;
	const a = (await q(`select count(*) from (${P} except all ${C})`))[0][0];
	const b = (await q(`select count(*) from (${C} except all ${P})`))[0][0];
	console.log(`except ${base} ${a} ${b}`);
	const big = cols.filter(([, t]) => t === 'UBIGINT')
		.map(([c]) => `(select count(*) from ${lit(path)} where ${id(c)} >= 9223372036854775808)`);
	if (big.length)
		console.log(`big ${base} ${(await q(`select ${big.join(' + ')}`))[0][0]}`);

	const event = base.replace(/^[^.]*\./, '').replace(/\.\d+$/, '');
	for (const [c] of cols.filter(([c]) => c.endsWith('_sym'))) {
		const rows = await q(`select cpu, printf('%d.%06d', (ts + 500) // 1000000000,
				      (ts + 500) // 1000 % 1000000), coalesce(${id(c)}, '') from ${lit(path)}`);
		for (const [cpu, t, v] of rows)
			console.log(`sym ${event} ${cpu} ${t} ${c.slice(0, -4)} ${v}`);
	}

	const last = cols[cols.length - 1][0];
	const rows = await hyp.parquetReadObjects({ file: await hyp.asyncBufferFromFile(path),
						    columns: ['ts', last], compressors });
	const duck = await q(`select ts, ${id(last)} from ${lit(path)}`);
	const str = (v) => v === null || v === undefined ? 'null' : String(v);
	const same = rows.length === duck.length && rows.every((r, i) =>
		str(r.ts) === str(duck[i][0]) && str(r[last]) === str(duck[i][1]));
	console.log(`hyparquet ${base} ${rows.length} ${same ? 'yes' : 'no'}`);
}
