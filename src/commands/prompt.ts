/**
 * The terminal prompts of the commands (on stderr, so stdout stays clean for `--json`): whether
 * one can be asked, a visible line, a masked secret, and all of stdin (`--token-stdin`). Re-exported
 * by ./output.ts, where the commands import them from.
 */
import { visible } from '../terminal/sanitize.js';

/** Longest question text written (code units); more ends with `…`. */
const MAX_LINE_TEXT = 65_536;

/** True when both stdin and stderr are terminals (a prompt can be shown and answered). */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Asks one visible line on the terminal (stderr), trimmed. Ctrl-C or Ctrl-D exits 130. */
export async function askLine(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  rl.on('SIGINT', () => {
    process.stderr.write('\n');
    process.exit(130);
  });
  try {
    return (await rl.question(visible(question, { maxLength: MAX_LINE_TEXT }))).trim();
  } finally {
    rl.close();
  }
}

/**
 * Asks for a secret on the terminal: raw mode, each typed or pasted character echoed as `*`,
 * Backspace erases, Enter ends, Ctrl-U clears, Ctrl-C exits 130. The answer is trimmed.
 */
export function askSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  // Raw mode (no echo) first, then the prompt: what is typed once the prompt shows is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve) => {
    let value = '';
    let inEscape = false;
    const finish = (): void => {
      stdin.setRawMode(false);
      stdin.off('data', onData);
      stdin.pause();
      process.stderr.write('\n');
      resolve(value.trim());
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (inEscape) {
          // Skip an escape sequence (arrow keys and the like): ESC [ … final letter or ~.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\u001b') {
          inEscape = true;
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0) {
            value = value.slice(0, -1);
            process.stderr.write('\b \b');
          }
        } else if (ch === '\u0015') {
          process.stderr.write('\b \b'.repeat(value.length));
          value = '';
        } else if (ch >= ' ') {
          value += ch;
          process.stderr.write('*');
        }
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Reads all of stdin as text (for `--token-stdin`), trimmed. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}
