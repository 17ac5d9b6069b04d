/**
 * The resident commands' V8 flags, given at process start (src/cli/startFlags.ts):
 * `keydeck exporter` starts again in the same process with them (process.execve: the pid its
 * supervisor knows stays the one that serves), keeps the node options it was started with, and
 * serves as before; where the system offers no execve it runs on with V8's defaults.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_FLAGS } from '../../src/cli/startFlags.js';
import type { TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, killAll, startExporter, writeConfig } from '../exporter/rig.js';

let sandbox: TestSandbox;
const homes: TempHome[] = [];
beforeAll(async () => {
  sandbox = await startTestSandbox({ host: '127.0.0.1' });
});
afterAll(async () => {
  killAll();
  await sandbox?.close();
  for (const h of homes) h.remove();
});

/** The command line of process `pid` (Linux /proc), as its words. */
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

(process.platform === 'linux' ? describe.concurrent : describe.skip)('the resident commands’ V8 flags', () => {
  it('keydeck exporter runs with its flags, in the process it was started as, its own node options kept', { timeout: 30_000 }, async () => {
    const h = exporterHome();
    homes.push(h);
    writeConfig(h, { prod: { baseUrl: sandbox.url } });
    const marker = path.join(h.home, 'marker.mjs');
    writeFileSync(marker, '');
    const exporter = await startExporter(h, ['--listen', '127.0.0.1:0'], {}, ['--import', marker]);
    const words = commandLine(exporter.child.pid!);
    expect(words).toEqual(expect.arrayContaining([...START_FLAGS.exporter!, '--import', marker, 'exporter', '--listen', '127.0.0.1:0']));
    // The flags go before the script, the command's own words after it.
    expect(words.indexOf(START_FLAGS.exporter![0]!)).toBeLessThan(words.findIndex((w) => w.endsWith('cli.js')));
    expect(await exporter.scrape()).toMatch(/^keydeck_build_info\{/m);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });

  it('without process.execve (Windows, an older Node) the exporter runs on with V8’s defaults', { timeout: 30_000 }, async () => {
    const h = exporterHome();
    homes.push(h);
    writeConfig(h, { prod: { baseUrl: sandbox.url } });
    const noExecve = path.join(h.home, 'no-execve.mjs');
    writeFileSync(noExecve, 'delete process.execve;\n');
    const exporter = await startExporter(h, ['--listen', '127.0.0.1:0'], {}, ['--import', noExecve]);
    expect(commandLine(exporter.child.pid!)).not.toContain(START_FLAGS.exporter![0]);
    expect(await exporter.scrape()).toMatch(/^keydeck_build_info\{/m);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });
});
