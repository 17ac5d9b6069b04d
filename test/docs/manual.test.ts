/**
 * The manual's drift test: every command and flag of the argv parser, every
 * key of the TUI's key-action table, every environment variable of `keydeck help environment`
 * and every metric name the metrics code defines is on its page of `docs/`, and every relative
 * link of README.md and docs/ points at a file (and heading) that exists. Keep it green by
 * documenting, never by weakening it.
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Option } from 'commander';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { createProgram } from '../../src/cli/program.js';
import { ENVIRONMENT_VARIABLES } from '../../src/commands/environment.js';
import { MANUAL_TOPICS, topicList } from '../../src/commands/manualTopics.js';
import { ConfigFileSchema, ProfileConfigSchema } from '../../src/config/config.js';
import { AccountMetrics } from '../../src/metrics/account.js';
import { processRegistry } from '../../src/metrics/process.js';
import { registerSpendMetrics } from '../../src/metrics/spend.js';
import { KEY_ACTIONS, SCOPE_TITLES, keyLabel } from '../../src/tui/keymap.js';
import { anchors, codeSpans, links, tableRows, withoutCodeBlocks } from './markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = path.join(ROOT, 'docs');
const page = (name: string): string => readFileSync(path.join(DOCS, name), 'utf8');

/** Where each kind of thing is documented. */
const PAGES = { commands: 'commands.md', tui: 'tui.md', environment: 'environment.md', metrics: 'monitoring.md' } as const;

/** Every visible command of the program, with its path (`keys create`), depth first. */
function commandsOf(cmd: Command, prefix: string[] = []): { path: string; command: Command }[] {
  return cmd.commands
    .filter((c) => !(c as unknown as { _hidden: boolean })._hidden)
    .flatMap((c) => {
      const p = [...prefix, c.name()];
      return [{ path: p.join(' '), command: c }, ...commandsOf(c, p)];
    });
}

/** How an option is written on the page: its long flag, else its short one. */
const flagOf = (o: Option): string => o.long ?? o.short!;

/**
 * The synopses of the commands page: the code spans of each table row's first cell that start
 * with `keydeck` (`keydeck keys create --name NAME …`), each with its whole row.
 */
function synopses(markdown: string): { words: string[]; synopsis: string; row: string }[] {
  return tableRows(markdown).flatMap((r) =>
    codeSpans(r.cells[0] ?? '')
      .filter((s) => /^keydeck(\s|$)/.test(s))
      .map((s) => {
        const tokens = s.split(/\s+/).slice(1);
        const words: string[] = [];
        for (const t of tokens) {
          if (!/^[a-z][a-z0-9-]*$/.test(t)) break;
          words.push(t);
        }
        return { words, synopsis: s, row: r.cells.join(' | ') };
      }),
  );
}

