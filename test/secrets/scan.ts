/**
 * The secrets scans' searching (test/secrets/): a value looked for in bytes in the forms it could
 * take (UTF-8, UTF-16LE, base64 as OSC 52 and `kubectl -o yaml` write it), every file under a
 * directory, and the final state of a terminal that received a byte stream (normal buffer with its
 * scrollback, and the alternate buffer).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;

/**
 * The forms a value is searched in: UTF-8, UTF-16LE, base64 (OSC 52, without padding), and base64
 * of the value one or two bytes into a longer text (`KEY=sk_…` encoded whole, as a Kubernetes
 * secret's YAML holds it): the part of the encoding that does not depend on its neighbours.
 */
export function formsOf(value: string): Array<{ form: string; bytes: Buffer }> {
  const bytes = Buffer.from(value, 'utf8');
  const inner = (offset: number) =>
    Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .slice(4, -4);
  return [
    { form: 'utf8', bytes },
    { form: 'utf16le', bytes: Buffer.from(value, 'utf16le') },
    { form: 'base64', bytes: Buffer.from(bytes.toString('base64').replace(/=+$/, ''), 'utf8') },
    { form: 'base64@1', bytes: Buffer.from(inner(1), 'utf8') },
    { form: 'base64@2', bytes: Buffer.from(inner(2), 'utf8') },
  ];
}

/** Which forms of `value` occur in `haystack` (empty: none). */
export function foundForms(haystack: Buffer, value: string): string[] {
  return formsOf(value)
    .filter(({ bytes }) => haystack.includes(bytes))
    .map(({ form }) => form);
}

/** Every regular file under `dir`, recursively, as absolute paths. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The final terminal state of a byte stream: normal buffer (scrollback included) and alternate buffer. */
export async function terminalText(stream: string, columns: number, rows: number): Promise<string> {
  const term = new Terminal({ cols: columns, rows, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(stream, resolve));
  const dump = (buffer: typeof term.buffer.normal) => {
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const text = `${dump(term.buffer.normal)}\n${dump(term.buffer.alternate)}`;
  term.dispose();
  return text;
}
