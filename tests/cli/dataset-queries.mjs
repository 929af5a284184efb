// dataset-queries.mjs PAGE OUT ARCHIVE: every query of PAGE's EXAMPLES
// (a man page source), run as the page shows it on the dataset OUT (for
// 'out/...') and the archive ARCHIVE ('archive/...') (t-dataset.sh).
// `duckdb -c "SQL"` lines run in DuckDB (@duckdb/node-api); polars
// statements (`pl.` or `(pl.` up to the closing parenthesis) are Python:
// they run in nodejs-polars, their names turned into that API's
// (scan_parquet: scanParquet, group_by: groupBy, hive_partitioning=True:
// {hivePartitioning: true}, descending=[...]: the second argument of sort,
// collect(): collectSync()), so a line that uses anything else fails here.
// NPMDIR names the npm folder.  Prints, for each query in order,
// "duckdb N" or "polars N" then its rows, one a line, values joined by '|'.
import { createRequire } from 'module';
import { readFileSync } from 'fs';

const req = createRequire(process.env.NPMDIR + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
const pl = req('nodejs-polars');
const [page, out, archive] = process.argv.slice(2);

const roff = readFileSync(page, 'utf8');
const ex = roff.slice(roff.indexOf('\n.SH EXAMPLES'), roff.indexOf('\n.SH', roff.indexOf('\n.SH EXAMPLES') + 1));
const blocks = [...ex.matchAll(/\n\.EX\n([\s\S]*?)\n\.EE/g)].map((m) =>
	m[1].replaceAll('\\-', '-').replaceAll('\\e', '\\'));
const text = blocks.join('\n');
const paths = (s) => s.replaceAll("'out/", `'${out}/`).replaceAll("'archive/", `'${archive}/`);

const queries = [];
for (const m of text.matchAll(/duckdb -c "([^"]*)"/g))
	queries.push(['duckdb', m.index, paths(m[1])]);
const lines = text.split('\n');
for (let i = 0, at = 0; i < lines.length; at += lines[i].length + 1, i++) {
	if (!/^\(?pl\./.test(lines[i]))
		continue;
	let stmt = lines[i];
	while (stmt.startsWith('(') && (stmt.match(/\(/g).length > stmt.match(/\)/g).length))
		stmt += lines[++i].trim();
	queries.push(['polars', at, paths(stmt)]);
}
queries.sort((a, b) => a[1] - b[1]);

function toNode(py) {
	return py.replace(/^\((.*)\)$/s, '$1')
		.replaceAll('scan_parquet(', 'scanParquet(')
		.replaceAll('.group_by(', '.groupBy(')
		.replaceAll(', hive_partitioning=True)', ', {hivePartitioning: true})')
		.replaceAll('descending=', '')
		.replaceAll('True', 'true').replaceAll('False', 'false')
		.replaceAll('.collect()', '.collectSync()');
}

const con = await (await DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
const n = { duckdb: 0, polars: 0 };
for (const [kind, , q] of queries) {
	console.log(`${kind} ${++n[kind]}`);
	let rows;
	try {
		rows = kind === 'duckdb' ? (await con.runAndReadAll(q)).getRowsJS() :
			new Function('pl', `return ${toNode(q)};`)(pl).rows();
	} catch (e) {
		console.log(`error ${String(e.message || e).split('\n')[0]}`);
		continue;
	}
	for (const r of rows)
		console.log(r.map(String).join('|'));
}
