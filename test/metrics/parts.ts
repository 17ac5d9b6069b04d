/**
 * The programs the suites need from the machine: Prometheus' own tools, `promtool` and
 * `prometheus` (Debian package `prometheus`), and `openssl` (the HTTPS suite's certificate), which
 * `.ci/run` installs. On a developer machine without them the suites say they are skipped; under
 * CI (`CI` set) a missing binary fails the suite instead, so CI always runs them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';

/** The path of `name` on PATH (or in /usr/bin), undefined when absent. */
export function binary(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  return existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : undefined;
}

/** The Debian package of each program the suites need (the program's own name when absent). */
const DEBIAN_PACKAGE: Readonly<Record<string, string>> = { promtool: 'prometheus', prometheus: 'prometheus' };

/**
 * Why a suite needing `names` is skipped here (undefined: all present).
 * @throws Error under CI when one is missing: CI must run these suites
 */
export function skipUnless(...names: string[]): string | undefined {
  const missing = names.filter((n) => binary(n) === undefined);
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((n) => DEBIAN_PACKAGE[n] ?? n))];
  const reason = `${missing.join(', ')} not found (apt install ${packages.join(' ')}; .ci/run installs it)`;
  if (process.env.CI) throw new Error(`CI must run this suite: ${reason}`);
  console.warn(`skipped: ${reason}`);
  return reason;
}

/** `promtool check metrics` on `text`: its exit status and everything it said. */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const r = spawnSync(binary('promtool')!, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

/**
 * Whether `alertname` fires, at minute 2 of a promtool rules test, with `expected` (each alert's
 * labels but `alertname`), on the series of a node_exporter textfile (`text`: keydeck's
 * `--metrics-textfile` output, served by node_exporter with its own `job` and `instance`) held
 * for 3 minutes, under contrib's rule files `rules` (absolute paths; their annotations left out).
 * Returns promtool's status and output.
 */
export function textfileAlerts(text: string, rules: readonly string[], alertname: string, expected: readonly Record<string, string>[], dir: string): { status: number | null; output: string } {
  const series = text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const at = line.lastIndexOf(' ');
      const name = line.slice(0, at);
      const labelled = name.includes('{') ? name.replace('{', '{job="node",instance="h:9100",') : `${name}{job="node",instance="h:9100"}`;
      return { series: labelled, values: `${line.slice(at + 1)}x3` };
    });
  // The rules without their annotations: what fires, and for whom, is what is checked here.
  const bare = rules.map((rulesFile) => {
    const doc = parse(readFileSync(rulesFile, 'utf8')) as { groups: { rules: { annotations?: unknown }[] }[] };
    for (const group of doc.groups) for (const rule of group.rules) delete rule.annotations;
    const copy = join(dir, `bare-${basename(rulesFile)}`);
    writeFileSync(copy, JSON.stringify(doc));
    return copy;
  });
  const test = {
    rule_files: bare,
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: series,
        alert_rule_test: [{ eval_time: '2m', alertname, exp_alerts: expected.map((labels) => ({ exp_labels: { job: 'node', instance: 'h:9100', ...labels } })) }],
      },
    ],
  };
  const file = join(dir, `textfile-${alertname}.test.yml`);
  // JSON is YAML: no YAML writer needed.
  writeFileSync(file, JSON.stringify(test));
  const r = spawnSync(binary('promtool')!, ['test', 'rules', file], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
