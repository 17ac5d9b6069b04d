/**
 * The error type (docs/architecture.md, "The error type"): every error class of src/ is a
 * KeydeckError (only src/errors/index.ts extends `Error` itself, and src/failpoints' halt, which
 * stands for a kill), and every command's refusal (`fail(ExitCode…)`) names its stable code: as
 * its third argument, or as the code its sentence opens with (`name_taken: …`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closing, codeOnly, ROOT, sourceFiles } from './source.js';

/** The only classes of src/ that extend `Error` itself. */
const BASES = ['src/errors/index.ts: KeydeckError', 'src/failpoints/index.ts: FailpointHalt'];

/** `file:line` of each `fail(ExitCode…)` in `text` that names no code. */
function uncodedFailures(file: string, text: string): string[] {
  const code = codeOnly(text);
  const found: string[] = [];
  for (const m of code.matchAll(/(?<![\w$.])fail\(\s*ExitCode\./g)) {
    const open = m.index + 'fail'.length;
    const end = closing(code, open);
    // Commas at the call's own depth: two or more, a third argument (the code).
    let depth = 0;
    let commas = 0;
    for (let j = open + 1; j < end; j++) {
      if ('([{'.includes(code[j]!)) depth++;
      else if (')]}'.includes(code[j]!)) depth--;
      else if (code[j] === ',' && depth === 0) commas++;
    }
    const sentence = text.slice(text.indexOf(',', open) + 1, end).trim();
    const opensWithCode = /^[`'"](?:[a-z]+(?:_[a-z]+)+|\$\{\w+\.code\}): /.test(sentence);
    if (commas < 2 && !opensWithCode) found.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
  }
  return found;
}

describe('the house', () => {
  it('has one error type: every error class of src/ extends KeydeckError', () => {
    const bases = sourceFiles().flatMap((file) => [...codeOnly(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/class\s+(\w+)\s+extends\s+Error\b/g)].map((m) => `${file}: ${m[1]}`));
    expect(bases.sort()).toEqual(BASES);
  });

  it('names the code of every command refusal', () => {
    const uncoded = sourceFiles().flatMap((file) => uncodedFailures(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(uncoded, 'give fail() its code: fail(ExitCode.usage, sentence, "no_base_url")').toEqual([]);
  });
});
