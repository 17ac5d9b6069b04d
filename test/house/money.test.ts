/**
 * One money formatter (docs/architecture.md, "The house's other rules"): every amount keydeck
 * writes goes through src/api/money.ts (`formatUsd`, `$1,234.50`, or its named variants
 * `formatUsdCode`, `1234.50 USD`, and `centsText`, `1234.50`), which cut to the cent and never
 * round up; no other module builds a `$` and digits or calls `toFixed` itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { centsText, formatUsd, formatUsdCode } from '../../src/api/money.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RULE = 'One money formatter';

/** Files that may write a `$` before an interpolation, each with why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'src/api/money.ts': 'the formatter itself',
  'src/tui/panes/keys/keyRows.ts': 'the Keys pane’s compact spend cell ($12.3k) in a column 8 cells wide',
  'src/delivery/destinations.ts': 'a shell variable ($NAME), not money',
};

function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) ? [path.relative(ROOT, full)] : [];
  });
}

describe('the house', () => {
  it('has one money formatter: no module but src/api/money.ts writes a $ and digits or calls toFixed', () => {
    const found = sourceFiles()
      .filter((file) => !file.startsWith('src/sandbox/') && ALLOWED[file] === undefined)
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\$\$\{|\.toFixed\(/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found, 'write the amount with formatUsd (or formatUsdCode, centsText) of src/api/money.ts').toEqual([]);
    expect(readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8')).toContain(RULE);
  });

  it('writes an amount in one shape per purpose, cut to the cent, never higher than it is', () => {
    expect([formatUsd(1234.5), formatUsdCode(1234.5), centsText(1234.5)]).toEqual(['$1,234.50', '1234.50 USD', '1234.50']);
    expect([formatUsd(24.999), formatUsdCode(24.999), centsText(24.999)]).toEqual(['$24.99', '24.99 USD', '24.99']);
    expect([formatUsd(-0.001), formatUsdCode(-0.001)]).toEqual(['-$0.01', '-0.01 USD']);
  });
});
