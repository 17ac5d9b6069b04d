/**
 * The pages of keydeck's manual (issue 27): each is `docs/<name>.md` in the repository and the
 * package, and `keydeck help <name>` prints it in the terminal (./manual.ts). Plain data, so that
 * the command line can list the topics in its help without loading anything.
 *
 * A page's name never equals a command's (`keydeck help keys` is the `keys` command's help): the
 * manual's drift test (test/docs/manual.test.ts) checks that, and that this list and `docs/` agree.
 */

/** One page of the manual: its name (`docs/<name>.md`, `keydeck help <name>`) and what it covers. */
export interface ManualTopic {
  readonly name: string;
  readonly summary: string;
}

/** The manual's pages, in reading order. */
export const MANUAL_TOPICS: readonly ManualTopic[] = [
  { name: 'commands', summary: 'every command and flag, output, errors, exit codes' },
  { name: 'tui', summary: 'the full-screen app: header, panes, every key, the guided setup' },
  { name: 'credentials', summary: 'signing in, where the key lives, profiles, the config file' },
  { name: 'topups', summary: 'the Billing pane, top-ups (USDC, card), the balance history and chart' },
  { name: 'spend', summary: 'spend per key, the 12 usage reads per 12 hours, the runaway alert, key-info' },
  { name: 'monitoring', summary: 'keydeck monitor, notifications, metrics, keydeck exporter and Prometheus' },
  { name: 'delivery', summary: 'sending a new key to a dotenv file or a command, rotating keys' },
  { name: 'real-service', summary: 'using keydeck with CheapestInference, and what it reads beyond the spec' },
  { name: 'sandbox-service', summary: 'the local sandbox: running it, its endpoints, its dialects' },
  { name: 'security', summary: 'the security model: secrets, origins, local files, untrusted answers, money' },
  { name: 'performance', summary: 'the benchmarks and their figures' },
  { name: 'environment', summary: 'every environment variable keydeck reads' },
  { name: 'library', summary: 'using keydeck’s API client from a program' },
  { name: 'development', summary: 'building and testing keydeck' },
];

/** The topics as `keydeck help` and `keydeck --help` list them: one `  name  summary` line each. */
export function topicList(): string {
  const width = Math.max(...MANUAL_TOPICS.map((t) => t.name.length));
  return MANUAL_TOPICS.map((t) => `  ${t.name.padEnd(width)}  ${t.summary}`).join('\n');
}
