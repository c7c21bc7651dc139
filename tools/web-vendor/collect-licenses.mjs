// Writes the licence texts of npm packages, and of everything they depend on, into one file.
//
// Usage: node collect-licenses.mjs OUT.txt PKG [PKG...]   (run inside the build's node_modules root)
// or:    node collect-licenses.mjs OUT.txt --metafile META.json [PKG...]   (the packages esbuild
//        bundled, plus packages copied as they are, such as katex, without their dependencies:
//        only the package's own files are shipped)
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [out, ...rest] = process.argv.slice(2);
const roots = [];
if (rest[0] === '--metafile') {
  const meta = JSON.parse(readFileSync(rest[1], 'utf8'));
  for (const input of Object.keys(meta.inputs)) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (m) roots.push(m[1]);
  }
  roots.push(...rest.slice(2));
} else {
  roots.push(...rest);
}

// Packages whose tarball ships no licence file: the text of the repository they come from.
const FALLBACK = { '@graphiql/plugin-explorer': 'graphiql', '@graphiql/react': 'graphiql', '@graphiql/toolkit': 'graphiql' };

function pkgDir(name, from = '.') {
  // Node's lookup: the nearest node_modules/NAME from `from` upwards.
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === '.' || dir === '/' || dir === '') break;
    dir = dirname(dir);
  }
  return join('node_modules', name);
}

const seen = new Map();
const queue = roots.map((name) => [name, '.']);
while (queue.length) {
  const [name, from] = queue.shift();
  const dir = pkgDir(name, from);
  if (seen.has(dir) || !existsSync(join(dir, 'package.json'))) continue;
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  seen.set(dir, pkg);
  if (rest[0] !== '--metafile') {
    for (const dep of Object.keys(pkg.dependencies || {})) queue.push([dep, dir]);
  }
}

const byId = new Map();
for (const [dir, pkg] of seen) {
  const id = `${pkg.name}@${pkg.version}`;
  if (byId.has(id)) continue;
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  let text;
  if (file) {
    text = readFileSync(join(dir, file), 'utf8').trim();
  } else if (FALLBACK[pkg.name]) {
    const other = pkgDir(FALLBACK[pkg.name]);
    const otherFile = readdirSync(other).find((f) => /^licen[cs]e/i.test(f));
    text = `(no licence file in the package; the text of ${FALLBACK[pkg.name]}, from the same repository)\n\n` +
      readFileSync(join(other, otherFile), 'utf8').trim();
  } else {
    text = `(no licence file in the package; package.json says: ${pkg.license})`;
  }
  byId.set(id, `${id}  (${pkg.license})\n${'-'.repeat(72)}\n${text}\n`);
}
const ids = [...byId.keys()].sort();
writeFileSync(out, `Licences of the third-party files in this folder (${ids.length} npm packages).\n\n` +
  ids.map((id) => byId.get(id)).join('\n'));
console.log(`${out}: ${ids.length} packages`);
