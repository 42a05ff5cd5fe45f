// Usage: npm install gltf-validator@2.0.0-dev.3.10 && node benches/validator/check-folder.js DIR
// The Khronos validator over the same folder `rigscope check DIR` reads, for PERFORMANCE.md.
// Validates every .glb/.gltf under a folder with the Khronos validator, one after another.
const fs = require('fs'), path = require('path'), v = require('gltf-validator');
function walk(d, out) { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p, out); else if (/\.(glb|gltf)$/.test(e.name)) out.push(p); } return out; }
(async () => {
  const files = walk(process.argv[2], []).sort();
  let issues = 0;
  for (const f of files) {
    const r = await v.validateBytes(new Uint8Array(fs.readFileSync(f)), {
      uri: f, externalResourceFunction: (uri) => new Promise((ok, no) => fs.readFile(path.join(path.dirname(f), decodeURIComponent(uri)), (e, d) => e ? no(e) : ok(new Uint8Array(d)))) });
    issues += r.issues.numErrors;
  }
  console.log(`${files.length} files, ${issues} errors`);
})();