describe('the manual (docs/)', () => {
  it('has one page per help topic, and no topic is named like a command (keydeck help NAME would be ambiguous)', () => {
    const pages = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(pages).toEqual(MANUAL_TOPICS.map((t) => t.name).sort());
    const commands = createProgram('0.0.0').commands.map((c) => c.name());
    // Each topic's line in `keydeck help` fits 80 columns.
    for (const line of topicList().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    for (const t of MANUAL_TOPICS) if (t.name !== 'environment') expect(commands, `the page ${t.name}.md is named like a command`).not.toContain(t.name);
  });

  it('documents every command and each of its flags in the commands table', () => {
    const program = createProgram('0.0.0');
    const rows = synopses(page(PAGES.commands));
    const missing: string[] = [];
    // The program itself (the TUI) and its global options: rows whose synopsis names no command.
    const all = [{ path: '', command: program }, ...commandsOf(program)];
    for (const { path: p, command } of all) {
      const words = p === '' ? [] : p.split(' ');
      // A command group with no flags of its own (`keys`, `billing`) is documented by its subcommands' rows.
      if (command.commands.length > 0 && command.options.every((o) => o.long === '--help')) continue;
      const own = rows.filter((r) => r.words.length === words.length && words.every((w, i) => r.words[i] === w));
      if (own.length === 0) {
        missing.push(`keydeck ${p} (no row whose first cell is \`keydeck ${p} …\`)`.replace('  ', ' '));
        continue;
      }
      const text = own.map((r) => r.row).join('\n');
      for (const o of command.options) {
        const flag = flagOf(o);
        if (flag === '-h' || flag === '--help') continue;
        if (!new RegExp(`${flag}(?![a-z-])`).test(text)) missing.push(`keydeck ${p} ${flag}`.replace('  ', ' '));
      }
    }
    expect(missing, `add these to docs/${PAGES.commands}'s table`).toEqual([]);
  });

  it('names no command in the commands table that the program does not have', () => {
    const program = createProgram('0.0.0');
    const paths = new Set(commandsOf(program).map((c) => c.path));
    const stale = synopses(page(PAGES.commands))
      .filter((r) => r.words.length > 0 && !paths.has(r.words.join(' ')))
      // `keydeck help TOPIC`, `keydeck billing history --chart`: trailing words that are topics or arguments.
      .filter((r) => !r.words.some((_, i) => paths.has(r.words.slice(0, r.words.length - i).join(' '))))
      .map((r) => r.synopsis);
    expect(stale).toEqual([]);
  });

  it('documents every key of the TUI’s key-action table under its scope', () => {
    const rows = tableRows(page(PAGES.tui));
    const titles = new Map(Object.entries(SCOPE_TITLES).map(([scope, title]) => [title, scope]));
    // The keys table: `| where | key | does |`, where a non-empty `where` is a scope's title (as the `?` overlay shows it).
    const keysOf = new Map<string, Set<string>>();
    let scope: string | undefined;
    for (const r of rows) {
      if (r.cells.length !== 3) continue;
      if (r.cells[0] !== '') {
        scope = titles.get(r.cells[0]!);
        expect(scope, `"${r.cells[0]}" is not a scope title of src/tui/keymap.ts SCOPE_TITLES`).toBeDefined();
      }
      if (scope === undefined) continue;
      const set = keysOf.get(scope) ?? new Set<string>();
      for (const k of codeSpans(r.cells[1]!)) set.add(k);
      keysOf.set(scope, set);
    }
    const missing = KEY_ACTIONS.flatMap((a) => a.keys.filter((k) => !keysOf.get(a.scope)?.has(keyLabel(k))).map((k) => `${SCOPE_TITLES[a.scope]}: \`${keyLabel(k)}\` (${a.id})`));
    expect(missing, `add these to docs/${PAGES.tui}'s keys table, as \`key\` in the key column of the scope's rows`).toEqual([]);
  });

  it('lists every environment variable of keydeck help environment, and no other', () => {
    const listed = tableRows(page(PAGES.environment)).map((r) => codeSpans(r.cells[0]!)[0]);
    expect([...listed].sort()).toEqual(ENVIRONMENT_VARIABLES.map((v) => v.name).sort());
  });

  it('names every variable keydeck gives --on-low, --on-anomaly and --on-guardrail commands', () => {
    const given = new Set(readFileSync(path.join(ROOT, 'src/terminal/notify.ts'), 'utf8').match(/KEYDECK_[A-Z_]+/g));
    const pages = page(PAGES.metrics) + page('spend.md') + page('guardrails.md');
    expect(
      [...given].filter((v) => !pages.includes(`\`${v}\``)),
      'add these to docs/monitoring.md (--on-low), docs/spend.md (--on-anomaly) or docs/guardrails.md (--on-guardrail)',
    ).toEqual([]);
    // Each page names its hook's own: every variable of the guardrail hook on docs/guardrails.md.
    const guardrail =
      readFileSync(path.join(ROOT, 'src/terminal/notify.ts'), 'utf8')
        .split('export function onGuardrailEnvironment')[1]!
        .split('\n}\n')[0]!
        .match(/KEYDECK_[A-Z_]+/g) ?? [];
    expect(guardrail.filter((v) => !page('guardrails.md').includes(`\`${v}\``))).toEqual([]);
  });

  it('lists every endpoint the sandbox adds to the interface (/sandbox/…, /v1/…)', () => {
    const dir = path.join(ROOT, 'src/sandbox/routes');
    const routes = readdirSync(dir).flatMap((f) => [...readFileSync(path.join(dir, f), 'utf8').matchAll(/app\.(?:get|post|put|delete)\(\s*'(\/(?:sandbox|v1)\/[^']*)'/g)].map((m) => m[1]!));
    expect(routes.length).toBeGreaterThan(5);
    const text = page('sandbox-service.md');
    expect(
      routes.filter((r) => !text.includes(r)),
      'add these to docs/sandbox-service.md',
    ).toEqual([]);
  });

  it('lists every field of the config file', () => {
    const documented = new Set(tableRows(page('credentials.md')).flatMap((r) => codeSpans(r.cells[0]!)));
    const fields = [...Object.keys(ConfigFileSchema.shape), ...Object.keys(ProfileConfigSchema.shape)];
    expect(
      fields.filter((f) => !documented.has(f)),
      "add these to docs/credentials.md's table of config fields",
    ).toEqual([]);
  });

  it('lists every metric the metrics code defines in the metrics table', async () => {
    // The names as written in src/metrics/ (`name: 'keydeck_…'`) …
    const sources = readdirSync(path.join(ROOT, 'src/metrics')).map((f) => readFileSync(path.join(ROOT, 'src/metrics', f), 'utf8'));
    const defined = new Set(sources.flatMap((s) => [...s.matchAll(/name:\s*'(keydeck_[a-z0-9_]+)'/g)].map((m) => m[1]!)));
    // … and as a registry built by that code holds them (so a metric defined some other way is not missed).
    const account = new AccountMetrics({ profile: 'p', origin: 'http://127.0.0.1:1' });
    registerSpendMetrics(account.registry, () => undefined);
    const merged = Registry.merge([account.registry, processRegistry({ version: '0.0.0' })]);
    for (const m of merged.getMetricsAsArray()) defined.add(m.name);
    const documented = new Set(
      tableRows(page(PAGES.metrics))
        .flatMap((r) => codeSpans(r.cells[0]!))
        .map((s) => /^(keydeck_[a-z0-9_]+)/.exec(s)?.[1])
        .filter((n): n is string => n !== undefined),
    );
    const missing = [...defined].filter((n) => !documented.has(n));
    expect(missing, `add these to docs/${PAGES.metrics}'s metrics table`).toEqual([]);
  });

  it('shows the library with methods the client has (client.keys.list(), not the old flat ones)', () => {
    // The code blocks only: the prose names the old methods to say what replaced them.
    const text = [...page('library.md').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    const calls = [...text.matchAll(/client\.([a-zA-Z]+)\.([a-zA-Z]+)\(/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const client = new KeydeckClient({ baseUrl: 'http://127.0.0.1:9', token: 'mk_docs' }) as unknown as Record<string, Record<string, unknown>>;
    try {
      for (const [ns, method] of calls) expect(typeof client[ns]?.[method], `client.${ns}.${method}()`).toBe('function');
      // A call straight on the client is one of its own methods (close), never a flat API call such as client.getCredits().
      for (const m of text.matchAll(/client\.([a-zA-Z]+)\(/g)) expect(typeof client[m[1]!], `client.${m[1]}()`).toBe('function');
      // Every resource namespace of the client is in the table of namespaces, with each of its methods.
      const table = tableRows(page('library.md'));
      for (const [ns, resource] of Object.entries(client)) {
        if (typeof resource !== 'object' || resource === null) continue;
        const row = table.find((r) => codeSpans(r.cells[0]!).includes(`client.${ns}`));
        expect(row, `docs/library.md has a row for client.${ns}`).toBeDefined();
        const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(resource)).filter((m) => m !== 'constructor' && typeof (resource as Record<string, unknown>)[m] === 'function');
        for (const m of methods) expect(row!.cells[1], `client.${ns}.${m}() in docs/library.md`).toContain(`${m}(`);
      }
    } finally {
      (client as unknown as KeydeckClient).close();
    }
  });

  it('links only to files and headings that exist (README.md and every page)', () => {
    const files = [
      'README.md',
      ...readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const { target, line } of links(text)) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const resolved = where === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(where));
        if (!existsSync(resolved)) {
          broken.push(`${file}:${line}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`${file}:${line}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps README.md a front door (at most about 250 lines) that leads to every page', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    const linked = new Set(links(readme).map((l) => l.target.split('#')[0]));
    for (const t of MANUAL_TOPICS) expect(linked, `README.md links docs/${t.name}.md`).toContain(`docs/${t.name}.md`);
    expect(withoutCodeBlocks(readme)).not.toContain('<!-- bench -->');
  });
});
