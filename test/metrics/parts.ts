/**
 * The programs the suites need from the machine: Prometheus' own tools, `promtool` and
 * `prometheus` (Debian package `prometheus`), and `openssl` (the HTTPS suite's certificate), which
 * `.ci/run` installs. On a developer machine without them the suites say they are skipped; under
 * CI (`CI` set) a missing binary fails the suite instead, so CI always runs them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
