/**
 * Which profile applies (src/config/profileChoice.ts) and the marks (src/config/profileMarks.ts),
 * on real files in a temp dir: the order of the rules, a `.keydeck` file found up from the working
 * directory and trusted as the config file is, `profileRules` by the longest path on path
 * boundaries, `--read-only` and the profile's own marks, and the one listing of every profile.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, type KeydeckConfig } from '../../src/config/config.js';
import { resolveFromConfig } from '../../src/config/profile.js';
import { chooseProfile, describeChoice, matchingRule } from '../../src/config/profileChoice.js';
import { ensureWritable, listProfiles, ReadOnlyError } from '../../src/config/profileMarks.js';
import { belowSentence } from '../../src/words/index.js';

let dir: string;
const configPath = '/c/config.json';
const config: KeydeckConfig = {
  version: 1,
  currentProfile: 'dev',
  profiles: { dev: { baseUrl: 'http://127.0.0.1:8787' }, prod: { baseUrl: 'https://api.example.com/', readOnly: true }, acme: { baseUrl: 'https://acme.example', protected: true } },
  profileRules: [
    { path: '~/clients', profile: 'dev' },
    { path: '~/clients/acme', profile: 'acme' },
  ],
};
const env = () => ({ HOME: dir });

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-choice-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('chooseProfile', () => {
  it('--profile, then KEYDECK_PROFILE, then a directory rule, then the default: each said', () => {
    const work = path.join(dir, 'clients', 'acme', 'api');
    mkdirSync(work, { recursive: true });
    expect(chooseProfile(config, configPath, { profile: 'prod', cwd: work }, { ...env(), KEYDECK_PROFILE: 'dev' })).toEqual({ name: 'prod', chosenBy: { rule: 'flag' } });
    expect(chooseProfile(config, configPath, { profile: 'prod', source: 'env', cwd: work }, env())).toEqual({ name: 'prod', chosenBy: { rule: 'env' } });
    expect(chooseProfile(config, configPath, { cwd: work }, { ...env(), KEYDECK_PROFILE: 'prod' })).toEqual({ name: 'prod', chosenBy: { rule: 'env' } });
    expect(chooseProfile(config, configPath, { cwd: work }, env())).toEqual({ name: 'acme', chosenBy: { rule: 'profileRules', path: '~/clients/acme', configPath } });
    expect(chooseProfile(config, configPath, { cwd: dir }, env())).toEqual({ name: 'dev', chosenBy: { rule: 'currentProfile', configPath } });
    expect(chooseProfile({ version: 1, profiles: {} }, configPath, { cwd: dir }, env())).toEqual({ name: 'default', chosenBy: { rule: 'default' } });
    // A .keydeck file comes before profileRules.
    writeFileSync(path.join(dir, 'clients', '.keydeck'), '\uFEFFprod\r\nanything else\n');
    expect(chooseProfile(config, configPath, { cwd: work }, env())).toEqual({ name: 'prod', chosenBy: { rule: 'file', path: path.join(dir, 'clients', '.keydeck') } });
    expect(describeChoice({ rule: 'file', path: '/x/.keydeck' })).toBe('the file /x/.keydeck');
  });

  it('a .keydeck file others could change is refused with the fix, never skipped; a directory named .keydeck is not one', () => {
    const work = path.join(dir, 'p', 'q');
    mkdirSync(work, { recursive: true });
    mkdirSync(path.join(work, '.keydeck'));
    const file = path.join(dir, 'p', '.keydeck');
    writeFileSync(file, 'prod\n');
    chmodSync(file, 0o664);
    const writable = configError(() => chooseProfile(config, configPath, { cwd: work }, env()));
    expect(writable.code).toBe('config_untrusted');
    expect(writable.message).toBe(
      `the profile file ${file} is writable by group or others (mode 0664): another user could choose which of your profiles keydeck uses in this directory, so keydeck does not use it; fix it with \`chmod 644 ${file}\`.`,
    );
    chmodSync(file, 0o644);
    chmodSync(path.join(dir, 'p'), 0o775);
    const dirWritable = configError(() => chooseProfile(config, configPath, { cwd: work }, env()));
    expect(dirWritable.code).toBe('config_untrusted');
    expect(dirWritable.message).toMatch(new RegExp(`^keydeck does not use the profile file ${file}: the directory ${path.join(dir, 'p')} can be written by group or others \\(mode 0775\\)`));
    chmodSync(path.join(dir, 'p'), 0o755);
    expect(chooseProfile(config, configPath, { cwd: work }, env()).name).toBe('prod');
  });

  it('a .keydeck file must name a valid profile the config file has', () => {
    const file = path.join(dir, '.keydeck');
    writeFileSync(file, '\n');
    expect(configError(() => chooseProfile(config, configPath, { cwd: dir }, env())).message).toBe(
      `the profile file ${file} names no profile on its first line: write the profile's name there, or remove the file.`,
    );
    writeFileSync(file, '../etc\n');
    expect(configError(() => chooseProfile(config, configPath, { cwd: dir }, env())).code).toBe('invalid_profile_name');
    writeFileSync(file, 'staging');
    const unknown = configError(() => chooseProfile(config, configPath, { cwd: dir }, env()));
    expect(unknown.code).toBe('no_such_profile');
    expect(unknown.message).toBe(`the file ${file} chooses the profile "staging", which ${configPath} does not have`);
    // What to do is the face's: the command line names its commands.
    expect(belowSentence(unknown)).toBe(
      `the file ${file} chooses the profile "staging", which ${configPath} does not have: add it with \`keydeck profile add staging --base-url URL\`, or choose another with --profile NAME`,
    );
  });

  it('profileRules: the longest path that holds the directory, on path boundaries, through a link too', () => {
    mkdirSync(path.join(dir, 'real', 'acme'), { recursive: true });
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    const rules = [
      { path: path.join(dir, 'link'), profile: 'dev' },
      { path: `${dir}/real/acme`, profile: 'acme' },
    ];
    expect(matchingRule(rules, path.join(dir, 'real', 'acme'), env())?.profile).toBe('acme');
    expect(matchingRule(rules, path.join(dir, 'real', 'acme-old'), env())?.profile).toBe('dev');
    expect(matchingRule(rules, path.join(dir, 'realm'), env())).toBeUndefined();
    expect(matchingRule([{ path: '~', profile: 'dev' }], path.join(dir, 'x'), env())?.profile).toBe('dev');
  });
});

describe('the marks', () => {
  it('readOnly from the profile or --read-only, protected from the profile; ensureWritable refuses with one sentence', () => {
    const prod = resolveFromConfig(config, configPath, { profile: 'prod' }, env());
    expect(prod).toMatchObject({ name: 'prod', readOnly: { by: 'profile' }, protected: false });
    expect(resolveFromConfig(config, configPath, { profile: 'acme' }, env())).toMatchObject({ protected: true });
    expect(resolveFromConfig(config, configPath, { profile: 'dev' }, env())).not.toHaveProperty('readOnly');
    expect(resolveFromConfig(config, configPath, { profile: 'dev', readOnly: true }, env())).toMatchObject({ readOnly: { by: 'flag' } });
    expect(() => ensureWritable(prod, 'delete a key')).toThrow(ReadOnlyError);
    expect(() => ensureWritable(prod, 'delete a key')).toThrow('read_only: the profile "prod" is read-only (readOnly in /c/config.json), so keydeck does not delete a key; nothing was sent');
    let refused: unknown;
    try {
      ensureWritable(prod, 'delete a key');
    } catch (error) {
      refused = error;
    }
    // How to lift it is the face's: the command line names the command.
    expect(belowSentence(refused)).toBe(
      'read_only: the profile "prod" is read-only (readOnly in /c/config.json), so keydeck does not delete a key; nothing was sent (unmark it first with `keydeck profile set prod --no-read-only`)',
    );
    expect(() => ensureWritable(resolveFromConfig(config, configPath, { profile: 'dev' }, env()), 'delete a key')).not.toThrow();
  });

  it('listProfiles: every profile with its origin, marks and whether it is the default', () => {
    expect(listProfiles(config)).toEqual([
      { name: 'acme', baseUrl: 'https://acme.example', origin: 'https://acme.example', readOnly: false, protected: true, isDefault: false },
      { name: 'dev', baseUrl: 'http://127.0.0.1:8787', origin: 'http://127.0.0.1:8787', readOnly: false, protected: false, isDefault: true },
      { name: 'prod', baseUrl: 'https://api.example.com', origin: 'https://api.example.com', readOnly: true, protected: false, isDefault: false },
    ]);
  });
});
