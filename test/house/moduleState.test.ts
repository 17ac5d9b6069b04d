/**
 * No state at module level in src/ but memos of pure functions (docs/architecture.md): the suites
 * run the command line in the test's own thread, so a module's state would pass from one run to
 * the next. Found here from the text of each file, at the top level (column 0): a `let` or `var`,
 * and a `const` Map, Set, WeakMap, array or object literal that the file changes (`.set(`,
 * `.add(`, `.push(`, `x.field =`…). A constant table that nothing changes is not state.
 * What is found must be in {@link ALLOWED}, with the reason it cannot leak from one run to the next.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `file: name` → why that module-level state is allowed. */
const ALLOWED: Readonly<Record<string, string>> = {
  'src/api/reader.ts: keyFieldMemo': 'a memo of a pure function of a field name (bounded)',
  'src/api/usageSchemas.ts: periodMemo': 'a memo of a pure function of a period word (bounded)',
  'src/api/usageSchemas.ts: flatMemo': 'a memo of a pure function of a period word (bounded)',
  'src/billing/guardrails.ts: patterns': 'a memo of a pure function: a name pattern compiled to its RegExp',
  'src/terminal/collate.ts: collator': 'a memo: the one Intl.Collator, the same for every run, made on first use',
  'src/tui/fastStringWidth.ts: recent': 'a memo of a pure function: the width of a string (bounded)',
  'src/tui/fastStringWidth.ts: codePointWidths': 'a memo of a pure function: the width of each code point',
  'src/sandbox/db.ts: depth': 'keyed by the database object itself (a WeakMap): it goes with that database',
  'src/credentials/keytar-child.ts: keytar': 'the script of a child process of its own, one per keychain call: never loaded by a run',
  'src/credentials/keytar-child.ts: loadError': 'the script of a child process of its own, one per keychain call: never loaded by a run',
  'src/credentials/keytar-child.ts: buf': 'the script of a child process of its own, one per keychain call: never loaded by a run',
  'src/tui/contexts/StatusContext.tsx: nextId': 'a counter of status messages: ids only need to differ, across runs too',
  'src/tui/flows/topup/TopUpDeps.tsx: defaults': 'a memo keyed by its input: made again when the journal file of the run’s environment is not the one it was made for',
  'src/config/lock.ts: queues':
    'the in-process queue of each lock file: the lock is per process (runs in one process must queue for it as two callers of one run do), and an entry leaves when its holder releases',
  'src/terminal/outputGuard.ts: allowedLinks':
    'the hyperlinks keydeck checked (the checkout-link rule) and writes itself, at most 64: an entry left by an earlier run only lets through a link that passed the same check',
  'src/failpoints/index.ts: reached': 'armed only by the crash tests: in a CLI process of its own, or reset by the walk in the test’s thread (resetFailpoints)',
  'src/failpoints/index.ts: halt': 'armed only by the crash tests: in a CLI process of its own, or reset by the walk in the test’s thread (resetFailpoints)',
};

/** Every .ts/.tsx file under src/, relative to the root. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path.relative(ROOT, full)] : [];
  });
}

const escape = (name: string) => name.replace(/\$/g, '\\$');

/** The names of `text`'s module-level state (see the module comment). */
function moduleState(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:export )?(?:let|var) ([^=;:]+)/gm)) {
    for (const name of m[1]!.split(',')) if (name.trim() !== '') found.push(name.trim().split(/\s/)[0]!);
  }
  for (const m of text.matchAll(/^(?:export )?const ([\w$]+)(?::[^=]+)? = (new (?:Map|Set|WeakMap|WeakSet|Int8Array|Uint8Array|Array)\b|\[|\{)/gm)) {
    const name = escape(m[1]!);
    const changed = new RegExp(
      `\\b${name}\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin)\\(|\\b${name}(?:\\.[\\w$]+|\\[[^\\]]+\\])\\s*(?:[-+*/?|&]{0,2})=(?!=)|\\b(?:delete|Object\\.assign\\() ?${name}\\b`,
    );
    if (changed.test(text)) found.push(m[1]!);
  }
  return found;
}

describe('the house', () => {
  it('finds module-level state the way the check reads it', () => {
    expect(moduleState('let n = 0;\nconst seen = new Set<string>();\nexport function f() {\n  seen.add("x");\n}\n')).toEqual(['n', 'seen']);
    expect(moduleState('const KINDS = new Set(["a"]);\nconst t = { a: 1 };\nexport const f = (k: string) => KINDS.has(k) && t.a;\nfunction g() {\n  let local = 1;\n}\n')).toEqual([]);
    expect(moduleState('const halt = { halted: undefined };\nfunction h() {\n  halt.halted = "x";\n}\nconst list: string[] = [];\nlist.push("a");\n')).toEqual(['halt', 'list']);
  });

  it('keeps no state at module level in src/ but what docs/architecture.md allows (each with its reason)', () => {
    const found = sourceFiles().flatMap((file) => moduleState(readFileSync(path.join(ROOT, file), 'utf8')).map((name) => `${file}: ${name}`));
    expect(
      found.filter((entry) => !(entry in ALLOWED)),
      'keep the state in what a run creates (its session, its app, a closure), or add it to ALLOWED with the reason it cannot pass from one run to the next',
    ).toEqual([]);
    expect(
      Object.keys(ALLOWED).filter((entry) => !found.includes(entry)),
      'remove from ALLOWED what is no longer there',
    ).toEqual([]);
  });
});
