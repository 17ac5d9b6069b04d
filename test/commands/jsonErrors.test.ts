/**
 * `--json` failures (docs/commands.md, "Errors under `--json`"): every command that accepts `--json` is run
 * into a failure (the cheapest one per command: an address where nothing listens, a consumption
 * key as the credential, a bad argument, a config file that is not JSON) and prints ONE JSON
 * document on stdout, `{ "error": { code, message, …facts } }`, its exit code unchanged, and no
 * `keydeck: …` sentence on stderr. The table must name every command the program gives `--json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { scripted, UNREACHABLE, type Scripted } from './scripted.js';

const TOKEN = 'mk_0123456789abcdefghij';

/** One failing run per command: its arguments, the token, a broken config file or not, and what it must print. */
interface Case {
  readonly args: readonly string[];
  readonly code: string;
  readonly exit: number;
  readonly token?: string;
  /** Run with a config file that is not JSON. */
  readonly brokenConfig?: boolean;
}

const CASES: Readonly<Record<string, Case>> = {
  'auth status': { args: ['auth', 'status', '--json'], token: 'sk_0123456789abcdefghij', code: 'consumption_key', exit: 2 },
  doctor: { args: ['doctor', '--json', '--listen', '127.0.0.1:1'], code: 'usage', exit: 2 },
  'keys list': { args: ['keys', 'list', '--json'], code: 'network_error', exit: 4 },
  'keys show': { args: ['keys', 'show', 'web', '--json'], code: 'network_error', exit: 4 },
  'keys create': { args: ['keys', 'create', 'web', '--json'], code: 'network_error', exit: 4 },
  'keys rename': { args: ['keys', 'rename', 'web', '--name', 'api', '--json'], code: 'network_error', exit: 4 },
  'keys enable': { args: ['keys', 'enable', 'web', '--json'], code: 'network_error', exit: 4 },
  'keys disable': { args: ['keys', 'disable', 'web', '--yes', '--json'], code: 'network_error', exit: 4 },
  'keys usage': { args: ['keys', 'usage', 'web', '--json'], code: 'network_error', exit: 4 },
  'keys delete': { args: ['keys', 'delete', 'web', '--yes', '--json'], code: 'network_error', exit: 4 },
  'keys rotate': { args: ['keys', 'rotate', 'web', '--yes', '--json'], code: 'confirmation_required', exit: 2 },
  'mgmt-keys list': { args: ['mgmt-keys', 'list', '--json'], code: 'network_error', exit: 4 },
  'mgmt-keys create': { args: ['mgmt-keys', 'create', '--name', 'ci', '--json'], code: 'network_error', exit: 4 },
  'mgmt-keys rotate': { args: ['mgmt-keys', 'rotate', '--yes', '--json'], code: 'usage', exit: 2 },
  'mgmt-keys delete': { args: ['mgmt-keys', 'delete', 'ci', '--yes', '--json'], code: 'network_error', exit: 4 },
  'key-info': { args: ['key-info', '--json'], code: 'no_consumption_key', exit: 2 },
  'billing credits': { args: ['billing', 'credits', '--json'], code: 'network_error', exit: 4 },
  'billing status': { args: ['billing', 'status', '--json'], code: 'network_error', exit: 4 },
  'billing cancel': { args: ['billing', 'cancel', 'sub_1', '--yes', '--json'], code: 'network_error', exit: 4 },
  'billing topup': { args: ['billing', 'topup', '--amount', '5', '--method', 'card_checkout', '--yes', '--json'], code: 'invalid_request', exit: 2 },
  'billing verify': { args: ['billing', 'verify', '--tx', '0x12', '--json'], code: 'invalid_request', exit: 2 },
  'billing history': { args: ['billing', 'history', '--window', '1h', '--json'], code: 'usage', exit: 2 },
  'autotopup status': { args: ['autotopup', 'status', '--json'], brokenConfig: true, code: 'config_not_json', exit: 2 },
  'autotopup run': { args: ['autotopup', 'run', '--json'], code: 'usage', exit: 2 },
  plan: { args: ['plan', '--file', 'no-such.policy.yaml', '--json'], code: 'policy_missing', exit: 1 },
  apply: { args: ['apply', '--file', 'no-such.policy.yaml', '--json'], code: 'policy_missing', exit: 1 },
  pools: { args: ['pools', '--json'], code: 'network_error', exit: 4 },
  'profile list': { args: ['profile', 'list', '--json'], brokenConfig: true, code: 'config_not_json', exit: 2 },
  'profile show': { args: ['profile', 'show', 'nope', '--json'], code: 'no_such_profile', exit: 1 },
};

/** Every command path of the program with a `--json` option (`keys list`, `plan`…). */
function commandsWithJson(cmd: Command = createProgram('0.0.0'), above: readonly string[] = []): string[] {
  return cmd.commands.flatMap((sub) => {
    const words = [...above, sub.name()];
    return [...(sub.options.some((o) => o.long === '--json') ? [words.join(' ')] : []), ...commandsWithJson(sub, words)];
  });
}

let cli: Scripted;
let broken: Scripted;
beforeAll(() => {
  cli = scripted(UNREACHABLE);
  broken = scripted(UNREACHABLE);
  mkdirSync(broken.home.configDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(broken.home.configDir, 'config.json'), '{ not json', { mode: 0o600 });
});
afterAll(() => {
  cli?.home.remove();
  broken?.home.remove();
});

describe('--json failures', () => {
  it('the table names every command that accepts --json', () => {
    expect(commandsWithJson().sort()).toEqual(Object.keys(CASES).sort());
  });

  it.concurrent.each(Object.entries(CASES))('%s prints one JSON error with a code on stdout', async (_name, c) => {
    const result = await (c.brokenConfig ? broken : cli).run(c.token ?? TOKEN, c.args);
    expect(result.code, result.stderr).toBe(c.exit);
    const document = JSON.parse(result.stdout) as { error?: { code?: unknown; message?: unknown } };
    expect(Object.keys(document)).toEqual(['error']);
    expect(document.error?.code).toBe(c.code);
    expect(typeof document.error?.message).toBe('string');
    expect(String(document.error?.message).length).toBeGreaterThan(10);
    // The failure is said once, on stdout: no `keydeck: …` sentence on stderr (warnings may stay).
    expect(result.stderr).not.toMatch(/^keydeck: /m);
  });
});
