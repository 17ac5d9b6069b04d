/**
 * The house's rules that the other files of test/house do not check (docs/architecture.md, "The
 * house's other rules"): one opener of keydeck's SQLite files, one caller of the usage endpoint
 * (through the usage budget), each V8 flag a resident command starts with named in
 * docs/performance.md, React's rules of hooks errors of the lint with every disable naming its
 * rule and reason, and comments and docs that cite this repository only. Each rule checked here
 * is written in docs/architecture.md (the last test).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { START_FLAGS } from '../../src/cli/startFlags.js';
import { codeOnly, ROOT, sourceFiles } from './source.js';

/** The modules that open an SQLite database: the one opener of the stores, and the lock files' holders (a lock, no data). */
const SQLITE_OPENERS = ['src/config/heldLock.ts', 'src/config/lock.ts', 'src/config/sqlite.ts'];

/** Each rule of this file as docs/architecture.md words it. */
const RULES = ['One SQLite opener', 'endpoint is called only by', 'each flag of `START_FLAGS` named there', 'The rules of hooks are errors', 'Comments cite this repository'];

/** Every text file under `dir` (relative to the root) whose name matches `pattern`, node_modules and dist left out. */
function filesUnder(dir: string, pattern: RegExp): string[] {
  const full = path.join(ROOT, dir);
  if (!statSync(full, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(full).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return filesUnder(rel, pattern);
    return pattern.test(name) ? [rel] : [];
  });
}

/** A rule's severity as ESLint's computed config gives it (`2`, `'error'`, `[2, …]`), as a word. */
function severityOf(setting: unknown): string {
  const level = Array.isArray(setting) ? setting[0] : setting;
  return level === 2 || level === 'error' ? 'error' : level === 1 || level === 'warn' ? 'warn' : 'off';
}

describe('the house’s other rules', () => {
  it('opens SQLite in one place: src/config/sqlite.ts for the stores, the lock files’ holders for a lock', () => {
    const openers = sourceFiles().filter((file) => {
      const code = codeOnly(readFileSync(path.join(ROOT, file), 'utf8'));
      // A constructor of node:sqlite: `new DatabaseSync(`, or the class taken from `import('node:sqlite')` under another name.
      return /\bnew\s+DatabaseSync\s*\(/.test(code) || /\bDatabaseSync\s*:\s*\w+\s*\}\s*=\s*await\s+import\(/.test(code);
    });
    expect(openers.sort(), 'open an SQLite file with src/config/sqlite.ts openStore').toEqual(SQLITE_OPENERS);
  });

  it('spends a usage read only through the usage budget: only src/billing/usageReads.ts calls the client’s usage.list', () => {
    const callers = sourceFiles().filter((file) => !/^src\/(api|sandbox)\//.test(file) && /\.usage\s*\.\s*list\s*\(/.test(codeOnly(readFileSync(path.join(ROOT, file), 'utf8'))));
    expect(callers, 'read usage through src/billing/usageReads.ts readUsageList (it asks src/billing/usageBudget.ts first)').toEqual(['src/billing/usageReads.ts']);
  });

  it('names each V8 flag a resident command starts with in docs/performance.md', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'performance.md'), 'utf8');
    const flags = [...new Set(Object.values(START_FLAGS).flat())];
    expect(flags.length).toBeGreaterThan(0);
    expect(
      flags.filter((flag) => !page.includes(flag)),
      'write each flag and its measured effect in docs/performance.md ("V8 flags")',
    ).toEqual([]);
  });

  it('lints with React’s rules of hooks as errors, and every disable names its rule and why', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const file of ['src/tui/App.tsx', 'src/tui/hooks/useTick.ts', 'test/tui/billing/pane.test.tsx']) {
      const config = (await eslint.calculateConfigForFile(path.join(ROOT, file))) as { rules?: Record<string, unknown>; linterOptions?: { reportUnusedDisableDirectives?: unknown } };
      expect(severityOf(config.rules?.['react-hooks/exhaustive-deps']), `${file}: react-hooks/exhaustive-deps`).toBe('error');
      if (!file.startsWith('test/')) expect(severityOf(config.rules?.['react-hooks/rules-of-hooks']), `${file}: react-hooks/rules-of-hooks`).toBe('error');
      expect(severityOf(config.linterOptions?.reportUnusedDisableDirectives), `${file}: a disable that silences nothing`).toBe('error');
    }
    // `// eslint-disable-next-line RULE -- why`: a rule named (never all of them) and a reason.
    const files = [...sourceFiles(), ...filesUnder('test', /\.tsx?$/), ...filesUnder('scripts', /\.m?[jt]s$/), ...filesUnder('bench', /\.m?[jt]s$/)];
    const bare = files.flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          const disable = /eslint-disable(?:-next-line|-line)?(.*)$/.exec(line);
          if (!disable || !/^\s*(\/\/|\/\*)/.test(line.slice(0, disable.index).replace(/^.*?(\/\/|\/\*)\s*$/, '$1'))) return [];
          return /^\s+[\w@/-]+(\s*,\s*[\w@/-]+)*\s+--\s+\S/.test(disable[1]!) ? [] : [`${file}:${i + 1}: ${line.trim()}`];
        }),
    );
    expect(bare, 'name the rule and say why after --').toEqual([]);
  });

  it('cites files of this repository only: no outside design document, section number or issue number', () => {
    const files = [...sourceFiles(), ...filesUnder('docs', /\.md$/), 'README.md', ...filesUnder('test', /\.tsx?$/), ...filesUnder('scripts', /\.m?[jt]s$/), ...filesUnder('bench', /\.m?[jt]s$/)];
    const cited = files.flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bDESIGN\.md\b|§ ?\d|\b[Ii]ssues? #?\d/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(cited, 'cite a file of this repository (docs/…, src/…) instead').toEqual([]);
  });

  it('is written down: docs/architecture.md states every rule checked here', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(
      RULES.filter((rule) => !page.includes(rule)),
      'add each rule to docs/architecture.md',
    ).toEqual([]);
  });
});
