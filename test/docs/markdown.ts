/**
 * Just enough Markdown reading for the manual's drift test (./manual.test.ts): the text outside
 * code blocks, table rows by section, inline code spans, headings' GitHub anchors and links.
 */

/** The page with its fenced code blocks blanked (their lines kept, empty), so nothing inside them counts. */
export function withoutCodeBlocks(markdown: string): string {
  let inside = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inside = !inside;
        return '';
      }
      return inside ? '' : line;
    })
    .join('\n');
}

/** The inline code spans of `text`, in order (`` `a` `` → `a`); a table's `\|` is read as `|`. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\\\|/g, '|'));
}

/** One table row: its cells (split on unescaped `|`, trimmed), the section (last `##`/`###` heading) it is under. */
export interface TableRow {
  readonly cells: readonly string[];
  readonly section: string;
}

/** Every table body row of the page (header and `|---|` rows left out). */
export function tableRows(markdown: string): TableRow[] {
  const rows: TableRow[] = [];
  let section = '';
  let previousWasRow = false;
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    if (!line.startsWith('|')) {
      previousWasRow = false;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    const isRule = cells.every((c) => /^:?-+:?$/.test(c));
    // The first row of a table is its header; the rule row follows it.
    if (!previousWasRow) {
      previousWasRow = true;
      continue;
    }
    if (isRule) continue;
    rows.push({ cells, section });
  }
  return rows;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (not `-` and `_`), spaces as `-`. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page defines: its headings' (numbered `-1`, `-2` when repeated, as GitHub does) and explicit `<a id|name>`. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      out.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
}

/** The link targets of a page outside code (`[text](target)`), with their line numbers. */
export function links(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  withoutCodeBlocks(markdown)
    .split('\n')
    .forEach((line, i) => {
      // Code spans may hold brackets and parentheses (`[--json]`): they are not links.
      const text = line.replace(/`[^`]*`/g, 'code');
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ target: m[1]!, line: i + 1 });
    });
  return out;
}
