/**
 * The pages of keydeck's manual: each is `docs/<name>.md` in the repository and the
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
  { name: 'tui', summary: 'the full-screen app: panes, every key, the guided setup' },
  { name: 'credentials', summary: 'signing in, where the key lives, profiles, config file' },
  { name: 'topups', summary: 'the Billing pane, top-ups, balance history and chart' },
  { name: 'spend', summary: 'spend per key, the usage read budget, runaway alerts' },
  { name: 'guardrails', summary: 'budgets per key, keys by rule, plan and apply a policy file' },
  { name: 'monitoring', summary: 'keydeck monitor, notifications, metrics, the exporter' },
  { name: 'delivery', summary: 'new keys into dotenv files or commands; key rotation' },
  { name: 'real-service', summary: 'using keydeck with CheapestInference' },
  { name: 'sandbox-service', summary: 'the local sandbox: running it, endpoints, dialects' },
  { name: 'security', summary: 'secrets, origins, local files, untrusted answers, money' },
  { name: 'crash-safety', summary: 'every step of a multi-step operation survives a kill' },
  { name: 'performance', summary: 'the benchmarks and their figures' },
  { name: 'environment', summary: 'every environment variable keydeck reads' },
  { name: 'library', summary: 'keydeck’s API client in a program' },
  { name: 'development', summary: 'building and testing keydeck' },
  { name: 'architecture', summary: 'the code: layers, import rules, boundaries, patterns' },
];

/**
 * The words `keydeck help` answers besides the commands and the pages: `options` (every option of
 * the program) and `topics` (the pages, listed).
 */
export const HELP_WORDS = ['options', 'topics'] as const;

/** The topics as `keydeck help topics` lists them: one `  name  summary` line each. */
export function topicList(): string {
  const width = Math.max(...MANUAL_TOPICS.map((t) => t.name.length));
  return MANUAL_TOPICS.map((t) => `  ${t.name.padEnd(width)}  ${t.summary}`).join('\n');
}
