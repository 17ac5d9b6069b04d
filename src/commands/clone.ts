/**
 * In a clone, `keydeck …` (as the manual and keydeck's own hints write every command) works once
 * the clone's `bin/` is on PATH (bin/keydeck: the clone's Node on dist/cli.js, no npx). Until then
 * keydeck says how, once, when the full-screen app on the demo account (`npm start`) ends: the
 * moment a newcomer turns to the commands it names.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The clone keydeck runs from (a folder with package.json, .git and bin/keydeck above this module), or undefined. */
export function cloneRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = path.dirname(from); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) {
      return existsSync(path.join(dir, '.git')) && existsSync(path.join(dir, 'bin', 'keydeck')) ? dir : undefined;
    }
  }
  return undefined;
}

/** True when a `keydeck` on PATH can be run. */
function keydeckOnPath(env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(path.join(dir, process.platform === 'win32' ? 'keydeck.cmd' : 'keydeck'), constants.X_OK);
      return true;
    } catch {
      // not there or not executable: not a keydeck
      return false;
    }
  });
}

/** The hint (one line, no newline) for a clone where `keydeck` does not run as written yet; else undefined. */
export function cloneHint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const root = cloneRoot();
  if (root === undefined || process.platform === 'win32' || keydeckOnPath(env)) return undefined;
  const bin = path.join(root, 'bin');
  return `keydeck: in this clone, the commands keydeck names (keydeck keys list, …) run as written once its bin/ is on PATH: export PATH="${bin}:$PATH" (README: Quick start)`;
}
