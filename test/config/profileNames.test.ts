/**
 * The profile names a completion request reads (src/config/profileNames.ts), without the config's
 * schema: sorted, only valid names, and none from a file keydeck would not trust or cannot read.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configProfileNames } from '../../src/config/profileNames.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A config dir (0700) holding `text` as config.json (0600); its path. */
function configWith(text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-profile-names-'));
  dirs.push(dir);
  const configDir = path.join(dir, 'config');
  mkdirSync(configDir, { mode: 0o700 });
  const file = path.join(configDir, 'config.json');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('configProfileNames', () => {
  it('gives the valid profile names, sorted', async () => {
    const file = configWith(JSON.stringify({ currentProfile: 'b', profiles: { work: {}, bench: {}, '-bad': {}, 'a b': {} } }));
    expect(await configProfileNames(file)).toEqual(['bench', 'work']);
  });

  it('gives none for a missing file, a file that is not JSON, or one without profiles', async () => {
    expect(await configProfileNames(path.join(tmpdir(), 'keydeck-no-such-dir', 'config.json'))).toEqual([]);
    expect(await configProfileNames(configWith('{ not json'))).toEqual([]);
    expect(await configProfileNames(configWith(JSON.stringify({ profiles: ['a'] })))).toEqual([]);
  });

  it('gives none from a config file others may write (trusted as ssh trusts its own)', async () => {
    const file = configWith(JSON.stringify({ profiles: { work: {} } }));
    chmodSync(file, 0o666);
    expect(await configProfileNames(file)).toEqual([]);
  });
});
