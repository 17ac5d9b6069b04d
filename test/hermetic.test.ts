/**
 * The suite is hermetic: run from a user's shell whose KEYDECK_CONFIG_DIR,
 * KEYDECK_DATA_DIR, HOME and XDG dirs point at that user's own keydeck, no test reads or writes it.
 * test/global-setup.ts (hermeticEnvironment) makes the run's environment its own before any worker
 * starts; this checks, in a worker, what every test and every CLI run inherits. The whole suite
 * run from such a shell, with a running sandbox there left untouched: scripts/hermetic-check.mjs.
 */
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, dataDir, sandboxDbPath } from '../src/config/paths.js';
import { makeTempHome } from './credentials/harness.js';

const runHome = process.env.KEYDECK_TEST_RUN_HOME;

/** True when `file` is inside `dir`. */
const inside = (file: string, dir: string) => !path.relative(dir, file).startsWith('..');

describe('a test run', () => {
  it('has a home of its own, in the OS temp dir, with the XDG base dirs under it', () => {
    expect(runHome).toBeDefined();
    expect(inside(runHome!, tmpdir())).toBe(true);
    expect(process.env.HOME).toBe(runHome);
    expect(homedir()).toBe(runHome);
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']) expect(inside(process.env[name]!, runHome!), name).toBe(true);
  });

  it('holds none of keydeck’s variables but those that steer the suites', () => {
    const keydeck = Object.keys(process.env).filter((name) => name.startsWith('KEYDECK_'));
    expect(keydeck.filter((name) => !/^KEYDECK_(TEST_|CRASH_|SCREENS_|BENCH_)/.test(name))).toEqual([]);
  });

  it('cannot reach the user’s keychain or desktop (no session bus, no display)', () => {
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'DISPLAY', 'WAYLAND_DISPLAY']) expect(process.env[name], name).toBeUndefined();
  });

  it('resolves keydeck’s default config and data dirs inside it, and a test’s own home inside the OS temp dir', () => {
    for (const file of [configDir(), dataDir(), sandboxDbPath()]) expect(inside(file, runHome!), file).toBe(true);
    const own = makeTempHome();
    try {
      const env = own.env();
      expect(inside(configDir(env), own.home)).toBe(true);
      expect(env.KEYDECK_DATA_DIR).toBeUndefined();
      expect(inside(env.HOME!, tmpdir())).toBe(true);
    } finally {
      own.remove();
    }
  });
});
