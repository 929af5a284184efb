// parquet-check.mjs DIR CSVDIR: checks a tdat parquet dataset with two
// independent readers (t-parquet.sh).  NPMDIR names the folder where npm
// installed @duckdb/node-api, hyparquet and hyparquet-compressors.
//
// It prints "events SYSTEM.EVENT N", the rows per type of DIR/events.parquet;
// for every DIR/event/BASE.parquet it prints
//   rows BASE N              DuckDB's row count
//   type BASE COL GOT WANT   a column whose DuckDB type is not the one the
//                            event's format (the file's tdat.format) declares
//   except BASE P C          rows of the Parquet file not in CSVDIR/BASE.csv
//                            (EXCEPT ALL) and the other way round, both read
//                            by DuckDB, the CSV as text cast to the Parquet
//                            column's type (an array's "[a,b,...]" to the
//                            LIST type; a cpumask's words to the numbers of
//                            the bits they set)
//   big BASE N               values >= 2^63 in its UBIGINT columns (if any)
//   sym EVENT CPU SECS.USECS FIELD SYMBOL
//                            every value of a FIELD_sym column (the columns
//                            expected after each field the format's print
//                            fmt prints with %ps, %pS, %pf, %pF or %pB), the
//                            time rounded to us as trace-cmd report prints it
//   hyparquet BASE N SAME    hyparquet's row count, and whether its ts, last
//                            column and LIST columns equal DuckDB's (yes/no)
//   lists BASE N             elements of its LIST columns hyparquet read (if any)
// With no arguments it reads "DIR<TAB>CSVDIR<TAB>OUT" lines from standard
// input and writes those lines for each to OUT, answering "done" (lib.sh's
// t_serve).
import { createRequire } from 'module';
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { createInterface } from 'readline';
import { pathToFileURL } from 'url';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const hyp = await import(pathToFileURL(req.resolve('hyparquet')));
const { compressors } = await import(pathToFileURL(req.resolve('hyparquet-compressors')));
const con = await (await DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';

// unesc(s): the typed CSV's text (doc/tdat-convert.1: a backslash doubled,
// control characters and bytes that are not UTF-8 \xNN) as the dataset holds
// it: the text itself, a byte that is not UTF-8 as U+FFFD.  An escaped
// backslash is set apart first (as U+E000), so that "\\x41" stays "\x41".
{
	let e = `replace(s, '\\\\', chr(57344))`;
	e = `regexp_replace(${e}, '\\\\x[89a-f][0-9a-f]', chr(65533), 'g')`;
	for (const c of [...Array(32).keys(), 127].slice(1))
		e = `replace(${e}, '\\x${c.toString(16).padStart(2, '0')}', chr(${c}))`;
	await q(`create macro unesc(s) as replace(${e}, chr(57344), '\\')`);
}

const fixed = { ts: 'BIGINT', cpu: 'INTEGER', input: 'INTEGER', buffer: 'VARCHAR', pid: 'INTEGER',
		comm: 'VARCHAR', lost: 'BIGINT' };
const ints = { 1: 'TINYINT', 2: 'SMALLINT', 4: 'INTEGER', 8: 'BIGINT' };

// libtraceevent's element sizes of a dynamic array "__data_loc T[]" (type_size())
const dynSize = { u8: 1, u16: 2, u32: 4, u64: 8, s8: 1, s16: 2, s32: 4, s64: 8, char: 1 };

// The bytes of an element of a non-string array field (as libtraceevent 1.7
// and tdat's fields.c size them: 1 when they cannot tell, as for a
// "__data_loc cpumask_t" without brackets)
function elemSize(decl, size, lsize) {
	const n = decl.match(/\[([^\]]*)\]\s*\w*$/);
	let e = 1;
	if (/^__(data|rel)_loc/.test(decl))
		e = n ? dynSize[(decl.match(/(\w+)\s*\[/) || [])[1]] || 1 : 1;
	else if (n && /^\d+$/.test(n[1].trim()))
		e = size / +n[1];
	else if (size === 0 && /long/.test(decl))
		e = lsize;
	return ints[e] ? e : 1;
}

// [name, DuckDB type, cpumask element bytes] of each field of a format
// text, common_* left out: a string array (libtraceevent: char, u8 or s8
// elements) VARCHAR; another array a LIST of its elements' INTEGER type,
// or of INTEGER for a cpumask (the CPU numbers)
function formatTypes(text, lsize) {
	const out = [];
	for (const m of text.matchAll(/field:([^;]*);\s*offset:\d+;\s*size:(\d+);\s*signed:(\d+);/g)) {
		const decl = m[1].trim(), size = +m[2], signed = m[3] === '1';
		const name = (decl.match(/(\w+)\s*(\[[^\]]*\])?$/) || [, decl])[1];
		if (name.startsWith('common_'))
			continue;
		const array = /\[/.test(decl) || /^__(data|rel)_loc/.test(decl) || size === 0 || !ints[size];
		const e = elemSize(decl, size, lsize);
		if (!array)
			out.push([name, (signed ? '' : 'U') + ints[size]]);
		else if ((/\[/.test(decl) || size === 0) && /char|u8|s8/.test(decl))
			out.push([name, 'VARCHAR']);
		else if (/cpumask_t/.test(decl))
			out.push([name, 'INTEGER[]', e]);
		else
			out.push([name, (signed && e > 0 ? '' : 'U') + ints[e] + '[]']);
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

// The CPUs a cpumask's words (of @e bytes, CSV text "[w0,w1,...]") set, as a list
const cpus = (c, e) => `list_sort(flatten(list_transform(generate_series(1, len(cast(${c} as UBIGINT[]))),
	lambda i: list_transform(list_filter(generate_series(0, ${8 * e - 1}),
		lambda j: (cast(${c} as UBIGINT[])[i] >> j) & 1 = 1), lambda j: (i - 1) * ${8 * e} + j))))`;

// check DIR CSVDIR: the lines above, on standard output
async function check(dir, csvdir) {
	// the long size of the capture (trace.json, tdat-info --json): a flexible array of longs
	let lsize = 8;
	try {
		lsize = +(readFileSync(dir + '/_tdat/trace.json', 'utf8').match(/"long_size":(\d+)/) || [, 8])[1];
	} catch (e) { /* no trace.json: 8 */ }

	const ev = await q(`select system, event, count(*) from ${lit(dir + '/events.parquet')} group by all`);
	for (const [s, e, n] of ev)
		console.log(`events ${s}.${e} ${n}`);

	// the analysis tables (DIR/analysis/) are t-parquet-model.sh's
	for (const f of readdirSync(dir + '/event').filter((n) => n.endsWith('.parquet')).sort()) {
		const base = f.slice(0, -8), path = dir + '/event/' + f, csv = csvdir + '/' + base + '.csv';
		const cols = (await q(`describe select * from ${lit(path)}`)).map((r) => [r[0], r[1]]);
		console.log(`rows ${base} ${(await q(`select count(*) from ${lit(path)}`))[0][0]}`);

		const kv = await q(`select decode(value) from parquet_kv_metadata(${lit(path)})
				    where decode(key) = 'tdat.format'`);
		const format = kv.length ? kv[0][0] : '', syms = symFields(format);
		if (/^name: kernel_stack$/m.test(format))
			syms.add('caller');	/* a stack's symbols, one string */
		const want = Object.entries(fixed).concat(formatTypes(format, lsize).flatMap((c) =>
			syms.has(c[0]) && c[1] !== 'VARCHAR' ? [c, [c[0] + '_sym', 'VARCHAR']] : [c]));
		cols.forEach(([name, type], i) => {
			const w = want[i] || [name, 'VARCHAR'];	/* a message field past the format */
			if (type !== w[1] || (name !== w[0] && name !== 'field_' + w[0]))
				console.log(`type ${base} ${name} ${type} ${w[0]}:${w[1]}`);
		});

		const pq = cols.map(([c, t]) => t === 'VARCHAR' ? `coalesce(${id(c)}, '')` : id(c));
		const cs = cols.map(([c, t], i) => t === 'VARCHAR' ? `coalesce(unesc(${id(c)}), '')` :
				    want[i] && want[i][2] ? `cast(${cpus(id(c), want[i][2])} as ${t})` :
				    `cast(${id(c)} as ${t})`);
		const P = `select ${pq.join(', ')} from ${lit(path)}`;
		const C = `select ${cs.join(', ')} from read_csv(${lit(csv)}, header = true, all_varchar = true,
			   delim = ',', quote = '"', escape = '"')`;
		// EXCEPT ALL both ways in one pass (parquet-same.mjs): s, for each
		// distinct row, its copies in P less those in C
		const [[a, b]] = await q(`select coalesce(sum(greatest(s, 0)), 0), coalesce(sum(greatest(-s, 0)), 0)
			from (select * exclude (side_), sum(side_) as s from
				(select *, 1 as side_ from (${P}) union all select *, -1 from (${C}))
			group by all)`);
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

		const lists = cols.filter(([, t]) => t.endsWith('[]')).map(([c]) => c);
		const read = [...new Set(['ts', cols[cols.length - 1][0], ...lists])];
		const rows = await hyp.parquetReadObjects({ file: await hyp.asyncBufferFromFile(path),
							    columns: read, compressors });
		const duck = await q(`select ${read.map(id).join(', ')} from ${lit(path)}`);
		const str = (v) => v === null || v === undefined ? 'null' : Array.isArray(v) ?
			'[' + v.map(String).join(',') + ']' : String(v);
		const same = rows.length === duck.length && rows.every((r, i) =>
			read.every((c, k) => str(r[c]) === str(duck[i][k])));
		console.log(`hyparquet ${base} ${rows.length} ${same ? 'yes' : 'no'}`);
		if (lists.length)
			console.log(`lists ${base} ${rows.reduce((n, r) =>
				n + lists.reduce((m, c) => m + (r[c] ? r[c].length : 0), 0), 0)}`);
	}
}

if (process.argv.length > 2) {
	await check(process.argv[2], process.argv[3]);
} else {
	// no arguments: "DIR<TAB>CSVDIR<TAB>OUT" lines from standard input
	// (lib.sh's t_serve: one node for all of a test's datasets), the lines
	// of each written to OUT, and what the readers say on the console and
	// an error ("error ...") too, as 2>&1 had them; answered by "done"
	const say = { log: console.log, warn: console.warn, error: console.error };
	for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
		const [dir, csvdir, out] = line.split('\t');
		const lines = [];
		console.log = console.warn = console.error = (...a) => lines.push(a.join(' '));
		try {
			await check(dir, csvdir);
		} catch (e) {
			lines.push(`error ${String(e.message).split('\n')[0]}`);
		}
		Object.assign(console, say);
		writeFileSync(out, lines.map((l) => l + '\n').join(''));
		process.stdout.write('done\n');
	}
}
