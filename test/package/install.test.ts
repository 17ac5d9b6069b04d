/**
 * The exporter's systemd unit as its install section says to install it: each line of
 * the section run as root in a fresh Debian 12 chroot by contrib/systemd/install-check.sh, then
 * `systemd-analyze verify` on the installed unit and the program of its ExecStart= printing the
 * version. It needs root, a debootstrap of Debian 12 (`debootstrap --variant=minbase bookworm DIR`,
 * named by KEYDECK_DEBOOTSTRAP_BASE) and the registries: opt-in, skipped elsewhere (CI too, whose
 * 10 minutes it would not fit). CI checks instead what needs no chroot: the unit verified and rated
 * by systemd-analyze, its ExecStart= and ExecStartPre= the exporter's flags (test/metrics/contrib.test.ts),
 * and the packed package installed with npm and run (test/package/pack.test.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const base = process.env.KEYDECK_DEBOOTSTRAP_BASE;
const runs = base !== undefined && existsSync(path.join(base, 'bin', 'bash')) && process.getuid?.() === 0;

describe.skipIf(!runs)('the systemd unit, installed as its comment says in a fresh Debian 12', () => {
  it('every install line works; systemd-analyze verify accepts the unit; its ExecStart prints the version', { timeout: 900_000 }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-install-'));
    try {
      const tarball = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.mjs'), '--no-build', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }).trim();
      const run = spawnSync(path.join(ROOT, 'contrib', 'systemd', 'install-check.sh'), [base!, tarball], { encoding: 'utf8', timeout: 880_000 });
      const output = `${run.stdout}${run.stderr}`;
      expect(output, output).toMatch(/install-check: ExecStart prints \d+\.\d+\.\d+\n/);
      expect(run.status, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
