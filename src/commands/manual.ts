/**
 * `keydeck help TOPIC`: a page of the manual (`docs/TOPIC.md`, shipped in the package
 * beside `dist/`) printed for a terminal at its width. The Markdown is rendered plainly: headings
 * underlined, code blocks indented, inline decoration (`code`, **bold**, links, HTML) dropped, a
 * link to another page said as `keydeck help PAGE`; tables as aligned columns when they fit, else
 * as a list (./manualLayout.ts). No line is wider than the width. The text goes through the
 * terminal sanitiser like everything else keydeck prints (src/terminal/sanitize.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { fileURLToPath } from 'node:url';
import { visible } from '../terminal/sanitize.js';
import { codeLines, isAlignmentRow, KEEP, layoutTable, tableCells, wrap } from './manualLayout.js';
import { MANUAL_TOPICS } from './manualTopics.js';
import { KeydeckError } from '../errors/index.js';

/**
 * The manual's folder: `docs/` beside the package's `package.json`, found from this module's
 * place (src/commands/ in a clone, dist/ or dist/chunks/ once built). Throws when there is none.
 */
export function manualDir(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'docs'))) return path.join(dir, 'docs');
    if (path.dirname(dir) === dir) throw new KeydeckError('manual_missing', 'the manual (docs/) is not installed beside keydeck');
  }
}

/** Whether `name` is a page of the manual (`commands`, `tui`, …). */
export function isManualTopic(name: string): boolean {
  return MANUAL_TOPICS.some((t) => t.name === name);
}

/** The Markdown of the page `name` (one of MANUAL_TOPICS). Throws when the file cannot be read. */
export function readManualPage(name: string, dir: string = manualDir()): string {
  if (!isManualTopic(name)) throw new KeydeckError('no_such_topic', `no help topic ${name}`);
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

/**
 * Prose (a paragraph, a list item, a table row, a heading) without its inline Markdown; with
 * `keep`, the spaces of code spans are {@link KEEP} (put back after wrapping).
 */
function inline(text: string, keep = false): string {
  // Outside code spans: HTML comments and tags, **strong** and *emphasis*; code spans lose their
  // backticks (and a table's `\|` is a plain `|` once they are gone).
  return text
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length > 1
        ? part
            .slice(1, -1)
            .replace(/\\\|/g, '|')
            .replace(keep ? /[ \n]/g : /\n/g, keep ? KEEP : ' ')
        : part
            .replace(/<!--[\s\S]*?-->/g, '')
            .replace(HTML_TAG, '')
            .replace(/\*\*([^*]+)\*\*/g, '$1')
            .replace(/(^|[\s(])\*([^*\s][^*]*?)\*(?=[\s.,;:!?)]|$)/g, '$1$2'),
    )
    .join('');
}

/** A list item's marker (`- `, `12. `) and the indentation of its own lines. */
const LIST_ITEM = /^(\s*)([-*+]|\d+\.)\s+/;

/** Options of {@link renderManualPage}. */
export interface RenderOptions {
  /** No line is wider than this many columns (at least 40). Default 100. */
  readonly width?: number;
}

/**
 * The page's Markdown as plain text for a terminal: `#` headings underlined with `=`, `##` with
 * `-`; paragraphs and list items wrapped at `width`; code blocks indented by four spaces (as
 * written, a line wider than `width` continued after `↪`); tables as aligned columns when they
 * fit in `width`, else one block a row (./manualLayout.ts); inline decoration dropped (code spans'
 * backticks, emphasis, HTML, links said as `text (keydeck help page)`); sanitised (no control or
 * escape sequence survives). Ends with one newline.
 */
export function renderManualPage(markdown: string, options: RenderOptions = {}): string {
  const width = Math.max(40, options.width ?? 100);
  const out: string[] = [];
  const lines = withPlainLinks(markdown);
  const blank = (): void => {
    if (out.length > 0 && out.at(-1) !== '') out.push('');
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*```/.test(raw)) {
      // A code block, as written (a list item's indentation kept), four spaces in.
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]!); i++) out.push(...(lines[i] === '' ? [''] : codeLines(`    ${lines[i]}`, width)));
      continue;
    }
    if (raw.trim() === '') {
      blank();
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      const text = wrap(inline(heading[2]!).trim(), width);
      blank();
      out.push(...text);
      if (heading[1]!.length <= 2) out.push((heading[1]!.length === 1 ? '=' : '-').repeat(Math.max(3, ...text.map((l) => stringWidth(l)))));
      out.push('');
      continue;
    }
    if (raw.startsWith('|')) {
      // A table: its rows up to the first line that is not one.
      const rows: string[][] = [];
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
        if (!isAlignmentRow(lines[i]!)) rows.push(tableCells(lines[i]!).map((cell) => inline(cell, true).replace(/\\\|/g, '|').replace(/\s+/g, ' ').trim()));
      }
      i--;
      const [header = [], ...body] = rows;
      blank();
      out.push(...layoutTable(header, body, width));
      blank();
      continue;
    }
    // A paragraph or a list item: its lines up to a blank line, a heading, a table, a code block
    // or the next item, joined and wrapped.
    const item = LIST_ITEM.exec(raw);
    const block = [item ? raw.slice(item[0].length) : raw];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (next.trim() === '' || /^(#{1,6}\s|\||\s*```)/.test(next) || LIST_ITEM.test(next)) break;
      block.push(next.trim());
      i++;
    }
    const text = inline(block.join('\n'), true).replace(/\s+/g, ' ').trim();
    // A block that held only HTML (`<details>`, `<!-- screens:keys -->`) leaves nothing behind.
    if (text === '') continue;
    const marker = item ? `${item[1]}${item[2]} ` : '';
    out.push(...wrap(text, width, marker, ' '.repeat(marker.length)));
  }
  // One blank line at most between blocks, none at the ends.
  const text = out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return `${visible(text, { newlines: true, maxLength: text.length })}\n`;
}
