/**
 * The shape of the house (docs/architecture.md): no import circle (type
 * imports count), imports only point down the layer list, no source file over 400 lines, no V8
 * flag changed at run time, and every rule checked here written in docs/architecture.md.
 * The import graph comes from dpdm (its TypeScript parser; dynamic `import()` included).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Longest a source file may be, in lines (`wc -l`). */
const MAX_LINES = 400;
/**
 * Files still over {@link MAX_LINES}, each with the most lines it may have: this list only shrinks
 * (a file here may not grow, a file not here may not pass the limit).
 */
const STILL_OVER: Readonly<Record<string, number>> = {};

/** Every .ts/.tsx file under src/, relative to the root. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path.relative(ROOT, full)] : [];
  });
}

/** What may import what: an import from a file matching `from` of a file matching `to` breaks the rule; `why` is its line in docs/architecture.md. */
const LAYER_RULES: ReadonlyArray<{ from: RegExp; to: RegExp; why: string }> = [
  { from: /^src\/(?!tui\/|cli\/|cli\.ts)/, to: /^src\/tui\//, why: 'nothing imports the TUI but the command line' },
  { from: /^src\/(?!cli\.ts|cli\/)/, to: /^src\/cli\//, why: 'only src/cli.ts imports src/cli/' },
  { from: /^src\/api\//, to: /^src\/(?!api\/|failpoints\/|errors\/)/, why: 'src/api knows HTTP and the wire format only' },
  { from: /^src\/failpoints\//, to: /^src\/(?!failpoints\/)/, why: 'src/failpoints sits below every layer: it imports nothing of keydeck' },
  { from: /^src\/errors\//, to: /^src\/(?!errors\/)/, why: 'src/errors (the one error type) sits below every layer: it imports nothing of keydeck' },
  {
    from: /^src\/(tui|sandbox|billing|delivery|terminal|config|credentials|api|operations|watcher|words)\//,
    to: /^src\/commands\//,
    why: 'the commands are a face: only the command line imports them',
  },
  { from: /^src\/terminal\//, to: /^src\/(tui|commands|sandbox|billing|config|credentials|cli)\b/, why: 'src/terminal sits below both faces' },
  { from: /^src\/delivery\//, to: /^src\/(tui|commands|sandbox|cli)\b/, why: 'src/delivery (key delivery and rotation) sits below both faces' },
  { from: /^src\/operations\//, to: /^src\/(tui|commands|exporter|sandbox|cli|terminal)\b/, why: 'src/operations (the multi-step operations) sits below the faces that drive them' },
  { from: /^src\/(api|config|credentials|delivery|billing|terminal|metrics)\//, to: /^src\/operations\//, why: 'the layers below the operations do not call them' },
  { from: /^src\/watcher\//, to: /^src\/(tui|commands|exporter|cli|sandbox|terminal|metrics)\b/, why: 'src/watcher (the account watcher) sits below the faces that subscribe to it' },
  { from: /^src\/(api|config|credentials|delivery|billing|terminal|metrics|operations)\//, to: /^src\/watcher\//, why: 'the layers below the account watcher do not call it' },
  {
    from: /^src\/sandbox\//,
    to: /^src\/(?!sandbox\/|api\/|errors\/|config\/sqlite\.ts$)/,
    why: 'the sandbox shares only the wire format with the client and the error type, and opens its database as keydeck opens its own',
  },
  { from: /^src\/(?!cli\.ts|cli\/|exporter\/)/, to: /^src\/exporter\//, why: 'the exporter is a face: only the command line imports it' },
  { from: /^src\/(?!tui\/|commands\/|exporter\/|cli\/|cli\.ts|words\/)/, to: /^src\/words\//, why: "only the faces import src/words/: the faces' words for what the layers below report" },
  { from: /^src\/metrics\//, to: /^src\/(tui|commands|exporter|cli|sandbox)\b/, why: 'src/metrics sits below the faces that serve it (monitor, exporter)' },
  { from: /^src\/exporter\//, to: /^src\/(tui|commands)\//, why: 'the exporter loads no Ink and no other face' },
  // A rule both faces need (a key's limits, its status words) lives below them.
  { from: /^src\/(commands|exporter)\//, to: /^src\/tui\//, why: 'the commands and the exporter import nothing from the TUI: shared rules live below both faces' },
];

let tree: DependencyTree;
beforeAll(async () => {
  tree = await parseDependencyTree(sourceFiles(), { cwd: ROOT, context: ROOT, transform: false, skipDynamicImports: false, tsconfig: path.join(ROOT, 'tsconfig.json') });
}, 60_000);

/** `[importer, imported]` pairs between src/ files (relative paths). */
function edges(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [file, deps] of Object.entries(tree)) {
    for (const dep of deps ?? []) if (dep.id !== null && dep.id.startsWith('src/')) out.push([file, dep.id]);
  }
  return out;
}

describe('the house', () => {
  it('has no import circle, type-only imports included', () => {
    const circles = parseCircular(tree).map((c) => c.join(' → '));
    expect(circles, 'move the shared types down to a module both sides can import').toEqual([]);
  });

  it('imports only point down the layers', () => {
    const broken = edges().flatMap(([from, to]) => LAYER_RULES.filter((r) => r.from.test(from) && r.to.test(to)).map((r) => `${from} → ${to} (${r.why})`));
    expect(broken).toEqual([]);
  });

  it('is written down: docs/architecture.md states every rule checked here and names every folder of src/', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rules = [
      ...LAYER_RULES.map((r) => r.why),
      `No source file over ${MAX_LINES} lines`,
      'No V8 flag changed while the program runs',
      'No state at module level',
      'Each folder says what lives there',
      'One poll loop',
      'One top-up procedure',
    ];
    expect(
      rules.filter((rule) => !page.includes(rule)),
      'add each rule to docs/architecture.md',
    ).toEqual([]);
    const folders = readdirSync(path.join(ROOT, 'src')).filter((d) => d !== 'types' && statSync(path.join(ROOT, 'src', d)).isDirectory());
    expect(
      folders.filter((d) => !page.includes(`\`src/${d}/\``)),
      'describe each folder in docs/architecture.md',
    ).toEqual([]);
  });

  it('says at the top of each folder what lives there and what may import it (its index.ts)', () => {
    const folders = readdirSync(path.join(ROOT, 'src')).filter((d) => d !== 'types' && statSync(path.join(ROOT, 'src', d)).isDirectory());
    const missing = folders.flatMap((d) => {
      const entry = path.join(ROOT, 'src', d, 'index.ts');
      let head: string;
      try {
        head = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(entry, 'utf8'))?.[0] ?? '';
      } catch {
        return [`src/${d}/index.ts is missing`];
      }
      return /src\/\S+/.test(head) && /May import:/.test(head) && /Imported by:/.test(head)
        ? []
        : [`src/${d}/index.ts: its first comment says what lives in src/${d}, "May import:" and "Imported by:"`];
    });
    expect(missing).toEqual([]);
  });

  it('never changes V8’s flags while the program runs (no setFlagsFromString, no gc read through node:vm)', () => {
    // Node's documentation of v8.setFlagsFromString: "Changing settings after the VM has started may
    // result in unpredictable behavior, including crashes and data loss". Flags, if any, are given
    // at process start and named in docs/performance.md with their measured effect.
    const found = sourceFiles().flatMap((file) => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      return [/setFlagsFromString/, /\brunInNewContext\(\s*['"`]gc/, /--expose-gc/].filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern.source}`);
    });
    expect(found).toEqual([]);
  });

  it('has one poll loop: the faces read the balance again and again only through the account watcher', () => {
    // The one-shot reads of the balance a face makes (a credential checked, a credit key's zero-balance
    // check, a command that prints it once): anything else that reads it belongs in src/watcher.
    const oneShot = ['src/tui/flows/SetupFlow.tsx', 'src/tui/panes/keys/KeysPane.tsx', 'src/exporter/check.ts', 'src/commands/billingCredits.ts', 'src/commands/usage.ts'];
    const readers = sourceFiles().filter((file) => /^src\/(tui|commands|exporter)\//.test(file) && /\.credits\(/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(
      readers.filter((file) => !oneShot.includes(file)),
      'read the balance through src/watcher/accountWatcher.ts',
    ).toEqual([]);
  });

  it('has one top-up procedure: a top-up is sent only by src/operations/topUp.ts, or by auto top-up', () => {
    const senders = sourceFiles().filter((file) => !/^src\/(api|sandbox)\//.test(file) && /\.topUp\(/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(senders.sort(), 'a face asks src/operations/topUp.ts requestTopUp, never the client').toEqual(['src/operations/autoTopUp.ts', 'src/operations/topUp.ts']);
  });

  it(`has no source file over ${MAX_LINES} lines, and the files still over it do not grow`, () => {
    const over = sourceFiles().flatMap((file) => {
      const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
      const allowed = STILL_OVER[file] ?? MAX_LINES;
      return lines > allowed ? [`${file}: ${lines} lines (at most ${allowed})`] : [];
    });
    expect(over, 'split by responsibility').toEqual([]);
  });
});
