/**
 * Builds dist/ once before the suites run, so tests that spawn the built CLI (`dist/cli.js`)
 * always exercise the current sources. esbuild takes well under a second.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
}
