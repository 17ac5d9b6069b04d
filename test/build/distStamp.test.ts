/**
 * The stamp that lets the suites' global set-up skip its build (scripts/dist-stamp.mjs): the
 * inputs' digest follows their content, never their timestamps, and covers the sources, the build
 * scripts, the configs, the installed tree's lock file and the build's arguments.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { distDigest, inputsDigest } from '../../scripts/dist-stamp.mjs';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A clone's build inputs in a temp dir. */
function clone(): string {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-stamp-'));
  for (const d of ['src/api', 'scripts', 'node_modules']) mkdirSync(path.join(dir, d), { recursive: true });
  const files: Record<string, string> = {
    'src/cli.ts': 'export {};\n',
    'src/api/client.ts': 'export const a = 1;\n',
    'scripts/build.mjs': '// build\n',
    'package.json': '{}\n',
    'package-lock.json': '{}\n',
    'tsconfig.json': '{}\n',
    'tsconfig.types.json': '{}\n',
    'node_modules/.package-lock.json': '{"packages":{}}\n',
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

describe('the stamp of dist/', () => {
  it('keeps its digest when a file is only saved again, and changes it for a byte of any input, a new file or other arguments', () => {
    const base = clone();
    const first = inputsDigest([], base);
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(base, 'src/api/client.ts'), later, later);
    expect(inputsDigest([], base)).toBe(first);
    expect(inputsDigest(['--no-types'], base)).not.toBe(first);
    for (const file of ['src/api/client.ts', 'scripts/build.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.types.json', 'node_modules/.package-lock.json']) {
      const p = path.join(base, file);
      const before = inputsDigest([], base);
      writeFileSync(p, `${file} changed\n`);
      expect(inputsDigest([], base), file).not.toBe(before);
    }
    const before = inputsDigest([], base);
    writeFileSync(path.join(base, 'src/new.ts'), '');
    expect(inputsDigest([], base)).not.toBe(before);
  });

  it("changes the output's digest for a byte of any file of dist/", () => {
    const base = clone();
    const dist = path.join(base, 'dist');
    mkdirSync(path.join(dist, 'chunks'), { recursive: true });
    writeFileSync(path.join(dist, 'cli.js'), 'a');
    writeFileSync(path.join(dist, 'chunks', 'x.js'), 'b');
    const first = distDigest(dist);
    writeFileSync(path.join(dist, 'chunks', 'x.js'), 'c');
    expect(distDigest(dist)).not.toBe(first);
  });
});
