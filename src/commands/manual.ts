/**
 * `keydeck help TOPIC` (issue 27): a page of the manual (`docs/TOPIC.md`, shipped in the package
 * beside `dist/`) printed for a terminal. The Markdown is rendered plainly: headings underlined,
 * code blocks indented, inline decoration (`code`, **bold**, links, HTML) dropped, a link to
 * another page said as `keydeck help PAGE`; tables stay as they are written. The text goes
 * through the terminal sanitiser like everything else keydeck prints (src/terminal/sanitize.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { visible } from '../terminal/sanitize.js';
import { MANUAL_TOPICS } from './manualTopics.js';

/**
 * The manual's folder: `docs/` beside the package's `package.json`, found from this module's
 * place (src/commands/ in a clone, dist/ or dist/chunks/ once built). Throws when there is none.
 */
export function manualDir(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'docs'))) return path.join(dir, 'docs');
    if (path.dirname(dir) === dir) throw new Error('the manual (docs/) is not installed beside keydeck');
  }
}

/** Whether `name` is a page of the manual (`commands`, `tui`, …). */
export function isManualTopic(name: string): boolean {
  return MANUAL_TOPICS.some((t) => t.name === name);
}

/** The Markdown of the page `name` (one of MANUAL_TOPICS). Throws when the file cannot be read. */
export function readManualPage(name: string, dir: string = manualDir()): string {
  if (!isManualTopic(name)) throw new Error(`no help topic ${name}`);
  return readFileSync(path.join(dir, `${name}.md`), 'utf8');
}

/** A link's target said for a terminal: another page as `keydeck help PAGE`, a web address as itself, else nothing. */
function linkNote(target: string): string | undefined {
  if (/^https?:/i.test(target)) return target;
  const page = /^(?:\.\/)?([a-z-]+)\.md(?:#.*)?$/.exec(target)?.[1];
  if (page !== undefined && isManualTopic(page)) return `keydeck help ${page}`;
  return undefined;
}

/**
 * Links said for a terminal, across a line break too (`[the runaway\nalert](spend.md#…)`):
 * [text](target) → text (keydeck help page | https://…); a same-page anchor or a file → text.
 */
function unlink(prose: string): string {
  return prose.replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (_, text: string, target: string) => {
    const note = linkNote(target);
    const shown = text.replace(/`/g, '');
    return note === undefined || note === shown ? shown : `${shown} (${note})`;
  });
}

/** The page split into prose (links made plain) and fenced code (as written), line by line. */
function withPlainLinks(markdown: string): string[] {
  const out: string[] = [];
  let prose: string[] = [];
  let inCode = false;
  for (const line of markdown.replace(/\r\n/g, '\n').split('\n')) {
    const fence = /^\s*```/.test(line);
    if (!inCode && !fence) {
      prose.push(line);
      continue;
    }
    if (prose.length > 0) out.push(...unlink(prose.join('\n')).split('\n'));
    prose = [];
    out.push(line);
    if (fence) inCode = !inCode;
  }
  if (prose.length > 0) out.push(...unlink(prose.join('\n')).split('\n'));
  return out;
}

/** HTML the pages use for layout (`<details>`, `<summary>`, `<b>`, `<code>`, `<br>`), dropped outside code. */
const HTML_TAG = /<\/?(?:details|summary|b|i|em|strong|code|kbd|br|p|div|span|sub|sup|a)(?:\s[^>]*)?\/?>/gi;

/** One line of prose or a table row without its inline Markdown. */
function inline(line: string): string {
  // Outside code spans: HTML comments and tags and **emphasis**; code spans lose their
  // backticks (and a table's `\|` is a plain `|` once they are gone).
  return line
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length > 1
        ? part.slice(1, -1).replace(/\\\|/g, '|')
        : part.replace(/<!--.*?-->/g, '').replace(HTML_TAG, '').replace(/\*\*([^*]+)\*\*/g, '$1'),
    )
    .join('');
}

/**
 * The page's Markdown as plain text for a terminal: `#` headings underlined with `=`, `##` with
 * `-`, code blocks indented by four spaces (as written), tables and lists kept, inline decoration
 * dropped, sanitised (no control or escape sequence survives). Ends with one newline.
 */
export function renderManualPage(markdown: string): string {
  const out: string[] = [];
  let inCode = false;
  for (const raw of withPlainLinks(markdown)) {
    if (/^\s*```/.test(raw)) {
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      out.push(raw === '' ? '' : `    ${raw}`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      const text = inline(heading[2]!).trim();
      if (out.length > 0 && out.at(-1) !== '') out.push('');
      out.push(text);
      if (heading[1]!.length <= 2) out.push((heading[1]!.length === 1 ? '=' : '-').repeat(Math.max(3, [...text].length)));
      continue;
    }
    // A line that held only HTML (`<details>`, `<!-- screens:keys -->`) leaves nothing behind.
    const text = inline(raw);
    if (text.trim() === '' && raw.trim() !== '') continue;
    out.push(text.trimEnd());
  }
  // One blank line at most between blocks, none at the ends.
  const text = out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  return `${visible(text, { newlines: true, maxLength: text.length })}\n`;
}
