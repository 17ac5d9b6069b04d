/**
 * The rules of the operations' kit (docs/architecture.md, "The operations' kit"), checked on the
 * sources: the faces drive the machines and never run a step; the entry of src/operations exports
 * no step; the machines' records are the kit's, each with its table of moves; the words of the
 * operations live in one table, the only place below the faces that knows which face it serves
 * or names a command. Each rule checked here is written on that page.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every .ts/.tsx file under `dir` (relative to the root). */
function files(dir: string): string[] {
  const full = path.join(ROOT, dir);
  return readdirSync(full).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return files(rel);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The source without its comments (block and line), so that only code and strings are read. */
function code(file: string): string {
  return text(file)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The modules of src/operations a file imports (static or dynamic), by file name. */
function operationImports(file: string): string[] {
  const found: string[] = [];
  for (const m of text(file).matchAll(/(?:from\s+|import\(\s*)['"]([^'"]*\boperations\/([\w.]+?))(?:\.js)?['"]/g)) found.push(m[2]!);
  return found;
}

/** What the faces may import of src/operations: its entry, its read-only queries, its wording table, its event types. */
const FACE_MAY_IMPORT = ['index', 'queries', 'wording', 'events'];

/** The rules, as docs/architecture.md states them. */
const RULES = {
  faces:
    "no file under `src/tui/` or `src/commands/` runs an operation's steps: of `src/operations/` they import only its entry (`index.ts`), its read-only queries (`queries.ts`), its wording table (`wording.ts`) and its event types (`events.ts`)",
  steps:
    "no file under `src/tui/` or `src/commands/` calls an operation's individual steps: no machine's `begin` or `next`, no money request of the client (`topUp`, `verifyTopUp`), no new entry of the top-up record (`journal.add`): a face drives the operation",
  entry: 'the entry of `src/operations/` exports no step: of `mint.ts` and `targets.ts` only types, of `kit.ts` only `drive` and `OperationError`',
  records:
    "every record of an operation is the kit's (`MachineRecord`, with its table of moves) or the top-up record (`src/billing/journal.ts`, whose table of moves `TRANSITIONS` its every update checks): no other module of `src/operations/` reads or writes a record file itself",
  commands: 'below the faces, only the wording table of the operations names a keydeck command: no string of `src/operations/`, `src/delivery/` or `src/credentials/` does',
  face: "no layer below the faces takes the face it serves as a parameter (`'cli' | 'tui'`): the wording table alone knows the faces",
} as const;

describe("the operations' kit", () => {
  it(RULES.faces, () => {
    const broken = [...files('src/tui'), ...files('src/commands')].flatMap((file) =>
      operationImports(file)
        .filter((m) => !FACE_MAY_IMPORT.includes(m))
        .map((m) => `${file} imports src/operations/${m}.ts`),
    );
    expect(broken).toEqual([]);
  });

  it(RULES.steps, () => {
    const step = /\.(begin|next)\(\s*ctx\b|\.(topUp|verifyTopUp)\(|\bjournal\.add\(/;
    const broken = [...files('src/tui'), ...files('src/commands')].filter((file) => step.test(code(file)));
    expect(broken).toEqual([]);
  });

  it(RULES.entry, () => {
    const entry = text('src/operations/index.ts');
    const exports = [...entry.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from\s+'\.\/([\w.]+?)\.js'/g)].map((m) => ({
      typeOnly: m[1] !== undefined,
      names: m[2]!
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
      from: m[3]!,
    }));
    const values = exports.flatMap((e) => (e.typeOnly ? [] : e.names.filter((n) => !n.startsWith('type ')).map((n) => ({ name: n, from: e.from }))));
    const broken = values
      .filter((v) => ['mint', 'targets', 'record'].includes(v.from) || (v.from === 'kit' && !['drive', 'OperationError'].includes(v.name)))
      .map((v) => `${v.name} from ./${v.from}.ts`);
    expect(broken).toEqual([]);
  });

  it(RULES.records, () => {
    const broken = files('src/operations')
      .filter((f) => !f.endsWith('record.ts'))
      .filter((f) => /config\/recordFile\.js/.test(code(f)));
    expect(broken, 'a record goes through src/operations/record.ts MachineRecord').toEqual([]);
    // Each record module builds its record on the kit's and declares its moves.
    for (const f of files('src/operations').filter((f) => /Record\.ts$/.test(f))) {
      expect(code(f), f).toMatch(/MachineRecord/);
      expect(code(f), f).toMatch(/transitions:/);
    }
    // The top-up record (auto top-up's and a person's top-up) declares its moves and checks each update.
    expect(code('src/billing/journalEntry.ts')).toMatch(/export const TRANSITIONS\b/);
    expect(code('src/billing/journal.ts')).toMatch(/!canMove\(current\.state, patch\.state\)/);
  });

  it(RULES.commands, () => {
    const command = /keydeck (keys|mgmt-keys|auth|billing|autotopup|exporter|profile|sandbox|usage|pools|monitor|doctor|help)\b/;
    const below = [...files('src/operations'), ...files('src/delivery'), ...files('src/credentials')].filter((f) => !/operations\/wording\w*\.ts$/.test(f));
    expect(below.filter((f) => command.test(code(f)))).toEqual([]);
  });

  it(RULES.face, () => {
    const below = ['src/operations', 'src/delivery', 'src/credentials', 'src/billing', 'src/api', 'src/config', 'src/terminal'].flatMap(files).filter((f) => !/operations\/wording\w*\.ts$/.test(f));
    expect(below.filter((f) => /'cli'\s*\|\s*'tui'|'tui'\s*\|\s*'cli'/.test(code(f)))).toEqual([]);
  });

  it('is written down: docs/architecture.md states each rule checked here', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8').replace(/\s+/g, ' ');
    expect(Object.values(RULES).filter((rule) => !page.includes(rule))).toEqual([]);
  });
});
