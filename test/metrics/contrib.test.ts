/**
 * What ships in contrib/ beside the code, checked by Prometheus' and systemd's own
 * tools: the alert rules load (`promtool check rules`) and pass their unit tests (`promtool test
 * rules`), every rule has a `for:`, a severity and a summary naming the profile and is tested
 * firing; every metric a rule or a Grafana query reads is one the exporter really serves (its
 * `/metrics` against a sandbox), and every query parses as PromQL; the example Prometheus config
 * loads; the systemd unit verifies, scores as hardened, and its command line is one the exporter
 * accepts, with no token in it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createCredentialStore } from '../../src/credentials/index.js';
import { parseExporterFlags } from '../../src/exporter/options.js';
import { OLD_NODE_EXIT_CODE } from '../../src/node-version.js';
import { runExporter } from '../../src/exporter/run.js';
import { createLogger } from '../../src/exporter/log.js';
import { ROOT } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { binary, skipUnless } from './parts.js';

const skip = skipUnless('promtool');
const CONTRIB = path.join(ROOT, 'contrib');
const RULES = path.join(CONTRIB, 'prometheus', 'keydeck.rules.yml');
const DASHBOARD = path.join(CONTRIB, 'grafana', 'keydeck-dashboard.json');
const UNIT = path.join(CONTRIB, 'systemd', 'keydeck-exporter.service');

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly keep_firing_for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

/** The metric names an expression reads (keydeck's, the process's, Prometheus' `up`). */
function metricNames(expr: string): string[] {
  return [...new Set(expr.replace(/"[^"]*"/g, '""').match(/\b(keydeck_[a-z0-9_]+|process_[a-z0-9_]+|up)\b/g) ?? [])];
}

/** Every query of the dashboard: panel targets and query variables. */
function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[]; templating: { list: { type: string; definition?: string }[] } };
  return [...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)), ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => v.definition!)];
}

