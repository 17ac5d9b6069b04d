/**
 * The error type (docs/architecture.md, "The error type"): every error class of src/ is a
 * KeydeckError (only src/errors/index.ts extends `Error` itself, and src/failpoints' halt, which
 * stands for a kill), and every command's refusal is a row of a command wording table
 * (src/commands/wording*.ts): `fail(ExitCode…, table.row, facts)`, the row naming its code and
 * wording the facts. The few sites that pass another error's sentence through are listed below,
 * each naming its code (as its third argument, or as the code its sentence opens with).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closing, codeOnly, ROOT, sourceFiles } from './source.js';

/** The only classes of src/ that extend `Error` itself. */
const BASES = ['src/errors/index.ts: KeydeckError', 'src/failpoints/index.ts: FailpointHalt'];

/**
 * The `fail(…)` sites that pass a sentence rather than a row, by file and how their sentence
 * starts (whitespace collapsed): each words another error, or a sentence a lower layer already
 * words, and keeps that error's own code.
 */
const PASSTHROUGHS: readonly string[] = [
  // A lower layer's coded error, its code and sentence as they are (with the command's tail).
  'src/commands/keyDelivery.ts: `${err.code}: ${err.message}`',
  'src/commands/keyDelivery.ts: visible(`${w.code}: ${failureLine(err.failure',
  'src/commands/policy.ts: `${err.code}: ${err.message}`',
  'src/commands/keys-rotate.ts: `${err.code}: ${err.message}${err.code',
  'src/commands/keys-rotate.ts: `${err.code}: ${err.message.replace(',
  'src/commands/createKey.ts: `${err.code}: ${err.message.replace(',
  'src/commands/billingCancel.ts: `${refusal.code}: ${refusal.sentence}`',
  // Another error's sentence (sentenceOf), its exit code kept, with what the command adds.
  'src/commands/auth.ts: `${sentenceOf(err)} The management key just created',
  'src/commands/autotopup.ts: `keydeck autotopup resume counts failures',
  // The top-up record's own error, as it is.
  'src/commands/billingHistory.ts: error.message',
  'src/commands/verifyReport.ts: lines.join(',
  // A sentence worded where the check is made (the session's, the profile's, the input's parsers).
  'src/commands/output.ts: insecure',
  'src/commands/keyInfo.ts: insecure',
  'src/commands/billingHistory.ts: error instanceof Error ? error.message : String(error)',
  'src/commands/sandboxTarget.ts: noSuchProfileSentence(',
  'src/commands/profile.ts: parsed.reason',
  'src/commands/monitor.ts: parsed.reason',
  'src/commands/monitorAll.ts: parsed.reason',
  // The command line's own checks of its flags, before a command module is loaded.
  'src/cli/billing.ts: misuse',
];

/** Each `fail(…)` call of `text`: its line, its arguments at the call's own depth (as written). */
function failCalls(text: string): { line: number; args: string[] }[] {
  const code = codeOnly(text);
  const calls: { line: number; args: string[] }[] = [];
  for (const m of code.matchAll(/(?<![\w$.]|function )fail\(/g)) {
    const open = m.index + 'fail'.length;
    const end = closing(code, open);
    const args: string[] = [];
    let depth = 0;
    let from = open + 1;
    for (let j = open + 1; j < end; j++) {
      if ('([{'.includes(code[j]!)) depth++;
      else if (')]}'.includes(code[j]!)) depth--;
      else if (code[j] === ',' && depth === 0) {
        args.push(text.slice(from, j).trim());
        from = j + 1;
      }
    }
    const last = text.slice(from, end).trim();
    if (last !== '') args.push(last);
    calls.push({ line: text.slice(0, m.index).split('\n').length, args });
  }
  return calls;
}

/** The names a file imports from a command wording table (./wordingKeys.js…), statically or by `await import(…)`. */
function wordingTables(text: string): Set<string> {
  const from = `'(?:\\./|\\.\\./commands/)wording\\w*\\.js'`;
  const imports = new RegExp(`^\\s*(?:import \\{([^}]*)\\} from ${from};|const \\{([^}]*)\\} = await import\\(${from}\\);)`, 'gm');
  const names = [...text.matchAll(imports)].flatMap((m) => (m[1] ?? m[2])!.split(',').map((s) => s.trim()));
  return new Set(names);
}

/** The files whose `fail(…)` ends a command: the commands and the command line. */
function commandFiles(): string[] {
  return sourceFiles().filter((file) => /^src\/(commands|cli)\//.test(file) && file !== 'src/commands/failure.ts');
}

describe('the house', () => {
  it('has one error type: every error class of src/ extends KeydeckError', () => {
    const bases = sourceFiles().flatMap((file) => [...codeOnly(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/class\s+(\w+)\s+extends\s+Error\b/g)].map((m) => `${file}: ${m[1]}`));
    expect(bases.sort()).toEqual(BASES);
  });

  it('words every command refusal by a row of a wording table, or lists it as a passthrough naming its code', () => {
    const strays: string[] = [];
    const used = new Set<string>();
    for (const file of commandFiles()) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const tables = wordingTables(text);
      for (const { line, args } of failCalls(text)) {
        const wording = args[1] ?? '';
        const table = /^(\w+)\.\w+$/.exec(wording)?.[1];
        if (table !== undefined && tables.has(table)) continue;
        const collapsed = wording.replace(/\s+/g, ' ');
        const listed = PASSTHROUGHS.find((p) => p.startsWith(`${file}: `) && collapsed.startsWith(p.slice(file.length + 2)));
        const opensWithCode = /^[`'"](?:[a-z]+(?:_[a-z]+)+|\$\{\w+\.code\}): /.test(wording) || /^visible\(`\$\{\w+\.code\}: /.test(wording);
        if (listed === undefined) strays.push(`${file}:${line}: ${collapsed.slice(0, 60)}`);
        else if (args[0]!.startsWith('ExitCode.') && args.length < 3 && !opensWithCode) strays.push(`${file}:${line}: a passthrough naming no code`);
        else used.add(listed);
      }
    }
    expect(strays, 'word the failure in a row of src/commands/wording*.ts: fail(ExitCode.usage, keyWords.tokenFileMissing, { file })').toEqual([]);
    expect(
      PASSTHROUGHS.filter((p) => !used.has(p)),
      'a listed passthrough no longer in the code',
    ).toEqual([]);
  });
});
