// The package tarball as it is published: `npm run pack [-- --pack-destination DIR] [--no-build]`.
//
// Builds dist/ (unless --no-build), then packs the files `npm pack` would (package.json's `files`)
// from a staging directory whose package.json keeps only what an installed keydeck needs: no
// `scripts`, no `devDependencies`, no `allowScripts`. The clone's `prepare` script (which builds
// dist/ after `npm install` in a clone) would otherwise ship in the tarball, and npm, installing a
// tarball (`npm install -g ./keydeck-X.Y.Z.tgz`), lists `prepare` among the install scripts it
// skipped and asks the user to allow it: a script that could not even run there (scripts/ is not
// packed). Prints the tarball's path on stdout.
//
// Publish the tarball it made: `npm publish ./keydeck-X.Y.Z.tgz`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The fields of package.json an installed package does not use. */
export const DEV_ONLY_FIELDS = ['scripts', 'devDependencies', 'allowScripts'];

/**
 * The Node.js an installed keydeck needs (`>=22.13`), from src/node-version.ts's `REQUIRED_NODE`,
 * the one place it is written. The clone's own `engines` is the Node that runs npm (`>=20`): a
 * clone runs keydeck and its tools on the Node it brings (the `node` devDependency), so npm has no
 * reason to warn about keydeck itself there, at `npm install` or at each `npx keydeck`.
 */
export function requiredNode() {
  const text = readFileSync(path.join(root, 'src', 'node-version.ts'), 'utf8');
  const version = /export const REQUIRED_NODE = '(\d+)\.(\d+)\.(\d+)'/.exec(text);
  if (!version) throw new Error('src/node-version.ts: no REQUIRED_NODE');
  return `>=${version[1]}.${version[2]}${version[3] === '0' ? '' : `.${version[3]}`}`;
}

/** package.json as published: `manifest` without {@link DEV_ONLY_FIELDS}, `engines.node` the Node keydeck needs. */
export function publishedManifest(manifest) {
  const out = { ...manifest, engines: { ...manifest.engines, node: requiredNode() } };
  for (const field of DEV_ONLY_FIELDS) delete out[field];
  return out;
}

/**
 * Packs the package into `destination` (created when missing); returns the tarball's path.
 * `build`: run `npm run build` first.
 */
export function pack({ destination = process.cwd(), build = true } = {}) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (build) execFileSync(npm, ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  // The files npm would pack (package.json's `files`, README, LICENSE), without running anything.
  const [listed] = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  const stage = mkdtempSync(path.join(tmpdir(), 'keydeck-pack-'));
  try {
    for (const { path: file } of listed.files) {
      if (file === 'package.json') continue;
      mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
      cpSync(path.join(root, file), path.join(stage, file));
    }
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
    mkdirSync(destination, { recursive: true });
    const [packed] = JSON.parse(execFileSync(npm, ['pack', stage, '--ignore-scripts', '--json', '--pack-destination', path.resolve(destination)], { cwd: root, encoding: 'utf8' }));
    return path.join(path.resolve(destination), packed.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--pack-destination');
  const destination = at >= 0 ? args[at + 1] : (process.env.INIT_CWD ?? process.cwd());
  process.stdout.write(`${pack({ destination, build: !args.includes('--no-build') })}\n`);
}
