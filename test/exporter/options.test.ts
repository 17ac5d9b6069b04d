/**
 * The exporter's pure parts: its flags, its log lines, the per-profile token
 * variables and files, and which profiles it picks from the config.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { profileFlags } from '../../src/cli/exporter.js';
import { createCredentialStore } from '../../src/credentials/index.js';
import { ambiguousTokenVars, findCredential, tokenEnvVar } from '../../src/exporter/credentials.js';
import { createLogger, formatLine } from '../../src/exporter/log.js';
import { parseExporterFlags } from '../../src/exporter/options.js';
import { selectProfiles } from '../../src/exporter/profiles.js';
import { strayTokenDirFiles, unwatchedTokenFiles } from '../../src/exporter/sources.js';
import { suggestCommand } from '../../src/commands/suggest.js';

const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-exporter-units-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the flags of keydeck exporter', () => {
  it('default to loopback port 9464, 60 s, logfmt, the current profile', () => {
    const r = parseExporterFlags({});
    expect(r).toMatchObject({ ok: true, options: { listen: { host: '127.0.0.1', port: 9464 }, intervalSeconds: 60, logFormat: 'logfmt', selection: { kind: 'current' } } });
  });

  it('take repeated --profile, --all-profiles, --token-file PROFILE=PATH (relative to the working dir)', () => {
    expect(parseExporterFlags({ profiles: ['a', 'b.c'], listen: '0.0.0.0:9999', interval: '2' })).toMatchObject({
      ok: true,
      options: { selection: { kind: 'names', names: ['a', 'b.c'] }, listen: { host: '0.0.0.0', port: 9999 }, intervalSeconds: 2 },
    });
    const r = parseExporterFlags({ allProfiles: true, tokenFile: ['prod=tok', 'dev=/run/creds/dev'] }, '/srv');
    expect(r.ok && [...r.options.tokenFiles]).toEqual([
      ['prod', '/srv/tok'],
      ['dev', '/run/creds/dev'],
    ]);
  });

  it('refuse what cannot work, in one sentence, before anything runs', () => {
    const reason = (flags: Parameters<typeof parseExporterFlags>[0]) => {
      const r = parseExporterFlags(flags);
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason({ interval: '1' })).toBe('--interval must be at least 2 seconds');
    expect(reason({ listen: 'localhost' })).toContain('--listen must be PORT, :PORT or HOST:PORT');
    expect(reason({ logFormat: 'xml' })).toBe('--log-format must be logfmt or json');
    expect(reason({ allProfiles: true, profiles: ['a'] })).toContain('not both');
    expect(reason({ profiles: ['bad name'] })).toContain('is not a valid profile name');
    expect(reason({ tokenFile: ['prod'] })).toContain('--token-file must be PROFILE=PATH');
    expect(reason({ tokenFile: ['prod=mk_abcdefghijklmnop'] })).toContain('never the token itself');
    expect(reason({ tokenFile: ['a=x', 'a=y'] })).toContain('twice');
  });

  it('take --token-dir (relative to the working dir) and --log-level; a bad one is said in the chosen log format', () => {
    expect(parseExporterFlags({ tokenDir: 'tokens', logLevel: 'debug' }, '/etc/keydeck-exporter')).toMatchObject({
      ok: true,
      options: { tokenDir: '/etc/keydeck-exporter/tokens', logLevel: 'debug' },
    });
    expect(parseExporterFlags({})).toMatchObject({ ok: true, options: { logLevel: 'info' } });
    expect(parseExporterFlags({ logLevel: 'loud', logFormat: 'json' })).toEqual({ ok: false, reason: '--log-level must be one of debug, info, warn, error', logFormat: 'json' });
    expect(parseExporterFlags({ tokenDir: 'mk_abcdefghijklmnop' })).toMatchObject({ ok: false, reason: expect.stringContaining('never a token itself') });
    // A bad --log-format itself: no format to say it in.
    expect(parseExporterFlags({ logFormat: 'xml' })).toEqual({ ok: false, reason: '--log-format must be logfmt or json' });
  });

  it('every --profile on the command line counts, wherever it stands, until --', () => {
    expect(profileFlags(['node', 'cli', '--profile', 'a', 'exporter', '--profile=b', '--profile', 'c', '--', '--profile', 'd'])).toEqual(['a', 'b', 'c']);
  });
});

describe('the log lines', () => {
  const t = Date.UTC(2025, 0, 2, 3, 4, 5);
  it('logfmt: quoted when needed, escapes inside, controls made visible, one line', () => {
    const line = formatLine('logfmt', 'warn', 'profile_down', { profile: 'prod', reason: 'unreachable', msg: 'no "answer"\nfrom \u001b[31mx', n: 3, skipped: undefined }, t);
    expect(line).toBe('time=2025-01-02T03:04:05.000Z level=warn event=profile_down profile=prod reason=unreachable msg="no \\"answer\\"\\\\u000afrom \\\\u001b[31mx" n=3');
    expect(line).not.toMatch(/[\n\u001b]/);
  });

  it('a log level leaves out the less severe lines', () => {
    const lines: string[] = [];
    const log = createLogger(
      'logfmt',
      (l) => lines.push(l),
      () => t,
      'warn',
    );
    log.debug('poll');
    log.info('listening');
    log.warn('profile_down');
    log.error('config_rejected');
    expect(lines.map((l) => /event=(\w+)/.exec(l)![1])).toEqual(['profile_down', 'config_rejected']);
    const all: string[] = [];
    createLogger(
      'json',
      (l) => all.push(l),
      () => t,
      'debug',
    ).debug('poll', { profile: 'p' });
    expect(JSON.parse(all[0]!)).toMatchObject({ level: 'debug', event: 'poll', profile: 'p' });
  });

  it('JSON lines: one object a line', () => {
    const line = formatLine('json', 'info', 'listening', { url: 'http://127.0.0.1:9464/metrics', profiles: 2 }, t);
    expect(JSON.parse(line)).toEqual({ time: '2025-01-02T03:04:05.000Z', level: 'info', event: 'listening', url: 'http://127.0.0.1:9464/metrics', profiles: 2 });
  });
});

describe('credentials per profile', () => {
  const store = createCredentialStore({ env: { KEYDECK_CONFIG_DIR: dir }, loadKeytar: () => Promise.reject(new Error('no keytar in this test')) });
  const token = 'mk_exportertest1234567890';

  it('name one variable per profile, and find names that would share one', () => {
    expect(tokenEnvVar('prod')).toBe('KEYDECK_TOKEN_PROD');
    expect(tokenEnvVar('eu-west.2_b')).toBe('KEYDECK_TOKEN_EU_WEST_2_B');
    expect([...ambiguousTokenVars(['a-b', 'a_b', 'c', 'C', 'd'])].sort()).toEqual(['KEYDECK_TOKEN_A_B', 'KEYDECK_TOKEN_C']);
  });

  it('take a token file first, then the variable, then the store; never KEYDECK_TOKEN', async () => {
    const file = path.join(dir, 'prod.token');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const sources = { tokenFiles: new Map([['prod', file]]), env: { KEYDECK_TOKEN_PROD: 'mk_fromtheenvironment00', KEYDECK_TOKEN: 'mk_nevertakenbyexporter' }, store };
    expect(await findCredential('prod', 'https://api.example.com', undefined, sources)).toEqual({ ok: true, token, place: 'token_file', where: file });
    expect(await findCredential('prod', 'https://api.example.com', undefined, { ...sources, tokenFiles: new Map() })).toMatchObject({ ok: true, token: 'mk_fromtheenvironment00', place: 'env' });
    const none = await findCredential('other', 'https://api.example.com', undefined, sources);
    expect(none).toMatchObject({ ok: false });
    expect(!none.ok && none.sentence).toContain('--token-file other=PATH or KEYDECK_TOKEN_OTHER');
  });

  it('take DIR/<profile> of --token-dir after --token-file, before the variable; say where it belongs when absent', async () => {
    const tokens = path.join(dir, 'tokens');
    (await import('node:fs')).mkdirSync(tokens, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(tokens, 'prod'), `${token}\n`, { mode: 0o600 });
    const sources = { tokenFiles: new Map<string, string>(), tokenDir: tokens, env: { KEYDECK_TOKEN_PROD: 'mk_fromtheenvironment00', KEYDECK_TOKEN_DEV: 'mk_fromtheenvironment11' }, store };
    expect(await findCredential('prod', 'https://api.example.com', undefined, sources)).toEqual({ ok: true, token, place: 'token_file', where: path.join(tokens, 'prod') });
    // No file for dev: its variable.
    expect(await findCredential('dev', 'https://api.example.com', undefined, sources)).toMatchObject({ ok: true, place: 'env' });
    const none = await findCredential('qa', 'https://api.example.com', undefined, sources);
    expect(!none.ok && none.sentence).toContain(`put its token in ${path.join(tokens, 'qa')} (mode 0600)`);
    // A file others can read is refused, not skipped.
    writeFileSync(path.join(tokens, 'open'), token, { mode: 0o644 });
    chmodSync(path.join(tokens, 'open'), 0o644);
    const open = await findCredential('open', 'https://api.example.com', undefined, sources);
    expect(!open.ok && open.sentence).toContain('readable by group or others');
    // Sources naming no watched profile: a --token-file refused with "did you mean", a stray file said.
    expect(
      unwatchedTokenFiles(
        new Map([
          ['prdo', '/x'],
          ['prod', '/y'],
        ]),
        ['prod', 'dev'],
        suggestCommand,
      ),
    ).toEqual(['--token-file prdo=… names profile "prdo", which is not watched: did you mean "prod"?']);
    expect(unwatchedTokenFiles(new Map([['zzz', '/x']]), ['prod'], suggestCommand)).toEqual(['--token-file zzz=… names profile "zzz", which is not watched: the watched profiles are "prod"']);
    expect(await strayTokenDirFiles(tokens, ['prod', 'opem'], suggestCommand)).toEqual([`the token file open in ${tokens} is read by no watched profile: did you mean "opem"?`]);
    expect((await strayTokenDirFiles(path.join(dir, 'nowhere'), ['prod']))[0]).toMatch(/cannot be listed \(ENOENT\)/);
  });

  it('refuse a token file others can read, unless systemd handed it over ($CREDENTIALS_DIRECTORY)', async () => {
    const creds = path.join(dir, 'credentials');
    const file = path.join(creds, 'prod');
    rmSync(creds, { recursive: true, force: true });
    (await import('node:fs')).mkdirSync(creds);
    writeFileSync(file, token);
    chmodSync(file, 0o640);
    const sources = { tokenFiles: new Map([['prod', file]]), env: {}, store };
    const refused = await findCredential('prod', 'https://api.example.com', undefined, sources);
    expect(!refused.ok && refused.sentence).toContain('readable by group or others');
    expect(await findCredential('prod', 'https://api.example.com', undefined, { ...sources, env: { CREDENTIALS_DIRECTORY: creds } })).toMatchObject({ ok: true, token });
    // A consumption key is no credential of keydeck's: the sentence says so, never the key.
    writeFileSync(file, 'sk_consumptionkey1234567');
    const sk = await findCredential('prod', 'https://api.example.com', undefined, { ...sources, env: { CREDENTIALS_DIRECTORY: creds } });
    expect(sk.ok).toBe(false);
    expect(JSON.stringify(sk)).not.toContain('sk_consumptionkey1234567');
  });
});

describe('the profiles watched', () => {
  const config = {
    version: 1 as const,
    currentProfile: 'b',
    profiles: { b: { baseUrl: 'https://b.example.com/' }, a: { baseUrl: 'http://127.0.0.1:8787', alertBelowUsd: 5 }, c: {} },
  };
  it('all of them, the named ones, or the current one', () => {
    expect(selectProfiles(config, { kind: 'all' }).map((p) => [p.name, p.baseUrl, p.alertBelowUsd])).toEqual([
      ['a', 'http://127.0.0.1:8787', 5],
      ['b', 'https://b.example.com', undefined],
      ['c', undefined, undefined],
    ]);
    expect(selectProfiles(config, { kind: 'names', names: ['c', 'zz', 'c'] }).map((p) => [p.name, p.baseUrl])).toEqual([
      ['c', undefined],
      ['zz', undefined],
    ]);
    expect(selectProfiles(config, { kind: 'current' }).map((p) => p.name)).toEqual(['b']);
    expect(selectProfiles(config, { kind: 'current', envProfile: 'a' }).map((p) => p.name)).toEqual(['a']);
  });
});

describe('listening addresses (--listen, monitor --metrics)', () => {
  it('PORT and :PORT mean loopback; a host or [IPv6] is taken as given; nonsense is refused', async () => {
    const { parseMetricsAddress } = await import('../../src/metrics/address.js');
    expect(parseMetricsAddress('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsAddress(':0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseMetricsAddress('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseMetricsAddress('metrics.internal:80')).toEqual({ host: 'metrics.internal', port: 80 });
    for (const bad of ['localhost', '70000', 'host:', 'a b:1', '::1:9464']) expect(parseMetricsAddress(bad)).toBeUndefined();
  });
});
