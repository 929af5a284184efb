// parquet-model-check.mjs DIR CSVDIR TABLE...: each DIR/analysis/TABLE.parquet against
// CSVDIR/TABLE.csv, the sqlite writer's table of that name exported by
// sqlite3 (a header line, NULL as \N), both read by DuckDB: the CSV as text
// cast to the Parquet column's type, so values compare exactly
// (t-parquet-model.sh).  NPMDIR names the folder where npm installed
// @duckdb/node-api.  For each TABLE it prints
//   cols TABLE A,B,...   the Parquet file's column names, in order
//   types TABLE T,U,...  their DuckDB types
//   stats TABLE COL MIN MAX  for a DOUBLE column: the bounds its row groups'
//                        statistics give (min of the minima, max of the maxima)
//   rows TABLE N         its rows
//   except TABLE P C     rows of the Parquet file not in the CSV (EXCEPT ALL)
//                        and the other way round (text as it is in both)
// With no arguments it reads checks from standard input, one a line:
// "DIR<TAB>CSVDIR<TAB>OUT<TAB>TABLE..." writes those lines to OUT and
// answers "done" (lib.sh's t_serve: one node for a test's captures).
import { createRequire } from 'module';
import { writeFileSync } from 'fs';
import { createInterface } from 'readline';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const id = (s) => '"' + s.replaceAll('"', '""') + '"';

// check DIR CSVDIR TABLES LOG: the lines above, each given to LOG
async function check(dir, csvdir, tables, log) {
	for (const t of tables) {
		const path = `${dir}/analysis/${t}.parquet`, csv = `${csvdir}/${t}.csv`;
		const cols = await q(`select column_name, column_type
			from (describe select * from ${lit(path)})`);
		log(`cols ${t} ${cols.map((c) => c[0]).join(',')}`);
		log(`types ${t} ${cols.map((c) => c[1]).join(',')}`);
		for (const [n] of cols.filter((c) => c[1] === 'DOUBLE')) {
			const [[lo, hi]] = await q(`select min(stats_min_value::double),
				max(stats_max_value::double) from parquet_metadata(${lit(path)})
				where path_in_schema = ${lit(n)}`);
			log(`stats ${t} ${n} ${lo} ${hi}`);
		}
		log(`rows ${t} ${(await q(`select count(*) from ${lit(path)}`))[0][0]}`);
		// text as it is in both (a byte that is not UTF-8 is U+FFFD in both)
		const P = `select ${cols.map(([n]) => id(n)).join(', ')} from ${lit(path)}`;
		const C = `select ${cols.map(([n, ty]) => `cast(${id(n)} as ${ty})`).join(', ')}
			from read_csv(${lit(csv)}, header = true, all_varchar = true, nullstr = '\\N',
				      quote = '"', escape = '"', delim = ',')`;
		// EXCEPT ALL both ways in one pass (parquet-same.mjs): s, for each
		// distinct row, its copies in P less those in C
		const [[a, b]] = await q(`select coalesce(sum(greatest(s, 0)), 0), coalesce(sum(greatest(-s, 0)), 0)
			from (select * exclude (side_), sum(side_) as s from
				(select *, 1 as side_ from (${P}) union all select *, -1 from (${C}))
			group by all)`);
		log(`except ${t} ${a} ${b}`);
	}
}

if (process.argv.length > 2) {
	const [dir, csvdir, ...tables] = process.argv.slice(2);
	await check(dir, csvdir, tables, console.log);
} else {
	// no arguments: a check a line of standard input, "DIR<TAB>CSVDIR<TAB>OUT<TAB>TABLE..."
	// (lib.sh's t_serve), its lines written to OUT (an error as "error ..."),
	// answered by "done"
	for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
		const [dir, csvdir, out, ...tables] = line.split('\t');
		const lines = [];
		try {
			await check(dir, csvdir, tables, (l) => lines.push(l));
		} catch (e) {
			lines.push(`error ${String(e.message).split('\n')[0]}`);
		}
		writeFileSync(out, lines.map((l) => l + '\n').join(''));
		process.stdout.write('done\n');
	}
}
