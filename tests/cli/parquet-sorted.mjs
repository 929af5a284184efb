// parquet-sorted.mjs DIR: checks the footer of every Parquet file of a tdat
// dataset (DIR/events.parquet, DIR/event/*.parquet, DIR/analysis/*.parquet)
// against its rows, both read with hyparquet (t-parquet-sorted.sh).  NPMDIR
// names the folder where npm installed hyparquet and hyparquet-compressors.
//
// The footer is read with hyparquet's own Thrift decoder (its parsed
// metadata leaves out Statistics.nan_count, field 9 of parquet.thrift), the
// rows with parquetReadObjects.  The writer declares a sort order in every
// row group of a file whose rows are all in order, else in none.  It prints
//   sorted FILE RG COL       row group RG declares sorting_columns COL ascending
//                            and its rows are in that order (nulls last), and so
//                            are the file's rows before it
//   unsorted FILE RG COL I   ... but row I (of the file) is out of that order
//   mixed FILE N of M        only N of its M row groups declare a sort order (an
//                            engine that takes it for the file's would be wrong)
//   nan FILE RG COL N        a DOUBLE column chunk whose statistics count N NaN
//                            values, and it holds N
//   badnan FILE RG COL S N   its statistics say S (none: "-"), it holds N
//   files N DECLARING        files read, and how many declare a sort order
import { createRequire } from 'module';
import { readdirSync, readFileSync, existsSync } from 'fs';
import { dirname } from 'path';
import { pathToFileURL } from 'url';

const req = createRequire(process.env.NPMDIR + '/');
const hyp = await import(pathToFileURL(req.resolve('hyparquet')));
const thrift = await import(pathToFileURL(dirname(req.resolve('hyparquet')) + '/thrift.js'));
const { compressors } = await import(pathToFileURL(req.resolve('hyparquet-compressors')));
const [dir] = process.argv.slice(2);

const DOUBLE = 5;
const text = (b) => typeof b === 'string' ? b : new TextDecoder().decode(b);

function footer(buf) {
	const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
	const len = view.getUint32(buf.byteLength - 8, true);
	return thrift.deserializeTCompactProtocol({ view, offset: buf.byteLength - 8 - len });
}

const files = [];
if (existsSync(dir + '/events.parquet'))
	files.push('events.parquet');
for (const sub of ['event', 'analysis'])
	for (const f of readdirSync(dir + '/' + sub).filter((n) => n.endsWith('.parquet')).sort())
		files.push(sub + '/' + f);

const less = (a, b) => typeof a === typeof b ? a < b : BigInt(a) < BigInt(b);
let declaring = 0;
for (const f of files) {
	const buf = readFileSync(dir + '/' + f);
	const meta = footer(buf);
	const leaves = meta.field_2.filter((s) => s.field_5 === undefined);	/* num_children */
	const rgs = meta.field_4 || [];
	const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	const col = async (name) => (await hyp.parquetReadObjects({ file, columns: [name],
		compressors, rowFormat: 'object' })).map((r) => r[name]);
	let any = false, start = 0, ndecl = 0;
	const cache = {};
	for (let g = 0; g < rgs.length; g++) {
		const rg = rgs[g], n = Number(rg.field_3);
		ndecl += (rg.field_4 || []).length > 0;
		for (const sc of rg.field_4 || []) {
			const c = sc.field_1, name = text(leaves[c].field_4);
			const v = cache[name] ??= await col(name);
			let bad = -1;
			if (sc.field_2 || sc.field_3)
				bad = start;	/* only ascending, nulls last, is written */
			for (let i = 1; bad < 0 && i < start + n; i++)
				if (v[i - 1] === null ? v[i] !== null : v[i] !== null && less(v[i], v[i - 1]))
					bad = i;
			console.log(bad < 0 ? `sorted ${f} ${g} ${name}` : `unsorted ${f} ${g} ${name} ${bad}`);
			any = true;
		}
		for (let c = 0; c < rg.field_1.length; c++) {
			const md = rg.field_1[c].field_3;
			if (md.field_1 !== DOUBLE)
				continue;
			const name = text(leaves[c].field_4);
			const v = cache[name] ??= await col(name);
			const nans = v.slice(start, start + n).filter((x) => Number.isNaN(x)).length;
			const s = md.field_12 && md.field_12.field_9;
			console.log(s !== undefined && Number(s) === nans ? `nan ${f} ${g} ${name} ${nans}` :
				    `badnan ${f} ${g} ${name} ${s === undefined ? '-' : s} ${nans}`);
		}
		start += n;
	}
	if (ndecl && ndecl !== rgs.length)
		console.log(`mixed ${f} ${ndecl} of ${rgs.length}`);
	declaring += any;
}
console.log(`files ${files.length} ${declaring}`);
