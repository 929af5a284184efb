// parquet-same.mjs A=B ...: whether the Parquet datasets A and B hold the same
// tables and rows, read by DuckDB (t-merged.sh: a merged trace.dat against its
// inputs given together; t-pieces.sh: the pieces of a split against the
// input).  The pairs are its arguments, or with none the lines of standard
// input ("A<TAB>B", lib.sh's t_serve).  For each pair it prints one line:
//   same A B FILES ROWS           every .parquet file under A is under B (and
//                                 the other way round) with the same rows
//   differ A B WHAT               the first difference: a file one side lacks,
//                                 or a file whose rows differ (EXCEPT ALL both
//                                 ways, with the counts, in one GROUP BY)
// NPMDIR names the folder where npm installed @duckdb/node-api.
import { createRequire } from 'module';
import { readdirSync, statSync } from 'fs';
import { join, relative } from 'path';
import { createInterface } from 'readline';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
// one thread: the files are small, and the test runs beside others.  No
// external file cache: DuckDB keeps what it read of a file by its path and
// takes it again while the file's modification time, in whole seconds, is
// the same; the tests write new files under the same paths several times a
// second, and it read stale pages of the last one ("ZSTD Decompression
// failure", 3 of 75 merged pairs on a fast machine).  Every DuckDB of the
// tests is opened so.
const con = await (await DuckDBInstance.create(':memory:', { threads: '1', enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";

function files(dir) {
	const out = [];
	for (const e of readdirSync(dir)) {
		const p = join(dir, e);
		if (statSync(p).isDirectory())
			out.push(...files(p).map((f) => join(e, f)));
		else if (e.endsWith('.parquet'))
			out.push(e);
	}
	return out.sort();
}

async function compare(a, b) {
	const fa = files(a), fb = files(b);
	const missing = fa.filter((f) => !fb.includes(f)).concat(fb.filter((f) => !fa.includes(f)));
	if (missing.length)
		return `differ ${a} ${b} only one side has ${missing.join(',')}`;
	let rows = 0n;
	for (const f of fa) {
		const pa = lit(join(a, f)), pb = lit(join(b, f));
		// EXCEPT ALL both ways, in one pass: s, for each distinct row, how
		// many more times it is in A than in B; what A EXCEPT ALL B keeps
		// is the sum of the positive ones, B EXCEPT ALL A the negative
		const [[n, x, y]] = await q(`select (select count(*) from ${pa}),
			coalesce(sum(greatest(s, 0)), 0), coalesce(sum(greatest(-s, 0)), 0)
			from (select * exclude (side_), sum(side_) as s from
				(select *, 1 as side_ from ${pa} union all select *, -1 from ${pb})
			group by all)`);
		if (x || y)
			return `differ ${a} ${b} ${f}: ${x} rows only in the first, ${y} only in the second`;
		rows += BigInt(n);
	}
	return `same ${a} ${b} ${fa.length} ${rows}`;
}

async function answer(a, b) {
	try {
		return await compare(a, b);
	} catch (e) {
		return `differ ${a} ${b} ${String(e.message).split('\n')[0]}`;
	}
}

if (process.argv.length > 2) {
	for (const arg of process.argv.slice(2)) {
		const [a, b] = arg.split('=');
		console.log(await answer(a, b));
	}
} else {
	// no A=B: pairs from standard input, "A<TAB>B" a line, each answered
	// before the next is read (lib.sh's t_serve: the test may remove A and B)
	for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
		const [a, b] = line.split('\t');
		process.stdout.write((await answer(a, b)) + '\n');
	}
}