function promtool(args: string[], cwd = ROOT): { status: number | null; output: string } {
  const r = spawnSync(binary('promtool')!, args, { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

let sandbox: TestSandbox;
let dir: string;
let served = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-contrib-'));
  // What the exporter serves: its families (# TYPE lines) from a real run against a sandbox.
  sandbox = await startTestSandbox({ host: '127.0.0.1' });
  const session = await sandbox.fundedUser(10);
  const configDir = path.join(dir, 'config');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(configDir, { mode: 0o700 });
  writeFileSync(
    path.join(configDir, 'config.json'),
    JSON.stringify({
      version: 1,
      profiles: { p: { baseUrl: sandbox.url, alertBelowUsd: 1, autoTopUp: { belowUsd: 5, amountUsd: 20, maxPerDayUsd: 40, maxPerMonthUsd: 200, since: new Date().toISOString() } } },
    }),
    { mode: 0o600 },
  );
  const env = { KEYDECK_CONFIG_DIR: configDir, KEYDECK_DATA_DIR: path.join(dir, 'data'), KEYDECK_TOKEN_P: session };
  const flags = parseExporterFlags({ allProfiles: true, listen: '127.0.0.1:0', interval: '2' });
  if (!flags.ok) throw new Error(flags.reason);
  let stop = () => {};
  let url = '';
  const done = runExporter(
    // --auto-topup with a policy: its series are served too (the balance stays above the threshold);
    // --enforce: the guardrails' families too.
    { ...flags.options, autoTopUp: true, enforce: true, version: '0.0.0-test' },
    {
      env,
      store: createCredentialStore({ env, loadKeytar: () => Promise.reject(new Error('no keychain here')) }),
      log: createLogger('logfmt', () => {}),
      stop: new Promise<void>((resolve) => (stop = resolve)),
      onListening: (u) => (url = u),
    },
  );
  for (
    let i = 0;
    i < 200 &&
    !(
      await fetch(url || 'http://127.0.0.1:1')
        .then((r) => r.text())
        .catch(() => '')
    ).includes('keydeck_up{profile="p",origin');
    i++
  )
    await new Promise((r) => setTimeout(r, 50));
  const text = await (await fetch(url)).text();
  served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  stop();
  expect(await done).toBe(0);
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('contrib/: what ships beside the code', () => {
  it.skipIf(skip !== undefined)('the alert rules load, and promtool test rules passes their unit tests', () => {
    expect(promtool(['check', 'rules', RULES])).toMatchObject({ status: 0, output: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
    const tested = promtool(['test', 'rules', 'keydeck.rules.test.yml'], path.join(CONTRIB, 'prometheus'));
    expect(tested.output).toContain('SUCCESS');
    expect(tested.status).toBe(0);
    expect(promtool(['check', 'config', path.join(CONTRIB, 'prometheus', 'prometheus.yml')]).status).toBe(0);
    // The cron jobs' rules (node_exporter's textfile collector), and their unit tests.
    expect(promtool(['check', 'rules', path.join(CONTRIB, 'prometheus', 'keydeck-cron.rules.yml')]).status).toBe(0);
    const cron = promtool(['test', 'rules', 'keydeck-cron.rules.test.yml'], path.join(CONTRIB, 'prometheus'));
    expect(cron.output).toContain('SUCCESS');
    expect(cron.status).toBe(0);
  });

  it('every rule has a for: (or is written on a kept time, with keep_firing_for:), a severity, a summary naming the profile, and a unit test where it fires', () => {
    const tests = parse(readFileSync(path.join(CONTRIB, 'prometheus', 'keydeck.rules.test.yml'), 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    expect(rules.length).toBeGreaterThanOrEqual(7);
    for (const rule of rules) {
      // A rule without a for: reads a time the exporter keeps across restarts (time() - …_timestamp_seconds).
      if (rule.for === undefined) expect(rule.expr, rule.alert).toMatch(/time\(\) - .*_timestamp_seconds/);
      expect(rule.for ?? rule.keep_firing_for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      // Rules on an account name its profile; those on the exporter itself name the instance.
      const onAccount = /keydeck_(?!exporter_)/.test(rule.expr);
      expect(rule.annotations?.summary, rule.alert).toMatch(onAccount ? /\{\{ \$labels\.profile \}\}/ : /\{\{ \$labels\.instance \}\}/);
      expect(firing, `${rule.alert} has a test where it fires`).toContain(rule.alert);
    }
  });

  it('every metric a rule or a dashboard query reads is served by the exporter', () => {
    expect(served.size).toBeGreaterThan(10);
    const read = [...rules.map((r) => r.expr), ...dashboardQueries()];
    for (const expr of read) {
      const names = metricNames(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) if (name !== 'up') expect(served, `${name} (in ${expr.trim()})`).toContain(name);
    }
  });

  it.skipIf(skip !== undefined)('every dashboard query is PromQL that Prometheus parses (Grafana variables filled in)', () => {
    const queries = dashboardQueries().map((q) => q.replaceAll('$__rate_interval', '5m').replaceAll('$profile', '.*'));
    const file = path.join(dir, 'dashboard-queries.rules.yml');
    // label_values() is Grafana's, not PromQL: checked above by name only.
    const promql = queries.filter((q) => !q.startsWith('label_values('));
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: promql.map((expr, i) => ({ record: `keydeck:dashboard_query:${i}`, expr })) }] }));
    const checked = promtool(['check', 'rules', file]);
    expect(checked.output).toContain(`SUCCESS: ${promql.length} rules found`);
  });

  it('the systemd unit verifies, is hardened by systemd-analyze security, and its command line is one the exporter takes', () => {
    const unit = readFileSync(UNIT, 'utf8');
    const execStart = /^ExecStart=(\S+) (\S+) (.*)$/m.exec(unit)!;
    // The Node.js the install section pins beside keydeck, whatever node is first on systemd's PATH.
    expect(execStart[1]).toBe('/opt/keydeck/node_modules/node/bin/node');
    expect(execStart[2]).toBe('/opt/keydeck/node_modules/keydeck/dist/cli.js');
    expect(unit).toContain('#   npm install --prefix /opt/keydeck --omit=optional --no-audit --no-fund node@24 keydeck');
    // The config checked by the new version at every start, without ever stopping it.
    expect(unit).toMatch(new RegExp(`^ExecStartPre=-${execStart[1]} ${execStart[2]} exporter --check-config ${execStart[3]!.replace(/^exporter /, '')}$`, 'm'));
    for (const line of ['SystemCallErrorNumber=EPERM', 'StartLimitIntervalSec=10min', 'StartLimitBurst=5', 'Type=simple']) expect(unit).toMatch(new RegExp(`^${line}$`, 'm'));
    const args = execStart[3]!.split(/\s+/);
    expect(args[0]).toBe('exporter');
    const flag = (name: string) => args.flatMap((a, i) => (a === name ? [args[i + 1]!] : []));
    const parsed = parseExporterFlags({ allProfiles: args.includes('--all-profiles'), listen: flag('--listen')[0], tokenFile: flag('--token-file'), tokenDir: flag('--token-dir')[0] });
    expect(parsed.ok).toBe(true);
    // Each profile's key read from a directory again on each reload: no LoadCredential=,
    // which copies once at start; the unit's own user owns the files; the alert says reload.
    expect(flag('--token-dir')).toEqual(['/etc/keydeck-exporter/tokens']);
    expect(unit).not.toMatch(/^LoadCredential=/m);
    expect(unit).toMatch(/^User=keydeck-exporter$/m);
    expect(unit).toContain('install -m 0600 -o keydeck-exporter -g keydeck-exporter /dev/stdin /etc/keydeck-exporter/tokens/prod');
    const rejected = rules.find((r) => r.alert === 'KeydeckCredentialRejected')!;
    expect(rejected.annotations?.description).toContain('mgmt-keys rotate --token-file PATH');
    expect(rejected.annotations?.description).toContain('systemctl reload keydeck-exporter');
    // A Node.js too old exits with a status the unit does not restart on.
    const prevent = /^RestartPreventExitStatus=(.*)$/m.exec(unit)![1]!.split(/\s+/).map(Number);
    expect(prevent).toEqual(expect.arrayContaining([2, OLD_NODE_EXIT_CODE]));
    expect(unit).not.toMatch(/(mk|sk)_[A-Za-z0-9]/);
    expect(unit).not.toMatch(/^Environment=KEYDECK_TOKEN/m);
    for (const line of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'StateDirectory=keydeck-exporter', 'ExecReload=/bin/kill -HUP $MAINPID']) expect(unit).toContain(line);
    const analyze = binary('systemd-analyze');
    if (!analyze) return console.warn('systemd-analyze not found: the unit is not verified here');
    // verify wants the program to exist: the same unit with /bin/true in its place.
    const copy = path.join(dir, 'keydeck-exporter.service');
    writeFileSync(copy, unit.replaceAll('/opt/keydeck/node_modules/node/bin/node', '/bin/true'));
    const verified = spawnSync(analyze, ['verify', copy], { encoding: 'utf8', timeout: 30_000 });
    expect(`${verified.stdout}${verified.stderr}`.trim()).toBe('');
    expect(verified.status).toBe(0);
    // --threshold is in tenths: 20 is an exposure level of 2.0 (of 10).
    const security = spawnSync(analyze, ['security', '--offline=yes', '--threshold=20', copy], { encoding: 'utf8', timeout: 30_000 });
    expect(security.stdout).toMatch(/Overall exposure level for keydeck-exporter\.service: 1\.\d OK/);
    expect(security.status).toBe(0);
  });
});
