/**
 * `keydeck help TOPIC`'s rendering (src/commands/manual.ts): the manual's Markdown as plain
 * terminal text, sanitised; every page of docs/ renders. The command itself runs as the built CLI
 * in test/commands/help.test.ts.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { isManualTopic, readManualPage, renderManualPage } from '../../src/commands/manual.js';
import { MANUAL_TOPICS } from '../../src/commands/manualTopics.js';

describe('renderManualPage', () => {
  it('underlines headings, wraps prose, indents code, drops inline decoration and aligns tables', () => {
    const text = renderManualPage(
      [
        '# The title',
        '',
        'Run `keydeck <command> --help`, **bold**, *and* see [the',
        'keys](tui.md#keys), [Prometheus](https://prometheus.io/), [above](#the-title) and [README](../README.md).',
        '<!-- bench -->',
        '',
        '<details><summary><b>More</b> (<code>2</code>)</summary>', // a summary's text stays, its tags go
        '',
        '## A section',
        '- a list item whose words run past the width of forty columns, with a `code',
        '  span` across its lines',
        '- `a code span that is wider than a whole line of forty columns` is broken',
        '',
        '```sh',
        'keydeck keys list   # `code` and **stars** stay as written here, however long the line is',
        '```',
        '',
        '| where | key |',
        '|---|---|',
        '| `a\\|b` | `j` |',
      ].join('\n'),
      { width: 40 },
    );
    expect(text).toBe(
      [
        'The title',
        '=========',
        '',
        'Run keydeck <command> --help, bold, and',
        'see the keys (keydeck help tui),',
        'Prometheus (https://prometheus.io/),',
        'above and README.',
        '',
        'More (2)',
        '',
        'A section',
        '---------',
        '',
        '- a list item whose words run past the',
        '  width of forty columns, with a',
        '  code span across its lines', // a code span is not broken …
        '- a code span that is wider than a whole', // … unless it is wider than a line
        '  line of forty columns is broken',
        '',
        // A code line wider than the page is continued, at a space where one is near.
        '    keydeck keys list   # `code` and',
        '    ↪ **stars** stay as written here,',
        '    ↪ however long the line is',
        '',
        // A table that fits: aligned columns, the header underlined.
        'where  key',
        '-----  ---',
        'a|b    j',
        '',
      ].join('\n'),
    );
  });

  it('never writes a control character or escape sequence from the page raw', () => {
    const text = renderManualPage('# T\n\nred \u001b[31mtext\u001b[0m and a \u202e bidi override, `\u0007bell`\n');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain('\\u001b[31mtext');
  });
});

describe('tables wider than the page', () => {
  it('become one block a row: the first cell, then the others under it, named by their column when there are more than two', () => {
    const two = renderManualPage(['| command | does |', '|---|---|', '| `keydeck keys delete ID\\|NAME [--yes]` | deletes a key for good, after asking, unless --yes is given |'].join('\n'), {
      width: 40,
    });
    expect(two).toBe(['keydeck keys delete ID|NAME [--yes]', '    deletes a key for good, after', '    asking, unless --yes is given', ''].join('\n'));
    const three = renderManualPage(['| scope | key | does |', '|---|---|---|', '| Keys | `n` | a new credit key, named, then shown once to be copied |', '| | `d` | delete |'].join('\n'), {
      width: 40,
    });
    expect(three).toBe(['Keys', '    key: n', '    does: a new credit key, named, then', '    shown once to be copied', 'd', '    does: delete', ''].join('\n'));
  });
});

describe('the pages', () => {
  it.each([60, 80, 100])('no page has a line wider than %i columns', (width) => {
    for (const { name } of MANUAL_TOPICS) {
      const wide = renderManualPage(readManualPage(name), { width })
        .split('\n')
        .filter((line) => stringWidth(line) > width);
      expect(wide, name).toEqual([]);
    }
  });

  it.each(MANUAL_TOPICS.map((t) => t.name))('%s renders as plain text: its title underlined, no Markdown link or HTML left', (name) => {
    expect(isManualTopic(name)).toBe(true);
    const text = renderManualPage(readManualPage(name));
    const [title, rule] = text.split('\n');
    expect(rule).toMatch(/^=+$/);
    expect(rule!.length).toBe(stringWidth(title!));
    expect(text).not.toMatch(/\]\([^)\s]*\)/);
    expect(text).not.toMatch(/^<!--|<details>|<summary>/m);
  });

  it('reads only the topics of the manual', () => {
    expect(isManualTopic('../package')).toBe(false);
    expect(() => readManualPage('../README')).toThrow(/no help topic/);
  });
});
