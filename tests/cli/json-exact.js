// json-exact.js FILE: reads a tdat JSON file with JavaScript's own JSON.parse
// (numbers become doubles, as in most JSON readers) for t-json.sh, and prints
//   unsafe N   integers a double did not hold exactly (must be 0)
//   big N      decimal strings of 16 digits or more (the values written as strings)
//   sys_enter ID A,B,...   each raw_syscalls:sys_enter's id and args in hex,
//                          from the exact values (BigInt), as trace-cmd report
//                          prints them ("NR ID (A, B, ...)")
const fs = require('fs');
const j = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let unsafe = 0, big = 0;
const out = [];

(function walk(v, key) {
	if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
		unsafe++;
	} else if (typeof v === 'string' && /^-?\d{16,}$/.test(v)) {
		big++;
	} else if (v && typeof v === 'object') {
		if (key === 'sys_enter' && Array.isArray(v.args))
			out.push(v.id + ' ' + v.args.map((a) => BigInt(a).toString(16)).join(','));
		for (const [k, x] of Object.entries(v))
			walk(x, k);
	}
})(j, '');
console.log('unsafe ' + unsafe + '\nbig ' + big);
for (const l of out)
	console.log('sys_enter ' + l);
